import {
  GMM_CAUSE,
  decodeNasMessage,
  decodeNasPdu,
  encodeNasMessage,
  type FiveGmmMessage,
  type NasMessage,
  type NasMessageOf,
} from '../../nas/index.ts';
import { OverloadedError } from '../../../errors.ts';
import { unprotect } from '../../nas-security/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import {
  configurationUpdateComplete,
  configurationUpdateInterrupted,
  sendPendingConfigurationUpdate,
} from './configuration-update.ts';
import { deregistrationAccept, deregistrationRequest } from './deregistration.ts';
import { PAYLOAD_CONTAINER_LPP, type AmfLocation } from '../location.ts';
import { logNas } from './nas-link.ts';
import { PAYLOAD_CONTAINER_SMS } from '../../sms/index.ts';
import { smsUplink } from './sms.ts';
import {
  authenticationFailure,
  authenticationResponse,
  congestionReject,
  identityResponse,
  registrationComplete,
  refuseWhileDatabaseUnavailable,
  registrationRequest,
  securityModeComplete,
  securityModeReject,
} from './registration.ts';
import { rejectUnknown, serviceRequest } from './service-request.ts';
import { rekeyIfDue, rekeyingSecurityMode } from './rekeying.ts';
import { whileDraining } from './drain.ts';
import type { InitialInfo } from '../n2/ue-ngap.ts';
import { takeInFlight, takeOver, takesOver } from './takeover.ts';
import { N1_SM_INFORMATION, n1SmTransport, sessionResourcesAnswered } from '../sm/session-management.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import { abortProcedure, becomeIdle, dropTakenOver, stopProcedure } from './ue-lifecycle.ts';
import type { NasEndpoint } from '../n2/ue-ngap.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { connectionOf, enterConnected, markContextSetUp } from '../context/cm-state.ts';

type Connection = UeConnection<AmfUe>;

/**
 * Plain 5GMM messages the AMF processes before a secure exchange exists (TS 24.501 4.4.4.3). Once the
 * UE has a current security context only the Registration Request may still come plain (it starts
 * over); anything else unprotected, or failing its integrity check, is discarded.
 */
const PLAIN_BEFORE_SECURITY = new Set<string>([
  'registrationRequest',
  'identityResponse',
  'authenticationResponse',
  'authenticationFailure',
  'securityModeReject',
]);

/** The 5G-TMSI an initial NAS message names its UE by, if any. */
function tmsiOf(message: NasMessage): number | undefined {
  switch (message.messageType) {
    case 'registrationRequest':
    case 'deregistrationRequestUeOriginating':
      return message.mobileIdentity.type === '5g-guti' ? message.mobileIdentity.tmsi : undefined;
    case 'serviceRequest':
      return message.fiveGSTmsi.type === '5g-s-tmsi' ? message.fiveGSTmsi.tmsi : undefined;
    default:
      return undefined;
  }
}

const isFiveGmm = (message: NasMessage): message is FiveGmmMessage => !('pti' in message);

/** The UE is heard through `connection`: last seen, its radio and serving cell in the API (network.md 5). */
function seen(amf: AmfContext, ue: AmfUe, connection: Connection): void {
  ue.lastRadio = connection.radio.name;
  if (ue.supi !== undefined)
    amf.events.emit('ue.seen', {
      supi: ue.supi,
      radio: connection.radio.name,
      servingCell: connection.servingCell,
    });
}

/** Gives `ue` the new connection; an older one it still had is released without leading back to it. */
function attach(amf: AmfContext, ue: AmfUe, connection: Connection): void {
  const old = connectionOf(ue);
  if (old !== undefined && old !== connection) {
    old.owner = undefined;
    amf.ngap.release(old, { choice: 'radioNetwork', value: 'release-due-to-5gc-generated-reason' });
  }
  enterConnected(ue, connection);
  connection.owner = ue;
  seen(amf, ue, connection);
}

/** At most one line a minute about registrations refused for want of the database. */
const DATABASE_LOG_INTERVAL_MS = 60_000;

/**
 * The NAS side of N2 (the `NasEndpoint` of the UE NGAP layer): NAS-PDUs are decoded and their
 * security checked here, then handed to the procedure they belong to. Asynchronous procedures report
 * their own failures; an unexpected error is logged and the UE's procedure aborted.
 */
