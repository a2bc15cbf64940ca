import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowReportInput, UsageInput } from '../../../src/records/record-inputs.ts';
import type {
  Forwarder,
  ForwarderOptions,
  HostRoutesOptions,
  NativeHostRoutes,
  UpfAddon,
} from '../../../src/network/upf/upf-addon.ts';
import { DEFAULT_UPF_SETTINGS } from '../../../src/network/upf/upf-settings.ts';
import type { UpfSession } from '../../../src/network/upf/ports/session-control.ts';
import { createUpf, type UpfRecords } from '../../../src/network/upf/upf.ts';
import { manualClock } from '../../helpers/test-app.ts';

/**
 * createUpf over a scripted forwarder: what the core does with the drained counters (the forwarder
 * itself is tested with real packets in test/system/upf-forwarder.test.ts).
 */
function scriptedAddon() {
  /** Ended flows the forwarder holds for takeFlows (80-octet records). */
  const ended: Buffer[] = [];
  const usage: Buffer[] = [];
  const downlinkData: number[] = [];
  const calls: string[] = [];
  const sessions = new Set<number>();
  let endedTotal = 0;
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
    /** The first TEID is refused, as the native table refuses an uplink rule's TEID. */
    setForwarding(id: number, teid: number, address: string, port: number, remoteTeid: number, qfi: number) {
      if (!calls.some((c) => c.startsWith('refused '))) return (calls.push(`refused ${teid}`), 'EEXIST');
      calls.push(`forward ${id} ${teid} ${address}:${port} ${remoteTeid} ${qfi}`);
      return undefined;
    }
    clearForwarding(id: number) {
      calls.push(`unforward ${id}`);
      return undefined;
    }
    setAmbr = () => undefined;
    removeSession(id: number, now: number, previous: number) {
      if (!sessions.delete(id)) return 'ENOENT';
      calls.push(`remove ${id} ${now} ${previous}`);
      return { uplinkBytes: 10, downlinkBytes: 20, flowsEnded: endedTotal };
    }
    tickFlows(now: number, previous: number, idle: number, active: number) {
      calls.push(`tick ${now} ${previous} ${idle} ${active}`);
    }
    takeFlows(max: number) {
      calls.push(`take ${max}`);
      const all = Buffer.concat(ended.splice(0));
      const taken = all.subarray(0, max * 80);
      if (all.length > taken.length) ended.push(all.subarray(taken.length));
      return taken;
    }
    takeDownlinkData() {
      const ids = Buffer.alloc(4 * downlinkData.length);
      downlinkData.splice(0).forEach((id, i) => ids.writeUInt32LE(id, 4 * i));
      return ids;
    }
    drainUsage = () => Buffer.concat(usage.splice(0));
    counters = () =>
      ({ endedFlows: ended.reduce((n, b) => n + b.length / 80, 0) }) as ReturnType<Forwarder['counters']>;
    close = () => void calls.push('close');
  }
  const addon: UpfAddon = { Forwarder: ScriptedForwarder };
  /** An ended UDP flow 10.45.0.2:40000 -> 10.99.0.1:53 (native/upf/flows.h layout). */
  const end = (session: number, packets: number, start: number, endTime: number, action = 0) => {
    const r = Buffer.alloc(80);
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
    r.writeDoubleLE(start, 64);
    r.writeDoubleLE(endTime, 72);
    ended.push(r);
    endedTotal++;
  };
  const usageRecord = (session: number, up: number, down: number) => {
    const r = Buffer.alloc(24);
    r.writeUInt32LE(session, 0);
    r.writeBigUInt64LE(BigInt(up), 8);
    r.writeBigUInt64LE(BigInt(down), 16);
    return r;
  };
  return { addon, ended, usage, downlinkData, calls, end, usageRecord };
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

const start = (f: ReturnType<typeof scriptedAddon>, sink: ReturnType<typeof recordsSink>, extra = {}) => {
  const clock = manualClock();
  const upf = createUpf({
    settings: DEFAULT_UPF_SETTINGS,
    records: sink.records,
    clock,
    timers: clock,
    addon: f.addon,
    ...extra,
  });
  upf.start();
  return { clock, upf };
};

