import type { GUAMI } from '../../ngap/generated/types.ts';
import { bits, plmnIdentity } from '../../ngap/ngap-values.ts';
import type { Plmn } from '../../radio-id.ts';

/**
 * Who this AMF is towards radios (TS 23.003 2.10.1 GUAMI, TS 38.413 9.3.3.21-9.3.3.23): its name, the
 * AMF Region ID, AMF Set ID and AMF Pointer of its GUAMI under the operator's PLMN, and the relative
 * capacity it announces. Process settings, not operator data: they change with a restart.
 */
export interface AmfIdentity {
  /** AMFName: PrintableString, 1..150 characters. */
  name: string;
  /** AMF Region ID, 8 bits. */
  regionId: number;
  /** AMF Set ID, 10 bits. */
  setId: number;
  /** AMF Pointer, 6 bits. */
  pointer: number;
  /** RelativeAMFCapacity, 0..255 (TS 23.501 5.21.2.1: weight among the AMFs of a set). */
  relativeCapacity: number;
}

export const DEFAULT_AMF_IDENTITY: AmfIdentity = {
  name: 'pmn-amf',
  regionId: 1,
  setId: 1,
  pointer: 0,
  relativeCapacity: 255,
};

/** X.680 41.4: the characters of a PrintableString. */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]{1,150}$/;

/** Why an identity cannot be announced, or undefined when it can. */
export function amfIdentityProblem(identity: AmfIdentity): string | undefined {
  const field = (value: number, max: number): boolean =>
    Number.isInteger(value) && value >= 0 && value <= max;
  if (!PRINTABLE.test(identity.name))
    return "the AMF name must be 1 to 150 characters of letters, digits, space and '()+,-./:=?";
  if (!field(identity.regionId, 255)) return 'the AMF region id must be an integer in 0..255';
  if (!field(identity.setId, 1023)) return 'the AMF set id must be an integer in 0..1023';
  if (!field(identity.pointer, 63)) return 'the AMF pointer must be an integer in 0..63';
  if (!field(identity.relativeCapacity, 255)) return 'the AMF relative capacity must be an integer in 0..255';
  return undefined;
}

/** The GUAMI this AMF serves under the operator's PLMN. */
export function guami(identity: AmfIdentity, plmn: Plmn): GUAMI {
  return {
    pLMNIdentity: plmnIdentity(plmn.mcc, plmn.mnc),
    aMFRegionID: bits(identity.regionId, 8),
    aMFSetID: bits(identity.setId, 10),
    aMFPointer: bits(identity.pointer, 6),
  };
}
