/**
 * Runs inside the qemu guest: N2 handover (TS 23.502 4.9.1.3) between two strict simulated gNBs over our
 * `kernel` transport (the Linux kernel's SCTP) against the AMF of the service on the host (our `raw`
 * stack on the tap):
 *   1. both gNBs up (association, NG Setup); a UE registers at the first and sets up a PDU session;
 *   2. the UE is handed over to the second gNB (indirect forwarding: the Command names the UPF's
 *      forwarding tunnel); the outcome, whether its KgNB* agrees and that tunnel's address are reported;
 *   3. holds until the host connects to `controlPort` (TCP): the host has read the API and changed the
 *      UE-AMBR meanwhile (UE Context Modification to the second gNB, answered and reported);
 *   4. back to the first with direct forwarding, a handover cancelled after the Command, and one the
 *      target refuses (Handover Failure);
 *   5. the radio-initiated procedures of issue 34 item 2 from the first gNB: UE Radio Capability Info
 *      Indication, PDU Session Resource Modify Indication (its Confirm awaited), Secondary RAT Data
 *      Usage Report, Error Indication;
 *   6. the stream ids each gNB saw from the AMF (TS 38.412 7), then every association shut down.
 * Results go to the host as PMN-RESULT lines; PMN-STEP lines mark when the host may proceed.
 */
import { createServer } from 'node:net';

import {
  announce,
  GUEST_ADDON_PATH,
  guestArguments,
  report,
} from '../../../scripts/qemu-sctp/guest-runtime.ts';
import { KernelTransport } from '../../../src/network/transport/kernel/kernel-transport.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { bringUp, createFleet } from '../../../src/simulator/gnb-fleet.ts';
import { readPDUSessionResourceModifyConfirm } from '../../../src/network/ngap/generated/messages.ts';
import { N2Handover, type N2HandoverOutcome } from '../../../src/simulator/gnb-handover-n2.ts';
import {
  pduSessionResourceModifyIndication,
  secondaryRatDataUsageReport,
} from '../../../src/simulator/ue/gnb-session-indications.ts';
import { GnbUes } from '../../../src/simulator/ue/gnb-ues.ts';

import { SimulatedUe } from '../../../src/simulator/ue/simulated-ue.ts';
import { ALL_ALGORITHMS } from '../../../src/simulator/ue/ue-config.ts';
import { UeSessions } from '../../../src/simulator/ue/ue-sessions.ts';
import { capability } from '../../e2e/radio-capability-bytes.ts';

interface Args {
  amf: string;
  port: number;
  firstGnbId: number;
  controlPort: number;
  /** The UE's subscription, provisioned by the host; its IMEISV is the simulator's default. */
  imsi: string;
  key: string;
  opc: string;
}

/** A handover's outcome as the host checks it: its kind, and for a completed one whether the keys agree. */
const summary = (outcome: N2HandoverOutcome) =>
  outcome.outcome === 'handed-over'
    ? { outcome: outcome.outcome, keysAgree: outcome.ueKgnbStar?.equals(outcome.kgnbStar) === true }
    : { outcome: outcome.outcome };

