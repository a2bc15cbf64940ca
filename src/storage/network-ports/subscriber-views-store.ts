import type { PduSession, ServingCell } from '../../network/network-state.ts';
import type { SubscriberView, SubscriberViews, ViewSummary } from '../../network/ports/subscriber-views.ts';
import type { Clock } from '../../clock.ts';
import type { Db } from '../database.ts';
import type { SubscriberViewsTable } from '../tables/amf-set.ts';

/** Rows of one upsert: 7 parameters each stay far below PostgreSQL's 65,535 of one statement. */
const ROWS_PER_STATEMENT = 1_000;

/** What `view` holds: the row's view without what the columns hold. */
type StoredView = Omit<SubscriberView, 'imsi' | 'registered' | 'servingRadio'>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** A session as a member wrote it; one another client of the database spoiled is left out. */
function sessionOf(value: unknown): PduSession | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const s = value as Record<string, unknown>;
  const slice = s.slice as Record<string, unknown> | null | undefined;
  if (!Number.isInteger(s.id) || slice === null || typeof slice !== 'object') return undefined;
  if (!Number.isInteger(slice.sst)) return undefined;
  return {
    id: s.id as number,
    radioAccessType: text(s.radioAccessType),
    status: text(s.status),
    ipType: text(s.ipType),
    ipv4Address: text(s.ipv4Address),
    ipv6Prefix: text(s.ipv6Prefix),
    dataNetwork: text(s.dataNetwork),
    slice: { sst: slice.sst as number, sd: text(slice.sd) },
    ambrUplink: text(s.ambrUplink),
    ambrDownlink: text(s.ambrDownlink),
  };
}

const finite = (value: unknown): number | undefined =>
  Number.isFinite(value) ? (value as number) : undefined;

/** A serving cell as a member wrote it; anything else (another client's spoiling) reads as none. */
function servingCellOf(value: unknown): ServingCell | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const c = value as Record<string, unknown>;
  if (c.rat !== 'nr' && c.rat !== 'eutra') return undefined;
  return {
    rat: c.rat,
    mcc: text(c.mcc),
    mnc: text(c.mnc),
    tac: text(c.tac),
    cellIdentity: text(c.cellIdentity),
  };
}

/** A stored row as the API reads it; broken JSON reads as a view of nothing seen, never a failure. */
function viewOf(row: SubscriberViewsTable): SubscriberView & { amf: string } {
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(row.view);
    if (value !== null && typeof value === 'object') parsed = value as Record<string, unknown>;
  } catch {
    // Left empty: members write this column, so only another client can have spoiled it.
  }
  const sessions = Array.isArray(parsed.sessions) ? parsed.sessions.map(sessionOf) : [];
  return {
    imsi: row.imsi,
    amf: row.amf,
    registered: Number(row.registered) === 1,
    servingRadio: row.serving_radio,
    radioAccessTypes: texts(parsed.radioAccessTypes),
    imei: text(parsed.imei),
    cipheringAlgorithm: text(parsed.cipheringAlgorithm),
    integrityAlgorithm: text(parsed.integrityAlgorithm),
    lastSeenAt: Number.isFinite(parsed.lastSeenAt) ? (parsed.lastSeenAt as number) : undefined,
    lastSeenRadio: text(parsed.lastSeenRadio),
    servingCell: servingCellOf(parsed.servingCell),
    servingCellReportedAt: finite(parsed.servingCellReportedAt),
    sessions: sessions.filter((s): s is PduSession => s !== undefined),
  };
}

function rowOf(amf: string, view: SubscriberView, now: number): SubscriberViewsTable {
  const stored: StoredView = {
    radioAccessTypes: view.radioAccessTypes,
    imei: view.imei,
    cipheringAlgorithm: view.cipheringAlgorithm,
    integrityAlgorithm: view.integrityAlgorithm,
    lastSeenAt: view.lastSeenAt,
    lastSeenRadio: view.lastSeenRadio,
    servingCell: view.servingCell,
    servingCellReportedAt: view.servingCellReportedAt,
    sessions: view.sessions,
  };
  return {
    imsi: view.imsi,
    amf,
    registered: view.registered ? 1 : 0,
    serving_radio: view.servingRadio,
    session_count: view.sessions.length,
    view: JSON.stringify(stored),
    updated_at: now,
  };
}

