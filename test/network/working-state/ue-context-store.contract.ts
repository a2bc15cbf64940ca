import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredGuti, UeContextRecord, UeContextStore } from '../../../src/network/ports/ue-contexts.ts';

const GUTI: StoredGuti = {
  mcc: '001',
  mnc: '01',
  amfRegionId: 1,
  amfSetId: 1,
  amfPointer: 0,
  tmsi: 0x1234_5678,
};

/** A complete record: every field set, as after a registration with one PDU session. */
export function ueContextRecord(supi: string, overrides: Partial<UeContextRecord> = {}): UeContextRecord {
  return {
    supi,
    epoch: 1,
    owner: 'amf-a',
    guti: GUTI,
    registered: true,
    pei: '3534900698733109',
    security: {
      ngKsi: { mapped: false, ksi: 3 },
      kamf: 'ab'.repeat(32),
      ciphering: 2,
      integrity: 2,
      downlinkCount: 4,
      uplinkCount: 3,
    },
    ueSecurityCapability: { ea: [0, 1, 2], ia: [1, 2], eea: null, eia: null },
    registrationArea: { mcc: '001', mnc: '01', tacs: [1, 2] },
    allowedNssai: [
      { sst: 1, sd: null },
      { sst: 1, sd: 0x010203 },
    ],
    pduSessions: [
      {
        pduSessionId: 5,
        sNssai: { sst: 1, sd: null },
        dnn: 'internet',
        ipType: 'IPv4v6',
        ipv4: '10.45.0.2',
        ipv6Prefix: '2001:db8:0:1::',
        qos: { qfi: 1, fiveQi: 9, arp: 8 },
        ambr: { uplinkBps: 100e6, downlinkBps: 200e6 },
        tunnel: { uplinkTeid: 0xdead_beef, downlink: { gnbAddress: '192.0.2.1', teid: 7 } },
        userPlane: 'active',
      },
    ],
    smsOverNas: true,
    ...overrides,
  };
}

/**
 * Stores `record` as its owner would: take-overs until the stored epoch is `record.epoch` (only a
 * take-over makes an owner), then the owner's write.
 */
export async function own(store: UeContextStore, record: UeContextRecord): Promise<void> {
  for (let epoch = 0; epoch < record.epoch;) {
    const taken = await store.takeOver(record, 'any');
    if (taken === 'fenced') throw new Error('a take-over of any epoch cannot be fenced');
    epoch = taken;
  }
  assert.equal(await store.put(record), 'stored');
}

/**
 * The `UeContextStore` contract: run against every implementation (`create` gives an empty store), so
 * that a shared store behaves as the in-memory one the tests use.
 */
