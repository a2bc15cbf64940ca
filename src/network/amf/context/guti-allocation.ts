import type { Guti } from '../../nas/index.ts';
import type { Plmn } from '../../radio-id.ts';
import type { AmfContext } from './amf-context.ts';

/** The parts of the AMF context this procedure uses. */
export type GutiAllocationAmf = Pick<AmfContext, 'identity' | 'randomTmsi' | 'ues'>;

/**
 * A new 5G-GUTI under `plmn` (TS 23.003 2.10.1): this AMF's GUAMI and a 5G-TMSI no UE holds, random so
 * that it cannot be guessed from the last one (TS 33.501 6.12.3).
 */
export function newGuti(amf: GutiAllocationAmf, plmn: Plmn): Guti {
  let tmsi: number;
  do tmsi = amf.randomTmsi();
  while (amf.ues.tmsiInUse(tmsi));
  return {
    type: '5g-guti',
    mcc: plmn.mcc,
    mnc: plmn.mnc,
    amfRegionId: amf.identity.regionId,
    amfSetId: amf.identity.setId,
    amfPointer: amf.identity.pointer,
    tmsi,
  };
}
