import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import {
  deriveAlgorithmKey,
  deriveKamf,
  deriveKausf,
  deriveKgnb,
  deriveKseaf,
  servingNetworkName,
} from '../../src/crypto/key-hierarchy.ts';
import { milenage } from '../../src/crypto/milenage.ts';
import { decodeNasMessage } from '../../src/network/nas/index.ts';
import { redactNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { XnHandover } from '../../src/simulator/gnb-handover.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import { takeBackup } from '../helpers/backup.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { assertTsharkAgrees, OPERATOR_PLMN } from './n2-service.ts';
import { K, OPC } from './registration-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * Issue 28, finding 1 and network.md section 4: no record, log line, backup or API answer carries key
 * material. A whole run through the real service (registration, a PDU session, two Xn handovers, each
 * handing out a new NH, and a deregistration), with the service logging at `trace`, then every place is
 * searched for every key of that run, as bytes, hex (either case) and base64: the KgNB and the NHs the
 * gNBs received, KAMF and the NAS keys of every algorithm derived here from K, OPc and the RAND/AUTN the
 * UE was sent (checked against the KgNB on the wire), and the subscriber's K and OPc.
 */

const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 };

interface Key {
  name: string;
  bytes: Buffer;
}

/** Every SecurityKey value (KgNB, NH) in a decoded PDU, wherever it sits. */
function securityKeys(value: unknown, found: Buffer[] = []): Buffer[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return found;
  const record = value as Record<string, unknown>;
  if (record.name === 'SecurityKey') found.push(Buffer.from((record.value as { bytes: Uint8Array }).bytes));
  if (record.nextHopNH !== undefined)
    found.push(Buffer.from((record.nextHopNH as { bytes: Uint8Array }).bytes));
  for (const child of Object.values(record)) securityKeys(child, found);
  return found;
}

/** The places a key of `keys` shows in `haystack`, by key name and form. */
function leaks(keys: readonly Key[], haystack: Buffer | string, where: string): string[] {
  const text = typeof haystack === 'string' ? haystack : haystack.toString('latin1');
  const lower = text.toLowerCase();
  const found: string[] = [];
  for (const key of keys) {
    if (typeof haystack !== 'string' && haystack.includes(key.bytes))
      found.push(`${key.name} as bytes in ${where}`);
    if (lower.includes(key.bytes.toString('hex'))) found.push(`${key.name} as hex in ${where}`);
    if (text.includes(key.bytes.toString('base64').replace(/=+$/, '')))
      found.push(`${key.name} as base64 in ${where}`);
  }
  return found;
}

/** KAMF and every NAS key the UE's authentication gave (TS 33.501 A.2, A.6, A.7.1, A.8). */
function nasKeys(imsi: string, received: readonly NgapExchange[]): Key[] {
  for (const exchange of received) {
    if (exchange.messageType !== 'DownlinkNASTransport' || exchange.pdu === undefined) continue;
    for (const nas of nasPdus(exchange.pdu)) {
      const decoded = decodeNasMessage(nas);
      if (!decoded.ok || decoded.message.messageType !== 'authenticationRequest') continue;
      const { authenticationParameterRand: rand, authenticationParameterAutn: autn, abba } = decoded.message;
      assert.ok(rand !== undefined && autn !== undefined);
      const snn = servingNetworkName(OPERATOR_PLMN.mcc, OPERATOR_PLMN.mnc);
      const sqnXorAk = Buffer.from(autn).subarray(0, 6);
      const vector = milenage({
        key: Buffer.from(K, 'hex'),
        opc: Buffer.from(OPC, 'hex'),
        rand: Buffer.from(rand),
        sqn: sqnXorAk,
        amf: Buffer.from(autn).subarray(6, 8),
      });
      const kseaf = deriveKseaf(deriveKausf(vector.ck, vector.ik, snn, sqnXorAk), snn);
      const kamf = deriveKamf(kseaf, imsi, Buffer.from(abba));
      const keys: Key[] = [{ name: 'KAMF', bytes: kamf }];
      for (const algorithm of [0, 1, 2, 3]) {
        keys.push({ name: `KNASenc (NEA${algorithm})`, bytes: deriveAlgorithmKey(kamf, 1, algorithm) });
        keys.push({ name: `KNASint (NIA${algorithm})`, bytes: deriveAlgorithmKey(kamf, 2, algorithm) });
      }
      return keys;
    }
  }
  return assert.fail('no Authentication Request reached the gNB');
}

function nasPdus(pdu: unknown, found: Uint8Array[] = []): Uint8Array[] {
  if (pdu === null || typeof pdu !== 'object' || pdu instanceof Uint8Array) return found;
  const record = pdu as Record<string, unknown>;
  if (record.name === 'NAS-PDU' && record.value instanceof Uint8Array) found.push(record.value);
  for (const child of Object.values(record)) nasPdus(child, found);
  return found;
}

