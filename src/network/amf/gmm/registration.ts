import { ngapAllowedNssai, ngapSecurityCapabilities } from '../n2/ngap-ue-values.ts';
import { ueAmbrOf } from '../n2/ue-context-modification.ts';
import {
  GMM_CAUSE,
  encodeNasMessage,
  REGISTRATION_TYPE,
  type FiveGmmMessage,
  type NasMessageOf,
  type Suci,
} from '../../nas/index.ts';
import { openContainer } from '../../nas/initial-message-container.ts';
import { deriveContextKgnb, latestUplinkCount, makeCurrent } from '../../nas-security/index.ts';
import type { AmfContext } from '../context/amf-context.ts';
import { guami } from '../context/amf-identity.ts';
import type { AmfUe, PendingRegistration } from '../context/amf-ue.ts';
import {
  confirmAuthentication,
  resynchronise,
  sendAuthenticationReject,
  startAuthentication,
} from './authentication.ts';
import { sendPendingConfigurationUpdate } from './configuration-update.ts';
import { newGuti } from '../context/guti-allocation.ts';
import { gprsTimerOf } from './gprs-timer.ts';
import { IDENTITY_REQUEST, startIdentification } from './identification.ts';
import { gutiText, logNas, nasPduFor, sendNas, suciText } from './nas-link.ts';
import { startRetransmissionTimer } from '../../common/nas-timer.ts';
import { allowedNssaiFor } from './nssai-selection.ts';
import { imeiOf, selectAlgorithms, startSecurityMode } from './security-mode.ts';
import { rekeyAuthenticated, rekeyed, securityTakenIntoUse } from './rekeying.ts';
import { reconcileSessions } from '../sm/session-management.ts';
import { smsOverNas } from './sms.ts';
import { imsVoiceFeatureSupport } from './ims-voice.ts';
import {
  abortProcedure,
  becomeConnected,
  deregister,
  releaseConnection,
  removeContext,
  stopProcedure,
} from './ue-lifecycle.ts';
import { enterGmmState, isRegistered } from '../context/gmm-state.ts';
import { connectionOf, contextSetUp } from '../context/cm-state.ts';
import { radioCapabilityOutdated } from '../n2/radio-capability.ts';
import { inactiveAssistanceFor } from '../n2/rrc-inactive-assistance.ts';

type RegistrationRequest = NasMessageOf<'registrationRequest'>;

/** The registration types this AMF serves (TS 24.501 9.11.3.7); emergency and SNPN ones are refused. */
const SERVED_TYPES: readonly number[] = [
  REGISTRATION_TYPE.initial,
  REGISTRATION_TYPE.mobilityUpdating,
  REGISTRATION_TYPE.periodicUpdating,
];

/** TS 24.501 9.11.3.9: a partial tracking area list holds at most 16 TACs. */
const MAX_TACS = 16;

const plainOf = (message: FiveGmmMessage): Uint8Array => encodeNasMessage(message);

/** Still the registration the UE is in, after an await (the UE may have left or started over). */
function current(amf: AmfContext, ue: AmfUe, registration: PendingRegistration): boolean {
  return (
    amf.ues.has(ue) &&
    ue.procedure.kind === 'registration-pending' &&
    ue.procedure.registration === registration
  );
}

/**
 * A Registration Request (TS 24.501 5.5.1.2 initial, 5.5.1.3 mobility and periodic update), from
 * Initial UE Message or over an existing connection. `verified`: integrity protected and verified
 * under the UE's current security context, so the AMF knows who sent it and accepts it without a new
 * authentication. `plain`: the message's plain NAS bytes, as its subscriber log shows them.
 */
