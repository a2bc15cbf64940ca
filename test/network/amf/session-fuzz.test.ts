import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  decodeNasMessage,
  encodeNasMessage,
  type FiveGsmMessage,
  type NasMessage,
  type NasMessageType,
} from '../../../src/network/nas/index.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { encodeNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { SM_CAUSE } from '../../../src/network/smf/sm-cause.ts';
import { INSTANCES } from '../nas/instances.ts';
import { settle } from './amf-steps.ts';
import {
  encodeTransfer,
  handoverCancel,
  handoverFailure,
  handoverNotify,
  handoverRequestAcknowledge,
  handoverRequired,
  modifyIndication,
  modifyResponse,
  pathSwitchRequest,
  releaseResponse,
  setupResponse,
  TRANSFERS,
  uplinkRanStatusTransfer,
  type Items,
  type Transfer,
} from './session-fuzz-messages.ts';
import {
  mutateBytes,
  mutateNas,
  mutateNgap,
  mutateValue,
  seeded,
  type Random,
} from './session-fuzz-mutations.ts';
import {
  answersOf,
  assertBounded,
  createRig,
  drain,
  ensureActive,
  forgetRecords,
  locate,
  PSIS,
  stillServes,
  type Answers,
  type FuzzRadio,
  type Rig,
} from './session-fuzz-rig.ts';
import { uplinkNasTransport } from './test-ue.ts';

/**
 * A protocol fuzz of session signalling and handover through a valid gNB (issue 28): per message family
 * INPUTS inputs, each a valid message mutated (structure-aware: length fields, IEs duplicated, deleted,
 * inserted or moved, a field given a random value; then bit flips, truncation, random bytes) from a
 * fixed seed. The 5GSM families go inside a valid integrity-protected and ciphered UL NAS Transport of
 * a registered UE; the NGAP families come from the radio that serves it. Afterwards nothing failed
 * (no error logged, no exception, no unhandled rejection), the AMF's and SMF's tables and the heap are
 * bounded, and a new device still registers and gets a session. docs/testing.md, "Session fuzz".
 */

const INPUTS = 100_000;
/**
 * Of those, the first ones go over N2; the rest straight to the UE-associated handlers. Family 7 sends
 * half over N2: most of its messages have no UE-associated handler (N2 handover is not served), so
 * only the association's handling of them (TS 38.413 10.3.4.1) is there to exercise.
 */
const N2_INPUTS = 10_000;
/** Inputs sent before the AMF is let to run and the batch's answers checked. */
const BATCH = 250;

/** `global.gc`, to weigh the heap without garbage. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

/**
 * Runs INPUTS inputs of one family from `seed`: the first `n2Inputs` over N2 (transport, association,
 * records), the rest on the UE-associated signalling seam, each part on a fresh rig. `send` sends one
 * input; after each batch `check` reads the answers. A failure names the seed and the batch.
 */
async function fuzz(
  t: TestContext,
  seed: number,
  send: (random: Random, rig: Rig) => void,
  options: {
    before?: (rig: Rig) => Promise<void>;
    check?: (rig: Rig, answers: Answers, lost: boolean) => void;
    n2Inputs?: number;
  } = {},
): Promise<void> {
  const n2Inputs = options.n2Inputs ?? N2_INPUTS;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => void rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  const random = seeded(seed);
  const cpu = process.cpuUsage();
  let sent = 0;
  try {
    for (const [mode, inputs] of [
      ['n2', n2Inputs],
      ['direct', INPUTS - n2Inputs],
    ] as const) {
      const rig = await createRig(mode);
      try {
        let heapAfterWarmUp: number | undefined;
        for (let done = 0; done < inputs; done += BATCH) {
          const where = `seed 0x${seed.toString(16)}, inputs ${sent}..${sent + BATCH - 1} (${mode})`;
          try {
            await options.before?.(rig);
            forgetRecords(rig);
            for (let i = 0; i < BATCH; i++) send(random, rig);
            sent += BATCH;
            await settle(rig.h);
            assert.deepEqual(rig.errors, [], 'nothing failed');
            assert.deepEqual(rejections, [], 'no unhandled rejection');
            assertBounded(rig, BATCH);
            const answers = answersOf(rig);
            options.check?.(rig, answers, await locate(rig, answers));
          } catch (error) {
            // The seed and the batch replay it (every input comes from the one PRNG, in order).
            throw new Error(`${where}: ${String(error)}`, { cause: error });
          }
          if (done === 10 * BATCH) heapAfterWarmUp = heapMb();
        }
        forgetRecords(rig);
        const grown = heapAfterWarmUp === undefined ? 0 : heapMb() - heapAfterWarmUp;
        const { undecodable, refused, unhandled } = rig.skipped;
        t.diagnostic(
          `${mode}: ${inputs} inputs, heap grew ${grown.toFixed(1)} MB` +
            (mode === 'direct'
              ? `; not handed to a handler: ${undecodable} undecodable, ${refused} refused (abstract ` +
                `syntax), ${unhandled} of no UE-associated procedure`
              : ''),
        );
        assert.ok(grown < 16, `seed 0x${seed.toString(16)} (${mode}): the heap grew ${grown.toFixed(1)} MB`);
        await drain(rig);
        await stillServes(rig);
      } finally {
        await rig.h.close();
      }
    }
    const used = process.cpuUsage(cpu);
    t.diagnostic(
      `seed 0x${seed.toString(16)}: ${sent} inputs, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU`,
    );
    assert.equal(sent, INPUTS, 'every input sent');
  } finally {
    process.off('unhandledRejection', onRejection);
  }
}

