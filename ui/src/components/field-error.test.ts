import { describe, expect, it } from 'vitest';
import { errorsOf, fieldOfError } from './field-error.ts';

describe('fieldOfError', () => {
  const fields = ['imsi', 'key', 'profile_name', 'ue-ip-pool'];

  it('names the field a message starts with', () => {
    expect(fieldOfError('imsi must be 15 digits', fields)).toBe('imsi');
    expect(fieldOfError('body/profile_name must be a string', fields)).toBe('profile_name');
    expect(fieldOfError('ue-ip-pool must be a CIDR', fields)).toBe('ue-ip-pool');
  });

  it('leaves messages about no field of the form to the form', () => {
    expect(fieldOfError('subscriber 001010000000001 already exists', fields)).toBeUndefined();
    expect(fieldOfError('profile default not found', fields)).toBeUndefined();
    expect(fieldOfError('', fields)).toBeUndefined();
  });
});

describe('errorsOf', () => {
  it('puts a message naming a field next to that field only', () => {
    const errors = errorsOf(new Error('mcc must match pattern'), ['mcc', 'mnc']);
    expect(errors.of('mcc')).toBe('mcc must match pattern');
    expect(errors.of('mnc')).toBeUndefined();
    expect(errors.form).toBeUndefined();
  });

  it('gives the form a message naming none of its fields, and nothing without an error', () => {
    const error = new Error('cannot change the operator while subscribers exist');
    expect(errorsOf(error, ['mcc']).form).toBe(error);
    expect(errorsOf(error, ['mcc']).of('mcc')).toBeUndefined();
    expect(errorsOf(null, ['mcc']).form).toBeNull();
  });
});