describe('key material in records, logs, backups and API answers (real service)', () => {
  let s: SessionService;
  const logLines: string[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    s = await startSessionService({ logger: pino({ level: 'trace' }, sink) });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('a registration-to-handover run leaves KgNB, NH, KAMF, NAS keys, K and OPc nowhere', async () => {
    // The handovers' gNB sides see the Initial Context Setup, so they exist before the registration.
    const { gnb: gnb2, ues: ues2 } = await s.anotherGnb(2, CELL_B, '127.0.0.3');
    const xnA = new XnHandover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
    const xnB = new XnHandover(gnb2, ues2, { pci: 2, arfcnDl: 632628 });
    const { imsi, ue, sessions } = await s.registered(1);
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    assert.equal((await xnA.handOver(ue, xnB)).outcome, 'switched');
    assert.equal((await xnB.handOver(ue, xnA)).outcome, 'switched');
    assert.equal((await ue.deregister()).outcome, 'accepted');
    await s.t.records.flush();

    // The keys of this run: what the gNBs were given, and what the test derives on its own.
    const radioKeys = s.received.flatMap((exchange) => securityKeys(exchange.pdu));
    assert.ok(radioKeys.length >= 3, `one KgNB and two NHs on the wire, found ${radioKeys.length}`);
    const derived = nasKeys(imsi, s.received);
    const kamf = derived[0]!.bytes;
    const kgnbs = Array.from({ length: 16 }, (_, count) => deriveKgnb(kamf, count, 1));
    assert.ok(
      kgnbs.some((kgnb) => kgnb.equals(radioKeys[0]!)),
      'the KAMF derived here gives the KgNB the AMF sent (the search looks for the right keys)',
    );
    const keys: Key[] = [
      ...radioKeys.map((bytes, i) => ({ name: i === 0 ? 'KgNB' : `NH or KgNB #${i}`, bytes })),
      ...derived,
      { name: 'K', bytes: Buffer.from(K, 'hex') },
      { name: 'OPc', bytes: Buffer.from(OPC, 'hex') },
    ];
    // The search finds a key where one is: in the PDU as the gNB got it, not once redacted.
    const withKey = s.received.find((exchange) => exchange.messageType === 'InitialContextSetupRequest');
    assert.ok(withKey !== undefined);
    assert.notDeepEqual(leaks(keys, Buffer.from(withKey.bytes), 'the wire'), []);
    assert.deepEqual(leaks(keys, Buffer.from(redactNgapPdu(withKey.bytes).bytes), 'the redacted PDU'), []);

    const found: string[] = [];
    // Every row of every table (Kysely's introspection: SQLite's schema table or PostgreSQL's catalog).
    const tables = await s.t.db.introspection.getTables({ withInternalKyselyTables: true });
    assert.ok(tables.length > 0);
    for (const { name } of tables) {
      const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(name)}`.execute(s.t.db);
      for (const row of rows.rows)
        for (const [column, value] of Object.entries(row))
          if (value instanceof Uint8Array || typeof value === 'string')
            found.push(
              ...leaks(keys, typeof value === 'string' ? value : Buffer.from(value), `${name}.${column}`),
            );
    }
    // Every API answer a reader gets, but the credentials read, which the contract gives K and OPc.
    const answers: string[] = [];
    const getText = async (url: string): Promise<string> => {
      const response = await s.t.request({ method: 'GET', url, token: s.token });
      assert.ok(response.statusCode < 500, `${url}: ${response.statusCode}`);
      answers.push(url);
      return response.body;
    };
    const events = JSON.parse(await getText('/api/v1/ran/events?per_page=100')) as {
      result: { items: { id: number; message_type: string; details: string }[]; total_count: number };
    };
    assert.ok(events.result.total_count <= 100);
    const ics = events.result.items.find((event) => event.message_type === 'InitialContextSetupRequest');
    assert.ok(ics !== undefined);
    for (const event of events.result.items) {
      const body = await getText(`/api/v1/ran/events/${event.id}`);
      found.push(...leaks(keys, body, `GET /api/v1/ran/events/${event.id}`));
      if (event.id === ics.id) {
        const detail = JSON.parse(body) as { result: { decoded: unknown } };
        assert.match(JSON.stringify(detail.result.decoded), /"security_key":\{"redacted":true\}/);
        assert.deepEqual((JSON.parse(event.details) as { redacted: string[] }).redacted, ['SecurityKey']);
      }
    }
    for (const route of s.t.routes) {
      // The credentials read gives K and OPc by contract; the OpenAPI document's example subscriber has
      // the published test key this test's subscriber uses too; profiling answers are not records; the
      // event stream answers until its client leaves (its frames are the subscriber logs' summaries,
      // read here through the logs list).
      if (route.method !== 'GET' || /credentials|openapi|pprof|events\/stream/.test(route.url)) continue;
      const url = route.url.replace('{imsi}', imsi).replace(':imsi', imsi);
      if (/[{:]/.test(url)) continue;
      found.push(
        ...leaks(keys, await getText(url.includes('?') ? url : `${url}?per_page=100`), `GET ${url}`),
      );
    }
    assert.ok(
      answers.includes(`/api/v1/subscribers/${imsi}?per_page=100`) || answers.some((u) => u.includes(imsi)),
    );
    // A backup, every byte of the database file. (PostgreSQL's backups are pg_dump's and base backups,
    // not the API's, which answers 409 there: the rows read above are what pg_dump would write.)
    if (!onPostgres) found.push(...leaks(keys, await takeBackup(s.t, s.token), 'the backup'));
    // Every log line at trace level.
    assert.ok(logLines.length > 0);
    found.push(...leaks(keys, logLines.join(''), 'the log'));

    assert.deepEqual(found, []);
  });
});
