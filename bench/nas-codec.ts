// CPU per encode and decode of NAS-5GS messages (issue 15 item 6), beside a bare copy of the same bytes
// in the same run. The messages are those of open5gs's 5G capture (third-party/vectors): the Registration
// Request inside frame 1425's Security Mode Complete and the Registration Accept of frame 1550.
// Run: npx tsx bench/nas-codec.ts [--seconds N] (default 1 second of CPU per row).
import { parseArgs } from 'node:util';

import { decodeNasMessage, encodeNasMessage, type NasMessage } from '../src/network/nas/index.ts';
import { cpuPerOperation } from './cpu-per-op.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');

const MESSAGES = {
  'Registration Request':
    '7e004179000bf2000000000000000000001001032e02f0f02f0201015200f1100000011707f0f0c0c0018030180101',
  'Registration Accept': '7e0042010177000bf200f110020040c000058054074000f11000000115020101210201005e0192',
};

const measure = (operation: () => unknown): number => cpuPerOperation(operation, SECONDS);

function decoded(bytes: Uint8Array): NasMessage {
  const result = decodeNasMessage(bytes);
  if (!result.ok) throw new Error(`bench message does not decode: ${result.error.detail}`);
  return result.message;
}

const rows: { name: string; cpuUs: number; baselineUs: number }[] = [];
for (const [name, hex] of Object.entries(MESSAGES)) {
  const bytes = Buffer.from(hex, 'hex');
  const message = decoded(bytes);
  const baselineUs = measure(() => Buffer.from(bytes));
  rows.push({
    name: `baseline: Buffer copy of the ${bytes.length}-byte ${name}`,
    cpuUs: baselineUs,
    baselineUs,
  });
  rows.push({ name: `decode ${name}`, cpuUs: measure(() => decodeNasMessage(bytes)), baselineUs });
  rows.push({ name: `encode ${name}`, cpuUs: measure(() => encodeNasMessage(message)), baselineUs });
}

const width = Math.max(...rows.map((r) => r.name.length));
const lines = [`${'operation'.padEnd(width)}  CPU/op     ops/s/core  x baseline`];
for (const row of rows)
  lines.push(
    `${row.name.padEnd(width)}  ${`${row.cpuUs.toFixed(2)} µs`.padStart(9)}  ${Math.round(1e6 / row.cpuUs)
      .toLocaleString('en-US')
      .padStart(10)}  ${(row.cpuUs / row.baselineUs).toFixed(1).padStart(10)}`,
  );
process.stdout.write(`${lines.join('\n')}\n`);
