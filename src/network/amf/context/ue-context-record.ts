import type { StoredPduSession, UeContextRecord } from '../../ports/ue-contexts.ts';
import { storedSnssai } from '../../common/stored-snssai.ts';
import type { AmfUe } from './amf-ue.ts';
import { isRegistered } from './gmm-state.ts';

/**
 * The UE context record (ports/ue-contexts.ts) of an AMF UE context and the SM contexts its SMF holds,
 * as plain JSON values: KAMF as hex, absent values as null. Nothing live goes in (connection, procedure,
 * timers). Undefined while the SUPI is not known: the record is keyed by it.
 */
export function ueContextRecord(
  ue: AmfUe,
  pduSessions: StoredPduSession[],
  epoch: number,
  owner: string,
): UeContextRecord | undefined {
  if (ue.supi === undefined) return undefined;
  const { guti, security, ueSecurityCapability: capability, registrationArea: area } = ue;
  return {
    supi: ue.supi,
    epoch,
    owner,
    guti:
      guti === undefined
        ? null
        : {
            mcc: guti.mcc,
            mnc: guti.mnc,
            amfRegionId: guti.amfRegionId,
            amfSetId: guti.amfSetId,
            amfPointer: guti.amfPointer,
            tmsi: guti.tmsi,
          },
    registered: isRegistered(ue),
    pei: ue.pei ?? null,
    security:
      security === undefined
        ? null
        : {
            ngKsi: { mapped: security.ngKsi.mapped, ksi: security.ngKsi.ksi },
            kamf: security.kamf.toString('hex'),
            ciphering: security.ciphering,
            integrity: security.integrity,
            downlinkCount: security.nextSendCount,
            uplinkCount: security.highestReceivedCount ?? null,
          },
    ueSecurityCapability:
      capability === undefined
        ? null
        : {
            ea: [...capability.ea],
            ia: [...capability.ia],
            eea: capability.eea === undefined ? null : [...capability.eea],
            eia: capability.eia === undefined ? null : [...capability.eia],
          },
    registrationArea: area === undefined ? null : { mcc: area.mcc, mnc: area.mnc, tacs: [...area.tacs] },
    allowedNssai: ue.allowedNssai.map(storedSnssai),
    pduSessions,
    smsOverNas: ue.smsOverNas,
  };
}
