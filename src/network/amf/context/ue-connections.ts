import type { ServingCell } from '../../network-state.ts';
import type { NhChain } from '../../security/handover-keys.ts';
import type { RadioLink } from '../n2/ue-signalling.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** AMF UE NGAP ID is INTEGER (0..2^40-1) (TS 38.413 9.3.3.1). */
const MAX_AMF_UE_NGAP_ID = 2 ** 40 - 1;

/**
 * One UE-associated logical NG-connection (TS 38.413 3.1): the AMF UE NGAP ID this AMF assigned, the
 * RAN UE NGAP ID the radio assigned, the radio, and the SCTP stream the AMF sends this UE's messages
 * on. `owner` is the UE context (5GMM) the connection serves, set by the NAS layer.
 */
export interface UeConnection<Owner = unknown> {
  readonly amfUeNgapId: number;
  /** The radio's side; both change only by `move` (Xn handover, TS 38.413 8.4.4). */
  readonly ranUeNgapId: number;
  readonly radio: RadioLink;
  readonly streamId: number;
  /** The AS key chain (TS 33.501 6.9.2.1.1): KgNB of Initial Context Setup, then each path switch's NH. */
  accessKeys: NhChain | undefined;
  /** The latest cell User Location Information named for this UE. */
  servingCell: ServingCell | undefined;
  owner: Owner | undefined;
  /**
   * `active`; `releasing` once UE Context Release Command is sent (messages still arrive until the
   * radio completes it, TS 38.413 8.3.3).
   */
  phase: 'active' | 'releasing';
  /**
   * The UE's RRC state as the radio last reported it (RRC Inactive Transition Report, TS 38.413 8.3.5):
   * `inactive` is still CM-CONNECTED (TS 23.502 4.8.2), so the AMF does not page the UE; `connected`
   * until a report says otherwise.
   */
  rrcState: 'connected' | 'inactive';
}

/** The stream for a UE's messages: spread over streams 1.. (TS 38.412 7); 0 when the radio has one. */
export function streamFor(amfUeNgapId: number, radio: Pick<RadioLink, 'outboundStreams'>): number {
  return radio.outboundStreams > 1 ? 1 + (amfUeNgapId % (radio.outboundStreams - 1)) : 0;
}

/**
 * The UE-associated logical NG-connections of every radio, keyed by AMF UE NGAP ID and by (radio, RAN
 * UE NGAP ID), bounded by `limit`. AMF UE NGAP IDs come from a counter that only wraps after 2^40
 * allocations, skipping ids still in use, so an id is not reused soon after its connection ends and a
 * late message for an old connection cannot reach a new one.
 */
export function createUeConnections<Owner>(options: { limit: number; firstId?: number }) {
  const byAmfId = new Map<number, UeConnection<Owner>>();
  const byRadio = new Map<string, Map<number, UeConnection<Owner>>>();
  /** AMF UE NGAP IDs given to a handover target before it names its RAN UE NGAP ID (TS 38.413 8.4.2). */
  const reserved = new Set<number>();
  let nextId = options.firstId ?? 1;

  function allocateId(): number {
    for (;;) {
      const id = nextId;
      nextId = nextId >= MAX_AMF_UE_NGAP_ID ? 0 : nextId + 1;
      if (!byAmfId.has(id) && !reserved.has(id)) return id;
    }
  }

  function index(connection: UeConnection<Owner>): void {
    let ofRadio = byRadio.get(connection.radio.id);
    if (ofRadio === undefined) {
      ofRadio = new Map<number, UeConnection<Owner>>();
      byRadio.set(connection.radio.id, ofRadio);
    }
    ofRadio.set(connection.ranUeNgapId, connection);
  }

  function unindex(connection: UeConnection<Owner>): void {
    const ofRadio = byRadio.get(connection.radio.id);
    if (ofRadio?.get(connection.ranUeNgapId) === connection) ofRadio.delete(connection.ranUeNgapId);
    if (ofRadio?.size === 0) byRadio.delete(connection.radio.id);
  }

  return {
    /**
     * An AMF UE NGAP ID for a connection that has no RAN UE NGAP ID yet (Handover Request, TS 38.413
     * 8.4.2.2), counted against `limit`; undefined at the limit. `open` takes it, `unreserve` frees it.
     */
    reserve(): number | undefined {
      if (byAmfId.size + reserved.size >= options.limit) return undefined;
      const id = allocateId();
      reserved.add(id);
      return id;
    },

    unreserve: (amfUeNgapId: number): void => void reserved.delete(amfUeNgapId),

    /**
     * A new connection, or undefined when `limit` connections exist already; under `reservedId` when
     * given (and reserved: else undefined).
     */
    open(radio: RadioLink, ranUeNgapId: number, reservedId?: number): UeConnection<Owner> | undefined {
      if (reservedId !== undefined && !reserved.delete(reservedId)) return undefined;
      if (reservedId === undefined && byAmfId.size + reserved.size >= options.limit) return undefined;
      const amfUeNgapId = reservedId ?? allocateId();
      const connection: UeConnection<Owner> = {
        amfUeNgapId,
        ranUeNgapId,
        radio,
        streamId: streamFor(amfUeNgapId, radio),
        accessKeys: undefined,
        servingCell: undefined,
        owner: undefined,
        phase: 'active',
        rrcState: 'connected',
      };
      byAmfId.set(amfUeNgapId, connection);
      index(connection);
      return connection;
    },

    /**
     * The connection now runs through `radio` under its `ranUeNgapId` (Path Switch Request, TS 38.413
     * 8.4.4.2: the AMF UE NGAP ID stays). False when the connection is gone or another one holds the
     * pair; the pair it holds already is no move but no refusal either.
     */
    move(connection: UeConnection<Owner>, radio: RadioLink, ranUeNgapId: number): boolean {
      if (byAmfId.get(connection.amfUeNgapId) !== connection) return false;
      const holder = byRadio.get(radio.id)?.get(ranUeNgapId);
      if (holder !== undefined && holder !== connection) return false;
      unindex(connection);
      const moved = connection as Mutable<UeConnection<Owner>>;
      moved.radio = radio;
      moved.ranUeNgapId = ranUeNgapId;
      moved.streamId = streamFor(connection.amfUeNgapId, radio);
      index(connection);
      return true;
    },

    byAmfId: (id: number): UeConnection<Owner> | undefined => byAmfId.get(id),

    byRan: (radioId: string, ranUeNgapId: number): UeConnection<Owner> | undefined =>
      byRadio.get(radioId)?.get(ranUeNgapId),

    /** Forgets a connection; false when it was already gone. */
    close(connection: UeConnection<Owner>): boolean {
      if (byAmfId.get(connection.amfUeNgapId) !== connection) return false;
      byAmfId.delete(connection.amfUeNgapId);
      unindex(connection);
      return true;
    },

    /** Every connection of a radio, e.g. when its association ends. */
    ofRadio: (radioId: string): UeConnection<Owner>[] => [...(byRadio.get(radioId)?.values() ?? [])],

    size: (): number => byAmfId.size,
  };
}
