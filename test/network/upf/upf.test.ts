import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowReportInput, UsageInput } from '../../../src/records/record-inputs.ts';
import type { Forwarder, ForwarderOptions, UpfAddon } from '../../../src/network/upf/upf-addon.ts';
import { DEFAULT_UPF_SETTINGS } from '../../../src/network/upf/upf-settings.ts';
import { createUpf, type UpfRecords } from '../../../src/network/upf/upf.ts';
import { manualClock } from '../../helpers/test-app.ts';

/**
 * createUpf over a scripted forwarder: what the core does with the drained counters (the forwarder
 * itself is tested with real packets in test/system/upf-forwarder.test.ts).
 */
function scriptedAddon() {
  const flows: Buffer[] = [];
  const usage: Buffer[] = [];
  const calls: string[] = [];
  const sessions = new Set<number>();
  class ScriptedForwarder implements Forwarder {
    constructor(readonly options: ForwarderOptions) {}
    info = () => ({ n3Port: 2152, tunName: this.options.tunName });
    addSession(id: number, teid: number) {
      if ([...sessions].length > 0 && teid === 666) return 'EEXIST';
      sessions.add(id);
      calls.push(`add ${id} ${teid}`);
      return undefined;
    }
    setDownlink(id: number, address: string, port: number, teid: number, qfi: number) {
      calls.push(`downlink ${id} ${address}:${port} ${teid} ${qfi}`);
      return undefined;
    }
    clearDownlink(id: number) {
      calls.push(`clear ${id}`);
      return undefined;
    }
    setAmbr = () => undefined;
    removeSession(id: number) {
      if (!sessions.delete(id)) return 'ENOENT';
      calls.push(`remove ${id}`);
      return { uplinkBytes: 10, downlinkBytes: 20 };
    }
    drainFlows = () => Buffer.concat(flows.splice(0));
    drainUsage = () => Buffer.concat(usage.splice(0));
    counters = () => ({}) as ReturnType<Forwarder['counters']>;
    close = () => void calls.push('close');
  }
  const addon: UpfAddon = { Forwarder: ScriptedForwarder };
  const flowRecord = (session: number, packets: number, action = 0) => {
    const r = Buffer.alloc(64);
    r.writeUInt32LE(session, 0);
    r[4] = 4;
    r[5] = 17;
    r[7] = action;
    r.writeUInt16LE(40000, 8);
    r.writeUInt16LE(53, 10);
    r.set([10, 45, 0, 2], 12);
    r.set([10, 99, 0, 1], 28);
    r.writeBigUInt64LE(BigInt(packets), 48);
    r.writeBigUInt64LE(BigInt(packets * 100), 56);
    return r;
  };
  const usageRecord = (session: number, up: number, down: number) => {
    const r = Buffer.alloc(24);
    r.writeUInt32LE(session, 0);
    r.writeBigUInt64LE(BigInt(up), 8);
    r.writeBigUInt64LE(BigInt(down), 16);
    return r;
  };
  return { addon, flows, usage, calls, flowRecord, usageRecord };
}

function recordsSink(accept = () => true) {
  const reports: FlowReportInput[] = [];
  const usage: UsageInput[] = [];
  let wake: (() => void) | undefined;
  const records: UpfRecords = {
    recordFlowReports: (r) => (accept() ? (reports.push(...r), true) : false),
    recordUsage: (u) => (usage.push(u), true),
    whenWritable: () => new Promise<void>((resolve) => (wake = resolve)),
  };
  return { records, reports, usage, wake: () => wake?.() };
}

const IMSI = '001010000000001';
const AMBR = { uplinkBps: 1e6, downlinkBps: 2e6 };

