import { bitStringHex } from '../network/asn1/bit-string.ts';
import { toHex } from '../network/asn1/hex.ts';
import type {
  Cause,
  CriticalityDiagnostics,
  PLMNSupportList,
  ServedGUAMIList,
  TimeToWait,
} from '../network/ngap/generated/types.ts';
import type {
  AMFConfigurationUpdate,
  ErrorIndication,
  NGSetupFailure,
  NGSetupResponse,
  RANConfigurationUpdateFailure,
} from '../network/ngap/generated/types.ts';
import { ieValue } from '../network/ngap/ngap-values.ts';
import type { Plmn } from '../network/radio-id.ts';
import type { Slice } from './gnb-config.ts';

/**
 * Plain readings of what an AMF sends a RAN node, for tests and the command to assert on and print.
 * The AMF is a peer: a missing or odd IE gives `undefined` or an empty list, never an exception.
 */

export interface Guami {
  plmn: Plmn;
  /** AMF Region ID (8 bits), Set ID (10 bits), Pointer (6 bits) as hex (TS 23.003 2.10.1). */
  regionId: string;
  setId: string;
  pointer: string;
}

export interface PlmnSupport {
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
export function readPlmn(bytes: Uint8Array): Plmn {
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

function readGuamis(list: ServedGUAMIList | undefined): Guami[] {
  return (list ?? []).map(({ gUAMI }) => ({
    plmn: readPlmn(gUAMI.pLMNIdentity),
    regionId: bitStringHex(gUAMI.aMFRegionID),
    setId: bitStringHex(gUAMI.aMFSetID),
    pointer: bitStringHex(gUAMI.aMFPointer),
  }));
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

export function readNgSetupResponse(message: NGSetupResponse): AmfDescription {
  const ies = message.protocolIEs;
  return {
    name: ieValue(ies, 'AMFName'),
    servedGuamis: readGuamis(ieValue(ies, 'ServedGUAMIList')),
    relativeCapacity: ieValue(ies, 'RelativeAMFCapacity'),
    plmnSupport: readPlmnSupport(ieValue(ies, 'PLMNSupportList')),
  };
}

/** The fields an AMF Configuration Update carries; absent ones are `undefined` (unchanged). */
export interface AmfConfigurationChanges {
  name: string | undefined;
  servedGuamis: Guami[] | undefined;
  relativeCapacity: number | undefined;
  plmnSupport: PlmnSupport[] | undefined;
}

export function readAmfConfigurationUpdate(message: AMFConfigurationUpdate): AmfConfigurationChanges {
  const ies = message.protocolIEs;
  const guamis = ieValue(ies, 'ServedGUAMIList');
  const support = ieValue(ies, 'PLMNSupportList');
  return {
    name: ieValue(ies, 'AMFName'),
    servedGuamis: guamis === undefined ? undefined : readGuamis(guamis),
    relativeCapacity: ieValue(ies, 'RelativeAMFCapacity'),
    plmnSupport: support === undefined ? undefined : readPlmnSupport(support),
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

export function readFailure(message: NGSetupFailure | RANConfigurationUpdateFailure): ProcedureFailure {
  const ies = message.protocolIEs;
  const cause = ieValue(ies, 'Cause');
  return {
    cause: cause === undefined ? undefined : causeText(cause),
    timeToWait: ieValue(ies, 'TimeToWait'),
    criticalityDiagnostics: ieValue(ies, 'CriticalityDiagnostics'),
  };
}

export function readErrorIndication(message: ErrorIndication): ErrorIndicationReading {
  const ies = message.protocolIEs;
  const cause = ieValue(ies, 'Cause');
  return {
    cause: cause === undefined ? undefined : causeText(cause),
    criticalityDiagnostics: ieValue(ies, 'CriticalityDiagnostics'),
    amfUeNgapId: ieValue(ies, 'AMF-UE-NGAP-ID'),
    ranUeNgapId: ieValue(ies, 'RAN-UE-NGAP-ID'),
  };
}