async function main(): Promise<void> {
  const args = guestArguments<Args>();
  const load = loadNativeAddon(GUEST_ADDON_PATH);
  if (!load.ok) throw load.error;
  const transport = new KernelTransport({ addon: load.addon });
  const plmn = { mcc: '001', mnc: '01' };
  const gnbs = createFleet({
    template: {
      plmn,
      node: { kind: 'gNB', value: args.firstGnbId, bitLength: 22 },
      name: 'kernel-ho',
      supportedTas: [{ tac: 1, plmns: [{ plmn, slices: [{ sst: 1 }] }] }],
    },
    count: 2,
    transport,
    amf: [{ address: args.amf, port: args.port }],
    strict: true,
  });
  const outcomes = await Promise.all(gnbs.map(bringUp));
  report({
    step: 'ng-setup',
    outcomes: outcomes.map((o) => (o.outcome === 'error' ? `error: ${o.error}` : o.outcome)),
  });
  const [one, two] = gnbs as [(typeof gnbs)[0], (typeof gnbs)[0]];
  const radioOne = new GnbUes(one, { plmn, nrCellIdentity: 0x5001, tac: 1 }, { n3Address: '10.99.0.1' });
  const radioTwo = new GnbUes(two, { plmn, nrCellIdentity: 0x5002, tac: 1 }, { n3Address: '10.99.0.2' });
  const n2One = new N2Handover(one, radioOne, { pci: 1, arfcnDl: 632628 });
  const n2Two = new N2Handover(two, radioTwo, { pci: 2, arfcnDl: 632628 });
  const ue = new SimulatedUe({
    config: {
      imsi: args.imsi,
      plmn,
      key: Buffer.from(args.key, 'hex'),
      opc: Buffer.from(args.opc, 'hex'),
      suci: { scheme: 'null' },
      imeisv: '3569380356438091',
      securityCapability: ALL_ALGORITHMS,
      requestedNssai: [{ sst: 1 }],
    },
    radio: radioOne,
  });
  const registration = await ue.register();
  const session = await new UeSessions(ue).establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
  report({ step: 'ue', registration: registration.outcome, session: session.outcome });

  const there = await n2One.handOver(ue, n2Two);
  report({
    step: 'handover',
    ...summary(there),
    forwardingVia:
      there.outcome === 'handed-over' ? there.command.forwarding.map((f) => f.tunnel.address) : [],
  });
  await new Promise<void>((resolve) => {
    const control = createServer((socket) => {
      socket.end();
      control.close();
      resolve();
    });
    control.listen(args.controlPort, '0.0.0.0', () => announce('at-target'));
  });
  report({
    step: 'context-modification',
    received: radioTwo.contextModifications.map((m) => ({
      downlink: m.ueAmbr?.uEAggregateMaximumBitRateDL,
      refused: m.refused ?? null,
    })),
  });
  report({ step: 'back', ...summary(await n2Two.handOver(ue, n2One, { directForwarding: true })) });
  report({ step: 'cancel', ...summary(await n2One.handOver(ue, n2Two, { stop: 'cancel-after-command' })) });
  n2Two.behaviour = 'fail';
  const refused = await n2One.handOver(ue, n2Two);
  n2Two.behaviour = 'admit';
  report({
    step: 'failure',
    ...summary(refused),
    cause: refused.outcome === 'failed' ? refused.cause : undefined,
  });
  // Issue 34 item 2, radio-initiated: each through the kernel's SCTP on the UE's stream.
  const indication = radioOne.indicateRadioCapability(ue, capability(64, 7));
  const confirmed = one.nextReceived('PDUSessionResourceModifyConfirm');
  const indicated = radioOne.sendAboutUe(ue, (ids) =>
    pduSessionResourceModifyIndication(ids, [
      { pduSessionId: 1, downlink: { address: '10.99.0.9', teid: 0x4242 }, qfis: [1] },
    ]),
  );
  const confirm = (await confirmed).pdu;
  const read = confirm === undefined ? undefined : readPDUSessionResourceModifyConfirm(confirm);
  const usage = radioOne.sendAboutUe(ue, (ids) =>
    secondaryRatDataUsageReport(
      ids,
      [{ pduSessionId: 1, ratType: 'nr', uplinkOctets: 1000, downlinkOctets: 250_000 }],
      { startMs: Date.UTC(2026, 11, 7, 5, 0, 0), endMs: Date.UTC(2026, 11, 7, 5, 1, 0) },
    ),
  );
  const error = one.errorIndication({ cause: { choice: 'protocol', value: 'semantic-error' } });
  report({
    step: 'radio-initiated',
    capability: indication,
    indicated,
    confirmed:
      read?.ok === true ? read.message.pduSessionResourceModifyListModCfm?.map((i) => i.pDUSessionID) : [],
    usage,
    error: error.ok,
  });
  report({
    step: 'streams',
    violations: gnbs.map((g) => g.streamViolations.length),
  });
  report({ step: 'shutdown', ends: await Promise.all(gnbs.map((g) => g.shutdown())) });
  await transport.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stdout.write(
      `GUEST-ERROR ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
