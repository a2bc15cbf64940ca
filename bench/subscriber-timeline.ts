// The subscriber timeline (issue 32 item 3, docs/api.md "One subscriber's timeline"): one device's
// Authentication Requests every 500 ms (so the 2 s spans around them merge into one), each in its
// Downlink NAS Transport, among `--others` other devices' Downlink NAS Transports per message on the same
// radio: every one of them is read while looking for carriers. The service runs in this process on the
// test app (in-memory SQLite), seeded through the records ingestion; the bench times three reads of the
// first page (newest first) and checks every message was linked.
//
//   npx tsx bench/subscriber-timeline.ts [--logs 2000] [--others 40]
import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { downlinkNasTransport } from '../src/network/amf/n2/ue-ngap-messages.ts';
import { encodeNgapPdu } from '../src/network/ngap/ngap-codec.ts';
import { createTestApp, initialize, manualClock } from '../test/helpers/test-app.ts';

const { values } = parseArgs({
  options: { logs: { type: 'string', default: '2000' }, others: { type: 'string', default: '40' } },
});
const logs = Number(values.logs);
const others = Number(values.others);
const IMSI = '001010000000001';
const print = (line: string) => process.stdout.write(`${line}\n`);

const t = await createTestApp({ clock: manualClock() });
const admin = await initialize(t);
const created = await t.request({
  method: 'POST',
  url: '/api/v1/subscribers',
  token: admin,
  payload: {
    imsi: IMSI,
    key: '465b5ce8b199b49faa5f0a2ee238a6bc',
    sequenceNumber: '000000000001',
    profile_name: 'default',
  },
});
assert.equal(created.statusCode, 201, created.body);

const base = Date.parse('2026-11-22T10:00:00Z');
const downlink = (amfUeNgapId: number, nas: Buffer) =>
  Buffer.from(encodeNgapPdu(downlinkNasTransport({ amfUeNgapId, ranUeNgapId: 1 }, nas)));
for (let i = 0; i < logs; i++) {
  const timestamp = base + i * 500;
  const nas = Buffer.from(`7e0056${i.toString(16).padStart(8, '0')}`, 'hex');
  const event = { protocol: 'NGAP', messageType: 'DownlinkNASTransport', direction: 'outbound' as const };
  const details = { radio: 'gnb-1' };
  t.records.recordSubscriberLog({
    imsi: IMSI,
    event: 'Authentication Request',
    direction: 'outbound',
    raw: nas,
    details,
    timestamp,
  });
  t.records.recordRadioEvent({ ...event, raw: downlink(1, nas), details, timestamp: timestamp + 1 });
  for (let j = 0; j < others; j++) {
    const other = Buffer.from(`7e0056ff${(i * others + j).toString(16).padStart(8, '0')}`, 'hex');
    t.records.recordRadioEvent({ ...event, raw: downlink(2 + j, other), details, timestamp: timestamp + j });
  }
  if (i % 100 === 99) await t.records.flush();
}
await t.records.flush();

print(`${logs} NAS messages of one subscriber among ${logs * (others + 1)} radio events`);
for (let run = 1; run <= 3; run++) {
  const start = performance.now();
  const response = await t.request({
    method: 'GET',
    url: `/api/v1/subscribers/${IMSI}/timeline`,
    token: admin,
  });
  const ms = performance.now() - start;
  assert.equal(response.statusCode, 200, response.body);
  const { total_count: total } = response.json<{ result: { total_count: number } }>().result;
  assert.equal(total, 2 * logs, 'every message linked to its carrier');
  print(`run ${run}: ${ms.toFixed(0)} ms`);
}
await t.close();
