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
import { createServer } from 'node:net';

import {
  announce,
  GUEST_ADDON_PATH,
  guestArguments,
  report,
} from '../../../scripts/qemu-sctp/guest-runtime.ts';
import { bringUp, createFleet } from '../../../src/simulator/gnb-fleet.ts';
import { GnbUes } from '../../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../../src/simulator/ue/simulated-ue.ts';
import { ALL_ALGORITHMS } from '../../../src/simulator/ue/ue-config.ts';
import { KernelTransport } from '../../../src/network/transport/kernel/kernel-transport.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';

interface Args {
  amf: string;
  port: number;
  count: number;
  firstGnbId: number;
  controlPort: number;
  /** The UE's subscription, provisioned by the host; its IMEISV is the simulator's default. */
  imsi: string;
  key: string;
  opc: string;
}

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
      name: 'kernel',
      supportedTas: [{ tac: 1, plmns: [{ plmn, slices: [{ sst: 1 }] }] }],
    },
    count: args.count,
    transport,
    amf: [{ address: args.amf, port: args.port }],
  });
  const outcomes = await Promise.all(gnbs.map(bringUp));
  report({
    step: 'ng-setup',
    outcomes: outcomes.map((o) => (o.outcome === 'error' ? `error: ${o.error}` : o.outcome)),
    local: gnbs.map((g) => g.local?.address),
  });
  const radio = new GnbUes(gnbs[0]!, { plmn, nrCellIdentity: 0x4001, tac: 1 });
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
    radio,
  });
  const registration = await ue.register();
  const released = ue.next((e) => (e.type === 'released' ? 'released' : undefined));
  const idle = radio.requestRelease(ue) ? await released : 'no release requested';
  const service = await ue.serviceRequest();
  report({ step: 'ue', registration: registration.outcome, idle, service: service.outcome });
  await new Promise<void>((resolve) => {
    const control = createServer((socket) => {
      socket.end();
      control.close();
      resolve();
    });
    control.listen(args.controlPort, '0.0.0.0', () => announce('holding'));
  });
  report({ step: 'deregistration', outcome: (await ue.deregister()).outcome });
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
