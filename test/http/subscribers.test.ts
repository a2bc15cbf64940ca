import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { ROLE } from '../../src/identity/roles.ts';
import {
  created,
  errorOf,
  imsi,
  newPolicy,
  newProfile,
  newSubscriber,
  omit,
  TEST_SET_1,
} from '../helpers/network.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

const secretKey = randomBytes(32);
let clock: ReturnType<typeof manualClock>;
let t: TestApp;
let token: string;

/**
 * Each describe gets a fresh app holding profile gold, data network corp and subscribers 1-3 (profile
 * default) and 4 (gold), so that each test runs alone; a test creates any other state it needs.
 */
function freshApp(): void {
  before(async () => {
    clock = manualClock();
    t = await createTestApp({ secretKey, clock });
    token = await initialize(t);
    await created(t, token, '/api/v1/profiles', newProfile('gold'));
    await created(t, token, '/api/v1/networking/data-networks', { name: 'corp' });
    for (const n of [1, 2, 3]) await created(t, token, '/api/v1/subscribers', newSubscriber(n));
    await created(t, token, '/api/v1/subscribers', newSubscriber(4, { profile_name: 'gold' }));
  });
  after(() => t.close());
}

/** Subscriber 2 registered through radio gnb-1 with one PDU session, as the network side reports it. */
function registerSubscriber2(): void {
  t.network.subscriberRegistered(imsi(2), 'gnb-1', {
    radioAccessTypes: ['5G'],
    imei: '356938035643809',
    cipheringAlgorithm: 'NEA2',
    integrityAlgorithm: 'NIA2',
  });
  t.network.sessionEstablished(imsi(2), {
    id: 1,
    radioAccessType: '5G',
    status: 'active',
    ipType: 'IPv4',
    ipv4Address: '10.45.0.2',
    ipv6Prefix: '',
    dataNetwork: 'internet',
    slice: { sst: 1, sd: '' },
    ambrUplink: '1 Gbps',
    ambrDownlink: '1 Gbps',
  });
}

/** Subscriber 4 (profile gold) registered through radio gnb-2, without sessions. */
function registerSubscriber4(): void {
  t.network.subscriberRegistered(imsi(4), 'gnb-2', {
    radioAccessTypes: ['5G'],
    imei: '',
    cipheringAlgorithm: 'NEA0',
    integrityAlgorithm: 'NIA2',
  });
}

const list = async (query: string) => {
  const response = await t.request({ method: 'GET', url: `/api/v1/subscribers${query}`, token });
  assert.equal(response.statusCode, 200, response.body);
  return result<{ items: { imsi: string; profile_name: string; status: unknown }[]; total_count: number }>(
    response,
  );
};
const imsisOf = (page: { items: { imsi: string }[] }) => page.items.map((item) => item.imsi);