// ---- the 5GSM families

interface SmTemplate {
  type: NasMessageType;
  bytes: Uint8Array;
}

const sm = (message: FiveGsmMessage): SmTemplate => ({
  type: message.messageType,
  bytes: encodeNasMessage(message),
});

/** A 5GSM message of `templates`, valid, mutated or random, in a valid protected UL NAS Transport. */
function sendSm(templates: readonly SmTemplate[]) {
  return (random: Random, rig: Rig): void => {
    const template = random.pick(templates);
    const psi = random.pick(PSIS);
    const valid = new Uint8Array(template.bytes);
    valid[1] = psi;
    const kind = random.int(20);
    const payload =
      kind < 2
        ? valid
        : kind < 13
          ? mutateNas(random, template.type, valid)
          : kind < 19
            ? mutateBytes(random, valid)
            : random.bytes(random.int(40));
    // The UL NAS Transport's own fields (TS 24.501 8.2.10), mostly those a UE sends, sometimes any.
    const odd = random.chance(0.1);
    const ulPsi = odd ? random.pick([undefined, 0, 16, 255, random.int(256)]) : payload[1];
    const message: NasMessage = {
      messageType: 'ulNasTransport',
      payloadContainerType: odd && random.chance(0.3) ? random.int(16) : 1,
      payloadContainer: payload.length === 0 ? Uint8Array.of(0) : payload,
      ...(ulPsi === undefined ? {} : { pduSessionId: ulPsi }),
      ...(odd && random.chance(0.5) ? { requestType: random.int(8) } : { requestType: 1 }),
      ...(odd && random.chance(0.3)
        ? {}
        : { dnn: odd ? random.pick(['x', 'ims', 'a.b', 'i'.repeat(63), 'internet']) : 'internet' }),
      ...(odd && random.chance(0.3)
        ? { sNssai: { sst: random.int(256) } }
        : { sNssai: { sst: 1, sd: 0x010203 } }),
    };
    rig.serving.send(uplinkNasTransport(rig.ids, rig.ue.protect(message)), 1);
  };
}

/** The 5GSM messages the network sends (TS 24.501 8.3), for the answers of the 5GSM families. */
const SM_ANSWERS = new Set<string>([
  'pduSessionEstablishmentAccept',
  'pduSessionEstablishmentReject',
  'pduSessionModificationCommand',
  'pduSessionModificationReject',
  'pduSessionReleaseCommand',
  'pduSessionReleaseReject',
  'fiveGsmStatus',
]);
const SM_CAUSES = new Set<number>(Object.values(SM_CAUSE));

/** The NAS-PDU a downlink NGAP message carries: alone, or in the first item of a session request. */
function downlinkNas(pdu: NGAPPDU): Uint8Array | undefined {
  if (pdu.choice !== 'initiatingMessage') return undefined;
  const m = pdu.value;
  if (m.name === 'DownlinkNASTransport') return ieValue(m.value.protocolIEs, 'NAS-PDU');
  if (m.name === 'PDUSessionResourceSetup')
    return ieValue(m.value.protocolIEs, 'PDUSessionResourceSetupListSUReq')?.[0]?.pDUSessionNASPDU;
  if (m.name === 'PDUSessionResourceModify')
    return ieValue(m.value.protocolIEs, 'PDUSessionResourceModifyListModReq')?.[0]?.nASPDU;
  if (m.name === 'PDUSessionResourceRelease') return ieValue(m.value.protocolIEs, 'NAS-PDU');
  return undefined;
}

