import { integerLiteral, queryTemplate, valuesTemplate } from '../../storage/query-template.ts';
import type { Executor } from '../../storage/transaction.ts';
import { SHOWN_HOLDERS } from '../references.ts';
import type { WalkedAnchor } from './list-positions.ts';

export interface SubscriberSummary {
  imsi: string;
  profileName: string;
  /** E.164 digits, or null when it has none. */
  msisdn: string | null;
}

interface StoredSubscriber extends SubscriberSummary {
  id: number;
  profileId: number;
}

interface SealedCredentials {
  keySealed: string;
  opcSealed: string;
  sequenceNumber: string;
}

export interface NewSubscriberRow extends SealedCredentials {
  imsi: string;
  profileId: number;
  createdAt: number;
  msisdn: string | null;
}

export interface SubscriberFilter {
  /** Only IMSIs from this one on (where a page starts, see list-positions.ts). */
  imsiFrom?: string;
  /** Only these IMSIs (the subscribers a radio serves). */
  imsis?: string[];
  /** Only subscribers whose profile reaches this data network: a policy for it names their profile or none. */
  dataNetwork?: string;
  /** Only the subscriber with this MSISDN (stored form, digits only). */
  msisdn?: string;
}

interface Page {
  from: string;
  limit: number;
  offset: number;
}

