// CPU per encode and decode of the SMS codecs (issue 35 item 2), beside a bare copy of the same bytes in
// the same run: an MT short message as the AMF carries it (SMS-DELIVER in RP-DATA in CP-DATA), each
// layer alone and all three, and the text splitter on a three-part message.
// Run: npx tsx bench/sms-codec.ts [--seconds N] (default 1 second of CPU per row).
import { parseArgs } from 'node:util';

import {
  decodeCpMessage,
  decodeDcs,
  decodeRpMessage,
  decodeTpdu,
  decodeUserData,
  encodeCpMessage,
  encodeRpMessage,
  encodeTpdu,
  encodeUserData,
  splitText,
  type SmsDeliver,
} from '../src/network/sms/index.ts';
import { cpuPerOperation } from './cpu-per-op.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');
const measure = (operation: () => unknown): number => cpuPerOperation(operation, SECONDS);

const TEXT = 'Meter 4711: battery low (12%). Reply STOP to mute alerts for 24 h.';
const userData = encodeUserData({ text: TEXT }, 'gsm7');
if (!userData.ok) throw new Error(userData.error);
const deliver: SmsDeliver = {
  type: 'sms-deliver',
  moreMessagesToSend: false,
  loopPrevention: false,
  replyPath: false,
  statusReportIndication: false,
  originator: { typeOfNumber: 1, numberingPlan: 1, value: '46708251358' },
  protocolIdentifier: 0,
  dataCodingScheme: 0,
  serviceCentreTimeStamp: {
    year: 26,
    month: 12,
    day: 6,
    hour: 19,
    minute: 40,
    second: 5,
    timeZoneQuarters: 4,
  },
  userData: userData.value,
};
const tpdu = encodeTpdu(deliver);
const rp = {
  type: 'rp-data',
  direction: 'network-to-ms',
  messageReference: 9,
  originator: { typeOfNumber: 1, numberingPlan: 1, value: '123456' },
  tpdu,
} as const;
const rpdu = encodeRpMessage(rp);
const cp = { type: 'cp-data', transactionId: 1, tiFlag: false, rpdu } as const;
const cpdu = encodeCpMessage(cp);

function decodeAll(): unknown {
  const c = decodeCpMessage(cpdu);
  if (!c.ok || c.value.type !== 'cp-data') throw new Error('CP');
  const r = decodeRpMessage(c.value.rpdu);
  if (!r.ok || r.value.type !== 'rp-data') throw new Error('RP');
  const t = decodeTpdu(r.value.tpdu, 'sc-to-ms');
  if (!t.ok || t.value.type !== 'sms-deliver') throw new Error('TPDU');
  return decodeUserData(t.value.userData, decodeDcs(t.value.dataCodingScheme));
}

function encodeAll(): unknown {
  const ud = encodeUserData({ text: TEXT }, 'gsm7');
  if (!ud.ok) throw new Error(ud.error);
  const t = encodeTpdu({ ...deliver, userData: ud.value });
  return encodeCpMessage({ ...cp, rpdu: encodeRpMessage({ ...rp, tpdu: t }) });
}

const baselineUs = measure(() => Buffer.from(cpdu));
const rows: { name: string; cpuUs: number }[] = [
  { name: `baseline: Buffer copy of the ${cpdu.length}-byte CP-DATA`, cpuUs: baselineUs },
  { name: 'decode CP-DATA', cpuUs: measure(() => decodeCpMessage(cpdu)) },
  { name: 'decode RP-DATA', cpuUs: measure(() => decodeRpMessage(rpdu)) },
  { name: 'decode SMS-DELIVER', cpuUs: measure(() => decodeTpdu(tpdu, 'sc-to-ms')) },
  { name: 'decode all three and the 7-bit text', cpuUs: measure(decodeAll) },
  { name: 'encode the text, SMS-DELIVER, RP-DATA, CP-DATA', cpuUs: measure(encodeAll) },
  {
    name: 'split 400 characters (3 parts, 7-bit)',
    cpuUs: measure(() => splitText(TEXT.repeat(6).slice(0, 400), { reference: 1 })),
  },
];

const width = Math.max(...rows.map((r) => r.name.length));
const lines = [`${'operation'.padEnd(width)}  CPU/op     ops/s/core  x baseline`];
for (const row of rows)
  lines.push(
    `${row.name.padEnd(width)}  ${`${row.cpuUs.toFixed(2)} µs`.padStart(9)}  ${Math.round(1e6 / row.cpuUs)
      .toLocaleString('en-US')
      .padStart(10)}  ${(row.cpuUs / baselineUs).toFixed(1).padStart(10)}`,
  );
process.stdout.write(`${lines.join('\n')}\n`);