export function ueContextStoreContract(name: string, create: () => Promise<UeContextStore>): void {
  describe(`UeContextStore contract: ${name}`, () => {
    it('reads back by SUPI exactly what was put, and the record survives JSON', async () => {
      const store = await create();
      const record = ueContextRecord('001010000000001');
      assert.equal(await store.put(record), 'fenced', 'no record: only a take-over makes an owner');
      assert.equal(await store.get('001010000000001'), undefined);
      await own(store, record);
      const read = await store.get('001010000000001');
      assert.deepEqual(read, record);
      assert.deepEqual(JSON.parse(JSON.stringify(read)), record);
      assert.equal(await store.get('001010000000002'), undefined);
    });

    it('keeps a value: changing the object put, or the one read, changes nothing stored', async () => {
      const store = await create();
      const record = ueContextRecord('001010000000001');
      await own(store, record);
      record.security!.downlinkCount = 99;
      record.pduSessions.pop();
      const read = await store.get('001010000000001');
      assert.equal(read?.security?.downlinkCount, 4);
      assert.equal(read?.pduSessions.length, 1);
      assert.ok(read);
      read.allowedNssai.length = 0;
      assert.equal((await store.get('001010000000001'))?.allowedNssai.length, 2);
    });

    it('finds a UE by its whole 5G-GUTI, not by a 5G-TMSI under another AMF or PLMN', async () => {
      const store = await create();
      await own(store, ueContextRecord('001010000000001'));
      assert.equal((await store.findByGuti(GUTI))?.supi, '001010000000001');
      assert.equal(await store.findByGuti({ ...GUTI, amfPointer: 1 }), undefined);
      assert.equal(await store.findByGuti({ ...GUTI, mnc: '02' }), undefined);
      assert.equal(await store.findByGuti({ ...GUTI, tmsi: 1 }), undefined);
    });

    it('a new 5G-GUTI replaces the old one; a 5G-TMSI taken over names only its new UE', async () => {
      const store = await create();
      await own(store, ueContextRecord('001010000000001'));
      const moved = { ...GUTI, tmsi: 42 };
      await store.put(ueContextRecord('001010000000001', { guti: moved }));
      assert.equal(await store.findByGuti(GUTI), undefined);
      assert.equal((await store.findByGuti(moved))?.supi, '001010000000001');
      await own(store, ueContextRecord('001010000000002', { guti: moved }));
      assert.equal((await store.findByGuti(moved))?.supi, '001010000000002');
      await store.put(ueContextRecord('001010000000001', { guti: null }));
      assert.equal((await store.findByGuti(moved))?.supi, '001010000000002');
    });

    it('refuses a write or delete from an older epoch than the one stored (fencing)', async () => {
      const store = await create();
      await own(store, ueContextRecord('001010000000001', { epoch: 2 }));
      assert.equal(
        await store.put(ueContextRecord('001010000000001', { epoch: 1, registered: false })),
        'fenced',
      );
      assert.equal((await store.get('001010000000001'))?.registered, true);
      assert.equal(await store.delete('001010000000001', 1), 'fenced');
      assert.equal((await store.get('001010000000001'))?.epoch, 2);
      assert.equal(await store.put(ueContextRecord('001010000000001', { epoch: 2, pei: null })), 'stored');
      assert.equal(await store.put(ueContextRecord('001010000000001', { epoch: 3 })), 'stored');
    });

    it('takes a UE over by compare-and-set: epoch + 1, and the old owner is fenced', async () => {
      const store = await create();
      assert.equal(await store.takeOver(ueContextRecord('001010000000001', { epoch: 9 }), 0), 1);
      assert.equal(
        (await store.get('001010000000001'))?.epoch,
        1,
        'the store sets the epoch, not the record',
      );
      assert.equal(await store.put(ueContextRecord('001010000000001', { epoch: 1, pei: null })), 'stored');
      const taken = ueContextRecord('001010000000001', { owner: 'amf-b', pei: '35' });
      assert.equal(await store.takeOver(taken, 0), 'fenced', 'the stored epoch is no longer 0');
      assert.equal(await store.takeOver(taken, 1), 2);
      const read = await store.get('001010000000001');
      assert.equal(read?.owner, 'amf-b');
      assert.equal(read?.epoch, 2);
      assert.equal(read?.pei, '35');
      // The old owner, back after a pause, writes with its epoch: nothing changes.
      assert.equal(await store.put(ueContextRecord('001010000000001', { epoch: 1, pei: 'late' })), 'fenced');
      assert.equal(await store.delete('001010000000001', 1), 'fenced');
      assert.equal((await store.get('001010000000001'))?.pei, '35');
      assert.equal(await store.takeOver(taken, 1), 'fenced', 'a second take-over from the same read fails');
      assert.equal(await store.takeOver(ueContextRecord('001010000000001', { owner: 'amf-c' }), 'any'), 3);
      assert.equal((await store.get('001010000000001'))?.owner, 'amf-c');
      assert.equal(await store.takeOver(ueContextRecord('001010000000002'), 'any'), 1);
      assert.equal(await store.takeOver(ueContextRecord('001010000000003'), 4), 'fenced', 'no record');
      assert.equal(await store.get('001010000000003'), undefined);
    });

    it("a fenced write frees no other UE's 5G-TMSI", async () => {
      const store = await create();
      await own(store, ueContextRecord('001010000000001', { epoch: 5 }));
      await own(store, ueContextRecord('001010000000002', { epoch: 1, guti: { ...GUTI, tmsi: 7 } }));
      // The first UE's old owner writes the 5G-TMSI of the second's record: fenced, both stay.
      const stale = ueContextRecord('001010000000001', { epoch: 4, guti: { ...GUTI, tmsi: 7 } });
      assert.equal(await store.put(stale), 'fenced');
      assert.equal((await store.findByGuti({ ...GUTI, tmsi: 7 }))?.supi, '001010000000002');
      assert.equal((await store.findByGuti(GUTI))?.supi, '001010000000001');
    });

    it('of concurrent take-overs from one read, exactly one wins; a write racing them keeps its epoch', async () => {
      const store = await create();
      await own(store, ueContextRecord('001010000000001', { epoch: 3 }));
      const members = ['amf-b', 'amf-c', 'amf-d', 'amf-e'];
      const outcomes = await Promise.all([
        ...members.map((owner) => store.takeOver(ueContextRecord('001010000000001', { owner }), 3)),
        store.put(ueContextRecord('001010000000001', { epoch: 3, pei: 'old owner' })),
      ]);
      const won = outcomes.slice(0, members.length).filter((outcome) => outcome === 4);
      assert.equal(won.length, 1, `one take-over wins: ${outcomes.join(', ')}`);
      const read = await store.get('001010000000001');
      assert.equal(read?.epoch, 4);
      assert.equal(read?.owner, members[outcomes.indexOf(4)]);
      // The old owner's write landed before the take-over or was fenced after it: never over the new owner.
      assert.notEqual(read?.pei, 'old owner');
    });

    it('delete forgets the UE under its SUPI and its 5G-GUTI', async () => {
      const store = await create();
      await own(store, ueContextRecord('001010000000001'));
      assert.equal(await store.delete('001010000000001', 1), 'stored');
      assert.equal(await store.get('001010000000001'), undefined);
      assert.equal(await store.findByGuti(GUTI), undefined);
      assert.equal(await store.delete('001010000000001', 1), 'stored', 'deleting an absent UE is no error');
    });

    it("lists one owner's records by SUPI a batch at a time, each with its KAMF", async () => {
      const store = await create();
      const supis = ['001010000000004', '001010000000002', '001010000000003', '001010000000001'];
      for (const [i, supi] of supis.entries()) {
        const guti = { ...GUTI, tmsi: GUTI.tmsi + i };
        await own(store, ueContextRecord(supi, { guti, owner: supi.endsWith('3') ? 'amf-b' : 'amf-a' }));
      }
      const first = await store.ownedBy('amf-a', '', 2);
      assert.deepEqual(
        first.map((r) => r.supi),
        ['001010000000001', '001010000000002'],
      );
      assert.equal(first[0]?.security?.kamf, 'ab'.repeat(32));
      const next = await store.ownedBy('amf-a', first[1]!.supi, 2);
      assert.deepEqual(
        next.map((r) => r.supi),
        ['001010000000004'],
        "amf-b's record is not amf-a's",
      );
      assert.deepEqual(await store.ownedBy('amf-a', '001010000000004', 2), []);
      assert.deepEqual(await store.ownedBy('amf-c', '', 10), []);
    });
  });
}