/**
 * The AMF set's read model of subscribers over `subscriber_views` (migration 0024; docs/amf-set.md, "One
 * view of the network"), on PostgreSQL where the set runs (also runs on SQLite). A write of many
 * subscribers is one multi-row upsert; the reads name the members whose rows count, so a dead member's
 * rows are never read as live.
 */
export function createSubscriberViewsStore(deps: { db: Db; clock: Clock }): SubscriberViews {
  const { db, clock } = deps;

  return {
    async write(amf, { views, removed, radiosGone }) {
      if (radiosGone.length > 0) {
        await db
          .updateTable('subscriber_views')
          .set({ serving_radio: '' })
          .where('amf', '=', amf)
          .where('serving_radio', 'in', radiosGone)
          .execute();
      }
      const now = clock.now();
      for (let i = 0; i < views.length; i += ROWS_PER_STATEMENT) {
        await db
          .insertInto('subscriber_views')
          .values(views.slice(i, i + ROWS_PER_STATEMENT).map((view) => rowOf(amf, view, now)))
          .onConflict((c) =>
            c.columns(['imsi', 'amf']).doUpdateSet((eb) => ({
              registered: eb.ref('excluded.registered'),
              serving_radio: eb.ref('excluded.serving_radio'),
              session_count: eb.ref('excluded.session_count'),
              view: eb.ref('excluded.view'),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          )
          .execute();
      }
      if (removed.length > 0) {
        await db.deleteFrom('subscriber_views').where('amf', '=', amf).where('imsi', 'in', removed).execute();
      }
    },

    async clear(amf) {
      await db.deleteFrom('subscriber_views').where('amf', '=', amf).execute();
    },

    async keepOnly(live) {
      let query = db.deleteFrom('subscriber_views');
      if (live.length > 0) query = query.where('amf', 'not in', live);
      await query.execute();
    },

    async views(imsi, members) {
      if (members.length === 0) return [];
      const rows = await db
        .selectFrom('subscriber_views')
        .selectAll()
        .where('imsi', '=', imsi)
        .where('amf', 'in', members)
        .orderBy('updated_at', 'desc')
        .execute();
      return rows.map(viewOf);
    },

    async registeredAmong(imsis, members) {
      const found = new Map<string, ViewSummary>();
      if (imsis.length === 0 || members.length === 0) return found;
      const rows = await db
        .selectFrom('subscriber_views')
        .select(['imsi', 'amf', 'session_count'])
        .where('imsi', 'in', imsis)
        .where('amf', 'in', members)
        .where('registered', '=', 1)
        .orderBy('updated_at', 'asc')
        .execute();
      // Newest last, so it is the one kept when two members hold one subscriber for a moment.
      for (const row of rows) {
        found.set(row.imsi, { amf: row.amf, registered: true, sessions: Number(row.session_count) });
      }
      return found;
    },

    async onRadio(radio, members) {
      if (members.length === 0) return [];
      const rows = await db
        .selectFrom('subscriber_views')
        .select('imsi')
        .distinct()
        .where('serving_radio', '=', radio)
        .where('amf', 'in', members)
        .where('registered', '=', 1)
        .execute();
      return rows.map((row) => row.imsi);
    },

    async totals(members) {
      if (members.length === 0) return [];
      const rows = await db
        .selectFrom('subscriber_views')
        .select((eb) => [
          'amf',
          eb.fn.countAll<number | string>().as('registered'),
          eb.fn.sum<number | string>('session_count').as('sessions'),
        ])
        .where('amf', 'in', members)
        .where('registered', '=', 1)
        .groupBy('amf')
        .execute();
      return rows.map((row) => ({
        amf: row.amf,
        registeredSubscribers: Number(row.registered),
        activeSessions: Number(row.sessions ?? 0),
      }));
    },
  };
}