/**
 * Every answer to the UE is protected so that it verifies, and is a 5GSM message of the network with a
 * 5GSM cause it defines, or the payload sent back with #90 "payload was not forwarded" (5.4.5.2.5).
 */
function checkSmAnswers(rig: Rig, answers: Answers): void {
  const allowed = new Set([
    'DownlinkNASTransport',
    'PDUSessionResourceSetupRequest',
    'PDUSessionResourceModifyRequest',
    'PDUSessionResourceReleaseCommand',
  ]);
  for (const { pdu, messageType } of answers.get(rig.serving) ?? []) {
    assert.ok(allowed.has(messageType), messageType);
    const nas = downlinkNas(pdu);
    if (nas === undefined) continue;
    const transport = rig.ue.open(nas);
    assert.equal(transport.messageType, 'dlNasTransport');
    if (transport.fiveGmmCause !== undefined) {
      assert.equal(transport.fiveGmmCause, 90);
      continue;
    }
    const decoded = decodeNasMessage(transport.payloadContainer);
    assert.ok(decoded.ok, 'the network sends 5GSM messages that decode');
    assert.ok(SM_ANSWERS.has(decoded.message.messageType), decoded.message.messageType);
    const cause = (decoded.message as { fiveGsmCause?: number }).fiveGsmCause;
    if (cause !== undefined) assert.ok(SM_CAUSES.has(cause), `5GSM cause #${cause}`);
  }
}

const establishmentRequests = [
  sm({ ...INSTANCES.pduSessionEstablishmentRequest, pduSessionType: 1 }),
  sm(INSTANCES.pduSessionEstablishmentRequest),
  sm({
    messageType: 'pduSessionEstablishmentRequest',
    pduSessionId: 1,
    pti: 2,
    integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
  }),
];

const modifications = [
  sm(INSTANCES.pduSessionModificationRequest),
  sm({ messageType: 'pduSessionModificationRequest', pduSessionId: 1, pti: 3 }),
  sm(INSTANCES.pduSessionModificationComplete),
  sm(INSTANCES.pduSessionModificationCommandReject),
  sm({ ...INSTANCES.pduSessionModificationCommandReject, fiveGsmCause: SM_CAUSE.invalidPduSessionIdentity }),
];

const releases = [
  sm(INSTANCES.pduSessionReleaseRequest),
  sm({ messageType: 'pduSessionReleaseRequest', pduSessionId: 1, pti: 4 }),
  sm(INSTANCES.pduSessionReleaseComplete),
];

// ---- the NGAP families

/** One message of an NGAP family: built from its items' transfers (and container) for the rig. */
interface NgapTemplate {
  name: string;
  transfers: readonly Transfer[];
  /** `valid`: the message goes unmutated outside its transfers (see `sendNgap`). */
  build(rig: Rig, items: Items, container: Uint8Array, valid: boolean): NGAPPDU;
  /** The radio that sends it (the serving one unless said). */
  from?: (rig: Rig) => FuzzRadio;
}

/** Donor IEs for insertion: every template once, encoded. */
const donors = (rig: Rig, templates: readonly NgapTemplate[]): Uint8Array[] =>
  templates.map((t) =>
    encodeNgapPdu(
      t.build(
        rig,
        items(t, [1], () => undefined),
        Uint8Array.of(1, 2),
        false,
      ),
    ),
  );

function items(
  template: NgapTemplate,
  psis: readonly number[],
  mutated: (i: number) => Uint8Array | undefined,
): Items {
  if (template.transfers.length === 0) return [];
  return psis.map((psi, i) => {
    const transfer = template.transfers[i % template.transfers.length]!;
    return { psi, transfer: mutated(i) ?? encodeTransfer(transfer) };
  });
}

/** A transfer with one field given a random value, or its bytes mutated when the encoder refuses it. */
function mutatedTransfer(random: Random, transfer: Transfer): Uint8Array {
  if (random.chance(0.5)) {
    try {
      return encodeTransfer(transfer, mutateValue(random, transfer.value));
    } catch {
      // A value outside the ASN.1 constraints: the radio could not send it either.
    }
  }
  return mutateBytes(random, encodeTransfer(transfer));
}

/** Counts of the valid-outer inputs of a batch that must each draw one answer. */
interface Expected {
  pathSwitch: Map<number, number>;
  handoverRequired: number;
}

/**
 * A message of `templates`: valid; a transfer (or the transparent container) mutated inside a valid
 * message; a field of the message given a random value; or the encoded message mutated.
 */
