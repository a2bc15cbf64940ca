import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { created, imsi, newSubscriber } from '../helpers/network.ts';
import { createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

// Deep pages of the unfiltered list start from remembered positions (list-positions.ts) rather than a
// plain OFFSET; whatever happens to the table, every page must hold exactly the rows OFFSET would give.
let t: TestApp;
let token: string;
let expected: string[] = [];
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
  const numbers = Array.from({ length: 1200 }, (_, i) => i * 3);
  const response = await t.request({
    method: 'POST',
    url: '/api/v1/subscribers/import',
    token,
    payload: numbers.map((n) => newSubscriber(n)),
  });
  assert.equal(response.statusCode, 201, response.body);
  expected = numbers.map(imsi);
});
after(() => t.close());

async function assertEveryPage(perPage: number): Promise<void> {
  const pages = Math.ceil(expected.length / perPage);
  for (let page = pages; page >= 1; page--) {
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers?per_page=${perPage}&page=${page}`,
      token,
    });
    const body = result<{ items: { imsi: string }[]; total_count: number }>(response);
    assert.equal(body.total_count, expected.length);
    assert.deepEqual(
      body.items.map((item) => item.imsi),
      expected.slice((page - 1) * perPage, page * perPage),
      `page ${page} of ${perPage}`,
    );
  }
}

describe('GET /api/v1/subscribers: deep pages', () => {
  it('gives every page of 1,200 subscribers in IMSI order', async () => {
    await assertEveryPage(100);
    await assertEveryPage(7);
  });

  it('stays exact after subscribers are created between existing ones', async () => {
    for (const n of [1, 400, 401, 2000, 3598]) {
      await created(t, token, '/api/v1/subscribers', newSubscriber(n));
      expected.push(imsi(n));
    }
    expected.sort();
    await assertEveryPage(100);
  });

  it('stays exact after subscribers are deleted, including ones a page starts from', async () => {
    // Positions 0, 256, 512 and 768 are where the remembered anchors sit.
    for (const target of [expected[0], expected[256], expected[512], expected[768], expected[1000]]) {
      const response = await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${target}`, token });
      assert.equal(response.statusCode, 200);
      expected = expected.filter((value) => value !== target);
    }
    await assertEveryPage(100);
  });

  it('stays exact after an import', async () => {
    const numbers = Array.from({ length: 300 }, (_, i) => (1000 + i) * 3 + 2);
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload: numbers.map((n) => newSubscriber(n)),
    });
    assert.equal(response.statusCode, 201, response.body);
    expected = [...expected, ...numbers.map(imsi)].sort();
    await assertEveryPage(100);
  });

  it('stays exact after rows change behind its back', async () => {
    await t.db
      .deleteFrom('subscribers')
      .where('imsi', '=', expected[300] as string)
      .execute();
    expected.splice(300, 1);
    await assertEveryPage(100);
  });
});
