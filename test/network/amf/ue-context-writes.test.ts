import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { AmfUe } from '../../../src/network/amf/context/amf-ue.ts';
import {
  createUeContextWrites,
  type UeContextWriteFailure,
} from '../../../src/network/amf/context/ue-context-writes.ts';
import type { UeContextStore } from '../../../src/network/ports/ue-contexts.ts';
import { createMemoryUeContextStore } from '../../../src/network/working-state/memory-ue-contexts.ts';

const KAMF = 'ab'.repeat(32);

/** The few AmfUe fields the record reads; the rest as a fresh context has them. */
function amfUe(supi: string | undefined): AmfUe {
  return {
    id: 1,
    supi,
    suci: undefined,
    unmapped: undefined,
    guti: undefined,
    oldGuti: undefined,
    gutiReallocationPending: false,
    security: {
      ngKsi: { mapped: false, ksi: 1 },
      kamf: Buffer.from(KAMF, 'hex'),
      ciphering: 0,
      integrity: 2,
      nextSendCount: 3,
      highestReceivedCount: 2,
    } as AmfUe['security'],
    ueSecurityCapability: undefined,
    pei: undefined,
    gmm: { name: 'registered' },
    allowedNssai: [{ sst: 1 }],
    requestedNssai: undefined,
    pendingAllowedNssai: undefined,
    registrationArea: undefined,
    cm: { name: 'idle', reachability: undefined },
    procedure: { kind: 'none' },
    lastRadio: undefined,
    lastKsi: undefined,
    smsOverNas: false,
  };
}

function writes(store: UeContextStore) {
  const failures: UeContextWriteFailure[] = [];
  const lines: string[] = [];
  const lost: AmfUe[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const w = createUeContextWrites({
    store,
    owner: 'amf-a',
    sessions: () => [],
    logger,
    failed: (r) => failures.push(r),
    lost: (ue) => lost.push(ue),
    holder: () => undefined,
  });
  return { w, failures, lines, lost };
}

describe('UE context writes', () => {
  it('a store that fails is logged without the record and counted; nothing is thrown', async () => {
    const failing: UeContextStore = {
      ...createMemoryUeContextStore(),
      takeOver: async () => {
        throw new Error('store down');
      },
    };
    const { w, failures, lines } = writes(failing);
    w.save(amfUe('001010000000001'));
    await w.settled();
    assert.deepEqual(failures, ['error']);
    assert.equal(lines.length, 1);
    assert.ok(!lines[0]!.includes(KAMF), 'KAMF never logged');
  });

  it('a write refused for a newer owner is counted as fenced', async () => {
    const store = createMemoryUeContextStore();
    const { w, failures, lost, lines } = writes(store);
    const ue = amfUe('001010000000001');
    w.save(ue);
    await w.settled();
    assert.equal(ue.contextEpoch, 1, 'the first write took the UE over');
    assert.equal((await store.get('001010000000001'))?.owner, 'amf-a');
    // Another member takes the UE over from the record it read (epoch 1 -> 2).
    const record = (await store.get('001010000000001'))!;
    assert.equal(await store.takeOver({ ...record, owner: 'amf-b', pei: 'b' }, 1), 2);
    w.save(ue);
    await w.settled();
    assert.deepEqual(failures, ['fenced']);
    assert.deepEqual(lost, [ue], 'the AMF drops its copy');
    // Dropping the copy forgets it: no deletion of what is now the new owner's.
    w.forget(ue);
    await w.settled();
    assert.deepEqual(failures, ['fenced']);
    assert.ok(lines.some((line) => line.includes('took the UE over') && line.includes('"level":40')));
    const kept = await store.get('001010000000001');
    assert.equal(kept?.owner, 'amf-b');
    assert.equal(kept?.pei, 'b', 'the fenced write changed nothing');
  });

  it("a deletion uses the epoch the take-over gave: a later owner's record stays", async () => {
    const store = createMemoryUeContextStore();
    const { w } = writes(store);
    const ue = amfUe('001010000000001');
    w.save(ue);
    await w.settled();
    const record = (await store.get('001010000000001'))!;
    await store.takeOver({ ...record, owner: 'amf-b' }, 1);
    w.forget(ue);
    await w.settled();
    assert.equal((await store.get('001010000000001'))?.owner, 'amf-b');
  });

  it('one write in flight per UE: a deletion asked while a save is in flight lands last', async () => {
    const memory = createMemoryUeContextStore();
    let release: (() => void) | undefined;
    const slow: UeContextStore = {
      ...memory,
      async takeOver(record, seen) {
        await new Promise<void>((resolve) => (release = resolve));
        return memory.takeOver(record, seen);
      },
    };
    const { w } = writes(slow);
    const ue = amfUe('001010000000001');
    w.save(ue);
    w.forget(ue);
    release?.();
    await w.settled();
    assert.equal(await memory.get('001010000000001'), undefined);
  });

  it('forgetting a UE never saved asks nothing of the store; one saved is deleted', async () => {
    const store = createMemoryUeContextStore();
    const deleted: string[] = [];
    const counting: UeContextStore = {
      ...store,
      delete: async (supi, epoch) => (deleted.push(supi), store.delete(supi, epoch)),
    };
    const { w } = writes(counting);
    w.forget(amfUe('001010000000001'));
    const saved = amfUe('001010000000002');
    w.save(saved);
    w.forget(saved);
    await w.settled();
    assert.deepEqual(deleted, ['001010000000002']);
    assert.equal(await store.get('001010000000002'), undefined);
  });

  it('nothing is written before the SUPI is known', async () => {
    const store = createMemoryUeContextStore();
    let puts = 0;
    const counting: UeContextStore = {
      ...store,
      put: async (r) => (puts++, store.put(r)),
      takeOver: async (r, seen) => (puts++, store.takeOver(r, seen)),
    };
    const { w } = writes(counting);
    w.save(amfUe(undefined));
    await w.settled();
    assert.equal(puts, 0);
  });

  it('suspended (cut off from the database): nothing is written, nor deleted later; resumed, writes again', async () => {
    const store = createMemoryUeContextStore();
    const calls: string[] = [];
    const counting: UeContextStore = {
      ...store,
      put: async (r) => (calls.push(`put ${r.supi}`), store.put(r)),
      takeOver: async (r, seen) => (calls.push(`take ${r.supi}`), store.takeOver(r, seen)),
      delete: async (supi, epoch) => (calls.push(`delete ${supi}`), store.delete(supi, epoch)),
    };
    const { w } = writes(counting);
    const held = amfUe('001010000000001');
    w.save(held);
    await w.settled();
    w.suspend();
    w.save(held);
    w.save(amfUe('001010000000002'));
    await w.settled();
    w.resume();
    // Its record is the set's now: this copy is not deleted, even once writes resume.
    w.forget(held);
    const next = amfUe('001010000000003');
    w.save(next);
    await w.settled();
    assert.deepEqual(calls, ['take 001010000000001', 'take 001010000000003']);
  });
});
