import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import type { Clock } from '../../clock.ts';
import { deriveOpc } from '../../crypto/milenage.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../errors.ts';
import type { NetworkState, SubscriberState } from '../../network/network-state.ts';
import type { UeContextStore } from '../../network/ports/ue-contexts.ts';
import { storedSessions } from './stored-sessions.ts';
import type { PeerViews } from './peer-views.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import { missingReference } from '../missing-reference.ts';
import type { OperatorIdentity, OperatorService } from '../operator/operator.service.ts';
import type { ProfilesRepository } from '../profiles/profiles.repository.ts';
import { withConstraintConflicts } from '../references.ts';
import { createListPositions, type Change, type PageStart } from './list-positions.ts';
import { msisdnTaken, storedMsisdn } from './msisdn.ts';
import type {
  NewSubscriberRow,
  SubscriberFilter,
  SubscribersRepository,
  SubscriberSummary,
} from './subscribers.repository.ts';

export interface NewSubscriber {
  imsi: string;
  key: string;
  sequenceNumber: string;
  profileName: string;
  opc?: string;
  /** As sent (a leading "+" allowed); null or absent: none. */
  msisdn?: string | null;
}

/** A subscriber's new profile and, when given, its new MSISDN (null clears it; absent keeps it). */
interface SubscriberChanges {
  profileName: string;
  msisdn?: string | null;
}

export interface SubscriberListItem extends SubscriberSummary {
  registered: boolean;
  radioAccessTypes: string[];
  sessions: number;
}

export interface SubscriberDetail extends SubscriberSummary {
  state: SubscriberState;
  /**
   * The AMF set member that serves the registered UE (the owner of its stored UE context), whichever
   * member's API is asked; undefined when no member holds it registered.
   */
  servingAmf: string | undefined;
}

interface Credentials {
  key: string;
  opc: string;
  sequenceNumber: string;
}

/** One row of a bulk import: either a well-formed subscriber or the reason its shape is wrong. */
export type ImportEntry = { row: number; subscriber: NewSubscriber } | { row: number; error: string };

const IMPORT_LIMIT = 10_000;

/** Refuses an import of no subscribers or of more than `IMPORT_LIMIT`, before any row is looked at. */
export function checkImportSize(rows: number): void {
  if (rows === 0 || rows > IMPORT_LIMIT) {
    throw new InvalidError(`an import holds 1 to ${IMPORT_LIMIT} subscribers, got ${rows}`);
  }
}

const PROFILE_GONE = 'the profile was deleted meanwhile; retry';

/** One anchor every this many subscribers: about 4,000 anchors for 1,000,000 subscribers. */
const LIST_ANCHOR_SPACING = 256;
/** Rows read by one walk that fills anchors (32 index seeks): a few milliseconds of the event loop. */
const LIST_WALK_ROWS = 8_192;
/** Rounds in a row that got no closer to a page (our writes kept landing): then plain OFFSET. */
const MAX_STALLED_ROUNDS = 8;

