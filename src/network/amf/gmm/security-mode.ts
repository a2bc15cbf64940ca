import type { NasAlgorithm } from '../../../crypto/nas-algorithms.ts';
import { ABBA } from '../../security/kamf.ts';
import type { NasKeySetIdentifier, NasMessageOf, UeSecurityCapability } from '../../nas/index.ts';
import { createNasSecurityContext, type NasSecurityContext } from '../../nas-security/index.ts';
import type { CipheringAlgorithm, IntegrityAlgorithm } from '../../ports/operator-configuration.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe, PendingRegistration } from '../context/amf-ue.ts';
import { sendNas } from './nas-link.ts';
import { startRetransmissionTimer } from '../../common/nas-timer.ts';
import type { NasLinkAmf } from './nas-link.ts';

/** The parts of the AMF context this procedure uses. */
type SecurityModeAmf = Pick<AmfContext, 'settings' | 'timers'> & NasLinkAmf;

/** IMEISV request (TS 24.501 9.11.3.28): 001, IMEISV requested. */
const IMEISV_REQUESTED = 1;
/** Additional 5G security information (9.11.3.12): RINMR, bit 2, asks for the whole initial message. */
const RETRANSMISSION_OF_INITIAL_NAS_MESSAGE_REQUESTED = 0x02;

interface SelectedAlgorithms {
  ciphering: NasAlgorithm;
  integrity: NasAlgorithm;
}

const algorithmNumber = (name: CipheringAlgorithm | IntegrityAlgorithm): NasAlgorithm =>
  Number(name.slice(3)) as NasAlgorithm;

/**
 * The NAS algorithms (TS 33.501 6.7.1): the operator's most preferred ones the UE supports. NIA0 is
 * never chosen: it serves emergency registration only (TS 33.501 5.5.2), which this AMF does not offer.
 * Undefined when no acceptable pair exists.
 */
export function selectAlgorithms(
  preferences: { ciphering: readonly CipheringAlgorithm[]; integrity: readonly IntegrityAlgorithm[] },
  capability: UeSecurityCapability,
): SelectedAlgorithms | undefined {
  const ciphering = preferences.ciphering.map(algorithmNumber).find((a) => capability.ea.includes(a));
  const integrity = preferences.integrity
    .map(algorithmNumber)
    .find((a) => a !== 0 && capability.ia.includes(a));
  return ciphering === undefined || integrity === undefined ? undefined : { ciphering, integrity };
}

/**
 * Security Mode Command (TS 24.501 5.4.2.2): takes the new KAMF into use with the selected algorithms,
 * replays the UE's security capabilities and, for a registration, asks for the IMEISV and for the whole
 * Registration Request (RINMR). A re-keying (`registration` undefined, gmm/rekeying.ts) asks for
 * neither: the AMF holds both. Integrity protected with the new context, not ciphered; T3560
 * retransmits it.
 */
export function startSecurityMode(
  amf: SecurityModeAmf,
  ue: AmfUe,
  registration: PendingRegistration | undefined,
  key: { kamf: Buffer; ngKsi: NasKeySetIdentifier },
  algorithms: SelectedAlgorithms,
  capability: UeSecurityCapability,
  expired: () => void,
): NasSecurityContext {
  const context = createNasSecurityContext({
    side: 'network',
    ngKsi: key.ngKsi,
    kamf: key.kamf,
    ciphering: algorithms.ciphering,
    integrity: algorithms.integrity,
  });
  const command: NasMessageOf<'securityModeCommand'> = {
    messageType: 'securityModeCommand',
    selectedNasSecurityAlgorithms: algorithms,
    ngKsi: key.ngKsi,
    replayedUeSecurityCapabilities: capability,
    abba: ABBA,
  };
  if (registration !== undefined) {
    command.imeisvRequest = IMEISV_REQUESTED;
    command.additional5gSecurityInformation = Uint8Array.of(RETRANSMISSION_OF_INITIAL_NAS_MESSAGE_REQUESTED);
  }
  const send = (): boolean => sendNas(amf, ue, command, { kind: 'new-context', context });
  const timer = startRetransmissionTimer(
    amf.timers,
    { ms: amf.settings.t3560Ms, retransmissions: amf.settings.retransmissions },
    () => void send(),
    expired,
  );
  ue.procedure = { kind: 'security-mode', registration, context, timer };
  send();
  return context;
}

/** The IMEI of an IMEISV (TS 23.003 6.2.2): TAC and SNR, then the Luhn check digit of 6.2.1 / Annex B. */
export function imeiOf(digits: string): string | undefined {
  if (!/^\d{14,16}$/.test(digits)) return undefined;
  const body = digits.slice(0, 14);
  if (digits.length === 15) return digits;
  let sum = 0;
  for (let i = 0; i < 14; i++) {
    const digit = Number(body[i]);
    // Every second digit from the left (positions 2, 4, ... 14) is doubled.
    const value = i % 2 === 1 ? digit * 2 : digit;
    sum += value > 9 ? value - 9 : value;
  }
  return body + String((10 - (sum % 10)) % 10);
}
