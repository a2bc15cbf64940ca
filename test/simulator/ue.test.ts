// The simulated UE's 5GMM procedures against a stand-in network (fake-nas-amf.ts: the real AUSF, SIDF and
// NAS security context on the network side) over a fake radio that carries NAS both ways.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RRCEstablishmentCause } from '../../src/network/ngap/generated/types.ts';
import type { FiveGSTmsi } from '../../src/simulator/ue/ran-ue-messages.ts';
import { SimulatedUe, type UeProcedureTimers } from '../../src/simulator/ue/simulated-ue.ts';
import type { UeConfig } from '../../src/simulator/ue/ue-config.ts';
import { ALL_ALGORITHMS, imeiOf } from '../../src/simulator/ue/ue-config.ts';
import type { RadioUe, RrcConnection, UeRadio } from '../../src/simulator/ue/ue-radio.ts';
import type { NetworkAction } from './fake-nas-amf.ts';
import { FakeNasAmf, PLMN } from './fake-nas-amf.ts';
import { steppedTimers } from './scripted-amf.ts';

const IMSI = '001010000000001';
const K = Buffer.from('465b5ce8b199b49faa5f0a2ee238a6bc', 'hex');
const OPC = Buffer.from('e8ed289deba952e4283b54e88e6183ca', 'hex');
const IMEISV = '3569380356438091';

/** Carries NAS between one UE and the stand-in network, as gNB and NGAP would, a turn of the loop later. */
class FakeRadio implements UeRadio {
  readonly name = 'gnb-test';
  readonly cell = { plmn: PLMN, nrCellIdentity: 0x10, tac: 1 };
  readonly camped = new Set<RadioUe>();
  readonly establishments: { cause: RRCEstablishmentCause; sTmsi: FiveGSTmsi | undefined }[] = [];
  #connection: { open: boolean; ue: RadioUe } | undefined;

  constructor(public amf: FakeNasAmf) {}

  establish(
    ue: RadioUe,
    nasPdu: Uint8Array,
    cause: RRCEstablishmentCause,
    sTmsi: FiveGSTmsi | undefined,
  ): RrcConnection {
    this.establishments.push({ cause, sTmsi });
    const state = { open: true, ue };
    this.#connection = state;
    const connection: RrcConnection = {
      get open() {
        return state.open;
      },
      uplink: (pdu) => {
        if (!state.open) return false;
        this.#carry(pdu);
        return true;
      },
    };
    this.#carry(nasPdu);
    return connection;
  }

  camp(ue: RadioUe): void {
    this.camped.add(ue);
  }

  leave(ue: RadioUe): void {
    this.camped.delete(ue);
  }

  /** What the network sends on its own (network-initiated procedures). */
  apply(actions: NetworkAction[]): void {
    const connection = this.#connection;
    if (connection === undefined) return;
    for (const action of actions) {
      switch (action.kind) {
        case 'nas':
          connection.ue.downlink(action.pdu);
          break;
        case 'context-setup':
          connection.ue.contextSetUp(action.kgnb);
          connection.ue.downlink(action.pdu);
          break;
        case 'release':
          connection.open = false;
          this.#connection = undefined;
          connection.ue.released();
          break;
      }
    }
  }

  /** UE Context Release (as after user inactivity): the UE goes idle. */
  release(): void {
    this.apply([{ kind: 'release' }]);
  }

  #carry(pdu: Uint8Array): void {
    void this.amf.uplink(pdu).then((actions) => this.apply(actions));
  }
}

function config(overrides: Partial<UeConfig> = {}): UeConfig {
  return {
    imsi: IMSI,
    plmn: PLMN,
    key: K,
    opc: OPC,
    suci: { scheme: 'null' },
    imeisv: IMEISV,
    securityCapability: ALL_ALGORITHMS,
    requestedNssai: [{ sst: 1 }],
    ...overrides,
  };
}

