/** A record table as the follower reads it: rows after an id, by id, and the highest id stored. */
export interface FollowedTable<Row extends { id: number }> {
  listAfterId(afterId: number, limit: number): Promise<Row[]>;
  lastId(): Promise<number>;
}

/** Rows read at most per table and poll; a longer burst is read over the next polls. */
const ROWS_PER_READ = 2_048;

/**
 * Polls an id below a row already read is waited for: a row may commit after one with a higher id (two
 * writers on one PostgreSQL database), and a sequence value a failed batch took is never filled, so after
 * this many polls (or past this span of ids) the follower stops waiting for it.
 */
const HOLE_POLLS = 40;
const HOLE_SPAN = 8_192;

/**
 * Follows one record table by id, so the live event stream carries each record as it is written, with
 * its id (a client opens it with the record's own route). `poll` reads what was written since the last
 * poll; `start` positions the follower at the newest row, so it never replays history. When the highest
 * id goes down (a restore, or a clear), the follower starts again at the new highest id.
 */
export function createRecordFollower<Row extends { id: number }>(
  table: FollowedTable<Row>,
  deps: {
    /** Each new row: in id order, except a row that committed after a higher id was read. */
    onRow: (row: Row) => void;
    /** Rows not read because more than `maxBehind` were written since the last poll (the stream was idle). */
    onSkipped: (count: number) => void;
    maxBehind: number;
  },
) {
  /** Every id up to `floor` was read or given up; above it, up to `last`, the ids in `seen` were read. */
  let floor = 0;
  let last = 0;
  const seen = new Set<number>();
  let holePolls = 0;
  let started = false;

  function settle(): void {
    floor = last;
    seen.clear();
    holePolls = 0;
  }

  function read(rows: readonly Row[]): void {
    for (const row of rows) {
      if (row.id <= floor || seen.has(row.id)) continue;
      seen.add(row.id);
      if (row.id > last) last = row.id;
      deps.onRow(row);
    }
    // The ids read without a hole below them need no remembering.
    while (seen.delete(floor + 1)) floor += 1;
    if (floor === last) holePolls = 0;
  }

  return {
    /** Starts at the newest row, or goes on where the follower stood when it last polled. */
    async start(): Promise<void> {
      if (started) return;
      last = await table.lastId();
      settle();
      started = true;
    },

    /** One query when rows came (the usual case); the highest id is read only when none or many did. */
    async poll(): Promise<void> {
      let rows = await table.listAfterId(last, ROWS_PER_READ);
      if (rows.length === 0) {
        const highest = await table.lastId();
        if (highest < last) {
          // A restore or a clear: the rows below `last` are another history.
          last = highest;
          settle();
          return;
        }
      } else if (rows.length === ROWS_PER_READ) {
        const highest = await table.lastId();
        if (highest - last > deps.maxBehind) {
          deps.onSkipped(highest - last - deps.maxBehind);
          last = highest - deps.maxBehind;
          settle();
          rows = await table.listAfterId(last, ROWS_PER_READ);
        }
      }
      if (rows.length > deps.maxBehind) {
        const skipped = rows.length - deps.maxBehind;
        deps.onSkipped(skipped);
        last = (rows[skipped - 1] as Row).id;
        settle();
        rows = rows.slice(skipped);
      }
      if (floor < last) {
        if (++holePolls > HOLE_POLLS || last - floor > HOLE_SPAN) settle();
        else read((await table.listAfterId(floor, last - floor)).filter((row) => row.id <= last));
      }
      read(rows);
    },
  };
}

export type RecordFollower = ReturnType<typeof createRecordFollower>;
