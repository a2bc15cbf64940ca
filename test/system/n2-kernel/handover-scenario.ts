/**
 * The radio side of the N2 system test over the `kernel` and `raw` transports (handover-suite.ts): two
 * strict simulated gNBs against the AMF of the service (handover-service.ts), whatever SCTP `transport`
 * carries their associations:
 *   1. both gNBs up (association, NG Setup); a voice-capable UE registers at the first (the AMF's UE
 *      Radio Capability Check) and sets up a PDU session;
 *   2. the UE is handed over to the second gNB (indirect forwarding: the Command names the UPF's
 *      forwarding tunnel) and moves to another of its cells; the outcome, whether its KgNB* agrees and
 *      that tunnel's address are reported;
 *   3. holds until the service's side has read the API, changed the UE-AMBR (UE Context Modification
 *      to the second gNB) and located the UE (Location Reporting Control, its cell older than 300 s);
 *   4. back to the first with direct forwarding, there again without forwarding (the target offers no
 *      tunnel), back, a handover cancelled after the Command, one the target refuses (Handover Failure);
 *   5. the radio-initiated procedures of issue 34 item 2 from the first gNB: UE Radio Capability Info
 *      Indication, PDU Session Resource Modify Indication (its Confirm awaited), PDU Session Resource
 *      Notify, Secondary RAT Data Usage Report, Error Indication both ways (an undecodable PDU answered);
 *   6. a second UE whose Authentication Request the radio does not deliver (NAS Non Delivery
 *      Indication; the AMF's T3560 retransmits it); a third refused at the AMF's UE context limit (two),
 *      so that both gNBs hear Overload Start, and Overload Stop once the second deregisters;
 *   7. the stream ids each gNB saw from the AMF (TS 38.412 7), then every association shut down.
 * Results go to the host as PMN-RESULT lines; PMN-STEP lines mark when the host may proceed.
 */
import { readPDUSessionResourceModifyConfirm } from '../../../src/network/ngap/generated/messages.ts';
import type { N2Transport } from '../../../src/network/transport/n2-transport.ts';
import { bringUp } from '../../../src/simulator/gnb-fleet.ts';
import { N2Handover, type N2HandoverOutcome } from '../../../src/simulator/gnb-handover-n2.ts';
import { GnbLocation } from '../../../src/simulator/gnb-location.ts';
import {
  pduSessionResourceModifyIndication,
  pduSessionResourceNotify,
  secondaryRatDataUsageReport,
} from '../../../src/simulator/ue/gnb-session-indications.ts';
import { GnbUes } from '../../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../../src/simulator/ue/simulated-ue.ts';
import { UeSessions } from '../../../src/simulator/ue/ue-sessions.ts';
import { capability } from '../../e2e/radio-capability-bytes.ts';
import {
  gnbs,
  holdUntilReleased,
  PLMN,
  report as reportLine,
  ueConfig,
  type PeerArgs,
} from './peer-runtime.ts';

export interface HandoverArgs extends PeerArgs {
  /** The subscriptions of the second and third UE (NAS Non Delivery, Overload). */
  others: [string, string];
}

/** The cell the UE moves to at the second gNB before the host locates it. */
export const MOVED_CELL = 0x5003;

/** A handover's outcome as the host checks it: its kind, and for a completed one whether the keys agree. */
const summary = (outcome: N2HandoverOutcome) =>
  outcome.outcome === 'handed-over'
    ? { outcome: outcome.outcome, keysAgree: outcome.ueKgnbStar?.equals(outcome.kgnbStar) === true }
    : { outcome: outcome.outcome };

/** Where the scenario holds and where its results go, when not a program's (the defaults). */
export interface ScenarioIo {
  /** Resolves when the scenario may go on from `step`; by default the host's connection to `controlPort`. */
  hold: (step: string) => Promise<void>;
  /** Takes each result; by default a PMN-RESULT line. */
  report: (value: Record<string, unknown>) => void;
}