describe('GET /api/v1/subscribers', () => {
  freshApp();

  it('lists subscribers by IMSI, paginated, each with a not-registered status by default', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/subscribers?per_page=2&page=2', token });
    assert.deepEqual(result(response), {
      items: [
        {
          imsi: imsi(3),
          msisdn: null,
          profile_name: 'default',
          status: { registered: false, radio_access_types: [], num_sessions: 0 },
        },
        {
          imsi: imsi(4),
          msisdn: null,
          profile_name: 'gold',
          status: { registered: false, radio_access_types: [], num_sessions: 0 },
        },
      ],
      page: 2,
      per_page: 2,
      total_count: 4,
    });
  });

  it('shows registration and session count from the network state', async () => {
    registerSubscriber2();
    const page = await list('?per_page=2');
    assert.deepEqual(page.items[1]?.status, {
      registered: true,
      radio_access_types: ['5G'],
      num_sessions: 1,
    });
  });

  it('filters by radio: only the subscribers the named radio serves now', async () => {
    registerSubscriber2();
    registerSubscriber4();
    const page = await list('?radio=gnb-1');
    assert.deepEqual([imsisOf(page), page.total_count], [[imsi(2)], 1]);
  });

  it('filters by data_network: subscribers whose profile a policy for it names, or any profile', async () => {
    // The first-start policy gives profile default the data network internet; profile gold has none.
    const internet = await list('?data_network=internet');
    assert.deepEqual(imsisOf(internet), [imsi(1), imsi(2), imsi(3)]);
    await created(t, token, '/api/v1/policies', newPolicy('corp-any', { data_network_name: 'corp' }));
    const corp = await list('?data_network=corp&per_page=3&page=2');
    assert.deepEqual([imsisOf(corp), corp.total_count], [[imsi(4)], 4]);
  });

  it('combines the radio and data_network filters', async () => {
    registerSubscriber2();
    registerSubscriber4();
    // Subscriber 4 is on gnb-2 but its profile gold has no policy for internet.
    const page = await list('?radio=gnb-2&data_network=internet');
    assert.deepEqual(imsisOf(page), []);
  });

  it('answers an empty page for an unknown radio or data network', async () => {
    assert.deepEqual(await list('?radio=nowhere'), { items: [], page: 1, per_page: 25, total_count: 0 });
    assert.deepEqual(await list('?data_network=nowhere'), {
      items: [],
      page: 1,
      per_page: 25,
      total_count: 0,
    });
  });

  it('refuses per_page 0', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/subscribers?per_page=0', token });
    assert.match(errorOf(response, 400), /^query parameter per_page /);
  });
});

