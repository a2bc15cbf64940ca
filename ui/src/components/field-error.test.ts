import { describe, expect, it } from 'vitest';
import { fieldOfError } from './field-error.ts';

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
