import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createNetworkWriteRetries } from '../../src/core/network-write-retries.ts';
import { OverloadedError } from '../../src/errors.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import type { UeContextRecord, UeContextStore } from '../../src/network/ports/ue-contexts.ts';
import { WriteAbandoned } from '../../src/network/write-retry.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';

/** A UE context store whose take-overs fail while `down`, counting what it was asked. */
function storeDown() {
  const calls = { takeOver: 0, landed: 0 };
  let down = true;
  const refuse = () => Promise.reject(new Error('not used by this test'));
  const store: UeContextStore = {
    put: refuse,
    delete: refuse,
    takeOver: () => {
      calls.takeOver += 1;
      if (down) return Promise.reject(new OverloadedError('the database is unavailable; try again', 1));
      calls.landed += 1;
      return Promise.resolve(2);
    },
    onTaken: () => () => undefined,
    get: refuse,
    findByGuti: refuse,
    ownedBy: refuse,
  };
  return { store, calls, up: () => void (down = false) };
}

const record = { supi: 'imsi-001010000000001' } as UeContextRecord;

describe('network write retries', () => {
  it('abandons the UE context writes waiting from before a cut from the database, and runs later ones', async () => {
    const time = new ManualTime();
    const retries = createNetworkWriteRetries({
      metrics: createMetrics(),
      clock: time,
      timers: time,
      logger: pino({ level: 'silent' }),
    });
    const { store, calls, up } = storeDown();
    const ueContexts = retries.ueContexts(store);
    // The first write of a UE this member has just authenticated: a take-over fenced by no epoch.
    const waiting = assert.rejects(ueContexts.takeOver(record, 'any'), WriteAbandoned);
    await oneTurn();
    assert.equal(calls.takeOver, 1);
    // Cut off: another member may adopt the UE meanwhile; this write must not take it back.
    retries.abandonUeContextWrites();
    up();
    await time.advance(100, oneTurn);
    await waiting;
    assert.equal(calls.landed, 0, 'the waiting take-over did not land after the cut');
    // A write asked for after the cut (the member joined again) is written as before.
    assert.equal(await ueContexts.takeOver(record, 'any'), 2);
    assert.equal(calls.landed, 1);
    retries.stop();
  });
});
