import { describe, expect, it } from 'vitest';
import { importContentType, rowErrorsOf } from './import-errors.ts';

describe('rowErrorsOf', () => {
  it('reads each refused row and its reason from the service message', () => {
    const message =
      '2 of 3 rows cannot be imported, so none was: row 1: imsi 001010000000001 repeats row 0; ' +
      'row 3: profile_name: profile gold not found';
    expect(rowErrorsOf(message)).toEqual([
      { row: 1, reason: 'imsi 001010000000001 repeats row 0' },
      { row: 3, reason: 'profile_name: profile gold not found' },
    ]);
  });

  it('keeps a reason that itself holds a semicolon whole', () => {
    expect(rowErrorsOf('1 of 1 rows cannot be imported, so none was: row 1: key is bad; opc is bad')).toEqual(
      [{ row: 1, reason: 'key is bad; opc is bad' }],
    );
  });

  it('finds no rows in a message about the whole import', () => {
    expect(rowErrorsOf('an import holds 1 to 10000 subscribers, got 0')).toEqual([]);
    expect(rowErrorsOf('CSV header lacks the column key')).toEqual([]);
  });
});

describe('importContentType', () => {
  it('goes by the file name, then by the first character', () => {
    expect(importContentType('subscribers.json', 'imsi,key')).toBe('application/json');
    expect(importContentType('subscribers.CSV', '[')).toBe('text/csv');
    expect(importContentType('pasted', '  [{"imsi": "001010000000001"}]')).toBe('application/json');
    expect(importContentType('pasted', 'imsi,key,sequenceNumber,profile_name')).toBe('text/csv');
  });
});
