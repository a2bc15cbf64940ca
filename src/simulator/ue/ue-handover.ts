// The simulated UE's side of an Xn handover's AS keys (TS 33.501 6.9.2.3.3, A.10-A.12): its own NH chain
// from KAMF and the KgNB of Initial Context Setup, and the KgNB* it derives for the target cell from the
// NCC of the handover command. KAMF is derived again from the UE's USIM and the Authentication Request in
// its NAS log, so that what the UE computes does not come from the network's side of the exchange.
import { deriveKamf, servingNetworkName } from '../../crypto/key-hierarchy.ts';
import { decodeNasMessage } from '../../network/nas/index.ts';
import {
  deriveKgnbStar,
  initialNhChain,
  syncToNcc,
  type NhChain,
} from '../../network/security/handover-keys.ts';
import type { SimulatedUe } from './simulated-ue.ts';
import { Usim } from './usim.ts';

/** What the handover command (RRC Reconfiguration with sync, TS 38.331) gives the UE of the target. */
interface HandoverCommand {
  /** NCC of the KgNB* the source derived (TS 33.501 6.9.2.3.3). */
  ncc: number;
  /** The target cell's PCI and SSB ARFCN-DL, the inputs of KgNB* (A.11). */
  pci: number;
  arfcnDl: number;
}

/** The UE's AS keys: its current KgNB and NCC, and where it is in the NH chain. */
export class UeAsKeys {
  readonly #kamf: Buffer;
  #kgnb: Buffer;
  #ncc = 0;
  #chain: NhChain;

  /** After Initial Context Setup: `kgnb` at NCC 0 (TS 33.501 6.9.2.1.1). */
  constructor(kamf: Buffer, kgnb: Uint8Array) {
    this.#kamf = kamf;
    this.#kgnb = Buffer.from(kgnb);
    this.#chain = initialNhChain(kgnb);
  }

  get kgnb(): Buffer {
    return this.#kgnb;
  }

  get ncc(): number {
    return this.#ncc;
  }

  /**
   * The KgNB for the target cell (TS 33.501 6.9.2.3.3): the same NCC as the UE's -> horizontal, from
   * the current KgNB; another NCC -> vertical, from the NH the UE computes by chaining up to it.
   */
  handover(command: HandoverCommand): Buffer {
    let key = this.#kgnb;
    if (command.ncc !== this.#ncc) {
      this.#chain = syncToNcc(this.#kamf, this.#chain, command.ncc);
      key = this.#chain.key;
    }
    this.#kgnb = deriveKgnbStar(key, command.pci, command.arfcnDl);
    this.#ncc = command.ncc;
    return this.#kgnb;
  }
}

/**
 * KAMF as the UE derives it (TS 33.501 A.2, A.4, A.6, A.7) from a second USIM with the UE's K and OPc
 * and the last Authentication Request of its NAS log. Undefined when no 5G-AKA challenge is logged.
 */
export function ueKamf(ue: SimulatedUe): Buffer | undefined {
  const logged = ue.log.findLast(
    (exchange) => exchange.direction === 'downlink' && exchange.messageType === 'authenticationRequest',
  );
  const decoded = logged === undefined ? undefined : decodeNasMessage(logged.plain);
  if (decoded?.ok !== true || decoded.message.messageType !== 'authenticationRequest') return undefined;
  const { authenticationParameterRand: rand, authenticationParameterAutn: autn, abba } = decoded.message;
  if (rand === undefined || autn === undefined) return undefined;
  const { plmn } = ue.config;
  const answer = new Usim({ key: ue.config.key, opc: ue.config.opc }).authenticate(
    Buffer.from(rand),
    Buffer.from(autn),
    servingNetworkName(plmn.mcc, plmn.mnc),
  );
  return answer.kind === 'accepted' ? deriveKamf(answer.kseaf, ue.config.imsi, Buffer.from(abba)) : undefined;
}
