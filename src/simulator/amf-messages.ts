import { bitStringHex } from '../network/asn1/bit-string.ts';
import { toHex } from '../network/asn1/hex.ts';
import {
  readAMFConfigurationUpdate,
  readAMFStatusIndication,
  readErrorIndication as readErrorIndicationMessage,
  readNGSetupFailure,
  readNGSetupResponse,
  readRANConfigurationUpdateFailure,
} from '../network/ngap/generated/messages.ts';
import type {
  Cause,
  CPTransportLayerInformation,
  CriticalityDiagnostics,
  GUAMI,
  NGAPPDU,
  PLMNSupportList,
  ServedGUAMIList,
  TimeToWait,
} from '../network/ngap/generated/types.ts';
import type { Plmn } from '../network/radio-id.ts';
import { endpointOf, type TnlEndpoint } from '../network/ngap/transport-layer-address.ts';
import type { Slice } from './gnb-config.ts';

/**
 * Plain readings of what an AMF sends a RAN node, for tests and the command to assert on and print,
 * through the generated readers (TS 38.413 10.3): a message its reader refuses (an IE of criticality
 * reject missing or not comprehended, IEs out of order) reads as undefined; an optional IE, or a
 * mandatory one of criticality ignore, that is absent gives `undefined` or an empty list. Never an
 * exception: the AMF is a peer.
 */

export interface Guami {
  plmn: Plmn;
  /** AMF Region ID (8 bits), Set ID (10 bits), Pointer (6 bits) as hex (TS 23.003 2.10.1). */
  regionId: string;
  setId: string;
  pointer: string;
  /**
   * The AMF that takes this GUAMI's UEs when its own AMF is unavailable (TS 23.501 5.21.2): the
   * backupAMFName of a ServedGUAMIItem or UnavailableGUAMIItem (TS 38.413), present when the AMF named one.
   */
  backupAmfName?: string;
}

/** A GUAMI an AMF Status Indication declares unavailable (TS 38.413 9.3.3.20, UnavailableGUAMIItem). */
export interface UnavailableGuami extends Guami {
  /**
   * Timer Approach for GUAMI Removal `apply-timer`: the AMF will not serve the GUAMI again (a planned
   * removal, TS 23.501 5.21.2.2), so the node removes it once a timer of its own ran out.
   */
  timerApproach: boolean;
}

/** The same GUAMI, whatever backup AMF each names. */
export function sameGuami(a: Guami, b: Guami): boolean {
  return (
    a.plmn.mcc === b.plmn.mcc &&
    a.plmn.mnc === b.plmn.mnc &&
    a.regionId === b.regionId &&
    a.setId === b.setId &&
    a.pointer === b.pointer
  );
}

interface PlmnSupport {
  plmn: Plmn;
  slices: Slice[];
}

/** The AMF as an NG Setup Response or an AMF Configuration Update describes it. */
export interface AmfDescription {
  name: string | undefined;
  servedGuamis: Guami[];
  relativeCapacity: number | undefined;
  plmnSupport: PlmnSupport[];
}

/** Why a procedure failed: `<group>/<value>` (network.md section 3), with what came beside it. */
export interface ProcedureFailure {
  cause: string | undefined;
  timeToWait: TimeToWait | undefined;
  criticalityDiagnostics: CriticalityDiagnostics | undefined;
}

export interface ErrorIndicationReading {
  cause: string | undefined;
  criticalityDiagnostics: CriticalityDiagnostics | undefined;
  amfUeNgapId: number | undefined;
  ranUeNgapId: number | undefined;
}

/** PLMNIdentity (TS 38.413 9.3.3.5) as digits; a digit that is not 0..9 reads `?` (filler dropped). */
function readPlmn(bytes: Uint8Array): Plmn {
  const digit = (nibble: number): string => (nibble <= 9 ? String(nibble) : nibble === 15 ? '' : '?');
  const [b0 = 0, b1 = 0, b2 = 0] = bytes;
  return {
    mcc: digit(b0 & 15) + digit(b0 >> 4) + digit(b1 & 15),
    mnc: digit(b2 & 15) + digit(b2 >> 4) + digit(b1 >> 4),
  };
}

