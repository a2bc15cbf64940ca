// A UE another member of the AMF set served, taken over by this one from its stored UE context
// (docs/amf-set.md, "Takeover"; TS 23.501 5.21.2.3, TS 24.501 5.6.1 and 5.5.1.3, TS 33.501 6.4.3.1).
import { REGISTRATION_TYPE, type FiveGmmMessage, type Guti, type NasMessageOf } from '../../nas/index.ts';
import {
  isNasAlgorithm,
  MAX_NAS_COUNT,
  restoreNasSecurityContext,
  unprotect,
  type NasSecurityContext,
} from '../../nas-security/index.ts';
import type { StoredGuti, UeContextRecord } from '../../ports/ue-contexts.ts';
import type { NetworkEventMap } from '../../events/network-events.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { enterGmmState } from '../context/gmm-state.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import { smsTakenOver } from './sms.ts';
import { becomeIdle } from './ue-lifecycle.ts';

/**
 * How far above the stored downlink NAS COUNT the new owner continues (TS 33.501 6.4.3.1: a COUNT is
 * never used twice under one KAMF). The record holds the COUNT as of the last procedure's end; the old
 * owner may have sent a few messages after it (a procedure's later messages, retransmissions), and those
 * COUNTs must not come again. The UE finds the COUNT from its 8-bit sequence number as the smallest
 * one above the highest it accepted (TS 24.501 4.4.3.1), so the step must stay below 256: 128 leaves
 * room for 127 unstored downlink messages, more than any procedure sends, and a step the UE follows.
 */
export const DOWNLINK_COUNT_MARGIN = 128;

/** The initial NAS messages a takeover serves: Service Request, mobility and periodic registration. */
type TakeoverMessage = NasMessageOf<'serviceRequest'> | NasMessageOf<'registrationRequest'>;

/**
 * The 5G-GUTI an initial NAS message names, when it is one of this AMF's set (TS 23.003 2.10.1: the
 * operator's PLMN, this AMF Region ID and AMF Set ID, any AMF Pointer of the set); a Service Request's
 * 5G-S-TMSI is the 5G-GUTI without PLMN and region, which are this AMF's (TS 23.003 2.11).
 */
function setGutiOf(
  message: FiveGmmMessage,
  amf: Pick<AmfContext, 'identity'>,
  plmn: { mcc: string; mnc: string },
): StoredGuti | undefined {
  const { regionId, setId } = amf.identity;
  if (message.messageType === 'serviceRequest') {
    const sTmsi = message.fiveGSTmsi;
    if (sTmsi.type !== '5g-s-tmsi' || sTmsi.amfSetId !== setId) return undefined;
    return {
      ...plmn,
      amfRegionId: regionId,
      amfSetId: setId,
      amfPointer: sTmsi.amfPointer,
      tmsi: sTmsi.tmsi,
    };
  }
  if (message.messageType !== 'registrationRequest') return undefined;
  // An initial registration authenticates the UE afresh: only an update continues its context.
  const type = message.registrationType.value;
  if (type !== REGISTRATION_TYPE.mobilityUpdating && type !== REGISTRATION_TYPE.periodicUpdating)
    return undefined;
  const identity = message.mobileIdentity;
  if (identity.type !== '5g-guti') return undefined;
  const same =
    identity.mcc === plmn.mcc &&
    identity.mnc === plmn.mnc &&
    identity.amfRegionId === regionId &&
    identity.amfSetId === setId;
  return same
    ? {
        mcc: identity.mcc,
        mnc: identity.mnc,
        amfRegionId: regionId,
        amfSetId: setId,
        amfPointer: identity.amfPointer,
        tmsi: identity.tmsi,
      }
    : undefined;
}

/** Whether `message` is one a takeover may serve (the kind; its 5G-GUTI is checked by `setGutiOf`). */
export const takesOver = (message: FiveGmmMessage): message is TakeoverMessage =>
  message.messageType === 'serviceRequest' || message.messageType === 'registrationRequest';

/**
 * The NAS security context of `record`, as this AMF continues it (TS 33.501 6.4.3.1): keys derived again
 * from KAMF and the algorithms, the downlink COUNT `DOWNLINK_COUNT_MARGIN` above the stored one, the
 * highest uplink COUNT the stored one (`unprotect` re-estimates the UE's above it). Undefined when the
 * record cannot serve the UE (not registered, no 5G-GUTI, no usable security context).
 */