function sendNgap(templates: readonly NgapTemplate[], expected: Expected) {
  let donorBytes: Uint8Array[] | undefined;
  return (random: Random, rig: Rig): void => {
    donorBytes ??= donors(rig, templates);
    const template = random.pick(templates);
    const psis = Array.from({ length: 1 + random.int(2) }, () =>
      random.chance(0.9) ? random.pick(PSIS) : random.pick([0, 5, 15, 16, 255]),
    );
    const kind = random.int(10);
    const valid = kind < 4 || kind === 9;
    const target = kind < 4 ? random.int(psis.length + 1) : -1;
    const list = items(template, psis, (i) =>
      i === target ? mutatedTransfer(random, template.transfers[i % template.transfers.length]!) : undefined,
    );
    const container =
      target === psis.length
        ? mutateBytes(random, Uint8Array.of(0x40, 1, 2, 3))
        : Uint8Array.of(0x40, 1, 2, 3);
    const pdu = template.build(rig, list, container, valid);
    let bytes: Uint8Array | undefined;
    if (kind === 4) {
      try {
        bytes = encodeNgapPdu(mutateValue(random, pdu));
      } catch {
        bytes = undefined;
      }
    } else if (!valid) {
      const encoded = encodeNgapPdu(pdu);
      bytes = kind < 8 ? mutateNgap(random, encoded, donorBytes) : mutateBytes(random, encoded);
    }
    if (bytes === undefined) {
      // Valid outside (the transfers aside): the procedure's answer must come.
      if (pdu.choice === 'initiatingMessage' && pdu.value.name === 'PathSwitchRequest') {
        const ran = ieValue(pdu.value.value.protocolIEs, 'RAN-UE-NGAP-ID')!;
        expected.pathSwitch.set(ran, (expected.pathSwitch.get(ran) ?? 0) + 1);
      }
      if (pdu.choice === 'initiatingMessage' && pdu.value.name === 'HandoverPreparation')
        expected.handoverRequired += 1;
      bytes = encodeNgapPdu(pdu);
    }
    // SCTP carries no empty message (RFC 9260 6.1): the radio sends at least one octet.
    (template.from?.(rig) ?? rig.serving).send(bytes.length === 0 ? random.bytes(1) : bytes, 1);
  };
}

/**
 * Each valid-outer Path Switch Request got one answer (Acknowledge or Failure, TS 38.413 8.4.4) naming
 * its RAN UE NGAP ID; each valid-outer Handover Required, while the UE's connection stayed, went on: a
 * Handover Preparation Failure or Command to the source (8.4.1), a Handover Request to the target
 * (8.4.2) whose answer or guard ends it (the drain checks that none is left), or a Handover Cancel
 * ended it unanswered (8.4.5).
 */
function checkProcedures(expected: Expected) {
  return (_rig: Rig, answers: Answers, lost: boolean): void => {
    const got = new Map<number, number>();
    let handoversGoingOn = 0;
    for (const received of answers.values())
      for (const { pdu, messageType } of received) {
        if (
          messageType === 'HandoverPreparationFailure' ||
          messageType === 'HandoverCommand' ||
          messageType === 'HandoverRequest' ||
          messageType === 'HandoverCancelAcknowledge'
        )
          handoversGoingOn += 1;
        if (
          pdu.choice === 'initiatingMessage' ||
          pdu.choice === null ||
          pdu.value.name !== 'PathSwitchRequest'
        )
          continue;
        const ies = (pdu.value.value as unknown as { protocolIEs: { name: string | null; value: unknown }[] })
          .protocolIEs;
        const ran = ies.find((ie) => ie.name === 'RAN-UE-NGAP-ID')?.value as number;
        got.set(ran, (got.get(ran) ?? 0) + 1);
      }
    for (const [ran, count] of expected.pathSwitch)
      assert.ok((got.get(ran) ?? 0) >= count, `Path Switch Request with RAN UE NGAP ID ${ran} answered`);
    if (!lost) assert.ok(handoversGoingOn >= expected.handoverRequired, 'every Handover Required answered');
    expected.pathSwitch.clear();
    expected.handoverRequired = 0;
  };
}

const T = TRANSFERS;

const setupResponses: NgapTemplate[] = [
  {
    name: 'PDUSessionResourceSetupResponse',
    transfers: [T.setupResponse],
    build: (rig, list) => setupResponse(rig.ids, list),
  },
  {
    name: 'PDUSessionResourceSetupResponse with failed sessions',
    transfers: [T.setupUnsuccessful],
    build: (rig, list) => setupResponse(rig.ids, [], list),
  },
  {
    name: 'PDUSessionResourceSetupResponse, both lists',
    transfers: [T.setupResponse, T.setupUnsuccessful],
    build: (rig, list) => setupResponse(rig.ids, list.slice(0, 1), list.slice(1)),
  },
];

