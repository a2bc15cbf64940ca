// Xn based inter NG-RAN handover between two simulated nodes connected to the same AMF (TS 38.300
// 9.2.3.2, TS 23.502 4.9.1.2.2): the source hands the UE's connection, its AS security context and its
// PDU sessions' tunnels to the target over a simulated Xn; the target gives the sessions downlink TEIDs of
// its own, tells the AMF by Path Switch Request (TS 38.413 8.4.4) with the UE's new User Location
// Information, and keeps the {NH, NCC} of the Acknowledge for the next handover. The UE derives KgNB*
// itself (ue-handover.ts), so the outcome says whether it agrees with the target.
import type { UESecurityCapabilities } from '../network/ngap/generated/types.ts';
import {
  readInitialContextSetupRequest,
  readUEContextModificationRequest,
} from '../network/ngap/generated/messages.ts';
import { deriveKgnbStar, type NhChain } from '../network/security/handover-keys.ts';
import type { SimulatedGnb } from './gnb.ts';
import { pathSwitchRequest, readPathSwitchAnswer, type PathSwitchAnswer } from './gnb-handover-messages.ts';
import type { GnbUes } from './ue/gnb-ues.ts';
import type { RadioUe } from './ue/ue-radio.ts';
import type { SimulatedUe } from './ue/simulated-ue.ts';
import { UeAsKeys, ueKamf } from './ue/ue-handover.ts';

/** The radio facts of the node's cell that key derivation needs (TS 33.501 A.11). */
export interface HandoverCell {
  pci: number;
  /** SSB ARFCN-DL of the cell (TS 38.300 13.3). */
  arfcnDl: number;
}

/** A UE's AS security context at this node (TS 33.501 6.9.2.3.3). */
export interface AsContext {
  kgnb: Buffer;
  ncc: number;
  /** The {NH, NCC} of the last Path Switch Request Acknowledge, not used yet. */
  fresh: NhChain | undefined;
  ueSecurityCapabilities: UESecurityCapabilities;
}

type HandoverOutcome =
  | {
      outcome: 'switched';
      /** The RAN UE NGAP ID the UE has at the target now. */
      ranUeNgapId: number;
      /** NCC of the KgNB* in use now, and the target's and the UE's KgNB* for it. */
      ncc: number;
      kgnbStar: Buffer;
      ueKgnbStar: Buffer | undefined;
      /** What the AMF answered: the next {NH, NCC}, the sessions switched and released. */
      answer: Extract<PathSwitchAnswer, { kind: 'acknowledge' }>;
    }
  | { outcome: 'failed'; answer: Extract<PathSwitchAnswer, { kind: 'failure' }> };

/** The UE's side of its AS keys, wherever it is served. */
const ueKeys = new WeakMap<RadioUe, UeAsKeys>();

/** The UE's own AS keys (ue-handover.ts), once a node of either handover kind saw its context set up. */
export const ueAsKeysOf = (ue: RadioUe): UeAsKeys | undefined => ueKeys.get(ue);

/**
 * Each UE's AS context as Initial Context Setup Request gives it (KgNB, NCC 0, TS 33.501 6.9.2.1.1),
 * kept in `contexts` by RAN UE NGAP ID; the UE's own side starts from the same KgNB and the KAMF it
 * derives. A UE Context Modification Request with a Security Key the node takes (gnb-context-modification.ts)
 * replaces the KgNB at NCC 0 and drops an unused {NH, NCC} (TS 33.501 6.9.4.4: the chain starts over from
 * the new KAMF); the UE's side starts over from the KgNB it derives itself (`keyChangeKgnb`).
 */
export function watchContextSetup(gnb: SimulatedGnb, ues: GnbUes, contexts: Map<number, AsContext>): void {
  gnb.on((event) => {
    if (event.type !== 'received' || event.exchange.pdu === undefined) return;
    const pdu = event.exchange.pdu;
    if (pdu.choice === 'initiatingMessage' && pdu.value.name === 'UEContextModification')
      return keyChanged(ues, contexts, readUEContextModificationRequest(pdu));
    const read = readInitialContextSetupRequest(pdu);
    if (!read.ok) return;
    const { ranUeNgapId, securityKey, ueSecurityCapabilities } = read.message;
    const kgnb = Buffer.from(securityKey.bytes);
    contexts.set(ranUeNgapId, { kgnb, ncc: 0, fresh: undefined, ueSecurityCapabilities });
    const ue = ues.link(ranUeNgapId)?.ue;
    const kamf = ue === undefined || !isSimulatedUe(ue) ? undefined : ueKamf(ue);
    if (ue !== undefined && kamf !== undefined) ueKeys.set(ue, new UeAsKeys(kamf, kgnb));
  });
}

