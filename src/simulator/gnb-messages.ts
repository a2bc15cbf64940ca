import {
  buildAMFConfigurationUpdateAcknowledge,
  buildErrorIndication,
  buildNGReset,
  buildNGResetAcknowledge,
  buildNGSetupRequest,
  buildRANConfigurationUpdate,
} from '../network/ngap/generated/messages.ts';
import type {
  Cause,
  CPTransportLayerInformation,
  CriticalityDiagnostics,
  NGAPPDU,
  ResetType,
  UEassociatedLogicalNGconnectionList,
} from '../network/ngap/generated/types.ts';
import type { GnbConfig, SupportedTa } from './gnb-config.ts';
import { globalRanNodeId, supportedTaList } from './gnb-config.ts';

/**
 * The NGAP PDUs a RAN node sends for the procedures without a UE (TS 38.413 8.7), built from the
 * simulator's configuration through the generated message builders (ids and criticalities from the
 * object sets of TS 38.413 9.4).
 */

/** NG SETUP REQUEST (TS 38.413 9.2.6.1). */
export function ngSetupRequest(config: GnbConfig): NGAPPDU {
  return buildNGSetupRequest({
    globalRanNodeId: globalRanNodeId(config),
    ...(config.name === undefined ? {} : { ranNodeName: config.name }),
    supportedTaList: supportedTaList(config.supportedTas),
    defaultPagingDrx: config.pagingDrx ?? 'v128',
  });
}

/** What a RAN Configuration Update changes; an absent field is not sent (TS 38.413 8.7.2.2). */
export interface RanConfigurationChanges {
  name?: string;
  supportedTas?: readonly SupportedTa[];
  pagingDrx?: GnbConfig['pagingDrx'];
}

/** RAN CONFIGURATION UPDATE (TS 38.413 9.2.6.4). */
export function ranConfigurationUpdate(changes: RanConfigurationChanges): NGAPPDU {
  return buildRANConfigurationUpdate({
    ...(changes.name === undefined ? {} : { ranNodeName: changes.name }),
    ...(changes.supportedTas === undefined ? {} : { supportedTaList: supportedTaList(changes.supportedTas) }),
    ...(changes.pagingDrx === undefined ? {} : { defaultPagingDrx: changes.pagingDrx }),
  });
}

/** Which part of the NG interface a reset concerns (TS 38.413 9.3.1.68 Reset Type). */
export type ResetScope = { kind: 'all' } | { kind: 'part'; connections: UEassociatedLogicalNGconnectionList };

function resetType(scope: ResetScope): ResetType {
  return scope.kind === 'all'
    ? { choice: 'nG-Interface', value: 'reset-all' }
    : { choice: 'partOfNG-Interface', value: scope.connections };
}

/** NG RESET (TS 38.413 9.2.6.11). */
export function ngReset(cause: Cause, scope: ResetScope): NGAPPDU {
  return buildNGReset({ cause, resetType: resetType(scope) });
}

/**
 * NG RESET ACKNOWLEDGE (TS 38.413 9.2.6.12). After a partial reset it lists the connections reset
 * (8.7.4.2.2: "shall include ... the UE-associated logical NG-connections").
 */
export function ngResetAcknowledge(reset: ResetType): NGAPPDU {
  const connections = reset.choice === 'partOfNG-Interface' ? reset.value : [];
  return buildNGResetAcknowledge(
    connections.length === 0 ? {} : { ueAssociatedLogicalNgConnectionList: connections },
  );
}

/** What an Error Indication says (TS 38.413 9.2.7.1: Cause or Criticality Diagnostics, at least one). */
export interface ErrorReport {
  cause?: Cause;
  criticalityDiagnostics?: CriticalityDiagnostics;
  amfUeNgapId?: number;
  ranUeNgapId?: number;
}

/** ERROR INDICATION (TS 38.413 9.2.7.1). */
export function errorIndication(report: ErrorReport): NGAPPDU {
  return buildErrorIndication(report);
}

/**
 * AMF CONFIGURATION UPDATE ACKNOWLEDGE (TS 38.413 9.2.6.8): the offered TNL associations the node set up
 * and those it failed to (8.7.3.2), each named by the CP Transport Layer Information the AMF sent; the
 * lists are left out when empty.
 */
export function amfConfigurationUpdateAcknowledge(
  tnl: {
    setup: CPTransportLayerInformation[];
    failed: { address: CPTransportLayerInformation; cause: Cause }[];
  } = {
    setup: [],
    failed: [],
  },
): NGAPPDU {
  return buildAMFConfigurationUpdateAcknowledge({
    ...(tnl.setup.length === 0
      ? {}
      : { amfTnlAssociationSetupList: tnl.setup.map((address) => ({ aMFTNLAssociationAddress: address })) }),
    ...(tnl.failed.length === 0
      ? {}
      : {
          amfTnlAssociationFailedToSetupList: tnl.failed.map(({ address, cause }) => ({
            tNLAssociationAddress: address,
            cause,
          })),
        }),
  });
}

/**
 * RAN CONFIGURATION UPDATE as the first message on a further TNL association (TS 38.412 7): the Global
 * RAN Node ID alone, by which the AMF adds the association to the node's NG-C interface (TS 38.413 8.7.2.2).
 */
export function tnlAssociationJoin(config: GnbConfig): NGAPPDU {
  return buildRANConfigurationUpdate({ globalRanNodeId: globalRanNodeId(config) });
}
