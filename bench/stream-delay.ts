// The live event stream's own delay as a benchmark reads it from the service it started: the buckets of
// `pmn_event_stream_delay_seconds` (how long each event waited for its write to the clients, by source:
// `record` since it was recorded, `event` since it was published), read before and after a run, and a
// quantile of what was observed in between. Beside the clients' own latency it tells the service's part
// from the part a client adds by reading (a client process short of CPU on a loaded machine).

/** The cumulative buckets of one source: `le` in seconds (the last one Infinity) and its count. */
export type DelayBuckets = ReadonlyMap<string, readonly { le: number; count: number }[]>;

export async function streamDelayBuckets(base: string, token: string): Promise<DelayBuckets> {
  const response = await fetch(`${base}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`GET /api/v1/metrics: ${response.status}`);
  const text = await response.text();
  const bySource = new Map<string, { le: number; count: number }[]>();
  for (const [, labels = '', count] of text.matchAll(
    /^pmn_event_stream_delay_seconds_bucket\{(.*)\} (\d+)$/gm,
  )) {
    const source = /source="([^"]+)"/.exec(labels)?.[1];
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (source === undefined || le === undefined) continue;
    let buckets = bySource.get(source);
    if (buckets === undefined) bySource.set(source, (buckets = []));
    buckets.push({ le: le === '+Inf' ? Infinity : Number(le), count: Number(count) });
  }
  for (const buckets of bySource.values()) buckets.sort((a, b) => a.le - b.le);
  return bySource;
}

/**
 * The `q` quantile in milliseconds of what `source` observed between two readings, interpolated within its
 * bucket; undefined when nothing was observed, Infinity past the last finite bucket.
 */
export function delayQuantileMs(
  before: DelayBuckets,
  after: DelayBuckets,
  source: string,
  q: number,
): number | undefined {
  const later = after.get(source) ?? [];
  const earlier = new Map((before.get(source) ?? []).map((b) => [b.le, b.count]));
  const counts = later.map((b) => ({ le: b.le, count: b.count - (earlier.get(b.le) ?? 0) }));
  const total = counts.at(-1)?.count ?? 0;
  if (total === 0) return undefined;
  const target = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of counts) {
    if (count >= target) {
      if (le === Infinity) return Infinity;
      return (lower + ((le - lower) * (target - below)) / Math.max(1, count - below)) * 1000;
    }
    lower = le;
    below = count;
  }
  return undefined;
}
