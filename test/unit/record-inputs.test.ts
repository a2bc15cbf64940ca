import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  flowReportRow,
  radioEventRow,
  radioLogRow,
  subscriberLogRow,
  usageIncrement,
} from '../../src/records/record-inputs.ts';
import { flowReport, radioEvent, radioLog, subscriberLog } from '../helpers/records.ts';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');

describe('record inputs', () => {
  it('stamps records with now unless they carry a time, and stores details as JSON', () => {
    const row = radioEventRow(radioEvent({ details: { a: [1] } }), NOW);
    assert.equal(row.timestamp, NOW);
    assert.equal(row.details, '{"a":[1]}');
    assert.equal(radioEventRow(radioEvent({ timestamp: 5, details: undefined }), NOW).details, '{}');
    assert.equal(radioEventRow(radioEvent({ timestamp: 5 }), NOW).timestamp, 5);
  });

  it('keeps raw bytes as a Buffer over the same memory', () => {
    const raw = new Uint8Array([1, 2, 3]).subarray(1);
    const row = radioEventRow(radioEvent({ raw }), NOW);
    assert.ok(Buffer.isBuffer(row.raw));
    assert.deepEqual([...row.raw], [2, 3]);
  });

  it('stores addresses in one spelling', () => {
    const row = flowReportRow(flowReport({ sourceIp: '2001:DB8:0000::0001', destinationIp: '8.8.8.8' }));
    assert.deepEqual([row.source_ip, row.destination_ip], ['2001:db8::1', '8.8.8.8']);
  });

  it("accepts a radio log for a gNB id, an ng-eNB's prefixed id, and an address before NG Setup", () => {
    for (const ranId of ['001:01:000001', '001:01:macro-00abc', '10.0.0.7:38412', '[2001:db8::7]:38412'])
      assert.equal(radioLogRow(radioLog({ ranId }), NOW).ran_id, ranId);
  });

  it('keeps a subscriber log of a device the core could not map (empty imsi) and its level, info by default', () => {
    const row = subscriberLogRow(subscriberLog({ imsi: '', level: 'warn' }), NOW);
    assert.deepEqual([row.imsi, row.level], ['', 'warn']);
    assert.equal(subscriberLogRow(subscriberLog(), NOW).level, 'info');
  });

  it('counts usage in the UTC day it happened', () => {
    const late = usageIncrement({ imsi: '001010000000001', uplinkBytes: 1, downlinkBytes: 2, at: NOW }, 0);
    assert.equal(late.day, Date.parse('2026-11-22T00:00:00.000Z'));
  });

  for (const [name, make] of [
    ['a radio event without a direction', () => radioEventRow(radioEvent({ direction: 'up' as never }), NOW)],
    ['a radio event with an empty protocol', () => radioEventRow(radioEvent({ protocol: '' }), NOW)],
    ['a radio event whose raw is not bytes', () => radioEventRow(radioEvent({ raw: 'AQID' as never }), NOW)],
    ['details that are not an object', () => radioEventRow(radioEvent({ details: [] as never }), NOW)],
    ['a subscriber log with a short IMSI', () => subscriberLogRow(subscriberLog({ imsi: '00101' }), NOW)],
    [
      'a subscriber log with an unknown level',
      () => subscriberLogRow(subscriberLog({ level: 'loud' as never }), NOW),
    ],
    ['a radio log with a malformed radio id', () => radioLogRow(radioLog({ ranId: '001-01-1' }), NOW)],
    ['a radio log with an unknown level', () => radioLogRow(radioLog({ level: 'fatal' as never }), NOW)],
    ['a flow report with protocol 0', () => flowReportRow(flowReport({ protocol: 0 }))],
    ['a flow report with port 65536', () => flowReportRow(flowReport({ destinationPort: 65536 }))],
    ['a flow report with a host name', () => flowReportRow(flowReport({ destinationIp: 'example.com' }))],
    ['a flow report ending before it starts', () => flowReportRow(flowReport({ startTime: 10, endTime: 5 }))],
    ['a flow report with a fractional byte count', () => flowReportRow(flowReport({ bytes: 1.5 }))],
    ['a flow report with an unknown action', () => flowReportRow(flowReport({ action: 'reject' as never }))],
    [
      'usage with negative bytes',
      () => usageIncrement({ imsi: '001010000000001', uplinkBytes: -1, downlinkBytes: 0 }, NOW),
    ],
  ] as const) {
    it(`refuses ${name} with a TypeError`, () => {
      assert.throws(make, TypeError);
    });
  }
});
