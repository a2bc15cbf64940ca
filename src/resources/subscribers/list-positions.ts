/**
 * Where some subscribers sit in IMSI order (anchors: an IMSI and its position). SQL's OFFSET skips rows
 * one by one, so page 10,000 of the list would cost ten thousand times page 1; with anchors a page starts
 * at the nearest IMSI at or before its offset (`imsi >= anchor`) and skips at most a few `spacing` rows.
 *
 * Anchors are learnt where pages ask for them, a bounded walk at a time: when the nearest anchor lies too
 * far before an offset, `seek` answers which walk to read (`fill`), the caller reads it from the database
 * and hands it to `fill`, and asks again. No step costs more than one walk of `walkRows` rows, so the
 * first deep page after a start (or after an import that sorts after every existing IMSI) never holds the
 * event loop for long, and every later page costs a binary search.
 *
 * Anchors follow the service's own writes: each write is bracketed by `writeStarted` and its `done`
 * callback, which shifts the anchors after the inserted or deleted IMSIs. A walk is only installed if no
 * write started or ended while it was read, and a count that disagrees with the database's while none of
 * our writes is in flight (another writer, a restored file) drops every anchor.
 */
export interface PageStart {
  /** The first IMSI to consider, or undefined to start from the beginning. */
  from: string | undefined;
  /** Rows to skip from there. */
  skip: number;
}

export interface Change {
  inserted?: string[];
  deleted?: string[];
}

/** Rows read after `after` (or from the first row), of which every `spacing`-th becomes an anchor. */
export interface Walk {
  after: string | undefined;
  rows: number;
}

/** What `seek` answers for the page at an offset. */
type Seek =
  | { kind: 'start'; start: PageStart }
  /** Read `walk`, then `fill` with `token` and what was read, and seek again. */
  | { kind: 'fill'; walk: Walk; token: number }
  /** Our writes are in flight and the count disagrees: wait for `settled()`, count again, seek again. */
  | { kind: 'busy' };

/** An anchor as a walk reads it: the IMSI and its number within the walk, counting from 1. */
export interface WalkedAnchor {
  imsi: string;
  n: number;
}

