import { describe, expect, it } from 'vitest';
import { abilitiesOf } from './roles.ts';

describe('abilities by role (decisions section 4)', () => {
  it('gives the admin everything', () => {
    expect(Object.values(abilitiesOf(1)).every(Boolean)).toBe(true);
  });

  it('gives the read-only role no write and no credentials, users or audit', () => {
    expect(Object.values(abilitiesOf(2)).some(Boolean)).toBe(false);
  });

  it('gives the network manager the network, records, credentials and location, but not users, audit or backup', () => {
    const manager = abilitiesOf(3);
    expect(manager).toMatchObject({
      writeNetwork: true,
      readCredentials: true,
      writeRecords: true,
      readUsers: true,
      writeLocation: true,
      manageUsers: false,
      readAudit: false,
      backup: false,
    });
  });

  it('gives an unknown role nothing', () => {
    expect(Object.values(abilitiesOf(9)).some(Boolean)).toBe(false);
  });
});
