import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Protocols Wireshark can dissect from a bare PDU through a user link type (DLT 147). */
export type TsharkProtocol = 'ngap' | 'nas-5gs' | 'nrppa' | 'lpp';

/** What tshark made of one PDU. */
export interface TsharkVerdict {
  /** The Info column, e.g. `NGSetupRequest` or `Registration request`. */
  info: string;
  /** True when the dissector marked the PDU malformed. */
  malformed: boolean;
  /** Expert messages (warnings, errors), joined by `; `; empty when there are none. */
  expert: string;
}

/** A verdict with the dissection tree, for field-level checks. */
export interface TsharkTreeVerdict extends TsharkVerdict {
  /** The dissection tree of the protocol layer (`-T json`). */
  layer: Record<string, unknown>;
}

const LINK_TYPE_USER0 = 147;

/** A classic pcap file (24-byte header, 16-byte record headers) with one record per PDU. */
export function pcapOf(pdus: readonly Uint8Array[], linkType = LINK_TYPE_USER0): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(262_144, 16);
  header.writeUInt32LE(linkType, 20);
  const parts: Buffer[] = [header];
  pdus.forEach((pdu, index) => {
    const record = Buffer.alloc(16);
    record.writeUInt32LE(index, 0);
    record.writeUInt32LE(pdu.length, 8);
    record.writeUInt32LE(pdu.length, 12);
    parts.push(record, Buffer.from(pdu.buffer, pdu.byteOffset, pdu.length));
  });
  return Buffer.concat(parts);
}

interface TsharkFrame {
  _source: { layers: Record<string, unknown> };
}

function userLinkTypeOption(protocol: TsharkProtocol): string[] {
  return ['-o', `uat:user_dlts:"User 0 (DLT=147)","${protocol}","0","","0",""`];
}

/**
 * Dissects each PDU with Debian's tshark, all in one run (one tshark start for the whole batch).
 * tshark is an independent oracle: a PDU we emit must decode as the intended message with no
 * malformed mark and no expert error.
 */
export async function tshark(
  protocol: TsharkProtocol,
  pdus: readonly Uint8Array[],
): Promise<TsharkVerdict[]> {
  const rows = await tsharkFields(pdus, ['_ws.col.Info', '_ws.malformed', '_ws.expert.message'], {
    protocol,
    args: ['-E', 'separator=/t', '-E', 'occurrence=a', '-E', 'aggregator=\u0001'],
    separator: '\t',
  });
  return rows.map(([info = '', malformed = '', expert = '']) => ({
    info: info.trim(),
    malformed: malformed !== '',
    expert: expert.split('\u0001').filter(Boolean).join('; '),
  }));
}

/** `tshark` with the protocol layer's dissection tree (`-T json`): a second tshark run. */
export async function tsharkTree(
  protocol: TsharkProtocol,
  pdus: readonly Uint8Array[],
): Promise<TsharkTreeVerdict[]> {
  const dir = await mkdtemp(join(tmpdir(), 'pmn-tshark-'));
  try {
    const file = join(dir, 'pdus.pcap');
    await writeFile(file, pcapOf(pdus));
    const [json, verdicts] = await Promise.all([
      run('tshark', [...userLinkTypeOption(protocol), '-r', file, '-T', 'json', '-J', protocol], {
        maxBuffer: 1 << 28,
      }),
      tshark(protocol, pdus),
    ]);
    const frames = JSON.parse(json.stdout) as TsharkFrame[];
    if (frames.length !== pdus.length)
      throw new Error(`tshark returned ${frames.length} frames for ${pdus.length} PDUs`);
    return frames.map((frame, index) => {
      const layer = frame._source.layers[protocol];
      return {
        ...(verdicts[index] as TsharkVerdict),
        layer: layer !== null && typeof layer === 'object' ? (layer as Record<string, unknown>) : {},
      };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Expert severities from `_ws.expert.severity`: warnings and errors start here. */
export const EXPERT_WARNING = 0x600000;

/** The worst severity of a `_ws.expert.severity` field (comma-separated), 0 when it is empty. */
export function worstSeverity(field: string | undefined): number {
  return Math.max(0, ...(field ?? '').split(',').filter(Boolean).map(Number));
}

/**
 * Named fields of each frame (`-T fields`, one row of values per frame, in order), for checks of single
 * fields: frames of raw IP (`linkType: 101`, tshark finds the protocol by port) or bare PDUs of `protocol`
 * through the user link type. `args` go to tshark as they are (e.g. `--disable-protocol tcp`).
 */
export async function tsharkFields(
  frames: readonly Uint8Array[],
  fields: readonly string[],
  options: ({ linkType: number } | { protocol: string }) & {
    args?: readonly string[];
    /** What the `args` make tshark put between fields; `;` unless they say otherwise. */
    separator?: string;
  },
): Promise<string[][]> {
  const dir = await mkdtemp(join(tmpdir(), 'pmn-tshark-'));
  try {
    const file = join(dir, 'frames.pcap');
    const linkType = 'linkType' in options ? options.linkType : LINK_TYPE_USER0;
    await writeFile(file, pcapOf(frames, linkType));
    const uat =
      'protocol' in options
        ? ['-o', `uat:user_dlts:"User 0 (DLT=147)","${options.protocol}","0","","0",""`]
        : [];
    const rows = await tsharkFileFields(file, fields, {
      args: [...uat, ...(options.args ?? [])],
      separator: options.separator,
    });
    if (rows.length !== frames.length)
      throw new Error(`tshark returned ${rows.length} frames for ${frames.length}`);
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Named fields of each frame of a capture file (pcap or pcapng), one row per frame, in order. */
export async function tsharkFileFields(
  file: string,
  fields: readonly string[],
  options: { args?: readonly string[]; separator?: string } = {},
): Promise<string[][]> {
  const { stdout } = await run(
    'tshark',
    [
      '-r',
      file,
      '-T',
      'fields',
      '-E',
      'separator=;',
      ...(options.args ?? []),
      ...fields.flatMap((field) => ['-e', field]),
    ],
    { maxBuffer: 1 << 28 },
  );
  // One line per frame; a frame without any of the fields is an empty line, so nothing is trimmed.
  const lines = stdout.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => line.split(options.separator ?? ';'));
}
