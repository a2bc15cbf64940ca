import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canTransition,
  SessionTable,
  transition,
  type SessionState,
  type SessionStateKind,
  type SmSession,
} from '../../../src/network/smf/session-table.ts';

const DOWNLINK = { gnbAddress: '127.0.0.2', remoteTeid: 7, qfi: 1 };
const stateOf: Record<SessionStateKind, SessionState> = {
  'setting-up': { kind: 'setting-up' },
  active: { kind: 'active', downlink: DOWNLINK },
  inactive: { kind: 'inactive', downlinkData: false },
  releasing: { kind: 'releasing', t3592: undefined },
};
const KINDS = Object.keys(stateOf) as SessionStateKind[];

/** Every transition the SMF makes (docs/sessions.md, "States"). */
const ALLOWED: [SessionStateKind, SessionStateKind][] = [
  ['setting-up', 'active'], // setup response
  ['setting-up', 'inactive'], // the UE went idle first; path switch without the session
  ['setting-up', 'releasing'],
  ['active', 'active'], // path switch: the downlink moves
  ['active', 'inactive'], // UE idle
  ['active', 'releasing'],
  ['inactive', 'inactive'], // downlink data (paging), paging failed
  ['inactive', 'setting-up'], // reactivation (Service Request, registration update)
  ['inactive', 'active'], // a setup response for a session not asked back
  ['inactive', 'releasing'],
];

describe('SMF session states: one checked transition function', () => {
  for (const from of KINDS)
    for (const to of KINDS) {
      const allowed = ALLOWED.some(([f, t]) => f === from && t === to);
      it(`${from} -> ${to} is ${allowed ? 'allowed' : 'illegal (throws)'}`, () => {
        const session = { state: stateOf[from] };
        assert.equal(canTransition(from, to), allowed);
        if (allowed) {
          transition(session, stateOf[to]);
          assert.equal(session.state, stateOf[to]);
        } else {
          assert.throws(() => transition(session, stateOf[to]), /illegal session transition/);
          assert.equal(session.state, stateOf[from], 'an illegal transition leaves the state alone');
        }
      });
    }
});

describe('SMF session table', () => {
  const session = (supi: string, pduSessionId: number, upfSessionId: number): SmSession =>
    ({
      supi,
      pduSessionId,
      state: { kind: 'setting-up' },
      resources: { upfSessionId },
    }) as unknown as SmSession;

  it('finds a session by UE and PDU session id, by UE, and by UPF session id', () => {
    const table = new SessionTable();
    const a = session('001', 5, 1);
    const b = session('001', 6, 2);
    const c = session('002', 5, 3);
    for (const s of [a, b, c]) table.add(s);
    assert.equal(table.size, 3);
    assert.equal(table.get('001', 5), a);
    assert.equal(table.get('002', 5), c);
    assert.deepEqual(table.ofUe('001'), [a, b]);
    assert.equal(table.byUpfSession(2), b);
    assert.deepEqual(table.ues(), ['001', '002']);
    table.remove(a);
    table.remove(b);
    assert.equal(table.get('001', 5), undefined);
    assert.equal(table.byUpfSession(1), undefined);
    assert.equal(table.hasUe('001'), false);
    assert.deepEqual(table.all(), [c]);
  });

  it('removing a replaced session leaves its successor under the same ids', () => {
    const table = new SessionTable();
    const old = session('001', 5, 1);
    const replacement = session('001', 5, 2);
    table.add(old);
    table.add(replacement);
    table.remove(old);
    assert.equal(table.get('001', 5), replacement);
    assert.equal(table.byUpfSession(2), replacement);
    assert.deepEqual(table.ofUe('001'), [replacement]);
  });
});
