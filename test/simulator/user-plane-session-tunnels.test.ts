/**
 * carrySessions: the gNB's PDU session events drive the user plane's tunnels (a fake user plane here,
 * which records what it was asked and answers when told).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  GnbUserPlane,
  SessionUserPlane,
  UeTunnel,
  UeTunOptions,
  UserPlaneResult,
} from '../../src/simulator/user-plane/gnb-user-plane.ts';
import {
  carrySessions,
  type TunnelEvent,
  type TunnelledSession,
} from '../../src/simulator/user-plane/session-tunnels.ts';

interface Session extends TunnelledSession {
  ue: string;
}

function fakeUserPlane() {
  const asked: { session: SessionUserPlane; tun: UeTunOptions; answer: (ok: boolean) => void }[] = [];
  const released: number[] = [];
  const userPlane: GnbUserPlane = {
    n3Address: '127.0.0.2',
    n3Port: 2152,
    tunnels: 0,
    bringUp: (session, tun) =>
      new Promise<UserPlaneResult<UeTunnel>>((resolve) => {
        asked.push({
          session,
          tun,
          answer: (ok) => {
            let gone = false;
            resolve(
              ok
                ? {
                    ok: true,
                    value: {
                      session,
                      namespace: tun.namespace,
                      tunName: `tun-${session.downlinkTeid}`,
                      ueIpv6: undefined,
                      counters: () => undefined,
                      forwardTo: () => undefined,
                      expectForwarded: () => undefined,
                      release: () => {
                        if (!gone) released.push(session.downlinkTeid);
                        gone = true;
                      },
                      get released() {
                        return gone;
                      },
                    },
                  }
                : { ok: false, error: 'namespace', detail: 'no such namespace' },
            );
          },
        });
      }),
    counters: () => {
      throw new Error('not used');
    },
    close: () => undefined,
  };
  return { userPlane, asked, released };
}

function events() {
  const listeners = new Set<(event: TunnelEvent<Session>) => void>();
  return {
    on(listener: (event: TunnelEvent<Session>) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit: (event: TunnelEvent<Session>) => listeners.forEach((l) => l(event)),
    get listeners() {
      return listeners.size;
    },
  };
}

const session = (ue: string, pduSessionId: number, downlinkTeid: number, qfis = [1]): Session => ({
  ue,
  pduSessionId,
  qfis,
  uplink: { address: '127.0.0.1', teid: 0x1000 + downlinkTeid },
  downlink: { address: '127.0.0.2', teid: downlinkTeid },
});

function setUp(addresses: Record<string, string | undefined> = { a: '10.45.0.2', b: '10.45.0.3' }) {
  const fake = fakeUserPlane();
  const source = events();
  const failures: string[] = [];
  const carried: number[] = [];
  const tunnels = carrySessions<Session>({
    events: source,
    userPlane: fake.userPlane,
    ueOf: (s) => s.ue,
    addresses: (s) => {
      const ueIpv4 = addresses[s.ue];
      return ueIpv4 === undefined ? undefined : { ueIpv4 };
    },
    tun: (s) => ({ namespace: `ns-${s.ue}` }),
    failed: (s, error) => failures.push(`${s.ue}/${s.pduSessionId}: ${error}`),
    carried: (s) => carried.push(s.downlink.teid),
  });
  return { ...fake, source, failures, carried, tunnels };
}

describe('carrySessions', () => {
  it('brings a TUN up for a session that is up, with its tunnels, QFI and the UE address', async () => {
    const t = setUp();
    t.source.emit({ type: 'up', session: session('a', 5, 7, [9, 1]) });
    assert.deepEqual(t.asked[0]?.session, {
      pduSessionId: 5,
      ueIpv4: '10.45.0.2',
      qfi: 9,
      upfAddress: '127.0.0.1',
      uplinkTeid: 0x1007,
      downlinkTeid: 7,
    });
    assert.deepEqual(t.asked[0]?.tun, { namespace: 'ns-a' });
    assert.equal(t.tunnels.tunnel('a', 5), undefined, 'not before it is up');
    t.asked[0]?.answer(true);
    await t.tunnels.settled();
    assert.equal(t.tunnels.tunnel('a', 5)?.tunName, 'tun-7');
    assert.deepEqual(t.carried, [7]);
  });

  it('removes it when the session goes down, and only that one', async () => {
    const t = setUp();
    t.source.emit({ type: 'up', session: session('a', 1, 1) });
    t.source.emit({ type: 'up', session: session('b', 1, 2) });
    t.asked.forEach((a) => a.answer(true));
    await t.tunnels.settled();
    t.source.emit({ type: 'down', session: session('a', 1, 1), why: 'released' });
    assert.deepEqual(t.released, [1]);
    assert.equal(t.tunnels.tunnel('a', 1), undefined);
    assert.equal(t.tunnels.tunnel('b', 1)?.tunName, 'tun-2');
  });

  it('releases a tunnel that comes up after its session went down', async () => {
    const t = setUp();
    t.source.emit({ type: 'up', session: session('a', 1, 1) });
    t.source.emit({ type: 'down', session: session('a', 1, 1), why: 'connection-released' });
    t.asked[0]?.answer(true);
    await t.tunnels.settled();
    assert.deepEqual(t.released, [1]);
    assert.equal(t.tunnels.tunnel('a', 1), undefined);
    assert.deepEqual(t.carried, []);
  });

  it('moves a modified session to a new tunnel only when its tunnel or QFI changed', async () => {
    const t = setUp();
    t.source.emit({ type: 'up', session: session('a', 1, 1) });
    t.asked[0]?.answer(true);
    await t.tunnels.settled();
    t.source.emit({ type: 'modified', session: session('a', 1, 1) });
    assert.equal(t.asked.length, 1, 'the same tunnel: nothing to do');
    t.source.emit({ type: 'modified', session: session('a', 1, 1, [2]) });
    assert.equal(t.asked.length, 2);
    assert.deepEqual(t.released, [1]);
    t.asked[1]?.answer(true);
    await t.tunnels.settled();
    assert.equal(t.tunnels.tunnel('a', 1)?.session.qfi, 2);
  });

  it('reports a session without a UE address and a failed bring-up, and keeps nothing of them', async () => {
    const t = setUp({ a: undefined, b: '10.45.0.3' });
    t.source.emit({ type: 'up', session: session('a', 1, 1) });
    t.source.emit({ type: 'up', session: session('b', 2, 2) });
    t.asked[0]?.answer(false);
    await t.tunnels.settled();
    assert.deepEqual(t.failures, ['a/1: no-address', 'b/2: namespace']);
    assert.equal(t.tunnels.tunnel('b', 2), undefined);
  });

  it('stops listening and removes every tunnel', async () => {
    const t = setUp();
    t.source.emit({ type: 'up', session: session('a', 1, 1) });
    t.source.emit({ type: 'up', session: session('a', 2, 2) });
    t.asked.forEach((a) => a.answer(true));
    await t.tunnels.settled();
    t.tunnels.stop();
    assert.deepEqual(t.released.sort(), [1, 2]);
    assert.equal(t.source.listeners, 0);
  });
});
