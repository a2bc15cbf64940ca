import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { DEFAULT_AMF_IDENTITY, type AmfIdentity } from '../../../src/network/amf/context/amf-identity.ts';
import { createAmfSetMembership } from '../../../src/network/amf/set/amf-set-membership.ts';
import { watchDatabaseCut } from '../../../src/network/amf/set/database-cut.ts';
import type { AmfSetMembersStore } from '../../../src/network/ports/amf-set-members.ts';
import { amfConfigurationUpdateAcknowledge } from '../../../src/simulator/gnb-messages.ts';
import { createAmfSetMembersStore } from '../../../src/storage/network-ports/amf-set-members.ts';
import { openStorage, type Storage } from '../../../src/storage/storage.ts';
import { manualClock } from '../../helpers/test-app.ts';
import { tsharkFields } from '../../helpers/tshark.ts';
import { emittedPdus } from './emitted.ts';
import { ngSetupRequest } from './messages.ts';
import { createHarness } from './n2-harness.ts';

const emitted = emittedPdus();
after(() => emitted.check());

const TIMING = { heartbeatMs: 5_000, leaseMs: 15_000 };

function member(store: AmfSetMembersStore, identity: Partial<AmfIdentity> & { name: string }) {
  const time = manualClock();
  const membership = createAmfSetMembership({
    store,
    identity: { ...DEFAULT_AMF_IDENTITY, ...identity },
    n2Addresses: ['127.0.0.1'],
    plmn: () => Promise.resolve({ mcc: '001', mnc: '01' }),
    clock: time,
    timers: time,
    logger: pino({ level: 'silent' }),
    timing: TIMING,
  });
  return { membership, time };
}

/** An AMF Pointer as tshark shows its 6-bit BIT STRING: the bits left-aligned in one byte, in hex. */
const shown = (pointer: number): string => (pointer << 2).toString(16).padStart(2, '0');

/** Each served GUAMI as tshark reads it: [AMF Pointer, backup AMF name or ''], in order. */
async function servedAsTsharkReads(bytes: Uint8Array): Promise<[string, string][]> {
  const [row] = await tsharkFields([bytes], ['ngap.aMFPointer', 'ngap.backupAMFName'], {
    protocol: 'ngap',
    args: ['-E', 'separator=/t', '-E', 'occurrence=a', '-E', 'aggregator=|'],
    separator: '\t',
  });
  const [pointers = '', backups = ''] = row ?? [];
  const names = backups.split('|');
  // tshark lists the backup names present only: pair them with the pointers by position of presence.
  return pointers.split('|').map((pointer, i) => [pointer, names[i] ?? '']);
}

