import type { OperatorConfiguration } from '../../ports/operator-configuration.ts';
import type { Snssai } from '../../ports/subscription-data.ts';
import type { PLMNSupportList, SliceSupportList } from '../../ngap/generated/types.ts';
import { plmnIdentity } from '../../ngap/ngap-values.ts';
import type { Plmn } from '../../radio-id.ts';

/**
 * The part of the operator's configuration the NG procedures read: the PLMN, its tracking area codes
 * and every configured slice. The AMF keeps a copy and refreshes it when the operator changes one of
 * them, so that a procedure never waits for the database.
 */
export interface ServedNetwork {
  plmn: Plmn;
  /** 6 lower-case hex digits each. */
  tacs: readonly string[];
  slices: readonly Snssai[];
}

export function servedNetworkOf(configuration: OperatorConfiguration): ServedNetwork {
  return {
    plmn: { ...configuration.plmn },
    tacs: configuration.tacs.map((tac) => tac.toLowerCase()),
    slices: configuration.slices.map((slice) => ({ ...slice })),
  };
}

export function sameServedNetwork(a: ServedNetwork, b: ServedNetwork): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** S-NSSAIs as NGAP carries them (TS 38.413 9.3.1.24: SST one octet, SD three). */
function sliceSupportList(slices: readonly Snssai[]): SliceSupportList {
  return slices.map((slice) => ({
    sNSSAI: {
      sST: Uint8Array.of(slice.sst),
      ...(slice.sd === undefined ? {} : { sD: Uint8Array.from(Buffer.from(slice.sd, 'hex')) }),
    },
  }));
}

/**
 * The PLMN Support List of NG Setup Response and AMF Configuration Update: the operator's PLMN with
 * every configured slice. The IE needs at least one slice (SliceSupportList SIZE(1..)), so a network
 * without a slice announces the default one, SST 1 (eMBB, TS 23.501 5.15.2.2).
 */
export function plmnSupportList(network: ServedNetwork): PLMNSupportList {
  const slices = network.slices.length > 0 ? network.slices : [{ sst: 1 }];
  return [
    {
      pLMNIdentity: plmnIdentity(network.plmn.mcc, network.plmn.mnc),
      sliceSupportList: sliceSupportList(slices),
    },
  ];
}
