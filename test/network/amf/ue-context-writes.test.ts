import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { AmfUe } from '../../../src/network/amf/context/amf-ue.ts';
import {
  createUeContextWrites,
  type UeContextWriteFailure,
} from '../../../src/network/amf/context/ue-context-writes.ts';
import type { UeContextRecord, UeContextStore } from '../../../src/network/ports/ue-contexts.ts';
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

function writes(store: UeContextStore, epoch = 0) {
  const failures: UeContextWriteFailure[] = [];
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const w = createUeContextWrites({
    store,
    epoch,
    sessions: () => [],
    logger,
    failed: (r) => failures.push(r),
  });
  return { w, failures, lines };
}

describe('UE context writes', () => {
  it('a store that fails is logged without the record and counted; nothing is thrown', async () => {
    const failing: UeContextStore = {
      ...createMemoryUeContextStore(),
      put: async () => {
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
    await store.put({ ...(await recordOf(amfUe('001010000000001'))), epoch: 5 });
    const { w, failures } = writes(store, 0);
    w.save(amfUe('001010000000001'));
    await w.settled();
    assert.deepEqual(failures, ['fenced']);
    assert.equal((await store.get('001010000000001'))?.epoch, 5);
  });

  it('one write in flight per UE: a deletion asked while a save is in flight lands last', async () => {
    const memory = createMemoryUeContextStore();
    let release: (() => void) | undefined;
    const slow: UeContextStore = {
      ...memory,
      async put(record) {
        await new Promise<void>((resolve) => (release = resolve));
        return memory.put(record);
      },
    };
    const { w } = writes(slow);
    const ue = amfUe('001010000000001');
    w.save(ue);
    w.forget('001010000000001');
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
    w.forget('001010000000001');
    w.save(amfUe('001010000000002'));
    w.forget('001010000000002');
    await w.settled();
    assert.deepEqual(deleted, ['001010000000002']);
    assert.equal(await store.get('001010000000002'), undefined);
  });

  it('nothing is written before the SUPI is known', async () => {
    const store = createMemoryUeContextStore();
    let puts = 0;
    const counting: UeContextStore = { ...store, put: async (r) => (puts++, store.put(r)) };
    const { w } = writes(counting);
    w.save(amfUe(undefined));
    await w.settled();
    assert.equal(puts, 0);
  });
});

async function recordOf(ue: AmfUe): Promise<UeContextRecord> {
  const store = createMemoryUeContextStore();
  const { w } = writes(store);
  w.save(ue);
  await w.settled();
  return (await store.get(ue.supi!))!;
}
