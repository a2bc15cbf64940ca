import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { created, errorOf, newPolicy, newSlice } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let token: string;

/** A fresh app for the enclosing describe, so that each test runs alone; `setUp` adds what it shares. */
function freshApp(setUp: () => Promise<void> = async () => {}): void {
  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
    await setUp();
  });
  after(() => t.close());
}

describe('GET /api/v1/slices', () => {
  freshApp();

  it('lists slices by name, paginated, with the first-start slice default (sst 1, no sd)', async () => {
    await created(t, token, '/api/v1/slices', newSlice('a-slice'));
    const response = await t.request({ method: 'GET', url: '/api/v1/slices?per_page=1&page=2', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), {
      items: [{ name: 'default', sst: 1 }],
      page: 2,
      per_page: 1,
      total_count: 2,
    });
  });

  it('refuses per_page above 100', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/slices?per_page=101', token });
    assert.match(errorOf(response, 400), /per_page/);
  });
});

describe('POST /api/v1/slices', () => {
  freshApp();

  it('creates a slice (201), stores sd in lower case and audits create_slice', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/slices',
      token,
      payload: newSlice('video', { sst: 2, sd: 'ABCDEF' }),
    });
    assert.equal(response.statusCode, 201);
    assert.deepEqual(result(response), { message: 'slice video created' });
    const read = await t.request({ method: 'GET', url: '/api/v1/slices/video', token });
    assert.deepEqual(result(read), { name: 'video', sst: 2, sd: 'abcdef' });
    const [entry] = await auditEntries(t, token);
    assert.equal(entry?.action, 'create_slice');
    assert.equal(entry?.details, 'Slice video created (sst 2, sd abcdef)');
  });

  it('accepts sst 0 and 255, the ends of its range', async () => {
    await created(t, token, '/api/v1/slices', newSlice('sst-low', { sst: 0 }));
    await created(t, token, '/api/v1/slices', newSlice('sst-high', { sst: 255 }));
  });

  it('refuses a duplicate name with 409', async () => {
    await created(t, token, '/api/v1/slices', newSlice('twice'));
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/slices',
      token,
      payload: newSlice('twice'),
    });
    assert.equal(errorOf(response, 409), 'slice twice already exists');
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['sst above 255', { sst: 256 }, /^sst must be an integer 0\.\.255$/],
    ['negative sst', { sst: -1 }, /^sst must be an integer 0\.\.255$/],
    ['sst as a string', { sst: '1' }, /^sst /],
    ['sd of 5 hex characters', { sd: '01020' }, /^sd must be 6 hexadecimal characters$/],
    ['sd with a non-hex character', { sd: '01020g' }, /^sd must be 6 hexadecimal characters$/],
    ['sd with a 0x prefix', { sd: '0x010203' }, /^sd must be 6 hexadecimal characters$/],
    ['an empty name', { name: '' }, /^name must be 1 to 64 characters/],
    ['a name of 65 characters', { name: 'n'.repeat(65) }, /^name must be 1 to 64 characters/],
    ['a name with a space', { name: 'a b' }, /^name must be 1 to 64 characters/],
    ['an unknown field', { colour: 'red' }, /^unknown field "colour"$/],
  ];
  for (const [rule, change, message] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      const payload = { ...newSlice('checked'), ...change };
      const response = await t.request({ method: 'POST', url: '/api/v1/slices', token, payload });
      assert.match(errorOf(response, 400), message);
    });
  }

  it('refuses a missing sst with 400', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/slices',
      token,
      payload: { name: 'x' },
    });
    assert.equal(errorOf(response, 400), 'sst is required');
  });
});

describe('GET /api/v1/slices/{name}', () => {
  freshApp();

  it('answers 404 for an unknown slice', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/slices/nothing', token });
    assert.equal(errorOf(response, 404), 'slice nothing not found');
  });
});

describe('PUT /api/v1/slices/{name}', () => {
  freshApp(() => created(t, token, '/api/v1/slices', newSlice('kept')));

  it('replaces sst and sd; an absent sd removes it; audits update_slice', async () => {
    await created(t, token, '/api/v1/slices', newSlice('replace-me'));
    const response = await t.request({
      method: 'PUT',
      url: '/api/v1/slices/replace-me',
      token,
      payload: { sst: 3 },
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'slice replace-me updated' });
    const read = await t.request({ method: 'GET', url: '/api/v1/slices/replace-me', token });
    assert.deepEqual(result(read), { name: 'replace-me', sst: 3 });
    assert.equal((await auditEntries(t, token))[0]?.action, 'update_slice');
  });

  it('applies the create rules: sd must be 6 hex characters', async () => {
    const response = await t.request({
      method: 'PUT',
      url: '/api/v1/slices/kept',
      token,
      payload: { sst: 1, sd: 'xyz' },
    });
    assert.equal(errorOf(response, 400), 'sd must be 6 hexadecimal characters');
  });

  it('refuses a name in the body: the name is in the path', async () => {
    const response = await t.request({
      method: 'PUT',
      url: '/api/v1/slices/kept',
      token,
      payload: { name: 'other', sst: 1 },
    });
    assert.equal(errorOf(response, 400), 'unknown field "name"');
  });

  it('answers 404 for an unknown slice', async () => {
    const response = await t.request({
      method: 'PUT',
      url: '/api/v1/slices/nothing',
      token,
      payload: { sst: 1 },
    });
    assert.equal(errorOf(response, 404), 'slice nothing not found');
  });
});

describe('DELETE /api/v1/slices/{name}', () => {
  freshApp();

  it('deletes an unreferenced slice and audits delete_slice', async () => {
    await created(t, token, '/api/v1/slices', newSlice('short-lived'));
    const response = await t.request({ method: 'DELETE', url: '/api/v1/slices/short-lived', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: 'slice short-lived deleted' });
    const read = await t.request({ method: 'GET', url: '/api/v1/slices/short-lived', token });
    assert.equal(read.statusCode, 404);
    const [entry] = await auditEntries(t, token);
    assert.deepEqual([entry?.action, entry?.details], ['delete_slice', 'Slice short-lived deleted']);
  });

  it('refuses with 409 naming the policies that reference the slice', async () => {
    await created(t, token, '/api/v1/slices', newSlice('held'));
    await created(t, token, '/api/v1/policies', newPolicy('holder-b', { slice_name: 'held' }));
    await created(t, token, '/api/v1/policies', newPolicy('holder-a', { slice_name: 'held' }));
    const response = await t.request({ method: 'DELETE', url: '/api/v1/slices/held', token });
    assert.equal(
      errorOf(response, 409),
      'cannot delete slice held: it is used by policies holder-a, holder-b',
    );
  });

  it('answers 404 for an unknown slice', async () => {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/slices/nothing', token });
    assert.equal(errorOf(response, 404), 'slice nothing not found');
  });
});
