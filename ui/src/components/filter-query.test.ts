import { describe, expect, it } from 'vitest';
import { filterQuery, type FilterSpec } from './filter-query.ts';

const FILTERS: FilterSpec[] = [
  { name: 'imsi', label: 'IMSI', kind: 'text' },
  { name: 'direction', label: 'Direction', kind: 'select', options: ['inbound', 'outbound'] },
  { name: 'timestamp_from', label: 'From', kind: 'datetime' },
  { name: 'start', label: 'Start', kind: 'date' },
];

describe('filterQuery', () => {
  it('leaves empty filters out and trims the others', () => {
    expect(filterQuery(FILTERS, { imsi: ' 001010000000001 ', direction: '' })).toEqual({
      imsi: '001010000000001',
    });
  });

  it('sends a local time as RFC 3339 UTC and a date as typed', () => {
    const local = '2026-11-22T10:15';
    expect(filterQuery(FILTERS, { timestamp_from: local, start: '2026-11-22' })).toEqual({
      timestamp_from: new Date(local).toISOString(),
      start: '2026-11-22',
    });
    expect(filterQuery(FILTERS, { timestamp_from: local }).timestamp_from).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/,
    );
  });

  it('sends an unreadable time as typed, for the service to refuse by name', () => {
    expect(filterQuery(FILTERS, { timestamp_from: 'yesterday' })).toEqual({ timestamp_from: 'yesterday' });
  });
});
