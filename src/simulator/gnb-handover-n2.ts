// N2 handover between two simulated nodes connected to the same AMF (TS 38.300 9.2.3.3, TS 23.502
// 4.9.1.3): the source asks by Handover Required; the target, asked by Handover Request, sets the
// sessions up from their transfers with downlink TEIDs of its own, derives KgNB* from the {NH, NCC} it
// was given (TS 33.501 6.9.2.3.3) and acknowledges; the source, commanded, sends its PDCP status (Uplink
// RAN Status Transfer) and the UE moves; the target tells the AMF by Handover Notify, and the AMF
// releases the source's context. Either side may also fail, stay silent or cancel, as tests need. The
// UE's RRC context reaches the target in process (the transparent containers carry minimal RRC
// messages); the UE derives its KgNB* itself (ue-handover.ts), so the outcome says whether it agrees.
import type { MessageOf } from '../network/asn1/message-runtime.ts';
import type { Cause, NGAPPDU, UESecurityCapabilities } from '../network/ngap/generated/types.ts';
import { readDownlinkRANStatusTransfer, readHandoverRequest } from '../network/ngap/generated/messages.ts';
import { deriveKgnbStar } from '../network/security/handover-keys.ts';
import type { SimulatedGnb } from './gnb.ts';
import { globalRanNodeId } from './gnb-config.ts';
import { ueAsKeysOf, watchContextSetup, type AsContext, type HandoverCell } from './gnb-handover.ts';
import {
  handoverCancel,
  handoverFailure,
  handoverNotify,
  handoverRequestAcknowledge,
  handoverRequired,
  readN2HandoverAnswer,
  uplinkRanStatusTransfer,
  type N2HandoverAnswer,
} from './gnb-handover-n2-messages.ts';
import type { TunnelEnd } from './ue/gnb-sessions.ts';
import type { SessionTunnels } from './user-plane/session-tunnels.ts';
import type { GnbUes } from './ue/gnb-ues.ts';
import type { RadioUe } from './ue/ue-radio.ts';
import type { SimulatedUe } from './ue/simulated-ue.ts';

/** How the node answers a Handover Request as target. */
type TargetBehaviour =
  /** Admits the sessions it can set up (not those of `refusedSessions`); Handover Failure if none. */
  | 'admit'
  /** Handover Failure (TS 38.413 8.4.2.3), cause no radio resources. */
  | 'fail'
  /** No answer: the AMF's guard decides. */
  | 'silent';

/**
 * Where the source stops, if it does: it cancels (TS 38.413 8.4.5) after Handover Required or after
 * Handover Command, or it is commanded but the UE never reaches the target.
 */
type StopPoint = 'cancel-after-required' | 'cancel-after-command' | 'after-command';

export type N2HandoverOutcome =
  | {
      outcome: 'handed-over';
      command: Extract<N2HandoverAnswer, { kind: 'command' }>;
      /** The UE's ids at the target now. */
      ranUeNgapId: number;
      amfUeNgapId: number;
      /** The NCC of Handover Request, the target's and the UE's KgNB* for the target cell. */
      ncc: number;
      kgnbStar: Buffer;
      ueKgnbStar: Buffer | undefined;
      /** The DL forwarding tunnels the target offered in its Acknowledge, by session. */
      offered: { pduSessionId: number; tunnel: TunnelEnd }[];
    }
  | { outcome: 'failed'; cause: Cause }
  | { outcome: 'cancelled' }
  | { outcome: 'commanded'; command: Extract<N2HandoverAnswer, { kind: 'command' }> };

/** What the target prepared for a UE it admitted, by its RAN UE NGAP ID. */
interface Prepared {
  ue: RadioUe;
  amfUeNgapId: number;
  ncc: number;
  kgnbStar: Buffer;
  ueSecurityCapabilities: UESecurityCapabilities;
  offered: { pduSessionId: number; tunnel: TunnelEnd }[];
}

