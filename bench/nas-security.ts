// CPU per protect + unprotect of a 40-byte NAS message (the size of the Registration Accept in
// third-party/vectors) through the NAS security context, for each algorithm pair, beside the bare AES-CMAC
// NIA2 computes over the same bytes, measured in the same run. The network side protects, the UE side
// unprotects (MAC check, COUNT estimation, deciphering, decoding of the plain message).
// Run: npx tsx bench/nas-security.ts [--seconds N] (default 1 second of CPU per row).
import { parseArgs } from 'node:util';

import { aesCmac } from '../src/crypto/aes-cmac.ts';
import type { NasAlgorithm } from '../src/crypto/nas-algorithms.ts';
import {
  createNasSecurityContext,
  protect,
  unprotect,
  type NasSecurityContext,
} from '../src/network/nas-security/index.ts';
import { decodeNasMessage } from '../src/network/nas/index.ts';
import { cpuPerOperation } from './cpu-per-op.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');

const REGISTRATION_ACCEPT = Buffer.from(
  '7e0042010177000bf200f110020040c000058054074000f11000000115020101210201005e0192',
  'hex',
);
const KAMF = Buffer.alloc(32, 0x42);
// A context has 2^24 COUNTs; a long run starts a fresh pair before they run out.
const MESSAGES_PER_PAIR = 1 << 23;

interface Row {
  name: string;
  cpuUs: number;
}
const measure = (operation: () => unknown): number => cpuPerOperation(operation, SECONDS, 1000);

const rows: Row[] = [];
const cmacKey = Buffer.alloc(16, 7);
// NIA2 MACs COUNT || BEARER || DIRECTION || 0^26 (8 bytes), the sequence number and the message.
const cmacInput = Buffer.alloc(8 + 1 + REGISTRATION_ACCEPT.length, 0x5a);
const baseline = measure(() => aesCmac(cmacKey, cmacInput));
rows.push({
  name: `baseline: AES-CMAC over ${cmacInput.length} bytes (src/crypto/aes-cmac.ts)`,
  cpuUs: baseline,
});
rows.push({
  name: 'plain NAS decode of the message alone',
  cpuUs: measure(() => decodeNasMessage(REGISTRATION_ACCEPT)),
});

for (const [ciphering, integrity] of [
  [2, 2],
  [1, 1],
  [3, 3],
  [0, 2],
  [0, 0],
] as [NasAlgorithm, NasAlgorithm][]) {
  const pair = (): { network: NasSecurityContext; ue: NasSecurityContext } => {
    const make = (side: 'network' | 'ue'): NasSecurityContext =>
      createNasSecurityContext({ side, ngKsi: { mapped: false, ksi: 0 }, kamf: KAMF, ciphering, integrity });
    return { network: make('network'), ue: make('ue') };
  };
  let contexts = pair();
  rows.push({
    name: `protect + unprotect, NIA${integrity}/NEA${ciphering}, header type 2`,
    cpuUs: measure(() => {
      if (contexts.network.nextSendCount >= MESSAGES_PER_PAIR) contexts = pair();
      const result = unprotect(contexts.ue, protect(contexts.network, REGISTRATION_ACCEPT, 2));
      if (!result.ok) throw new Error(result.detail);
      return result;
    }),
  });
}

const number = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const width = Math.max(...rows.map((row) => row.name.length));
process.stdout.write(
  `${'operation'.padEnd(width)}  ${'CPU/op'.padStart(10)}  ${'ops/s (1 core)'.padStart(14)}  ${'x baseline'.padStart(10)}\n`,
);
for (const row of rows) {
  process.stdout.write(
    `${row.name.padEnd(width)}  ${`${number(row.cpuUs, 2)} µs`.padStart(10)}  ${number(1e6 / row.cpuUs).padStart(14)}  ${number(row.cpuUs / baseline, 1).padStart(10)}\n`,
  );
}
