import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createMemberDrain, DRAIN_SWEEP_MS } from '../../../src/network/amf/set/member-drain.ts';
import type { AmfSetMember } from '../../../src/network/ports/amf-set-members.ts';
import { manualClock } from '../../helpers/test-app.ts';

const PLMN = { mcc: '001', mnc: '01' };
const IDENTITY = { name: 'amf-a', regionId: 1, setId: 1, pointer: 0, relativeCapacity: 255 };
const row = (name: string, pointer: number, state: AmfSetMember['state']): AmfSetMember => ({
  name,
  instance: name,
  ...PLMN,
  regionId: 1,
  setId: 1,
  pointer,
  relativeCapacity: 255,
  n2Addresses: [],
  state,
  radios: [],
  heartbeatAt: 0,
  leaseExpiresAt: Number.MAX_SAFE_INTEGER,
});

/** A drain over fakes: `connected` UE connections that the sweeps never release. */
function drainOf(members: AmfSetMember[], connected: number) {
  const time = manualClock();
  const sweeps: number[] = [];
  let written = 0;
  const drain = createMemberDrain({
    membership: { drain: async () => true, members: () => members, state: () => 'serving' },
    identity: IDENTITY,
    plmn: async () => PLMN,
    radios: { statusIndication: () => 1 },
    ues: {
      drain: () => {
        sweeps.push(connected);
        return connected;
      },
      written: async () => void written++,
    },
    timers: time,
    logger: pino({ level: 'silent' }),
    timeoutMs: 1_000,
  });
  return { drain, time, sweeps, written: () => written };
}

describe('member drain (TS 23.501 5.21.2.2): refusals and the timeout', () => {
  it('refuses with no serving peer, when no member, and a second time', () => {
    assert.equal(drainOf([row('amf-a', 0, 'serving')], 0).drain.start(), 'no-backup');
    assert.equal(
      drainOf([row('amf-a', 0, 'serving'), row('amf-b', 1, 'draining')], 0).drain.start(),
      'no-backup',
    );
    assert.equal(drainOf([row('amf-b', 1, 'serving')], 0).drain.start(), 'not-a-member');
    const { drain } = drainOf([row('amf-a', 0, 'serving'), row('amf-b', 1, 'serving')], 0);
    assert.equal(drain.start(), undefined);
    assert.equal(drain.start(), 'already-draining');
  });

  it('a UE connection never released: it leaves at the timeout, with every write awaited', async () => {
    const { drain, time, sweeps, written } = drainOf(
      [row('amf-a', 0, 'serving'), row('amf-b', 1, 'serving')],
      1,
    );
    assert.equal(drain.start(), undefined);
    await drain.announced;
    let outcome: unknown;
    void drain.done.then((o) => (outcome = o));
    for (let ms = 0; ms < 1_000 - DRAIN_SWEEP_MS; ms += DRAIN_SWEEP_MS) time.advance(DRAIN_SWEEP_MS);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(outcome, undefined, 'not before the timeout');
    time.advance(DRAIN_SWEEP_MS);
    assert.deepEqual(await drain.done, { reason: 'timeout', connected: 1 });
    assert.equal(written(), 1);
    assert.ok(sweeps.length > 2, 'swept again and again meanwhile');
  });
});