export function restoredSecurity(record: UeContextRecord): NasSecurityContext | undefined {
  const stored = record.security;
  if (!record.registered || stored === null || record.guti === null) return undefined;
  const { ciphering, integrity } = stored;
  const next = stored.downlinkCount + DOWNLINK_COUNT_MARGIN;
  if (
    !isNasAlgorithm(ciphering) ||
    !isNasAlgorithm(integrity) ||
    !/^[0-9a-f]{64}$/.test(stored.kamf) ||
    next > MAX_NAS_COUNT
  )
    return undefined;
  return restoreNasSecurityContext({
    side: 'network',
    ngKsi: stored.ngKsi,
    kamf: Buffer.from(stored.kamf, 'hex'),
    ciphering,
    integrity,
    nextSendCount: next,
    highestReceivedCount: stored.uplinkCount ?? undefined,
  });
}

/** The UE context of `record`, rebuilt as this AMF's, registered, with `security`; undefined when full. */
function rebuild(
  amf: Pick<AmfContext, 'ues'>,
  record: UeContextRecord & { guti: StoredGuti },
  security: NasSecurityContext,
): AmfUe | undefined {
  const ue = amf.ues.create();
  if (ue === undefined) return undefined;
  const guti: Guti = { type: '5g-guti', ...record.guti };
  ue.security = security;
  ue.guti = guti;
  ue.pei = record.pei ?? undefined;
  ue.lastKsi = security.ngKsi.ksi;
  const capability = record.ueSecurityCapability;
  ue.ueSecurityCapability =
    capability === null
      ? undefined
      : {
          ea: [...capability.ea],
          ia: [...capability.ia],
          ...(capability.eea === null ? {} : { eea: [...capability.eea] }),
          ...(capability.eia === null ? {} : { eia: [...capability.eia] }),
        };
  ue.registrationArea =
    record.registrationArea === null
      ? undefined
      : { ...record.registrationArea, tacs: [...record.registrationArea.tacs] };
  ue.allowedNssai = record.allowedNssai.map((s) =>
    s.sd === null ? { sst: s.sst } : { sst: s.sst, sd: s.sd },
  );
  ue.requestedNssai = ue.allowedNssai;
  enterGmmState(ue, 'registered-initiated');
  enterGmmState(ue, 'registered');
  return ue;
}

/**
 * Makes the UE of `record` this AMF's with `security` (from `restoredSecurity`, its uplink COUNT as the
 * UE's message, if any, left it): its context rebuilt, ownership taken in one compare-and-set on the
 * record's epoch (epoch + 1), its PDU sessions re-created on this SMF with their addresses, the user plane
 * down. Undefined, with nothing left behind, when this AMF holds the SUPI already, has no room, or
 * another member took the UE first; a store or SMF failure is logged and ends the same way (the record
 * stays for another try). Shared by a takeover and the adoption of a dead member's UEs (adoption.ts).
 */
export function takeRecord(
  amf: AmfContext,
  record: UeContextRecord,
  security: NasSecurityContext,
): Promise<AmfUe | undefined> {
  let takes = takesInFlight.get(amf);
  if (takes === undefined) takesInFlight.set(amf, (takes = new Map<string, Promise<AmfUe | undefined>>()));
  const taking = take(amf, record, security);
  const own = takes;
  if (!own.has(record.supi)) {
    own.set(record.supi, taking);
    void taking.finally(() => {
      if (own.get(record.supi) === taking) own.delete(record.supi);
    });
  }
  return taking;
}

/**
 * The takes in flight of each AMF by SUPI (a takeover's, or an adoption's, which may run while the UE's
 * own message arrives): that message waits for the take to end, then is handled afresh.
 */
const takesInFlight = new WeakMap<AmfContext, Map<string, Promise<AmfUe | undefined>>>();

/** The take of `supi`'s UE this AMF has in flight, if any (nas-dispatch.ts waits for it). */
export function takeInFlight(amf: AmfContext, supi: string): Promise<unknown> | undefined {
  return takesInFlight.get(amf)?.get(supi);
}

