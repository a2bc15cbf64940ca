import assert from 'node:assert/strict';
import pino from 'pino';
import type { AmfSettings } from '../../../src/network/amf/amf-settings.ts';
import { judgeAbstractSyntax } from '../../../src/network/amf/n2/abstract-syntax.ts';
import { readNgapHeader } from '../../../src/network/ngap/ngap-header.ts';
import type { RadioLink } from '../../../src/network/amf/n2/ue-signalling.ts';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../../src/network/ngap/ngap-codec.ts';
import type { FakeN2Association } from '../../helpers/fake-n2-transport.ts';
import type { InboundMessage } from '../../../src/network/transport/n2-transport.ts';
import { register, settle, type StepRadio } from './amf-steps.ts';
import { ngSetupRequest } from './messages.ts';
import {
  countingUserPlane,
  encodeTransfer,
  nasNonDeliveryIndication,
  setupResponse,
  TRANSFERS,
  type Ids,
} from './session-fuzz-messages.ts';
import {
  createAmfHarness,
  IMSI,
  TestUe,
  ueContextReleaseComplete,
  uplinkNasTransport,
  type AmfHarness,
} from './test-ue.ts';
import { ieValue } from '../../helpers/ie-value.ts';

/**
 * The session fuzz's rig (session-fuzz.test.ts): an AMF with its SMF over a counting UPF, two gNBs, and
 * one registered UE with PDU sessions. The gNBs reach the AMF either over N2 (the fake transport, the
 * association, its records) or straight through the UE-associated signalling seam (`UeSignalling`,
 * the handlers the association dispatches to), which is what lets 100,000 inputs per family fit the
 * CPU budget (docs/testing.md, "Session fuzz").
 */

export const PSIS = [1, 2, 3, 4];
const SECOND_IMSI = '001010000000002';

/** A gNB as the fuzz drives it. */
export interface FuzzRadio extends StepRadio {
  types(): string[];
  /** False once its association ended (over N2, a mutated message may end it). */
  up(): boolean;
}

export type Mode = 'n2' | 'direct';

export interface Rig {
  mode: Mode;
  h: AmfHarness;
  ue: TestUe;
  /** The radio serving the UE's connection now and its ids there; the other radio (Xn target). */
  serving: FuzzRadio;
  other: FuzzRadio;
  ids: Ids;
  /** Every line the AMF and N2 logged at level error (a failed handler, a failed procedure). */
  errors: string[];
  upf: ReturnType<typeof countingUserPlane>;
  /**
   * Inputs the direct path did not hand to a handler: undecodable, refused for their abstract syntax
   * (the association's judgement, TS 38.413 10.3), or of no UE-associated procedure.
   */
  skipped: { undecodable: number; refused: number; unhandled: number };
  nextRan: number;
}

const KINDS = {
  'initiating-message': 'initiatingMessage',
  'successful-outcome': 'successfulOutcome',
  'unsuccessful-outcome': 'unsuccessfulOutcome',
} as const;

/** What the AMF sent, typed by the PDU's header and decoded only when a check reads it. */
function lazyEntry(streamId: number, bytes: Uint8Array): StepRadio['received'][number] {
  const header = readNgapHeader(bytes);
  const messageType =
    header === undefined
      ? 'Unknown'
      : ngapMessageType({
          choice: KINDS[header.triggeringMessage],
          value: { procedureCode: header.procedureCode },
        } as NGAPPDU);
  let pdu: NGAPPDU | undefined;
  return {
    streamId,
    bytes,
    messageType,
    get pdu() {
      if (pdu === undefined) {
        const decoded = decodeNgapPdu(bytes);
        if (!decoded.ok) throw new Error(`the AMF sent an undecodable ${messageType}: ${decoded.error}`);
        pdu = decoded.value;
      }
      return pdu;
    },
  };
}

