import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { clientKey, createConnectionShare, type SharedConnection } from '../../src/http/connection-share.ts';
import { connectionCapacity, openFileLimit } from '../../src/http/descriptor-limit.ts';

// Issue 28, finding 7: four addresses filling the connections (or the descriptors) shut everyone else out.

function connection(client: string, closedOnes: string[], name = client): SharedConnection {
  return { client, busy: 0, close: () => closedOnes.push(name) };
}

describe('connection share', () => {
  it('admits a new client into a full share by evicting the oldest idle connection of the largest', () => {
    const closedOnes: string[] = [];
    const share = createConnectionShare({ capacity: 6, perClient: 6 });
    const a = ['a1', 'a2', 'a3'].map((name) => connection('a', closedOnes, name));
    for (const held of a) assert.deepEqual(share.admit(held), { admitted: true });
    for (const name of ['b1', 'b2', 'b3']) share.admit(connection('b', closedOnes, name));
    // a1 is busy answering a request: a2 is the oldest idle one.
    (a[0] as SharedConnection).busy = 1;
    assert.deepEqual(share.admit(connection('c', closedOnes)), { admitted: true });
    assert.deepEqual(closedOnes, ['a2']);
    assert.equal(share.size, 6);
  });

  it('refuses a client already at its share of a full share', () => {
    const closedOnes: string[] = [];
    const share = createConnectionShare({ capacity: 4, perClient: 4 });
    for (const client of ['a', 'a', 'b', 'b']) share.admit(connection(client, closedOnes));
    assert.deepEqual(share.admit(connection('a', closedOnes)), { admitted: false, reason: 'over share' });
    assert.deepEqual(closedOnes, []);
  });

  it('admits every new client while there are fewer clients than connections', () => {
    const closedOnes: string[] = [];
    const share = createConnectionShare({ capacity: 8, perClient: 8 });
    // Four attackers keep asking for more; each new client still gets in, down to one connection each.
    for (let round = 0; round < 8; round++)
      for (const client of ['a', 'b', 'c', 'd']) share.admit(connection(client, closedOnes));
    for (const client of ['e', 'f', 'g', 'h'])
      assert.deepEqual(share.admit(connection(client, closedOnes)), { admitted: true }, client);
    assert.equal(share.size, 8);
    assert.deepEqual(share.admit(connection('i', closedOnes)), { admitted: false, reason: 'over share' });
  });

  it('refuses beyond the per-client cap even with room, and frees a slot on release', () => {
    const share = createConnectionShare({ capacity: 10, perClient: 2 });
    const held = [connection('a', []), connection('a', [])];
    for (const one of held) share.admit(one);
    assert.deepEqual(share.admit(connection('a', [])), { admitted: false, reason: 'client cap' });
    share.release(held[0] as SharedConnection);
    share.release(held[0] as SharedConnection);
    assert.equal(share.size, 1);
    assert.deepEqual(share.admit(connection('a', [])), { admitted: true });
  });

  it('counts an IPv6 /64 as one client, and an IPv4-mapped address as its IPv4 address', () => {
    assert.equal(clientKey('2001:db8:0:1::5'), '2001:db8:0:1::/64');
    assert.equal(clientKey('2001:0db8:0000:0001:ffff:0:0:9'), '2001:db8:0:1::/64');
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    assert.equal(clientKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(clientKey('192.0.2.7'), '192.0.2.7');
  });
});

describe('descriptor limit', () => {
  it('keeps a quarter of the descriptors for everything else', () => {
    assert.equal(connectionCapacity(4096, 1024), 768);
    assert.equal(connectionCapacity(4096, 65536), 4096);
    assert.equal(connectionCapacity(4096, undefined), 4096);
  });

  it('reads the soft open-file limit from /proc', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmn-limits-'));
    const file = join(dir, 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units     \n' +
        'Max processes             63504                63504                processes \n' +
        'Max open files            1024                 4096                 files     \n',
    );
    assert.equal(openFileLimit(file), 1024);
    assert.equal(openFileLimit(join(dir, 'absent')), undefined);
    rmSync(dir, { recursive: true });
  });
});
