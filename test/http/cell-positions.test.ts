import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorOf, omit } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
after(() => t.close());

let nextCell = 0x100;
/** A valid NR cell position body with a cell identity no other test uses. */
const newCell = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  rat: 'nr',
  mcc: '001',
  mnc: '01',
  cell_identity: (nextCell++).toString(16).padStart(9, '0'),
  latitude: 48.137154,
  longitude: 11.576124,
  ...overrides,
});

const post = (payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/beta/cell-positions', token, payload });

async function create(payload: Record<string, unknown>): Promise<string> {
  const response = await post(payload);
  assert.equal(response.statusCode, 201, response.body);
  return result<{ id: string }>(response).id;
}

const get = (id: string) => t.request({ method: 'GET', url: `/api/beta/cell-positions/${id}`, token });

/** Each field with a value it refuses and the 400 message that names it. */
const INVALID: [string, unknown, string][] = [
  ['rat', 'lte', 'rat must be one of nr, eutra'],
  ['mcc', '01', 'mcc must be 3 digits'],
  ['mcc', 1, 'mcc must be 3 digits'],
  ['mnc', '1', 'mnc must be 2 or 3 digits'],
  ['mnc', '0101', 'mnc must be 2 or 3 digits'],
  [
    'cell_identity',
    '00000001g',
    'cell_identity must be hexadecimal: 9 digits (NCI) for nr, 7 digits (ECI) for eutra',
  ],
  ['cell_identity', '0000001', 'cell_identity must be 9 hexadecimal digits for rat nr'],
  ['cell_identity', '', 'cell_identity must be hexadecimal: 9 digits (NCI) for nr, 7 digits (ECI) for eutra'],
  ['gnb_id', 'g1', 'gnb_id must be 1 to 8 hexadecimal characters'],
  ['gnb_id', '123456789', 'gnb_id must be 1 to 8 hexadecimal characters'],
  ['latitude', 90.0001, 'latitude must be a number -90..90'],
  ['latitude', -91, 'latitude must be a number -90..90'],
  ['latitude', '48.1', 'latitude must be a number -90..90'],
  ['longitude', 180.5, 'longitude must be a number -180..180'],
  ['longitude', -181, 'longitude must be a number -180..180'],
  ['altitude', 40000, 'altitude must be a number of metres -32767..32767'],
  ['uncertainty_semi_major', -1, 'uncertainty_semi_major must be a number of metres 0..100000'],
  ['uncertainty_semi_major', 100001, 'uncertainty_semi_major must be a number of metres 0..100000'],
  ['uncertainty_semi_minor', -0.5, 'uncertainty_semi_minor must be a number of metres 0..100000'],
  ['orientation_major', 180, 'orientation_major must be an integer 0..179'],
  ['orientation_major', 12.5, 'orientation_major must be an integer 0..179'],
  ['orientation_major', -1, 'orientation_major must be an integer 0..179'],
  ['confidence', 101, 'confidence must be an integer 0..100'],
  ['confidence', 50.5, 'confidence must be an integer 0..100'],
];

const REQUIRED = ['rat', 'mcc', 'mnc', 'cell_identity', 'latitude', 'longitude'];

describe('POST /api/beta/cell-positions', () => {
  it('creates a cell position: 201 with a message and a UUIDv7 id, source provisioned', async () => {
    const body = newCell({ cell_identity: '00000ABCF' });
    const response = await post(body);
    assert.equal(response.statusCode, 201, response.body);
    const created = result<{ message: string; id: string }>(response);
    assert.match(created.id, UUID_V7);
    assert.deepEqual(created, { message: `cell position ${created.id} created`, id: created.id });
    assert.deepEqual(result(await get(created.id)), {
      id: created.id,
      rat: 'nr',
      mcc: '001',
      mnc: '01',
      cell_identity: '00000abcf',
      latitude: 48.137154,
      longitude: 11.576124,
      source: 'provisioned',
    });
  });

  it('stores every optional field, hex in lower case', async () => {
    const body = newCell({
      mnc: '001',
      gnb_id: '00000A',
      altitude: 519.5,
      uncertainty_semi_major: 250,
      uncertainty_semi_minor: 120.5,
      orientation_major: 179,
      confidence: 68,
    });
    const id = await create(body);
    assert.deepEqual(result(await get(id)), {
      ...body,
      id,
      gnb_id: '00000a',
      source: 'provisioned',
    });
  });

  it('takes an E-UTRA cell with a 7-digit ECI, and the range limits themselves', async () => {
    const body = newCell({
      rat: 'eutra',
      cell_identity: '0A0B0C0',
      latitude: -90,
      longitude: 180,
      altitude: -32767,
      uncertainty_semi_major: 0,
      orientation_major: 0,
      confidence: 0,
    });
    const id = await create(body);
    const stored = result<{ rat: string; cell_identity: string; latitude: number }>(await get(id));
    assert.deepEqual([stored.rat, stored.cell_identity, stored.latitude], ['eutra', '0a0b0c0', -90]);
  });

  it('answers 409 for a second position of the same RAT, MCC, MNC and cell identity, in any case', async () => {
    const body = newCell({ cell_identity: '0000000AA' });
    await create(body);
    const duplicate = await post({ ...body, cell_identity: '0000000aa', latitude: 1 });
    assert.equal(errorOf(duplicate, 409), 'a cell position for nr 001-01 cell 0000000aa already exists');
  });

  it('takes the same cell identity in another PLMN', async () => {
    const body = newCell({ cell_identity: '0000000BB' });
    await create(body);
    await create({ ...body, mnc: '02' });
    await create({ ...body, mcc: '002' });
  });

  it('answers 400 naming each field with a bad value', async () => {
    for (const [field, value, message] of INVALID) {
      const response = await post(newCell({ [field]: value }));
      assert.equal(errorOf(response, 400), message, `${field} = ${JSON.stringify(value)}`);
    }
  });

  it('checks the cell identity length against the RAT', async () => {
    const eutra = await post(newCell({ rat: 'eutra', cell_identity: '00000000a' }));
    assert.equal(errorOf(eutra, 400), 'cell_identity must be 7 hexadecimal digits for rat eutra');
  });

  it('refuses a semi-minor axis longer than the semi-major axis', async () => {
    const response = await post(newCell({ uncertainty_semi_major: 10, uncertainty_semi_minor: 11 }));
    assert.equal(errorOf(response, 400), 'uncertainty_semi_minor must not exceed uncertainty_semi_major');
  });

  it('answers 400 naming each missing required field', async () => {
    for (const field of REQUIRED) {
      const response = await post(omit(newCell(), field));
      assert.equal(errorOf(response, 400), `${field} is required`);
    }
  });

  it('refuses id and source: both are assigned by the service', async () => {
    assert.equal(errorOf(await post(newCell({ source: 'measured' })), 400), 'unknown field "source"');
    assert.equal(errorOf(await post(newCell({ id: 'mine' })), 400), 'unknown field "id"');
  });

  it('writes one create_cell_position audit entry naming the id and the cell', async () => {
    const id = await create(newCell({ cell_identity: '0000000CC' }));
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['create_cell_position', `Cell position ${id} created for nr 001-01 cell 0000000cc`],
    );
  });
});