export async function registrationRequest(
  amf: AmfContext,
  ue: AmfUe,
  request: RegistrationRequest,
  plain: Uint8Array,
  verified: boolean,
): Promise<void> {
  // A new Registration Request ends the common procedure in progress (5.4.1.3.7 e, 5.4.2.7 e, 5.4.3.7 d).
  stopProcedure(ue);
  const connectedBefore = contextSetUp(ue);
  becomeConnected(ue);
  if (!isRegistered(ue)) enterGmmState(ue, 'registered-initiated');
  const registration: PendingRegistration = { request, connectedBefore };
  ue.procedure = { kind: 'registration-pending', registration };
  if (request.ueSecurityCapability !== undefined) ue.ueSecurityCapability = request.ueSecurityCapability;

  if (verified && ue.supi !== undefined && ue.security?.status === 'current') {
    // 4.4.6: the whole message, in the ciphered NAS message container, replaces the cleartext one.
    const opened = openContainer(ue.security, latestUplinkCount(ue.security) ?? 0, request);
    if (opened.error !== undefined)
      amf.peerLog.warn(
        'nas_container_unreadable',
        connectionOf(ue)?.radio.id ?? '',
        { ue: ue.id, error: opened.error },
        'AMF: a NAS message container did not open',
      );
    registration.request = opened.message;
    logNas(amf, ue, 'inbound', opened.message, opened.plain ?? plain);
    if (!SERVED_TYPES.includes(request.registrationType.value))
      return rejectRegistration(amf, ue, GMM_CAUSE.fiveGsServicesNotAllowed);
    registration.generation = amf.configurationGeneration;
    const subscription = await amf.subscriptionData.getSubscriptionData(ue.supi);
    if (!current(amf, ue, registration)) return;
    // The subscriber is gone (deleted while the UE was idle): as for an unknown SUPI, #7.
    if (subscription === undefined) return rejectRegistration(amf, ue, NOT_A_SUBSCRIBER);
    registration.subscription = subscription;
    return acceptRegistration(amf, ue, registration);
  }
  const identity = request.mobileIdentity;
  switch (identity.type) {
    case 'suci':
      return suciReceived(amf, ue, registration, plain, identity);
    case '5g-guti': {
      // 5.5.1.2.2: a 5G-GUTI the AMF cannot vouch for (unknown to it, or the request failed its
      // integrity check) -> Identity Request for the SUCI. A UE that never answers stays unmapped.
      const named = gutiText(identity);
      return startIdentification(amf, ue, registration, () => {
        logUnmapped(amf, ue, registration, plain, { imsi: '', guti: named }, {});
        abortProcedure(amf, ue);
      });
    }
    default:
      // No SUCI and no 5G-GUTI (a PEI, or no identity): nothing a subscriber is known by (5.5.1.2.2).
      return rejectUnmapped(amf, ue, registration, plain, { imsi: '', guti: undefined }, undefined);
  }
}

/**
 * Registration Reject for a UE that is no subscriber of this network, or whose permanent identity the
 * network cannot accept: #7 "5GS services not allowed", which the UE acts on for an initial registration
 * (TS 24.501 5.5.1.2.5: USIM invalid for 5GS services, no retry) and for an update (5.5.1.3.5). Not #9:
 * 5.5.1.2.5 does not list it for an initial registration, so a UE takes it as an abnormal case and
 * retries every T3511 without end (5.5.1.2.7); #9 is for a 5G-GUTI or 5G-S-TMSI the network cannot
 * resolve (Annex A.1). Not #3 "Illegal UE": that makes the USIM invalid for non-5GS services too, and is
 * the cause of a failed authentication check. docs/registration.md, "Reject causes".
 */
const NOT_A_SUBSCRIBER = GMM_CAUSE.fiveGsServicesNotAllowed;

/**
 * The IMSI a SUCI shows in clear (the null scheme, TS 33.501 6.12.2) that the logs of an unmapped UE
 * carry (network.md section 4); empty under a protection scheme, or when it is no 15-digit IMSI.
 */
function clearImsi(suci: Suci): string {
  if (suci.supiFormat !== 'imsi' || suci.schemeOutput.scheme !== 'null') return '';
  const imsi = suci.mcc + suci.mnc + suci.schemeOutput.msin;
  return /^\d{15}$/.test(imsi) ? imsi : '';
}

/** The identification a registration went through (TS 24.501 5.4.3), if any, and its answer, if any. */
type Identification = { response?: NasMessageOf<'identityResponse'> } | undefined;

/**
 * The messages of a registration not logged yet (the Registration Request, and the Identity Request and
 * Response of an identification), logged in their order once the SUPI is known or the UE turns out
 * unmapped (network.md section 4).
 */
