/**
 * The value of an unlabelled sample in the Prometheus text exposition format (version 0.0.4), as
 * `GET /api/v1/metrics` answers: `name value [timestamp]` lines, `#` lines being help and type. Undefined
 * when the metric is absent or its value is not a number.
 */
export function sampleValue(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const [metric, value] = line.trim().split(/\s+/);
    if (metric !== name || value === undefined) continue;
    const number = Number(value);
    return Number.isFinite(number) ? number : undefined;
  }
  return undefined;
}
