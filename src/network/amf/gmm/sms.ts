import { PAYLOAD_CONTAINER_SMS } from '../../sms/index.ts';
import { REGISTRATION_TYPE, type NasMessageOf } from '../../nas/index.ts';
import type { SmsfAmfPort, SmsTransferOutcome } from '../../smsf/ports/amf.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { contextSetUp } from '../context/cm-state.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { sendNas, type NasLinkAmf } from './nas-link.ts';

/** The parts of the AMF context SMS over NAS uses. */
type SmsAmf = Pick<AmfContext, 'sms' | 'ues'> & NasLinkAmf;

/** How long a transfer waits for a paged UE to come back (as a location request waits, network.md 8). */
const SMS_PAGING_WAIT_MS = 5_000;

/**
 * TS 24.501 9.11.3.9A: the 5GS update type's "SMS requested" bit (bit 1 of its value): the UE asks for
 * SMS over NAS in this registration (5.5.1.2.2, 5.5.1.3.2).
 */
function smsRequested(request: NasMessageOf<'registrationRequest'>): boolean {
  return ((request.fiveGsUpdateType?.[0] ?? 0) & 0x01) !== 0;
}

/**
 * UL NAS Transport with payload container type SMS (TS 24.501 5.4.5.2.3): the CP message goes to the
 * SMSF (Nsmsf_SMService_UplinkSMS, TS 23.502 4.13.3.1). Only a registered UE's; without an SMSF the
 * container is dropped (the UE's TC1* gives up on it).
 */
export function smsUplink(amf: SmsAmf, ue: AmfUe, message: NasMessageOf<'ulNasTransport'>): void {
  if (ue.supi === undefined || !isRegistered(ue)) return;
  amf.sms?.uplinkSms(ue.supi, message.payloadContainer);
}

/**
 * The SMSF's downlink (Namf_Communication_N1N2MessageTransfer, TS 23.502 4.13.3.2 and 4.13.3.3): the
 * SMS container in DL NAS Transport with payload container type SMS (TS 24.501 8.2.11), to a registered
 * UE; an idle one is paged first through `reach` (the location's paging and wait, amf/location.ts).
 * `context` is read when a request comes.
 */
export function smsTransfer(
  context: () => SmsAmf,
  reach: (imsi: string, withinMs: number) => Promise<boolean>,
): SmsfAmfPort {
  return {
    async transfer(supi, container): Promise<SmsTransferOutcome> {
      const amf = context();
      let ue = amf.ues.bySupi(supi);
      if (ue === undefined || !isRegistered(ue)) return 'unreachable';
      if (!contextSetUp(ue)) {
        if (!(await reach(supi, SMS_PAGING_WAIT_MS))) return 'unreachable';
        ue = amf.ues.bySupi(supi);
        if (ue === undefined) return 'unreachable';
      }
      const sent = sendNas(
        amf,
        ue,
        {
          messageType: 'dlNasTransport',
          payloadContainerType: PAYLOAD_CONTAINER_SMS,
          payloadContainer: container,
        },
        { kind: 'current' },
      );
      return sent ? 'sent' : 'unreachable';
    },
  };
}

/**
 * SMS over NAS in a registration (TS 23.502 4.13.2.1, TS 24.501 5.5.1.2.4, 5.5.1.3.4): a UE that asks
 * for it (the 5GS update type's "SMS requested" bit; an update without the IE keeps what it had) is
 * activated at the SMSF (Nsmsf_SMService_Activate), whose answer is the Registration Accept's "SMS over
 * NAS allowed"; a UE that no longer asks is deactivated (4.13.2.3).
 */
export async function smsOverNas(
  amf: SmsAmf,
  ue: AmfUe,
  request: NasMessageOf<'registrationRequest'>,
): Promise<boolean> {
  const supi = ue.supi;
  if (amf.sms === undefined || supi === undefined) return false;
  const asked =
    request.fiveGsUpdateType === undefined && request.registrationType.value !== REGISTRATION_TYPE.initial
      ? ue.smsOverNas
      : smsRequested(request);
  if (!asked) {
    if (ue.smsOverNas) amf.sms.deactivate(supi);
    ue.smsOverNas = false;
    return false;
  }
  ue.smsOverNas = await amf.sms.activate(supi);
  return ue.smsOverNas;
}

/**
 * SMS over NAS for a UE this AMF took over from another member of its set (takeover.ts): activated at
 * its SMSF (Nsmsf_SMService_Activate, TS 23.502 4.13.2.2, the profile checked again) when the UE was last
 * told it is allowed (TS 24.501 9.11.3.6), so it sends and receives short messages without registering
 * again.
 */
export async function smsTakenOver(amf: Pick<AmfContext, 'sms'>, ue: AmfUe, allowed: boolean): Promise<void> {
  if (!allowed || amf.sms === undefined || ue.supi === undefined) return;
  ue.smsOverNas = await amf.sms.activate(ue.supi);
}
