import type { Guti } from '../../nas/index.ts';
import type { FiveGSTMSI } from '../../ngap/generated/types.ts';
import { bits } from '../../ngap/ngap-values.ts';
import type { AmfUe, PagingPurpose } from '../context/amf-ue.ts';
import { startRetransmissionTimer } from '../../common/nas-timer.ts';
import { deregister } from './ue-lifecycle.ts';
import type { LifecycleAmf } from './ue-lifecycle.ts';

/** The parts of the AMF context this procedure uses. */
type PagingAmf = LifecycleAmf;

/**
 * Paging (TS 24.501 5.6.2.2, TS 38.413 8.5) of an idle UE, for a network-initiated deregistration or
 * for downlink data of its PDU sessions: its 5G-S-TMSI over the tracking areas of its registration
 * area, through the radios serving one of them (`pageUe`). T3513 repeats it. Without a Service Request after the
 * last repetition (5.6.2.2.2 a) the procedure is aborted: a UE paged to be deregistered is deregistered
 * locally; one paged for downlink data stays registered and idle, and the SMF forgets that data
 * (TS 23.502 4.2.3.3 step 4c). False when the UE cannot be paged (no 5G-GUTI, or no radio to page
 * through).
 */
export function paging(amf: PagingAmf, ue: AmfUe, purpose: PagingPurpose): boolean {
  const send = (): number => pageUe(amf, ue);
  if (send() === 0) return false;
  const timer = startRetransmissionTimer(
    amf.timers,
    { ms: amf.settings.t3513Ms, retransmissions: amf.settings.retransmissions },
    () => void send(),
    () => {
      switch (purpose.kind) {
        case 'deregistration':
          deregister(amf, ue);
          return;
        case 'downlink-data':
          ue.procedure = { kind: 'none' };
          if (ue.supi !== undefined) amf.smf?.pagingFailed(ue.supi);
          return;
      }
    },
  );
  ue.procedure = { kind: 'paging', purpose, timer };
  return true;
}

/**
 * One Paging of `ue` over its registration area; the radios asked (0: none, or no 5G-GUTI or area).
 * While a Configuration Update's new 5G-GUTI is unacknowledged the UE may hold either one, so it is
 * paged under both (TS 24.501 5.4.4.5: both stay valid).
 */
export function pageUe(amf: PagingAmf, ue: AmfUe): number {
  const area = ue.registrationArea;
  if (ue.guti === undefined || area === undefined) return 0;
  const forPaging = ue.radioCapability?.forPaging;
  const radios = amf.ngap.page(fiveGSTmsiOf(ue.guti), area, forPaging);
  return ue.oldGuti === undefined
    ? radios
    : Math.max(radios, amf.ngap.page(fiveGSTmsiOf(ue.oldGuti), area, forPaging));
}

/** The 5G-S-TMSI of a 5G-GUTI (TS 23.003 2.11), as a Paging's UE Paging Identity carries it (TS 38.413 8.5.1). */
export function fiveGSTmsiOf(guti: Guti): FiveGSTMSI {
  const tmsi = guti.tmsi;
  return {
    aMFSetID: bits(guti.amfSetId, 10),
    aMFPointer: bits(guti.amfPointer, 6),
    fiveGTMSI: Uint8Array.of(tmsi >>> 24, (tmsi >>> 16) & 0xff, (tmsi >>> 8) & 0xff, tmsi & 0xff),
  };
}
