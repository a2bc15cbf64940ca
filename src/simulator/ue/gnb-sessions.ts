// The PDU session resources of a simulated gNB (TS 38.413 8.2.1-8.2.3): it answers PDU Session Resource
// Setup/Modify/Release for its UEs with its own N3 address and downlink TEIDs, delivers the NAS-PDUs
// they carry, and tells the user plane (src/simulator/user-plane/) through `on(listener)` which
// GTP-U tunnels exist. A request it cannot read is left unanswered (the AMF's timers deal with it).
import { isIPv4 } from 'node:net';
import { decodeComplete, encodeComplete } from '../../network/asn1/complete.ts';
import {
  decodePDUSessionResourceSetupRequestTransfer,
  encodePDUSessionResourceModifyResponseTransfer,
  encodePDUSessionResourceReleaseResponseTransfer,
  encodePDUSessionResourceSetupResponseTransfer,
} from '../../network/ngap/generated/codec.ts';
import {
  buildPDUSessionResourceModifyResponse,
  buildPDUSessionResourceReleaseResponse,
  buildPDUSessionResourceSetupResponse,
  readPDUSessionResourceModifyRequest,
  readPDUSessionResourceReleaseCommand,
  readPDUSessionResourceSetupRequest,
  readPDUSessionResourceSetupRequestTransfer,
} from '../../network/ngap/generated/messages.ts';
import type { NGAPPDU, UPTransportLayerInformation } from '../../network/ngap/generated/types.ts';
import type { RadioUe } from './ue-radio.ts';

const ALIGNED = true;

/** One end of a GTP-U tunnel (TS 38.413 9.3.2.2): IP address and TEID. */
export interface TunnelEnd {
  address: string;
  teid: number;
}

/** A PDU session's user plane at the gNB, as the user plane needs it. */
export interface GnbSession {
  ue: RadioUe;
  pduSessionId: number;
  /** `ipv4`, `ipv6` or `ipv4v6` (PDU Session Type of the setup transfer). */
  pduSessionType: string;
  /** QFIs of the QoS flows set up (the default one first). */
  qfis: number[];
  /** Where uplink G-PDUs go: the UPF's N3 address and the TEID it allocated. */
  uplink: TunnelEnd;
  /** Where the UPF sends downlink: this gNB's N3 address and the TEID it allocated. */
  downlink: TunnelEnd;
}

/**
 * What the user plane hears: a session's tunnels `up` (setup answered), `modified` (its QoS changed),
 * `down` (released by the network, or the UE's connection released: idle or lost).
 */
export type GnbSessionEvent =
  | { type: 'up'; session: GnbSession }
  | { type: 'modified'; session: GnbSession }
  | { type: 'down'; session: GnbSession; why: 'released' | 'connection-released' };

/** A set-up item of a response (…ListSURes, …ListCxtRes): the gNB's downlink tunnel in the transfer. */
interface SetUpItem {
  pDUSessionID: number;
  pDUSessionResourceSetupResponseTransfer: Uint8Array;
}

export interface UeIds {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

export function gtpTunnel(end: TunnelEnd): UPTransportLayerInformation {
  const bytes = isIPv4(end.address)
    ? Uint8Array.from(end.address.split('.').map(Number))
    : Uint8Array.from(Buffer.from(expandIpv6(end.address), 'hex'));
  return {
    choice: 'gTPTunnel',
    value: {
      transportLayerAddress: { bytes, length: bytes.length * 8 },
      gTPTEID: Uint8Array.of(
        end.teid >>> 24,
        (end.teid >>> 16) & 0xff,
        (end.teid >>> 8) & 0xff,
        end.teid & 0xff,
      ),
    },
  };
}

function expandIpv6(address: string): string {
  const [head = '', tail] = address.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => g.padStart(4, '0')).join('');
}

