import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCsvRecords, parseSubscriberCsv } from '../../src/resources/subscribers/subscriber-csv.ts';

describe('parseCsvRecords', () => {
  it('splits records on LF and CRLF and fields on commas', () => {
    assert.deepEqual(parseCsvRecords('a,b\r\nc,d\ne,f'), [
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks inside (RFC 4180)', () => {
    assert.deepEqual(parseCsvRecords('"a,1","say ""hi""","two\nlines"\n'), [
      ['a,1', 'say "hi"', 'two\nlines'],
    ]);
  });

  it('keeps empty fields and skips blank lines', () => {
    assert.deepEqual(parseCsvRecords('a,,c\n\n,\n'), [
      ['a', '', 'c'],
      ['', ''],
    ]);
  });

  it('ignores a leading byte order mark', () => {
    assert.deepEqual(parseCsvRecords('\ufeffa,b'), [['a', 'b']]);
  });

  it('refuses a quoted field that never ends', () => {
    assert.throws(() => parseCsvRecords('"abc\n'), { message: 'CSV has a quoted field that never ends' });
  });
});

describe('parseSubscriberCsv', () => {
  it('maps each record to an object keyed by the header; an empty opc cell is left out', () => {
    assert.deepEqual(
      parseSubscriberCsv(' imsi ,key,sequenceNumber,profile_name,opc\n1,2,3,4,\n5,6,7,8,9\n'),
      [
        { imsi: '1', key: '2', sequenceNumber: '3', profile_name: '4' },
        { imsi: '5', key: '6', sequenceNumber: '7', profile_name: '8', opc: '9' },
      ],
    );
  });

  it('refuses a header naming a column twice', () => {
    assert.throws(() => parseSubscriberCsv('imsi,imsi,key,sequenceNumber,profile_name\n'), {
      message: 'CSV header names a column twice',
    });
  });

  it('refuses empty text', () => {
    assert.throws(() => parseSubscriberCsv(''), {
      message: 'CSV is empty: it needs a header row and at least one subscriber',
    });
  });
});