function logEarlyMessages(
  amf: AmfContext,
  ue: AmfUe,
  registration: PendingRegistration,
  requestPlain: Uint8Array,
  identification: Identification,
): void {
  logNas(amf, ue, 'inbound', registration.request, requestPlain);
  if (identification === undefined) return;
  logNas(amf, ue, 'outbound', IDENTITY_REQUEST, plainOf(IDENTITY_REQUEST));
  if (identification.response !== undefined)
    logNas(amf, ue, 'inbound', identification.response, plainOf(identification.response));
}

/** The UE cannot be mapped to a subscriber: what it sent so far is logged as its own (network.md 4). */
function logUnmapped(
  amf: AmfContext,
  ue: AmfUe,
  registration: PendingRegistration,
  requestPlain: Uint8Array,
  unmapped: NonNullable<AmfUe['unmapped']>,
  identification: Identification,
): void {
  ue.unmapped = unmapped;
  logEarlyMessages(amf, ue, registration, requestPlain, identification);
}

/** Logged as unmapped, then Registration Reject #7 (`NOT_A_SUBSCRIBER`), itself logged. */
function rejectUnmapped(
  amf: AmfContext,
  ue: AmfUe,
  registration: PendingRegistration,
  requestPlain: Uint8Array,
  unmapped: NonNullable<AmfUe['unmapped']>,
  identification: Identification,
): void {
  logUnmapped(amf, ue, registration, requestPlain, unmapped, identification);
  rejectRegistration(amf, ue, NOT_A_SUBSCRIBER);
}

/**
 * Identity Response (TS 24.501 5.4.3.4) with the SUCI asked for. A UE asked for its SUCI answers with one
 * (5.4.3.3 b); any other identity is none the network accepts for registration: #7, as for an unknown
 * SUPI (`NOT_A_SUBSCRIBER`).
 */
export function identityResponse(
  amf: AmfContext,
  ue: AmfUe,
  message: NasMessageOf<'identityResponse'>,
): Promise<void> | void {
  const procedure = ue.procedure;
  if (procedure.kind !== 'identification') return;
  procedure.timer.stop();
  const { registration } = procedure;
  ue.procedure = { kind: 'registration-pending', registration };
  const identity = message.mobileIdentity;
  // The Registration Request was not kept as received: its log's bytes are encoded from it again.
  const requestPlain = plainOf(registration.request);
  if (identity.type !== 'suci') {
    const named = registration.request.mobileIdentity;
    const guti = named.type === '5g-guti' ? gutiText(named) : undefined;
    return rejectUnmapped(amf, ue, registration, requestPlain, { imsi: '', guti }, { response: message });
  }
  return suciReceived(amf, ue, registration, requestPlain, identity, { response: message });
}

/**
 * The SIDF de-conceals the SUCI (TS 33.501 6.12.2); the subscriber must exist. A SUCI that cannot be
 * de-concealed (unknown home network key, bad MAC, unsupported scheme) or a SUPI of no subscriber:
 * Registration Reject #7 (`NOT_A_SUBSCRIBER`, network.md section 5), logged under the IMSI the SUCI
 * shows in clear, or none (section 4). Then the UE's earlier context gives way, the messages so far are
 * logged, and 5G-AKA starts.
 */
