import type {
  Cause,
  CriticalityDiagnostics,
  NGAPPDU,
  ProtocolIEField_ErrorIndicationIEs,
  ProtocolIEField_RANConfigurationUpdateIEs,
  ResetType,
  UEassociatedLogicalNGconnectionList,
} from '../network/ngap/generated/types.ts';
import type { GnbConfig, SupportedTa } from './gnb-config.ts';
import { globalRanNodeId, supportedTaList } from './gnb-config.ts';

/**
 * The NGAP PDUs a RAN node sends for the procedures without a UE (TS 38.413 8.7), built from the
 * simulator's configuration. IE criticalities are those of the message tables of TS 38.413 9.2.6.
 */

/** NG SETUP REQUEST (TS 38.413 9.2.6.1). */
export function ngSetupRequest(config: GnbConfig): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 21,
      name: 'NGSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 27, name: 'GlobalRANNodeID', criticality: 'reject', value: globalRanNodeId(config) },
          ...(config.name === undefined
            ? []
            : [{ id: 82, name: 'RANNodeName', criticality: 'ignore', value: config.name } as const]),
          {
            id: 102,
            name: 'SupportedTAList',
            criticality: 'reject',
            value: supportedTaList(config.supportedTas),
          },
          { id: 21, name: 'DefaultPagingDRX', criticality: 'ignore', value: config.pagingDrx ?? 'v128' },
        ],
      },
    },
  };
}

/** What a RAN Configuration Update changes; an absent field is not sent (TS 38.413 8.7.2.2). */
export interface RanConfigurationChanges {
  name?: string;
  supportedTas?: readonly SupportedTa[];
  pagingDrx?: GnbConfig['pagingDrx'];
}

/** RAN CONFIGURATION UPDATE (TS 38.413 9.2.6.4). */
export function ranConfigurationUpdate(changes: RanConfigurationChanges): NGAPPDU {
  const ies: ProtocolIEField_RANConfigurationUpdateIEs[] = [];
  if (changes.name !== undefined)
    ies.push({ id: 82, name: 'RANNodeName', criticality: 'ignore', value: changes.name });
  if (changes.supportedTas !== undefined) {
    ies.push({
      id: 102,
      name: 'SupportedTAList',
      criticality: 'reject',
      value: supportedTaList(changes.supportedTas),
    });
  }
  if (changes.pagingDrx !== undefined) {
    ies.push({ id: 21, name: 'DefaultPagingDRX', criticality: 'ignore', value: changes.pagingDrx });
  }
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 35,
      name: 'RANConfigurationUpdate',
      criticality: 'reject',
      value: { protocolIEs: ies },
    },
  };
}

/** Which part of the NG interface a reset concerns (TS 38.413 9.3.1.68 Reset Type). */
export type ResetScope = { kind: 'all' } | { kind: 'part'; connections: UEassociatedLogicalNGconnectionList };

export function resetType(scope: ResetScope): ResetType {
  return scope.kind === 'all'
    ? { choice: 'nG-Interface', value: 'reset-all' }
    : { choice: 'partOfNG-Interface', value: scope.connections };
}

/** NG RESET (TS 38.413 9.2.6.11). */
export function ngReset(cause: Cause, scope: ResetScope): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 20,
      name: 'NGReset',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
          { id: 88, name: 'ResetType', criticality: 'reject', value: resetType(scope) },
        ],
      },
    },
  };
}

/**
 * NG RESET ACKNOWLEDGE (TS 38.413 9.2.6.12). After a partial reset it lists the connections reset
 * (8.7.4.2.2: "shall include ... the UE-associated logical NG-connections").
 */
export function ngResetAcknowledge(reset: ResetType): NGAPPDU {
  const connections = reset.choice === 'partOfNG-Interface' ? reset.value : [];
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 20,
      name: 'NGReset',
      criticality: 'reject',
      value: {
        protocolIEs:
          connections.length === 0
            ? []
            : [
                {
                  id: 111,
                  name: 'UE-associatedLogicalNG-connectionList',
                  criticality: 'ignore',
                  value: connections,
                },
              ],
      },
    },
  };
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
  const ies: ProtocolIEField_ErrorIndicationIEs[] = [];
  if (report.amfUeNgapId !== undefined) {
    ies.push({ id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: report.amfUeNgapId });
  }
  if (report.ranUeNgapId !== undefined) {
    ies.push({ id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: report.ranUeNgapId });
  }
  if (report.cause !== undefined)
    ies.push({ id: 15, name: 'Cause', criticality: 'ignore', value: report.cause });
  if (report.criticalityDiagnostics !== undefined) {
    ies.push({
      id: 19,
      name: 'CriticalityDiagnostics',
      criticality: 'ignore',
      value: report.criticalityDiagnostics,
    });
  }
  return {
    choice: 'initiatingMessage',
    value: { procedureCode: 9, name: 'ErrorIndication', criticality: 'ignore', value: { protocolIEs: ies } },
  };
}

/**
 * AMF CONFIGURATION UPDATE ACKNOWLEDGE (TS 38.413 9.2.6.8). The simulator keeps its one association, so
 * it sets up no TNL association the AMF offers: the lists are left out.
 */
export function amfConfigurationUpdateAcknowledge(): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 0,
      name: 'AMFConfigurationUpdate',
      criticality: 'reject',
      value: { protocolIEs: [] },
    },
  };
}