export function createSubscribersService(deps: {
  db: Db;
  subscribers: SubscribersRepository;
  profiles: ProfilesRepository;
  operator: OperatorService;
  audit: AuditLogService;
  /** Told of each change once it committed. */
  changes: ConfigurationChanges;
  state: NetworkState;
  /** The UE contexts every member of the AMF set writes (docs/decisions.md, 15). */
  ueContexts: Pick<UeContextStore, 'get'>;
  /** What the other live members of the AMF set show (PostgreSQL); none on SQLite, one process. */
  peers?: PeerViews;
  secretBox: SecretBox;
  clock: Clock;
}) {
  const { db, subscribers, profiles, operator, audit, state, secretBox, clock, changes } = deps;
  const positions = createListPositions({ spacing: LIST_ANCHOR_SPACING, walkRows: LIST_WALK_ROWS });

  /** Runs a write so that the list positions follow what it committed. */
  async function tracked(change: Change, write: () => Promise<void>): Promise<void> {
    const done = positions.writeStarted();
    let committed: Change | undefined;
    try {
      await write();
      committed = change;
    } finally {
      done(committed);
    }
  }

  /**
   * Where the unfiltered page at `offset` starts, with the count it was found for (the count the caller
   * read, or a newer one when our own writes were in flight). Deep pages fill the anchors they need one
   * bounded walk at a time, yielding to the event loop between walks, so other requests keep being
   * served meanwhile. No start past the end of the list, nor after rounds in a row that got no closer
   * (writes never letting a walk install): then the caller uses a plain OFFSET, slower and never wrong.
   */
  async function pageStart(
    offset: number,
    count: number,
  ): Promise<{ start: PageStart | undefined; total: number }> {
    let total = count;
    let stalled = 0;
    while (offset < total && stalled < MAX_STALLED_ROUNDS) {
      const step = positions.seek(offset, total);
      switch (step.kind) {
        case 'start':
          return { start: step.start, total };
        case 'busy':
          stalled += 1;
          await positions.settled();
          break;
        case 'fill': {
          const found = await subscribers.walk(step.walk.after, step.walk.rows, LIST_ANCHOR_SPACING);
          const filled = positions.fill(step.token, step.walk, found, await subscribers.countAll());
          stalled = filled ? 0 : stalled + 1;
          await new Promise<void>((done) => setImmediate(done));
          break;
        }
      }
      total = await subscribers.countAll();
    }
    return { start: undefined, total };
  }

  function prefixError(imsi: string, identity: OperatorIdentity): string | undefined {
    const plmn = identity.mcc + identity.mnc;
    return imsi.startsWith(plmn) ? undefined : `imsi must start with the operator's MCC and MNC (${plmn})`;
  }

  /** Seals the key and OPc (derived from the OP when not given); CPU only, no database. */
  function seal(
    subscriber: NewSubscriber,
    identity: OperatorIdentity,
    createdAt: number,
  ): Omit<NewSubscriberRow, 'profileId'> {
    const key = subscriber.key.toLowerCase();
    const opc =
      subscriber.opc?.toLowerCase() ?? deriveOpc(Buffer.from(key, 'hex'), identity.op).toString('hex');
    return {
      imsi: subscriber.imsi,
      keySealed: secretBox.seal(key),
      opcSealed: secretBox.seal(opc),
      sequenceNumber: subscriber.sequenceNumber.toLowerCase(),
      createdAt,
      msisdn: msisdnOf(subscriber),
    };
  }

  /** The MSISDN a new subscriber is stored with, or null. */
  function msisdnOf(subscriber: { msisdn?: string | null }): string | null {
    return subscriber.msisdn == null ? null : storedMsisdn(subscriber.msisdn);
  }

  /** Refuses (409) an MSISDN that a subscriber other than `imsi` holds. */
  async function checkMsisdnFree(executor: Executor, msisdn: string, imsi: string): Promise<void> {
    const holder = (await subscribers.msisdnHolders([msisdn], executor)).get(msisdn);
    if (holder !== undefined && holder !== imsi) throw new ConflictError(msisdnTaken(msisdn, holder));
  }

  async function getIn(executor: Executor, imsi: string) {
    const found = await subscribers.findByImsi(imsi, executor);
    if (!found) throw new NotFoundError(`subscriber ${imsi} not found`);
    return found;
  }

  async function profileId(executor: Executor, name: string): Promise<number> {
    const profile = await profiles.findByName(name, executor);
    if (!profile) throw missingReference('profile_name', 'profile', name);
    return profile.id;
  }

  /**
   * Every reason each row cannot be imported, by row: prefix, repeats within the import (IMSI, MSISDN),
   * unknown profiles, and IMSIs or MSISDNs that subscribers already hold. `onlyExisting` tells the caller
   * whether those last are the only faults.
   */
  async function importFaults(
    executor: Executor,
    entries: ImportEntry[],
    identity: OperatorIdentity,
  ): Promise<{ faults: Map<number, string>; onlyExisting: boolean; profileIds: Map<string, number> }> {
    const faults = new Map<number, string>();
    const firstRowOf = new Map<string, number>();
    const wellFormed: { row: number; subscriber: NewSubscriber }[] = [];
    for (const entry of entries) {
      if ('error' in entry) {
        faults.set(entry.row, entry.error);
        continue;
      }
      const { imsi } = entry.subscriber;
      const fault = prefixError(imsi, identity);
      const first = firstRowOf.get(imsi);
      if (fault) faults.set(entry.row, fault);
      else if (first !== undefined) faults.set(entry.row, `imsi ${imsi} repeats row ${first}`);
      else {
        firstRowOf.set(imsi, entry.row);
        wellFormed.push(entry);
      }
    }
    const names = [...new Set(wellFormed.map((entry) => entry.subscriber.profileName))];
    const profileIds = await profiles.idsByName(names, executor);
    for (const { row, subscriber } of wellFormed) {
      if (!profileIds.has(subscriber.profileName)) {
        faults.set(row, missingReference('profile_name', 'profile', subscriber.profileName).message);
      }
    }
    const rowOfMsisdn = new Map<string, number>();
    for (const { row, subscriber } of wellFormed) {
      const msisdn = msisdnOf(subscriber);
      if (msisdn === null || faults.has(row)) continue;
      const first = rowOfMsisdn.get(msisdn);
      if (first !== undefined) faults.set(row, `msisdn ${msisdn} repeats row ${first}`);
      else rowOfMsisdn.set(msisdn, row);
    }
    const invalidCount = faults.size;
    const existing = new Set(await subscribers.existingImsis([...firstRowOf.keys()], executor));
    const holders = await subscribers.msisdnHolders([...rowOfMsisdn.keys()], executor);
    for (const { row, subscriber } of wellFormed) {
      const msisdn = msisdnOf(subscriber);
      const holder = msisdn === null ? undefined : holders.get(msisdn);
      if (faults.has(row)) continue;
      if (existing.has(subscriber.imsi)) faults.set(row, `subscriber ${subscriber.imsi} already exists`);
      else if (holder !== undefined) faults.set(row, msisdnTaken(msisdn as string, holder));
    }
    return { faults, onlyExisting: invalidCount === 0, profileIds };
  }

  function importError(faults: Map<number, string>, total: number, onlyExisting: boolean): Error {
    const lines = [...faults.entries()].sort(([a], [b]) => a - b).map(([row, why]) => `row ${row}: ${why}`);
    const text = `${faults.size} of ${total} rows cannot be imported, so none was: ${lines.join('; ')}`;
    return onlyExisting ? new ConflictError(text) : new InvalidError(text);
  }

  /** The registered devices of the radio named: this process's, and other live members'. */
  async function onRadio(radio: string): Promise<string[]> {
    const here = state.subscribersOnRadio(radio);
    const there = deps.peers ? await deps.peers.onRadio(radio) : [];
    return there.length === 0 ? here : [...new Set([...here, ...there])];
  }

  /** A page's devices this process does not hold registered, as another live member holds them (one read). */
  async function withPeers(items: SubscriberListItem[]): Promise<SubscriberListItem[]> {
    if (deps.peers === undefined) return items;
    const elsewhere = await deps.peers.registeredAmong(
      items.filter((item) => !item.registered).map((item) => item.imsi),
    );
    for (const item of items) {
      const peer = elsewhere.get(item.imsi);
      if (peer === undefined) continue;
      item.registered = true;
      item.radioAccessTypes = ['5G'];
      item.sessions = peer.sessions;
    }
    return items;
  }

  return {
    async list(
      filter: { radio?: string; dataNetwork?: string; msisdn?: string },
      limit: number,
      offset: number,
    ): Promise<{ items: SubscriberListItem[]; total: number }> {
      // Built field by field: object spread costs a hundred times more here, and a page has 100 rows.
      const itemsOf = (rows: SubscriberSummary[]): SubscriberListItem[] =>
        rows.map((row) => {
          const live = state.summary(row.imsi);
          return {
            imsi: row.imsi,
            profileName: row.profileName,
            msisdn: row.msisdn,
            registered: live.registered,
            radioAccessTypes: live.radioAccessTypes,
            sessions: live.sessions,
          };
        });
      const unfiltered =
        filter.radio === undefined && filter.dataNetwork === undefined && filter.msisdn === undefined;
      // A page of the unfiltered list the anchors place already: the page and the count in one round
      // trip, kept when the count is the one the anchors hold for (else someone else wrote: below).
      const guess = unfiltered ? positions.guess(offset) : undefined;
      if (guess) {
        const page = await subscribers.pageWithCount(guess.start.from, limit, guess.start.skip);
        if (page && (guess.count === undefined || page.total === guess.count))
          return { items: await withPeers(itemsOf(page.rows)), total: page.total };
      }
      const query: SubscriberFilter = { dataNetwork: filter.dataNetwork };
      if (filter.radio !== undefined) query.imsis = await onRadio(filter.radio);
      if (filter.msisdn !== undefined) query.msisdn = storedMsisdn(filter.msisdn);
      let total = await subscribers.count(query);
      let start: PageStart | undefined;
      if (unfiltered && offset < total) {
        ({ start, total } = await pageStart(offset, total));
      }
      let rows: SubscriberSummary[] = [];
      if (start) rows = await subscribers.list({ imsiFrom: start.from }, limit, start.skip);
      else if (offset < total) rows = await subscribers.list(query, limit, offset);
      return { items: await withPeers(itemsOf(rows)), total };
    },

    /** After a restore: what is remembered of the list's order belongs to the old database. */
    forgetListPositions(): void {
      positions.forget();
    },

    async get(imsi: string): Promise<SubscriberDetail> {
      const found = await getIn(db, imsi);
      const stored = await deps.ueContexts.get(imsi);
      const registered = stored?.registered === true ? stored : undefined;
      const seen = state.subscriber(imsi);
      // Held registered by another live member: its view, the UE context's owner's first.
      const theirs = seen.registered ? [] : ((await deps.peers?.views(imsi)) ?? []);
      const peer =
        theirs.find((view) => view.registered && view.amf === registered?.owner) ??
        theirs.find((view) => view.registered);
      if (peer !== undefined) {
        return {
          imsi: found.imsi,
          profileName: found.profileName,
          msisdn: found.msisdn,
          state: {
            ...seen,
            registered: true,
            radioAccessTypes: peer.radioAccessTypes,
            imei: peer.imei,
            cipheringAlgorithm: peer.cipheringAlgorithm,
            integrityAlgorithm: peer.integrityAlgorithm,
            lastSeenAt: peer.lastSeenAt,
            lastSeenRadio: peer.lastSeenRadio,
            // Location as the serving member heard it (network.md 8), not this member's stale copy.
            servingCell: peer.servingCell,
            servingCellReportedAt: peer.servingCellReportedAt,
            sessions: peer.sessions,
          },
          servingAmf: peer.amf,
        };
      }
      return {
        imsi: found.imsi,
        profileName: found.profileName,
        msisdn: found.msisdn,
        // A device this process does not hold registered: its sessions as the member serving it stored them.
        state:
          seen.registered || registered === undefined
            ? seen
            : { ...seen, sessions: storedSessions(registered) },
        servingAmf: registered?.owner,
      };
    },

    async create(input: NewSubscriber, actor: Actor): Promise<void> {
      const duplicate = `subscriber ${input.imsi} already exists`;
      const msisdn = msisdnOf(input);
      const write = () =>
        db.transaction().execute(async (trx) => {
          // Inside the transaction, so the operator cannot change between the prefix check and the insert.
          const identity = await operator.identity(trx);
          const fault = prefixError(input.imsi, identity);
          if (fault) throw new InvalidError(fault);
          const id = await profileId(trx, input.profileName);
          if (await subscribers.findByImsi(input.imsi, trx)) throw new ConflictError(duplicate);
          if (msisdn !== null) await checkMsisdnFree(trx, msisdn, input.imsi);
          await subscribers.insertMany([{ ...seal(input, identity, clock.now()), profileId: id }], trx);
          const withMsisdn = msisdn === null ? '' : ` and MSISDN ${msisdn}`;
          await audit.record(
            actor,
            {
              action: 'create_subscriber',
              details: `Subscriber ${input.imsi} created with profile ${input.profileName}${withMsisdn}`,
            },
            trx,
          );
        });
      // The unique indexes' answer to a write the checks could not see (another process's): either value.
      const raced =
        msisdn === null ? duplicate : `subscriber ${input.imsi} or msisdn ${msisdn} already exists`;
      await withConstraintConflicts({ duplicate: raced, reference: PROFILE_GONE }, () =>
        tracked({ inserted: [input.imsi] }, write),
      );
      changes.publish({ resource: 'subscriber', change: 'created', name: input.imsi });
    },

    /**
     * Creates every subscriber or none. All checks run first and report every faulty row; keys are sealed
     * and OPcs derived before the transaction opens, which then only re-checks and inserts.
     */
    async import(entries: ImportEntry[], actor: Actor): Promise<number> {
      checkImportSize(entries.length);
      const identity = await operator.identity();
      const checked = await importFaults(db, entries, identity);
      if (checked.faults.size > 0) throw importError(checked.faults, entries.length, checked.onlyExisting);

      const createdAt = clock.now();
      const prepared = entries.map((entry) => {
        const { subscriber } = entry as { subscriber: NewSubscriber };
        return { profileName: subscriber.profileName, row: seal(subscriber, identity, createdAt) };
      });

      const write = () =>
        db.transaction().execute(async (trx) => {
          const current = await operator.identity(trx);
          if (current.opSealed !== identity.opSealed) {
            throw new ConflictError('the Operator Code changed while the import was prepared; retry');
          }
          const recheck = await importFaults(trx, entries, current);
          if (recheck.faults.size > 0) {
            throw importError(recheck.faults, entries.length, recheck.onlyExisting);
          }
          // Profile ids come from the check inside the transaction: those are the rows that exist now.
          const rows = prepared.map(({ profileName, row }) => ({
            ...row,
            profileId: recheck.profileIds.get(profileName) as number,
          }));
          await subscribers.insertMany(rows, trx);
          await audit.record(
            actor,
            { action: 'import_subscribers', details: `${rows.length} subscribers imported` },
            trx,
          );
        });
      const inserted = prepared.map(({ row }) => row.imsi);
      await withConstraintConflicts(
        {
          duplicate: 'a subscriber or an MSISDN of this import was created meanwhile; retry',
          reference: PROFILE_GONE,
        },
        () => tracked({ inserted }, write),
      );
      for (const imsi of inserted) changes.publish({ resource: 'subscriber', change: 'created', name: imsi });
      return prepared.length;
    },

    async update(imsi: string, input: SubscriberChanges, actor: Actor): Promise<void> {
      const msisdn = input.msisdn == null ? input.msisdn : storedMsisdn(input.msisdn);
      const write = () =>
        db.transaction().execute(async (trx) => {
          const found = await getIn(trx, imsi);
          const id = await profileId(trx, input.profileName);
          if (msisdn != null) await checkMsisdnFree(trx, msisdn, imsi);
          await subscribers.update(found.id, { profileId: id, msisdn }, trx);
          const changed =
            msisdn === undefined || msisdn === found.msisdn
              ? ''
              : `, MSISDN changed from ${found.msisdn ?? 'none'} to ${msisdn ?? 'none'}`;
          await audit.record(
            actor,
            {
              action: 'update_subscriber',
              details: `Subscriber ${imsi} profile changed from ${found.profileName} to ${input.profileName}${changed}`,
            },
            trx,
          );
        });
      // Only the MSISDN can collide here: the unique index's answer to a write the checks could not see.
      const duplicate = msisdn == null ? undefined : msisdnTaken(msisdn, undefined);
      await withConstraintConflicts({ duplicate, reference: PROFILE_GONE }, write);
      changes.publish({ resource: 'subscriber', change: 'changed', name: imsi });
    },

    async delete(imsi: string, actor: Actor): Promise<void> {
      // Tracked like inserts: a delete committing while the list positions are rebuilt must reach them.
      await tracked({ deleted: [imsi] }, () =>
        db.transaction().execute(async (trx) => {
          const found = await getIn(trx, imsi);
          await subscribers.delete(found.id, trx);
          await audit.record(
            actor,
            { action: 'delete_subscriber', details: `Subscriber ${imsi} deleted` },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'subscriber', change: 'deleted', name: imsi });
    },

    /** The clear key, OPc and sequence number; the read is audited in the same transaction. */
    async credentials(imsi: string, actor: Actor): Promise<Credentials> {
      return db.transaction().execute(async (trx) => {
        const sealed = await subscribers.findCredentials(imsi, trx);
        if (!sealed) throw new NotFoundError(`subscriber ${imsi} not found`);
        const credentials = {
          key: secretBox.open(sealed.keySealed),
          opc: secretBox.open(sealed.opcSealed),
          sequenceNumber: sealed.sequenceNumber,
        };
        await audit.record(
          actor,
          { action: 'get_subscriber_credentials', details: `Credentials of subscriber ${imsi} read` },
          trx,
        );
        return credentials;
      });
    },
  };
}

export type SubscribersService = ReturnType<typeof createSubscribersService>;
