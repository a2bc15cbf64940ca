/** A filter above a record list: its query parameter and how it is entered. */
export interface FilterSpec {
  name: string;
  label: string;
  kind: 'text' | 'select' | 'datetime' | 'date';
  options?: readonly string[];
}

/**
 * The query parameters of the filled filters. A `datetime` is entered in the browser's local time
 * (`datetime-local`, `2026-11-22T10:15`) and sent as RFC 3339 UTC, as the records API requires; a `date` is
 * sent as typed (`YYYY-MM-DD`). A value the browser cannot read as a time is sent as typed, so the
 * service's 400 names the filter.
 */
export function filterQuery(
  filters: readonly FilterSpec[],
  values: Record<string, string>,
): Record<string, string> {
  const query: Record<string, string> = {};
  for (const filter of filters) {
    const value = (values[filter.name] ?? '').trim();
    if (value === '') continue;
    if (filter.kind === 'datetime') {
      const time = new Date(value);
      query[filter.name] = Number.isNaN(time.getTime()) ? value : time.toISOString();
    } else {
      query[filter.name] = value;
    }
  }
  return query;
}
