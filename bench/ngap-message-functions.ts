// CPU of the generated NGAP message functions over their runtime (message-runtime.ts, ie-check.ts) and
// the AMF's abstract syntax judgement, on the four messages of every registration: build + encode +
// decode + judge + read, and the same without the codec (the runtime's own share).
// Run: npx tsx bench/ngap-message-functions.ts [--rounds N] (default 100,000 rounds of the four).
import { parseArgs } from 'node:util';

import { judgeAbstractSyntax } from '../src/network/amf/n2/abstract-syntax.ts';
import { fromHex } from '../src/network/asn1/hex.ts';
import type { ReadResult } from '../src/network/asn1/message-runtime.ts';
import * as messages from '../src/network/ngap/generated/messages.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../src/network/ngap/ngap-codec.ts';
import type { NGAPPDU } from '../src/network/ngap/ngap-codec.ts';
import { ngapVectors } from '../test/network/ngap/vectors.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '100000' } } });
const ROUNDS = Number(values.rounds);
if (!(ROUNDS > 0)) throw new RangeError('--rounds must be a positive number');

type DecodedPdu = Exclude<NGAPPDU, { choice: null }>;
interface Kind {
  name: string;
  build: (message: never) => NGAPPDU;
  read: (pdu: NGAPPDU) => ReadResult<unknown>;
  message: unknown;
}

const NAMES = [
  'InitialUEMessage',
  'UplinkNASTransport',
  'DownlinkNASTransport',
  'InitialContextSetupRequest',
];
const functions = messages as unknown as Record<string, (argument: unknown) => unknown>;
const kinds: Kind[] = NAMES.map((name) => {
  const vector = ngapVectors().find((candidate) => {
    const result = decodeNgapPdu(fromHex(candidate.hex));
    return result.ok && ngapMessageType(result.value) === name;
  });
  if (vector === undefined) throw new Error(`no vector of ${name}`);
  const decoded = decodeNgapPdu(fromHex(vector.hex));
  if (!decoded.ok) throw new Error(`vector of ${name} does not decode`);
  const read = functions[`read${name}`] as Kind['read'];
  const result = read(decoded.value);
  if (!result.ok) throw new Error(`vector of ${name} is not read: ${result.error}`);
  return { name, build: functions[`build${name}`] as Kind['build'], read, message: result.message };
});

function cpuSeconds(round: (kind: Kind) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) for (let k = 0; k < kinds.length; k++) round(kinds[k]!);
  const delta = process.cpuUsage(start);
  return (delta.user + delta.system) / 1e6;
}

function check(result: ReadResult<unknown>): void {
  if (!result.ok) throw new Error(`read failed: ${result.error}`);
}

const full = (kind: Kind): void => {
  const bytes = encodeNgapPdu(kind.build(kind.message as never));
  const decoded = decodeNgapPdu(bytes);
  if (!decoded.ok || decoded.value.choice === null) throw new Error('bench PDU does not decode');
  if (judgeAbstractSyntax(decoded.value).action !== 'process') throw new Error('rejected');
  check(kind.read(decoded.value));
};
const runtime = (kind: Kind): void => {
  const pdu = kind.build(kind.message as never) as DecodedPdu;
  if (judgeAbstractSyntax(pdu).action !== 'process') throw new Error('rejected');
  check(kind.read(pdu));
};

// Warm up both loops before measuring.
for (let i = 0; i < 2_000; i++)
  for (const kind of kinds) {
    full(kind);
    runtime(kind);
  }
const fullCpu = cpuSeconds(full);
const runtimeCpu = cpuSeconds(runtime);
const per = (cpu: number): string => `${((cpu / ROUNDS / kinds.length) * 1e6).toFixed(2)} µs/PDU`;
process.stdout.write(
  `${ROUNDS.toLocaleString('en-US')} rounds of ${NAMES.join(', ')}\n` +
    `build+encode+decode+judge+read: ${fullCpu.toFixed(2)} s CPU (${per(fullCpu)})\n` +
    `build+judge+read (no codec):    ${runtimeCpu.toFixed(2)} s CPU (${per(runtimeCpu)})\n`,
);