/** A gNB over N2 that has completed NG Setup, like the harness's radio but decoding lazily. */
async function n2Radio(h: AmfHarness, gnbId: number): Promise<FuzzRadio> {
  const received: StepRadio['received'] = [];
  const association = (await h.network
    .transport()
    .connect(
      { remote: [{ address: '127.0.0.10', port: 38412 }], local: { addresses: ['127.0.0.1'] } },
      () => ({
        message: (message: InboundMessage) =>
          void received.push(lazyEntry(message.streamId, message.payload)),
        event: () => undefined,
      }),
    )) as FakeN2Association;
  const radio: FuzzRadio = {
    received,
    send(pdu, streamId = 0) {
      const result = association.send(streamId, 60, pdu instanceof Uint8Array ? pdu : encodeNgapPdu(pdu));
      if (!result.ok) throw new Error(`send refused: ${result.error}`);
    },
    types: () => received.map((r) => r.messageType),
    up: () => association.state === 'established',
  };
  radio.send(ngSetupRequest({ gnbId, name: `gnb-${gnbId}` }));
  await h.settled();
  assert.deepEqual(radio.types(), ['NGSetupResponse']);
  received.length = 0;
  return radio;
}

/**
 * A gNB on the UE-associated signalling seam: what it sends is decoded, judged as the association
 * judges it (abstract syntax, TS 38.413 10.3: a refused message's answer comes back as over N2) and
 * handed to the handler of its message type; what the AMF sends it is encoded (it must encode) and
 * kept as the PDU.
 */
function directRadio(h: AmfHarness, gnbId: number, skipped: Rig['skipped']): FuzzRadio {
  const received: StepRadio['received'] = [];
  const link: RadioLink = {
    id: `001:01:d${gnbId}`,
    name: `gnb-${gnbId}`,
    outboundStreams: 16,
    supportedTais: [
      { tai: { plmnID: { mcc: '001', mnc: '01' }, tac: '000001' }, snssais: [{ sst: 1, sd: '010203' }] },
    ],
    send(pdu, streamId) {
      received.push({ streamId, bytes: encodeNgapPdu(pdu), pdu, messageType: ngapMessageType(pdu) });
      return true;
    },
  };
  h.amf.signalling.radioReady(link);
  return {
    received,
    send(input, streamId = 0) {
      const decoded =
        input instanceof Uint8Array ? decodeNgapPdu(input) : { ok: true as const, value: input };
      if (!decoded.ok || decoded.value.choice === null) return void (skipped.undecodable += 1);
      const verdict = judgeAbstractSyntax(decoded.value);
      if (verdict.action === 'reject') {
        if (verdict.answer !== undefined) link.send(verdict.answer, streamId);
        return void (skipped.refused += 1);
      }
      const handler = h.amf.signalling.handlers.get(ngapMessageType(decoded.value));
      if (handler === undefined) return void (skipped.unhandled += 1);
      handler(decoded.value, link, streamId);
    },
    types: () => received.map((r) => r.messageType),
    up: () => true,
  };
}

const radio = (rig: Pick<Rig, 'mode' | 'h' | 'skipped'>, gnbId: number): Promise<FuzzRadio> | FuzzRadio =>
  rig.mode === 'n2' ? n2Radio(rig.h, gnbId) : directRadio(rig.h, gnbId, rig.skipped);

export async function createRig(mode: Mode, settings: Partial<AmfSettings> = {}): Promise<Rig> {
  const errors: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
  const upf = countingUserPlane();
  const h = await createAmfHarness(settings, {}, { userPlane: upf, logger });
  h.subscribers.set(SECOND_IMSI, { sqn: 0n });
  h.subscriptions.set(SECOND_IMSI, structuredClone({ ...h.subscriptions.get(IMSI)!, imsi: SECOND_IMSI }));
  const skipped = { undecodable: 0, refused: 0, unhandled: 0 };
  const serving = await radio({ mode, h, skipped }, 1);
  const other = await radio({ mode, h, skipped }, 2);
  const ue = new TestUe();
  const { ids } = await register(h, serving, ue);
  const rig: Rig = { mode, h, ue, serving, other, ids, errors, upf, skipped, nextRan: 1000 };
  await ensureActive(rig, PSIS);
  return rig;
}

/** PDU Session Establishment Request (IPv4, DNN internet, the slice) in a protected UL NAS Transport. */
export function establishment(ue: TestUe, psi: number, pti = psi): Uint8Array {
  return ue.protect({
    messageType: 'ulNasTransport',
    payloadContainerType: 1,
    payloadContainer: encodeNasMessage({
      messageType: 'pduSessionEstablishmentRequest',
      pduSessionId: psi,
      pti,
      integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
      pduSessionType: 1,
    }),
    pduSessionId: psi,
    requestType: 1,
    dnn: 'internet',
    sNssai: { sst: 1, sd: 0x010203 },
  });
}

