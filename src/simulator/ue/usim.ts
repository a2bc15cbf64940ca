// The USIM side of 5G-AKA (TS 33.501 6.1.3.2 steps 6-7) with MILENAGE: verify AUTN, check the freshness of
// SQN as TS 33.102 Annex C.2 says (one SEQ_MS per IND value), answer RES* and derive KAUSF and KSEAF; or
// say why not: a MAC failure, a synchronisation failure with AUTS (TS 33.102 6.3.3), or an AMF without
// the separation bit (TS 33.501 6.1.3.2 step 7: "non-5G authentication unacceptable").
import { deriveKausf, deriveKseaf, deriveResStar } from '../../crypto/key-hierarchy.ts';
import { ownCopy } from '../../crypto/key-memory.ts';
import { f1, milenage } from '../../crypto/milenage.ts';
import { IND_BITS, SQN_BYTES, splitSqn } from '../../crypto/sequence-number.ts';

const AUTN_BYTES = 16;
const AMF_OFFSET = SQN_BYTES;
const MAC_OFFSET = SQN_BYTES + 2;
const IND_VALUES = 1 << IND_BITS;
/** TS 33.102 C.2.1: the largest accepted jump of SEQ above the highest SEQ_MS (Δ, 2^28 as C.3.3 suggests). */
const DELTA = 1n << 28n;
// f5 does not depend on SQN: MILENAGE is first run with this one to learn AK (MILENAGE only reads it).
const ZERO_SQN = Buffer.alloc(SQN_BYTES);
// TS 33.102 6.3.3: MAC-S is computed with a dummy AMF of all zeros.
const RESYNCHRONISATION_AMF = Buffer.alloc(2);
// TS 33.501 Annex A.2: bit 0 of the AMF field is the "separation bit", set for 5G (and EPS) vectors.
const SEPARATION_BIT = 0x80;

interface UsimKeys {
  /** K, 128 bits. */
  key: Buffer;
  /** OPc, 128 bits. */
  opc: Buffer;
}

type UsimAnswer =
  | {
      kind: 'accepted';
      /** RES* for the Authentication Response (TS 33.501 A.4). */
      resStar: Buffer;
      kausf: Buffer;
      kseaf: Buffer;
      /** The SQN the challenge carried, now the highest accepted for its IND. */
      sqn: Buffer;
    }
  /** MAC-A does not verify: 5GMM cause #20 "MAC failure". */
  | { kind: 'mac-failure' }
  /** SQN not fresh: cause #21 "synch failure" with AUTS = SQN_MS ⊕ AK* || MAC-S. */
  | { kind: 'synch-failure'; auts: Buffer }
  /** Separation bit not set: cause #26 "non-5G authentication unacceptable". */
  | { kind: 'non-5g-authentication' }
  /** RAND or AUTN of the wrong length: not a challenge MILENAGE can answer. */
  | { kind: 'malformed' };

/**
 * A USIM: K, OPc and the sequence-number state of TS 33.102 C.2.2 (an array of SEQ_MS, one per IND
 * value). `sqnMs` is the highest SQN accepted so far (what AUTS carries); it can be set to simulate a
 * card whose counter is ahead of the network's (a stale SQN on the network side).
 */
export class Usim {
  readonly keys: UsimKeys;
  /** SEQ_MS(i) for i = 0..31. */
  readonly #seqMs: bigint[] = new Array<bigint>(IND_VALUES).fill(0n);
  #highest: Buffer = Buffer.alloc(SQN_BYTES);
  /** SEQ of `#highest`. */
  #highestSeq = 0n;

  constructor(keys: UsimKeys, sqnMs: Buffer = Buffer.alloc(SQN_BYTES)) {
    if (keys.key.length !== 16 || keys.opc.length !== 16) throw new RangeError('K and OPc are 16 bytes');
    this.keys = keys;
    this.setSqnMs(sqnMs);
  }

  /** The highest SQN accepted so far. */
  get sqnMs(): Buffer {
    return Buffer.from(this.#highest);
  }

  /** Sets the card's counter: every IND slot takes SEQ of `sqn` (as a card personalised with it). */
  setSqnMs(sqn: Buffer): void {
    const { seq } = splitSqn(sqn);
    this.#seqMs.fill(seq);
    this.#highest = ownCopy(sqn);
    this.#highestSeq = seq;
  }

  /** Answers a 5G-AKA challenge for the serving network name `snn` (TS 24.501 9.12.1). */
  authenticate(rand: Buffer, autn: Buffer, snn: string): UsimAnswer {
    if (rand.length !== 16 || autn.length !== AUTN_BYTES) return { kind: 'malformed' };
    const { key, opc } = this.keys;
    const amf = autn.subarray(AMF_OFFSET, MAC_OFFSET);
    // f5 does not depend on SQN: a first run with a zero SQN gives AK (and RES, CK, IK).
    const out = milenage({ key, opc, rand, sqn: ZERO_SQN, amf });
    const sqnXorAk = autn.subarray(0, SQN_BYTES);
    const sqn = xor(sqnXorAk, out.ak);
    const { macA } = f1(key, opc, rand, sqn, amf);
    if (!macA.equals(autn.subarray(MAC_OFFSET))) return { kind: 'mac-failure' };
    if (((amf[0] ?? 0) & SEPARATION_BIT) === 0) return { kind: 'non-5g-authentication' };
    const { seq, ind } = splitSqn(sqn);
    if (!this.#fresh(seq, ind)) return { kind: 'synch-failure', auts: this.#auts(rand) };
    this.#accept(sqn, seq, ind);
    const resStar = deriveResStar(out.ck, out.ik, snn, rand, out.res);
    const kausf = deriveKausf(out.ck, out.ik, snn, sqnXorAk);
    return { kind: 'accepted', resStar, kausf, kseaf: deriveKseaf(kausf, snn), sqn };
  }

  /** TS 33.102 C.2.2: SEQ > SEQ_MS(IND) and SEQ - SEQ_MS <= Δ (SEQ_MS the highest accepted). */
  #fresh(seq: bigint, ind: number): boolean {
    return seq > (this.#seqMs[ind] ?? 0n) && seq - this.#highestSeq <= DELTA;
  }

  #accept(sqn: Buffer, seq: bigint, ind: number): void {
    this.#seqMs[ind] = seq;
    if (seq > this.#highestSeq) {
      this.#highest = ownCopy(sqn);
      this.#highestSeq = seq;
    }
  }

  /** TS 33.102 6.3.3: AUTS = SQN_MS ⊕ f5*(RAND) || f1*(SQN_MS, RAND, AMF 0000). */
  #auts(rand: Buffer): Buffer {
    const { key, opc } = this.keys;
    const out = milenage({ key, opc, rand, sqn: this.#highest, amf: RESYNCHRONISATION_AMF });
    return Buffer.concat([xor(this.#highest, out.akStar), out.macS]);
  }
}

function xor(a: Uint8Array, b: Uint8Array): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
  return out;
}