export function tunnelEnd(info: UPTransportLayerInformation | undefined): TunnelEnd | undefined {
  if (info?.choice !== 'gTPTunnel' || info.value.gTPTEID.length !== 4) return undefined;
  const { bytes, length } = info.value.transportLayerAddress;
  const teid = Buffer.from(info.value.gTPTEID).readUInt32BE(0);
  if (length === 32 || length === 160) return { address: Array.from(bytes.subarray(0, 4)).join('.'), teid };
  if (length !== 128) return undefined;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return { address: groups.join(':'), teid };
}

/** The gNB's PDU session resources, for the UEs of one `GnbUes`. */
export class GnbSessions {
  readonly #n3Address: string;
  readonly #send: (pdu: NGAPPDU) => boolean;
  /** By RAN UE NGAP ID, then PDU session id. */
  readonly #sessions = new Map<number, Map<number, GnbSession>>();
  readonly #listeners = new Set<(event: GnbSessionEvent) => void>();
  #nextTeid = 1;
  readonly #teids: (() => number) | undefined;

  /**
   * `teids`: the node's downlink TEID allocator when several of these share one N3 address (a gNB with
   * associations to several AMFs); each allocates its own otherwise.
   */
  constructor(options: { n3Address: string; send: (pdu: NGAPPDU) => boolean; teids?: () => number }) {
    this.#n3Address = options.n3Address;
    this.#send = options.send;
    this.#teids = options.teids;
  }