describe('NG Setup and AMF Configuration Update of an AMF set member (TS 38.413 8.7.1, 8.7.3, 9.3.3.5)', () => {
  let storage: Storage;
  let store: AmfSetMembersStore;
  before(async () => {
    storage = await openStorage({ path: ':memory:' });
    store = createAmfSetMembersStore({ db: storage.db });
  });
  after(() => storage.close());

  it('lists every live member’s GUAMI with its backup AMF, and tells the radio the backup of a member that left', async () => {
    const peer1 = member(store, { name: 'amf-p1', pointer: 1 });
    const peer9 = member(store, { name: 'amf-p9', pointer: 9 });
    const self = member(store, { name: 'pmn-amf', pointer: 5 });
    await peer1.membership.start();
    await peer9.membership.start();
    await self.membership.start();
    const h = await createHarness({
      identity: { ...DEFAULT_AMF_IDENTITY, pointer: 5 },
      amfSet: self.membership,
    });
    try {
      const radio = await h.connect();
      radio.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
      await h.settled();
      assert.deepEqual(radio.types(), ['NGSetupResponse']);
      emitted.add(radio.received);
      // Its own first, then its peers by pointer; each backup is the next serving member by pointer.
      assert.deepEqual(await servedAsTsharkReads(radio.received[0]!.bytes), [
        [shown(5), 'amf-p9'],
        [shown(1), 'pmn-amf'],
        [shown(9), 'amf-p1'],
      ]);

      // amf-p9 stops: at this member's next heartbeat the radio hears the new backups. amf-p9's GUAMI
      // stays, after the live members', with its backup amf-p1 (the next serving member, wrapping round),
      // which adopts its UEs and serves it now (TS 23.501 5.21.2.3).
      await peer9.membership.stop();
      self.time.advance(TIMING.heartbeatMs);
      await self.membership.settled();
      await h.settled();
      assert.deepEqual(radio.types(), ['NGSetupResponse', 'AMFConfigurationUpdate']);
      emitted.add(radio.received.slice(1));
      assert.deepEqual(await servedAsTsharkReads(radio.received[1]!.bytes), [
        [shown(5), 'amf-p1'],
        [shown(1), 'pmn-amf'],
        [shown(9), 'amf-p1'],
      ]);
      radio.send(amfConfigurationUpdateAcknowledge());
      await h.settled();

      // A heartbeat that finds the same members sends nothing.
      self.time.advance(TIMING.heartbeatMs);
      await self.membership.settled();
      await h.settled();
      assert.deepEqual(radio.types(), ['NGSetupResponse', 'AMFConfigurationUpdate']);
    } finally {
      await h.close();
      await self.membership.stop();
      await peer1.membership.stop();
    }
  });

  it('serves the GUAMI of a member gone whose backup it is, also to a radio connecting later, until a member takes its pointer', async () => {
    const own = await openStorage({ path: ':memory:' });
    const set = createAmfSetMembersStore({ db: own.db });
    const peer1 = member(set, { name: 'amf-p1', pointer: 1 });
    const peer9 = member(set, { name: 'amf-p9', pointer: 9 });
    const self = member(set, { name: 'pmn-amf', pointer: 5 });
    for (const m of [peer1, peer9, self]) await m.membership.start();
    const h = await createHarness({
      identity: { ...DEFAULT_AMF_IDENTITY, pointer: 5 },
      amfSet: self.membership,
    });
    const heartbeat = async () => {
      self.time.advance(TIMING.heartbeatMs);
      await self.membership.settled();
      await h.settled();
    };
    const taker = member(set, { name: 'amf-p1b', pointer: 1 });
    try {
      const radio = await h.connect();
      radio.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
      await h.settled();
      // amf-p1 leaves: this member (the next serving one after pointer 1) is the backup of its GUAMI, so
      // it lists that GUAMI second, right after its own, with the member that would serve it without
      // this one (amf-p9) as its backup; amf-p9's GUAMI comes after.
      await peer1.membership.stop();
      await heartbeat();
      assert.deepEqual(radio.types(), ['NGSetupResponse', 'AMFConfigurationUpdate']);
      const served = [
        [shown(5), 'amf-p9'],
        [shown(1), 'amf-p9'],
        [shown(9), 'pmn-amf'],
      ];
      assert.deepEqual(await servedAsTsharkReads(radio.received[1]!.bytes), served);
      radio.send(amfConfigurationUpdateAcknowledge());
      await h.settled();

      // A radio connecting now hears the same in its NG Setup Response.
      const later = await h.connect();
      later.send(ngSetupRequest({ gnbId: 2, name: 'gnb-2' }));
      await h.settled();
      assert.deepEqual(later.types(), ['NGSetupResponse']);
      assert.deepEqual(await servedAsTsharkReads(later.received[0]!.bytes), served);

      // Another member joins with pointer 1: the GUAMI is its own again, with this member as its backup.
      await taker.membership.start();
      await heartbeat();
      assert.deepEqual(later.types(), ['NGSetupResponse', 'AMFConfigurationUpdate']);
      assert.deepEqual(await servedAsTsharkReads(later.received[1]!.bytes), [
        [shown(5), 'amf-p9'],
        [shown(1), 'pmn-amf'],
        [shown(9), 'amf-p1b'],
      ]);
      emitted.add([...radio.received, ...later.received]);
    } finally {
      await h.close();
      for (const m of [self, peer9, taker]) await m.membership.stop();
      await own.close();
    }
  });

  it('cut off from the database, it tells its radios it serves its own GUAMI alone, then that it is unavailable', async () => {
    const own = await openStorage({ path: ':memory:' });
    const rows = createAmfSetMembersStore({ db: own.db });
    let cut = false;
    // Its path to the database: cut, every write of its row fails.
    const path: AmfSetMembersStore = {
      write: (row, blocker) => (cut ? Promise.reject(new Error('cut')) : rows.write(row, blocker)),
      list: () => (cut ? Promise.reject(new Error('cut')) : rows.list()),
    };
    const peer9 = member(rows, { name: 'amf-p9', pointer: 9 });
    const self = member(path, { name: 'pmn-amf', pointer: 5 });
    await peer9.membership.start();
    await self.membership.start();
    const h = await createHarness({
      identity: { ...DEFAULT_AMF_IDENTITY, pointer: 5 },
      amfSet: self.membership,
    });
    const stop = watchDatabaseCut({
      membership: self.membership,
      identity: { ...DEFAULT_AMF_IDENTITY, name: 'pmn-amf', pointer: 5 },
      radios: h.n2,
      ues: { suspend: () => 0, resume: () => undefined },
      counted: () => undefined,
      logger: pino({ level: 'silent' }),
    });
    try {
      const radio = await h.connect();
      radio.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
      await h.settled();
      assert.deepEqual(await servedAsTsharkReads(radio.received[0]!.bytes), [
        [shown(5), 'amf-p9'],
        [shown(9), 'pmn-amf'],
      ]);
      cut = true;
      for (let i = 0; i < TIMING.leaseMs / TIMING.heartbeatMs; i++) {
        self.time.advance(TIMING.heartbeatMs);
        await self.membership.settled();
      }
      await h.settled();
      assert.equal(self.membership.status(), 'cut-off');
      // First the list without its peer's GUAMI (the radio overwrites it, 8.7.3.2): the radio sends it
      // no UE of another GUAMI; then its own GUAMI unavailable, with the backup its peers adopt on (8.7.6).
      assert.deepEqual(radio.types(), ['NGSetupResponse', 'AMFConfigurationUpdate', 'AMFStatusIndication']);
      emitted.add(radio.received.slice(1));
      assert.deepEqual(await servedAsTsharkReads(radio.received[1]!.bytes), [[shown(5), '']]);
      assert.deepEqual(await servedAsTsharkReads(radio.received[2]!.bytes), [[shown(5), 'amf-p9']]);
    } finally {
      stop();
      await h.close();
      await self.membership.stop();
      await peer9.membership.stop();
      await own.close();
    }
  });
});
