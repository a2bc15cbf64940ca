import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS, type N2Component } from '../../src/core/n2.wiring.ts';
import {
  readNGSetupResponse,
  readAMFConfigurationUpdate,
} from '../../src/network/ngap/generated/messages.ts';
import type { NGAPPDU, ServedGUAMIList } from '../../src/network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import type { N2Association } from '../../src/network/transport/n2-transport.ts';
import type { SctpEndpoint } from '../../src/network/transport/sctp/endpoint.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { amfConfigurationUpdateAcknowledge } from '../../src/simulator/gnb-messages.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { createTestApp, initialize, manualClock, result, type TestApp } from '../helpers/test-app.ts';
import { ngSetupRequest } from '../network/amf/messages.ts';
import { until as waitUntil } from '../helpers/until.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

const TIMING = { heartbeatMs: 5_000, leaseMs: 15_000 };

interface AmfSetAnswer {
  answered_by: string | null;
  members: { name: string; state: string; guami: { amf_pointer: number } }[];
}

/** Served GUAMIs as [AMF Pointer, backup AMF name]: the pointer is the 6 bits of its one byte. */
const served = (list: ServedGUAMIList | undefined): [number, string | undefined][] =>
  (list ?? []).map((item) => [(item.gUAMI.aMFPointer.bytes[0] ?? 0) >> 2, item.backupAMFName]);

/** Asks `probe` until it answers; 20 s of wall time at most, far above a local exchange's milliseconds. */
const eventually = <T>(what: string, probe: () => T | undefined): Promise<T> => waitUntil(what, probe);

/**
 * Two whole services on one PostgreSQL database, each running its own N2 as its own AMF set member
 * (docs/decisions.md, 15), each on its own manual clock: a member whose clock stands still is a process
 * that died without a word.
 */
describe('two services on one PostgreSQL database form one AMF set', { skip }, () => {
  const [clockA, clockB] = [manualClock(), manualClock()];
  let a: TestApp;
  let b: TestApp;
  let n2A: N2Component;
  let n2B: N2Component;
  let token: string;
  let gnb: SctpEndpoint;
  let association: N2Association;
  const received: NGAPPDU[] = [];

  before(async () => {
    const database = await freshPostgresDatabase();
    const secretKey = randomBytes(32);
    a = await createTestApp({ database, secretKey, clock: clockA });
    b = await createTestApp({ database, secretKey, clock: clockB });
    token = await initialize(a);
    const settings = (name: string, pointer: number) => ({
      ...DEFAULT_N2_SETTINGS,
      transport: 'udp' as const,
      port: 0,
      udpPort: 0,
      amf: { ...DEFAULT_N2_SETTINGS.amf, name, pointer },
      amfSet: TIMING,
    });
    n2A = createN2(a.core, settings('amf-a', 1), { clock: clockA, timers: clockA });
    n2B = createN2(b.core, settings('amf-b', 2), { clock: clockB, timers: clockB });
    await n2A.start();
    await n2B.start();
  });

  after(async () => {
    await gnb?.close();
    await n2A?.stop();
    await n2B?.stop();
    await a?.close();
    await b?.close();
  });

  const amfSet = async (): Promise<AmfSetAnswer> =>
    result<AmfSetAnswer>(await a.request({ method: 'GET', url: '/api/v1/amf-set', token }));

  /** One heartbeat of A: its row written, its peers read, and what it told its radios sent. */
  async function heartbeatOfA(): Promise<void> {
    clockA.advance(TIMING.heartbeatMs);
    await n2A.amfSet()?.settled();
  }

  it('the second member appears in the first one’s API and in the GUAMIs it announces', async () => {
    const listed = await amfSet();
    assert.equal(listed.answered_by, 'amf-a');
    assert.deepEqual(
      listed.members.map((m) => [m.name, m.guami.amf_pointer, m.state]),
      [
        ['amf-a', 1, 'serving'],
        ['amf-b', 2, 'serving'],
      ],
    );
    // A read its peers as it joined, before B: its next heartbeat finds B.
    await heartbeatOfA();
    const endpoint = n2A.endpoint();
    assert.ok(endpoint?.udpPort !== undefined);
    ({ transport: gnb } = await createUdpTransport({
      addresses: ['127.0.0.1'],
      udpPort: 0,
      peerUdpPort: endpoint.udpPort,
    }));
    association = await gnb.connect(
      { remote: [{ address: '127.0.0.1', port: endpoint.local[0]!.port }] },
      () => ({
        message(message) {
          const decoded = decodeNgapPdu(message.payload);
          if (decoded.ok) received.push(decoded.value);
        },
        event: () => undefined,
      }),
    );
    association.send(0, 60, encodeNgapPdu(ngSetupRequest({ gnbId: 1, name: 'gnb-1' })));
    const response = await eventually('NG Setup Response', () => {
      const read = received[0] && readNGSetupResponse(received[0]);
      return read?.ok ? read.message : undefined;
    });
    assert.equal(response.amfName, 'amf-a');
    assert.deepEqual(served(response.servedGuamiList), [
      [1, 'amf-b'],
      [2, 'amf-a'],
    ]);
  });

  it('the radio connected to the first member is listed by the second one’s API at once, before A’s next heartbeat', async () => {
    const radioOnB = async () => {
      const response = await b.request({ method: 'GET', url: '/api/v1/ran/radios/gnb-1', token });
      return response.statusCode === 200 ? result<{ name: string; amf_name: string }>(response) : undefined;
    };
    // A's time stands still: the write its radio's NG Setup asked for, not a heartbeat.
    await n2A.amfSet()?.settled();
    const shown = await radioOnB();
    assert.deepEqual([shown?.name, shown?.amf_name], ['gnb-1', 'amf-a']);
    const listed = result<{ items: { name: string }[] }>(
      await b.request({ method: 'GET', url: '/api/v1/ran/radios', token }),
    );
    assert.deepEqual(
      listed.items.map((radio) => radio.name),
      ['gnb-1'],
    );
  });

  it('a member that dies is gone once its lease has expired, and the radios hear that its backup serves its GUAMI', async () => {
    // B's clock stands still from now: no heartbeat, no goodbye. It wrote its lease at start (15 s);
    // A is 5 s on.
    assert.deepEqual(
      (await amfSet()).members.map((m) => [m.name, m.state]),
      [
        ['amf-a', 'serving'],
        ['amf-b', 'serving'],
      ],
      'within its lease',
    );
    assert.equal(received.length, 1, 'nothing changed for the radio');
    await heartbeatOfA();
    await heartbeatOfA();
    assert.deepEqual(
      (await amfSet()).members.map((m) => [m.name, m.state]),
      [
        ['amf-a', 'serving'],
        ['amf-b', 'gone'],
      ],
    );
    const update = await eventually('AMF Configuration Update', () => {
      const read = received[1] && readAMFConfigurationUpdate(received[1]);
      return read?.ok ? read.message : undefined;
    });
    // A, B's backup, goes on serving B's GUAMI (TS 23.501 5.21.2.3); neither has a backup left.
    assert.deepEqual(served(update.servedGuamiList), [
      [1, undefined],
      [2, undefined],
    ]);
    association.send(0, 60, encodeNgapPdu(amfConfigurationUpdateAcknowledge()));
  });
});
