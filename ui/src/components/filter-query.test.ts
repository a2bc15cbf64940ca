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
    expect(filterQuery(FILTERS, { imsi: ' 001010000000001 ', direction: '' }, 'utc')).toEqual({
      imsi: '001010000000001',
    });
  });

  it('sends a time entered in the chosen zone as RFC 3339 UTC, and a date as typed', () => {
    const entered = '2026-11-22T10:15';
    expect(filterQuery(FILTERS, { timestamp_from: entered, start: '2026-11-22' }, 'local')).toEqual({
      timestamp_from: new Date(entered).toISOString(),
      start: '2026-11-22',
    });
    expect(filterQuery(FILTERS, { timestamp_from: entered }, 'utc')).toEqual({
      timestamp_from: '2026-11-22T10:15:00.000Z',
    });
  });

  it('sends an unreadable time as typed, for the service to refuse by name', () => {
    expect(filterQuery(FILTERS, { timestamp_from: 'yesterday' }, 'utc')).toEqual({
      timestamp_from: 'yesterday',
    });
  });
});
