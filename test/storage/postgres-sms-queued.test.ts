/**
 * Short messages across an AMF set (docs/sms.md, "Across an AMF set"): a message stored for a UE by one
 * process (its SMSF's mobile-originated message, or one queued through its API) is told to the other
 * processes on the database, whose SMSF delivers it when it serves that UE. Two services on one
 * PostgreSQL database; on PostgreSQL runs only (PMN_TEST_DB=postgres).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';
import { until as waitUntil } from '../helpers/until.ts';

const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

const IMSI = '001010000000071';

/** Waits until `probe` holds (notices travel by LISTEN/NOTIFY); 20 s of wall time at most. */
const until = (what: string, probe: () => boolean) => waitUntil(what, probe);

describe('a short message stored by one process is told to the others (AMF set)', { skip }, () => {
  let a: TestApp;
  let b: TestApp;
  let token: string;
  const heardByB: string[] = [];
  const heardByA: string[] = [];

  before(async () => {
    const database = await freshPostgresDatabase();
    const secretKey = randomBytes(32);
    a = await createTestApp({ database, secretKey });
    b = await createTestApp({ database, secretKey });
    token = await initialize(a);
    b.core.ports.smsQueued((imsi) => heardByB.push(imsi));
    a.core.ports.smsQueued((imsi) => heardByA.push(imsi));
    const created = await a.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: {
        imsi: IMSI,
        key: '465b5ce8b199b49faa5f0a2ee238a6bc',
        sequenceNumber: '000000000001',
        profile_name: 'default',
      },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  after(async () => {
    await a?.close();
    await b?.close();
  });

  it("a message A's SMSF stores for a UE reaches B's SMSF by the UE's IMSI", async () => {
    await a.core.ports.smsStore.save({
      createdAt: Date.now(),
      originatorImsi: '001010000000072',
      originator: { typeOfNumber: 1, value: '15550000072' },
      destinationImsi: IMSI,
      messageReference: 1,
      protocolIdentifier: 0,
      dataCodingScheme: 0,
      userData: { headerIndicator: false, length: 2, bytes: Uint8Array.of(0xe8, 0x34) },
      statusReportRequested: false,
      validUntil: Date.now() + 60_000,
    });
    await until('B told of the message', () => heardByB.includes(IMSI));
    assert.deepEqual(heardByA, [], 'A’s own SMSF acted on it as it stored it');
  });

  it("a message queued through A's API reaches both SMSFs", async () => {
    heardByB.length = 0;
    const sent = await a.request({
      method: 'POST',
      url: '/api/v1/sms',
      token,
      payload: { imsi: IMSI, text: 'hello' },
    });
    assert.equal(sent.statusCode, 201, sent.body);
    assert.deepEqual(heardByA, [IMSI]);
    await until('B told of the message', () => heardByB.includes(IMSI));
  });
});
