// SMPP 3.4 PDUs the ESME side needs (SMPP v3.4 Issue 1.2, section 4): the 16-octet header (3.2), bind
// transceiver, unbind, enquire_link, submit_sm, deliver_sm, their responses and generic_nack, with the
// optional TLVs (5.3). Decoding takes untrusted octets and never throws: it returns an error with the
// command_status to answer with. Encoding takes values the core built and throws RangeError on a field
// over its length.

export const COMMAND = {
  generic_nack: 0x80000000,
  bind_transceiver: 0x00000009,
  bind_transceiver_resp: 0x80000009,
  unbind: 0x00000006,
  unbind_resp: 0x80000006,
  enquire_link: 0x00000015,
  enquire_link_resp: 0x80000015,
  submit_sm: 0x00000004,
  submit_sm_resp: 0x80000004,
  deliver_sm: 0x00000005,
  deliver_sm_resp: 0x80000005,
} as const;

/** command_status values (5.1.3) this side sends or reads. */
export const STATUS = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDLEN: 0x02,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RSYSERR: 0x08,
  ESME_RINVSRCADR: 0x0a,
  ESME_RINVDSTADR: 0x0b,
  ESME_RBINDFAIL: 0x0d,
  ESME_RINVPASWD: 0x0e,
  ESME_RINVSYSID: 0x0f,
  ESME_RMSGQFUL: 0x14,
  ESME_RTHROTTLED: 0x58,
  ESME_RX_T_APPN: 0x64,
  ESME_RX_P_APPN: 0x65,
} as const;

/** Optional parameter tags (5.3.2) read from deliver_sm. */
export const TAG = {
  receipted_message_id: 0x001e,
  message_state: 0x0427,
  message_payload: 0x0424,
} as const;

export const HEADER_LENGTH = 16;
/** The largest PDU accepted: a 254-octet short_message, or a message_payload TLV of up to 64 KiB (5.3.2.32). */
export const MAX_PDU_LENGTH = 70_000;
/** SMPP 3.4's interface_version (5.2.4). */
export const INTERFACE_VERSION = 0x34;

interface Header {
  length: number;
  commandId: number;
  status: number;
  sequence: number;
}

/** submit_sm and deliver_sm share one body (4.4.1, 4.6.1). */
export interface ShortMessage {
  serviceType: string;
  source: { ton: number; npi: number; address: string };
  destination: { ton: number; npi: number; address: string };
  esmClass: number;
  protocolId: number;
  priority: number;
  scheduleDeliveryTime: string;
  validityPeriod: string;
  registeredDelivery: number;
  replaceIfPresent: number;
  dataCoding: number;
  defaultMessageId: number;
  /** short_message, or message_payload when short_message is empty and the TLV is present. */
  message: Uint8Array;
  /** The optional parameters by tag, as octets. */
  tlvs: Map<number, Uint8Array>;
}

interface BindTransceiver {
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
  addrTon: number;
  addrNpi: number;
  addressRange: string;
}

export type Pdu =
  | { header: Header; kind: 'bind_transceiver'; body: BindTransceiver }
  | { header: Header; kind: 'submit_sm' | 'deliver_sm'; body: ShortMessage }
  /** A response with an optional system_id or message_id (absent when the status is an error, 3.2). */
  | {
      header: Header;
      kind: 'bind_transceiver_resp' | 'submit_sm_resp' | 'deliver_sm_resp';
      body: { id?: string };
    }
  | {
      header: Header;
      kind: 'unbind' | 'unbind_resp' | 'enquire_link' | 'enquire_link_resp' | 'generic_nack';
      body: Record<string, never>;
    };

type PduKind = Pdu['kind'];

type DecodeResult =
  | { ok: true; pdu: Pdu }
  /** `status` answers the PDU (generic_nack or its response); `header` is there when it was readable. */
  | { ok: false; error: string; status: number; header?: Header };

const KIND_OF = new Map<number, PduKind>(Object.entries(COMMAND).map(([k, v]) => [v, k as PduKind]));

/** The header of a PDU whose first 16 octets are in `bytes`, or undefined when fewer are. */
export function readHeader(bytes: Uint8Array): Header | undefined {
  if (bytes.length < HEADER_LENGTH) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER_LENGTH);
  return {
    length: view.getUint32(0),
    commandId: view.getUint32(4),
    status: view.getUint32(8),
    sequence: view.getUint32(12),
  };
}