describe('POST /api/v1/subscribers', () => {
  freshApp();

  it('creates a subscriber (201) and audits create_subscriber', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: newSubscriber(10),
    });
    assert.equal(response.statusCode, 201);
    assert.deepEqual(result(response), { message: `subscriber ${imsi(10)} created` });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['create_subscriber', `Subscriber ${imsi(10)} created with profile default`],
    );
  });

  it('stores a given opc (in lower case) instead of deriving one', async () => {
    const payload = newSubscriber(11, { opc: 'ABCDEF0123456789ABCDEF0123456789' });
    await created(t, token, '/api/v1/subscribers', payload);
    const credentials = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(11)}/credentials`,
      token,
    });
    assert.equal(result(credentials).opc, 'abcdef0123456789abcdef0123456789');
  });

  it('refuses a duplicate IMSI with 409', async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(14));
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: newSubscriber(14),
    });
    assert.equal(errorOf(response, 409), `subscriber ${imsi(14)} already exists`);
  });

  it("refuses an IMSI that does not start with the operator's MCC and MNC", async () => {
    const payload = newSubscriber(0, { imsi: '001020000000001' });
    const response = await t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload });
    assert.equal(errorOf(response, 400), "imsi must start with the operator's MCC and MNC (00101)");
  });

  it('refuses a profile_name that names no profile', async () => {
    const payload = newSubscriber(12, { profile_name: 'platinum' });
    const response = await t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload });
    assert.equal(
      errorOf(response, 400),
      'profile_name must name an existing profile; there is no profile "platinum"',
    );
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['an IMSI of 14 digits', { imsi: '00101000000001' }, 'imsi must be 15 digits'],
    ['an IMSI of 16 digits', { imsi: '0010100000000001' }, 'imsi must be 15 digits'],
    ['an IMSI with a letter', { imsi: '00101000000000a' }, 'imsi must be 15 digits'],
    ['an IMSI as a number', { imsi: 1010000000001 }, 'imsi must be 15 digits'],
    ['a key of 31 hex characters', { key: 'a'.repeat(31) }, 'key must be 32 hexadecimal characters'],
    [
      'a key with a non-hex character',
      { key: `${'a'.repeat(31)}x` },
      'key must be 32 hexadecimal characters',
    ],
    ['an opc of 33 hex characters', { opc: 'a'.repeat(33) }, 'opc must be 32 hexadecimal characters'],
    [
      'a sequenceNumber of 11 hex characters',
      { sequenceNumber: '00000000001' },
      'sequenceNumber must be 12 hexadecimal characters',
    ],
    [
      'a sequenceNumber that is not hex',
      { sequenceNumber: '00000000000g' },
      'sequenceNumber must be 12 hexadecimal characters',
    ],
    [
      'a profile_name with a space',
      { profile_name: 'a b' },
      'profile_name must be 1 to 64 characters: letters, digits, "-", "_" or "."',
    ],
    ['an unknown field', { Ki: 'x' }, 'unknown field "Ki"'],
  ];
  for (const [rule, change, message] of invalid) {
    it(`refuses ${rule} with 400 naming the field`, async () => {
      const payload = { ...newSubscriber(13), ...change };
      const response = await t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload });
      assert.equal(errorOf(response, 400), message);
    });
  }

  it('refuses a missing key', async () => {
    const payload = omit(newSubscriber(13), 'key');
    const response = await t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload });
    assert.equal(errorOf(response, 400), 'key is required');
  });
});

describe('GET /api/v1/subscribers/{imsi}', () => {
  freshApp();

  it('reads a subscriber with its full status and sessions, and never its key, OPc or sequence number', async () => {
    registerSubscriber2();
    clock.set(Date.parse('2026-11-22T10:05:00.000Z'));
    t.network.subscriberSeen(imsi(2), 'gnb-1');
    const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(2)}`, token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), {
      imsi: imsi(2),
      msisdn: null,
      profile_name: 'default',
      status: {
        registered: true,
        radio_access_types: ['5G'],
        imei: '356938035643809',
        ciphering_algorithm: 'NEA2',
        integrity_algorithm: 'NIA2',
        last_seen_at: '2026-11-22T10:05:00.000Z',
        last_seen_radio: 'gnb-1',
        // No member of the AMF set stored its UE context: only this process's network state knows it.
        serving_amf: '',
      },
      sessions: [
        {
          radio_access_type: '5G',
          id: 1,
          status: 'active',
          ip_type: 'IPv4',
          ipv4_address: '10.45.0.2',
          ipv6_prefix: '',
          data_network: 'internet',
          slice: { sst: 1, sd: '' },
          ambr_uplink: '1 Gbps',
          ambr_downlink: '1 Gbps',
        },
      ],
    });
    assert.doesNotMatch(response.body, new RegExp(TEST_SET_1.key, 'i'));
  });

  it('reads a subscriber the network has not seen with empty strings and no sessions', async () => {
    const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(1)}`, token });
    assert.deepEqual(result(response).status, {
      registered: false,
      radio_access_types: [],
      imei: '',
      ciphering_algorithm: '',
      integrity_algorithm: '',
      last_seen_at: '',
      last_seen_radio: '',
      serving_amf: '',
    });
    assert.deepEqual(result(response).sessions, []);
  });

  it('answers 404 for an unknown IMSI', async () => {
    const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(999)}`, token });
    assert.equal(errorOf(response, 404), `subscriber ${imsi(999)} not found`);
  });
});