async function suciReceived(
  amf: AmfContext,
  ue: AmfUe,
  registration: PendingRegistration,
  requestPlain: Uint8Array,
  suci: Suci,
  identification?: Identification,
): Promise<void> {
  ue.suci = suciText(suci);
  const { configuration } = await amf.network();
  if (!current(amf, ue, registration)) return;
  const resolved = amf.ausf.resolveSupi(suci, configuration.homeNetworkKeys);
  const unmapped = { imsi: clearImsi(suci), guti: undefined };
  if (!resolved.ok) return rejectUnmapped(amf, ue, registration, requestPlain, unmapped, identification);
  if (amf.ues.beyondLimit(ue)) {
    // Opened beyond the UE context limit in case the AMF held this UE (nas-dispatch.ts): a SUPI it
    // does not hold is a new UE, refused as any other at the limit.
    if (amf.ues.bySupi(resolved.supi) === undefined) return refuseForCongestion(amf, ue);
    amf.ues.admit(ue);
  }
  registration.generation = amf.configurationGeneration;
  const subscription = await amf.subscriptionData.getSubscriptionData(resolved.supi);
  if (!current(amf, ue, registration)) return;
  if (subscription === undefined)
    return rejectUnmapped(amf, ue, registration, requestPlain, unmapped, identification);
  registration.subscription = subscription;

  // Known by its SUPI, but indexed under it (and an earlier context of it giving way) only once it has
  // authenticated: a request that merely names a registered device's SUCI must not deregister it.
  ue.supi = resolved.supi;
  logEarlyMessages(amf, ue, registration, requestPlain, identification);
  if (ue.ueSecurityCapability === undefined)
    // 5.5.1.2.2: an initial registration carries the UE security capability.
    return rejectRegistration(amf, ue, GMM_CAUSE.ueSecurityCapabilitiesMismatch);
  const started = await startAuthentication(amf, ue, registration, 0, () => abortProcedure(amf, ue));
  // The subscriber went between the lookup and the AUSF's: no subscriber, as above.
  if (started === 'unknown') return rejectRegistration(amf, ue, NOT_A_SUBSCRIBER);
}

/**
 * A UE registers again while the AMF holds an older context of the same subscriber (after losing its
 * 5G-GUTI, or from another connection): once the new context has authenticated, it takes the old one's
 * registration state and 5G-GUTI over and the old one goes, with its timers and connection.
 */
function takeOver(amf: AmfContext, previous: AmfUe, ue: AmfUe): void {
  if (isRegistered(previous)) enterGmmState(ue, 'registered');
  enterGmmState(previous, 'deregistered');
  const guti = previous.guti;
  removeContext(amf, previous);
  if (guti !== undefined && amf.ues.byTmsi(guti.tmsi) === undefined) {
    amf.ues.setTmsi(ue, guti.tmsi);
    ue.guti = guti;
  }
}

/** Authentication Response (TS 24.501 5.4.1.3.4), then Security Mode Command. */
export function authenticationResponse(
  amf: AmfContext,
  ue: AmfUe,
  message: NasMessageOf<'authenticationResponse'>,
): void {
  const procedure = ue.procedure;
  if (procedure.kind !== 'authentication') return;
  const confirmed = confirmAuthentication(amf, procedure, message.authenticationResponseParameter);
  if (!confirmed.ok) return authenticationFailed(amf, ue);
  const registration = procedure.registration;
  if (registration === undefined) return rekeyAuthenticated(amf, ue, confirmed);
  const previous = ue.supi === undefined ? undefined : amf.ues.setSupi(ue, ue.supi);
  if (previous !== undefined) takeOver(amf, previous, ue);
  const capability = ue.ueSecurityCapability;
  void amf.network().then((network) => {
    if (!amf.ues.has(ue) || ue.procedure !== procedure) return;
    const algorithms =
      capability === undefined ? undefined : selectAlgorithms(network.configuration.nasSecurity, capability);
    if (algorithms === undefined || capability === undefined)
      return rejectRegistration(amf, ue, GMM_CAUSE.ueSecurityCapabilitiesMismatch);
    startSecurityMode(amf, ue, registration, confirmed, algorithms, capability, () =>
      abortProcedure(amf, ue),
    );
  });
}

/**
 * Authentication Failure (TS 24.501 5.4.1.3.7 c, f): #21 synch failure -> resynchronisation and a new
 * challenge; #20 MAC failure, #26 non-5G authentication unacceptable, a failed resynchronisation ->
 * Authentication Reject.
 */
export async function authenticationFailure(
  amf: AmfContext,
  ue: AmfUe,
  message: NasMessageOf<'authenticationFailure'>,
): Promise<void> {
  const procedure = ue.procedure;
  if (procedure.kind !== 'authentication') return;
  if (message.fiveGmmCause !== GMM_CAUSE.synchFailure) {
    procedure.timer.stop();
    return authenticationFailed(amf, ue);
  }
  const outcome = await resynchronise(amf, ue, procedure, message.authenticationFailureParameter, () =>
    abortProcedure(amf, ue),
  );
  if (outcome === 'failed' && amf.ues.has(ue)) authenticationFailed(amf, ue);
}

