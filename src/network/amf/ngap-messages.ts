import type {
  Cause,
  CriticalityDiagnostics,
  NGAPPDU,
  PLMNSupportList,
  ResetType,
  ServedGUAMIList,
  UEassociatedLogicalNGconnectionList,
  TimeToWait,
} from '../ngap/generated/types.ts';

/**
 * The PDUs the AMF sends in the procedures without a UE (TS 38.413 8.7, 8.2.7 Error Indication), built
 * from their IEs as NGAP-PDU-Contents lists them, with the criticalities given there.
 */

/** NG SETUP RESPONSE (TS 38.413 9.2.6.2). */
export function ngSetupResponse(ies: {
  amfName: string;
  servedGuamis: ServedGUAMIList;
  relativeCapacity: number;
  plmnSupport: PLMNSupportList;
}): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 21,
      name: 'NGSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 1, name: 'AMFName', criticality: 'reject', value: ies.amfName },
          { id: 96, name: 'ServedGUAMIList', criticality: 'reject', value: ies.servedGuamis },
          { id: 86, name: 'RelativeAMFCapacity', criticality: 'ignore', value: ies.relativeCapacity },
          { id: 80, name: 'PLMNSupportList', criticality: 'reject', value: ies.plmnSupport },
        ],
      },
    },
  };
}

/** NG SETUP FAILURE (TS 38.413 9.2.6.3). */
export function ngSetupFailure(
  cause: Cause,
  diagnostics?: CriticalityDiagnostics,
  timeToWait?: TimeToWait,
): NGAPPDU {
  return {
    choice: 'unsuccessfulOutcome',
    value: {
      procedureCode: 21,
      name: 'NGSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
          ...(timeToWait === undefined
            ? []
            : [{ id: 107, name: 'TimeToWait', criticality: 'ignore', value: timeToWait } as const]),
          ...(diagnostics === undefined
            ? []
            : [
                {
                  id: 19,
                  name: 'CriticalityDiagnostics',
                  criticality: 'ignore',
                  value: diagnostics,
                } as const,
              ]),
        ],
      },
    },
  };
}

/** RAN CONFIGURATION UPDATE ACKNOWLEDGE (TS 38.413 9.2.6.5). */
export function ranConfigurationUpdateAcknowledge(): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 35,
      name: 'RANConfigurationUpdate',
      criticality: 'reject',
      value: { protocolIEs: [] },
    },
  };
}

/** RAN CONFIGURATION UPDATE FAILURE (TS 38.413 9.2.6.6). */
export function ranConfigurationUpdateFailure(cause: Cause, diagnostics?: CriticalityDiagnostics): NGAPPDU {
  return {
    choice: 'unsuccessfulOutcome',
    value: {
      procedureCode: 35,
      name: 'RANConfigurationUpdate',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
          ...(diagnostics === undefined
            ? []
            : [
                {
                  id: 19,
                  name: 'CriticalityDiagnostics',
                  criticality: 'ignore',
                  value: diagnostics,
                } as const,
              ]),
        ],
      },
    },
  };
}

/** NG RESET (TS 38.413 9.2.6.11), as the AMF initiates it. */
export function ngReset(cause: Cause, resetType: ResetType): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 20,
      name: 'NGReset',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
          { id: 88, name: 'ResetType', criticality: 'reject', value: resetType },
        ],
      },
    },
  };
}

/**
 * NG RESET ACKNOWLEDGE (TS 38.413 9.2.6.12). After a partial reset it lists the UE-associated logical
 * NG-connections that were reset (8.7.4.2.2), in the order received.
 */
export function ngResetAcknowledge(connections?: UEassociatedLogicalNGconnectionList): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 20,
      name: 'NGReset',
      criticality: 'reject',
      value: {
        protocolIEs:
          connections === undefined || connections.length === 0
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

/** ERROR INDICATION (TS 38.413 9.2.7.1): a cause and, for protocol errors, Criticality Diagnostics. */
export function errorIndication(ies: {
  cause: Cause;
  diagnostics?: CriticalityDiagnostics;
  amfUeNgapId?: number;
  ranUeNgapId?: number;
}): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 9,
      name: 'ErrorIndication',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          ...(ies.amfUeNgapId === undefined
            ? []
            : [{ id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: ies.amfUeNgapId } as const]),
          ...(ies.ranUeNgapId === undefined
            ? []
            : [{ id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ies.ranUeNgapId } as const]),
          { id: 15, name: 'Cause', criticality: 'ignore', value: ies.cause },
          ...(ies.diagnostics === undefined
            ? []
            : [
                {
                  id: 19,
                  name: 'CriticalityDiagnostics',
                  criticality: 'ignore',
                  value: ies.diagnostics,
                } as const,
              ]),
        ],
      },
    },
  };
}

/** AMF CONFIGURATION UPDATE (TS 38.413 9.2.6.7): the served GUAMIs and PLMN support as they are now. */
export function amfConfigurationUpdate(ies: {
  amfName: string;
  servedGuamis: ServedGUAMIList;
  relativeCapacity: number;
  plmnSupport: PLMNSupportList;
}): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 0,
      name: 'AMFConfigurationUpdate',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 1, name: 'AMFName', criticality: 'reject', value: ies.amfName },
          { id: 96, name: 'ServedGUAMIList', criticality: 'reject', value: ies.servedGuamis },
          { id: 86, name: 'RelativeAMFCapacity', criticality: 'ignore', value: ies.relativeCapacity },
          { id: 80, name: 'PLMNSupportList', criticality: 'reject', value: ies.plmnSupport },
        ],
      },
    },
  };
}