describe('PUT /api/v1/subscribers/{imsi}', () => {
  freshApp();

  it('moves the subscriber to another profile and audits update_subscriber', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `/api/v1/subscribers/${imsi(3)}`,
      token,
      payload: { profile_name: 'gold' },
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: `subscriber ${imsi(3)} updated` });
    const read = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(3)}`, token });
    assert.equal(result(read).profile_name, 'gold');
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['update_subscriber', `Subscriber ${imsi(3)} profile changed from default to gold`],
    );
  });

  it('refuses a profile_name that names no profile', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `/api/v1/subscribers/${imsi(3)}`,
      token,
      payload: { profile_name: 'platinum' },
    });
    assert.match(errorOf(response, 400), /^profile_name must name an existing profile/);
  });

  it('applies the create rule for profile_name', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `/api/v1/subscribers/${imsi(3)}`,
      token,
      payload: { profile_name: '' },
    });
    assert.match(errorOf(response, 400), /^profile_name must be 1 to 64 characters/);
  });

  it('refuses any other field: only the profile can change', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `/api/v1/subscribers/${imsi(3)}`,
      token,
      payload: { profile_name: 'gold', key: TEST_SET_1.key },
    });
    assert.equal(errorOf(response, 400), 'unknown field "key"');
  });

  it('answers 404 for an unknown IMSI', async () => {
    const response = await t.request({
      method: 'PUT',
      url: `/api/v1/subscribers/${imsi(999)}`,
      token,
      payload: { profile_name: 'gold' },
    });
    assert.equal(response.statusCode, 404);
  });
});

describe('DELETE /api/v1/subscribers/{imsi}', () => {
  freshApp();

  it('deletes the subscriber, audits delete_subscriber and drops it from the network state', async () => {
    registerSubscriber4();
    assert.deepEqual(t.networkState.subscribersOnRadio('gnb-2'), [imsi(4)]);
    const response = await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(4)}`, token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(result(response), { message: `subscriber ${imsi(4)} deleted` });
    const read = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(4)}`, token });
    assert.equal(read.statusCode, 404);
    assert.deepEqual(t.networkState.subscribersOnRadio('gnb-2'), []);
    const [entry] = await auditEntries(t, token);
    assert.deepEqual([entry?.action, entry?.details], ['delete_subscriber', `Subscriber ${imsi(4)} deleted`]);
  });

  it('answers 404 for an unknown IMSI', async () => {
    const response = await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(999)}`, token });
    assert.equal(response.statusCode, 404);
  });
});

