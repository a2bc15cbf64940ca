// NAS key re-keying of a registered UE in CM-CONNECTED (TS 33.501 6.9.4.2): a new primary authentication
// and a NAS Security Mode Command take a new KAMF into use before the current context's NAS COUNT wraps
// (6.4.3.1: a COUNT is never used twice with one key), or when the context reached the operator's maximum
// age. Then AS key re-keying (6.9.4.4): a KgNB from the new KAMF goes to the radio by UE Context
// Modification (n2/ue-context-modification.ts). The authentication and the Security Mode Command are the
// registration's (authentication.ts, security-mode.ts) with `registration` undefined, and so are their
// failures (registration.ts: Authentication Reject and deregistration, TS 24.501 5.4.1.3.5 / 5.4.1.3.7).
import type { NasKeySetIdentifier } from '../../nas/index.ts';
import { deriveContextKgnb, type NasSecurityContext } from '../../nas-security/index.ts';
import type { AmfSettings } from '../amf-settings.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { contextSetUp } from '../context/cm-state.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { startAuthentication } from './authentication.ts';
import { startSecurityMode } from './security-mode.ts';
import { abortProcedure } from './ue-lifecycle.ts';

type RekeyReason = 'nas-count' | 'max-age';

/**
 * Why `ue`'s current NAS security context is to be replaced now, if it is: a NAS COUNT (the next downlink
 * one, or the highest uplink one received) reached `nasRekeyCount`, or the context reached its maximum age.
 */
function rekeyReason(ue: AmfUe, settings: Pick<AmfSettings, 'nasRekeyCount'>): RekeyReason | undefined {
  const security = ue.security;
  if (security?.status !== 'current') return undefined;
  if (
    security.nextSendCount >= settings.nasRekeyCount ||
    (security.highestReceivedCount ?? 0) >= settings.nasRekeyCount
  )
    return 'nas-count';
  return ue.securityAged === true ? 'max-age' : undefined;
}

/**
 * Starts the re-keying of `ue` when it is due and may run: registered, in CM-CONNECTED with its context
 * at the radio, and in no other 5GMM procedure (TS 24.501 5.4.1.1: the network starts authentication
 * when no other common procedure runs). Called whenever the UE is heard or connected again; a UE not
 * ready now is re-keyed at the next such moment.
 */
export function rekeyIfDue(amf: AmfContext, ue: AmfUe): void {
  if (ue.procedure.kind !== 'none' || !isRegistered(ue) || !contextSetUp(ue)) return;
  const reason = rekeyReason(ue, amf.settings);
  // TS 33.501 6.9.5: no NAS Security Mode Command while an N2 handover carries a key to a target. Asked
  // last: it looks through the handovers in progress, and this runs at every message a UE sends.
  if (reason === undefined || amf.handingOver(ue)) return;
  amf.logger.info({ ue: ue.id, reason }, 'AMF: re-keying a connected UE (new authentication)');
  const waiting = { kind: 'rekeying-pending' } as const;
  ue.procedure = waiting;
  const stillWaiting = (): boolean => amf.ues.has(ue) && ue.procedure === waiting;
  startAuthentication(amf, ue, undefined, 0, () => abortProcedure(amf, ue)).then(
    (outcome) => {
      // The subscriber is gone: the configuration change deregisters it (amf.ts, reconsider).
      if (outcome === 'unknown' && stillWaiting()) ue.procedure = { kind: 'none' };
    },
    (error: unknown) => {
      // The AUSF could not answer (the database unavailable): the UE goes on with its context, and the
      // re-keying is tried again when it is next heard.
      amf.logger.warn({ err: error, ue: ue.id }, 'AMF: re-keying could not start');
      if (stillWaiting()) ue.procedure = { kind: 'none' };
    },
  );
}

/**
 * The re-keying's Authentication Response verified: Security Mode Command takes the new KAMF into use with
 * the algorithms of the current context (the UE supports them; nothing asks for others).
 */
export function rekeyAuthenticated(
  amf: AmfContext,
  ue: AmfUe,
  key: { kamf: Buffer; ngKsi: NasKeySetIdentifier },
): void {
  const security = ue.security;
  const capability = ue.ueSecurityCapability;
  if (security === undefined || capability === undefined) return abortProcedure(amf, ue);
  // An N2 handover began while the UE authenticated (TS 33.501 6.9.5, as in rekeyIfDue): the new KAMF is
  // left unused; the re-keying starts over, with a new authentication, once the UE is next heard.
  if (amf.handingOver(ue)) {
    amf.logger.info({ ue: ue.id }, 'AMF: re-keying put off by an N2 handover');
    ue.procedure = { kind: 'none' };
    return;
  }
  startSecurityMode(
    amf,
    ue,
    undefined,
    key,
    { ciphering: security.ciphering, integrity: security.integrity },
    capability,
    () => abortProcedure(amf, ue),
  );
}

/** The re-keying's Security Mode Command is out: the UE may take the new KAMF into use any moment. */
export const rekeyingSecurityMode = (ue: AmfUe): boolean =>
  ue.procedure.kind === 'security-mode' && ue.procedure.registration === undefined;

/**
 * The re-keying's Security Mode Complete, its context now current: the UE context is stored with it, and
 * the radio gets a KgNB from the new KAMF and the uplink NAS COUNT of that Security Mode Complete (TS
 * 33.501 6.9.4.4, A.9), the only uplink message under the new context so far.
 */
export function rekeyed(amf: AmfContext, ue: AmfUe, context: NasSecurityContext): void {
  ue.procedure = { kind: 'none' };
  amf.ueContexts.save(ue);
  const kgnb = deriveContextKgnb(context);
  if (kgnb !== undefined) amf.refreshAccessKey(ue, kgnb);
}

/**
 * `ue`'s current NAS security context was just taken into use: its age counts from now when the operator
 * set a maximum (`nasSecurityMaxAgeMs`); at it, the UE is re-keyed, now if it is connected and between
 * procedures, else when it next is (`securityAged`).
 */
export function securityTakenIntoUse(amf: AmfContext, ue: AmfUe): void {
  const maxAgeMs = amf.settings.nasSecurityMaxAgeMs;
  // Nothing written on a UE when no maximum is set: the context of every registration takes this path.
  if (maxAgeMs <= 0 && ue.cancelSecurityAge === undefined && ue.securityAged !== true) return;
  ue.cancelSecurityAge?.();
  ue.cancelSecurityAge = undefined;
  ue.securityAged = false;
  if (maxAgeMs <= 0) return;
  const context = ue.security;
  ue.cancelSecurityAge = amf.timers.after(maxAgeMs, () => {
    if (!amf.ues.has(ue) || ue.security !== context) return;
    ue.cancelSecurityAge = undefined;
    ue.securityAged = true;
    rekeyIfDue(amf, ue);
  });
}