/** A Cause as network.md spells it: `misc/unknown-PLMN-or-SNPN`; an unknown value by its number. */
export function causeText(cause: Cause): string {
  if (cause.choice === 'choice-Extensions') return 'choice-Extensions';
  return `${cause.choice}/${String(cause.value)}`;
}

function readGuami(gUAMI: GUAMI, backupAMFName: string | undefined): Guami {
  return {
    plmn: readPlmn(gUAMI.pLMNIdentity),
    regionId: bitStringHex(gUAMI.aMFRegionID),
    setId: bitStringHex(gUAMI.aMFSetID),
    pointer: bitStringHex(gUAMI.aMFPointer),
    ...(backupAMFName === undefined ? {} : { backupAmfName: backupAMFName }),
  };
}

function readGuamis(list: ServedGUAMIList | undefined): Guami[] {
  return (list ?? []).map(({ gUAMI, backupAMFName }) => readGuami(gUAMI, backupAMFName));
}

function readPlmnSupport(list: PLMNSupportList | undefined): PlmnSupport[] {
  return (list ?? []).map((item) => ({
    plmn: readPlmn(item.pLMNIdentity),
    slices: item.sliceSupportList.map(({ sNSSAI }) => ({
      sst: sNSSAI.sST[0] ?? 0,
      ...(sNSSAI.sD === undefined ? {} : { sd: Number.parseInt(toHex(sNSSAI.sD), 16) }),
    })),
  }));
}

/** The AMF as its NG Setup Response describes it; undefined when `pdu` is none that reads. */
export function readNgSetupResponse(pdu: NGAPPDU): AmfDescription | undefined {
  const read = readNGSetupResponse(pdu);
  if (!read.ok) return undefined;
  const { amfName, servedGuamiList, relativeAmfCapacity, plmnSupportList } = read.message;
  return {
    name: amfName,
    servedGuamis: readGuamis(servedGuamiList),
    relativeCapacity: relativeAmfCapacity,
    plmnSupport: readPlmnSupport(plmnSupportList),
  };
}

/** The fields an AMF Configuration Update carries; absent ones are `undefined` (unchanged). */
export interface AmfConfigurationChanges {
  name: string | undefined;
  servedGuamis: Guami[] | undefined;
  relativeCapacity: number | undefined;
  plmnSupport: PlmnSupport[] | undefined;
  /** AMF TNL Association To Add List (TS 38.413 8.7.3.2): further endpoints to set associations up with. */
  tnlToAdd: OfferedTnlAssociation[] | undefined;
  /** AMF TNL Association To Remove List: endpoints whose associations the node removes (undefined: unreadable). */
  tnlToRemove: (TnlEndpoint | undefined)[] | undefined;
  /** AMF TNL Association To Update List: a new usage or weight factor, each when given. */
  tnlToUpdate: TnlAssociationUpdate[] | undefined;
}

/** One item of AMF TNL Association To Update List (TS 38.413 9.2.6.7). */
export interface TnlAssociationUpdate {
  endpoint: TnlEndpoint | undefined;
  usage: 'ue' | 'non-ue' | 'both' | undefined;
  weight: number | undefined;
}

/** One item of AMF TNL Association To Add List; `endpoint` undefined when its address does not read. */
export interface OfferedTnlAssociation {
  endpoint: TnlEndpoint | undefined;
  /** As sent: the CP Transport Layer Information the acknowledge names it by. */
  address: CPTransportLayerInformation;
  /** TNL Association Usage (9.3.2.9); both when absent. */
  usage: 'ue' | 'non-ue' | 'both';
  weight: number;
}