/**
 * The UE failed authentication (TS 24.501 5.4.1.3.5): Authentication Reject, the connection released,
 * the context gone (a registered UE is deregistered: its earlier context was not this device's).
 */
function authenticationFailed(amf: AmfContext, ue: AmfUe): void {
  ue.procedure = { kind: 'none' };
  sendAuthenticationReject(amf, ue);
  deregister(amf, ue);
}

/**
 * Security Mode Complete (TS 24.501 5.4.2.3), already verified under the new context: it becomes
 * current, the PEI is kept, and the Registration Request in the NAS message container (the whole
 * message, 4.4.6) replaces the cleartext one. A re-keying's goes on in rekeying.ts.
 */
export function securityModeComplete(
  amf: AmfContext,
  ue: AmfUe,
  message: NasMessageOf<'securityModeComplete'>,
  container: RegistrationRequest | undefined,
): Promise<void> | void {
  const procedure = ue.procedure;
  if (procedure.kind !== 'security-mode') return;
  procedure.timer.stop();
  makeCurrent(procedure.context);
  ue.security = procedure.context;
  securityTakenIntoUse(amf, ue);
  const pei = message.imeisv ?? message.nonImeisvPei;
  if (pei !== undefined && (pei.type === 'imeisv' || pei.type === 'imei')) ue.pei = imeiOf(pei.digits);
  const registration = procedure.registration;
  if (registration === undefined) return rekeyed(amf, ue, procedure.context);
  if (container !== undefined) {
    registration.request = container;
    if (container.ueSecurityCapability !== undefined)
      ue.ueSecurityCapability = container.ueSecurityCapability;
  }
  // A registered UE (re-authenticated in a mobility or periodic update, or one taking a registered
  // context over) stays registered under the new security context even if Registration Complete never
  // comes, so it is stored now. An unregistered one is of no use to another AMF until Registration
  // Complete, which stores it; if that never comes its context goes (abortProcedure).
  if (isRegistered(ue)) amf.ueContexts.save(ue);
  ue.procedure = { kind: 'registration-pending', registration };
  return acceptRegistration(amf, ue, registration);
}

/** Security Mode Reject (TS 24.501 5.4.2.5): the registration is aborted. */
export function securityModeReject(amf: AmfContext, ue: AmfUe): void {
  if (ue.procedure.kind !== 'security-mode') return;
  abortProcedure(amf, ue);
}

/**
 * Registration Accept (TS 24.501 5.5.1.2.4, 5.5.1.3.4): a new 5G-GUTI (network.md 5: reallocated at
 * every registration), the TAI list of the operator's TACs, the allowed NSSAI and T3512, and what the
 * request's PDU session status and Uplink data status lead to (`reconcileSessions`). In Initial
 * Context Setup Request when the radio has no context of the UE yet (with KgNB from the uplink NAS
 * COUNT, TS 33.501 6.9.2.1.1, and the reactivated PDU sessions), else in Downlink NAS Transport. T3550
 * waits for Registration Complete. No slice to allow -> Registration Reject #62.
 */