describe('GET /api/v1/subscribers/{imsi}/credentials', () => {
  freshApp();

  it('answers key, OPc and sequence number; the OPc was derived from the OP when none was given', async () => {
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(1)}/credentials`,
      token,
    });
    assert.equal(response.statusCode, 200);
    const credentials = result<{ key: string; opc: string; sequenceNumber: string }>(response);
    assert.deepEqual(Object.keys(credentials).sort(), ['key', 'opc', 'sequenceNumber']);
    assert.equal(credentials.key, TEST_SET_1.key);
    assert.equal(credentials.sequenceNumber, '000000000001');
    assert.match(credentials.opc, /^[0-9a-f]{32}$/);
  });

  it('writes a get_subscriber_credentials audit entry for every read', async () => {
    const url = `/api/v1/subscribers/${imsi(1)}/credentials`;
    await t.request({ method: 'GET', url, token });
    await t.request({ method: 'GET', url, token });
    const entries = (await auditEntries(t, token)).slice(0, 2);
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.details]),
      [
        ['get_subscriber_credentials', `Credentials of subscriber ${imsi(1)} read`],
        ['get_subscriber_credentials', `Credentials of subscriber ${imsi(1)} read`],
      ],
    );
  });

  it('is refused (403) to the read-only role, which may read the subscriber itself', async () => {
    const readOnly = await userWithRole(t, token, ROLE.readOnly);
    const credentials = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(1)}/credentials`,
      token: readOnly,
    });
    assert.match(errorOf(credentials, 403), /credentials:read/);
    const subscriber = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(1)}`,
      token: readOnly,
    });
    assert.equal(subscriber.statusCode, 200);
  });

  it('is allowed to the network manager role', async () => {
    const manager = await userWithRole(t, token, ROLE.networkManager);
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(1)}/credentials`,
      token: manager,
    });
    assert.equal(response.statusCode, 200);
  });

  it('answers 404 for an unknown IMSI and audits nothing', async () => {
    const before = (await auditEntries(t, token)).length;
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(999)}/credentials`,
      token,
    });
    assert.equal(response.statusCode, 404);
    assert.equal((await auditEntries(t, token)).length, before);
  });
});

describe('credentials at rest', () => {
  freshApp();

  it('stores key and OPc sealed with AES-256-GCM under the key file, never in clear', async () => {
    await created(
      t,
      token,
      '/api/v1/subscribers',
      newSubscriber(11, { opc: 'ABCDEF0123456789ABCDEF0123456789' }),
    );
    const row = await t.db
      .selectFrom('subscribers')
      .select(['key_sealed', 'opc_sealed', 'sequence_number'])
      .where('imsi', '=', imsi(11))
      .executeTakeFirstOrThrow();
    assert.doesNotMatch(
      `${row.key_sealed} ${row.opc_sealed}`,
      new RegExp(`${TEST_SET_1.key}|abcdef0123456789`, 'i'),
    );
    const box = createSecretBox(secretKey);
    assert.equal(box.open(row.key_sealed), TEST_SET_1.key);
    assert.equal(box.open(row.opc_sealed), 'abcdef0123456789abcdef0123456789');
    assert.throws(() => createSecretBox(randomBytes(32)).open(row.key_sealed));
  });

  it('stores the Operator Code sealed too', async () => {
    const row = await t.db.selectFrom('operator').select('op_sealed').executeTakeFirstOrThrow();
    assert.match(createSecretBox(secretKey).open(row.op_sealed), /^[0-9a-f]{32}$/);
    assert.match(row.op_sealed, /^v1\./);
  });
});

describe('GET /api/v1/subscribers?radio= for a radio serving more devices than one SQL statement names', () => {
  freshApp();

  // SQLite takes at most 32,766 parameters a statement: the served IMSIs are asked in chunks of 1,000
  // instead. The network picture names 33,971 IMSIs on the radio; 2,427 of them are subscribers.
  const stored = 2_500;
  const named = 35_005;
  const onRadio = (n: number): boolean => n % 34 !== 0;
  const served: string[] = [];
  for (let n = 5; n < 5 + stored; n++) if (onRadio(n)) served.push(imsi(n));

  before(async () => {
    const payload = [];
    for (let n = 5; n < 5 + stored; n++) payload.push(newSubscriber(n));
    const response = await t.request({ method: 'POST', url: '/api/v1/subscribers/import', token, payload });
    assert.equal(response.statusCode, 201, response.body);
    for (let n = 5; n < named; n++) {
      if (!onRadio(n)) continue;
      t.network.subscriberRegistered(imsi(n), 'gnb-big', {
        radioAccessTypes: ['5G'],
        imei: '356938035643809',
        cipheringAlgorithm: 'NEA2',
        integrityAlgorithm: 'NIA2',
      });
    }
    assert.ok(t.networkState.subscribersOnRadio('gnb-big').length > 32_766);
  });

  it('counts the subscribers among them and pages across the chunks in IMSI order', async () => {
    // Page 34 of 30 (rows 990-1019) straddles the first and the second chunk.
    const page = await list('?radio=gnb-big&per_page=30&page=34');
    assert.equal(page.total_count, served.length);
    assert.deepEqual(imsisOf(page), served.slice(990, 1020));
    const last = await list(`?radio=gnb-big&per_page=100&page=${Math.ceil(served.length / 100)}`);
    assert.deepEqual(imsisOf(last), served.slice(Math.floor((served.length - 1) / 100) * 100));
  });

  it('combines with the data_network filter', async () => {
    // Profile default reaches internet through the first-start policy, and nothing reaches corp.
    const page = await list('?radio=gnb-big&data_network=internet&per_page=30&page=34');
    assert.deepEqual([imsisOf(page), page.total_count], [served.slice(990, 1020), served.length]);
    assert.deepEqual(await list('?radio=gnb-big&data_network=corp'), {
      items: [],
      page: 1,
      per_page: 25,
      total_count: 0,
    });
  });
});
