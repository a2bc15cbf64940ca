/** One sample of the live figures the dashboard charts: when, and the counts then. */
export interface LiveSample {
  /** Milliseconds since the epoch, when the service answered. */
  at: number;
  registered: number;
  sessions: number;
}

/** Ten minutes of samples at the dashboard's 10-second refresh. */
export const LIVE_SAMPLES = 60;

/**
 * The series with `sample` added at its end, keeping the last `limit` samples. A sample not newer than the
 * last one (the same answer seen twice, a clock step back) replaces nothing and is left out.
 */
export function appendSample(
  series: readonly LiveSample[],
  sample: LiveSample,
  limit = LIVE_SAMPLES,
): LiveSample[] {
  const last = series.at(-1);
  if (last && sample.at <= last.at) return [...series];
  return [...series, sample].slice(-limit);
}
