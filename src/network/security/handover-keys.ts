// The AS keys of a handover (TS 33.501 6.9.2): the {NH, NCC} chain the AMF keeps per N2 connection and
// gives the target NG-RAN node in Path Switch Request Acknowledge (6.9.2.3.3), and the KgNB* both the
// target node and the UE derive for the target cell (A.11, A.12). Pure: one mechanism for the AMF, the
// simulated gNB and the simulated UE.
import { deriveNh } from '../../crypto/key-hierarchy.ts';
import { kdf } from '../../crypto/kdf.ts';
import { ownCopy } from '../../crypto/key-memory.ts';

/** FC of KNG-RAN* for a target gNB (TS 33.501 A.11). */
const FC_KGNB_STAR = 0x70;

/** The NH Chaining Counter is 3 bits (TS 33.501 6.9.2.1.1; TS 38.413 9.3.1.88: 0..7). */
const NCC_MODULUS = 8;

/**
 * One link of the chain (TS 33.501 6.9.2.1.1): at NCC 0 the key is the initial KgNB (Initial Context
 * Setup, with no NH handed out yet); at NCC >= 1 it is the NH of that count. Either is the SYNC-input of
 * the next NH (A.10).
 */
export interface NhChain {
  readonly ncc: number;
  readonly key: Buffer;
}

/** The chain after Initial Context Setup (6.9.2.1.1): the KgNB just sent, NCC 0. */
export function initialNhChain(kgnb: Uint8Array): NhChain {
  // Kept for the connection's life.
  return { ncc: 0, key: ownCopy(kgnb) };
}

/**
 * The next {NH, NCC} (TS 33.501 6.9.2.3.3, A.10): NH = KDF(KAMF, FC 0x6F, SYNC-input) with the
 * current link's key as SYNC-input (the initial KgNB for the first NH, then the previous NH), NCC + 1
 * modulo 8.
 */
export function nextHop(kamf: Buffer, chain: NhChain): NhChain {
  return { ncc: (chain.ncc + 1) % NCC_MODULUS, key: deriveNh(kamf, chain.key) };
}

/**
 * The UE's side of vertical key derivation (TS 33.501 6.9.2.3.3): it follows the chain from its own link
 * until it reaches `ncc`, one NH per step. NCC wraps at 8, so at most 7 steps.
 */
export function syncToNcc(kamf: Buffer, chain: NhChain, ncc: number): NhChain {
  if (!Number.isInteger(ncc) || ncc < 0 || ncc >= NCC_MODULUS)
    throw new RangeError(`NCC must be 0..7, got ${ncc}`);
  let link = chain;
  while (link.ncc !== ncc) link = nextHop(kamf, link);
  return link;
}

/**
 * KNG-RAN* for the target cell (TS 33.501 A.11): KDF(key, FC 0x70, PCI (2 bytes), ARFCN-DL (3 bytes)),
 * `key` being the NH when the handover's NCC increased (vertical), else the current KgNB (horizontal).
 */
export function deriveKgnbStar(key: Uint8Array, pci: number, arfcnDl: number): Buffer {
  if (!Number.isInteger(pci) || pci < 0 || pci > 1007)
    throw new RangeError(`PCI must be 0..1007, got ${pci}`);
  if (!Number.isInteger(arfcnDl) || arfcnDl < 0 || arfcnDl > 3_279_165)
    throw new RangeError(`ARFCN-DL must be 0..3279165, got ${arfcnDl}`);
  return kdf(key, FC_KGNB_STAR, [
    Uint8Array.of(pci >> 8, pci & 0xff),
    Uint8Array.of(arfcnDl >> 16, (arfcnDl >> 8) & 0xff, arfcnDl & 0xff),
  ]);
}
