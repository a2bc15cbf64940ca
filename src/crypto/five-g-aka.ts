// 5G-AKA on the home network side (TS 33.501 6.1.3.2) with MILENAGE, and the resynchronisation of TS 33.102
// 6.3.5 from AUTS.
import { timingSafeEqual } from 'node:crypto';

import { deriveHxresStar, deriveKausf, deriveKseaf, deriveResStar } from './key-hierarchy.ts';
import { f1, f5star, milenage } from './milenage.ts';

const SQN_BYTES = 6;
const MAC_BYTES = 8;
const AUTS_BYTES = SQN_BYTES + MAC_BYTES;

/** TS 33.102 Annex H / TS 33.501 6.1.3.2: AMF with the separation bit set, as 5G-AKA requires. */
export const AMF_5G = Buffer.from([0x80, 0x00]);
// TS 33.102 6.3.3: MAC-S is computed with a dummy AMF of all zeros.
const RESYNCHRONISATION_AMF = Buffer.alloc(2);

export interface SubscriberKeys {
  /** K, the 128-bit subscriber key. */
  key: Buffer;
  /** OPc, the 128-bit operator variant. */
  opc: Buffer;
}

interface VectorRequest extends SubscriberKeys {
  /** The 48-bit sequence number to put in AUTN (already advanced and stored by the caller). */
  sqn: Buffer;
  /** 128 random bits. */
  rand: Buffer;
  /** The serving network name (TS 24.501 9.12.1), e.g. "5G:mnc001.mcc001.3gppnetwork.org". */
  servingNetworkName: string;
  /** Defaults to AMF_5G (8000). */
  amf?: Buffer;
}

/** The 5G HE AV the ARPF returns (TS 33.501 6.1.3.2 step 1) and what the AUSF derives from it (step 5). */
interface AuthenticationVector {
  rand: Buffer;
  /** AUTN = SQN XOR AK || AMF || MAC-A. */
  autn: Buffer;
  xresStar: Buffer;
  kausf: Buffer;
  /** HXRES* for the SEAF. */
  hxresStar: Buffer;
  kseaf: Buffer;
}

/** Builds one 5G-AKA authentication vector: MILENAGE, AUTN, XRES*, KAUSF, then HXRES* and KSEAF. */
export function generateAuthenticationVector(request: VectorRequest): AuthenticationVector {
  const { key, opc, sqn, rand, servingNetworkName: snn } = request;
  const amf = request.amf ?? AMF_5G;
  const out = milenage({ key, opc, rand, sqn, amf });
  const sqnXorAk = xor(sqn, out.ak);
  const xresStar = deriveResStar(out.ck, out.ik, snn, rand, out.res);
  const kausf = deriveKausf(out.ck, out.ik, snn, sqnXorAk);
  return {
    rand,
    autn: Buffer.concat([sqnXorAk, amf, out.macA]),
    xresStar,
    kausf,
    hxresStar: deriveHxresStar(rand, xresStar),
    kseaf: deriveKseaf(kausf, snn),
  };
}

/** TS 33.501 6.1.3.2 step 10: the AUSF accepts RES* when it equals XRES* (compared in constant time). */
export function resStarMatches(resStar: Buffer, xresStar: Buffer): boolean {
  return resStar.length === xresStar.length && timingSafeEqual(resStar, xresStar);
}

type ResynchronisationResult =
  { ok: true; sqnMs: Buffer } | { ok: false; error: 'invalid-auts-length' | 'mac-s-mismatch' };

/**
 * TS 33.102 6.3.5: recovers SQN_MS from AUTS = SQN_MS XOR AK* || MAC-S, with AK* = f5*(RAND) and MAC-S =
 * f1*(SQN_MS, RAND, AMF = 0000), for the RAND of the failed challenge. A wrong MAC-S is an error value.
 */
export function recoverSqnFromAuts(
  keys: SubscriberKeys,
  rand: Buffer,
  auts: Buffer,
): ResynchronisationResult {
  if (auts.length !== AUTS_BYTES) return { ok: false, error: 'invalid-auts-length' };
  const sqnMs = xor(auts.subarray(0, SQN_BYTES), f5star(keys.key, keys.opc, rand));
  const { macS } = f1(keys.key, keys.opc, rand, sqnMs, RESYNCHRONISATION_AMF);
  if (!timingSafeEqual(macS, auts.subarray(SQN_BYTES))) return { ok: false, error: 'mac-s-mismatch' };
  return { ok: true, sqnMs };
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
  return out;
}
