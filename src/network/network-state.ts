import type { Clock } from '../clock.ts';
import type { NetworkEvents } from './events/network-events.ts';
import {
  createRadioRegistry,
  type Radio,
  type RadioChanges,
  type RadioConnection,
} from './radio-registry.ts';

/**
 * The live picture of the network (architecture.md) and its one writer: the radios connected now
 * (radio-registry.ts), each subscriber's registration, the radio serving it and its PDU sessions. It is
 * the API's read model, not the network functions' working state: they keep their own contexts (NGAP
 * associations, security contexts, timers, state machines) and emit what the API shows as network
 * events, which this module alone turns into writes; the API and location read it. It lives in memory: registrations and sessions do not outlive the process, because
 * devices register again and re-establish their sessions when the core restarts.
 */

/**
 * The cell a registered device was last seen in (its NR CGI or E-UTRA CGI, with the TAC); location reads
 * it. The network functions take it from the User Location Information of NGAP messages.
 */
export interface ServingCell {
  /** `nr` for an NR cell (gNB), `eutra` for an E-UTRA cell (ng-eNB). */
  rat: 'nr' | 'eutra';
  mcc: string;
  mnc: string;
  tac: string;
  /** NR cell identity (9 hex digits) or E-UTRA cell identity (7 hex digits), lower case. */
  cellIdentity: string;
}

export interface Registration {
  /** Radio access types the device is registered over, e.g. `5G`. */
  radioAccessTypes: string[];
  imei: string;
  cipheringAlgorithm: string;
  integrityAlgorithm: string;
}

export interface PduSession {
  id: number;
  radioAccessType: string;
  status: string;
  ipType: string;
  ipv4Address: string;
  ipv6Prefix: string;
  dataNetwork: string;
  slice: { sst: number; sd: string };
  ambrUplink: string;
  ambrDownlink: string;
}

/** What the API shows of one subscriber; a subscriber the network has never seen reads as `unseen`. */
export interface SubscriberState {
  registered: boolean;
  radioAccessTypes: string[];
  imei: string;
  cipheringAlgorithm: string;
  integrityAlgorithm: string;
  /** Unix ms of the last signalling from the device, or undefined when never seen since start. */
  lastSeenAt: number | undefined;
  /** Name of the radio the device was last seen through, or "". */
  lastSeenRadio: string;
  servingCell: ServingCell | undefined;
  /** Unix ms when the network last reported the serving cell (its age), undefined when never. */
  servingCellReportedAt: number | undefined;
  sessions: PduSession[];
}

interface SubscriberEntry {
  registration: Registration | undefined;
  /** The radio serving the device now; cleared on deregistration and when that radio disconnects. */
  servingRadio: string | undefined;
  lastSeenAt: number | undefined;
  lastSeenRadio: string;
  servingCell: ServingCell | undefined;
  servingCellReportedAt: number | undefined;
  sessions: Map<number, PduSession>;
}

/** The same cell when the CGI is the same (the TAC belongs to the cell, so it is not compared). */
const sameCell = (a: ServingCell | undefined, b: ServingCell): boolean =>
  a !== undefined &&
  a.rat === b.rat &&
  a.mcc === b.mcc &&
  a.mnc === b.mnc &&
  a.cellIdentity.toLowerCase() === b.cellIdentity.toLowerCase();

/**
 * The network state over the network's events: it subscribes to what the network functions emit
 * (events/network-events.ts) and is the only writer of its model; it emits `ue.servingCellChanged`.
 */
