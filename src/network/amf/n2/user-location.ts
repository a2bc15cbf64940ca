import { bitStringHex } from '../../asn1/bit-string.ts';
import type { ServingCell } from '../../network-state.ts';
import type { TAI, UserLocationInformation } from '../../ngap/generated/types.ts';
import { plmnOf } from '../../common/plmn-identity.ts';

/**
 * The serving cell named by User Location Information (TS 38.413 9.3.1.16): the NR CGI or E-UTRA CGI
 * with the TAI (network.md section 8). Undefined for N3IWF access, extensions, or a PLMN that does not
 * read as digits.
 */
export function servingCellOf(location: UserLocationInformation): ServingCell | undefined {
  switch (location.choice) {
    case 'userLocationInformationNR': {
      const { nRCGI, tAI } = location.value;
      return cellOf('nr', nRCGI.pLMNIdentity, bitStringHex(nRCGI.nRCellIdentity), tAI);
    }
    case 'userLocationInformationEUTRA': {
      const { eUTRACGI, tAI } = location.value;
      return cellOf('eutra', eUTRACGI.pLMNIdentity, bitStringHex(eUTRACGI.eUTRACellIdentity), tAI);
    }
    case 'userLocationInformationN3IWF':
    case 'choice-Extensions':
      return undefined;
  }
}

function cellOf(
  rat: ServingCell['rat'],
  plmnBytes: Uint8Array,
  cellIdentity: string,
  tai: TAI,
): ServingCell | undefined {
  const plmn = plmnOf(plmnBytes);
  if (plmn === undefined) return undefined;
  return { rat, mcc: plmn.mcc, mnc: plmn.mnc, tac: Buffer.from(tai.tAC).toString('hex'), cellIdentity };
}
