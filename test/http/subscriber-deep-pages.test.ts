import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { imsi, newSubscriber } from '../helpers/network.ts';
import { createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

// Deep pages of a list longer than one walk of the list positions (8,192 rows): the anchors are filled
// by several walks, between which other requests run, and every page must equal what a plain ORDER BY
// with OFFSET gives on the same table.
const SUBSCRIBERS = 40_000;
const PER_PAGE = 100;

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
  const profile = await t.db
    .selectFrom('profiles')
    .select('id')
    .where('name', '=', 'default')
    .executeTakeFirstOrThrow();
  // Inserted by SQL, as rows the service did not write itself: every fourth IMSI, leaving room between.
  for (let start = 0; start < SUBSCRIBERS; start += 1000) {
    await t.db
      .insertInto('subscribers')
      .values(
        Array.from({ length: 1000 }, (_, i) => ({
          imsi: imsi((start + i) * 4),
          profile_id: profile.id,
          key_sealed: 'unused by lists',
          opc_sealed: 'unused by lists',
          sequence_number: '000000000001',
          created_at: 0,
        })),
      )
      .execute();
  }
});
after(() => t.close());

/** The page as a plain query on the table gives it. */
async function naivePage(page: number): Promise<string[]> {
  const rows = await t.db
    .selectFrom('subscribers')
    .select('imsi')
    .orderBy('imsi')
    .limit(PER_PAGE)
    .offset((page - 1) * PER_PAGE)
    .execute();
  return rows.map((row) => row.imsi);
}

async function servedPage(page: number): Promise<{ imsis: string[]; total: number }> {
  const response = await t.request({
    method: 'GET',
    url: `/api/v1/subscribers?per_page=${PER_PAGE}&page=${page}`,
    token,
  });
  const body = result<{ items: { imsi: string }[]; total_count: number }>(response);
  return { imsis: body.items.map((item) => item.imsi), total: body.total_count };
}

async function assertPagesMatch(pages: number[]): Promise<void> {
  const { count } = await t.db
    .selectFrom('subscribers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  for (const page of pages) {
    const served = await servedPage(page);
    assert.equal(served.total, Number(count), `total on page ${page}`);
    assert.deepEqual(served.imsis, await naivePage(page), `page ${page}`);
  }
}

const lastPage = () => Math.ceil(SUBSCRIBERS / PER_PAGE);
const SAMPLED = [400, 1, 2, 57, 164, 165, 200, 329, 330, 399, 401];

describe('GET /api/v1/subscribers: deep pages beyond one walk', () => {
  it('answers the last page first, then every sampled page, as a plain OFFSET would', async () => {
    await assertPagesMatch([lastPage(), ...SAMPLED]);
  });

  it('stays exact when creates and deletes run while a deep page fills its positions', async () => {
    t.core.networkConfiguration.subscribers.forgetListPositions();
    const writes = [
      ...Array.from({ length: 30 }, (_, i) =>
        t.request({
          method: 'POST',
          url: '/api/v1/subscribers',
          token,
          payload: newSubscriber(i * 4000 + 1),
        }),
      ),
      ...Array.from({ length: 30 }, (_, i) =>
        t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(i * 5000 + 8)}`, token }),
      ),
    ];
    const [deep] = await Promise.all([servedPage(lastPage()), ...writes]);
    for (const write of await Promise.all(writes)) assert.ok(write.statusCode < 300, write.body);
    // Taken while rows came and went, the page is one of the list's states: a run of consecutive IMSIs.
    assert.ok(
      deep.imsis.length > 0 &&
        deep.imsis.every((value, i) => i === 0 || value > (deep.imsis[i - 1] as string)),
    );
    await assertPagesMatch([lastPage(), ...SAMPLED]);
  });

  it('stays exact when rows are written by another process after the anchors were filled', async () => {
    await assertPagesMatch([lastPage(), ...SAMPLED]);
    const profile = await t.db
      .selectFrom('profiles')
      .select('id')
      .where('name', '=', 'default')
      .executeTakeFirstOrThrow();
    // Between existing IMSIs, before most anchors: every page after the first moves by these rows.
    await t.db
      .insertInto('subscribers')
      .values(
        Array.from({ length: 7 }, (_, i) => ({
          imsi: imsi(i * 16 + 2),
          profile_id: profile.id,
          key_sealed: 'unused by lists',
          opc_sealed: 'unused by lists',
          sequence_number: '000000000001',
          created_at: 0,
        })),
      )
      .execute();
    await assertPagesMatch([lastPage(), ...SAMPLED]);
    await t.db
      .deleteFrom('subscribers')
      .where('imsi', 'in', [imsi(2), imsi(18), imsi(400)])
      .execute();
    await assertPagesMatch([lastPage(), ...SAMPLED]);
  });

  it('stays exact after an import that sorts after every existing subscriber', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload: Array.from({ length: 500 }, (_, i) => newSubscriber(SUBSCRIBERS * 4 + i)),
    });
    assert.equal(response.statusCode, 201, response.body);
    await assertPagesMatch([lastPage() + 5, lastPage() + 4, lastPage() + 1, lastPage(), 200]);
  });
});
