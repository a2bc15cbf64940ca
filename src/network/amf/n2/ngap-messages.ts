import {
  buildAMFConfigurationUpdate,
  buildAMFStatusIndication,
  buildErrorIndication,
  buildNGReset,
  buildNGResetAcknowledge,
  buildNGSetupFailure,
  buildNGSetupResponse,
  buildOverloadStart,
  buildOverloadStop,
  buildRANConfigurationUpdateAcknowledge,
  buildRANConfigurationUpdateFailure,
} from '../../ngap/generated/messages.ts';
import type {
  Cause,
  CriticalityDiagnostics,
  NGAPPDU,
  PLMNSupportList,
  ResetType,
  ServedGUAMIList,
  UEassociatedLogicalNGconnectionList,
  UnavailableGUAMIList,
  TimeToWait,
} from '../../ngap/generated/types.ts';
import type { TnlAssociationChange } from './tnl-associations.ts';

/**
 * The PDUs the AMF sends in the procedures without a UE (TS 38.413 8.7, 8.2.7 Error Indication), from
 * the AMF's own terms to the generated message builders (ids and criticalities of NGAP-PDU-Contents).
 */

/** What the AMF says of itself in NG Setup Response and AMF Configuration Update. */
interface AmfDescriptionIes {
  amfName: string;
  servedGuamis: ServedGUAMIList;
  relativeCapacity: number;
  plmnSupport: PLMNSupportList;
}

/** NG SETUP RESPONSE (TS 38.413 9.2.6.2). */
export function ngSetupResponse(ies: AmfDescriptionIes): NGAPPDU {
  return buildNGSetupResponse({
    amfName: ies.amfName,
    servedGuamiList: ies.servedGuamis,
    relativeAmfCapacity: ies.relativeCapacity,
    plmnSupportList: ies.plmnSupport,
  });
}

/** NG SETUP FAILURE (TS 38.413 9.2.6.3). */
export function ngSetupFailure(
  cause: Cause,
  diagnostics?: CriticalityDiagnostics,
  timeToWait?: TimeToWait,
): NGAPPDU {
  return buildNGSetupFailure({ cause, timeToWait, criticalityDiagnostics: diagnostics });
}

/** RAN CONFIGURATION UPDATE ACKNOWLEDGE (TS 38.413 9.2.6.5). */
export function ranConfigurationUpdateAcknowledge(): NGAPPDU {
  return buildRANConfigurationUpdateAcknowledge({});
}

/** RAN CONFIGURATION UPDATE FAILURE (TS 38.413 9.2.6.6). */
export function ranConfigurationUpdateFailure(cause: Cause, diagnostics?: CriticalityDiagnostics): NGAPPDU {
  return buildRANConfigurationUpdateFailure({ cause, criticalityDiagnostics: diagnostics });
}

/** NG RESET (TS 38.413 9.2.6.11), as the AMF initiates it. */
export function ngReset(cause: Cause, resetType: ResetType): NGAPPDU {
  return buildNGReset({ cause, resetType });
}

/**
 * NG RESET ACKNOWLEDGE (TS 38.413 9.2.6.12). After a partial reset it lists the UE-associated logical
 * NG-connections that were reset (8.7.4.2.2), in the order received.
 */
export function ngResetAcknowledge(connections?: UEassociatedLogicalNGconnectionList): NGAPPDU {
  const reset = connections === undefined || connections.length === 0 ? undefined : connections;
  return buildNGResetAcknowledge({ ueAssociatedLogicalNgConnectionList: reset });
}

/** ERROR INDICATION (TS 38.413 9.2.7.1): a cause and, for protocol errors, Criticality Diagnostics. */
export function errorIndication(ies: {
  cause: Cause;
  diagnostics?: CriticalityDiagnostics;
  amfUeNgapId?: number;
  ranUeNgapId?: number;
}): NGAPPDU {
  const { diagnostics, ...rest } = ies;
  return buildErrorIndication({ ...rest, criticalityDiagnostics: diagnostics });
}

/**
 * AMF CONFIGURATION UPDATE (TS 38.413 9.2.6.7): the AMF's description as it is now when given, and the
 * AMF TNL association lists when the further endpoints changed; IEs absent leave what they describe as
 * it was (8.7.3.2).
 */
export function amfConfigurationUpdate(
  description: AmfDescriptionIes | undefined,
  tnl: TnlAssociationChange = {},
): NGAPPDU {
  return buildAMFConfigurationUpdate({
    ...(description === undefined
      ? {}
      : {
          amfName: description.amfName,
          servedGuamiList: description.servedGuamis,
          relativeAmfCapacity: description.relativeCapacity,
          plmnSupportList: description.plmnSupport,
        }),
    amfTnlAssociationToAddList: tnl.toAdd,
    amfTnlAssociationToRemoveList: tnl.toRemove,
    amfTnlAssociationToUpdateList: tnl.toUpdate,
  });
}

/** AMF STATUS INDICATION (TS 38.413 9.2.6.9): the GUAMIs this AMF no longer serves, each with its backup. */
export function amfStatusIndication(unavailable: UnavailableGUAMIList): NGAPPDU {
  return buildAMFStatusIndication({ unavailableGuamiList: unavailable });
}

/**
 * OVERLOAD START (TS 38.413 9.2.6.14, 8.7.7), sent when the AMF holds its limit of UE contexts (gmm/overload.ts).
 * The action is "reject RRC connection establishments for signalling" (8.7.7.2): the load the AMF sheds is
 * new devices' registrations, which come with RRC cause mo-Signalling, and no action spares those while
 * rejecting others (the RRC cause cannot tell a new device from a registered one). Emergency and
 * mobile-terminated access still pass, so paged devices answer. No Traffic Load Reduction Indication:
 * every establishment of those kinds is rejected until Overload Stop.
 */
export function overloadStart(): NGAPPDU {
  return buildOverloadStart({
    amfOverloadResponse: { choice: 'overloadAction', value: 'reject-rrc-cr-signalling' },
  });
}

/** OVERLOAD STOP (TS 38.413 9.2.6.15, 8.7.8): the radio resumes normal operation towards the AMF. */
export function overloadStop(): NGAPPDU {
  return buildOverloadStop({});
}