/** The UE's PDU sessions the SMF holds in one of `states`. */
const sessionsIn = (rig: Rig, ...states: string[]) =>
  rig.h
    .smf!.sessionsOf(IMSI)
    .filter((s) => states.includes(s.state))
    .map((s) => s.pduSessionId);

/**
 * Valid establishments, then Setup Responses, until these sessions are active; with `settingUp`, every
 * one established anew and left waiting for its Setup Response.
 */
export async function ensureActive(rig: Rig, psis: readonly number[], settingUp = false): Promise<void> {
  const missing = psis.filter((psi) => settingUp || !sessionsIn(rig, 'active').includes(psi));
  if (missing.length === 0) return;
  for (const psi of missing) rig.serving.send(uplinkNasTransport(rig.ids, establishment(rig.ue, psi)), 1);
  await settle(rig.h);
  if (settingUp) return;
  const asked = missing.filter((psi) => sessionsIn(rig, 'setting-up').includes(psi));
  if (asked.length === 0) return;
  const transfer = encodeTransfer(TRANSFERS.setupResponse);
  rig.serving.send(
    setupResponse(
      rig.ids,
      asked.map((psi) => ({ psi, transfer })),
    ),
    1,
  );
  await settle(rig.h);
}

/** What the AMF sent each radio during a batch. */
export type Answers = Map<FuzzRadio, StepRadio['received']>;

export const answersOf = (rig: Rig): Answers =>
  new Map([
    [rig.serving, [...rig.serving.received]],
    [rig.other, [...rig.other.received]],
  ]);

type NamedIes = { protocolIEs: { name: string | null; value: unknown }[] };

/** Where a Path Switch Request Acknowledge of the batch moved the UE's connection (TS 38.413 8.4.4.2). */
function switchedTo(rig: Rig, answers: Answers): { radio: FuzzRadio; ran: number }[] {
  return [...answers].flatMap(([radio, received]) =>
    received.flatMap(({ pdu, messageType }) => {
      if (messageType !== 'PathSwitchRequestAcknowledge' || pdu.choice !== 'successfulOutcome') return [];
      const ies = (pdu.value.value as unknown as NamedIes).protocolIEs;
      const amf = ies.find((ie) => ie.name === 'AMF-UE-NGAP-ID')?.value;
      const ran = ies.find((ie) => ie.name === 'RAN-UE-NGAP-ID')?.value;
      return amf === rig.ids.amf && typeof ran === 'number' ? [{ radio, ran }] : [];
    }),
  );
}

/**
 * After a batch: finds which radio and RAN UE NGAP ID serve the UE now (NAS Non Delivery Indication for
 * it draws Error Indication only where the AMF does not know the pair, TS 38.413 10.6), else registers the UE
 * again. Over N2, a radio whose association a mutated message ended connects again, and one the AMF
 * accepted a (mutated) NG Setup from is set up again under its own node id. True when the UE was lost.
 */
export async function locate(rig: Rig, answers: Answers): Promise<boolean> {
  for (const [key, gnbId] of [
    ['serving', 1],
    ['other', 2],
  ] as const) {
    const r = rig[key];
    if (!r.up()) rig[key] = await radio(rig, gnbId);
    else if ((answers.get(r) ?? []).some((a) => a.messageType === 'NGSetupResponse'))
      r.send(ngSetupRequest({ gnbId, name: `gnb-${gnbId}` }));
  }
  await settle(rig.h);
  const candidates = [{ radio: rig.serving, ran: rig.ids.ran }, ...switchedTo(rig, answers).reverse()];
  for (const { radio: r, ran } of candidates) {
    if (!r.up()) continue;
    r.received.length = 0;
    r.send(nasNonDeliveryIndication({ amf: rig.ids.amf, ran }), 1);
    await settle(rig.h);
    if (r.received.some((a) => a.messageType === 'ErrorIndication')) continue;
    if (r !== rig.serving) [rig.serving, rig.other] = [rig.other, rig.serving];
    rig.ids = { amf: rig.ids.amf, ran };
    return false;
  }
  rig.ue = new TestUe({ ranUeNgapId: ++rig.nextRan });
  rig.ids = (await register(rig.h, rig.serving, rig.ue)).ids;
  return true;
}