describe('createUpf', () => {
  it('ticks the forwarder’s flows every second with the 30 s / 30 min timeouts, reports ended ones with their subscriber, usage every 30 s', () => {
    const f = scriptedAddon();
    const sink = recordsSink();
    const { clock, upf } = start(f, sink);
    const t0 = clock.now();
    const s = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR });
    assert.ok(s.ok);
    clock.advance(1000);
    clock.advance(1000);
    assert.deepEqual(
      f.calls.filter((c) => c.startsWith('tick')),
      [`tick ${t0 + 1000} ${t0} 30000 1800000`, `tick ${t0 + 2000} ${t0 + 1000} 30000 1800000`],
    );
    f.end(s.value.id, 5, t0, t0 + 2000);
    f.end(999, 1, t0, t0 + 2000); // a session the core does not know: not reported
    f.usage.push(f.usageRecord(s.value.id, 500, 700));
    clock.advance(28_000);
    assert.equal(sink.reports.length, 1);
    assert.deepEqual(sink.reports[0], {
      subscriberId: IMSI,
      sourceIp: '10.45.0.2',
      destinationIp: '10.99.0.1',
      sourcePort: 40000,
      destinationPort: 53,
      protocol: 17,
      packets: 5,
      bytes: 500,
      startTime: t0,
      endTime: t0 + 2000,
      direction: 'uplink',
      action: 'allow',
    });
    assert.deepEqual(
      sink.usage.map((u) => [u.imsi, u.uplinkBytes, u.downlinkBytes]),
      [[IMSI, 500, 700]],
    );
    assert.equal(upf.counters().flowReports, 1);
  });

  it('writes a session’s flows and remaining usage at release, and maps rule conflicts to errors', () => {
    const f = scriptedAddon();
    const sink = recordsSink();
    const clock = manualClock();
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
    const t0 = clock.now();
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
    clock.advance(500);
    // What the forwarder ends in removeSession: the session's drop flow.
    f.end(s.value.id, 1, t0, t0 + 500, 1);
    assert.ok(upf.release(s.value.id).ok);
    assert.deepEqual(upf.release(s.value.id), { ok: false, error: 'unknown-session' });
    assert.deepEqual(
      sink.reports.map((r) => [r.subscriberId, r.action, r.packets]),
      [[IMSI, 'drop', 1]],
    );
    assert.deepEqual(
      sink.usage.map((u) => [u.uplinkBytes, u.downlinkBytes]),
      [[10, 20]],
    );
    assert.deepEqual(
      f.calls.filter((c) => !c.startsWith('take')),
      [
        `add ${s.value.id} 7`,
        `downlink ${s.value.id} 192.0.2.1:2152 9 1`,
        `clear ${s.value.id}`,
        `remove ${s.value.id} ${t0 + 500} ${t0}`,
      ],
    );
  });

  it('takes no more ended flows while the records queue refuses a chunk, resumes when it has room; stop waits for all', async () => {
    const f = scriptedAddon();
    let room = false;
    const sink = recordsSink(() => room);
    const { clock, upf } = start(f, sink);
    const s = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR });
    assert.ok(s.ok);
    for (let i = 0; i < 5000; i++) f.end(s.value.id, 1, 0, 1000);
    clock.advance(1000);
    // One chunk of 2,000 decoded and refused; 3,000 left in the forwarder's table.
    assert.equal(f.calls.filter((c) => c.startsWith('take')).length, 1);
    assert.equal(upf.counters().flowReportsPending, 5000);
    clock.advance(3000);
    assert.equal(f.calls.filter((c) => c.startsWith('take')).length, 1);
    room = true;
    sink.wake();
    await new Promise((r) => setImmediate(r));
    assert.equal(sink.reports.length, 5000);
    room = false;
    f.end(s.value.id, 4, 0, 5000);
    upf.release(s.value.id);
    assert.equal(upf.counters().flowReportsPending, 1);
    const stopped = upf.stop();
    room = true;
    sink.wake();
    await stopped;
    assert.equal(sink.reports.length, 5001);
    assert.equal(upf.counters().flowReportsPending, 0);
    assert.equal(f.calls.at(-1), 'close');
  });

  it('tells onDownlinkData of downlink data for a session still inactive (Downlink Data Notification role)', () => {
    const f = scriptedAddon();
    const paged: number[] = [];
    const { clock, upf } = start(f, recordsSink(), { onDownlinkData: (s: UpfSession) => paged.push(s.id) });
    const a = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR });
    const b = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.3', uplinkTeid: 8, ambr: AMBR });
    assert.ok(a.ok && b.ok);
    assert.ok(upf.updateDownlink(b.value.id, { gnbAddress: '192.0.2.1', remoteTeid: 9 }).ok);
    // a is inactive; b became active again before the poll; 77 is unknown.
    f.downlinkData.push(a.value.id, b.value.id, 77);
    clock.advance(99);
    assert.deepEqual(paged, []);
    clock.advance(1);
    assert.deepEqual(paged, [a.value.id]);
    assert.equal(upf.counters().downlinkDataNotifications, 1);
  });
});