/** Reads the body's fields in order; every read checks the bounds and records the first error. */
class Reader {
  #at = 0;
  error: string | undefined;
  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.#at;
  }

  octet(name: string): number {
    if (this.#at >= this.bytes.length) {
      this.error ??= `${name} missing`;
      return 0;
    }
    return this.bytes[this.#at++]!;
  }

  /** A C-Octet String of at most `max` octets, its NULL included (3.1). */
  cString(name: string, max: number): string {
    const end = this.bytes.indexOf(0, this.#at);
    if (end < 0 || end - this.#at + 1 > max) {
      this.error ??= end < 0 ? `${name} has no NULL terminator` : `${name} longer than ${max - 1} octets`;
      this.#at = this.bytes.length;
      return '';
    }
    const text = Buffer.from(this.bytes.subarray(this.#at, end)).toString('latin1');
    this.#at = end + 1;
    return text;
  }

  octets(name: string, length: number): Uint8Array {
    if (this.remaining < length) {
      this.error ??= `${name} cut off`;
      this.#at = this.bytes.length;
      return new Uint8Array(0);
    }
    const out = this.bytes.slice(this.#at, this.#at + length);
    this.#at += length;
    return out;
  }

  /** The optional parameters to the end of the body (5.3.1): tag, length, value. */
  tlvs(): Map<number, Uint8Array> {
    const out = new Map<number, Uint8Array>();
    while (this.remaining > 0 && this.error === undefined) {
      if (this.remaining < 4) {
        this.error = 'optional parameter header cut off';
        break;
      }
      const tag = (this.octet('tag') << 8) | this.octet('tag');
      const length = (this.octet('length') << 8) | this.octet('length');
      out.set(tag, this.octets(`optional parameter 0x${tag.toString(16)}`, length));
    }
    return out;
  }
}

/** Decodes one whole PDU (its command_length octets). Never throws. */
export function decodePdu(bytes: Uint8Array): DecodeResult {
  const header = readHeader(bytes);
  if (header === undefined)
    return { ok: false, error: 'shorter than the header', status: STATUS.ESME_RINVCMDLEN };
  if (header.length !== bytes.length || header.length > MAX_PDU_LENGTH) {
    return {
      ok: false,
      error: `command_length ${header.length} is wrong`,
      status: STATUS.ESME_RINVCMDLEN,
      header,
    };
  }
  const kind = KIND_OF.get(header.commandId);
  if (kind === undefined) {
    return {
      ok: false,
      error: `unknown command_id 0x${header.commandId.toString(16)}`,
      status: STATUS.ESME_RINVCMDID,
      header,
    };
  }
  const r = new Reader(bytes.subarray(HEADER_LENGTH));
  let pdu: Pdu;
  switch (kind) {
    case 'bind_transceiver':
      pdu = {
        header,
        kind,
        body: {
          systemId: r.cString('system_id', 16),
          password: r.cString('password', 9),
          systemType: r.cString('system_type', 13),
          interfaceVersion: r.octet('interface_version'),
          addrTon: r.octet('addr_ton'),
          addrNpi: r.octet('addr_npi'),
          addressRange: r.cString('address_range', 41),
        },
      };
      r.tlvs();
      break;
    case 'submit_sm':
    case 'deliver_sm':
      pdu = { header, kind, body: readShortMessage(r) };
      break;
    case 'bind_transceiver_resp':
    case 'submit_sm_resp':
    case 'deliver_sm_resp': {
      // An error response may carry no body at all (3.2; many SMSCs send only the header).
      if (r.remaining === 0) {
        pdu = { header, kind, body: {} };
        break;
      }
      const id = r.cString(
        kind === 'bind_transceiver_resp' ? 'system_id' : 'message_id',
        kind === 'bind_transceiver_resp' ? 16 : 65,
      );
      r.tlvs();
      pdu = { header, kind, body: { id } };
      break;
    }
    default:
      if (r.remaining > 0) r.error = `${kind} has a body`;
      pdu = { header, kind, body: {} };
  }
  if (r.error !== undefined) {
    return { ok: false, error: `${kind}: ${r.error}`, status: STATUS.ESME_RINVMSGLEN, header };
  }
  return { ok: true, pdu };
}

function readShortMessage(r: Reader): ShortMessage {
  const serviceType = r.cString('service_type', 6);
  const source = {
    ton: r.octet('source_addr_ton'),
    npi: r.octet('source_addr_npi'),
    address: r.cString('source_addr', 21),
  };
  const destination = {
    ton: r.octet('dest_addr_ton'),
    npi: r.octet('dest_addr_npi'),
    address: r.cString('destination_addr', 21),
  };
  const esmClass = r.octet('esm_class');
  const protocolId = r.octet('protocol_id');
  const priority = r.octet('priority_flag');
  const scheduleDeliveryTime = r.cString('schedule_delivery_time', 17);
  const validityPeriod = r.cString('validity_period', 17);
  const registeredDelivery = r.octet('registered_delivery');
  const replaceIfPresent = r.octet('replace_if_present_flag');
  const dataCoding = r.octet('data_coding');
  const defaultMessageId = r.octet('sm_default_msg_id');
  const smLength = r.octet('sm_length');
  const shortMessage = r.octets('short_message', smLength);
  const tlvs = r.tlvs();
  const payload = tlvs.get(TAG.message_payload);
  // Both at once is not allowed (5.3.2.32); the SMSC is answered with an error rather than one guessed.
  if (payload !== undefined && smLength > 0) r.error ??= 'short_message and message_payload both present';
  return {
    serviceType,
    source,
    destination,
    esmClass,
    protocolId,
    priority,
    scheduleDeliveryTime,
    validityPeriod,
    registeredDelivery,
    replaceIfPresent,
    dataCoding,
    defaultMessageId,
    message: payload ?? shortMessage,
    tlvs,
  };
}

class Writer {
  readonly parts: number[] = [];
  octet(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new RangeError(`octet ${value}`);
    this.parts.push(value);
  }
  cString(name: string, value: string, max: number): void {
    const bytes = Buffer.from(value, 'latin1');
    if (bytes.length + 1 > max || bytes.includes(0))
      throw new RangeError(`${name} longer than ${max - 1} octets`);
    this.parts.push(...bytes, 0);
  }
  octets(value: Uint8Array): void {
    for (const b of value) this.parts.push(b);
  }
}

/** A PDU to send; `sequence` is the sender's (1..0x7FFFFFFF, 5.1.4). */
export type OutgoingPdu =
  | { kind: 'bind_transceiver'; body: BindTransceiver }
  | {
      kind: 'submit_sm' | 'deliver_sm';
      body: Omit<ShortMessage, 'tlvs'> & { tlvs?: Map<number, Uint8Array> };
    }
  | { kind: 'bind_transceiver_resp' | 'submit_sm_resp' | 'deliver_sm_resp'; body: { id?: string } }
  | { kind: 'unbind' | 'unbind_resp' | 'enquire_link' | 'enquire_link_resp' | 'generic_nack' };

export function encodePdu(pdu: OutgoingPdu, sequence: number, status: number = STATUS.ESME_ROK): Uint8Array {
  const w = new Writer();
  switch (pdu.kind) {
    case 'bind_transceiver': {
      const b = pdu.body;
      w.cString('system_id', b.systemId, 16);
      w.cString('password', b.password, 9);
      w.cString('system_type', b.systemType, 13);
      w.octet(b.interfaceVersion);
      w.octet(b.addrTon);
      w.octet(b.addrNpi);
      w.cString('address_range', b.addressRange, 41);
      break;
    }
    case 'submit_sm':
    case 'deliver_sm': {
      const b = pdu.body;
      if (b.message.length > 254) throw new RangeError('short_message longer than 254 octets');
      w.cString('service_type', b.serviceType, 6);
      w.octet(b.source.ton);
      w.octet(b.source.npi);
      w.cString('source_addr', b.source.address, 21);
      w.octet(b.destination.ton);
      w.octet(b.destination.npi);
      w.cString('destination_addr', b.destination.address, 21);
      w.octet(b.esmClass);
      w.octet(b.protocolId);
      w.octet(b.priority);
      w.cString('schedule_delivery_time', b.scheduleDeliveryTime, 17);
      w.cString('validity_period', b.validityPeriod, 17);
      w.octet(b.registeredDelivery);
      w.octet(b.replaceIfPresent);
      w.octet(b.dataCoding);
      w.octet(b.defaultMessageId);
      w.octet(b.message.length);
      w.octets(b.message);
      for (const [tag, value] of b.tlvs ?? []) {
        if (value.length > 0xffff) throw new RangeError('optional parameter longer than 65535 octets');
        w.octet(tag >> 8);
        w.octet(tag & 0xff);
        w.octet(value.length >> 8);
        w.octet(value.length & 0xff);
        w.octets(value);
      }
      break;
    }
    case 'bind_transceiver_resp':
    case 'submit_sm_resp':
    case 'deliver_sm_resp':
      if (pdu.body.id !== undefined) {
        w.cString('id', pdu.body.id, pdu.kind === 'bind_transceiver_resp' ? 16 : 65);
      }
      break;
    default:
      break;
  }
  const out = new Uint8Array(HEADER_LENGTH + w.parts.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, out.length);
  view.setUint32(4, COMMAND[pdu.kind]);
  view.setUint32(8, status);
  view.setUint32(12, sequence);
  out.set(w.parts, HEADER_LENGTH);
  return out;
}

/** The response command_id of a request (the request's with bit 31 set, 3.2). */
export function isResponse(commandId: number): boolean {
  return (commandId & 0x80000000) !== 0;
}