async function acceptRegistration(
  amf: AmfContext,
  ue: AmfUe,
  registration: PendingRegistration,
): Promise<void> {
  const network = await amf.network();
  if (!current(amf, ue, registration)) return;
  if (radioCapabilityOutdated(registration.request)) delete ue.radioCapability;
  const { configuration } = network;
  const subscription = registration.subscription;
  const security = ue.security;
  const connection = connectionOf(ue);
  if (subscription === undefined || security === undefined || connection === undefined)
    return abortProcedure(amf, ue);
  const allowedNssai = allowedNssaiFor(
    registration.request.requestedNssai,
    configuration.slices,
    subscription,
  );
  if (allowedNssai.length === 0) return rejectRegistration(amf, ue, GMM_CAUSE.noNetworkSlicesAvailable);
  const smsAllowed = await smsOverNas(amf, ue, registration.request);
  if (!current(amf, ue, registration)) return;
  const featureSupport = await imsVoiceFeatureSupport(
    amf,
    ue,
    registration.request,
    subscription,
    allowedNssai,
  );
  if (!current(amf, ue, registration)) return;

  const { plmn } = configuration;
  const guti = newGuti(amf, plmn);
  const sessions = reconcileSessions(amf, ue, registration.request, subscription.profile);
  const accept: NasMessageOf<'registrationAccept'> = {
    messageType: 'registrationAccept',
    registrationResult: {
      value: 1,
      smsAllowed,
      nssaaToBePerformed: false,
      emergencyRegistered: false,
      disasterRoamingRegistration: false,
    },
    fiveGGuti: guti,
    taiList: [
      {
        type: 'non-consecutive-tacs',
        plmn: { ...plmn },
        tacs: configuration.tacs.slice(0, MAX_TACS).map((tac) => parseInt(tac, 16)),
      },
    ],
    allowedNssai,
    t3512Value: gprsTimerOf(amf.settings.t3512Ms, 'timer3'),
    t3502Value: gprsTimerOf(amf.settings.t3502Ms, 'timer'),
    ...(featureSupport === undefined ? {} : { fiveGsNetworkFeatureSupport: featureSupport }),
    ...sessions.accept,
  };
  ue.allowedNssai = allowedNssai;
  ue.requestedNssai = registration.request.requestedNssai;
  ue.ueAmbr = ueAmbrOf(subscription.profile);
  const area = accept.taiList?.[0];
  // Written out, not spread: a spread object with a property added after it got a hidden class of its own,
  // one per registered UE.
  if (area?.type === 'non-consecutive-tacs')
    ue.registrationArea = { mcc: area.plmn.mcc, mnc: area.plmn.mnc, tacs: area.tacs };
  const send = (): boolean => sendNas(amf, ue, accept, { kind: 'current' });
  const timer = startRetransmissionTimer(
    amf.timers,
    { ms: amf.settings.t3550Ms, retransmissions: amf.settings.retransmissions },
    () => void send(),
    () => abortProcedure(amf, ue),
  );
  ue.procedure = { kind: 'registration-accept', registration, guti, allowedNssai, timer };
  // The new 5G-GUTI names the UE from now on (the old one is not kept, 5.5.1.2.4).
  amf.ues.setTmsi(ue, guti.tmsi);
  ue.guti = guti;
  ue.gutiReallocationPending = false;

  if (contextSetUp(ue)) return void send();
  const nasPdu = nasPduFor(amf, ue, accept, { kind: 'current' });
  const kgnb = deriveContextKgnb(security);
  const capability = ue.ueSecurityCapability;
  if (nasPdu === undefined || kgnb === undefined || capability === undefined) return abortProcedure(amf, ue);
  // What the radio is given now; a later change goes by UE Context Modification (amf.refreshInactiveAssistance).
  ue.inactiveAssistance = inactiveAssistanceFor(ue, amf.settings.t3512Ms);
  amf.ngap.setUpContext(connection, {
    ...sessions.context,
    guami: guami(amf.identity, plmn),
    allowedNssai: ngapAllowedNssai(allowedNssai),
    ueSecurityCapabilities: ngapSecurityCapabilities(capability),
    // The Security Key IE is KgNB's 256 bits as they are (TS 38.413 9.3.1.87).
    securityKey: { bytes: kgnb, length: 256 },
    nasPdu,
    inactiveAssistance: ue.inactiveAssistance,
  });
}

/**
 * Registration Complete (TS 24.501 5.5.1.2.4): the UE is 5GMM-REGISTERED with its new 5G-GUTI, shown
 * registered with its IMEI and algorithms (network.md 5). After a mobility or periodic update from idle
 * without a follow-on request or Uplink data status (the user plane it asked back) the connection the
 * update opened is released (5.5.1.3.4, TS 23.502 4.2.6). An update sent over a connection the UE held
 * already (after a handover into a new tracking area, TS 23.502 4.9.1.3.3 step 9) keeps it: releasing
 * it would take down the user plane the UE is using.
 */
