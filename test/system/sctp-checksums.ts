import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { pcapOf } from '../helpers/tshark.ts';

const run = promisify(execFile);

/**
 * tshark's (Wireshark's SCTP dissector's) verdict on the CRC32c of each SCTP packet, in order: '1' is
 * good, '0' bad, '2' unverified. The packets go into a pcap of raw IPv4 (link type 228) carrying SCTP
 * directly, for packets our stack handed to a UDP link (no capture device sees the SCTP inside).
 */
export async function checksumStatuses(packets: readonly Uint8Array[]): Promise<string[]> {
  const frames = packets.map((sctp) => {
    const ip = Buffer.alloc(20);
    ip[0] = 0x45;
    ip.writeUInt16BE(20 + sctp.length, 2);
    ip[8] = 64;
    ip[9] = 132;
    ip.set([127, 0, 0, 1], 12);
    ip.set([127, 0, 0, 1], 16);
    return Buffer.concat([ip, sctp]);
  });
  const dir = await mkdtemp(join(tmpdir(), 'pmn-sctp-crc-'));
  try {
    const file = join(dir, 'ours.pcap');
    await writeFile(file, pcapOf(frames, 228));
    const { stdout } = await run(
      'tshark',
      ['-r', file, '-o', 'sctp.checksum:CRC-32C', '-T', 'fields', '-e', 'sctp.checksum.status'],
      { maxBuffer: 64 << 20 },
    );
    return stdout.trim().split('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
