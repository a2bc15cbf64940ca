import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import type { UeContextRecord } from '../../../src/network/ports/ue-contexts.ts';
import { createMemoryUeContextStore } from '../../../src/network/working-state/memory-ue-contexts.ts';
import { register, registerUntilAccept, step, type Ids, type StepRadio } from './amf-steps.ts';
import { countingUserPlane, encodeTransfer, setupResponse, TRANSFERS } from './session-fuzz-messages.ts';
import { createAmfHarness, IMSI, TestUe, uplinkNasTransport, type AmfHarness } from './test-ue.ts';

/** The AMF writes its UE contexts through the UE context port (ports/ue-contexts.ts, docs/registration.md). */
describe('UE context store', () => {
  async function stored(h: AmfHarness, store: ReturnType<typeof createMemoryUeContextStore>) {
    await h.amf.ueContextsWritten();
    return store.get(IMSI);
  }

  async function establishSession(h: AmfHarness, radio: StepRadio, ue: TestUe, ids: Ids): Promise<void> {
    const establishment = encodeNasMessage({
      messageType: 'pduSessionEstablishmentRequest',
      pduSessionId: 1,
      pti: 1,
      integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
      pduSessionType: 1,
    });
    const nas = ue.protect({
      messageType: 'ulNasTransport',
      payloadContainerType: 1,
      payloadContainer: establishment,
      pduSessionId: 1,
      requestType: 1,
      dnn: 'internet',
      sNssai: { sst: 1, sd: 0x010203 },
    });
    await step(h, radio, ue, uplinkNasTransport(ids, nas));
    await step(
      h,
      radio,
      ue,
      setupResponse(ids, [{ psi: 1, transfer: encodeTransfer(TRANSFERS.setupResponse) }]),
    );
  }

  it('after Registration Complete holds the UE: SUPI, 5G-GUTI, PEI, KAMF, algorithms and both NAS COUNTs', async () => {
    const store = createMemoryUeContextStore();
    const h = await createAmfHarness({}, {}, { ueContexts: store });
    const radio = await h.radio();
    const ue = new TestUe();
    const { guti } = await register(h, radio, ue);
    const record = await stored(h, store);
    assert.ok(record !== undefined, 'a record after Registration Complete');
    const security = ue.security!;
    assert.equal(record.supi, IMSI);
    // Its first write took the UE over: this AMF (by its AMF Name) owns it at epoch 1.
    assert.equal(record.epoch, 1);
    assert.equal(record.owner, 'pmn-amf');
    assert.equal(record.registered, true);
    assert.deepEqual(record.guti, {
      mcc: guti.mcc,
      mnc: guti.mnc,
      amfRegionId: guti.amfRegionId,
      amfSetId: guti.amfSetId,
      amfPointer: guti.amfPointer,
      tmsi: guti.tmsi,
    });
    assert.deepEqual(await store.findByGuti(record.guti), record);
    assert.equal(record.pei, '490154203237518');
    // The AMF's context mirrors the UE's: same KAMF, ngKSI and algorithms; the AMF's next downlink
    // COUNT follows the last one the UE accepted, its highest uplink COUNT is the UE's last sent.
    assert.deepEqual(record.security, {
      ngKsi: { mapped: security.ngKsi.mapped, ksi: security.ngKsi.ksi },
      kamf: security.kamf.toString('hex'),
      ciphering: security.ciphering,
      integrity: security.integrity,
      downlinkCount: security.highestReceivedCount! + 1,
      uplinkCount: security.nextSendCount - 1,
    });
    assert.deepEqual(record.allowedNssai, [{ sst: 1, sd: 0x010203 }]);
    assert.deepEqual(record.registrationArea?.tacs, [1]);
    assert.deepEqual(record.pduSessions, []);
    // Plain JSON: it round-trips unchanged.
    assert.deepEqual(JSON.parse(JSON.stringify(record)) as UeContextRecord, record);
    await h.close();
  });

  it('an initial registration is stored once, at Registration Complete, not at Security Mode Complete', async () => {
    const memory = createMemoryUeContextStore();
    let puts = 0;
    const store = {
      ...memory,
      put: async (r: UeContextRecord) => (puts++, memory.put(r)),
      takeOver: async (r: UeContextRecord, seen: number | 'any') => (puts++, memory.takeOver(r, seen)),
    };
    const h = await createAmfHarness({}, {}, { ueContexts: store });
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await registerUntilAccept(h, radio, ue);
    // Not registered yet: no other AMF could serve it from a record (its context goes if this aborts).
    assert.equal(await stored(h, memory), undefined);
    await step(h, radio, ue, uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })));
    assert.equal((await stored(h, memory))?.registered, true);
    assert.equal(puts, 1);
    await h.close();
  });

  it('lists a PDU session once it is set up, and is gone after deregistration', async () => {
    const store = createMemoryUeContextStore();
    const h = await createAmfHarness({}, {}, { ueContexts: store, userPlane: countingUserPlane() });
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids, guti } = await register(h, radio, ue);
    await establishSession(h, radio, ue, ids);
    const record = await stored(h, store);
    assert.equal(record?.pduSessions.length, 1);
    const session = record.pduSessions[0]!;
    assert.equal(session.pduSessionId, 1);
    assert.equal(session.dnn, 'internet');
    assert.deepEqual(session.sNssai, { sst: 1, sd: 0x010203 });
    assert.equal(session.userPlane, 'active');
    assert.notEqual(session.tunnel.downlink, null, 'the gNB tunnel of the Setup Response');
    assert.ok(session.ipv4 !== null || session.ipv6Prefix !== null, 'an address');
    // The NAS COUNTs of the session's messages are in it too.
    assert.equal(record.security?.uplinkCount, ue.security!.nextSendCount - 1);
    assert.deepEqual(JSON.parse(JSON.stringify(record)) as UeContextRecord, record);

    await step(
      h,
      radio,
      ue,
      uplinkNasTransport(
        ids,
        ue.protect({
          messageType: 'deregistrationRequestUeOriginating',
          deregistrationType: { switchOff: true, reRegistrationRequired: false, accessType: 1 },
          ngKsi: ue.security!.ngKsi,
          mobileIdentity: guti,
        }),
      ),
    );
    assert.equal(await stored(h, store), undefined);
    assert.equal(await store.findByGuti(record.guti!), undefined);
    await h.close();
  });
});