export function createNasDispatch(amf: AmfContext, location: AmfLocation): NasEndpoint<AmfUe> {
  /** Registrations refused for the database since the last line about it (one line a minute at most). */
  let refusedForDatabase = 0;
  let databaseLogQuiet = false;

  const guard = (ue: AmfUe, work: Promise<void> | void): void => {
    if (work === undefined) return;
    work.catch((error: unknown) => {
      // The database is unavailable (a new SQN, a subscription read): a device still registering backs
      // off with #22 and T3346 rather than retrying at once; a registered one keeps its registration.
      if (error instanceof OverloadedError && amf.ues.has(ue) && !isRegistered(ue)) {
        refusedForDatabase++;
        if (!databaseLogQuiet) {
          amf.logger.warn(
            { reason: error.message, refused: refusedForDatabase },
            'AMF: the database is unavailable: Registration Requests that need it rejected with #22 (congestion)',
          );
          refusedForDatabase = 0;
          databaseLogQuiet = true;
          amf.timers.after(DATABASE_LOG_INTERVAL_MS, () => (databaseLogQuiet = false));
        }
        return refuseWhileDatabaseUnavailable(amf, ue);
      }
      amf.logger.error({ err: error, ue: ue.id }, 'AMF: a NAS procedure failed');
      if (amf.ues.has(ue)) abortProcedure(amf, ue);
    });
  };

  /** Registration Requests refused since the limit was reached: the log speaks once per burst. */
  let refusedInBurst = 0;

  /**
   * A new UE context for a Registration Request, or undefined at `maxUeContexts` (counted, and logged
   * when a burst starts and ends). At the limit, a request that may come from a UE the AMF already
   * holds (a SUCI, or the 5G-GUTI of a context it has, whose request failed the integrity check) gets a
   * provisional context: it replaces the old one once authenticated, and gets #22 if its SUPI is new
   * (registration.ts).
   */
  function newContext(
    request: NasMessageOf<'registrationRequest'>,
    known: AmfUe | undefined,
  ): AmfUe | undefined {
    const ue = amf.ues.create({ provisional: request.mobileIdentity.type === 'suci' || known !== undefined });
    if (ue === undefined) {
      if (refusedInBurst++ === 0)
        amf.logger.warn(
          { limit: amf.settings.maxUeContexts },
          'AMF: UE context limit reached, Registration Requests rejected with #22 (congestion)',
        );
    } else if (refusedInBurst > 0) {
      amf.logger.info({ refused: refusedInBurst }, 'AMF: UE contexts below the limit again');
      refusedInBurst = 0;
    }
    return ue;
  }

  function dispatch(ue: AmfUe, message: FiveGmmMessage, plain: Uint8Array, verified: boolean): void {
    // Registration logs the Registration Request and Identity Response itself, once the SUPI is known;
    // the Service Request is logged as its NAS message container holds it (service-request.ts).
    if (
      message.messageType !== 'registrationRequest' &&
      message.messageType !== 'identityResponse' &&
      message.messageType !== 'serviceRequest'
    )
      logNas(amf, ue, 'inbound', message, plain);
    switch (message.messageType) {
      case 'registrationRequest':
        return guard(ue, registrationRequest(amf, ue, message, plain, verified));
      case 'registrationComplete':
        return registrationComplete(amf, ue);
      case 'identityResponse':
        return guard(ue, identityResponse(amf, ue, message));
      case 'authenticationResponse':
        return authenticationResponse(amf, ue, message);
      case 'authenticationFailure':
        return guard(ue, authenticationFailure(amf, ue, message));
      case 'securityModeComplete':
        return guard(ue, securityModeComplete(amf, ue, message, containedRegistration(message)));
      case 'securityModeReject':
        return securityModeReject(amf, ue);
      case 'deregistrationRequestUeOriginating':
        return deregistrationRequest(amf, ue, message);
      case 'deregistrationAcceptUeTerminated':
        return deregistrationAccept(amf, ue);
      case 'serviceRequest':
        return guard(ue, serviceRequest(amf, ue, message, plain));
      case 'configurationUpdateComplete':
        return configurationUpdateComplete(amf, ue);
      case 'ulNasTransport':
        if (message.payloadContainerType === PAYLOAD_CONTAINER_LPP) return location.lppReceived(ue, message);
        if (message.payloadContainerType === PAYLOAD_CONTAINER_SMS) return smsUplink(amf, ue, message);
        if (message.payloadContainerType === N1_SM_INFORMATION)
          return guard(ue, n1SmTransport(amf, ue, message));
        return;
      default:
        // 5GMM Status and the rest need nothing more than their log.
        return;
    }
  }

  /**
   * `received`: the Initial UE Message as received, and whether a radio rerouted it (for Reroute NAS
   * Request); `retried`: handled afresh after a take of its UE (below), which happens once.
   */
  function initialUeMessage(
    connection: Connection,
    nasPdu: Uint8Array,
    received: InitialInfo,
    retried = false,
  ): void {
    const decoded = decodeNasPdu(nasPdu);
    const pdu = decoded.ok ? decoded.pdu : undefined;
    // An initial NAS message is never ciphered (TS 24.501 4.4.6): its cleartext must be readable.
    const message =
      pdu === undefined
        ? undefined
        : pdu.kind === 'plain'
          ? pdu.message
          : pdu.inner?.ok
            ? pdu.inner.message
            : undefined;
    if (pdu === undefined || message === undefined || !isFiveGmm(message))
      return amf.ngap.release(connection, { choice: 'protocol', value: 'semantic-error' });
    // Cut off from the database: no answer, no write that could diverge from the set's members, which
    // serve the UE (the radio, told by AMF Status Indication, sends its next message to one of them).
    // Checked again after each wait for the store below: the cut may come while it answers.
    const cutOff = (): boolean => {
      if (!amf.suspended()) return false;
      amf.ngap.release(connection, { choice: 'misc', value: 'unspecified' });
      return true;
    };
    if (cutOff()) return;

    // Draining (TS 23.501 5.21.2.2): an initial registration goes to another member (gmm/drain.ts).
    const drained = amf.draining() ? whileDraining(message, received.rerouted) : undefined;
    if (drained?.kind === 'reroute') return amf.ngap.reroute(connection, received.pdu, amf.identity.setId);
    if (drained?.kind === 'reject') return rejectUnknown(amf, connection, drained.reject);
    const tmsi = tmsiOf(message);
    const known = tmsi === undefined ? undefined : amf.ues.byTmsi(tmsi);
    const takenOver = (ue: AmfUe, verified: FiveGmmMessage, plain: Uint8Array): void => {
      attach(amf, ue, connection);
      dispatch(ue, verified, plain, true);
    };
    const unknown = (): void => {
      if (cutOff()) return;
      switch (message.messageType) {
        case 'registrationRequest': {
          const ue = newContext(message, known);
          if (ue === undefined) return rejectUnknown(amf, connection, congestionReject(amf));
          attach(amf, ue, connection);
          // The plain message's bytes: as received when plain, else read again from the decoded message.
          return dispatch(ue, message, pdu.kind === 'plain' ? nasPdu : encodeNasMessage(message), false);
        }
        case 'serviceRequest':
          // TS 24.501 5.6.1.5: a 5G-S-TMSI the AMF does not know, or an integrity check that fails: #9.
          return rejectUnknown(amf, connection, {
            messageType: 'serviceReject',
            fiveGmmCause: GMM_CAUSE.ueIdentityCannotBeDerived,
          });
        default:
          return amf.ngap.release(connection, { choice: 'nas', value: 'normal-release' });
      }
    };
    // A take of this UE in flight (its adoption from a dead member of the set, or a takeover on another
    // connection): served from its context before the take ends, the message would find the UE without
    // its sessions, or the store still naming the old owner. It waits, then is handled afresh.
    const taking = retried || known?.supi === undefined ? undefined : takeInFlight(amf, known.supi);
    if (taking !== undefined)
      return void taking.then(() => {
        if (connection.phase === 'active') initialUeMessage(connection, nasPdu, received, true);
      });
    const again = retried ? undefined : () => initialUeMessage(connection, nasPdu, received, true);
    const held = known;
    const initial: FiveGmmMessage = message;
    if (held?.security !== undefined && pdu.kind === 'protected') {
      const opened = unprotect(held.security, nasPdu);
      if (opened.ok && isFiveGmm(opened.message)) {
        const verified = opened.message;
        const serve = (): void => {
          // A new connection: a Configuration Update on the old one is cut short (TS 24.501 5.4.4.5 a),
          // and the 5G-GUTI the UE named itself with is the one it holds.
          configurationUpdateInterrupted(held);
          if (held.procedure.kind === 'configuration-update') stopProcedure(held);
          amf.ues.settleGuti(held, tmsi);
          attach(amf, held, connection);
          dispatch(held, verified, opened.plain, true);
        };
        if (!amf.ueContexts.shared || held.contextEpoch === undefined) return serve();
        // Another member may have taken the UE over while this one was paused: serving it from this copy
        // would reuse downlink COUNTs the new owner sent (docs/amf-set.md). The stored epoch says.
        return void amf.ueContexts.owns(held).then((owned) => {
          if (connection.phase !== 'active' || cutOff() || !amf.ues.has(held)) return;
          if (owned) return serve();
          dropTakenOver(amf, held);
          if (takesOver(initial)) void takeOver(amf, connection, initial, nasPdu, takenOver, unknown, again);
          else unknown();
        });
      }
    }
    // A UE of the set this AMF holds nothing for: another member served it (docs/amf-set.md, "Takeover").
    if (known === undefined && pdu.kind === 'protected' && amf.ueContexts.shared && takesOver(message))
      return void takeOver(amf, connection, message, nasPdu, takenOver, unknown, again);
    unknown();
  }

  function uplinkNas(connection: Connection, nasPdu: Uint8Array): void {
    const ue = connection.owner;
    if (ue === undefined) return;
    const procedure = ue.procedure;
    // Security Mode Complete is protected with the new context the command took into use (5.4.2.3).
    const context = procedure.kind === 'security-mode' ? procedure.context : ue.security;
    const decoded = decodeNasPdu(nasPdu);
    if (!decoded.ok) return;
    if (decoded.pdu.kind === 'protected') {
      if (context === undefined) return;
      let opened = unprotect(context, nasPdu);
      // While a re-keying's command is on its way the UE still protects with the current context
      // (TS 24.501 5.4.2.3: it takes the new one into use on the command).
      if (!opened.ok && rekeyingSecurityMode(ue)) opened = unprotect(ue.security ?? context, nasPdu);
      if (!opened.ok || !isFiveGmm(opened.message)) return;
      dispatch(ue, opened.message, opened.plain, true);
      // Each uplink message moves a NAS COUNT on: a connected UE between procedures is re-keyed before
      // one wraps (gmm/rekeying.ts).
      return rekeyIfDue(amf, ue);
    }
    const message = decoded.pdu.message;
    if (!isFiveGmm(message)) return;
    const secured = ue.security?.status === 'current';
    if (
      secured
        ? message.messageType !== 'registrationRequest'
        : !PLAIN_BEFORE_SECURITY.has(message.messageType)
    )
      return;
    dispatch(ue, message, nasPdu, false);
  }

  return {
    initialUeMessage: (connection, nasPdu, info) => initialUeMessage(connection, nasPdu, info),
    uplinkNas,
    contextSetup(connection, succeeded) {
      const ue = connection.owner;
      if (ue === undefined) return;
      if (!succeeded) {
        // TS 23.502 4.2.2.2.2: without the radio's context the registration cannot complete.
        abortProcedure(amf, ue);
        return;
      }
      markContextSetUp(ue);
      // Back from idle with a Service Request: a configuration update that waited goes now.
      sendPendingConfigurationUpdate(amf, ue);
      // ... or a re-keying that came due while the UE was idle or busy (gmm/rekeying.ts).
      rekeyIfDue(amf, ue);
      // ... and location requests waiting for it (paged) go on. (PDU sessions came back in it.)
      location.ueConnected(ue);
      // Short messages stored for a registered UE go now (a registering one's go at Registration Complete).
      if (ue.supi !== undefined && isRegistered(ue)) amf.sms?.ueReachable(ue.supi);
    },
    nasNotDelivered() {
      // The procedure's NAS timer retransmits or gives up; nothing else depends on one delivery.
    },
    connectionEnded(connection) {
      const ue = connection.owner;
      if (ue === undefined || connectionOf(ue) !== connection) return;
      // AN release (TS 23.502 4.2.6): the sessions' user plane is deactivated.
      if (ue.supi !== undefined && isRegistered(ue)) amf.smf?.ueIdle(ue.supi);
      becomeIdle(amf, ue);
      // Still held (registered, or paged to hear its deregistration): its sessions' user plane is down.
      if (amf.ues.has(ue)) amf.ueContexts.save(ue);
    },
    heard(connection) {
      const ue = connection.owner;
      if (ue !== undefined) seen(amf, ue, connection);
    },
    subscriberOf: (connection) => connection.owner?.supi,
    sessionResources(connection, answer) {
      const ue = connection.owner;
      if (ue !== undefined) sessionResourcesAnswered(amf, ue, answer);
    },
  };
}

/** The Registration Request inside Security Mode Complete's NAS message container (TS 24.501 4.4.6). */
function containedRegistration(
  message: NasMessageOf<'securityModeComplete'>,
): NasMessageOf<'registrationRequest'> | undefined {
  const container = message.nasMessageContainer;
  if (container === undefined) return undefined;
  const decoded = decodeNasMessage(container);
  return decoded.ok && decoded.message.messageType === 'registrationRequest' ? decoded.message : undefined;
}