const modifyAndRelease: NgapTemplate[] = [
  {
    name: 'PDUSessionResourceModifyResponse',
    transfers: [T.modifyResponse],
    build: (r, l) => modifyResponse(r.ids, l),
  },
  {
    name: 'PDUSessionResourceModifyIndication',
    transfers: [T.modifyIndication],
    build: (r, l) => modifyIndication(r.ids, l),
  },
  {
    name: 'PDUSessionResourceReleaseResponse',
    transfers: [T.releaseResponse],
    build: (r, l) => releaseResponse(r.ids, l),
  },
];

/**
 * Path Switch Request from the other radio under a fresh RAN UE NGAP ID, or from the serving one under
 * its own (only valid ones: their answers alone name that id, so each must have one).
 */
const pathSwitches: NgapTemplate[] = [
  {
    name: 'PathSwitchRequest',
    transfers: [T.pathSwitchRequest],
    build: (rig, list) => pathSwitchRequest(++rig.nextRan, rig.ids.amf, list),
    from: (rig) => rig.other,
  },
  {
    name: 'PathSwitchRequest from the serving radio',
    transfers: [T.pathSwitchRequest],
    build: (rig, list, _container, valid) =>
      pathSwitchRequest(valid ? rig.ids.ran : ++rig.nextRan, rig.ids.amf, list),
  },
];

const handovers: NgapTemplate[] = [
  {
    name: 'HandoverRequired',
    transfers: [T.handoverRequired],
    build: (rig, list, container) => handoverRequired(rig.ids, list, container),
  },
  { name: 'HandoverNotify', transfers: [], build: (rig) => handoverNotify(rig.ids) },
  { name: 'HandoverCancel', transfers: [], build: (rig) => handoverCancel(rig.ids) },
  { name: 'UplinkRANStatusTransfer', transfers: [], build: (rig) => uplinkRanStatusTransfer(rig.ids) },
  {
    name: 'HandoverRequestAcknowledge',
    transfers: [T.handoverRequestAcknowledge],
    build: (rig, list, container) => handoverRequestAcknowledge(rig.ids, list, container),
  },
  { name: 'HandoverFailure', transfers: [], build: (rig) => handoverFailure(rig.ids.amf) },
];

describe('session and handover signalling fuzz (fixed seeds, 100,000 inputs per family)', () => {
  it('(1) PDU Session Establishment Request in UL NAS Transport', async (t) => {
    await fuzz(t, 0x5e55_0001, sendSm(establishmentRequests), { check: checkSmAnswers });
  });

  it('(2) PDU Session Modification Request, Complete and Command Reject', async (t) => {
    await fuzz(t, 0x5e55_0002, sendSm(modifications), {
      before: (rig) => ensureActive(rig, PSIS),
      check: checkSmAnswers,
    });
  });

  it('(3) PDU Session Release Request and Complete', async (t) => {
    await fuzz(t, 0x5e55_0003, sendSm(releases), {
      before: (rig) => ensureActive(rig, PSIS),
      check: checkSmAnswers,
    });
  });

  it('(4) PDU Session Resource Setup Response and its Response and Unsuccessful transfers', async (t) => {
    const expected: Expected = { pathSwitch: new Map(), handoverRequired: 0 };
    await fuzz(t, 0x5e55_0004, sendNgap(setupResponses, expected), {
      before: (rig) => ensureActive(rig, PSIS, true),
    });
  });

  it('(5) PDU Session Resource Modify Response, Modify Indication, Release Response and their transfers', async (t) => {
    const expected: Expected = { pathSwitch: new Map(), handoverRequired: 0 };
    await fuzz(t, 0x5e55_0005, sendNgap(modifyAndRelease, expected), {
      before: (rig) => ensureActive(rig, PSIS),
    });
  });

  it('(6) Path Switch Request and its transfers', async (t) => {
    const expected: Expected = { pathSwitch: new Map(), handoverRequired: 0 };
    await fuzz(t, 0x5e55_0006, sendNgap(pathSwitches, expected), {
      before: (rig) => ensureActive(rig, PSIS),
      check: checkProcedures(expected),
    });
  });

  it('(7) N2 handover: Handover Required, Notify, Cancel, Uplink RAN Status Transfer, Request Acknowledge, Failure', async (t) => {
    const expected: Expected = { pathSwitch: new Map(), handoverRequired: 0 };
    await fuzz(t, 0x5e55_0007, sendNgap(handovers, expected), {
      check: checkProcedures(expected),
      n2Inputs: INPUTS / 2,
    });
  });
});
