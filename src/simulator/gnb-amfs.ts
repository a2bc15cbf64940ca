import type { Timers } from '../clock.ts';
import { systemTimers } from '../clock.ts';
import type { Cause, RRCEstablishmentCause, TimeToWait } from '../network/ngap/generated/types.ts';
import type { N2Transport, StreamCounts, TransportAddress } from '../network/transport/n2-transport.ts';
import type { AmfDescription, Guami, UnavailableGuami } from './amf-messages.ts';
import { sameGuami } from './amf-messages.ts';
import type { AmfCandidate, SelectionReason, UeAmfHint } from './amf-selection.ts';
import { selectAmf } from './amf-selection.ts';
import type { GnbConfig } from './gnb-config.ts';
import type { GnbEnd } from './gnb.ts';
import { SimulatedGnb } from './gnb.ts';
import type { GnbSessionEvent } from './ue/gnb-sessions.ts';
import { GnbUes } from './ue/gnb-ues.ts';
import type { Reroute } from './ue/gnb-reroute.ts';
import type { FiveGSTmsi, ServingCell } from './ue/ran-ue-messages.ts';
import type { RadioUe, RrcConnection, UeRadio } from './ue/ue-radio.ts';

/**
 * A simulated gNB with an association (TNLA) to each of several AMFs, as a gNB serving an AMF set or
 * several does (TS 38.300 4.2, TS 23.501 5.21): NG Setup with each under one Global RAN Node ID, each
 * AMF's ServedGUAMIList, backup AMF names and RelativeAMFCapacity kept as NG Setup Response and AMF
 * Configuration Update give them (gnb.ts), the GUAMIs each declares unavailable (AMF Status Indication),
 * each UE's Initial UE Message sent to the AMF `selectAmf` picks (amf-selection.ts) and the rest of its
 * signalling on that association. A lost association is set up again after a back-off.
 * UEs camp on it as on one gNB (UeRadio); one `SimulatedGnb` and one `GnbUes` per association do the rest.
 */

interface MultiAmfGnbOptions {
  config: GnbConfig;
  transport: N2Transport;
  /** Each AMF's SCTP addresses (tried in order) and port: one association and NG Setup each. */
  amfs: readonly (readonly TransportAddress[])[];
  /** The node's cell, for its UEs' User Location Information. */
  cell: ServingCell;
  /** Where the node receives downlink GTP-U, whichever AMF set the session up (127.0.0.1 unless given). */
  n3Address?: string;
  local?: { addresses: readonly string[]; port?: number };
  streams?: number | StreamCounts;
  timers?: Timers;
  responseTimeoutMs?: number;
  /**
   * Waits before setting up a lost or refused association again: `initialMs` first, doubled at each
   * failed try up to `maxMs` (default 1 s to 30 s); an NG Setup Failure's Time to Wait when longer.
   */
  backoff?: { initialMs: number; maxMs: number };
  /** In [0, 1), for the AMF chosen by capacity (Math.random unless a test gives its own). */
  random?: () => number;
  /** Every association's PDUs kept (`SimulatedGnb.sent`, `received`; default true). */
  keepLog?: boolean;
  /**
   * Set up the further TNL associations each AMF offers (SimulatedGnb's `furtherAssociations`,
   * gnb-tnl.ts): each AMF's usage and weight factors spread the UEs of that AMF over its associations, its
   * To Remove and To Update Lists act on its own; after a re-association, NG Setup brings its offer again.
   */
  furtherAssociations?: boolean;
  /** Told of each association as it is made (the first, and each after a loss), e.g. to print its PDUs. */
  onAssociation?: (gnb: SimulatedGnb, index: number) => void;
  /**
   * The node's own timer for a GUAMI declared unavailable with Timer Approach for GUAMI Removal (TS
   * 38.413 9.3.3.20, TS 23.501 5.21.2.2; its value is the node's to choose): until it runs out the
   * GUAMI's UEs go to the backup AMF, then the node forgets the GUAMI of that AMF. Default one hour,
   * longer than T3512 (54 min), so the GUAMI's UEs have registered again under new 5G-GUTIs by then.
   */
  guamiRemovalMs?: number;
}

export type MultiAmfGnbEvent =
  /** NG Setup with this AMF accepted. */
  | { type: 'amf-up'; index: number; amf: AmfDescription }
  /** NG Setup refused, or the association could not be set up or was lost: tried again after `delayMs`. */
  | { type: 'amf-down'; index: number; why: string; delayMs: number }
  /**
   * The AMF declared the GUAMI unavailable with the timer approach, and the node's timer ran out: the
   * node no longer counts it as that AMF's.
   */
  | { type: 'guami-removed'; index: number; guami: Guami }
  /** A UE's Initial UE Message went to this AMF. */
  | { type: 'selected'; index: number; reason: SelectionReason }
  /** The AMF `from` rerouted a UE's Initial UE Message (Reroute NAS Request); it went to `index`. */
  | { type: 'rerouted'; from: number; index: number };

