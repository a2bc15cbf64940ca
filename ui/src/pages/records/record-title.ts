import { parseDetails } from '../../components/json-tree.ts';

/**
 * A record's title in words: what it is, the radio or subscriber it concerns and which way it went, and
 * when; `time` is the shown form of the record's time (components/time-format.ts).
 */
export function recordTitle(record: {
  what: string;
  direction: string;
  peer: string | undefined;
  time: string;
}): string {
  const way = record.direction === 'inbound' ? 'from' : 'to';
  const peer = record.peer ? ` ${way} ${record.peer}` : '';
  return `${record.what}${peer} · ${record.time}`;
}

/** The radio a radio event's details name (its name when the radio sent one), if any. */
export function radioOfDetails(details: string): string | undefined {
  const parsed = parseDetails(details);
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { radio, ran_id: ranId } = parsed as Record<string, unknown>;
  if (typeof radio === 'string' && radio !== '') return radio;
  return typeof ranId === 'string' && ranId !== '' ? ranId : undefined;
}

/** The distinct values of a field among records, sorted: the suggestions of a filter. */
export function distinct<T>(items: readonly T[] | undefined, field: (item: T) => string): string[] {
  return [...new Set((items ?? []).map(field).filter((value) => value !== ''))].sort();
}