async function take(
  amf: AmfContext,
  record: UeContextRecord,
  security: NasSecurityContext,
): Promise<AmfUe | undefined> {
  const stored = record.security;
  if (stored === null || record.guti === null || amf.ues.bySupi(record.supi) !== undefined) return undefined;
  const ue = rebuild(amf, { ...record, guti: record.guti }, security);
  if (ue === undefined) return undefined;
  // What this AMF continues from, stored with the take-over: a member taking the UE over from this one
  // before its next write starts above these COUNTs again.
  const taken: UeContextRecord = {
    ...record,
    security: {
      ...stored,
      downlinkCount: security.nextSendCount,
      uplinkCount: security.highestReceivedCount ?? null,
    },
  };
  let claimed = false;
  try {
    amf.ues.setSupi(ue, record.supi);
    amf.ues.setTmsi(ue, record.guti.tmsi);
    if (!(await amf.ueContexts.claim(ue, taken))) {
      amf.ues.remove(ue);
      return undefined;
    }
    claimed = true;
    // Its copy dropped while the store answered: the member was cut off from the database (set/
    // database-cut.ts) or the UE taken by another. The claim stands in the store; nothing is served here.
    if (!amf.ues.has(ue)) return undefined;
    await amf.smf?.restoreSessions(record.supi, record.pduSessions, ue.allowedNssai);
    await smsTakenOver(amf, ue, record.smsOverNas);
    // Dropped while its sessions were re-created: they end here too (host routes withdrawn).
    if (!amf.ues.has(ue)) {
      amf.smf?.ueGone(record.supi);
      return undefined;
    }
    return ue;
  } catch (error) {
    amf.logger.error({ err: error }, 'AMF: a UE of the set could not be taken over');
    if (amf.ues.has(ue)) amf.ues.remove(ue);
    // Sessions re-created before the failure end here; the UE registers again (its record stays).
    if (claimed) amf.smf?.ueGone(record.supi);
    return undefined;
  }
}

/** What the API shows of the registration of a UE taken from the store (network-state.ts). */
export function registrationOf(ue: AmfUe): NetworkEventMap['ue.adopted']['registration'] {
  return {
    radioAccessTypes: ['5G'],
    imei: ue.pei ?? '',
    cipheringAlgorithm: `NEA${ue.security?.ciphering ?? 0}`,
    integrityAlgorithm: `NIA${ue.security?.integrity ?? 0}`,
  };
}

/**
 * An initial NAS message naming a 5G-GUTI of this AMF set that this AMF holds no context for: the UE's
 * context is read from the store by its 5G-TMSI, its integrity checked with the stored security context,
 * and on success this AMF takes the UE over (the record's epoch + 1, one compare-and-set), re-creates its
 * PDU sessions on its SMF, and `serve`s the message as from a UE it held: no Identity Request, no
 * authentication, the same 5G-GUTI (a registration update allocates a new one, as any does). Any other
 * outcome (no record, a failed integrity check, another member taking it first, a store failure) goes to
 * `unknown`, as a UE the AMF does not know.
 */
export async function takeOver(
  amf: AmfContext,
  connection: UeConnection<AmfUe>,
  message: TakeoverMessage,
  nasPdu: Uint8Array,
  serve: (ue: AmfUe, message: FiveGmmMessage, plain: Uint8Array) => void,
  unknown: () => void,
  /**
   * Handles the message afresh, once: for a UE this AMF came to hold while the store was read (its
   * adoption from a dead member, or another connection's takeover, ran meanwhile).
   */
  again?: () => void,
): Promise<void> {
  let taken: { ue: AmfUe; message: FiveGmmMessage; plain: Uint8Array } | undefined;
  try {
    const { configuration } = await amf.network();
    const guti = setGutiOf(message, amf, configuration.plmn);
    const record = guti === undefined ? undefined : await amf.ueContexts.find(guti);
    if (record !== undefined && again !== undefined && amf.ues.bySupi(record.supi) !== undefined) {
      await takeInFlight(amf, record.supi);
      if (connection.phase === 'active') again();
      return;
    }
    // Not while this AMF holds the SUPI (its own context answers for the UE), nor on a closed connection.
    if (record === undefined || amf.ues.bySupi(record.supi) !== undefined || connection.phase !== 'active')
      return unknown();
    const security = restoredSecurity(record);
    // The MAC verified with the stored context, the uplink COUNT re-estimated from the sequence number.
    const opened = security === undefined ? undefined : unprotect(security, nasPdu);
    if (security === undefined || !opened?.ok || 'pti' in opened.message) return unknown();
    const ue = await takeRecord(amf, record, security);
    if (ue === undefined) return unknown();
    taken = { ue, message: opened.message, plain: opened.plain };
  } catch (error) {
    amf.logger.error({ err: error }, 'AMF: a UE of the set could not be taken over');
    return unknown();
  }
  const { ue, message: verified, plain } = taken;
  const supi = ue.supi as string;
  amf.logger.info({ supi, epoch: ue.contextEpoch }, 'AMF: UE taken over from another AMF of the set');
  amf.events.emit('ue.registered', { supi, radio: connection.radio.name, registration: registrationOf(ue) });
  // The connection ended while the store answered: the UE is this AMF's, idle, as after an AN release.
  if (connection.phase !== 'active') return becomeIdle(amf, ue);
  serve(ue, verified, plain);
}
