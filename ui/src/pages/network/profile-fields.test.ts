import { describe, expect, it } from 'vitest';
import { bodyOf, valuesOf } from '../../components/form-values.ts';
import { PROFILE_FIELDS } from './profile-fields.ts';

/** A profile as the single read answers it (GET /api/v1/profiles/{name}). */
const READ = {
  name: 'v6',
  'ue-ip-pool': '10.46.0.0/16',
  'ue-ipv6-pool': '2001:db8:45::/48',
  dns: '1.1.1.1',
  mtu: 1400,
  'bitrate-uplink': '100 Mbps',
  'bitrate-downlink': '200 Mbps',
  var5qi: 9,
  'priority-level': 90,
  'sms-allowed': false,
};

const without = (item: Record<string, unknown>, field: string) =>
  Object.fromEntries(Object.entries(item).filter(([name]) => name !== field));

describe('profile form', () => {
  it('shows the ue-ipv6-pool of the single read, and sends it back on edit', () => {
    const values = valuesOf(PROFILE_FIELDS, READ);
    expect(values['ue-ipv6-pool']).toBe('2001:db8:45::/48');
    expect(bodyOf(PROFILE_FIELDS, values, 'update')).toEqual(without(READ, 'name'));
  });

  it('leaves a blank ue-ipv6-pool out: an IPv4-only profile on create, the pool removed on edit', () => {
    const withoutPool = without(READ, 'ue-ipv6-pool');
    const values = { ...valuesOf(PROFILE_FIELDS, READ), 'ue-ipv6-pool': ' ' };
    expect(bodyOf(PROFILE_FIELDS, values, 'create')).toEqual(withoutPool);
    expect(valuesOf(PROFILE_FIELDS, withoutPool)['ue-ipv6-pool']).toBe('');
  });
});