export function createListPositions(options: { spacing: number; walkRows: number }) {
  const { spacing, walkRows } = options;
  /** Beyond this many skipped rows, the page asks for a walk to fill the gap. */
  const maxSkip = spacing * 4;
  let imsis: string[] = [];
  let positions: number[] = [];
  /** The count the anchors hold for; undefined until a walk has been installed. */
  let total: number | undefined;
  /** Our writes in flight, each settled when it has ended. */
  const inFlight = new Set<Promise<void>>();
  /** Moves whenever a write starts or ends, so a walk can tell that something changed while it was read. */
  let epoch = 0;

  function invalidate(): void {
    imsis = [];
    positions = [];
    total = undefined;
  }

  /** Index of the first anchor whose IMSI is not below `imsi` (anchors.length when none). */
  function firstNotBelow(imsi: string): number {
    let low = 0;
    let high = imsis.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((imsis[middle] as string) < imsi) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Index of the first anchor whose position is above `offset` (anchors.length when none). */
  function firstAbove(offset: number): number {
    let low = 0;
    let high = positions.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((positions[middle] as number) <= offset) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Adds `delta` × (how many of `sorted` are below it) to each anchor's position: one merge pass. */
  function shift(sorted: string[], delta: number): void {
    let below = 0;
    for (let i = 0; i < imsis.length; i++) {
      const imsi = imsis[i] as string;
      while (below < sorted.length && (sorted[below] as string) < imsi) below += 1;
      positions[i] = (positions[i] as number) + delta * below;
    }
  }

  function apply(change: Change): void {
    if (total === undefined) return;
    const inserted = [...(change.inserted ?? [])].sort();
    const deleted = [...(change.deleted ?? [])].sort();
    if (deleted.length > 0) {
      const gone = new Set(deleted);
      const kept = imsis.map((imsi) => !gone.has(imsi));
      imsis = imsis.filter((_, index) => kept[index]);
      positions = positions.filter((_, index) => kept[index]);
    }
    shift(inserted, 1);
    shift(deleted, -1);
    total += inserted.length - deleted.length;
  }

  /** The anchor at or before `offset` (index -1: none, start from the beginning) and the rows to skip. */
  function nearest(offset: number): { at: number; from: string | undefined; skip: number } {
    const at = firstAbove(offset) - 1;
    return at < 0
      ? { at, from: undefined, skip: offset }
      : { at, from: imsis[at], skip: offset - (positions[at] as number) };
  }

  function token(): number | undefined {
    return inFlight.size === 0 ? epoch : undefined;
  }

  return {
    /**
     * Where the page at `offset` starts in a list of `count` rows (the count the caller just read from
     * the database), or what to do first. `offset` is below `count`.
     */
    seek(offset: number, count: number): Seek {
      if (total !== undefined && total !== count) {
        // With no write of ours in flight, a different count means someone else changed the table.
        if (inFlight.size > 0) return { kind: 'busy' };
        invalidate();
      }
      const { at, from, skip } = nearest(offset);
      // Near the start of the list, or near an anchor, the page needs nothing more.
      if (skip <= maxSkip) return { kind: 'start', start: { from, skip } };
      const now = token();
      if (now === undefined) return { kind: 'busy' };
      // From the start of the list its first row is read too, so the walk covers `skip + 1` rows.
      return {
        kind: 'fill',
        walk: { after: from, rows: Math.min(walkRows, at < 0 ? skip + 1 : skip) },
        token: now,
      };
    },

    /**
     * Where the page at `offset` starts by the anchors held now, before the count is read: the caller
     * reads the page and the count in one statement and keeps the page only if the count is `count`,
     * the one the anchors hold for (undefined: no anchors, the start is the list's own and holds for any
     * count). Undefined when the page needs a walk, or lies past the anchors' count: then `seek`.
     */
    guess(offset: number): { start: PageStart; count: number | undefined } | undefined {
      if (total !== undefined && offset >= total) return undefined;
      const { from, skip } = nearest(offset);
      return skip <= maxSkip ? { start: { from, skip }, count: total } : undefined;
    },

    /**
     * Installs a walk read from the database (the anchors it found and the count read with it), unless a
     * write started or ended since `token` was taken; false when it was not installed or added nothing.
     */
    fill(token: number, walk: Walk, found: WalkedAnchor[], count: number): boolean {
      if (token !== epoch || inFlight.size > 0) return false;
      if (total !== count) {
        invalidate();
        if (walk.after !== undefined) return false;
        total = count;
      }
      // Walked from `after` at position p (or from before the first row, p = -1), row n is at p + n.
      let from = 0;
      let base = -1;
      if (walk.after !== undefined) {
        from = firstNotBelow(walk.after);
        if (imsis[from] !== walk.after) return false;
        base = positions[from] as number;
        from += 1;
      }
      const next = imsis[from];
      const added = found.filter((anchor) => next === undefined || anchor.imsi < next);
      imsis.splice(from, 0, ...added.map((anchor) => anchor.imsi));
      positions.splice(from, 0, ...added.map((anchor) => base + anchor.n));
      return added.length > 0;
    },

    /** Resolves once every write in flight now has ended. */
    async settled(): Promise<void> {
      await Promise.all([...inFlight]);
    },

    /** Drops the anchors (the database was replaced); a walk being read now will not install. */
    forget(): void {
      invalidate();
      epoch += 1;
    },

    /** Call before a write's transaction starts; call the returned function once it has ended. */
    writeStarted(): (committed: Change | undefined) => void {
      epoch += 1;
      let end!: () => void;
      const ended = new Promise<void>((done) => (end = done));
      inFlight.add(ended);
      return (committed) => {
        if (!inFlight.has(ended)) return;
        if (committed) apply(committed);
        inFlight.delete(ended);
        epoch += 1;
        end();
      };
    },
  };
}

export type ListPositions = ReturnType<typeof createListPositions>;