/** The scenario over `transport`, its gNBs named `name-1` and `name-2`. */
export async function runHandoverScenario(
  transport: N2Transport,
  args: HandoverArgs,
  name: string,
  io: Partial<ScenarioIo> = {},
): Promise<void> {
  const { hold = (step) => holdUntilReleased(args.controlPort, step), report = reportLine } = io;
  const nodes = gnbs(transport, args, { name, count: 2, strict: true });
  const outcomes = await Promise.all(nodes.map(bringUp));
  report({
    step: 'ng-setup',
    outcomes: outcomes.map((o) => (o.outcome === 'error' ? `error: ${o.error}` : o.outcome)),
  });
  const [one, two] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
  const radioOne = new GnbUes(
    one,
    { plmn: PLMN, nrCellIdentity: 0x5001, tac: 1 },
    { n3Address: '10.99.0.1' },
  );
  const radioTwo = new GnbUes(
    two,
    { plmn: PLMN, nrCellIdentity: 0x5002, tac: 1 },
    { n3Address: '10.99.0.2' },
  );
  new GnbLocation(radioTwo, { pci: 2, arfcn: 632628 });
  const n2One = new N2Handover(one, radioOne, { pci: 1, arfcnDl: 632628 });
  const n2Two = new N2Handover(two, radioTwo, { pci: 2, arfcnDl: 632628 });
  const ue = new SimulatedUe({ config: ueConfig(args, args.imsi, { imsVoice: true }), radio: radioOne });
  const registration = await ue.register();
  const session = await new UeSessions(ue).establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
  report({
    step: 'ue',
    registration: registration.outcome,
    session: session.outcome,
    capabilityChecks: radioOne.radioCapabilityChecks.length,
  });

  const there = await n2One.handOver(ue, n2Two);
  report({
    step: 'handover',
    ...summary(there),
    forwardingVia:
      there.outcome === 'handed-over' ? there.command.forwarding.map((f) => f.tunnel.address) : [],
  });
  // Nothing tells the AMF of a move inside the gNB: only its Location Reporting Control finds it.
  report({
    step: 'moved',
    moved: radioTwo.changeCell(ue, { plmn: PLMN, nrCellIdentity: MOVED_CELL, tac: 1 }),
  });
  await hold('at-target');
  report({
    step: 'context-modification',
    received: radioTwo.contextModifications.map((m) => ({
      downlink: m.ueAmbr?.uEAggregateMaximumBitRateDL,
      refused: m.refused ?? null,
    })),
  });
  report({ step: 'back', ...summary(await n2Two.handOver(ue, n2One, { directForwarding: true })) });
  n2Two.offersForwarding = false;
  const unforwarded = await n2One.handOver(ue, n2Two);
  n2Two.offersForwarding = true;
  report({
    step: 'no-forwarding',
    ...summary(unforwarded),
    forwarding: unforwarded.outcome === 'handed-over' ? unforwarded.command.forwarding.length : undefined,
  });
  report({ step: 'back-again', ...summary(await n2Two.handOver(ue, n2One)) });
  report({ step: 'cancel', ...summary(await n2One.handOver(ue, n2Two, { stop: 'cancel-after-command' })) });
  n2Two.behaviour = 'fail';
  const refused = await n2One.handOver(ue, n2Two);
  n2Two.behaviour = 'admit';
  report({
    step: 'failure',
    ...summary(refused),
    cause: refused.outcome === 'failed' ? refused.cause : undefined,
  });

  // Issue 34 item 2, radio-initiated: each through the transport on the UE's stream.
  const indication = radioOne.indicateRadioCapability(ue, capability(64, 7));
  const confirmed = one.nextReceived('PDUSessionResourceModifyConfirm');
  const indicated = radioOne.sendAboutUe(ue, (ids) =>
    pduSessionResourceModifyIndication(ids, [
      { pduSessionId: 1, downlink: { address: '10.99.0.9', teid: 0x4242 }, qfis: [1] },
    ]),
  );
  const confirm = (await confirmed).pdu;
  const read = confirm === undefined ? undefined : readPDUSessionResourceModifyConfirm(confirm);
  const notified = radioOne.sendAboutUe(ue, (ids) =>
    pduSessionResourceNotify(ids, {
      sessions: [{ pduSessionId: 1, notified: [{ qfi: 1, cause: 'not-fulfilled' }] }],
    }),
  );
  const usage = radioOne.sendAboutUe(ue, (ids) =>
    secondaryRatDataUsageReport(
      ids,
      [{ pduSessionId: 1, ratType: 'nr', uplinkOctets: 1000, downlinkOctets: 250_000 }],
      { startMs: Date.UTC(2026, 11, 7, 5, 0, 0), endMs: Date.UTC(2026, 11, 7, 5, 1, 0) },
    ),
  );
  const error = one.errorIndication({ cause: { choice: 'protocol', value: 'semantic-error' } });
  // TS 38.413 10.2: a PDU that does not decode is answered by Error Indication with a protocol cause.
  const answered = one.next((event) => (event.type === 'error-indication' ? event.report : undefined));
  one.sendBytes(Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
  report({
    step: 'radio-initiated',
    capability: indication,
    indicated,
    confirmed:
      read?.ok === true ? read.message.pduSessionResourceModifyListModCfm?.map((i) => i.pDUSessionID) : [],
    notified,
    usage,
    error: error.ok,
    answered: (await answered).cause ?? null,
  });

  // NAS Non Delivery Indication (8.6.4): the second UE's Authentication Request is not delivered.
  const [second, third] = args.others.map(
    (imsi) => new SimulatedUe({ config: ueConfig(args, imsi), radio: radioOne }),
  ) as [SimulatedUe, SimulatedUe];
  radioOne.withholdNextNas(second, { choice: 'radioNetwork', value: 'interaction-with-other-procedure' });
  const secondRegistration = await second.register();
  report({
    step: 'non-delivery',
    registration: secondRegistration.outcome,
    causes: radioOne.nonDeliveries.map((n) => n.cause),
  });
  // Overload (8.7.6, 8.7.7): two UE contexts held, the third is refused (#22) and the radios told.
  const overloaded = nodes.map((g) =>
    g.next((e) => (e.type === 'overload' && e.overload !== undefined ? e.overload : undefined)),
  );
  const thirdRegistration = await third.register();
  const started = await Promise.all(overloaded);
  const unloaded = nodes.map((g) =>
    g.next((e) => (e.type === 'overload' && e.overload === undefined ? 'stopped' : undefined)),
  );
  const deregistered = await second.deregister();
  const stopped = await Promise.all(unloaded);
  report({
    step: 'overload',
    refused: thirdRegistration.outcome === 'rejected' ? thirdRegistration.cause : thirdRegistration.outcome,
    started: started.map((o) => o.action),
    deregistered: deregistered.outcome,
    stopped,
  });
  report({ step: 'streams', violations: nodes.map((g) => g.streamViolations.length) });
  report({ step: 'shutdown', ends: await Promise.all(nodes.map((g) => g.shutdown())) });
}