describe('GET /api/beta/cell-positions', () => {
  it('lists every cell position as an array, in creation order', async () => {
    const first = await create(newCell());
    const second = await create(newCell({ rat: 'eutra', cell_identity: '00000dd' }));
    const response = await t.request({ method: 'GET', url: '/api/beta/cell-positions', token });
    assert.equal(response.statusCode, 200);
    const ids = result<{ id: string; source: string }[]>(response).map((item) => item.id);
    assert.ok(ids.indexOf(first) >= 0 && ids.indexOf(first) < ids.indexOf(second), 'creation order');
    assert.deepEqual([...ids].sort(), ids);
  });
});

describe('GET /api/beta/cell-positions/{id}', () => {
  it('answers 404 for an unknown id', async () => {
    const response = await get('01890a5d-ac96-774b-bcce-b302099a8057');
    assert.equal(errorOf(response, 404), 'cell position 01890a5d-ac96-774b-bcce-b302099a8057 not found');
  });
});

describe('PUT /api/beta/cell-positions/{id}', () => {
  const put = (id: string, payload: Record<string, unknown>) =>
    t.request({ method: 'PUT', url: `/api/beta/cell-positions/${id}`, token, payload });

  it('replaces every field; optional fields left out are removed; id and source stay', async () => {
    const id = await create(newCell({ altitude: 10, confidence: 90, gnb_id: '1' }));
    const replacement = newCell({
      rat: 'eutra',
      cell_identity: '00000ee',
      latitude: -33.5,
      longitude: -70.25,
    });
    const response = await put(id, replacement);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(result(response), { message: `cell position ${id} updated` });
    assert.deepEqual(result(await get(id)), { ...replacement, id, source: 'provisioned' });
  });

  it('may restate the cell the record already has', async () => {
    const body = newCell();
    const id = await create(body);
    assert.equal((await put(id, { ...body, latitude: 0 })).statusCode, 200);
  });

  it('answers 409 when the new cell belongs to another record', async () => {
    const taken = newCell();
    await create(taken);
    const id = await create(newCell());
    const response = await put(id, taken);
    assert.equal(
      errorOf(response, 409),
      `a cell position for nr 001-01 cell ${String(taken.cell_identity)} already exists`,
    );
  });

  it('answers 404 for an unknown id and 400 for a bad body', async () => {
    assert.equal(errorOf(await put('nothing', newCell()), 404), 'cell position nothing not found');
    const id = await create(newCell());
    assert.equal(
      errorOf(await put(id, newCell({ latitude: 100 })), 400),
      'latitude must be a number -90..90',
    );
    assert.equal(errorOf(await put(id, omit(newCell(), 'longitude')), 400), 'longitude is required');
    assert.equal(errorOf(await put(id, newCell({ source: 'x' })), 400), 'unknown field "source"');
  });

  it('writes one update_cell_position audit entry', async () => {
    const id = await create(newCell());
    await put(id, newCell({ cell_identity: '0000000ff' }));
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['update_cell_position', `Cell position ${id} updated (nr 001-01 cell 0000000ff)`],
    );
  });
});

describe('DELETE /api/beta/cell-positions/{id}', () => {
  it('deletes: 204 with no body; the position is gone', async () => {
    const id = await create(newCell());
    const response = await t.request({ method: 'DELETE', url: `/api/beta/cell-positions/${id}`, token });
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal((await get(id)).statusCode, 404);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await t.request({ method: 'DELETE', url: '/api/beta/cell-positions/nothing', token });
    assert.equal(errorOf(response, 404), 'cell position nothing not found');
  });

  it('writes one delete_cell_position audit entry naming the cell', async () => {
    const body = newCell();
    const id = await create(body);
    await t.request({ method: 'DELETE', url: `/api/beta/cell-positions/${id}`, token });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['delete_cell_position', `Cell position ${id} deleted (nr 001-01 cell ${String(body.cell_identity)})`],
    );
  });
});
