import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { describe, it, mock } from 'node:test';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import type { Forwarder, ForwarderOptions, UpfAddon } from '../../../src/network/upf/upf-addon.ts';
import { DEFAULT_UPF_SETTINGS } from '../../../src/network/upf/upf-settings.ts';
import { namesOf, register, step, type Ids } from './amf-steps.ts';
import type { TestRadio } from './n2-harness.ts';
import { createAmfHarness, IMSI, TestUe, uplinkNasTransport, type AmfHarness } from './test-ue.ts';

/**
 * One N3 TEID space per UPF (TS 29.281 5.1: a TEID names one tunnel at its end point): the SMF's uplink
 * TEIDs and the UPF's forwarding TEIDs of indirect data forwarding come from one allocator, the UPF's, so
 * a TEID one holds is never handed to the other (which the forwarder would refuse: a failed session).
 */

/** A forwarder whose rule tables refuse a TEID held by another rule, as native/upf/forwarder.c does. */
function tableAddon() {
  const uplink = new Map<number, number>();
  const forwarding = new Map<number, number>();
  const added: { id: number; teid: number; refused: boolean }[] = [];
  class TableForwarder implements Forwarder {
    constructor(readonly options: ForwarderOptions) {}
    info = () => ({ n3Port: 2152, tunName: this.options.tunName });
    addSession(id: number, teid: number) {
      const refused = uplink.has(teid) || forwarding.has(teid);
      added.push({ id, teid, refused });
      if (refused) return 'EEXIST';
      uplink.set(teid, id);
      return undefined;
    }
    setForwarding(id: number, teid: number) {
      if (uplink.has(teid) || (forwarding.has(teid) && forwarding.get(teid) !== id)) return 'EEXIST';
      forwarding.set(teid, id);
      return undefined;
    }
    clearForwarding = () => undefined;
    setDownlink = () => undefined;
    clearDownlink = () => undefined;
    setAmbr = () => undefined;
    removeSession(id: number) {
      for (const table of [uplink, forwarding])
        for (const [teid, holder] of table) if (holder === id) table.delete(teid);
      return { uplinkBytes: 0, downlinkBytes: 0, flowsEnded: 0 };
    }
    tickFlows = () => undefined;
    takeFlows = () => Buffer.alloc(0);
    takeDownlinkData = () => Buffer.alloc(0);
    drainUsage = () => Buffer.alloc(0);
    counters = () => ({}) as ReturnType<Forwarder['counters']>;
    close = () => undefined;
  }
  const addon: UpfAddon = { Forwarder: TableForwarder };
  return { addon, added };
}

/** PDU Session Establishment Request `psi` from the registered UE; the NGAP messages the AMF answered with. */
async function establish(h: AmfHarness, radio: TestRadio, ue: TestUe, ids: Ids, psi: number) {
  const request = encodeNasMessage({
    messageType: 'pduSessionEstablishmentRequest',
    pduSessionId: psi,
    pti: psi,
    integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
    pduSessionType: 1,
  });
  const container = {
    messageType: 'ulNasTransport' as const,
    payloadContainerType: 1,
    payloadContainer: request,
    pduSessionId: psi,
    requestType: 1,
    dnn: 'internet',
    sNssai: { sst: 1, sd: 0x010203 },
  };
  return namesOf((await step(h, radio, ue, uplinkNasTransport(ids, ue.protect(container)))).pdus);
}

describe('the UPF’s N3 TEID space (one allocator for uplink and forwarding TEIDs)', () => {
  it('never gives a new session the uplink TEID of a forwarding tunnel, however the random source falls', async () => {
    const table = tableAddon();
    const h = await createAmfHarness(
      {},
      {},
      { upf: { settings: { ...DEFAULT_UPF_SETTINGS, n3Address: '127.0.0.1' }, addon: table.addon } },
    );
    const restore = (): void => {
      mock.restoreAll();
      syncBuiltinESMExports();
    };
    try {
      const radio = await h.radio();
      const ue = new TestUe();
      const { ids } = await register(h, radio, ue);
      assert.deepEqual(await establish(h, radio, ue, ids, 1), ['PDUSessionResourceSetup']);
      const upf = h.upf;
      const [first] = table.added;
      assert.ok(upf !== undefined && first !== undefined, 'session 1 is on the UPF');
      const forwarded = upf.createForwarding(first.id, { gnbAddress: '127.0.0.9', remoteTeid: 5 });
      assert.ok(forwarded.ok, JSON.stringify(forwarded));

      // A random source that keeps drawing the forwarding TEID (the rare draw, forced): the next uplink
      // TEID must still be another.
      const original = crypto.randomInt.bind(crypto) as (min: number, max: number) => number;
      mock.method(crypto, 'randomInt', (min: number, max: number) =>
        min === 1 && max === 2 ** 32 ? forwarded.value : original(min, max),
      );
      syncBuiltinESMExports();
      const answer = await establish(h, radio, ue, ids, 2);
      restore();

      const second = table.added.at(-1);
      assert.ok(second !== undefined && table.added.length === 2, JSON.stringify(table.added));
      assert.notEqual(
        second.teid,
        forwarded.value,
        'the uplink TEID of session 2 is not the forwarding TEID',
      );
      assert.equal(second.refused, false, JSON.stringify(table.added));
      assert.deepEqual(answer, ['PDUSessionResourceSetup'], 'session 2 set up, not rejected (#26)');
      assert.deepEqual(
        h.smf!.sessionRecords(IMSI).map((s) => s.pduSessionId),
        [1, 2],
      );
    } finally {
      restore();
      await h.close();
    }
  });
});
