import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  connectionOf,
  contextSetUp,
  enterConnected,
  enterIdle,
  INITIAL_CM_STATE,
  markContextSetUp,
  setReachability,
  type CmState,
} from '../../../src/network/amf/context/cm-state.ts';
import {
  enterGmmState,
  GmmTransitionError,
  INITIAL_GMM_STATE,
  isRegistered,
  type GmmState,
  type GmmStateName,
} from '../../../src/network/amf/context/gmm-state.ts';

const ue = (name: GmmStateName = 'deregistered'): { gmm: GmmState } => ({ gmm: { name } });

describe('5GMM state (TS 24.501 5.1.3.2)', () => {
  it('starts deregistered and registers through registered-initiated', () => {
    const u = { gmm: INITIAL_GMM_STATE };
    assert.equal(u.gmm.name, 'deregistered');
    enterGmmState(u, 'registered-initiated');
    assert.equal(isRegistered(u), false);
    enterGmmState(u, 'registered');
    assert.equal(isRegistered(u), true);
    enterGmmState(u, 'deregistered-initiated');
    assert.equal(isRegistered(u), false);
    enterGmmState(u, 'deregistered');
    assert.equal(u.gmm.name, 'deregistered');
  });

  it('refuses the transitions the AMF never makes', () => {
    const refused: [GmmStateName, GmmStateName][] = [
      ['deregistered', 'registered'],
      ['deregistered', 'deregistered-initiated'],
      ['registered-initiated', 'deregistered-initiated'],
      ['registered', 'registered-initiated'],
      ['deregistered-initiated', 'registered'],
    ];
    for (const [from, to] of refused) {
      const u = ue(from);
      assert.throws(() => enterGmmState(u, to), GmmTransitionError, `${from} -> ${to}`);
      assert.equal(u.gmm.name, from, 'a refused transition leaves the state as it was');
    }
  });

  it('allows staying in a state and a Registration Request interrupting a network deregistration', () => {
    for (const name of [
      'deregistered',
      'registered-initiated',
      'registered',
      'deregistered-initiated',
    ] as const) {
      const u = ue(name);
      enterGmmState(u, name);
      assert.equal(u.gmm.name, name);
    }
    const u = ue('deregistered-initiated');
    enterGmmState(u, 'registered-initiated');
    assert.equal(u.gmm.name, 'registered-initiated');
  });
});

describe('CM state (TS 23.501 5.3.3.2)', () => {
  const reachability = () => {
    const r = { cancelled: 0 };
    return { r, timer: { timer: 'mobile-reachable' as const, cancel: () => void r.cancelled++ } };
  };

  it('connecting stops the reachability timer of CM-IDLE and starts with no radio context', () => {
    const u: { cm: CmState<string> } = { cm: INITIAL_CM_STATE };
    const { r, timer } = reachability();
    enterIdle(u, timer);
    enterConnected(u, 'conn-1');
    assert.equal(r.cancelled, 1);
    assert.equal(connectionOf(u), 'conn-1');
    assert.equal(contextSetUp(u), false);
    markContextSetUp(u);
    assert.equal(contextSetUp(u), true);
    enterConnected(u, 'conn-2');
    assert.equal(connectionOf(u), 'conn-2');
    assert.equal(contextSetUp(u), false, 'a new connection has no radio context yet');
  });

  it('going idle replaces a running reachability timer; idle has no connection', () => {
    const u: { cm: CmState<string> } = { cm: INITIAL_CM_STATE };
    const first = reachability();
    enterIdle(u, first.timer);
    const second = reachability();
    enterIdle(u, second.timer);
    assert.equal(first.r.cancelled, 1);
    assert.equal(second.r.cancelled, 0);
    assert.equal(connectionOf(u), undefined);
    assert.equal(contextSetUp(u), false);
    markContextSetUp(u);
    assert.equal(contextSetUp(u), false, 'no radio context without a connection');
    setReachability(u, undefined);
    assert.deepEqual(u.cm, { name: 'idle', reachability: undefined });
  });
});
