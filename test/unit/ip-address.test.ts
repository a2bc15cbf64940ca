import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalIp, parseEndpointFilter } from '../../src/validation/ip-address.ts';

describe('canonicalIp', () => {
  it('writes IPv6 in the RFC 5952 form and keeps IPv4 as it is', () => {
    assert.equal(canonicalIp('2001:0DB8:0000:0000:0000:0000:0000:0001'), '2001:db8::1');
    assert.equal(canonicalIp('2001:db8:0:1:0:0:0:1'), '2001:db8:0:1::1');
    assert.equal(canonicalIp('::'), '::');
    assert.equal(canonicalIp('192.0.2.1'), '192.0.2.1');
  });

  it('answers undefined for what is not an address', () => {
    for (const value of ['192.0.2', '192.0.2.256', 'fe80::1%eth0', 'example.com', '']) {
      assert.equal(canonicalIp(value), undefined, value);
    }
  });
});

describe('parseEndpointFilter', () => {
  it('reads IP, IP:port, [IPv6]:port and :port', () => {
    assert.deepEqual(parseEndpointFilter('192.0.2.1', 'source'), { ip: '192.0.2.1' });
    assert.deepEqual(parseEndpointFilter('192.0.2.1:443', 'source'), { ip: '192.0.2.1', port: 443 });
    assert.deepEqual(parseEndpointFilter('[2001:DB8::1]:53', 'source'), { ip: '2001:db8::1', port: 53 });
    assert.deepEqual(parseEndpointFilter('2001:db8::1', 'source'), { ip: '2001:db8::1' });
    assert.deepEqual(parseEndpointFilter('::1', 'source'), { ip: '::1' });
    assert.deepEqual(parseEndpointFilter(':0', 'source'), { port: 0 });
    assert.deepEqual(parseEndpointFilter(':65535', 'source'), { port: 65535 });
  });

  it('refuses other forms, naming the parameter', () => {
    for (const value of ['192.0.2.1:', '[192.0.2.1]:80', '[2001:db8::1]', 'host:80', ':', '::1:80:x']) {
      assert.throws(() => parseEndpointFilter(value, 'destination'), /^InvalidError: destination must be/);
    }
    assert.throws(() => parseEndpointFilter(':65536', 'source'), { message: 'source port must be 0..65535' });
  });
});
