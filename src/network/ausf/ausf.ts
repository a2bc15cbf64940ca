// The AUSF with the UDM/ARPF roles, in process (TS 33.501 6.1.3.2, 5G-AKA): an authentication vector per
// challenge from the subscriber's K, OPc and a fresh SQN (stored by the authentication-data port before
// it returns), the RES* check, KSEAF to the SEAF, and resynchronisation from AUTS (TS 33.102 6.3.5).
// XRES*, HXRES*, KAUSF, KSEAF, K and OPc stay inside the pending authentication: callers see RAND, AUTN
// and ABBA, and KSEAF only once RES* is right.
import { timingSafeEqual } from 'node:crypto';

import {
  AMF_5G,
  generateAuthenticationVector,
  recoverSqnFromAuts,
  resStarMatches,
  type SubscriberKeys,
} from '../../crypto/five-g-aka.ts';
import { deriveHxresStar } from '../../crypto/key-hierarchy.ts';
import { randomPool } from '../../crypto/random-pool.ts';
import type { AuthenticationDataPort } from '../ports/authentication-data.ts';
import { ABBA } from '../security/kamf.ts';

const RAND_BYTES = 16;

/** One challenge in flight. Its secrets are held by the AUSF that made it; it can be settled once. */
export interface PendingAuthentication {
  /** The SUPI (IMSI digits) being authenticated. */
  readonly supi: string;
  readonly servingNetworkName: string;
  readonly rand: Buffer;
}

interface AuthenticationChallenge {
  /** What the Authentication Request carries (TS 24.501 8.2.1): RAND, AUTN and ABBA. */
  rand: Buffer;
  autn: Buffer;
  abba: Buffer;
  pending: PendingAuthentication;
}

type ConfirmResult =
  | { ok: true; supi: string; kseaf: Buffer }
  /**
   * `res-star-mismatch`: Authentication Reject (TS 24.501 5.4.1.3.7); `not-pending`: the challenge was
   * already settled (confirmed, failed or resynchronised) or is not this AUSF's.
   */
  | { ok: false; reason: 'res-star-mismatch' | 'not-pending' };

export interface Ausf {
  /**
   * A 5G-AKA challenge for `supi` in the serving network `servingNetworkName` (TS 24.501 9.12.1), or
   * undefined for an unknown subscriber. The SQN in AUTN was stored before this returns.
   */
  authenticate(supi: string, servingNetworkName: string): Promise<AuthenticationChallenge | undefined>;
  /** TS 33.501 6.1.3.2 steps 8-10: RES* from the Authentication Response against HXRES* and XRES*. */
  confirm(pending: PendingAuthentication, resStar: Uint8Array): ConfirmResult;
  /**
   * TS 33.102 6.3.5: after an Authentication Failure with cause #21 (synch failure), verifies MAC-S of
   * AUTS for the challenge's RAND and stores SQN_MS as the subscriber's SQN_HE. False when MAC-S does
   * not verify, the challenge is settled, or the subscriber is gone. Authenticate again afterwards.
   */
  resynchronise(pending: PendingAuthentication, auts: Uint8Array): Promise<boolean>;
}

interface AusfOptions {
  authenticationData: AuthenticationDataPort;
  /** Random bytes for RAND; the process's random pool unless given. */
  randomBytes?: (size: number) => Buffer;
}

interface Secrets {
  keys: SubscriberKeys;
  xresStar: Buffer;
  hxresStar: Buffer;
  kseaf: Buffer;
}

export function createAusf(options: AusfOptions): Ausf {
  const { authenticationData } = options;
  const random = options.randomBytes ?? randomPool.bytes;
  // The challenges in flight; an entry leaves when its challenge is settled, or with the pending object.
  const secrets = new WeakMap<PendingAuthentication, Secrets>();

  const settle = (pending: PendingAuthentication): Secrets | undefined => {
    const held = secrets.get(pending);
    secrets.delete(pending);
    return held;
  };

  return {
    async authenticate(supi, servingNetworkName) {
      const data = await authenticationData.generateAuthenticationData(supi);
      if (data === undefined) return undefined;
      const keys: SubscriberKeys = { key: data.k, opc: data.opc };
      const vector = generateAuthenticationVector({
        ...keys,
        sqn: data.sqn,
        rand: random(RAND_BYTES),
        servingNetworkName,
        amf: AMF_5G,
      });
      const pending: PendingAuthentication = Object.freeze({ supi, servingNetworkName, rand: vector.rand });
      secrets.set(pending, {
        keys,
        xresStar: vector.xresStar,
        hxresStar: vector.hxresStar,
        kseaf: vector.kseaf,
      });
      return { rand: vector.rand, autn: vector.autn, abba: ABBA, pending };
    },

    confirm(pending, resStar) {
      const held = settle(pending);
      if (held === undefined) return { ok: false, reason: 'not-pending' };
      const received = Buffer.from(resStar);
      // Step 8, the SEAF: HRES* against HXRES*; step 10, the AUSF: RES* against XRES*.
      const hresStar = deriveHxresStar(pending.rand, received);
      if (!timingSafeEqual(hresStar, held.hxresStar) || !resStarMatches(received, held.xresStar))
        return { ok: false, reason: 'res-star-mismatch' };
      return { ok: true, supi: pending.supi, kseaf: held.kseaf };
    },

    async resynchronise(pending, auts) {
      const held = settle(pending);
      if (held === undefined) return false;
      const recovered = recoverSqnFromAuts(held.keys, pending.rand, Buffer.from(auts));
      if (!recovered.ok) return false;
      return authenticationData.resynchronise(pending.supi, recovered.sqnMs);
    },
  };
}