/** Rows per INSERT and IMSIs per IN list: well under SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 1000;

export function createSubscribersRepository(db: Executor) {
  function matching(executor: Executor, filter: SubscriberFilter) {
    let query = executor.selectFrom('subscribers');
    if (filter.imsiFrom !== undefined) query = query.where('subscribers.imsi', '>=', filter.imsiFrom);
    if (filter.imsis !== undefined) query = query.where('subscribers.imsi', 'in', filter.imsis);
    if (filter.msisdn !== undefined) query = query.where('subscribers.msisdn', '=', filter.msisdn);
    const { dataNetwork } = filter;
    if (dataNetwork !== undefined) {
      query = query.where((outer) =>
        outer.exists(
          outer
            .selectFrom('policies')
            .innerJoin('data_networks', 'data_networks.id', 'policies.data_network_id')
            .select('policies.id')
            .where('data_networks.name', '=', dataNetwork)
            .where((eb) =>
              eb.or([
                eb('policies.profile_id', 'is', null),
                eb('policies.profile_id', '=', eb.ref('subscribers.profile_id')),
              ]),
            ),
        ),
      );
    }
    return query;
  }

  /**
   * One page, by IMSI. The page is cut from the (imsi, profile_id) index alone (which holds the row id
   * too) and only its rows are joined to their profiles and, by row id, to their MSISDNs, so a deep page
   * skips index entries rather than table rows. Joining by id costs a page of 100 about 10 µs; by the
   * IMSI's index, 30 µs.
   *
   * LIMIT and OFFSET are written into the SQL text (integerLiteral asserts each a non-negative safe
   * integer): each page size and skip is then a statement whose plan PostgreSQL keeps for any start IMSI.
   * Bound, the OFFSET was unknown to the plan kept for any values, which PostgreSQL estimates as a tenth of
   * the rows (a hash join over the whole table), so it planned the page again at every run
   * (docs/postgresql.md).
   */
  function pageQuery(filter: SubscriberFilter, limit: number, offset: number) {
    const page = matching(db, filter)
      .select(['subscribers.id', 'subscribers.imsi', 'subscribers.profile_id'])
      .orderBy('subscribers.imsi')
      .limit(integerLiteral(limit))
      .offset(integerLiteral(offset))
      .as('page');
    return db
      .selectFrom(page)
      .innerJoin('profiles', 'profiles.id', 'page.profile_id')
      .innerJoin('subscribers as row', 'row.id', 'page.id')
      .select(['page.imsi', 'profiles.name', 'row.msisdn'])
      .orderBy('page.imsi');
  }

  // The reads every page and every single read make, built once (query-template.ts). A page of the
  // unfiltered list starts at an IMSI (the empty string when it starts at the beginning).
  // A page's rows as [imsi, profile name, msisdn]: 100 row objects built by the binding cost a fifth of
  // the page. The page size and skip are literals (pageQuery): one compiled form for each.
  const literals = { literals: ['limit', 'offset'] } as const;
  const unfilteredPage = valuesTemplate<Page, [imsi: string, profileName: string, msisdn: string | null]>(
    ['from', 'limit', 'offset'],
    (p) => pageQuery({ imsiFrom: p.from }, p.limit, p.offset),
    literals,
  );
  // The same page with the subscriber count on each row: one statement, one snapshot, for a page whose
  // start the service found before reading the count (list-positions.ts, `guess`).
  const unfilteredPageCounted = valuesTemplate<
    Page,
    [imsi: string, profileName: string, msisdn: string | null, total: number | string]
  >(
    ['from', 'limit', 'offset'],
    (p) =>
      pageQuery({ imsiFrom: p.from }, p.limit, p.offset).select((eb) =>
        eb.selectFrom('subscriber_count').select('total').as('total'),
      ),
    literals,
  );
  const countRow = queryTemplate([], () => db.selectFrom('subscriber_count').select('total'));
  const byImsi = queryTemplate(['imsi'], (p: { imsi: string }) =>
    db
      .selectFrom('subscribers')
      .innerJoin('profiles', 'profiles.id', 'subscribers.profile_id')
      .select([
        'subscribers.id',
        'subscribers.imsi',
        'subscribers.profile_id',
        'subscribers.msisdn',
        'profiles.name',
      ])
      .where('subscribers.imsi', '=', p.imsi),
  );

  /** The number of subscribers, kept by triggers (migration 0008): no walk over the table. */
  async function countAll(executor: Executor = db): Promise<number> {
    const [row] = await countRow(executor, {});
    if (!row) throw new Error('the subscriber count row is missing');
    return Number(row.total);
  }

  /**
   * The subscribers among many IMSIs (every device a radio serves may be tens of thousands, beyond
   * SQLite's 32,766 parameters): the IMSIs sorted and asked CHUNK at a time, so pages stay in IMSI order.
   */
  function amongChunks(imsis: readonly string[]): string[][] {
    const sorted = [...new Set(imsis)].sort();
    const chunks: string[][] = [];
    for (let start = 0; start < sorted.length; start += CHUNK)
      chunks.push(sorted.slice(start, start + CHUNK));
    return chunks;
  }

  async function countMatching(filter: SubscriberFilter): Promise<number> {
    const row = await matching(db, filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The subscribers whose profile reaches a data network, from the counts by profile (migration 0009):
   * all of them when a policy for it names no profile, else those of the profiles its policies name.
   */
  async function countReaching(dataNetwork: string): Promise<number> {
    const policies = await db
      .selectFrom('policies')
      .innerJoin('data_networks', 'data_networks.id', 'policies.data_network_id')
      .select('policies.profile_id')
      .where('data_networks.name', '=', dataNetwork)
      .execute();
    if (policies.some((policy) => policy.profile_id === null)) return countAll();
    const profiles = [...new Set(policies.map((policy) => policy.profile_id as number))];
    if (profiles.length === 0) return 0;
    const row = await db
      .selectFrom('subscriber_count_by_profile')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('total'), eb.val(0)).as('n'))
      .where('profile_id', 'in', profiles)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return {
    async list(filter: SubscriberFilter, limit: number, offset: number): Promise<SubscriberSummary[]> {
      if (filter.imsis?.length === 0) return [];
      if (filter.imsis !== undefined && filter.imsis.length > CHUNK) {
        const found: SubscriberSummary[] = [];
        let skip = offset;
        for (const imsis of amongChunks(filter.imsis)) {
          const chunk = { ...filter, imsis };
          const here = await countMatching(chunk);
          if (skip >= here) {
            skip -= here;
            continue;
          }
          const rows = await pageQuery(chunk, limit - found.length, skip).execute();
          for (const row of rows) found.push({ imsi: row.imsi, profileName: row.name, msisdn: row.msisdn });
          skip = 0;
          if (found.length === limit) break;
        }
        return found;
      }
      if (filter.imsis === undefined && filter.dataNetwork === undefined && filter.msisdn === undefined) {
        const rows = await unfilteredPage(db, { from: filter.imsiFrom ?? '', limit, offset });
        return rows.map(([imsi, profileName, msisdn]) => ({ imsi, profileName, msisdn }));
      }
      const rows = await pageQuery(filter, limit, offset).execute();
      return rows.map((row) => ({ imsi: row.imsi, profileName: row.name, msisdn: row.msisdn }));
    },

    /**
     * A page of the unfiltered list and the subscriber count, read in one statement; undefined when the
     * page is empty (no row carries the count).
     */
    async pageWithCount(
      imsiFrom: string | undefined,
      limit: number,
      offset: number,
    ): Promise<{ rows: SubscriberSummary[]; total: number } | undefined> {
      const rows = await unfilteredPageCounted(db, { from: imsiFrom ?? '', limit, offset });
      const first = rows[0];
      if (first === undefined) return undefined;
      return {
        rows: rows.map(([imsi, profileName, msisdn]) => ({ imsi, profileName, msisdn })),
        total: Number(first[3]),
      };
    },

    async count(filter: SubscriberFilter): Promise<number> {
      if (filter.imsis?.length === 0) return 0;
      // With an MSISDN (at most one subscriber, found by its unique index) the count is a plain one.
      const only = filter.imsis === undefined && filter.imsiFrom === undefined && filter.msisdn === undefined;
      if (only && filter.dataNetwork === undefined) return countAll();
      if (only && filter.dataNetwork !== undefined) return countReaching(filter.dataNetwork);
      if (filter.imsis !== undefined && filter.imsis.length > CHUNK) {
        let total = 0;
        for (const imsis of amongChunks(filter.imsis)) total += await countMatching({ ...filter, imsis });
        return total;
      }
      return countMatching(filter);
    },

    /**
     * Walks `rows` subscribers in IMSI order after `after` (from the first when undefined) and answers
     * every `spacing`-th of them with its number in the walk, counting from 1. Each step skips `spacing`
     * entries of the IMSI index with OFFSET, which costs a sixth of numbering the rows with a window.
     */
    async walk(after: string | undefined, rows: number, spacing: number): Promise<WalkedAnchor[]> {
      const found: WalkedAnchor[] = [];
      let cursor = after;
      for (let n = spacing; n <= rows; n += spacing) {
        let step = db.selectFrom('subscribers').select('imsi');
        if (cursor !== undefined) step = step.where('imsi', '>', cursor);
        // Literals, as a page's (pageQuery): one statement whose plan PostgreSQL keeps.
        const row = await step
          .orderBy('imsi')
          .limit(integerLiteral(1))
          .offset(integerLiteral(spacing - 1))
          .executeTakeFirst();
        if (!row) break;
        found.push({ imsi: row.imsi, n });
        cursor = row.imsi;
      }
      return found;
    },

    countAll,

    async findByImsi(imsi: string, executor: Executor = db): Promise<StoredSubscriber | undefined> {
      const [row] = await byImsi(executor, { imsi });
      return (
        row && {
          id: row.id,
          imsi: row.imsi,
          profileId: row.profile_id,
          profileName: row.name,
          msisdn: row.msisdn,
        }
      );
    },

    async findCredentials(imsi: string, executor: Executor = db): Promise<SealedCredentials | undefined> {
      const row = await executor
        .selectFrom('subscribers')
        .select(['key_sealed', 'opc_sealed', 'sequence_number'])
        .where('imsi', '=', imsi)
        .executeTakeFirst();
      return (
        row && { keySealed: row.key_sealed, opcSealed: row.opc_sealed, sequenceNumber: row.sequence_number }
      );
    },

    /** Stores the subscriber's SQN_HE (12 hex characters); false when the IMSI is unknown. */
    async updateSequenceNumber(
      imsi: string,
      sequenceNumber: string,
      executor: Executor = db,
    ): Promise<boolean> {
      const result = await executor
        .updateTable('subscribers')
        .set({ sequence_number: sequenceNumber })
        .where('imsi', '=', imsi)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** The subscriber's profile row, for the subscription data of the network functions. */
    async findSubscription(imsi: string, executor: Executor = db) {
      return executor
        .selectFrom('subscribers')
        .innerJoin('profiles', 'profiles.id', 'subscribers.profile_id')
        .select([
          'profiles.id as profile_id',
          'profiles.name',
          'profiles.ue_ip_pool',
          'profiles.dns',
          'profiles.mtu',
          'profiles.bitrate_uplink',
          'profiles.bitrate_downlink',
          'profiles.var5qi',
          'profiles.priority_level',
        ])
        .where('subscribers.imsi', '=', imsi)
        .executeTakeFirst();
    },

    /** Inserts every row, in chunks, within the caller's transaction. */
    async insertMany(rows: NewSubscriberRow[], executor: Executor = db): Promise<void> {
      for (let start = 0; start < rows.length; start += CHUNK) {
        await executor
          .insertInto('subscribers')
          .values(
            rows.slice(start, start + CHUNK).map((row) => ({
              imsi: row.imsi,
              profile_id: row.profileId,
              key_sealed: row.keySealed,
              opc_sealed: row.opcSealed,
              sequence_number: row.sequenceNumber,
              created_at: row.createdAt,
              msisdn: row.msisdn,
            })),
          )
          .execute();
      }
    },

    /** Which of these IMSIs are already subscribers. */
    async existingImsis(imsis: string[], executor: Executor = db): Promise<string[]> {
      const found: string[] = [];
      for (let start = 0; start < imsis.length; start += CHUNK) {
        const rows = await executor
          .selectFrom('subscribers')
          .select('imsi')
          .where('imsi', 'in', imsis.slice(start, start + CHUNK))
          .execute();
        for (const row of rows) found.push(row.imsi);
      }
      return found;
    },

    /** Which subscriber holds each of these MSISDNs (stored form), by MSISDN. */
    async msisdnHolders(msisdns: string[], executor: Executor = db): Promise<Map<string, string>> {
      const holders = new Map<string, string>();
      for (let start = 0; start < msisdns.length; start += CHUNK) {
        const rows = await executor
          .selectFrom('subscribers')
          .select(['msisdn', 'imsi'])
          .where('msisdn', 'in', msisdns.slice(start, start + CHUNK))
          .execute();
        for (const row of rows) holders.set(row.msisdn as string, row.imsi);
      }
      return holders;
    },

    /** Sets the profile, and the MSISDN when given (null clears it). */
    async update(
      id: number,
      changes: { profileId: number; msisdn?: string | null },
      executor: Executor = db,
    ): Promise<void> {
      const { profileId, msisdn } = changes;
      await executor
        .updateTable('subscribers')
        .set(msisdn === undefined ? { profile_id: profileId } : { profile_id: profileId, msisdn })
        .where('id', '=', id)
        .execute();
    },

    async delete(id: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('subscribers').where('id', '=', id).execute();
    },

    /** Subscribers on a profile: the first few IMSIs and the count. */
    async usingProfile(
      profileId: number,
      executor: Executor = db,
    ): Promise<{ names: string[]; total: number }> {
      const rows = await executor
        .selectFrom('subscribers')
        .select('imsi')
        .where('profile_id', '=', profileId)
        .orderBy('imsi')
        .limit(SHOWN_HOLDERS)
        .execute();
      const count = await executor
        .selectFrom('subscribers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('profile_id', '=', profileId)
        .executeTakeFirstOrThrow();
      return { names: rows.map((row) => row.imsi), total: Number(count.n) };
    },
  };
}

export type SubscribersRepository = ReturnType<typeof createSubscribersRepository>;