/** The changes an AMF Configuration Update carries; undefined when `pdu` is none that reads. */
export function readAmfConfigurationUpdate(pdu: NGAPPDU): AmfConfigurationChanges | undefined {
  const read = readAMFConfigurationUpdate(pdu);
  if (!read.ok) return undefined;
  const {
    amfName,
    servedGuamiList,
    relativeAmfCapacity,
    plmnSupportList,
    amfTnlAssociationToAddList,
    amfTnlAssociationToRemoveList,
    amfTnlAssociationToUpdateList,
  } = read.message;
  return {
    name: amfName,
    servedGuamis: servedGuamiList === undefined ? undefined : readGuamis(servedGuamiList),
    relativeCapacity: relativeAmfCapacity,
    plmnSupport: plmnSupportList === undefined ? undefined : readPlmnSupport(plmnSupportList),
    tnlToAdd: amfTnlAssociationToAddList?.map((item) => ({
      endpoint: endpointOf(item.aMFTNLAssociationAddress),
      address: item.aMFTNLAssociationAddress,
      // A usage of a later release is read as both: the node does not know what it restricts.
      usage: typeof item.tNLAssociationUsage === 'string' ? item.tNLAssociationUsage : 'both',
      weight: item.tNLAddressWeightFactor,
    })),
    tnlToRemove: amfTnlAssociationToRemoveList?.map((item) => endpointOf(item.aMFTNLAssociationAddress)),
    tnlToUpdate: amfTnlAssociationToUpdateList?.map((item) => ({
      endpoint: endpointOf(item.aMFTNLAssociationAddress),
      // A usage of a later release is read as both, as in the To Add List.
      usage:
        item.tNLAssociationUsage === undefined
          ? undefined
          : typeof item.tNLAssociationUsage === 'string'
            ? item.tNLAssociationUsage
            : 'both',
      weight: item.tNLAddressWeightFactor,
    })),
  };
}

/** The AMF after a configuration update: each field it carried replaces the old one (TS 38.413 8.7.3.2). */
export function applyAmfConfigurationChanges(
  amf: AmfDescription,
  changes: AmfConfigurationChanges,
): AmfDescription {
  return {
    name: changes.name ?? amf.name,
    servedGuamis: changes.servedGuamis ?? amf.servedGuamis,
    relativeCapacity: changes.relativeCapacity ?? amf.relativeCapacity,
    plmnSupport: changes.plmnSupport ?? amf.plmnSupport,
  };
}

/**
 * Why the AMF refused NG Setup or a RAN Configuration Update: the NG Setup Failure or RAN Configuration
 * Update Failure in `pdu`; undefined when it is neither, or does not read.
 */
export function readFailure(pdu: NGAPPDU): ProcedureFailure | undefined {
  const read =
    pdu.choice === 'unsuccessfulOutcome' && pdu.value.name === 'RANConfigurationUpdate'
      ? readRANConfigurationUpdateFailure(pdu)
      : readNGSetupFailure(pdu);
  if (!read.ok) return undefined;
  const { cause, timeToWait, criticalityDiagnostics } = read.message;
  return { cause: cause === undefined ? undefined : causeText(cause), timeToWait, criticalityDiagnostics };
}

/**
 * The GUAMIs an AMF Status Indication declares unavailable (TS 38.413 8.7.6), each with the backup AMF
 * named for it; undefined when `pdu` is none that reads.
 */
export function readAmfStatusIndication(pdu: NGAPPDU): UnavailableGuami[] | undefined {
  const read = readAMFStatusIndication(pdu);
  if (!read.ok) return undefined;
  return read.message.unavailableGuamiList.map((item) => ({
    ...readGuami(item.gUAMI, item.backupAMFName),
    timerApproach: item.timerApproachForGUAMIRemoval === 'apply-timer',
  }));
}

/** What an Error Indication from the AMF says; undefined when `pdu` is none that reads. */
export function readErrorIndication(pdu: NGAPPDU): ErrorIndicationReading | undefined {
  const read = readErrorIndicationMessage(pdu);
  if (!read.ok) return undefined;
  const { cause, criticalityDiagnostics, amfUeNgapId, ranUeNgapId } = read.message;
  return {
    cause: cause === undefined ? undefined : causeText(cause),
    criticalityDiagnostics,
    amfUeNgapId,
    ranUeNgapId,
  };
}
