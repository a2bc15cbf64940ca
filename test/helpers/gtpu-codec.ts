/**
 * GTP-U (TS 29.281) messages in TypeScript: what a gNB puts on N3 and reads from it, for the tests and
 * benchmarks that stand in for the gNB in front of the UPF. The forwarder and the simulated gNB have
 * their own codecs in C (native/upf/gtpu.c, native/gnb-user-plane/); this one decodes untrusted bytes
 * without throwing.
 */

/** TS 29.281 6.1, Table 6.1-1. */
export const GtpuMessageType = {
  echoRequest: 1,
  echoResponse: 2,
  errorIndication: 26,
  supportedExtensionHeadersNotification: 31,
  endMarker: 254,
  gPdu: 255,
} as const;

/** TS 29.281 5.2.1, Figure 5.2.1-3. */
const GtpuExtensionType = {
  udpPort: 0x40,
  pduSessionContainer: 0x85,
  pdcpPduNumber: 0xc0,
} as const;

interface GtpuExtension {
  type: number;
  /** The extension's content: its 4n octets without the length octet and the next-type octet. */
  content: Uint8Array;
}

export interface GtpuMessage {
  type: number;
  teid: number;
  /** Present when the S flag is set. */
  sequence?: number;
  extensions: GtpuExtension[];
  /** The T-PDU of a G-PDU, or the information elements of the other messages. */
  payload: Uint8Array;
}

type GtpuDecode = { ok: true; message: GtpuMessage } | { ok: false; error: string };

export function decodeGtpu(bytes: Uint8Array): GtpuDecode {
  if (bytes.length < 8) return { ok: false, error: 'shorter than the 8-octet header' };
  const flags = bytes[0] ?? 0;
  // 5.1: version 1, protocol type 1 (GTP; 0 is GTP').
  if ((flags & 0xf0) !== 0x30) return { ok: false, error: 'not GTPv1 with PT 1' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const end = 8 + view.getUint16(2);
  if (end > bytes.length) return { ok: false, error: 'length field beyond the datagram' };
  const message: GtpuMessage = {
    type: bytes[1] ?? 0,
    teid: view.getUint32(4),
    extensions: [],
    payload: new Uint8Array(),
  };
  let offset = 8;
  if ((flags & 0x07) !== 0) {
    if (end < 12) return { ok: false, error: 'optional fields missing' };
    if (flags & 0x02) message.sequence = view.getUint16(8);
    let next = flags & 0x04 ? (bytes[11] ?? 0) : 0;
    offset = 12;
    while (next !== 0) {
      const length = 4 * (bytes[offset] ?? 0);
      if (offset >= end || length === 0 || length > end - offset)
        return { ok: false, error: 'extension header of bad length' };
      message.extensions.push({ type: next, content: bytes.slice(offset + 1, offset + length - 1) });
      next = bytes[offset + length - 1] ?? 0;
      offset += length;
    }
  }
  message.payload = bytes.slice(offset, end);
  return { ok: true, message };
}

export function encodeGtpu(message: {
  type: number;
  teid: number;
  sequence?: number;
  extensions?: readonly GtpuExtension[];
  payload?: Uint8Array;
}): Uint8Array {
  const extensions = message.extensions ?? [];
  const payload = message.payload ?? new Uint8Array();
  const optional = message.sequence !== undefined || extensions.length > 0;
  // Each extension is padded to 4n octets: length octet + content + next-type octet.
  const extensionLengths = extensions.map((e) => Math.ceil((e.content.length + 2) / 4) * 4);
  const headerLength = 8 + (optional ? 4 : 0) + extensionLengths.reduce((a, b) => a + b, 0);
  const bytes = new Uint8Array(headerLength + payload.length);
  const view = new DataView(bytes.buffer);
  bytes[0] = 0x30 | (extensions.length > 0 ? 0x04 : 0) | (message.sequence !== undefined ? 0x02 : 0);
  bytes[1] = message.type;
  view.setUint16(2, bytes.length - 8);
  view.setUint32(4, message.teid);
  if (optional) {
    view.setUint16(8, message.sequence ?? 0);
    bytes[11] = extensions[0]?.type ?? 0;
    let offset = 12;
    extensions.forEach((extension, i) => {
      const length = extensionLengths[i] ?? 4;
      bytes[offset] = length / 4;
      bytes.set(extension.content, offset + 1);
      bytes[offset + length - 1] = extensions[i + 1]?.type ?? 0;
      offset += length;
    });
  }
  bytes.set(payload, headerLength);
  return bytes;
}

/**
 * TS 38.415 5.5.2: the PDU Session Container's first octet is the PDU type (0 DL, 1 UL) in its high
 * nibble; the QFI is the low 6 bits of the second.
 */
export function pduSessionContainer(pduType: 0 | 1, qfi: number): GtpuExtension {
  return { type: GtpuExtensionType.pduSessionContainer, content: Uint8Array.of(pduType << 4, qfi & 0x3f) };
}

export function readPduSessionContainer(message: GtpuMessage): { pduType: number; qfi: number } | undefined {
  const container = message.extensions.find((e) => e.type === GtpuExtensionType.pduSessionContainer);
  if (container === undefined || container.content.length < 2) return undefined;
  return { pduType: (container.content[0] ?? 0) >> 4, qfi: (container.content[1] ?? 0) & 0x3f };
}

/** An uplink G-PDU as a gNB sends it on N3: UL PDU SESSION INFORMATION with the QFI. */
export const encodeUplinkGPdu = (teid: number, packet: Uint8Array, qfi = 1): Uint8Array =>
  encodeGtpu({
    type: GtpuMessageType.gPdu,
    teid,
    extensions: [pduSessionContainer(1, qfi)],
    payload: packet,
  });

export const encodeEchoRequest = (sequence: number): Uint8Array =>
  encodeGtpu({ type: GtpuMessageType.echoRequest, teid: 0, sequence });

/** TS 29.281 8.3 TEID Data I (type 16) and 8.4 GTP-U Peer Address (type 133) of an Error Indication. */
export function decodeErrorIndication(
  payload: Uint8Array,
): { ok: true; teid: number; peerAddress: Uint8Array } | { ok: false; error: string } {
  let teid: number | undefined;
  let peerAddress: Uint8Array | undefined;
  for (let offset = 0; offset < payload.length;) {
    const type = payload[offset] ?? 0;
    if (type < 128) {
      // TV information elements: the only one here is TEID Data I (and Recovery, 1 octet).
      const length = type === 16 ? 4 : type === 14 ? 1 : -1;
      if (length < 0 || offset + 1 + length > payload.length) return { ok: false, error: `bad IE ${type}` };
      if (type === 16) {
        teid = new DataView(payload.buffer, payload.byteOffset + offset + 1, 4).getUint32(0);
      }
      offset += 1 + length;
    } else {
      if (offset + 3 > payload.length) return { ok: false, error: 'truncated TLV' };
      const length = ((payload[offset + 1] ?? 0) << 8) | (payload[offset + 2] ?? 0);
      if (offset + 3 + length > payload.length) return { ok: false, error: 'truncated TLV' };
      if (type === 133) peerAddress = payload.slice(offset + 3, offset + 3 + length);
      offset += 3 + length;
    }
  }
  if (teid === undefined || peerAddress === undefined)
    return { ok: false, error: 'TEID Data I or GTP-U Peer Address missing' };
  return { ok: true, teid, peerAddress };
}
