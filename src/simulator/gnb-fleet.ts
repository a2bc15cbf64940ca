import type { Timers } from '../clock.ts';
import type { N2Transport, TransportAddress } from '../network/transport/n2-transport.ts';
import type { GnbConfig, RanNodeIdentity } from './gnb-config.ts';
import type { NgSetupOutcome } from './gnb.ts';
import { SimulatedGnb } from './gnb.ts';

/** Many simulated nodes from one template, over one shared transport endpoint. */
interface FleetOptions {
  /** The first node's configuration; node `i` gets the node id `template.node.value + i`. */
  template: GnbConfig;
  count: number;
  transport: N2Transport;
  amf: readonly TransportAddress[];
  /** Names are `<namePrefix>-<n>` (n from 1); the template's name is used as the prefix when absent. */
  namePrefix?: string;
  local?: { addresses: readonly string[] };
  timers?: Timers;
  responseTimeoutMs?: number;
  /** Each node keeps its PDUs (`sent`, `received`; default true). */
  keepLog?: boolean;
  /** Every node acts as the strict gNB of docs/interop.md (`GnbOptions.strict`). */
  strict?: boolean;
  /** Every node sets up the TNL associations its AMF offers (`GnbOptions.furtherAssociations`). */
  furtherAssociations?: boolean;
}

/** The configurations of `count` nodes from one template: node ids from the template's, names `<prefix>-<n>`. */
export function fleetConfigs(template: GnbConfig, count: number, namePrefix = template.name): GnbConfig[] {
  return Array.from({ length: count }, (_, i) => {
    const node: RanNodeIdentity = { ...template.node, value: template.node.value + i };
    return { ...template, node, ...(namePrefix === undefined ? {} : { name: `${namePrefix}-${i + 1}` }) };
  });
}

export function createFleet(options: FleetOptions): SimulatedGnb[] {
  return fleetConfigs(options.template, options.count, options.namePrefix).map((config) => {
    return new SimulatedGnb({
      config,
      transport: options.transport,
      amf: options.amf,
      ...(options.local === undefined ? {} : { local: options.local }),
      ...(options.timers === undefined ? {} : { timers: options.timers }),
      ...(options.responseTimeoutMs === undefined ? {} : { responseTimeoutMs: options.responseTimeoutMs }),
      ...(options.keepLog === undefined ? {} : { keepLog: options.keepLog }),
      ...(options.strict === undefined ? {} : { strict: options.strict }),
      ...(options.furtherAssociations === undefined
        ? {}
        : { furtherAssociations: options.furtherAssociations }),
    });
  });
}

/** What became of one node's association and NG Setup. */
export type BringUpResult = NgSetupOutcome | { outcome: 'error'; error: string };

/** Connects a node and runs NG Setup; failures are results, so one node cannot stop the others. */
export async function bringUp(gnb: SimulatedGnb): Promise<BringUpResult> {
  try {
    await gnb.connect();
    return await gnb.ngSetup();
  } catch (error) {
    return { outcome: 'error', error: error instanceof Error ? error.message : String(error) };
  }
}