function keyChanged(
  ues: GnbUes,
  contexts: Map<number, AsContext>,
  read: ReturnType<typeof readUEContextModificationRequest>,
): void {
  if (!read.ok || read.message.securityKey === undefined) return;
  const { ranUeNgapId, securityKey } = read.message;
  const context = contexts.get(ranUeNgapId);
  // A node that refuses the request keeps the key it had (TS 38.413 8.3.4.3).
  if (context === undefined || ues.refuseContextModification !== undefined) return;
  contexts.set(ranUeNgapId, { ...context, kgnb: Buffer.from(securityKey.bytes), ncc: 0, fresh: undefined });
  const ue = ues.link(ranUeNgapId)?.ue;
  const kamf = ue === undefined || !isSimulatedUe(ue) ? undefined : ueKamf(ue);
  const own = ue === undefined || !isSimulatedUe(ue) ? undefined : ue.keyChangeKgnb();
  if (ue !== undefined && kamf !== undefined && own !== undefined) ueKeys.set(ue, new UeAsKeys(kamf, own));
}

/** The Xn side of one simulated node (one per `GnbUes`). */
export class XnHandover {
  readonly #gnb: SimulatedGnb;
  readonly #ues: GnbUes;
  readonly cell: HandoverCell;
  /** By RAN UE NGAP ID. */
  readonly #contexts = new Map<number, AsContext>();

  constructor(gnb: SimulatedGnb, ues: GnbUes, cell: HandoverCell) {
    this.#gnb = gnb;
    this.#ues = ues;
    this.cell = cell;
    watchContextSetup(gnb, ues, this.#contexts);
    ues.attachHandover((pdu) => readPathSwitchAnswer(pdu) !== undefined);
  }

  /**
   * Hands `ue` over to `target` (TS 38.300 9.2.3.2.1): the source derives KgNB* for the target cell
   * from its fresh NH when it has one (vertical, the NCC it came with) or else from its KgNB
   * (horizontal); the UE's connection and sessions move; the target sends Path Switch Request and,
   * acknowledged, keeps the new {NH, NCC}; a UE outside its registration area then starts a mobility
   * registration update (`SimulatedUe.handedOver`). Rejects when the UE has no AS context here or no answer
   * comes in time.
   */
  async handOver(ue: SimulatedUe, target: XnHandover): Promise<HandoverOutcome> {
    const source = [...this.#contexts.entries()].find(([ran]) => this.#ues.link(ran)?.ue === ue);
    const amfUeNgapId = source === undefined ? undefined : this.#ues.link(source[0])?.amfUeNgapId;
    if (source === undefined || amfUeNgapId === undefined)
      throw new Error('the UE has no AS security context at the source');
    const [sourceRan, context] = source;
    const keyInput = context.fresh ?? { ncc: context.ncc, key: context.kgnb };
    const kgnbStar = deriveKgnbStar(keyInput.key, target.cell.pci, target.cell.arfcnDl);
    const sessions = this.#ues.sessions.of(ue);
    this.#contexts.delete(sourceRan);

    const link = this.#ues.handOver(ue, target.#ues, () => ue.moveTo(target.#ues));
    if (link === undefined) throw new Error('the UE has no connection at the source');
    target.#contexts.set(link.ranUeNgapId, {
      kgnb: kgnbStar,
      ncc: keyInput.ncc,
      fresh: undefined,
      ueSecurityCapabilities: context.ueSecurityCapabilities,
    });
    const ueKgnbStar = ueKeys
      .get(ue)
      ?.handover({ ncc: keyInput.ncc, pci: target.cell.pci, arfcnDl: target.cell.arfcnDl });
    const admitted = target.#ues.sessions.admit(ue, link.ranUeNgapId, sessions);
    const outcome = await target.#pathSwitch(
      link.ranUeNgapId,
      amfUeNgapId,
      link,
      admitted,
      kgnbStar,
      ueKgnbStar,
    );
    // The AMF serves the UE through the target once the path is switched: outside its registration area
    // the UE updates its registration now (TS 24.501 5.5.1.3.2 a).
    if (outcome.outcome === 'switched') ue.handedOver();
    return outcome;
  }

  async #pathSwitch(
    ranUeNgapId: number,
    sourceAmfUeNgapId: number,
    link: NonNullable<ReturnType<GnbUes['link']>>,
    sessions: ReturnType<GnbUes['sessions']['admit']>,
    kgnbStar: Buffer,
    ueKgnbStar: Buffer | undefined,
  ): Promise<HandoverOutcome> {
    const context = this.#contexts.get(ranUeNgapId);
    if (context === undefined) throw new Error('no AS context for the handed-over UE');
    const answered = this.#gnb.next((event) => {
      if (event.type !== 'received' || event.exchange.pdu === undefined) return undefined;
      const answer = readPathSwitchAnswer(event.exchange.pdu);
      return answer?.ranUeNgapId === ranUeNgapId ? answer : undefined;
    });
    const sent = this.#gnb.send(
      pathSwitchRequest({
        ranUeNgapId,
        sourceAmfUeNgapId,
        cell: link.servingCell,
        ueSecurityCapabilities: context.ueSecurityCapabilities,
        sessions,
      }),
      1,
    );
    if (!sent.ok) throw new Error(`Path Switch Request not sent: ${sent.error}`);
    const answer = await answered;
    if (answer.kind === 'failure') return { outcome: 'failed', answer };
    context.fresh = { ncc: answer.ncc, key: answer.nh };
    return { outcome: 'switched', ranUeNgapId, ncc: context.ncc, kgnbStar, ueKgnbStar, answer };
  }
}

function isSimulatedUe(ue: RadioUe): ue is SimulatedUe {
  return 'log' in ue && 'config' in ue;
}