  /** Hears of every session's tunnels; returns the unsubscribe function. */
  on(listener: (event: GnbSessionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The sessions set up for a UE now. */
  of(ue: RadioUe): GnbSession[] {
    const found: GnbSession[] = [];
    for (const sessions of this.#sessions.values())
      for (const session of sessions.values()) if (session.ue === ue) found.push(session);
    return found;
  }

  /**
   * A PDU Session Resource request from the AMF; `connection` finds the UE by the ids it names. False
   * when the PDU is not one of them.
   */
  receive(pdu: NGAPPDU, connection: (ids: UeIds, messageType: string) => RadioUe | undefined): boolean {
    if (pdu.choice !== 'initiatingMessage') return false;
    // A request its generated reader refuses (TS 38.413 10.3: an IE of criticality reject missing or not
    // comprehended, IEs out of order) is not acted on.
    switch (pdu.value.name) {
      case 'PDUSessionResourceSetup': {
        const read = readPDUSessionResourceSetupRequest(pdu);
        if (!read.ok) return true;
        const { amfUeNgapId, ranUeNgapId, pduSessionResourceSetupListSuReq } = read.message;
        const ids = { amfUeNgapId, ranUeNgapId };
        const ue = connection(ids, 'PDUSessionResourceSetupRequest');
        if (ue === undefined) return true;
        const done = this.#setUpAll(
          ue,
          ids.ranUeNgapId,
          pduSessionResourceSetupListSuReq.map((item) => ({
            pDUSessionID: item.pDUSessionID,
            nasPdu: item.pDUSessionNASPDU,
            transfer: item.pDUSessionResourceSetupRequestTransfer,
          })),
        );
        this.#send(
          buildPDUSessionResourceSetupResponse({
            ...ids,
            pduSessionResourceSetupListSuRes: done.length === 0 ? undefined : done,
          }),
        );
        return true;
      }
      case 'PDUSessionResourceModify': {
        const read = readPDUSessionResourceModifyRequest(pdu);
        if (!read.ok) return true;
        const { amfUeNgapId, ranUeNgapId, pduSessionResourceModifyListModReq: items } = read.message;
        const ids = { amfUeNgapId, ranUeNgapId };
        const ue = connection(ids, 'PDUSessionResourceModifyRequest');
        if (ue === undefined) return true;
        for (const item of items) {
          if (item.nASPDU !== undefined) ue.downlink(item.nASPDU);
          const session = this.#sessions.get(ids.ranUeNgapId)?.get(item.pDUSessionID);
          if (session !== undefined) this.#emit({ type: 'modified', session });
        }
        this.#send(
          buildPDUSessionResourceModifyResponse({
            ...ids,
            pduSessionResourceModifyListModRes: items.map((item) => ({
              pDUSessionID: item.pDUSessionID,
              pDUSessionResourceModifyResponseTransfer: encodeComplete(
                {},
                ALIGNED,
                encodePDUSessionResourceModifyResponseTransfer,
              ),
            })),
          }),
        );
        return true;
      }
      case 'PDUSessionResourceRelease': {
        const read = readPDUSessionResourceReleaseCommand(pdu);
        if (!read.ok) return true;
        const {
          amfUeNgapId,
          ranUeNgapId,
          nasPdu,
          pduSessionResourceToReleaseListRelCmd: items,
        } = read.message;
        const ids = { amfUeNgapId, ranUeNgapId };
        const ue = connection(ids, 'PDUSessionResourceReleaseCommand');
        if (ue === undefined) return true;
        if (nasPdu !== undefined) ue.downlink(nasPdu);
        for (const item of items) {
          const sessions = this.#sessions.get(ids.ranUeNgapId);
          const session = sessions?.get(item.pDUSessionID);
          if (session === undefined) continue;
          sessions?.delete(item.pDUSessionID);
          this.#emit({ type: 'down', session, why: 'released' });
        }
        this.#send(
          buildPDUSessionResourceReleaseResponse({
            ...ids,
            pduSessionResourceReleasedListRelRes: items.map((item) => ({
              pDUSessionID: item.pDUSessionID,
              pDUSessionResourceReleaseResponseTransfer: encodeComplete(
                {},
                ALIGNED,
                encodePDUSessionResourceReleaseResponseTransfer,
              ),
            })),
          }),
        );
        return true;
      }
      default:
        return false;
    }
  }

  /** The UE's connection was released (UE Context Release, NG Reset, association loss): its tunnels go. */
  connectionReleased(ranUeNgapId: number): void {
    const sessions = this.#sessions.get(ranUeNgapId);
    this.#sessions.delete(ranUeNgapId);
    for (const session of sessions?.values() ?? [])
      this.#emit({ type: 'down', session, why: 'connection-released' });
  }

  /**
   * The PDU Session Resource Setup List of Initial Context Setup Request (TS 38.413 8.3.1.2): the same
   * setup as PDU Session Resource Setup, answered in the Initial Context Setup Response's list.
   */
  setUpWithContext(
    ue: RadioUe,
    ids: UeIds,
    items: readonly {
      pDUSessionID: number;
      nASPDU?: Uint8Array;
      pDUSessionResourceSetupRequestTransfer: Uint8Array;
    }[],
  ): SetUpItem[] {
    return this.#setUpAll(
      ue,
      ids.ranUeNgapId,
      items.map((item) => ({
        pDUSessionID: item.pDUSessionID,
        nasPdu: item.nASPDU,
        transfer: item.pDUSessionResourceSetupRequestTransfer,
      })),
    );
  }

  #setUpAll(
    ue: RadioUe,
    ranUeNgapId: number,
    items: readonly { pDUSessionID: number; nasPdu: Uint8Array | undefined; transfer: Uint8Array }[],
  ): SetUpItem[] {
    const done: SetUpItem[] = [];
    for (const item of items) {
      // TS 38.413 8.2.1.2: the NAS-PDU goes to the UE whatever happens to the resources.
      if (item.nasPdu !== undefined) ue.downlink(item.nasPdu);
      const session = this.#setUp(ue, ranUeNgapId, item.pDUSessionID, item.transfer);
      if (session === undefined) continue;
      done.push({
        pDUSessionID: item.pDUSessionID,
        pDUSessionResourceSetupResponseTransfer: encodeComplete(
          {
            dLQosFlowPerTNLInformation: {
              uPTransportLayerInformation: gtpTunnel(session.downlink),
              associatedQosFlowList: session.qfis.map((qfi) => ({ qosFlowIdentifier: qfi })),
            },
          },
          ALIGNED,
          encodePDUSessionResourceSetupResponseTransfer,
        ),
      });
    }
    return done;
  }

  #setUp(
    ue: RadioUe,
    ranUeNgapId: number,
    pduSessionId: number,
    transfer: Uint8Array,
  ): GnbSession | undefined {
    const decoded = decodeComplete(transfer, ALIGNED, decodePDUSessionResourceSetupRequestTransfer);
    if (!decoded.ok) return undefined;
    // TS 38.413 10.3 as for a message: a transfer its generated reader refuses sets nothing up.
    const read = readPDUSessionResourceSetupRequestTransfer(decoded.value);
    if (!read.ok) return undefined;
    const { ulNguUpTnlInformation, pduSessionType, qosFlowSetupRequestList } = read.message;
    const uplink = tunnelEnd(ulNguUpTnlInformation);
    if (uplink === undefined) return undefined;
    const session: GnbSession = {
      ue,
      pduSessionId,
      // An extension value this release does not know reads as its index.
      pduSessionType: typeof pduSessionType === 'string' ? pduSessionType : 'ipv4',
      qfis: qosFlowSetupRequestList.map((flow) => flow.qosFlowIdentifier),
      uplink,
      downlink: { address: this.#n3Address, teid: this.#allocateTeid() },
    };
    let sessions = this.#sessions.get(ranUeNgapId);
    if (sessions === undefined) this.#sessions.set(ranUeNgapId, (sessions = new Map<number, GnbSession>()));
    sessions.set(pduSessionId, session);
    this.#emit({ type: 'up', session });
    return session;
  }

  /**
   * The sessions of a Handover Request (TS 38.413 8.4.2.2) for the connection `ranUeNgapId`, each from
   * its PDU Session Resource Setup Request Transfer (9.3.4.1) as in a setup; those whose transfer does
   * not read are not set up. Each admitted one gets a DL forwarding tunnel of this node's unless the
   * transfer says data forwarding is not possible.
   */
  setUpForHandover(
    ue: RadioUe,
    ranUeNgapId: number,
    items: readonly { pduSessionId: number; transfer: Uint8Array }[],
  ): { admitted: (GnbSession & { forwarding: TunnelEnd | undefined })[]; failed: number[] } {
    const admitted: (GnbSession & { forwarding: TunnelEnd | undefined })[] = [];
    const failed: number[] = [];
    for (const item of items) {
      const session = this.#setUp(ue, ranUeNgapId, item.pduSessionId, item.transfer);
      if (session === undefined) {
        failed.push(item.pduSessionId);
        continue;
      }
      const decoded = decodeComplete(item.transfer, ALIGNED, decodePDUSessionResourceSetupRequestTransfer);
      const read = decoded.ok ? readPDUSessionResourceSetupRequestTransfer(decoded.value) : undefined;
      const forwarding =
        read?.ok === true && read.message.dataForwardingNotPossible === undefined
          ? { address: this.#n3Address, teid: this.#allocateTeid() }
          : undefined;
      admitted.push({ ...session, forwarding });
    }
    return { admitted, failed };
  }

  /**
   * Sessions handed over from another node (Xn handover, TS 38.300 9.2.3.2): the same uplink tunnel and
   * QoS flows, a downlink TEID of this node's, for the connection `ranUeNgapId`.
   */
  admit(ue: RadioUe, ranUeNgapId: number, handed: readonly GnbSession[]): GnbSession[] {
    let sessions = this.#sessions.get(ranUeNgapId);
    if (sessions === undefined) this.#sessions.set(ranUeNgapId, (sessions = new Map<number, GnbSession>()));
    const admitted: GnbSession[] = [];
    for (const from of handed) {
      const session: GnbSession = {
        ...from,
        ue,
        qfis: [...from.qfis],
        downlink: { address: this.#n3Address, teid: this.#allocateTeid() },
      };
      sessions.set(session.pduSessionId, session);
      this.#emit({ type: 'up', session });
      admitted.push(session);
    }
    return admitted;
  }

  /** Downlink TEIDs are unique per gNB, never 0 (TS 29.281 5.1). */
  #allocateTeid(): number {
    if (this.#teids !== undefined) return this.#teids();
    const teid = this.#nextTeid;
    this.#nextTeid = teid === 0xffff_ffff ? 1 : teid + 1;
    return teid;
  }

  #emit(event: GnbSessionEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}
