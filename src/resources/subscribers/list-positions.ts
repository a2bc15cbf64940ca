/**
 * Where every `spacing`-th subscriber sits in IMSI order. SQL's OFFSET skips rows one by one, so page 1,000
 * of the list would cost a thousand times page 1; with these anchors a page starts at the nearest IMSI at or
 * before its offset (`imsi >= anchor`) and skips fewer than a few `spacing` rows.
 *
 * The anchors are rebuilt from the database when missing and kept current by the service's own writes:
 * each write is bracketed by `writeStarted` and its `done` callback, which shifts the anchors after the
 * inserted or deleted IMSIs. A rebuild is only installed if no write started or ended while it ran, and
 * anchors whose count disagrees with the database's (another writer, a restored file) are dropped. When
 * the anchors cannot be trusted, `seek` answers undefined and the caller uses a plain OFFSET: slower,
 * never wrong.
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

export function createListPositions(options: { spacing: number }) {
  const { spacing } = options;
  /** Beyond this many skipped rows, the anchors are too sparse there and get rebuilt. */
  const maxSkip = spacing * 4;
  let imsis: string[] = [];
  let positions: number[] = [];
  let total: number | undefined;
  let writes = 0;
  /** Moves whenever a write starts or ends, so a rebuild can tell that something changed while it ran. */
  let epoch = 0;

  function invalidate(): void {
    imsis = [];
    positions = [];
    total = undefined;
  }

  /** Index of the last anchor whose IMSI is below `imsi` (-1 when none). */
  function lastBelow(imsi: string): number {
    let low = 0;
    let high = imsis.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((imsis[middle] as string) < imsi) low = middle + 1;
      else high = middle;
    }
    return low - 1;
  }

  function apply(change: Change): void {
    if (total === undefined) return;
    for (const imsi of change.inserted ?? []) {
      for (let i = lastBelow(imsi) + 1; i < positions.length; i++)
        positions[i] = (positions[i] as number) + 1;
      total += 1;
    }
    for (const imsi of change.deleted ?? []) {
      const at = lastBelow(imsi) + 1;
      if (imsis[at] === imsi) {
        imsis.splice(at, 1);
        positions.splice(at, 1);
      }
      for (let i = at; i < positions.length; i++) positions[i] = (positions[i] as number) - 1;
      total -= 1;
    }
  }

  return {
    spacing,

    /**
     * Where the page at `offset` starts, if the anchors hold for a list of `count` rows (the count the
     * caller just read); undefined when they do not, and the caller should rebuild or use OFFSET.
     */
    seek(offset: number, count: number): PageStart | undefined {
      if (total !== count) {
        // With no write of ours in flight, a different count means someone else changed the table.
        if (writes === 0) invalidate();
        return undefined;
      }
      let low = 0;
      let high = positions.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((positions[middle] as number) <= offset) low = middle + 1;
        else high = middle;
      }
      const at = low - 1;
      const start =
        at < 0
          ? { from: undefined, skip: offset }
          : { from: imsis[at], skip: offset - (positions[at] as number) };
      if (start.skip > maxSkip) {
        invalidate();
        return undefined;
      }
      return start;
    },

    /** A token for a rebuild, or undefined while a write is in flight (the rebuild could miss it). */
    rebuildToken(): number | undefined {
      return writes === 0 ? epoch : undefined;
    },

    /**
     * Installs anchors read from the database: the IMSIs at positions 0, spacing, 2 × spacing, ... and the
     * row count, unless a write started or ended since `token` was taken.
     */
    install(token: number, anchors: string[], count: number): boolean {
      if (token !== epoch || writes > 0) return false;
      imsis = [...anchors];
      positions = anchors.map((_, index) => index * spacing);
      total = count;
      return true;
    },

    /** Drops the anchors (the database was replaced); a rebuild running now will not install. */
    forget(): void {
      invalidate();
      epoch += 1;
    },

    /** Call before a write's transaction starts; call the returned function once it has ended. */
    writeStarted(): (committed: Change | undefined) => void {
      writes += 1;
      epoch += 1;
      let ended = false;
      return (committed) => {
        if (ended) return;
        ended = true;
        if (committed) apply(committed);
        writes -= 1;
        epoch += 1;
      };
    },
  };
}

export type ListPositions = ReturnType<typeof createListPositions>;