function setup(
  ueConfig: Partial<UeConfig> = {},
  networkSqn = '000000000000',
  procedureTimers: Partial<UeProcedureTimers> = {},
) {
  const amf = new FakeNasAmf({ [IMSI]: { k: K, opc: OPC, sqn: Buffer.from(networkSqn, 'hex') } });
  const radio = new FakeRadio(amf);
  const timers = steppedTimers();
  const ue = new SimulatedUe({ config: config(ueConfig), radio, timers, procedureTimers });
  return { amf, radio, ue, timers };
}

const uplinkTypes = (ue: SimulatedUe): string[] =>
  ue.log.filter((e) => e.direction === 'uplink').map((e) => e.messageType);

describe('simulated UE against a stand-in network', () => {
  it('initial registration with a null-scheme SUCI: authentication, security mode, accept and complete', async () => {
    const { amf, radio, ue } = setup();
    const contextSetup = ue.next((e) => (e.type === 'context-setup' ? e : undefined));
    const outcome = await ue.register();
    assert.equal(outcome.outcome, 'accepted');
    assert.ok(outcome.outcome === 'accepted');
    assert.equal(outcome.guti?.tmsi, amf.guti?.tmsi);
    assert.deepEqual(outcome.allowedNssai, [{ sst: 1 }]);
    assert.equal(outcome.t3512Seconds, 60 * 60);
    assert.equal((await contextSetup).kgnbMatches, true);
    assert.equal(ue.state, 'registered');
    assert.deepEqual(ue.algorithms, { ciphering: 2, integrity: 2 });
    assert.equal(amf.supi, IMSI);
    assert.equal(amf.imeisv, IMEISV);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(amf.registered, true);
    assert.deepEqual(uplinkTypes(ue), [
      'registrationRequest',
      'authenticationResponse',
      'securityModeComplete',
      'registrationComplete',
    ]);
    assert.deepEqual(radio.establishments, [{ cause: 'mo-Signalling', sTmsi: undefined }]);
    // The initial request carried cleartext IEs only (TS 24.501 4.4.6); the full one came in the SMC Complete.
    const [initial] = amf.received;
    assert.ok(initial?.messageType === 'registrationRequest');
    assert.equal(initial.requestedNssai, undefined);
    assert.equal(initial.ngKsi.ksi, 7);
  });

  for (const scheme of ['A', 'B'] as const) {
    it(`a Profile ${scheme} SUCI is de-concealed by the network's SIDF`, async () => {
      const amf = new FakeNasAmf({ [IMSI]: { k: K, opc: OPC, sqn: Buffer.alloc(6) } });
      const key = scheme === 'A' ? amf.homeNetworkKeys.a : amf.homeNetworkKeys.b;
      const ue = new SimulatedUe({
        config: config({ suci: { scheme, homeNetworkPublicKey: key.publicKey, homeNetworkPublicKeyId: 1 } }),
        radio: new FakeRadio(amf),
      });
      assert.equal((await ue.register()).outcome, 'accepted');
      assert.equal(amf.supi, IMSI);
    });
  }

  it('an unknown subscriber is rejected with #7: the USIM is invalid for 5GS, no more attempts (TS 24.501 5.5.1.2.5)', async () => {
    const { amf, ue, timers } = setup({ imsi: '001010000009999' }, undefined, {
      registrationAttempts: 5,
      t3511: 10_000,
    });
    assert.deepEqual(await ue.register(), {
      outcome: 'rejected',
      cause: 7,
      causeName: '5GS services not allowed (7)',
    });
    assert.equal(ue.state, 'deregistered');
    assert.equal(ue.usimValid, false);
    timers.advance(60_000);
    assert.equal(amf.received.filter((m) => m.messageType === 'registrationRequest').length, 1);
    await assert.rejects(ue.register('suci'), /USIM is invalid for 5GS services/);
  });

  it('a reject cause 5.5.1.2.5 does not list (#9) is an abnormal case: again after T3511 (5.5.1.2.7 d)', async () => {
    const { amf, ue, timers } = setup({ imsi: '001010000009999' }, undefined, {
      registrationAttempts: 3,
      t3511: 10_000,
    });
    amf.unknownIdentityCause = 9;
    const outcome = ue.register();
    for (let attempt = 0; attempt < 2; attempt++) {
      await new Promise((resolve) => setImmediate(resolve));
      timers.advance(10_000);
    }
    assert.deepEqual(await outcome, {
      outcome: 'rejected',
      cause: 9,
      causeName: 'UE identity cannot be derived by the network (9)',
    });
    assert.equal(amf.received.filter((m) => m.messageType === 'registrationRequest').length, 3);
    assert.equal(ue.usimValid, true, 'the counter ran out: the USIM stays valid');
  });

  it('a wrong key: Authentication Failure with MAC failure, then Authentication Reject', async () => {
    const { amf, ue } = setup({ key: Buffer.alloc(16, 0x11) });
    assert.deepEqual(await ue.register(), { outcome: 'authentication-rejected' });
    const failure = amf.received.find((m) => m.messageType === 'authenticationFailure');
    assert.ok(failure?.messageType === 'authenticationFailure');
    assert.equal(failure.fiveGmmCause, 20);
    assert.equal(ue.guti, undefined);
  });

  it('a card ahead of the network: synch failure with AUTS, resynchronisation, then registered', async () => {
    const { amf, ue } = setup({ sqn: Buffer.from('000000200000', 'hex') });
    assert.equal((await ue.register()).outcome, 'accepted');
    assert.deepEqual(amf.received.map((m) => m.messageType).slice(0, 4), [
      'registrationRequest',
      'authenticationFailure',
      'authenticationResponse',
      'securityModeComplete',
    ]);
    assert.equal(amf.authenticationData.resynchronised[0]?.sqnMs.toString('hex'), '000000200000');
  });

  it('idle after release; a service request brings it back with a fresh KgNB; paging does too (mt-Access)', async () => {
    const { radio, ue } = setup();
    await ue.register();
    radio.release();
    assert.equal(ue.connected, false);
    assert.equal(ue.state, 'registered');
    const setupDone = ue.next((e) => (e.type === 'context-setup' ? e : undefined));
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    assert.equal((await setupDone).kgnbMatches, true);
    assert.equal(ue.connected, true);
    radio.release();
    const paged = ue.next((e) => (e.type === 'paged' ? e : undefined));
    for (const camped of radio.camped) camped.paged();
    assert.deepEqual((await paged).outcome, { outcome: 'accepted' });
    const last = radio.establishments.at(-1);
    assert.equal(last?.cause, 'mt-Access');
    assert.equal(last.sTmsi?.tmsi, ue.guti?.tmsi);
  });

  it('deregistration: normal (accepted) and switch-off (no accept)', async () => {
    const { amf, ue, radio } = setup();
    await ue.register();
    assert.deepEqual(await ue.deregister(), { outcome: 'accepted' });
    assert.equal(ue.state, 'deregistered');
    assert.equal(ue.connected, false);
    assert.equal(amf.registered, false);
    // The 5G-GUTI is kept: the network knows it, so no identity request this time.
    assert.equal((await ue.register()).outcome, 'accepted');
    radio.release();
    assert.deepEqual(await ue.deregister({ switchOff: true }), { outcome: 'switched-off' });
    assert.equal(ue.state, 'deregistered');
  });

  it('registration with a 5G-GUTI the network does not know: identity request, SUCI, registered', async () => {
    const { ue, radio } = setup();
    await ue.register();
    await ue.deregister();
    // Another network that has never seen the GUTI, with the subscriber's SQN where the first left it.
    const sqn = radio.amf.authenticationData.subscribers.get(IMSI)?.sqn ?? Buffer.alloc(6);
    radio.amf = new FakeNasAmf({ [IMSI]: { k: K, opc: OPC, sqn } });
    assert.equal((await ue.register()).outcome, 'accepted');
    assert.deepEqual(uplinkTypes(ue).slice(-5), [
      'registrationRequest',
      'identityResponse',
      'authenticationResponse',
      'securityModeComplete',
      'registrationComplete',
    ]);
  });

  it('network-initiated deregistration and a configuration update are answered', async () => {
    const { amf, radio, ue } = setup();
    await ue.register();
    const updated = ue.next((e) => (e.type === 'configuration-update' ? e : undefined));
    radio.apply(amf.configurationUpdate());
    assert.equal((await updated).guti?.tmsi, amf.guti?.tmsi);
    assert.equal(uplinkTypes(ue).at(-1), 'configurationUpdateComplete');
    const gone = ue.next((e) => (e.type === 'deregistered-by-network' ? e : undefined));
    radio.apply(amf.deregistrationRequest());
    assert.deepEqual(await gone, {
      type: 'deregistered-by-network',
      cause: 3,
      reRegistrationRequired: false,
    });
    assert.equal(ue.state, 'deregistered');
    assert.equal(uplinkTypes(ue).at(-1), 'deregistrationAcceptUeTerminated');
  });

  it('periodic registration updating when T3512 expires in idle; mobility updating on demand', async () => {
    const { radio, ue, timers } = setup();
    await ue.register();
    radio.release();
    // The procedure answers a turn of the loop later: listening after the expiry misses nothing (and the
    // stepped clock does not expire the listener's own timeout).
    timers.advance(60 * 60 * 1000);
    const periodic = await ue.next((e) => (e.type === 'periodic-registration' ? e : undefined));
    assert.equal(periodic.outcome.outcome, 'accepted');
    const request = ue.log.findLast((e) => e.messageType === 'registrationRequest');
    // 5GS registration type "periodic registration updating" (3) beside ngKSI 1, integrity-protected (4.4.6).
    assert.equal(request?.plain[3], 0x13);
    assert.equal(request.pdu[1], 1);
    radio.release();
    assert.equal((await ue.registrationUpdate('mobility')).outcome, 'accepted');
  });

  it('drops replayed, garbage and unprotected downlink NAS; the network drops a replayed uplink', async () => {
    const { amf, radio, ue } = setup();
    await ue.register();
    const accept = ue.log.find((e) => e.messageType === 'registrationAccept');
    assert.ok(accept);
    const discards: string[] = [];
    ue.on((e) => void (e.type === 'discarded' && discards.push(e.reason)));
    radio.apply([
      { kind: 'nas', pdu: accept.pdu },
      { kind: 'nas', pdu: Uint8Array.of(0x7e, 0x02, 1, 2) },
      { kind: 'nas', pdu: Uint8Array.of(0x7e, 0x00, 0x54) },
    ]);
    assert.equal(discards.length, 3);
    assert.match(discards[0] ?? '', /^replay/);
    assert.match(discards[2] ?? '', /^plain configurationUpdateCommand/);
    assert.equal(ue.replayLastUplink(), true);
    assert.equal(ue.sendGarbage(), true);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(amf.discarded, ['replay', 'decode: message-too-short']);
  });

  it('a UE that stops answering after the authentication request fails by T3510', async () => {
    const { amf, ue, timers } = setup({ misbehaviour: { silentAfter: 'authenticationRequest' } });
    const outcome = ue.register();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(
      amf.received.map((m) => m.messageType),
      ['registrationRequest'],
    );
    timers.advance(15_000);
    assert.deepEqual(await outcome, { outcome: 'failed', reason: 'T3510 expired' });
    assert.equal(ue.state, 'deregistered');
  });

  it('a Security Mode Command replaying other capabilities is rejected with cause 23', async () => {
    const { amf, ue } = setup();
    // The network replays a capability list without NEA3: a bidding-down the UE must refuse (TS 33.501 6.7.2).
    amf.replayedCapabilities = { ea: [0, 1, 2], ia: [0, 1, 2, 3] };
    const rejected = ue.next((e) =>
      e.type === 'nas' && e.exchange.messageType === 'securityModeReject' ? e.exchange : undefined,
    );
    void ue.register();
    assert.equal((await rejected).plain.at(-1), 23);
  });

  it('the IMEI of an IMEISV ends in its Luhn check digit (TS 23.003 6.2.1)', () => {
    // IMEI 49015420323751 check digit 8 (the example of TS 23.003 Annex B).
    assert.equal(imeiOf('4901542032375100'), '490154203237518');
  });
});