/** The N2 handover side of one simulated node (one per `GnbUes`), as source and as target. */
export class N2Handover {
  readonly #gnb: SimulatedGnb;
  readonly #ues: GnbUes;
  readonly cell: HandoverCell;
  /** AS contexts by RAN UE NGAP ID. */
  readonly #contexts = new Map<number, AsContext>();
  /** UEs on their way here, in the order their Handover Required went out. */
  readonly #incoming: RadioUe[] = [];
  readonly #prepared = new Map<number, Prepared>();
  behaviour: TargetBehaviour = 'admit';
  /** PDU session ids this node refuses as target (e.g. a slice it does not serve). */
  readonly refusedSessions = new Set<number>();
  /**
   * Whether this node as target offers DL forwarding tunnels (DL Forwarding UP TNL Information of the
   * Handover Request Acknowledge Transfer, TS 38.413 9.3.4.11) where data forwarding is possible; false:
   * a target without forwarding, whose Command then names none.
   */
  offersForwarding = true;
  /** RAN UE NGAP IDs for which a Downlink RAN Status Transfer came (TS 38.413 8.4.7). */
  readonly statusTransfers: number[] = [];
  /** `statusAfterNotify`: the Uplink RAN Status Transfer held until the AMF releases the source, by AMF UE NGAP ID. */
  readonly #lateStatus = new Map<number, NGAPPDU>();
  /**
   * The node's user plane (`carrySessions` over its session events, keyed by UE), when it carries
   * packets: as source it then forwards to the tunnel the Command names, as target it delivers what
   * was forwarded first (`forwardData`).
   */
  userPlane: Pick<SessionTunnels, 'tunnel' | 'settled'> | undefined;