export function createNetworkState(deps: { clock: Clock; events: NetworkEvents }) {
  const { clock, events } = deps;
  const radios = createRadioRegistry({ clock });
  const subscribers = new Map<string, SubscriberEntry>();
  // Indexes kept beside the maps so the list filters and counters never scan every subscriber.
  const imsisByRadio = new Map<string, Set<string>>();
  const sessionsByDataNetwork = new Map<string, number>();

  function entry(imsi: string): SubscriberEntry {
    let found = subscribers.get(imsi);
    if (!found) {
      found = {
        registration: undefined,
        servingRadio: undefined,
        lastSeenAt: undefined,
        lastSeenRadio: '',
        servingCell: undefined,
        servingCellReportedAt: undefined,
        sessions: new Map(),
      };
      subscribers.set(imsi, found);
    }
    return found;
  }

  function setServingRadio(imsi: string, found: SubscriberEntry, radio: string | undefined): void {
    if (found.servingRadio === radio) return;
    if (found.servingRadio !== undefined) {
      const set = imsisByRadio.get(found.servingRadio);
      set?.delete(imsi);
      if (set?.size === 0) imsisByRadio.delete(found.servingRadio);
    }
    found.servingRadio = radio;
    if (radio !== undefined) {
      let set = imsisByRadio.get(radio);
      if (!set) imsisByRadio.set(radio, (set = new Set()));
      set.add(imsi);
    }
  }

  function countSession(dataNetwork: string, delta: number): void {
    const next = (sessionsByDataNetwork.get(dataNetwork) ?? 0) + delta;
    if (next > 0) sessionsByDataNetwork.set(dataNetwork, next);
    else sessionsByDataNetwork.delete(dataNetwork);
  }

  /** Records the serving cell and when it was reported; a change of cell is emitted after the update. */
  function setServingCell(imsi: string, found: SubscriberEntry, cell: ServingCell): void {
    const changed = !sameCell(found.servingCell, cell);
    found.servingCell = { ...cell, cellIdentity: cell.cellIdentity.toLowerCase() };
    found.servingCellReportedAt = clock.now();
    if (!changed) return;
    events.emit('ue.servingCellChanged', { supi: imsi, servingCell: { ...found.servingCell } });
  }

  function releaseAll(found: SubscriberEntry): void {
    for (const session of found.sessions.values()) countSession(session.dataNetwork, -1);
    found.sessions.clear();
  }

  /** The radio's devices are no longer served by it; they stay registered (they may reselect). */
  function forgetServingRadio(name: string): void {
    for (const imsi of imsisByRadio.get(name) ?? []) {
      const found = subscribers.get(imsi);
      if (found) setServingRadio(imsi, found, undefined);
    }
    imsisByRadio.delete(name);
  }

  /** A RAN node completed NG Setup (its PLMN and TACs match the operator's); it replaces one with its id. */
  function radioConnected(connection: RadioConnection): void {
    const previous = radios.get(connection.id);
    if (previous) forgetServingRadio(previous.name);
    radios.connected(connection);
  }

  /**
   * The node changed its configuration or was heard from; nothing when it is not connected. Devices
   * are served by a radio's name, so a renamed radio keeps them under its new name.
   */
  function radioUpdated(id: string, changes?: RadioChanges): void {
    const before = radios.get(id)?.name;
    if (!radios.updated(id, changes)) return;
    const after = radios.get(id)?.name;
    if (before !== undefined && after !== undefined && before !== after) {
      for (const imsi of imsisByRadio.get(before) ?? []) {
        const found = subscribers.get(imsi);
        if (found) setServingRadio(imsi, found, after);
      }
    }
  }

  /** The node's association ended. Its devices stay registered. */
  function radioDisconnected(id: string): void {
    const radio = radios.disconnected(id);
    if (radio) forgetServingRadio(radio.name);
  }

  /** A device registered (or re-registered) through `radio`. */
  function subscriberRegistered(imsi: string, radio: string, registration: Registration): void {
    const found = entry(imsi);
    found.registration = { ...registration, radioAccessTypes: [...registration.radioAccessTypes] };
    found.lastSeenAt = clock.now();
    found.lastSeenRadio = radio;
    setServingRadio(imsi, found, radio);
  }

  /** Adopted from a dead member of the AMF set: registered, idle; last seen as this process saw it. */
  function subscriberAdopted(imsi: string, registration: Registration): void {
    const found = entry(imsi);
    found.registration = { ...registration, radioAccessTypes: [...registration.radioAccessTypes] };
    setServingRadio(imsi, found, undefined);
  }

  /** Any signalling from a device: refreshes last seen, its radio (when registered) and optionally its cell. */
  function subscriberSeen(imsi: string, radio: string, servingCell: ServingCell | undefined): void {
    const found = entry(imsi);
    found.lastSeenAt = clock.now();
    found.lastSeenRadio = radio;
    if (servingCell) setServingCell(imsi, found, servingCell);
    if (found.registration) setServingRadio(imsi, found, radio);
  }

  /** Deregistration ends every session; last seen is kept. */
  function subscriberDeregistered(imsi: string): void {
    const found = subscribers.get(imsi);
    if (!found) return;
    found.registration = undefined;
    setServingRadio(imsi, found, undefined);
    releaseAll(found);
  }

  /** Established or modified: the session as the SMF shows it now. */
  function sessionUpdated(imsi: string, session: PduSession): void {
    const found = entry(imsi);
    const previous = found.sessions.get(session.id);
    if (previous) countSession(previous.dataNetwork, -1);
    found.sessions.set(session.id, { ...session, slice: { ...session.slice } });
    countSession(session.dataNetwork, 1);
  }

  function sessionReleased(imsi: string, sessionId: number): void {
    const found = subscribers.get(imsi);
    const session = found?.sessions.get(sessionId);
    if (!found || !session) return;
    found.sessions.delete(sessionId);
    countSession(session.dataNetwork, -1);
  }

  // The only writes: what the network functions emit.
  events.on('radio.connected', radioConnected);
  events.on('radio.updated', (e) => radioUpdated(e.id, e.changes));
  events.on('radio.disconnected', (e) => radioDisconnected(e.id));
  events.on('ue.registered', (e) => subscriberRegistered(e.supi, e.radio, e.registration));
  events.on('ue.adopted', (e) => subscriberAdopted(e.supi, e.registration));
  events.on('ue.seen', (e) => subscriberSeen(e.supi, e.radio, e.servingCell));
  events.on('ue.deregistered', (e) => subscriberDeregistered(e.supi));
  events.on('session.established', (e) => sessionUpdated(e.supi, e.session));
  events.on('session.modified', (e) => sessionUpdated(e.supi, e.session));
  events.on('session.released', (e) => sessionReleased(e.supi, e.pduSessionId));

  return {
    /** Every connected radio, by name and then id. */
    radios: (): Radio[] => radios.list(),

    /** The connected radio with this name (or else this id). */
    findRadio: (nameOrId: string): Radio | undefined => radios.find(nameOrId),

    radioCount: (): number => radios.count(),

    /** How long ago (ms) the network reported the subscriber's serving cell; undefined when never. */
    servingCellAge(imsi: string): number | undefined {
      const at = subscribers.get(imsi)?.servingCellReportedAt;
      return at === undefined ? undefined : clock.now() - at;
    },

    /** The subscriber was deleted from the configuration: nothing of it stays in the picture. */
    subscriberRemoved(imsi: string): void {
      const found = subscribers.get(imsi);
      if (found) {
        setServingRadio(imsi, found, undefined);
        releaseAll(found);
        subscribers.delete(imsi);
      }
    },

    subscriber(imsi: string): SubscriberState {
      const found = subscribers.get(imsi);
      const registration = found?.registration;
      return {
        registered: registration !== undefined,
        radioAccessTypes: registration ? [...registration.radioAccessTypes] : [],
        imei: registration?.imei ?? '',
        cipheringAlgorithm: registration?.cipheringAlgorithm ?? '',
        integrityAlgorithm: registration?.integrityAlgorithm ?? '',
        lastSeenAt: found?.lastSeenAt,
        // network.md 5: the radio serving it, and "" when not registered (decisions section 10).
        lastSeenRadio: registration ? (found?.lastSeenRadio ?? '') : '',
        servingCell: found?.servingCell && { ...found.servingCell },
        servingCellReportedAt: found?.servingCellReportedAt,
        sessions: found ? [...found.sessions.values()].map((s) => ({ ...s, slice: { ...s.slice } })) : [],
      };
    },

    /** The name of the radio serving the registered device now, or "". */
    servingRadio: (imsi: string): string => subscribers.get(imsi)?.servingRadio ?? '',

    /** The short form the subscriber list shows, without copying sessions. */
    summary(imsi: string): { registered: boolean; radioAccessTypes: string[]; sessions: number } {
      const found = subscribers.get(imsi);
      const registration = found?.registration;
      return {
        registered: registration !== undefined,
        radioAccessTypes: registration ? [...registration.radioAccessTypes] : [],
        sessions: found?.sessions.size ?? 0,
      };
    },

    /** Totals for monitoring, computed when asked (a scrape), never kept up to date on the hot path. */
    totals(): { registeredSubscribers: number; activeSessions: number } {
      let registeredSubscribers = 0;
      let activeSessions = 0;
      for (const found of subscribers.values()) {
        if (found.registration) registeredSubscribers += 1;
        activeSessions += found.sessions.size;
      }
      return { registeredSubscribers, activeSessions };
    },

    /** IMSIs of the registered devices the named radio serves now. */
    subscribersOnRadio(name: string): string[] {
      return [...(imsisByRadio.get(name) ?? [])];
    },

    sessionsOnDataNetwork(name: string): number {
      return sessionsByDataNetwork.get(name) ?? 0;
    },
  };
}

export type NetworkState = ReturnType<typeof createNetworkState>;
