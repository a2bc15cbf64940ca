import { kamfFromKseaf } from '../../security/kamf.ts';
import type { AuthenticationChallenge } from '../ports/authentication.ts';
import type { NasKeySetIdentifier } from '../../nas/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe, PendingRegistration, UeProcedure } from '../context/amf-ue.ts';
import { sendNas } from './nas-link.ts';
import { startRetransmissionTimer } from '../../common/nas-timer.ts';
import type { NasLinkAmf } from './nas-link.ts';

/** The parts of the AMF context this procedure uses. */
type AuthenticationAmf = Pick<AmfContext, 'ausf' | 'network' | 'settings' | 'timers' | 'ues'> & NasLinkAmf;

type Authenticating = Extract<UeProcedure, { kind: 'authentication' }>;

/** ngKSI values 0..6; 7 means "no key is available" (TS 24.501 9.11.3.32). */
const KSI_VALUES = 7;

/**
 * A new ngKSI for the KAMF this authentication creates (TS 24.501 5.4.1.3.2): the next value after the
 * last one assigned, never the one the UE says it holds, so the two contexts cannot be confused.
 */
function nextNgKsi(ue: AmfUe, held: NasKeySetIdentifier | undefined): NasKeySetIdentifier {
  let ksi = ((ue.lastKsi ?? -1) + 1) % KSI_VALUES;
  if (held !== undefined && !held.mapped && held.ksi === ksi) ksi = (ksi + 1) % KSI_VALUES;
  ue.lastKsi = ksi;
  return { mapped: false, ksi };
}

/** What the UE's procedure is while the AUSF works for `registration` (undefined: a re-keying). */
const waiting = (registration: PendingRegistration | undefined): UeProcedure =>
  registration === undefined ? { kind: 'rekeying-pending' } : { kind: 'registration-pending', registration };

/**
 * 5G-AKA from the AMF (SEAF) side (TS 24.501 5.4.1.3, TS 33.501 6.1.3.2): a challenge from the AUSF for
 * the UE's SUPI (the SQN already stored through the authentication-data port), sent in Authentication
 * Request with a new ngKSI and ABBA; T3560 retransmits it. For `registration`, or, undefined, to re-key a
 * connected UE (gmm/rekeying.ts): the UE is in the matching waiting procedure (`waiting`) until it is
 * sent. `unknown` when the subscriber does not exist.
 */
export async function startAuthentication(
  amf: AuthenticationAmf,
  ue: AmfUe,
  registration: PendingRegistration | undefined,
  resynchronisations: number,
  expired: () => void,
): Promise<'sent' | 'unknown' | 'gone'> {
  const supi = ue.supi;
  if (supi === undefined) return 'unknown';
  const waitingKind = waiting(registration).kind;
  const { servingNetworkName } = await amf.network();
  const challenge = await amf.ausf.authenticate(supi, servingNetworkName);
  // The UE may have left, or started over, while the AUSF worked.
  if (!amf.ues.has(ue) || ue.procedure.kind !== waitingKind) return 'gone';
  if (challenge === undefined) return 'unknown';
  sendChallenge(amf, ue, registration, challenge, resynchronisations, expired);
  return 'sent';
}

function sendChallenge(
  amf: AuthenticationAmf,
  ue: AmfUe,
  registration: PendingRegistration | undefined,
  challenge: AuthenticationChallenge,
  resynchronisations: number,
  expired: () => void,
): void {
  const ngKsi = nextNgKsi(ue, registration === undefined ? ue.security?.ngKsi : registration.request.ngKsi);
  // Under a current context (a re-keying) the request is protected with it like any other downlink
  // message (TS 24.501 4.4.4.2, 4.4.5); before one exists it goes plain.
  const protection =
    registration === undefined ? ({ kind: 'current' } as const) : ({ kind: 'plain' } as const);
  const send = (): boolean =>
    sendNas(
      amf,
      ue,
      {
        messageType: 'authenticationRequest',
        ngKsi,
        abba: challenge.abba,
        authenticationParameterRand: challenge.rand,
        authenticationParameterAutn: challenge.autn,
      },
      protection,
    );
  const timer = startRetransmissionTimer(
    amf.timers,
    { ms: amf.settings.t3560Ms, retransmissions: amf.settings.retransmissions },
    () => void send(),
    expired,
  );
  ue.procedure = {
    kind: 'authentication',
    registration,
    pending: challenge.pending,
    ngKsi,
    resynchronisations,
    timer,
  };
  send();
}

/**
 * Authentication Response (TS 24.501 5.4.1.3.4): RES* checked by the AUSF; KAMF from KSEAF (TS 33.501
 * A.7.1) when it matches.
 */
export function confirmAuthentication(
  amf: AuthenticationAmf,
  procedure: Authenticating,
  resStar: Uint8Array | undefined,
): { ok: true; kamf: Buffer; ngKsi: NasKeySetIdentifier } | { ok: false } {
  procedure.timer.stop();
  if (resStar === undefined) return { ok: false };
  const confirmed = amf.ausf.confirm(procedure.pending, resStar);
  if (!confirmed.ok) return { ok: false };
  return { ok: true, kamf: kamfFromKseaf(confirmed.kseaf, confirmed.supi), ngKsi: procedure.ngKsi };
}

/**
 * Authentication Failure with cause #21 (TS 24.501 5.4.1.3.7 f, TS 33.102 6.3.5): the AUSF recovers
 * SQN_MS from AUTS and stores it, then a new challenge goes out. False when AUTS does not verify, or
 * the UE reports a second synch failure in a row: the authentication has failed.
 */
export async function resynchronise(
  amf: AuthenticationAmf,
  ue: AmfUe,
  procedure: Authenticating,
  auts: Uint8Array | undefined,
  expired: () => void,
): Promise<'sent' | 'failed' | 'gone'> {
  procedure.timer.stop();
  if (auts === undefined || procedure.resynchronisations >= 1) return 'failed';
  const waitingFor = waiting(procedure.registration);
  ue.procedure = waitingFor;
  if (!(await amf.ausf.resynchronise(procedure.pending, auts))) return 'failed';
  if (!amf.ues.has(ue) || ue.procedure !== waitingFor) return 'gone';
  const started = await startAuthentication(
    amf,
    ue,
    procedure.registration,
    procedure.resynchronisations + 1,
    expired,
  );
  return started === 'unknown' ? 'failed' : started;
}

/** Authentication Reject (TS 24.501 5.4.1.3.5), plain. */
export function sendAuthenticationReject(amf: AuthenticationAmf, ue: AmfUe): void {
  sendNas(amf, ue, { messageType: 'authenticationReject' }, { kind: 'plain' });
}
