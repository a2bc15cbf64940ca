// The 5G key hierarchy of TS 33.501 Annex A, on the KDF of TS 33.220 Annex B.
import { createHash } from 'node:crypto';

import { kdf } from './kdf.ts';

// TS 33.501 Annex A: the FC value of each derivation.
const FC = {
  kausf: 0x6a,
  resStar: 0x6b,
  kseaf: 0x6c,
  kamf: 0x6d,
  algorithmKey: 0x69,
  kgnb: 0x6e,
  nh: 0x6f,
} as const;

/** TS 33.501 A.8 Table A.8-1: the algorithm type distinguishers. */
export const ALGORITHM_TYPE = {
  nasEncryption: 0x01,
  nasIntegrity: 0x02,
  rrcEncryption: 0x03,
  rrcIntegrity: 0x04,
  upEncryption: 0x05,
  upIntegrity: 0x06,
} as const;
type AlgorithmType = (typeof ALGORITHM_TYPE)[keyof typeof ALGORITHM_TYPE];

/** TS 33.501 A.9 Table A.9-1: the access type distinguishers for KgNB / KN3IWF. */
export const ACCESS_TYPE = { threeGpp: 0x01, nonThreeGpp: 0x02 } as const;
type AccessType = (typeof ACCESS_TYPE)[keyof typeof ACCESS_TYPE];

const KEY_128_BYTES = 16;

/** TS 24.501 9.12.1: "5G:mnc<MNC>.mcc<MCC>.3gppnetwork.org", the MNC padded to three digits. */
export function servingNetworkName(mcc: string, mnc: string): string {
  if (!/^\d{3}$/.test(mcc)) throw new RangeError(`MCC must be 3 digits, got "${mcc}"`);
  if (!/^\d{2,3}$/.test(mnc)) throw new RangeError(`MNC must be 2 or 3 digits, got "${mnc}"`);
  return `5G:mnc${mnc.padStart(3, '0')}.mcc${mcc}.3gppnetwork.org`;
}

/** TS 33.501 A.2: KAUSF from CK || IK, the serving network name and SQN XOR AK. */
export function deriveKausf(ck: Buffer, ik: Buffer, snn: string, sqnXorAk: Buffer): Buffer {
  return kdf(Buffer.concat([ck, ik]), FC.kausf, [utf8(snn), sqnXorAk]);
}

/** TS 33.501 A.4: RES* (UE) or XRES* (home network): the 128 least significant bits of the KDF output. */
export function deriveResStar(ck: Buffer, ik: Buffer, snn: string, rand: Buffer, res: Buffer): Buffer {
  return leastSignificant128(kdf(Buffer.concat([ck, ik]), FC.resStar, [utf8(snn), rand, res]));
}

/** TS 33.501 A.5: HXRES* (or HRES*) = the 128 least significant bits of SHA-256(RAND || XRES*). */
export function deriveHxresStar(rand: Buffer, xresStar: Buffer): Buffer {
  return leastSignificant128(createHash('sha256').update(rand).update(xresStar).digest());
}

/** TS 33.501 A.6: KSEAF from KAUSF and the serving network name. */
export function deriveKseaf(kausf: Buffer, snn: string): Buffer {
  return kdf(kausf, FC.kseaf, [utf8(snn)]);
}

/**
 * TS 33.501 A.7.1: KAMF from KSEAF, the SUPI and ABBA. For a SUPI of type IMSI, P0 is the IMSI's digits as
 * characters (without the "imsi-" prefix).
 */
export function deriveKamf(kseaf: Buffer, supi: string, abba: Buffer): Buffer {
  return kdf(kseaf, FC.kamf, [utf8(supiDigits(supi)), abba]);
}

/**
 * TS 33.501 A.8: an algorithm key (KNASint, KNASenc, KRRCint, ...) from KAMF or KgNB, the algorithm type
 * distinguisher and the algorithm identity (e.g. 2 for 128-NIA2): the 128 least significant bits.
 */
export function deriveAlgorithmKey(key: Buffer, type: AlgorithmType, algorithmIdentity: number): Buffer {
  if (!Number.isInteger(algorithmIdentity) || algorithmIdentity < 0 || algorithmIdentity > 0x0f) {
    throw new RangeError(`algorithm identity must be 0..15, got ${algorithmIdentity}`);
  }
  return leastSignificant128(
    kdf(key, FC.algorithmKey, [Uint8Array.of(type), Uint8Array.of(algorithmIdentity)]),
  );
}

/** TS 33.501 A.9: KgNB from KAMF, the uplink NAS COUNT and the access type distinguisher. */
export function deriveKgnb(kamf: Buffer, uplinkNasCount: number, accessType: AccessType): Buffer {
  return kdf(kamf, FC.kgnb, [uint32(uplinkNasCount), Uint8Array.of(accessType)]);
}

/** TS 33.501 A.10: NH from KAMF and the SYNC-input (the fresh KgNB, then the previous NH). */
export function deriveNh(kamf: Buffer, syncInput: Buffer): Buffer {
  return kdf(kamf, FC.nh, [syncInput]);
}

function leastSignificant128(output: Buffer): Buffer {
  return output.subarray(output.length - KEY_128_BYTES);
}

function supiDigits(supi: string): string {
  const digits = supi.startsWith('imsi-') ? supi.slice('imsi-'.length) : supi;
  if (!/^\d{5,15}$/.test(digits))
    throw new RangeError(`SUPI must be an IMSI of 5 to 15 digits, got "${supi}"`);
  return digits;
}

function uint32(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new RangeError(`a NAS COUNT is 32 bits, got ${value}`);
  }
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}
