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
    ...overrides,
  };
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
      assert.equal(await store.put(record), 'stored');
      const read = await store.get('001010000000001');
      assert.deepEqual(read, record);
      assert.deepEqual(JSON.parse(JSON.stringify(read)), record);
      assert.equal(await store.get('001010000000002'), undefined);
    });

    it('keeps a value: changing the object put, or the one read, changes nothing stored', async () => {
      const store = await create();
      const record = ueContextRecord('001010000000001');
      await store.put(record);
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
      await store.put(ueContextRecord('001010000000001'));
      assert.equal((await store.findByGuti(GUTI))?.supi, '001010000000001');
      assert.equal(await store.findByGuti({ ...GUTI, amfPointer: 1 }), undefined);
      assert.equal(await store.findByGuti({ ...GUTI, mnc: '02' }), undefined);
      assert.equal(await store.findByGuti({ ...GUTI, tmsi: 1 }), undefined);
    });

    it('a new 5G-GUTI replaces the old one; a 5G-TMSI taken over names only its new UE', async () => {
      const store = await create();
      await store.put(ueContextRecord('001010000000001'));
      const moved = { ...GUTI, tmsi: 42 };
      await store.put(ueContextRecord('001010000000001', { guti: moved }));
      assert.equal(await store.findByGuti(GUTI), undefined);
      assert.equal((await store.findByGuti(moved))?.supi, '001010000000001');
      await store.put(ueContextRecord('001010000000002', { guti: moved }));
      assert.equal((await store.findByGuti(moved))?.supi, '001010000000002');
      await store.put(ueContextRecord('001010000000001', { guti: null }));
      assert.equal((await store.findByGuti(moved))?.supi, '001010000000002');
    });

    it('refuses a write or delete from an older epoch than the one stored (fencing)', async () => {
      const store = await create();
      await store.put(ueContextRecord('001010000000001', { epoch: 2 }));
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

    it('delete forgets the UE under its SUPI and its 5G-GUTI', async () => {
      const store = await create();
      await store.put(ueContextRecord('001010000000001'));
      assert.equal(await store.delete('001010000000001', 1), 'stored');
      assert.equal(await store.get('001010000000001'), undefined);
      assert.equal(await store.findByGuti(GUTI), undefined);
      assert.equal(await store.delete('001010000000001', 1), 'stored', 'deleting an absent UE is no error');
    });
  });
}
