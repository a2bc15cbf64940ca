import { describe, expect, it } from 'vitest';
import { bodyOf, valuesOf, type FieldSpec } from './form-values.ts';

const SLICE: FieldSpec[] = [
  { name: 'name', label: 'Name', kind: 'text', required: true, createOnly: true },
  { name: 'sst', label: 'SST', kind: 'integer', required: true },
  { name: 'sd', label: 'SD', kind: 'text' },
];

describe('resource form values', () => {
  it('reads an existing resource as text, and a new one as empty text', () => {
    expect(valuesOf(SLICE, { name: 'video', sst: 1, sd: '0000ff' })).toEqual({
      name: 'video',
      sst: '1',
      sd: '0000ff',
    });
    expect(valuesOf(SLICE)).toEqual({ name: '', sst: '', sd: '' });
    expect(valuesOf(SLICE, { name: 'x', sst: 2 })).toEqual({ name: 'x', sst: '2', sd: '' });
  });

  it('sends integers as numbers and leaves blank optional fields out', () => {
    expect(bodyOf(SLICE, { name: ' video ', sst: '1', sd: '' }, 'create')).toEqual({ name: 'video', sst: 1 });
  });

  it('leaves the path key out of an update', () => {
    expect(bodyOf(SLICE, { name: 'video', sst: '2', sd: 'abcdef' }, 'update')).toEqual({
      sst: 2,
      sd: 'abcdef',
    });
  });

  it('sends what is not a number as typed, so the service names the field', () => {
    expect(bodyOf(SLICE, { name: 'a', sst: '12a', sd: '' }, 'create')).toEqual({ name: 'a', sst: '12a' });
    expect(bodyOf(SLICE, { name: 'a', sst: '', sd: '' }, 'create')).toEqual({ name: 'a', sst: '' });
  });

  it('reads a boolean as text, starts a new one at its initial value and always sends it as a boolean', () => {
    const fields: FieldSpec[] = [
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'sms-allowed', label: 'SMS', kind: 'boolean', initial: 'true' },
    ];
    expect(valuesOf(fields)).toEqual({ name: '', 'sms-allowed': 'true' });
    expect(valuesOf(fields, { name: 'p', 'sms-allowed': false })).toEqual({
      name: 'p',
      'sms-allowed': 'false',
    });
    // PUT replaces the resource: an unset boolean would fall back to its default, so it is always sent.
    expect(bodyOf(fields, { name: 'p', 'sms-allowed': 'false' }, 'update')).toEqual({
      name: 'p',
      'sms-allowed': false,
    });
    expect(bodyOf(fields, { name: 'p', 'sms-allowed': 'true' }, 'create')).toEqual({
      name: 'p',
      'sms-allowed': true,
    });
  });
});
