import { InvalidError } from '../../errors.ts';
import { ipToBytes } from '../../network/transport/sctp/chunks.ts';
import type { LogDirection } from '../../records/record-inputs.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import { createNasCiphering } from './nas-ciphering.ts';
import { createNgapCapture, pcapngHeader, type CaptureEndpoint } from './pcapng.ts';
import type { RadioEvent } from './radio-events.repository.ts';

/** Rows one export may carry unless the caller sets another bound: the 100,000 of issue 32's goal. */
const DEFAULT_EXPORT_MAX_ROWS = 100_000;

/** Rows read per query: bounded memory whatever the export's size. */
const PAGE_ROWS = 1_000;

/** The NGAP port (TS 38.412 section 7), for an AMF whose N2 endpoint is not running. */
const NGAP_PORT = 38412;

interface RadioEventsExportFilter extends TimestampWindow {
  direction?: LogDirection;
  messageType?: string;
  imsi?: string;
  radio?: string;
}

/** What the export reads: the radio events, oldest first, and their count. */
interface ExportSource {
  count(filter: RadioEventsExportFilter & { protocol: string }): Promise<number>;
  listOldestAfter(
    filter: RadioEventsExportFilter & { protocol: string },
    after: { timestamp: number; id: number } | undefined,
    limit: number,
  ): Promise<RadioEvent[]>;
}

/** `ip:port` or `[ipv6]:port`, as radios' addresses are kept (network/radio-registry.ts). */
function endpointOf(hostPort: string): CaptureEndpoint | undefined {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(hostPort);
  if (!match) return undefined;
  const ip = ipToBytes(match[1] as string);
  const port = Number(match[2]);
  return ip === undefined || port > 0xffff ? undefined : { ip, port };
}

/**
 * The radio's name from an event's details (ngap-recorder.ts), when the radio had one then, and the keys
 * of the UE the message belongs to, most specific first: its IMSI, once the AMF knew it (a NAS security
 * context outlives the connection: idle mode, handover, TS 24.501 4.4.2), then its association (the
 * radio and AMF UE NGAP ID).
 */
function whereFrom(details: string): { radio: string | undefined; ue: string[] } {
  try {
    const parsed = JSON.parse(details) as {
      radio?: unknown;
      amf_ue_ngap_id?: unknown;
      imsi?: unknown;
    } | null;
    const radio = typeof parsed?.radio === 'string' ? parsed.radio : undefined;
    const id = parsed?.amf_ue_ngap_id;
    const ue: string[] = [];
    if (typeof parsed?.imsi === 'string' && parsed.imsi !== '') ue.push(`imsi ${parsed.imsi}`);
    if (typeof id === 'number') ue.push(`${radio ?? ''}/${id}`);
    return { radio, ue };
  } catch {
    return { radio: undefined, ue: [] };
  }
}

/** True for a UE-associated message: its details carry a UE NGAP id (network/amf/n2/pdu-details.ts). */
function ueAssociated(details: string): boolean {
  return details.includes('"ran_ue_ngap_id"') || details.includes('"amf_ue_ngap_id"');
}

/**
 * Radio events as a pcapng capture of N2 (issue 32 item 4): NGAP events only, oldest first, each from
 * the radio's address to the AMF's N2 address (the reverse when outbound). The radio's address is the
 * one it is connected from now; an event of a radio not connected now, or recorded before the radio
 * named itself, carries the unspecified address 0.0.0.0 and port 0. The AMF's is its first N2 listen
 * address of the radio's family, or the unspecified address and port 38412 when N2 does not run.
 */
export function createRadioEventsExport(deps: {
  radioEvents: ExportSource;
  /** `ip:port` of the connected radio of that name, undefined when none is. */
  radioAddress(name: string): string | undefined;
  /** The AMF's N2 listen addresses, empty when N2 does not run. */
  amfAddresses(): readonly { address: string; port: number }[];
  maxRows?: number;
}) {
  const maxRows = deps.maxRows ?? DEFAULT_EXPORT_MAX_ROWS;

  /** The AMF's end for each IP family, read once per export. */
  function amfEndpoints(): { 4: CaptureEndpoint; 16: CaptureEndpoint } {
    const first = (family: 4 | 16): CaptureEndpoint => {
      for (const local of deps.amfAddresses()) {
        const ip = ipToBytes(local.address);
        if (ip?.length === family) return { ip, port: local.port };
      }
      return { ip: new Uint8Array(family), port: NGAP_PORT };
    };
    return { 4: first(4), 16: first(16) };
  }

  /** The radio's end, cached per name for one export (an export spans one radio list). */
  function radioEndpoints() {
    const cache = new Map<string | undefined, CaptureEndpoint>();
    return (name: string | undefined): CaptureEndpoint => {
      let endpoint = cache.get(name);
      if (endpoint === undefined) {
        const address = name === undefined ? undefined : deps.radioAddress(name);
        endpoint = (address === undefined ? undefined : endpointOf(address)) ?? {
          ip: new Uint8Array(4),
          port: 0,
        };
        cache.set(name, endpoint);
      }
      return endpoint;
    };
  }

  async function* blocks(filter: RadioEventsExportFilter & { protocol: string }): AsyncGenerator<Buffer> {
    yield pcapngHeader();
    const capture = createNgapCapture();
    const ciphering = createNasCiphering();
    const radioEndpoint = radioEndpoints();
    const amfEndpoint = amfEndpoints();
    let after: { timestamp: number; id: number } | undefined;
    let written = 0;
    while (written < maxRows) {
      const page = await deps.radioEvents.listOldestAfter(
        filter,
        after,
        Math.min(PAGE_ROWS, maxRows - written),
      );
      if (page.length === 0) return;
      const parts: Buffer[] = [];
      for (const event of page) {
        const from = whereFrom(event.details);
        const radio = radioEndpoint(from.radio);
        const amf = radio.ip.length === 16 ? amfEndpoint[16] : amfEndpoint[4];
        const inbound = event.direction === 'inbound';
        const nas = ciphering.prepare(event.messageType, event.raw, from.ue);
        parts.push(
          ...capture.blocks({
            timestamp: event.timestamp,
            from: inbound ? radio : amf,
            to: inbound ? amf : radio,
            stream: ueAssociated(event.details) ? 1 : 0,
            raw: nas.raw,
            comment: nas.comment,
          }),
        );
      }
      written += page.length;
      const last = page[page.length - 1] as RadioEvent;
      after = { timestamp: last.timestamp, id: last.id };
      yield Buffer.concat(parts);
    }
  }

  return {
    maxRows,

    /**
     * The capture of the events the filter selects, as blocks to stream. Refused with a 400 when more
     * than `maxRows` events match, before a byte is sent: a capture cut short would read as complete.
     */
    async open(filter: RadioEventsExportFilter): Promise<AsyncGenerator<Buffer>> {
      const ngap = { ...filter, protocol: 'NGAP' };
      const matches = await deps.radioEvents.count(ngap);
      if (matches > maxRows) {
        throw new InvalidError(
          `${matches} radio events match; an export carries at most ${maxRows}: narrow it with ` +
            'timestamp_from, timestamp_to, direction or message_type',
        );
      }
      return blocks(ngap);
    },
  };
}

export type RadioEventsExport = ReturnType<typeof createRadioEventsExport>;
