// Core Network Assistance Information for RRC INACTIVE (TS 38.413 9.3.1.15; TS 23.501 5.3.3.2.5): what
// the radio needs to keep a CM-CONNECTED UE in RRC_INACTIVE and page it there (RAN paging) on the same
// occasions and in the same area as the AMF would page it in CM-IDLE.
import type { GprsTimer } from '../../nas/index.ts';
import type { BitString } from '../../asn1/bit-string.ts';
import type { CoreNetworkAssistanceInformationForInactive } from '../../ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../ngap/ngap-values.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { gprsTimerOf } from '../gmm/gprs-timer.ts';

/**
 * UE Identity Index Value, Index Length 10 (TS 38.413 9.3.3.23): UE_ID = 5G-S-TMSI mod 1024 (TS 38.304
 * 7.1). The 5G-S-TMSI is AMF Set ID, AMF Pointer and 5G-TMSI with the 5G-TMSI in its low 32 bits
 * (TS 23.003 2.11), so the index is the 5G-TMSI's low 10 bits.
 */
export function ueIdentityIndexValue(fiveGTmsi: number): BitString {
  return bits(fiveGTmsi % 1024, 10);
}

/**
 * Periodic Registration Update Timer (TS 38.413 9.3.3.24): BIT STRING (SIZE(8)) coded as the value part
 * of GPRS timer 3 (TS 24.008 10.5.7.4a), unit in bits 8-6 and value in bits 5-1: the T3512 value the UE
 * was given in Registration Accept.
 */
export function periodicRegistrationUpdateTimer(t3512: GprsTimer): BitString {
  return bits(((t3512.unit & 0b111) << 5) | (t3512.value & 0b11111), 8);
}

/**
 * The IE for a UE with a 5G-GUTI and a registration area (undefined before it has both), given the T3512
 * value of its Registration Accept. No UE-specific DRX: the AMF negotiates none (TS 24.501 5.5.1.2.4), so
 * the radio uses the default paging cycle; no MICO indication: the AMF does not allow MICO mode. The TAI
 * List for RRC Inactive is the registration area (TS 23.501 5.3.3.2.5: the RAN notification area lies
 * within it).
 */
export function inactiveAssistance(
  ue: Pick<AmfUe, 'guti' | 'registrationArea'>,
  t3512: GprsTimer,
): CoreNetworkAssistanceInformationForInactive | undefined {
  const { guti, registrationArea: area } = ue;
  if (guti === undefined || area === undefined) return undefined;
  const identity = plmnIdentity(area.mcc, area.mnc);
  return {
    uEIdentityIndexValue: { choice: 'indexLength10', value: ueIdentityIndexValue(guti.tmsi) },
    periodicRegistrationUpdateTimer: periodicRegistrationUpdateTimer(t3512),
    tAIListForInactive: area.tacs.map((value) => ({ tAI: { pLMNIdentity: identity, tAC: tac(value) } })),
  };
}

/** The IE for `ue` with the AMF's T3512 (`t3512Ms`) as Registration Accept codes it. */
export function inactiveAssistanceFor(
  ue: Pick<AmfUe, 'guti' | 'registrationArea'>,
  t3512Ms: number,
): CoreNetworkAssistanceInformationForInactive | undefined {
  return inactiveAssistance(ue, gprsTimerOf(t3512Ms, 'timer3'));
}

/** Two assistance values say the same (a change is sent to the radio, an equal one is not). */
export function sameAssistance(
  a: CoreNetworkAssistanceInformationForInactive | undefined,
  b: CoreNetworkAssistanceInformationForInactive,
): boolean {
  if (a === undefined) return false;
  const index = (x: CoreNetworkAssistanceInformationForInactive) =>
    x.uEIdentityIndexValue.choice === 'indexLength10' ? x.uEIdentityIndexValue.value.bytes.join() : '';
  const tais = (x: CoreNetworkAssistanceInformationForInactive) =>
    x.tAIListForInactive.map(({ tAI }) => `${tAI.pLMNIdentity.join()}/${tAI.tAC.join()}`).join();
  return (
    index(a) === index(b) &&
    a.periodicRegistrationUpdateTimer.bytes.join() === b.periodicRegistrationUpdateTimer.bytes.join() &&
    tais(a) === tais(b)
  );
}