/** Empties what the harness and radios keep between batches (the records are not under test here). */
export function forgetRecords(rig: Rig): void {
  rig.serving.received.length = 0;
  rig.other.received.length = 0;
  rig.h.radioEvents.length = 0;
  rig.h.radioLogs.length = 0;
  rig.h.subscriberLogs.length = 0;
  rig.ue.received.length = 0;
}

/**
 * The bounds a batch of `batch` inputs must keep: at most the two devices' UE contexts, no more
 * connections than inputs, at most 15 sessions per UE, the UPF holding exactly the sessions not
 * being released, and the timers those need.
 */
export function assertBounded(rig: Rig, batch: number): void {
  const { ues, connections } = rig.h.amf.counts();
  const smf = rig.h.smf!.counts();
  assert.ok(ues <= 2 && connections <= 2 + batch, `${ues} UEs, ${connections} connections`);
  assert.ok(smf.sessions <= 15 * ues, `${smf.sessions} sessions for ${ues} UEs`);
  assert.equal(smf.teids, rig.upf.held(), "the UPF holds exactly the SMF's live sessions");
  const timers = rig.h.clock.pendingTimers();
  assert.ok(timers <= 64 + connections, `${timers} timers`);
}

/**
 * After the fuzz: every timer runs out (T3591 and the T3592 of the release its last expiry starts,
 * 2 x 5 x 16 s; the NAS timers; the 10 s release guard) and the radio completes each UE Context Release
 * the AMF asked for; then the fuzzed UE is the only one, with at most its connection (a mutated message
 * may have asked for its release), no session waits for a Release Complete, the UPF holds exactly the
 * SMF's sessions and at most two timers are left.
 */
export async function drain(rig: Rig): Promise<void> {
  for (let step = 0; step < 20; step++) {
    rig.h.clock.advance(10_000);
    await settle(rig.h);
    for (const r of [rig.serving, rig.other])
      for (const { pdu, messageType } of r.received.splice(0)) {
        if (messageType !== 'UEContextReleaseCommand' || pdu.choice !== 'initiatingMessage') continue;
        const ids = ieValue((pdu.value.value as unknown as NamedIes).protocolIEs as never, 'UE-NGAP-IDs') as
          { choice: string; value: { aMFUENGAPID: number; rANUENGAPID: number } } | undefined;
        if (ids?.choice === 'uE-NGAP-ID-pair')
          r.send(ueContextReleaseComplete({ amf: ids.value.aMFUENGAPID, ran: ids.value.rANUENGAPID }), 1);
      }
    await settle(rig.h);
  }
  const smf = rig.h.smf!;
  const { ues, connections } = rig.h.amf.counts();
  assert.ok(ues === 1 && connections <= 1, `the fuzzed UE alone: ${ues} UEs, ${connections} connections`);
  assert.equal(rig.h.amf.handoversInProgress(), 0, 'no N2 handover left');
  assert.equal(smf.handoversInProgress(), 0, 'the SMF holds no handover');
  assert.deepEqual(sessionsIn(rig, 'releasing'), [], 'no session waits for its Release Complete');
  assert.equal(smf.counts().teids, rig.upf.held());
  assert.ok(rig.h.clock.pendingTimers() <= 2, `${rig.h.clock.pendingTimers()} timers left`);
}

/** A new device registers and gets a session: the AMF and SMF still serve. */
export async function stillServes(rig: Rig): Promise<void> {
  const ue = new TestUe({ imsi: SECOND_IMSI, ranUeNgapId: ++rig.nextRan });
  const { ids } = await register(rig.h, rig.serving, ue);
  const from = rig.serving.received.length;
  rig.serving.send(uplinkNasTransport(ids, establishment(ue, 5)), 1);
  await settle(rig.h);
  const setup = rig.serving.received
    .slice(from)
    .find((r) => r.messageType === 'PDUSessionResourceSetupRequest');
  assert.ok(setup !== undefined, 'a PDU Session Resource Setup Request for the new device');
  rig.serving.send(setupResponse(ids, [{ psi: 5, transfer: encodeTransfer(TRANSFERS.setupResponse) }]), 1);
  await settle(rig.h);
  assert.deepEqual(rig.h.smf!.sessionsOf(SECOND_IMSI), [{ pduSessionId: 5, state: 'active' }]);
  assert.deepEqual(rig.errors, []);
}