  constructor(gnb: SimulatedGnb, ues: GnbUes, cell: HandoverCell) {
    this.#gnb = gnb;
    this.#ues = ues;
    this.cell = cell;
    watchContextSetup(gnb, ues, this.#contexts);
    // The AMF has handled the target's Notify: a held status goes now, ahead of the release's Complete.
    ues.beforeReleaseComplete((amfUeNgapId) => {
      const held = this.#lateStatus.get(amfUeNgapId);
      if (held === undefined) return;
      this.#lateStatus.delete(amfUeNgapId);
      this.#send(held);
    });
    ues.attachHandover((pdu) => {
      if (pdu.choice === 'initiatingMessage' && pdu.value.name === 'HandoverResourceAllocation') {
        const read = readHandoverRequest(pdu);
        // A request its generated reader refuses (TS 38.413 10.3) is not acted on.
        if (read.ok) this.#requested(read.message);
        return true;
      }
      const status = readDownlinkRANStatusTransfer(pdu);
      if (status.ok) {
        this.statusTransfers.push(status.message.ranUeNgapId);
        return true;
      }
      // The AMF's answers to the source: `handOver` awaits them.
      return readN2HandoverAnswer(pdu) !== undefined;
    });
  }

  /**
   * Hands `ue` over to `target` by N2 (TS 38.300 9.2.3.3): Handover Required with every session the
   * source holds; on Handover Command, Uplink RAN Status Transfer, the UE moves to the target's cell
   * (deriving KgNB* from the NCC the target was given) and the target sends Handover Notify; resolves
   * once the AMF released the source's context. `stop` stops the source at that point; `directForwarding`
   * tells the AMF the source has a direct forwarding path to the target. Where the Command names a
   * forwarding tunnel (direct, or the UPF's when indirect) and both nodes have a `userPlane`, the
   * downlink is forwarded (`#forwardData`). Once moved, a UE outside its registration area starts a mobility
   * registration update (`SimulatedUe.handedOver`). Rejects when the UE has no AS context here or an answer does not
   * come in time. `statusAfterNotify` holds the Uplink RAN Status Transfer until the AMF, having handled
   * the target's Notify, releases the source: the AMF then gets it after the Notify, as when the UE reaches
   * the target before the source's PDCP status reaches the AMF.
   */
  async handOver(
    ue: SimulatedUe,
    target: N2Handover,
    options: { stop?: StopPoint; directForwarding?: boolean; statusAfterNotify?: boolean } = {},
  ): Promise<N2HandoverOutcome> {
    const { stop } = options;
    const source = [...this.#contexts.entries()].find(([ran]) => this.#ues.link(ran)?.ue === ue);
    const link = source === undefined ? undefined : this.#ues.link(source[0]);
    if (source === undefined || link?.amfUeNgapId === undefined)
      throw new Error('the UE has no AS security context at the source');
    const ids = { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: link.ranUeNgapId };
    const sessions = this.#ues.sessions.of(ue).map((session) => session.pduSessionId);
    target.#incoming.push(ue);
    const answer = (kinds: readonly N2HandoverAnswer['kind'][]) =>
      this.#gnb.next((event) => {
        if (event.type !== 'received' || event.exchange.pdu === undefined) return undefined;
        const read = readN2HandoverAnswer(event.exchange.pdu);
        return read !== undefined && kinds.includes(read.kind) && read.ranUeNgapId === ids.ranUeNgapId
          ? read
          : undefined;
      });
    const cancelled = async (): Promise<N2HandoverOutcome> => {
      const acknowledged = answer(['cancel-acknowledge']);
      this.#send(handoverCancel(ids, { choice: 'radioNetwork', value: 'handover-cancelled' }));
      await acknowledged;
      target.#forget(ue);
      return { outcome: 'cancelled' };
    };

    const prepared =
      stop === 'cancel-after-required' ? undefined : answer(['command', 'preparation-failure']);
    this.#send(
      handoverRequired({
        ids,
        target: globalRanNodeId(target.#gnb.config),
        sourceCell: link.servingCell,
        targetCell: target.#ues.cell,
        pduSessionIds: sessions,
        directForwarding: options.directForwarding === true,
      }),
    );
    if (prepared === undefined) return cancelled();
    const command = await prepared;
    if (command.kind !== 'command') {
      target.#forget(ue);
      return {
        outcome: 'failed',
        cause: command.kind === 'preparation-failure' ? command.cause : UNSPECIFIED,
      };
    }
    if (stop === 'cancel-after-command') return cancelled();
    if (stop === 'after-command') return { outcome: 'commanded', command };
    // The latest preparation for the UE (an earlier, cancelled one may have been answered late).
    const arrival = [...target.#prepared.entries()].findLast(([, p]) => p.ue === ue);
    if (arrival === undefined) throw new Error('the target prepared nothing for the UE');
    const [ranUeNgapId, at] = arrival;
    target.#forget(ue);
    await this.#forwardData(ue, target, command.forwarding, at.offered);

    // TS 38.300 9.2.3.3.1 steps 7-8: the source's PDCP status, then the UE leaves for the target.
    const status = uplinkRanStatusTransfer(ids, sessions.length);
    if (options.statusAfterNotify === true) this.#lateStatus.set(ids.amfUeNgapId, status);
    else this.#send(status);
    const released = this.#gnb.next((event) =>
      event.type === 'received' && event.exchange.messageType === 'UEContextReleaseCommand'
        ? true
        : undefined,
    );
    const ueKgnbStar = ueAsKeysOf(ue)?.handover({
      ncc: at.ncc,
      pci: target.cell.pci,
      arfcnDl: target.cell.arfcnDl,
    });
    this.#contexts.delete(ids.ranUeNgapId);
    const moved = this.#ues.handOver(ue, target.#ues, () => ue.moveTo(target.#ues), {
      ranUeNgapId,
      amfUeNgapId: at.amfUeNgapId,
    });
    if (moved === undefined) throw new Error('the UE has no connection at the source');
    target.#contexts.set(ranUeNgapId, {
      kgnb: at.kgnbStar,
      ncc: at.ncc,
      fresh: undefined,
      ueSecurityCapabilities: at.ueSecurityCapabilities,
    });
    target.#send(handoverNotify({ amfUeNgapId: at.amfUeNgapId, ranUeNgapId }, target.#ues.cell));
    // The UE has arrived (the Notify is out): outside its registration area it updates its registration
    // now, as a UE does after its RRC reconfiguration, while the AMF may still be handling the Notify.
    ue.handedOver();
    await released;
    return {
      outcome: 'handed-over',
      command,
      ranUeNgapId,
      amfUeNgapId: at.amfUeNgapId,
      ncc: at.ncc,
      kgnbStar: at.kgnbStar,
      ueKgnbStar,
      offered: at.offered,
    };
  }

  /**
   * Data forwarding once commanded (TS 23.502 4.9.1.3.2 step 11, 4.9.1.3.3 step 3): the target, for
   * each session whose forwarding tunnel it offered and the Command names (directly or through the
   * UPF), delivers what comes through it before the new path's; the source sends the downlink it still
   * gets, and then the End Marker, to that tunnel. Sessions without a user plane are passed over.
   */
  async #forwardData(
    ue: SimulatedUe,
    target: N2Handover,
    forwarding: readonly { pduSessionId: number; tunnel: TunnelEnd }[],
    offered: readonly { pduSessionId: number; tunnel: TunnelEnd }[],
  ): Promise<void> {
    if (forwarding.length === 0) return;
    // The target's TUNs come up from its Handover Request; they must exist before packets come.
    await target.userPlane?.settled();
    for (const { pduSessionId } of forwarding) {
      const ours = offered.find((o) => o.pduSessionId === pduSessionId);
      if (ours !== undefined) target.userPlane?.tunnel(ue, pduSessionId)?.expectForwarded(ours.tunnel.teid);
    }
    for (const { pduSessionId, tunnel } of forwarding)
      this.userPlane?.tunnel(ue, pduSessionId)?.forwardTo(tunnel);
  }

  /** Handover Request (TS 38.413 8.4.2.2) as target. */
  #requested(request: MessageOf<typeof readHandoverRequest>): void {
    const { amfUeNgapId } = request;
    if (this.behaviour === 'silent') return;
    const ue = this.#incoming.shift();
    const noResources: Cause = {
      choice: 'radioNetwork',
      value: 'no-radio-resources-available-in-target-cell',
    };
    if (this.behaviour === 'fail' || ue === undefined)
      return this.#send(handoverFailure(amfUeNgapId, noResources));
    const ranUeNgapId = this.#ues.allocateForHandover();
    const items = request.pduSessionResourceSetupListHoReq;
    const setUp = this.#ues.sessions.setUpForHandover(
      ue,
      ranUeNgapId,
      items
        .filter((item) => !this.refusedSessions.has(item.pDUSessionID))
        .map((item) => ({ pduSessionId: item.pDUSessionID, transfer: item.handoverRequestTransfer })),
    );
    const { failed } = setUp;
    const admitted = this.offersForwarding
      ? setUp.admitted
      : setUp.admitted.map((session) => ({ ...session, forwarding: undefined }));
    if (admitted.length === 0) {
      this.#ues.sessions.connectionReleased(ranUeNgapId);
      return this.#send(handoverFailure(amfUeNgapId, noResources));
    }
    const refused = items
      .filter((item) => this.refusedSessions.has(item.pDUSessionID))
      .map((item) => ({
        pduSessionId: item.pDUSessionID,
        cause: { choice: 'radioNetwork', value: 'slice-not-supported' } as const,
      }));
    const unreadable = failed.map((pduSessionId) => ({
      pduSessionId,
      cause: { choice: 'protocol', value: 'semantic-error' } as const,
    }));
    const { nextHopChainingCount: ncc, nextHopNH } = request.securityContext;
    // TS 33.501 6.9.2.3.3: in N2 handover the target uses the fresh {NH, NCC} at once (vertical).
    const kgnbStar = deriveKgnbStar(nextHopNH.bytes, this.cell.pci, this.cell.arfcnDl);
    this.#prepared.set(ranUeNgapId, {
      ue,
      amfUeNgapId,
      ncc,
      kgnbStar,
      ueSecurityCapabilities: request.ueSecurityCapabilities,
      offered: admitted.flatMap(({ pduSessionId, forwarding }) =>
        forwarding === undefined ? [] : [{ pduSessionId, tunnel: forwarding }],
      ),
    });
    this.#send(
      handoverRequestAcknowledge(
        { amfUeNgapId, ranUeNgapId },
        admitted.map((session) => ({
          pduSessionId: session.pduSessionId,
          downlink: session.downlink,
          qfis: session.qfis,
          forwarding: session.forwarding,
        })),
        [...refused, ...unreadable],
      ),
    );
  }

  /** A handover of `ue` here that will not happen (cancelled or failed): what was kept for it goes. */
  #forget(ue: RadioUe): void {
    const waiting = this.#incoming.indexOf(ue);
    if (waiting >= 0) this.#incoming.splice(waiting, 1);
    for (const [ran, prepared] of this.#prepared) if (prepared.ue === ue) this.#prepared.delete(ran);
  }

  #send(pdu: Parameters<SimulatedGnb['send']>[0]): void {
    const sent = this.#gnb.send(pdu, 1);
    if (!sent.ok) throw new Error(`NGAP not sent: ${sent.error}`);
  }
}

const UNSPECIFIED: Cause = { choice: 'misc', value: 'unspecified' };
