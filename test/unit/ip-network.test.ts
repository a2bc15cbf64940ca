import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCidrNetwork, isIpAddress } from '../../src/validation/ip-network.ts';

describe('isIpAddress', () => {
  it('accepts IPv4 and IPv6 addresses', () => {
    for (const value of ['8.8.8.8', '2001:4860:4860::8888', '::1', '::ffff:10.0.0.1']) {
      assert.equal(isIpAddress(value), true, value);
    }
  });

  it('refuses names, prefixes, zone ids and malformed addresses', () => {
    for (const value of [
      'dns.google',
      '8.8.8.8/32',
      '256.1.1.1',
      '1.2.3',
      '',
      '2001:db8::g',
      'fe80::1%eth0',
    ]) {
      assert.equal(isIpAddress(value), false, value);
    }
  });
});

describe('isCidrNetwork', () => {
  it('accepts networks of either family with no host bits set', () => {
    for (const value of [
      '10.45.0.0/16',
      '0.0.0.0/0',
      '192.168.1.128/25',
      '10.0.0.1/32',
      '2001:db8::/32',
      '2001:db8:1:2::/64',
      '::/0',
      '::ffff:10.0.0.0/120',
    ]) {
      assert.equal(isCidrNetwork(value), true, value);
    }
  });

  it('refuses host bits, out-of-range or padded prefixes, zone ids and non-addresses', () => {
    for (const value of [
      'fe80::%eth0/64',
      'fe80::1%eth0/128',
      '10.45.0.1/16',
      '10.45.0.0/33',
      '10.45.0.0/016',
      '10.45.0.0',
      '10.45.0.0/',
      'pool/16',
      '2001:db8::1/64',
      '2001:db8::/129',
      '10.45.0.0/16/1',
    ]) {
      assert.equal(isCidrNetwork(value), false, value);
    }
  });
});
