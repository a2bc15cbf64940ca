/**
 * What the simulator programs of the N2 system tests share on the radio side (in the qemu guest over the
 * kernel's SCTP, or in a network namespace over our `raw` stack): the result line protocol, their
 * simulated gNBs, a UE's configuration, and the hold until the host has looked at the service.
 */
import { createServer } from 'node:net';

import { announce, report, runGuest } from '../../../scripts/qemu-sctp/guest-runtime.ts';
import type { N2Transport } from '../../../src/network/transport/n2-transport.ts';
import { createFleet } from '../../../src/simulator/gnb-fleet.ts';
import type { SimulatedGnb } from '../../../src/simulator/gnb.ts';
import { ALL_ALGORITHMS, type UeConfig } from '../../../src/simulator/ue/ue-config.ts';

export { announce, report, runGuest };

export const PLMN = { mcc: '001', mnc: '01' };

/** A peer program's common arguments: its AMF, the host's control port, the subscription of its UE. */
export interface PeerArgs {
  amf: string;
  port: number;
  firstGnbId: number;
  controlPort: number;
  /** The UE's subscription, provisioned by the host; its IMEISV is the simulator's default. */
  imsi: string;
  key: string;
  opc: string;
}

/** `count` gNBs named `name-1`... on tracking area 1, slice 1, against the AMF of `args`. */
export function gnbs(
  transport: N2Transport,
  args: PeerArgs,
  fleet: { name: string; count: number; strict?: boolean },
): SimulatedGnb[] {
  return createFleet({
    template: {
      plmn: PLMN,
      node: { kind: 'gNB', value: args.firstGnbId, bitLength: 22 },
      name: fleet.name,
      supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
    },
    count: fleet.count,
    transport,
    amf: [{ address: args.amf, port: args.port }],
    ...(fleet.strict === undefined ? {} : { strict: fleet.strict }),
  });
}

/** The configuration of a UE with subscription `imsi` (K and OPc of `args`), every algorithm, slice 1. */
export function ueConfig(args: PeerArgs, imsi: string, extra: Partial<UeConfig> = {}): UeConfig {
  return {
    imsi,
    plmn: PLMN,
    key: Buffer.from(args.key, 'hex'),
    opc: Buffer.from(args.opc, 'hex'),
    suci: { scheme: 'null' },
    imeisv: '3569380356438091',
    securityCapability: ALL_ALGORITHMS,
    requestedNssai: [{ sst: 1 }],
    ...extra,
  };
}

/** Announces `step`, then holds until the host connects to `port` (TCP): it has read the API meanwhile. */
export function holdUntilReleased(port: number, step: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const control = createServer((socket) => {
      socket.end();
      control.close();
      resolve();
    });
    control.listen(port, '0.0.0.0', () => announce(step));
  });
}
