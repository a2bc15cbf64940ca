// The 5G NAS security context of TS 33.501 6.4 / TS 24.501 4.4: ngKSI, KAMF, the selected algorithms, the
// NAS keys derived from them (TS 33.501 A.8) and the two NAS COUNTs. One mechanism serves the AMF and the
// simulated UE: `side` says which COUNT this end sends with (downlink for the network, uplink for the UE)
// and which it receives with. Only protect/unprotect move the COUNTs.
import { ACCESS_TYPE, ALGORITHM_TYPE, deriveAlgorithmKey, deriveKgnb } from '../../crypto/key-hierarchy.ts';
import { DOWNLINK, UPLINK, type Direction, type NasAlgorithm } from '../../crypto/nas-algorithms.ts';
import type { NasKeySetIdentifier } from '../nas/ie/mobility.ts';

export type NasSecuritySide = 'network' | 'ue';

/** KNASenc and KNASint are the 128 least significant bits of the KDF output (TS 33.501 A.8). */
const NAS_KEY_BYTES = 16;

/**
 * The BEARER input of the NAS algorithms is the NAS connection identifier (TS 33.501 6.4.3.1),
 * 1 for 3GPP access: open5gs (AMF `amf_ue->nas.access_type`, OGS_ACCESS_TYPE_3GPP = 1) and free5gc
 * (nas `security/parameters.go`, `Bearer3GPP uint8 = 0x01`) use it, and the four 128-NIA2 MACs of the open5gs capture in
 * third-party/vectors/security-5g-aka-open5gs.json verify with it and not with 0.
 */
export const NAS_CONNECTION_IDENTIFIER_3GPP = 1;

/**
 * 'new': taken into use by a Security Mode Command that has not completed (messages carry security header
 * type 3 or 4); 'current': after Security Mode Complete (TS 24.501 4.4.2, 5.4.2).
 */
type NasSecurityContextStatus = 'new' | 'current';

interface NasSecurityContextInput {
  side: NasSecuritySide;
  /** The ngKSI the AMF assigned to KAMF at authentication (TS 24.501 9.11.3.32). */
  ngKsi: NasKeySetIdentifier;
  kamf: Buffer;
  /** NEA0..NEA3. */
  ciphering: NasAlgorithm;
  /** NIA0..NIA3. */
  integrity: NasAlgorithm;
}

export interface NasSecurityContext {
  readonly side: NasSecuritySide;
  readonly ngKsi: NasKeySetIdentifier;
  readonly kamf: Buffer;
  readonly ciphering: NasAlgorithm;
  readonly integrity: NasAlgorithm;
  /** KNASenc and KNASint (TS 33.501 A.8). */
  readonly knasEnc: Buffer;
  readonly knasInt: Buffer;
  readonly status: NasSecurityContextStatus;
  /** The NAS COUNT the next message this side sends will use. */
  readonly nextSendCount: number;
  /** The highest NAS COUNT accepted from the peer, undefined before the first. */
  readonly highestReceivedCount: number | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A fresh context: both NAS COUNTs at 0 (TS 24.501 4.4.3.1, a new KAMF), status 'new'. */
export function createNasSecurityContext(input: NasSecurityContextInput): NasSecurityContext {
  const { side, ngKsi, ciphering, integrity } = input;
  // KAMF, KNASenc and KNASint in one block of their own: a context lives as long as its UE is registered,
  // and one memory block in place of three (each an ArrayBuffer with a backing store the collector
  // tracks, two of them whole 32-byte KDF outputs kept for 16 bytes) is lighter for every collection.
  const keys = Buffer.allocUnsafeSlow(input.kamf.length + 2 * NAS_KEY_BYTES);
  keys.set(input.kamf);
  const kamf = keys.subarray(0, input.kamf.length);
  const knasEnc = keys.subarray(kamf.length, kamf.length + NAS_KEY_BYTES);
  const knasInt = keys.subarray(kamf.length + NAS_KEY_BYTES);
  knasEnc.set(deriveAlgorithmKey(kamf, ALGORITHM_TYPE.nasEncryption, ciphering));
  knasInt.set(deriveAlgorithmKey(kamf, ALGORITHM_TYPE.nasIntegrity, integrity));
  return {
    side,
    ngKsi: { mapped: ngKsi.mapped, ksi: ngKsi.ksi },
    kamf,
    ciphering,
    integrity,
    knasEnc,
    knasInt,
    status: 'new',
    nextSendCount: 0,
    highestReceivedCount: undefined,
  };
}

/**
 * A current context rebuilt from a stored one (an AMF taking over another's UE, docs/amf-set.md): the
 * keys derived again from KAMF and the algorithms, the NAS COUNTs as given. The caller chooses them so
 * that no COUNT is used twice (TS 33.501 6.4.3.1).
 */
export function restoreNasSecurityContext(
  input: NasSecurityContextInput & { nextSendCount: number; highestReceivedCount: number | undefined },
): NasSecurityContext {
  const context = createNasSecurityContext(input) as Mutable<NasSecurityContext>;
  context.status = 'current';
  context.nextSendCount = input.nextSendCount;
  context.highestReceivedCount = input.highestReceivedCount;
  return context;
}

/** After Security Mode Complete: the context becomes the current one (TS 24.501 5.4.2.3). */
export function makeCurrent(context: NasSecurityContext): void {
  (context as Mutable<NasSecurityContext>).status = 'current';
}

/** True for 0..3, the algorithm identities this core implements (TS 24.501 9.11.3.34). */
export function isNasAlgorithm(value: number): value is NasAlgorithm {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

/** DIRECTION of what this side sends (TS 33.501 6.4.3.1: 0 uplink, 1 downlink). */
export function sendDirection(side: NasSecuritySide): Direction {
  return side === 'network' ? DOWNLINK : UPLINK;
}

export function receiveDirection(side: NasSecuritySide): Direction {
  return side === 'network' ? UPLINK : DOWNLINK;
}

/** The uplink NAS COUNT of the latest uplink message: received by the network, sent by the UE. */
export function latestUplinkCount(context: NasSecurityContext): number | undefined {
  if (context.side === 'network') return context.highestReceivedCount;
  return context.nextSendCount === 0 ? undefined : context.nextSendCount - 1;
}

/**
 * TS 33.501 A.9 / 6.9.2.1.1: KgNB from KAMF and the uplink NAS COUNT of the NAS message that triggered it
 * (the latest uplink one, e.g. Security Mode Complete or Service Request), for 3GPP access. Undefined
 * before any uplink message was protected in this context.
 */
export function deriveContextKgnb(context: NasSecurityContext): Buffer | undefined {
  const count = latestUplinkCount(context);
  return count === undefined ? undefined : deriveKgnb(context.kamf, count, ACCESS_TYPE.threeGpp);
}

/** Called by protect: the COUNT just used is spent. */
export function advanceSendCount(context: NasSecurityContext): void {
  (context as Mutable<NasSecurityContext>).nextSendCount += 1;
}

/** Called by unprotect once a message's MAC verified with `count`. */
export function acceptReceivedCount(context: NasSecurityContext, count: number): void {
  const mutable = context as Mutable<NasSecurityContext>;
  if (mutable.highestReceivedCount === undefined || count > mutable.highestReceivedCount)
    mutable.highestReceivedCount = count;
}