describe('createUpf: indirect data forwarding', () => {
  it('takes the forwarding TEID from its one TEID space and gives it back; a TEID the forwarder refuses is freed', () => {
    const f = scriptedAddon();
    const { upf } = start(f, recordsSink());
    const uplinkTeid = upf.teids.allocate()!;
    const s = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid, ambr: AMBR });
    assert.ok(s.ok);
    // The scripted forwarder refuses the first forwarding TEID (EEXIST, as for an uplink rule's TEID
    // that did not come from `teids`): the error is the caller's, the TEID goes back.
    assert.deepEqual(upf.createForwarding(s.value.id, { gnbAddress: '192.0.2.9', remoteTeid: 44 }), {
      ok: false,
      error: 'in-use',
    });
    assert.equal(upf.teids.inUse, 1);
    const created = upf.createForwarding(s.value.id, { gnbAddress: '192.0.2.9', remoteTeid: 44, qfi: 5 });
    assert.ok(created.ok);
    assert.notEqual(created.value, uplinkTeid);
    assert.equal(upf.teids.inUse, 2, 'the uplink and the forwarding TEID, from one allocator');
    assert.ok(f.calls.includes(`forward ${s.value.id} ${created.value} 192.0.2.9:2152 44 5`));
    assert.deepEqual(upf.createForwarding(s.value.id, { gnbAddress: '192.0.2.9', remoteTeid: -1 }), {
      ok: false,
      error: 'invalid',
    });
    assert.deepEqual(upf.removeForwarding(s.value.id), { ok: true, value: undefined });
    assert.ok(f.calls.includes(`unforward ${s.value.id}`));
    assert.equal(upf.teids.inUse, 1);
    assert.deepEqual(upf.removeForwarding(999), { ok: false, error: 'unknown-session' });
    // A forwarding TEID still held goes with its session's release (the uplink TEID is the SMF's to free).
    assert.ok(upf.createForwarding(s.value.id, { gnbAddress: '192.0.2.9', remoteTeid: 45 }).ok);
    assert.equal(upf.teids.inUse, 2);
    assert.deepEqual(upf.release(s.value.id), { ok: true, value: undefined });
    assert.equal(upf.teids.inUse, 1);
  });
});