describe('createUpf', () => {
  it('drains flows every second and reports them after 30 s without packets, usage every 30 s', () => {
    const clock = manualClock();
    const f = scriptedAddon();
    const sink = recordsSink();
    const upf = createUpf({
      settings: DEFAULT_UPF_SETTINGS,
      records: sink.records,
      clock,
      timers: clock,
      addon: f.addon,
    });
    upf.start();
    const s = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR });
    assert.ok(s.ok);
    f.flows.push(f.flowRecord(s.value.id, 2));
    clock.advance(1000);
    f.flows.push(f.flowRecord(s.value.id, 3));
    clock.advance(1000);
    assert.equal(sink.reports.length, 0);
    f.usage.push(f.usageRecord(s.value.id, 500, 700));
    clock.advance(30_000);
    assert.equal(sink.reports.length, 1);
    assert.deepEqual(
      [
        sink.reports[0]?.subscriberId,
        sink.reports[0]?.packets,
        sink.reports[0]?.bytes,
        sink.reports[0]?.protocol,
      ],
      [IMSI, 5, 500, 17],
    );
    assert.equal(sink.reports[0]!.endTime - sink.reports[0]!.startTime, 2000);
    assert.deepEqual(
      sink.usage.map((u) => [u.imsi, u.uplinkBytes, u.downlinkBytes]),
      [[IMSI, 500, 700]],
    );
  });

  it('writes a session’s flows and remaining usage at release, and maps rule conflicts to errors', () => {
    const clock = manualClock();
    const f = scriptedAddon();
    const sink = recordsSink();
    const upf = createUpf({
      settings: DEFAULT_UPF_SETTINGS,
      records: sink.records,
      clock,
      timers: clock,
      addon: f.addon,
    });
    assert.deepEqual(upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR }), {
      ok: false,
      error: 'not-started',
    });
    upf.start();
    const s = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR });
    assert.ok(s.ok);
    assert.deepEqual(upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.3', uplinkTeid: 666, ambr: AMBR }), {
      ok: false,
      error: 'in-use',
    });
    assert.deepEqual(upf.establishSession({ imsi: IMSI, uplinkTeid: 0, ambr: AMBR }), {
      ok: false,
      error: 'invalid',
    });
    assert.ok(upf.updateDownlink(s.value.id, { gnbAddress: '192.0.2.1', remoteTeid: 9 }).ok);
    assert.deepEqual(upf.session(s.value.id)?.userPlane, {
      state: 'active',
      tunnel: { gnbAddress: '192.0.2.1', remoteTeid: 9, qfi: 1, gnbPort: 2152 },
    });
    assert.ok(upf.deactivate(s.value.id).ok);
    f.flows.push(f.flowRecord(s.value.id, 1, 1));
    assert.ok(upf.release(s.value.id).ok);
    assert.deepEqual(upf.release(s.value.id), { ok: false, error: 'unknown-session' });
    assert.deepEqual(
      sink.reports.map((r) => [r.action, r.packets]),
      [['drop', 1]],
    );
    assert.deepEqual(
      sink.usage.map((u) => [u.uplinkBytes, u.downlinkBytes]),
      [[10, 20]],
    );
    assert.deepEqual(f.calls, [
      `add ${s.value.id} 7`,
      `downlink ${s.value.id} 192.0.2.1:2152 9 1`,
      `clear ${s.value.id}`,
      `remove ${s.value.id}`,
    ]);
  });

  it('keeps flow reports the records queue refuses and writes them once it has room; stop waits for them', async () => {
    const clock = manualClock();
    const f = scriptedAddon();
    let room = false;
    const sink = recordsSink(() => room);
    const upf = createUpf({
      settings: DEFAULT_UPF_SETTINGS,
      records: sink.records,
      clock,
      timers: clock,
      addon: f.addon,
    });
    upf.start();
    const s = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR });
    assert.ok(s.ok);
    f.flows.push(f.flowRecord(s.value.id, 4));
    upf.release(s.value.id);
    assert.equal(upf.counters().flowReportsPending, 1);
    const stopped = upf.stop();
    room = true;
    sink.wake();
    await stopped;
    assert.equal(sink.reports.length, 1);
    assert.equal(upf.counters().flowReportsPending, 0);
    assert.equal(f.calls.at(-1), 'close');
  });
});
