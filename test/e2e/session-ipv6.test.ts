import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type ApiSession, type SessionService } from './session-service.ts';

/**
 * IPv6 sessions whose pool comes from the management API (network.md 6 and 9: a profile's optional
 * `ue-ipv6-pool`, each session its own /64; a pool change releases the sessions using it with #39,
 * TS 24.501 6.3.3): a simulated UE behind a simulated gNB against the real service, the pool set,
 * changed and removed by `PUT /api/v1/profiles/default`, the sessions read back through the API and
 * the rules the UPF was given.
 */

describe('IPv6 sessions from the profile ue-ipv6-pool set through the API', () => {
  let s: SessionService;
  before(async () => {
    s = await startSessionService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  const sessionsOf = async (imsi: string): Promise<Map<number, ApiSession>> =>
    new Map((await s.sessionsOf(imsi)).map((x) => [x.id, x]));
  const setPool = (pool: string | undefined): Promise<void> =>
    s.putDefaultProfile(pool === undefined ? {} : { 'ue-ipv6-pool': pool });
  /** Network-requested releases `sessions` heard, by PDU session id, once `count` arrived. */
  const releases = (sessions: UeSessions, count: number): Promise<Map<number, number>> =>
    new Promise((resolve) => {
      const heard = new Map<number, number>();
      const off = sessions.on((event) => {
        if (event.type !== 'released') return;
        heard.set(event.pduSessionId, event.cause);
        if (heard.size === count) {
          off();
          resolve(heard);
        }
      });
    });
  /** The IPv6 prefixes inside `within` (a /48's first three groups) the UPF's rules hold now. */
  const upfPrefixes = (within: string): string[] =>
    [...s.rules.sessions.values()]
      .flatMap((rule) => (rule.ipv6?.startsWith(within) === true ? [rule.ipv6] : []))
      .sort();
  /** Subscriber `n` registered with sessions of these types (ids 1, 2, ...), all shown active. */
  async function withSessions(n: number, types: ('IPv4' | 'IPv6' | 'IPv4v6')[]) {
    const { imsi, sessions } = await s.registered(n);
    const accepted = [];
    for (const [i, type] of types.entries()) {
      const outcome = await sessions.establish({ pduSessionId: i + 1, type });
      assert.ok(outcome.outcome === 'accepted', JSON.stringify(outcome));
      accepted.push(outcome.session);
    }
    const shown = await s.until(async () => {
      const byId = await sessionsOf(imsi);
      return byId.size === types.length && [...byId.values()].every((x) => x.status === 'active')
        ? byId
        : undefined;
    }, `${types.length} active sessions`);
    return { imsi, sessions, accepted, shown };
  }

  it('IPv6 and IPv4v6 sessions take a /64 each of the pool the API set; an IPv4 session none', async () => {
    await setPool('2001:db8:45::/48');
    const { accepted, shown } = await withSessions(1, ['IPv6', 'IPv4v6', 'IPv4']);
    assert.deepEqual(
      accepted.map((session) => [session.ipType, session.cause]),
      [
        ['IPv6', undefined],
        ['IPv4v6', undefined],
        ['IPv4', undefined],
      ],
    );
    assert.deepEqual([...(accepted[1]?.ipv6InterfaceIdentifier ?? [])], [0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(
      [1, 2, 3].map((id) => [shown.get(id)?.ip_type, shown.get(id)?.ipv6_prefix]),
      [
        ['IPv6', '2001:db8:45::/64'],
        ['IPv4v6', '2001:db8:45:1::/64'],
        ['IPv4', ''],
      ],
    );
    assert.deepEqual(upfPrefixes('2001:db8:45:'), ['2001:db8:45:1::', '2001:db8:45::']);
  });

  it('another ue-ipv6-pool releases the sessions using the old one with #39; the IPv4 session stays', async () => {
    await setPool('2001:db8:47::/48');
    const { imsi, sessions } = await withSessions(2, ['IPv6', 'IPv4v6', 'IPv4']);
    assert.equal(upfPrefixes('2001:db8:47:').length, 2);
    const released = releases(sessions, 2);
    await setPool('2001:db8:48::/48');
    assert.deepEqual(
      [...(await released)].sort(([a], [b]) => a - b),
      [
        [1, 39],
        [2, 39],
      ],
    );
    const left = await s.until(async () => {
      const byId = await sessionsOf(imsi);
      return byId.size === 1 ? byId : undefined;
    }, 'only the IPv4 session left');
    assert.equal(left.get(3)?.ip_type, 'IPv4');
    assert.deepEqual(upfPrefixes('2001:db8:47:'), []);

    const again = await sessions.establish({ pduSessionId: 1, type: 'IPv6' });
    assert.ok(again.outcome === 'accepted');
    await s.until(
      async () => ((await sessionsOf(imsi)).get(1)?.ipv6_prefix === '2001:db8:48::/64' ? true : undefined),
      'a /64 of the new pool',
    );
  });

  it('removing ue-ipv6-pool releases the IPv6 session with #39; then IPv6 is refused #50, IPv4v6 becomes IPv4 with #50', async () => {
    await setPool('2001:db8:49::/48');
    const { imsi, sessions } = await withSessions(3, ['IPv6']);
    const released = releases(sessions, 1);
    await setPool(undefined);
    assert.deepEqual([...(await released)], [[1, 39]]);
    await s.until(async () => ((await sessionsOf(imsi)).has(1) ? undefined : true), 'the IPv6 session gone');
    assert.deepEqual(upfPrefixes('2001:db8:49:'), []);
    assert.deepEqual(await sessions.establish({ pduSessionId: 1, type: 'IPv6' }), {
      outcome: 'rejected',
      cause: 50,
    });
    const dual = await sessions.establish({ pduSessionId: 2, type: 'IPv4v6' });
    assert.ok(dual.outcome === 'accepted');
    assert.deepEqual([dual.session.ipType, dual.session.cause], ['IPv4', 50]);
  });
});