describe('createUpf: host routes on the N6 TUN (docs/upf.md "Routes to the devices")', () => {
  /** The scripted forwarder with a HostRoutes that records its calls and refuses what `refuse` names. */
  function withRoutes(refuse = new Set<string>()) {
    const f = scriptedAddon();
    const routes: string[] = [];
    const opened: HostRoutesOptions[] = [];
    class RecordingRoutes implements NativeHostRoutes {
      constructor(options: HostRoutesOptions) {
        opened.push(options);
      }
      add(address: string, length: number) {
        if (refuse.has(`${address}/${length}`)) return 'ENETDOWN';
        routes.push(`add ${address}/${length}`);
        return undefined;
      }
      remove(address: string, length: number) {
        routes.push(`remove ${address}/${length}`);
        return undefined;
      }
      close = () => void routes.push('close');
    }
    return { f, routes, opened, addon: { ...f.addon, HostRoutes: RecordingRoutes } };
  }
  const on = { ...DEFAULT_UPF_SETTINGS, hostRoutes: 'on' as const, routeTable: 100, routeProtocol: 77 };

  it('adds the IPv4 /32 and the IPv6 /64 of each session it installs, removes them at release and at stop', async () => {
    const r = withRoutes();
    const { upf } = start(r.f, recordsSink(), { settings: on, addon: r.addon });
    assert.deepEqual(r.opened, [{ device: 'pmn-n6', table: 100, protocol: 77 }]);
    const a = upf.establishSession({
      imsi: IMSI,
      ueIpv4: '10.45.0.2',
      ueIpv6Prefix: '2001:db8:0:1::',
      uplinkTeid: 7,
      ambr: AMBR,
    });
    const b = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.3', uplinkTeid: 8, ambr: AMBR });
    assert.ok(a.ok && b.ok);
    assert.deepEqual(r.routes, ['add 10.45.0.2/32', 'add 2001:db8:0:1::/64', 'add 10.45.0.3/32']);
    assert.ok(upf.release(a.value.id).ok);
    assert.deepEqual(r.routes.slice(3), ['remove 10.45.0.2/32', 'remove 2001:db8:0:1::/64']);
    await upf.stop();
    assert.deepEqual(r.routes.slice(5), ['remove 10.45.0.3/32', 'close']);
    assert.equal(upf.counters().hostRouteFailures, 0);
  });

  it('adds no route for a session the forwarder refused', () => {
    const r = withRoutes();
    const { upf } = start(r.f, recordsSink(), { settings: on, addon: r.addon });
    assert.ok(upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR }).ok);
    // The scripted forwarder refuses TEID 666 once a session exists (EEXIST).
    assert.deepEqual(upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.9', uplinkTeid: 666, ambr: AMBR }), {
      ok: false,
      error: 'in-use',
    });
    assert.deepEqual(r.routes, ['add 10.45.0.2/32']);
  });

  it('keeps a session whose route the kernel refused, counting and logging the refusal', () => {
    const r = withRoutes(new Set(['10.45.0.2/32']));
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => void warnings.push(args) };
    const { upf } = start(r.f, recordsSink(), { settings: on, addon: r.addon, logger });
    const s = upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR });
    assert.ok(s.ok);
    assert.equal(upf.session(s.value.id)?.ueIpv4, '10.45.0.2');
    assert.equal(upf.counters().hostRouteFailures, 1);
    assert.equal(warnings.length, 1);
    assert.match(JSON.stringify(warnings[0]), /10\.45\.0\.2\/32.*ENETDOWN/);
  });

  it('opens no routes when off or auto (auto is decided by the service: resolveHostRoutes)', () => {
    for (const hostRoutes of ['off', 'auto', undefined] as const) {
      const r = withRoutes();
      const { upf } = start(r.f, recordsSink(), { settings: { ...on, hostRoutes }, addon: r.addon });
      assert.ok(upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR }).ok);
      assert.deepEqual([r.opened, r.routes], [[], []]);
    }
  });

  it('does not start when routes are on and cannot be opened, and closes the forwarder', () => {
    const f = scriptedAddon();
    class Refusing {
      constructor() {
        throw Object.assign(new Error('RTM_NEWLINK EPERM'), { code: 'EPERM' });
      }
    }
    const addon = { ...f.addon, HostRoutes: Refusing as unknown as new () => NativeHostRoutes };
    const clock = manualClock();
    const upf = createUpf({ settings: on, records: recordsSink().records, clock, timers: clock, addon });
    assert.throws(() => upf.start(), /EPERM/);
    assert.deepEqual(f.calls, ['close']);
    assert.deepEqual(upf.establishSession({ imsi: IMSI, ueIpv4: '10.45.0.2', uplinkTeid: 7, ambr: AMBR }), {
      ok: false,
      error: 'not-started',
    });
  });
});
