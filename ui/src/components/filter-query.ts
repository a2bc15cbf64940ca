import { parseInputTime, type Zone } from './time-format.ts';

/**
 * A filter above a record list: its query parameter and how it is entered. `suggest` is free text with a
 * list of likely values (radios, subscribers, message types seen), since a record may name one that is
 * gone from the list.
 */
export interface FilterSpec {
  name: string;
  label: string;
  kind: 'text' | 'select' | 'suggest' | 'datetime' | 'date';
  options?: readonly string[];
}

/**
 * The query parameters of the filled filters. A `datetime` is entered in the zone the operator chose for
 * times (`datetime-local`, `2026-11-22T10:15`) and sent as RFC 3339 UTC, as the records API requires; a
 * `date` is sent as typed (`YYYY-MM-DD`). A value that is not such a time is sent as typed, so the
 * service's 400 names the filter.
 */
export function filterQuery(
  filters: readonly FilterSpec[],
  values: Record<string, string>,
  zone: Zone,
): Record<string, string> {
  const query: Record<string, string> = {};
  for (const filter of filters) {
    const value = (values[filter.name] ?? '').trim();
    if (value === '') continue;
    query[filter.name] = filter.kind === 'datetime' ? (parseInputTime(value, zone) ?? value) : value;
  }
  return query;
}