const DEFAULT_BACKOFF = { initialMs: 1000, maxMs: 30_000 };
const DEFAULT_GUAMI_REMOVAL_MS = 3_600_000;

/** One AMF's association as the node and its selection see it. */
class AmfLink implements AmfCandidate {
  gnb: SimulatedGnb;
  ues: GnbUes;
  /** The AMF as last described: kept after the association is lost, for its GUAMIs' backup names. */
  described: AmfDescription | undefined;
  /**
   * GUAMIs declared unavailable with the timer approach, each until the node's timer runs out: held
   * across the association's loss (a leaving AMF's association ends), unlike `SimulatedGnb`'s list.
   */
  readonly timed = new Map<UnavailableGuami, () => void>();
  /** GUAMIs removed when their timer ran out: no longer this AMF's, until its next NG Setup. */
  removed: Guami[] = [];
  /** Failed tries since the last accepted NG Setup (for the back-off). */
  failures = 0;
  cancelRetry: (() => void) | undefined;

  constructor(
    readonly index: number,
    readonly remote: readonly TransportAddress[],
    created: { gnb: SimulatedGnb; ues: GnbUes },
  ) {
    this.gnb = created.gnb;
    this.ues = created.ues;
  }

  get ready(): boolean {
    return this.gnb.state.kind === 'ready';
  }

