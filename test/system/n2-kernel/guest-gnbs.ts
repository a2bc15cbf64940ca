/**
 * Runs inside the qemu guest: simulated gNBs (src/simulator) over our `kernel` transport, that
 * is the Linux kernel's SCTP, against the AMF of the service on the host (our `raw` stack on the tap).
 *   1. brings `count` gNBs up (association, NG Setup) and reports each outcome;
 *   2. a UE behind the first registers, goes idle on the gNB's release request and comes back with a
 *      service request; each outcome is reported;
 *   3. holds until the host connects to `controlPort` (TCP): the host has read the API meanwhile;
 *   4. the UE deregisters, then every association is shut down gracefully; how each ended is reported.
 * Results go to the host as PMN-RESULT lines; PMN-STEP lines mark when the host may proceed.
 */
import { guestArguments, GUEST_ADDON_PATH } from '../../../scripts/qemu-sctp/guest-runtime.ts';
import { KernelTransport } from '../../../src/network/transport/kernel/kernel-transport.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { bringUp } from '../../../src/simulator/gnb-fleet.ts';
import { GnbUes } from '../../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../../src/simulator/ue/simulated-ue.ts';
import { gnbs, holdUntilReleased, PLMN, report, runGuest, ueConfig, type PeerArgs } from './peer-runtime.ts';

runGuest(async () => {
  const args = guestArguments<PeerArgs & { count: number }>();
  const load = loadNativeAddon(GUEST_ADDON_PATH);
  if (!load.ok) throw load.error;
  const transport = new KernelTransport({ addon: load.addon });
  const nodes = gnbs(transport, args, { name: 'kernel', count: args.count });
  const outcomes = await Promise.all(nodes.map(bringUp));
  report({
    step: 'ng-setup',
    outcomes: outcomes.map((o) => (o.outcome === 'error' ? `error: ${o.error}` : o.outcome)),
    local: nodes.map((g) => g.local?.address),
  });
  const radio = new GnbUes(nodes[0]!, { plmn: PLMN, nrCellIdentity: 0x4001, tac: 1 });
  const ue = new SimulatedUe({ config: ueConfig(args, args.imsi), radio });
  const registration = await ue.register();
  const released = ue.next((e) => (e.type === 'released' ? 'released' : undefined));
  const idle = radio.requestRelease(ue) ? await released : 'no release requested';
  const service = await ue.serviceRequest();
  report({ step: 'ue', registration: registration.outcome, idle, service: service.outcome });
  await holdUntilReleased(args.controlPort, 'holding');
  report({ step: 'deregistration', outcome: (await ue.deregister()).outcome });
  report({ step: 'shutdown', ends: await Promise.all(nodes.map((g) => g.shutdown())) });
  await transport.close();
});
