/**
 * Sequence numbers of 5G-AKA / UMTS AKA as the HE/AuC generates them (TS 33.102 Annex C, profile with
 * SEQ and IND): SQN (48 bits) = SEQ (43 bits) || IND (5 bits). Each fresh vector takes SEQ_HE + 1 and
 * the next IND value in a cyclic manner (C.1.1.1, C.3.2), so that vectors used out of order by different
 * serving networks still pass the device's freshness check (C.2.2, one SEQ_MS per IND value).
 */
export const IND_BITS = 5;
const IND_MODULUS = 1n << BigInt(IND_BITS);
const SEQ_MODULUS = 1n << BigInt(48 - IND_BITS);

export const SQN_BYTES = 6;

function toBigInt(sqn: Buffer): bigint {
  if (sqn.length !== SQN_BYTES) throw new RangeError(`an SQN is ${SQN_BYTES} bytes, got ${sqn.length}`);
  return BigInt(`0x${sqn.toString('hex')}`);
}

function toBuffer(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(SQN_BYTES * 2, '0'), 'hex');
}

/** SEQ and IND of an SQN. */
export function splitSqn(sqn: Buffer): { seq: bigint; ind: number } {
  const value = toBigInt(sqn);
  return { seq: value >> BigInt(IND_BITS), ind: Number(value % IND_MODULUS) };
}

/** The SQN after `sqn`: SEQ + 1 (wrapping at 2^43, C.1.1.1 notes wrap-around is not expected) and IND + 1 mod 32. */
export function nextSqn(sqn: Buffer): Buffer {
  const { seq, ind } = splitSqn(sqn);
  const nextSeq = (seq + 1n) % SEQ_MODULUS;
  const nextInd = (BigInt(ind) + 1n) % IND_MODULUS;
  return toBuffer((nextSeq << BigInt(IND_BITS)) | nextInd);
}
