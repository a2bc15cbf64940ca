// CPU per decode and encode of each NGAP message kind in the vectors (issue 14 item 7), beside a bare
// copy of the same bytes in the same run, then the decoder on 1,000,000 fuzz inputs (random and mutated
// vector PDUs, the fuzz test's generator).
// Run: npx tsx bench/ngap-codec.ts [--seconds N] [--fuzz N] (default 0.5 s of CPU per row, 1,000,000 inputs).
import { parseArgs } from 'node:util';

import { fromHex } from '../src/network/asn1/hex.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../src/network/ngap/ngap-codec.ts';
import type { NGAPPDU } from '../src/network/ngap/ngap-codec.ts';
import { fuzzInputs } from '../test/network/ngap/fuzz.ts';
import { ngapVectors } from '../test/network/ngap/vectors.ts';
import { cpuPerOperation } from './cpu-per-op.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '0.5' }, fuzz: { type: 'string', default: '1000000' } },
});
const SECONDS = Number(values.seconds);
const FUZZ = Number(values.fuzz);
if (!(SECONDS > 0) || !(FUZZ >= 0)) throw new RangeError('--seconds and --fuzz must be positive numbers');

const measure = (operation: () => unknown): number => cpuPerOperation(operation, SECONDS);

function decoded(bytes: Uint8Array): NGAPPDU {
  const result = decodeNgapPdu(bytes);
  if (!result.ok) throw new Error(`bench PDU does not decode: ${result.error}`);
  return result.value;
}

// One PDU per message kind: the first vector of each (both files), in name order.
const kinds = new Map<string, Uint8Array>();
for (const vector of ngapVectors()) {
  const bytes = fromHex(vector.hex);
  const result = decodeNgapPdu(bytes);
  if (!result.ok) continue;
  const name = ngapMessageType(result.value);
  if (name !== 'Unknown' && !kinds.has(name)) kinds.set(name, bytes);
}

const rows: { name: string; bytes: number; baselineUs: number; decodeUs: number; encodeUs: number }[] = [];
for (const [name, bytes] of [...kinds].sort(([a], [b]) => a.localeCompare(b))) {
  const pdu = decoded(bytes);
  const buffer = Buffer.from(bytes);
  rows.push({
    name,
    bytes: bytes.length,
    baselineUs: measure(() => Buffer.from(buffer)),
    decodeUs: measure(() => decodeNgapPdu(bytes)),
    encodeUs: measure(() => encodeNgapPdu(pdu)),
  });
}

const width = Math.max(...rows.map((r) => r.name.length));
const us = (value: number): string => `${value.toFixed(2)} µs`.padStart(9);
const lines = [`${'message'.padEnd(width)}  bytes  baseline  decode     encode     decode/baseline`];
for (const row of rows)
  lines.push(
    `${row.name.padEnd(width)}  ${String(row.bytes).padStart(5)}  ${us(row.baselineUs)} ${us(row.decodeUs)}  ${us(
      row.encodeUs,
    )}  ${(row.decodeUs / row.baselineUs).toFixed(1).padStart(8)}`,
  );

if (FUZZ > 0) {
  const inputs = [...fuzzInputs(Math.min(FUZZ, 100_000), 0x5eed)];
  let refused = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < FUZZ; i++) if (!decodeNgapPdu(inputs[i % inputs.length]!).ok) refused++;
  const delta = process.cpuUsage(start);
  const cpu = (delta.user + delta.system) / 1e6;
  lines.push(
    '',
    `fuzz: ${FUZZ.toLocaleString('en-US')} inputs (${Math.min(FUZZ, 100_000).toLocaleString('en-US')} distinct, ` +
      `${refused.toLocaleString('en-US')} refused) decoded in ${cpu.toFixed(2)} s of CPU ` +
      `(${((cpu / FUZZ) * 1e6).toFixed(2)} µs each), no throw`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
