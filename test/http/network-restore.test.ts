import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { restoreBackup, takeBackup } from '../helpers/backup.ts';
import { imsi, newSubscriber } from '../helpers/network.ts';
import { createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

// What the network configuration keeps in memory must follow a restore of the database.
let dir: string;
let t: TestApp;
let token: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pmn-network-restore-'));
  t = await createTestApp({ database: join(dir, 'core.db') });
  token = await initialize(t);
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

async function importSubscribers(numbers: number[]): Promise<void> {
  const payload = numbers.map((n) => newSubscriber(n));
  const response = await t.request({ method: 'POST', url: '/api/v1/subscribers/import', token, payload });
  assert.equal(response.statusCode, 201, response.body);
}

async function pageImsis(page: number): Promise<string[]> {
  const response = await t.request({
    method: 'GET',
    url: `/api/v1/subscribers?per_page=100&page=${page}`,
    token,
  });
  return result<{ items: { imsi: string }[] }>(response).items.map((item) => item.imsi);
}

describe('POST /api/v1/restore: network configuration', () => {
  it('serves the subscriber pages of the restored database, even with the same number of subscribers', async () => {
    await importSubscribers(Array.from({ length: 1000 }, (_, i) => i * 2));
    const saved = await takeBackup(t, token);
    const before = await pageImsis(8);
    // Same count, other IMSIs: the remembered positions of the list no longer fit.
    for (let n = 0; n < 200; n += 2) {
      await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(n)}`, token });
    }
    await importSubscribers(Array.from({ length: 100 }, (_, i) => 5001 + i * 2));
    assert.notDeepEqual(await pageImsis(8), before);
    await restoreBackup(t, token, saved);
    assert.deepEqual(await pageImsis(8), before);
  });

  it('creates the first-start defaults in a restored database that predates them', async () => {
    const path = join(dir, 'old.db');
    writeFileSync(path, await takeBackup(t, token));
    const old = new SQLite(path);
    for (const table of ['subscribers', 'policies', 'profiles', 'slices', 'data_networks', 'operator']) {
      old.prepare(`DELETE FROM ${table}`).run();
    }
    old.close();
    await restoreBackup(t, token, readFileSync(path));
    const operator = await t.request({ method: 'GET', url: '/api/v1/operator', token });
    assert.deepEqual(result(operator).id, { mcc: '001', mnc: '01' });
    const policy = await t.request({ method: 'GET', url: '/api/v1/policies/default', token });
    assert.equal(result(policy).data_network_name, 'internet');
  });
});