export function registrationComplete(amf: AmfContext, ue: AmfUe): void {
  const procedure = ue.procedure;
  if (procedure.kind !== 'registration-accept') return;
  procedure.timer.stop();
  ue.procedure = { kind: 'none' };
  enterGmmState(ue, 'registered');
  const supi = ue.supi;
  const security = ue.security;
  if (supi === undefined || security === undefined) return;
  amf.events.emit('ue.registered', {
    supi,
    radio: ue.lastRadio ?? '',
    registration: {
      radioAccessTypes: ['5G'],
      imei: ue.pei ?? '',
      cipheringAlgorithm: `NEA${security.ciphering}`,
      integrityAlgorithm: `NIA${security.integrity}`,
    },
  });
  amf.ueContexts.save(ue);
  // Short messages stored for the UE go now (TS 23.502 4.13.3.9: the UE is reachable).
  if (ue.smsOverNas) amf.sms?.ueReachable(supi);
  const { request, generation, connectedBefore } = procedure.registration;
  // A configuration change since the subscription was read reaches the UE now (TS 24.501 5.4.4.1): a
  // command once it is connected between procedures, or a network-initiated deregistration.
  if (generation !== undefined && generation !== amf.configurationGeneration) amf.reconsider(ue);
  if (
    connectedBefore !== true &&
    request.registrationType.value !== REGISTRATION_TYPE.initial &&
    !request.registrationType.followOnRequestPending &&
    (request.uplinkDataStatus ?? []).length === 0
  )
    return releaseConnection(amf, ue);
  // A radio that held the context before the update still has the old 5G-GUTI's index and old area.
  amf.refreshInactiveAssistance(ue);
  sendPendingConfigurationUpdate(amf, ue);
}

/**
 * Registration Reject #22 (congestion) with T3346, the UE's back-off (TS 24.501 5.5.1.2.5, 5.3.9), for a
 * Registration Request beyond the AMF's UE context limit.
 */
export function congestionReject(amf: AmfContext): NasMessageOf<'registrationReject'> {
  amf.metrics.ueContextLimitReject();
  amf.overload.shed();
  return backOffReject(amf);
}

/** Registration Reject #22 with T3346: the UE tries again once T3346 expires (TS 24.501 5.5.1.2.5). */
function backOffReject(amf: AmfContext): NasMessageOf<'registrationReject'> {
  return {
    messageType: 'registrationReject',
    fiveGmmCause: GMM_CAUSE.congestion,
    t3346Value: gprsTimerOf(backOffMs(amf.settings.t3346Ms), 'timer'),
  };
}

/**
 * T3346 for one rejected UE: between half of `t3346Ms` and all of it, so that the devices a burst
 * rejected do not come back together (TS 23.501 5.19.7.2).
 */
function backOffMs(t3346Ms: number): number {
  return t3346Ms / 2 + Math.random() * (t3346Ms / 2);
}

/**
 * A UE still registering whose procedure needed the database (a new SQN, its subscription) while the
 * database is unavailable: #22 with T3346 (TS 24.501 5.5.1.2.5; the network cannot serve it now, as
 * under congestion, TS 23.501 5.19.7.2), protected if a security context is current, and the context goes.
 */
export function refuseWhileDatabaseUnavailable(amf: AmfContext, ue: AmfUe): void {
  stopProcedure(ue);
  sendNas(
    amf,
    ue,
    backOffReject(amf),
    ue.security?.status === 'current' ? { kind: 'current' } : { kind: 'plain' },
  );
  deregister(amf, ue);
}

/** A provisional context's UE turned out new to the AMF, which is at its limit: #22, and the context goes. */
function refuseForCongestion(amf: AmfContext, ue: AmfUe): void {
  stopProcedure(ue);
  sendNas(amf, ue, congestionReject(amf), { kind: 'plain' });
  deregister(amf, ue);
}

/**
 * Registration Reject (TS 24.501 5.5.1.2.5, 5.5.1.3.5) with its 5GMM cause and T3502, protected when a
 * current security context exists; then the connection is released and the context forgotten (a
 * registered UE is deregistered).
 */
function rejectRegistration(amf: AmfContext, ue: AmfUe, cause: number): void {
  stopProcedure(ue);
  sendNas(
    amf,
    ue,
    {
      messageType: 'registrationReject',
      fiveGmmCause: cause,
      t3502Value: gprsTimerOf(amf.settings.t3502Ms, 'timer'),
    },
    ue.security?.status === 'current' ? { kind: 'current' } : { kind: 'plain' },
  );
  deregister(amf, ue);
}