  /** The AMF as the selection sees it: without the GUAMIs the node removed. */
  get amf(): AmfDescription | undefined {
    const { described } = this;
    if (described === undefined || this.removed.length === 0) return described;
    return { ...described, servedGuamis: described.servedGuamis.filter((g) => !this.#removed(g)) };
  }

  get unavailableGuamis(): readonly Guami[] {
    const declared = this.gnb.unavailableGuamis.filter((g) => !this.#removed(g));
    const timed = [...this.timed.keys()].filter((g) => !declared.some((d) => sameGuami(d, g)));
    return [...declared, ...timed];
  }

  #removed(guami: Guami): boolean {
    return this.removed.some((g) => sameGuami(g, guami));
  }

  /** A new NG Setup: the AMF says afresh which GUAMIs it serves. */
  forgetRemovals(): void {
    for (const cancel of this.timed.values()) cancel();
    this.timed.clear();
    this.removed = [];
  }
}

export class MultiAmfGnb implements UeRadio {
  readonly #options: MultiAmfGnbOptions;
  readonly #timers: Timers;
  readonly #links: AmfLink[];
  readonly #camped = new Set<RadioUe>();
  readonly #listeners = new Set<(event: MultiAmfGnbEvent) => void>();
  readonly #sessionListeners = new Set<(event: GnbSessionEvent) => void>();
  /** One downlink TEID space for the node: every association's sessions share its N3 address. */
  #nextTeid = 1;
  #stopped = false;

  /** Every association's PDU session events, those made after a re-association included. */
  readonly sessions = {
    on: (listener: (event: GnbSessionEvent) => void): (() => void) => {
      this.#sessionListeners.add(listener);
      return () => this.#sessionListeners.delete(listener);
    },
  };

  constructor(options: MultiAmfGnbOptions) {
    if (options.amfs.length === 0) throw new Error('a gNB needs at least one AMF');
    this.#options = options;
    this.#timers = options.timers ?? systemTimers;
    this.#links = options.amfs.map(
      (remote, index) => new AmfLink(index, remote, this.#create(remote, index)),
    );
  }

  get name(): string {
    return this.#options.config.name ?? 'gnb';
  }

  get cell(): ServingCell {
    return this.#options.cell;
  }

  /** Each AMF's association now, in the order of `amfs` (a new one after each re-association). */
  get associations(): readonly SimulatedGnb[] {
    return this.#links.map((link) => link.gnb);
  }

  /** Each AMF as it last described itself (undefined before its first NG Setup). */
  get amfs(): readonly (AmfDescription | undefined)[] {
    return this.#links.map((link) => link.amf);
  }

  /** The UE side of each association (its connections, sessions, ...), in the order of `amfs`. */
  get ues(): readonly GnbUes[] {
    return this.#links.map((link) => link.ues);
  }

  on(listener: (event: MultiAmfGnbEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sets up every association and NG Setup; those that fail are tried again after the back-off. */
  async start(): Promise<void> {
    await Promise.all(this.#links.map((link) => this.#bringUp(link)));
  }

  /** Graceful shutdown (or ABORT) of every association; no retry is left pending. */
  async stop(how: 'shutdown' | 'abort' = 'shutdown'): Promise<void> {
    this.#stopped = true;
    for (const link of this.#links) {
      link.cancelRetry?.();
      link.forgetRemovals();
    }
    await Promise.all(
      this.#links.map((link) => (how === 'abort' ? link.gnb.abort('simulator') : link.gnb.shutdown())),
    );
  }

  // ----- the UE's radio -----

  establish(
    ue: RadioUe,
    nasPdu: Uint8Array,
    cause: RRCEstablishmentCause,
    sTmsi: FiveGSTmsi | undefined,
  ): RrcConnection | undefined {
    const hint: UeAmfHint =
      sTmsi === undefined
        ? undefined
        : { kind: 's-tmsi', amfSetId: sTmsi.amfSetId, amfPointer: sTmsi.amfPointer };
    const selection = selectAmf(this.#links, hint, this.#options.random);
    if (selection === undefined) return undefined;
    const { candidate: link, reason } = selection;
    this.#emit({ type: 'selected', index: link.index, reason });
    return link.ues.establish(ue, nasPdu, cause, sTmsi);
  }

  /** The AMF the UE's connection is with now (as it last described itself); undefined when idle. */
  servingAmf(ue: RadioUe): AmfDescription | undefined {
    return this.#links.find((link) => link.ues.holds(ue))?.amf;
  }

  /**
   * UE Context Release Request (TS 38.413 8.3.2) for the UE on the association its connection is on;
   * false when it has none.
   */
  requestRelease(ue: RadioUe, cause?: Cause): boolean {
    return this.#links.some((link) => link.ues.requestRelease(ue, cause));
  }

  /** A UE camps on every association's side: a Paging from any AMF reaches it. */
  camp(ue: RadioUe): void {
    this.#camped.add(ue);
    for (const link of this.#links) link.ues.camp(ue);
  }

  leave(ue: RadioUe): void {
    this.#camped.delete(ue);
    for (const link of this.#links) link.ues.leave(ue);
  }

  // ----- internals -----

  #create(remote: readonly TransportAddress[], index: number): { gnb: SimulatedGnb; ues: GnbUes } {
    const options = this.#options;
    const gnb = new SimulatedGnb({
      config: options.config,
      transport: options.transport,
      amf: remote,
      timers: this.#timers,
      ...(options.local === undefined ? {} : { local: options.local }),
      ...(options.streams === undefined ? {} : { streams: options.streams }),
      ...(options.responseTimeoutMs === undefined ? {} : { responseTimeoutMs: options.responseTimeoutMs }),
      ...(options.keepLog === undefined ? {} : { keepLog: options.keepLog }),
      ...(options.furtherAssociations === undefined
        ? {}
        : { furtherAssociations: options.furtherAssociations }),
    });
    const ues = new GnbUes(gnb, options.cell, {
      ...(options.n3Address === undefined ? {} : { n3Address: options.n3Address }),
      teids: () => this.#allocateTeid(),
    });
    ues.onReroute = (ue, reroute) => this.#reroute(index, ue, reroute);
    ues.sessions.on((event) => {
      for (const listener of [...this.#sessionListeners]) listener(event);
    });
    for (const ue of this.#camped) ues.camp(ue);
    options.onAssociation?.(gnb, index);
    return { gnb, ues };
  }

  /**
   * TS 38.413 8.6.5.2: the Initial UE Message the AMF of link `from` rerouted goes to another AMF of the
   * AMF set it named, chosen by capacity among those that take new UEs, with the AMF Set ID (and Allowed
   * NSSAI) it carried. Undefined when the node is connected to no such AMF.
   */
  #reroute(from: number, ue: RadioUe, reroute: Reroute): RrcConnection | undefined {
    const inSet = this.#links.filter((link) => {
      const own = link.amf?.servedGuamis[0];
      return link.index !== from && own !== undefined && Number.parseInt(own.setId, 16) === reroute.amfSetId;
    });
    const selection = selectAmf(inSet, undefined, this.#options.random);
    if (selection === undefined) return undefined;
    const { candidate: link } = selection;
    this.#emit({ type: 'rerouted', from, index: link.index });
    return link.ues.establish(ue, reroute.nasPdu, reroute.cause, ue.sTmsi, reroute);
  }

  async #bringUp(link: AmfLink): Promise<void> {
    const { gnb } = link;
    gnb.on((event) => {
      if (event.type === 'amf-configuration-update') link.described = event.amf;
      if (event.type === 'amf-status-indication') this.#timeRemovals(link, event.unavailable);
      // An SCTP restart of the AMF (RFC 9260 5.2.4) keeps the association: NG Setup starts over on it.
      if (event.type === 'restart') void this.#setUp(link);
    });
    void gnb.closed.then((end) => this.#lost(link, gnb, end));
    try {
      await gnb.connect();
    } catch {
      return; // `closed` says why, and schedules the next try
    }
    // Stopped while connecting: `stop` waits for this association's end.
    if (this.#stopped) {
      await gnb.shutdown();
      return;
    }
    await this.#setUp(link);
  }

  /** NG Setup on the link's association; refused or unanswered, tried again after the back-off. */
  async #setUp(link: AmfLink): Promise<void> {
    const { gnb } = link;
    let why: string;
    let timeToWait: TimeToWait | undefined;
    try {
      const outcome = await gnb.ngSetup();
      if (outcome.outcome === 'accepted') {
        link.forgetRemovals();
        link.described = outcome.amf;
        link.failures = 0;
        this.#emit({ type: 'amf-up', index: link.index, amf: outcome.amf });
        return;
      }
      why = `NG Setup refused: ${outcome.failure.cause ?? 'no cause'}`;
      timeToWait = outcome.failure.timeToWait;
    } catch (error) {
      if (gnb.state.kind === 'closed') return; // `closed` schedules the next try
      why = error instanceof Error ? error.message : String(error);
    }
    // TS 38.413 8.7.1.3: after a failure with Time to Wait, not before it has passed.
    this.#retry(link, why, timeToWaitMs(timeToWait), () => void this.#setUp(link));
  }

  #lost(link: AmfLink, gnb: SimulatedGnb, end: GnbEnd): void {
    if (this.#stopped || link.gnb !== gnb) return;
    const why =
      end.reason === 'connect-failed'
        ? `connect failed: ${end.error}`
        : end.reason === 'communication-lost'
          ? `association lost: ${end.lost}`
          : 'association shut down';
    this.#retry(link, why, 0, () => {
      const created = this.#create(link.remote, link.index);
      link.gnb = created.gnb;
      link.ues = created.ues;
      void this.#bringUp(link);
    });
  }

  /**
   * Timer Approach for GUAMI Removal (TS 38.413 8.7.6.2, 9.3.3.20; TS 23.501 5.21.2.2): each GUAMI so
   * declared stays unavailable, its UEs going to the backup, until the node's timer runs out; then the
   * node removes it from what it knows of the AMF, and a UE naming it goes to an AMF that lists it, else
   * another of its AMF set. A GUAMI declared again restarts its timer.
   */
  #timeRemovals(link: AmfLink, unavailable: readonly UnavailableGuami[]): void {
    for (const guami of unavailable) {
      if (!guami.timerApproach) continue;
      for (const [held, cancel] of link.timed)
        if (sameGuami(held, guami)) {
          cancel();
          link.timed.delete(held);
        }
      const cancel = this.#timers.after(this.#options.guamiRemovalMs ?? DEFAULT_GUAMI_REMOVAL_MS, () => {
        link.timed.delete(guami);
        link.removed.push(guami);
        const { plmn, regionId, setId, pointer } = guami;
        this.#emit({ type: 'guami-removed', index: link.index, guami: { plmn, regionId, setId, pointer } });
      });
      link.timed.set(guami, cancel);
    }
  }

  #retry(link: AmfLink, why: string, atLeastMs: number, again: () => void): void {
    if (this.#stopped) return;
    const { initialMs, maxMs } = this.#options.backoff ?? DEFAULT_BACKOFF;
    const delayMs = Math.max(atLeastMs, Math.min(maxMs, initialMs * 2 ** link.failures));
    link.failures++;
    link.cancelRetry?.();
    link.cancelRetry = this.#timers.after(delayMs, () => {
      link.cancelRetry = undefined;
      if (!this.#stopped) again();
    });
    this.#emit({ type: 'amf-down', index: link.index, why, delayMs });
  }

  /** Never 0 (TS 29.281 5.1). */
  #allocateTeid(): number {
    const teid = this.#nextTeid;
    this.#nextTeid = teid === 0xffff_ffff ? 1 : teid + 1;
    return teid;
  }

  #emit(event: MultiAmfGnbEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}

/** Time to Wait (TS 38.413) in ms; 0 when absent or not a value this release knows. */
function timeToWaitMs(timeToWait: TimeToWait | undefined): number {
  if (typeof timeToWait !== 'string') return 0;
  return Number(timeToWait.slice(1, -1)) * 1000;
}
