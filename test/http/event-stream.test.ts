import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createNetworkEvents, type NasMessageEvent } from '../../src/network/events/network-events.ts';
import {
  createEventStream,
  WRITE_BATCH,
  type StreamFilter,
} from '../../src/resources/event-stream/event-stream.ts';
import { createRecordFollower } from '../../src/resources/event-stream/record-follower.ts';
import { ROLE } from '../../src/identity/roles.ts';
import type { AuditLogEntry } from '../../src/resources/audit-logs/audit-logs.repository.ts';
import { createTestApp, initialize, userWithRole, type TestApp } from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';

const IMSI = '001010000000001';
const OTHER = '001010000000002';
const RADIO = '001:01:000001';

interface Frame {
  id?: string;
  event?: string;
  data?: Record<string, unknown>;
  comment?: string;
}

/** An open stream: frames as they arrive, and a wait for the next ones. */
interface OpenStream {
  status: number;
  headers: IncomingMessage['headers'];
  frames: Frame[];
  next(count: number): Promise<Frame[]>;
  ended: Promise<void>;
  close(): void;
}

/** The frames of one write, each with its blank line taken off. */
function framesOf(frames: Buffer): string[] {
  return frames.toString().split('\n\n').slice(0, -1);
}

function parse(block: string): Frame {
  const frame: Frame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else if (line.startsWith('id: ')) frame.id = line.slice(4);
    else if (line.startsWith('event: ')) frame.event = line.slice(7);
    else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6)) as Record<string, unknown>;
  }
  return frame;
}

function open(
  port: number,
  path: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { port, path, headers: { authorization: `Bearer ${token}`, ...headers } },
      (res) => {
        const frames: Frame[] = [];
        let buffer = '';
        let waiter: (() => void) | undefined;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = parse(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (frame.event !== undefined || frame.comment !== undefined) frames.push(frame);
          }
          waiter?.();
        });
        const ended = new Promise<void>((done) => res.on('close', done));
        let taken = 0;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          frames,
          async next(count) {
            while (frames.filter((f) => f.event !== undefined).length < taken + count)
              await new Promise<void>((wake) => (waiter = wake));
            const events = frames.filter((f) => f.event !== undefined).slice(taken, taken + count);
            taken += count;
            return events;
          },
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const nas = (
  imsi: string,
  event: string,
  direction: 'inbound' | 'outbound',
  cause?: string,
): NasMessageEvent => ({
  imsi,
  direction,
  event,
  level: cause === undefined ? 'info' : 'warn',
  raw: Uint8Array.of(0x7e, 0x00, 0x44),
  details: { radio: 'gnb-1', ...(cause === undefined ? {} : { cause }) },
});

describe('GET /api/v1/events/stream', () => {
  let t: TestApp;
  let token: string;
  let port: number;

  before(async () => {
    t = await createTestApp({ eventStreamLimits: { maxClients: 3, heartbeatMs: 50 } });
    token = await initialize(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  it('refuses a request without credentials, an unknown kind and a malformed Last-Event-ID', async () => {
    const anonymous = await t.request({ method: 'GET', url: '/api/v1/events/stream' });
    assert.equal(anonymous.statusCode, 401);
    const kind = await t.request({
      method: 'GET',
      url: '/api/v1/events/stream?kinds=ue.registered,ue.nope',
      token,
    });
    assert.equal(kind.statusCode, 400);
    assert.match(kind.json<{ error: string }>().error, /ue\.nope/);
    const resume = await t.request({
      method: 'GET',
      url: '/api/v1/events/stream',
      token,
      headers: { 'last-event-id': 'abc' },
    });
    assert.equal(resume.statusCode, 400);
    assert.ok(typeof resume.json<{ error: string }>().error === 'string');
  });

  it(
    'streams the network events as they happen, with filters, rejects named and heartbeats',
    { timeout: 30_000 },
    async () => {
      const all = await open(port, '/api/v1/events/stream', token);
      const mine = await open(
        port,
        `/api/v1/events/stream?imsi=${IMSI}&kinds=ue.registered,ue.rejected`,
        token,
      );
      assert.equal(all.status, 200);
      assert.match(String(all.headers['content-type']), /^text\/event-stream/);

      t.network.radioConnected({
        id: RADIO,
        name: 'gnb-1',
        address: '10.0.0.5:38412',
        ranNodeType: 'gNB',
        supportedTais: [],
      });
      t.network.subscriberRegistered(OTHER, 'gnb-1', {
        radioAccessTypes: ['5G'],
        imei: '',
        cipheringAlgorithm: 'NEA2',
        integrityAlgorithm: 'NIA2',
      });
      t.network.subscriberRegistered(IMSI, 'gnb-1', {
        radioAccessTypes: ['5G'],
        imei: '',
        cipheringAlgorithm: 'NEA2',
        integrityAlgorithm: 'NIA2',
      });
      // The reject is told as the AMF sends it; its message comes with its record once written.
      t.core.networkEvents.emit('nas.message', nas(IMSI, 'Service Reject', 'outbound', 'Illegal UE (3)'));
      t.network.sessionReleased(IMSI, 1);
      t.records.recordSubscriberLog(nas(IMSI, 'Service Request', 'inbound'));
      t.records.recordSubscriberLog(nas(IMSI, 'Service Reject', 'outbound', 'Illegal UE (3)'));

      const seen = await all.next(7);
      assert.deepEqual(
        seen.map((f) => f.event),
        [
          'radio.connected',
          'ue.registered',
          'ue.registered',
          'ue.rejected',
          'session.released',
          'nas.message',
          'nas.message',
        ],
      );
      const ids = seen.map((f) => Number(f.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'ids increase',
      );
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual(seen[0]?.data, {
        kind: 'radio.connected',
        timestamp: seen[0]?.data?.['timestamp'],
        radio: RADIO,
        name: 'gnb-1',
        address: '10.0.0.5:38412',
        ran_node_type: 'gNB',
      });
      assert.equal(seen[3]?.data?.['message'], 'Service Reject');
      assert.deepEqual(seen[3]?.data?.['details'], { radio: 'gnb-1', cause: 'Illegal UE (3)' });
      assert.equal(seen[6]?.data?.['level'], 'warn');
      assert.deepEqual(seen[6]?.data?.['details'], { radio: 'gnb-1', cause: 'Illegal UE (3)' });
      assert.equal('raw' in (seen[6]?.data ?? {}), false, 'the stream carries summaries, not the bytes');
      // Each message names its record, which the subscriber logs list holds.
      const logs = await t.request({ method: 'GET', url: `/api/v1/logs/subscribers?imsi=${IMSI}`, token });
      const logIds = logs.json<{ result: { items: { id: number; event: string }[] } }>().result.items;
      assert.deepEqual(
        [seen[5]?.data?.['record_id'], seen[6]?.data?.['record_id']],
        [
          logIds.find((l) => l.event === 'Service Request')?.id,
          logIds.find((l) => l.event === 'Service Reject')?.id,
        ],
      );

      const filtered = await mine.next(2);
      assert.deepEqual(
        filtered.map((f) => [f.event, f.data?.['imsi']]),
        [
          ['ue.registered', IMSI],
          ['ue.rejected', IMSI],
        ],
      );
      // A quiet stream still hears from the service (heartbeat comments): waited for, not slept on.
      await until(
        'a heartbeat',
        () => mine.frames.some((f) => f.comment === 'heartbeat'),
        () => JSON.stringify(mine.frames),
      );
      all.close();
      mine.close();
    },
  );

  it(
    'carries radio events and radio logs as they are recorded, with ids that open them, filtered by radio',
    { timeout: 30_000 },
    async () => {
      const byId = await open(
        port,
        `/api/v1/events/stream?radio=${RADIO}&kinds=ngap.message,radio.log`,
        token,
      );
      const byName = await open(port, '/api/v1/events/stream?radio=gnb-1&kinds=ngap.message', token);
      const subscriber = await open(port, `/api/v1/events/stream?imsi=${IMSI}&kinds=ngap.message`, token);
      assert.deepEqual([byId.status, byName.status, subscriber.status], [200, 200, 200]);
      // Radio events name their radio; the filter by id finds them while that radio is connected.
      t.network.radioConnected({
        id: RADIO,
        name: 'gnb-1',
        address: '10.0.0.5:38412',
        ranNodeType: 'gNB',
        supportedTais: [],
      });
      t.records.recordRadioLog({
        level: 'info',
        ranId: RADIO,
        event: 'NG Setup Request',
        direction: 'inbound',
        raw: Uint8Array.of(0x00, 0x15),
        details: { radio: 'gnb-1', address: '10.0.0.5:38412' },
      });
      t.records.recordRadioEvent({
        protocol: 'NGAP',
        messageType: 'InitialUEMessage',
        direction: 'inbound',
        raw: Uint8Array.of(0x00, 0x0f, 0x40, 0x00),
        details: { radio: 'gnb-1', ran_ue_ngap_id: 1 },
      });
      t.records.recordRadioEvent({
        protocol: 'NGAP',
        messageType: 'DownlinkNASTransport',
        direction: 'outbound',
        raw: Uint8Array.of(0x00, 0x04, 0x40, 0x00),
        details: { radio: 'gnb-1', ran_ue_ngap_id: 1, amf_ue_ngap_id: 1, imsi: IMSI },
      });

      // Recorded in one millisecond or not: radio events and radio logs come in their tables' order.
      const frames = await byId.next(3);
      const log = frames.find((f) => f.event === 'radio.log');
      const [initial, downlink] = frames.filter((f) => f.event === 'ngap.message');
      assert.deepEqual(
        { ...log?.data, record_id: undefined, timestamp: undefined },
        {
          kind: 'radio.log',
          timestamp: undefined,
          record_id: undefined,
          ran_id: RADIO,
          event: 'NG Setup Request',
          level: 'info',
          direction: 'inbound',
          details: { radio: 'gnb-1', address: '10.0.0.5:38412' },
        },
      );
      assert.deepEqual(
        [initial?.event, initial?.data?.['message_type'], initial?.data?.['radio'], initial?.data?.['imsi']],
        ['ngap.message', 'InitialUEMessage', 'gnb-1', null],
      );
      assert.deepEqual(downlink?.data?.['details'], {
        radio: 'gnb-1',
        ran_ue_ngap_id: 1,
        amf_ue_ngap_id: 1,
        imsi: IMSI,
      });
      // The record id opens the record: the radio event decodes, the radio log is in its list.
      const opened = await t.request({
        method: 'GET',
        url: `/api/v1/ran/events/${String(downlink?.data?.['record_id'])}`,
        token,
      });
      assert.equal(opened.statusCode, 200);
      assert.equal(
        opened.json<{ result: { raw: string } }>().result.raw,
        Buffer.of(0x00, 0x04, 0x40, 0x00).toString('base64'),
      );
      const radioLogs = await t.request({ method: 'GET', url: `/api/v1/logs/radio?ran_id=${RADIO}`, token });
      assert.ok(
        radioLogs
          .json<{ result: { items: { id: number }[] } }>()
          .result.items.some((item) => item.id === log?.data?.['record_id']),
      );
      assert.deepEqual(
        (await byName.next(2)).map((f) => f.data?.['record_id']),
        [initial?.data?.['record_id'], downlink?.data?.['record_id']],
      );
      assert.deepEqual(
        (await subscriber.next(1)).map((f) => f.data?.['record_id']),
        [downlink?.data?.['record_id']],
      );
      for (const s of [byId, byName, subscriber]) s.close();
    },
  );

  it('resumes after Last-Event-ID, and says so when events left the window', async () => {
    const first = await open(port, '/api/v1/events/stream?kinds=ue.deregistered', token);
    t.network.subscriberDeregistered(IMSI);
    const [seen] = await first.next(1);
    first.close();
    t.network.subscriberDeregistered(OTHER);
    t.network.subscriberRegistered(OTHER, 'gnb-1', {
      radioAccessTypes: ['5G'],
      imei: '',
      cipheringAlgorithm: 'NEA2',
      integrityAlgorithm: 'NIA2',
    });

    const resumed = await open(port, '/api/v1/events/stream?kinds=ue.deregistered', token, {
      'last-event-id': String(seen?.id),
    });
    const [missed] = await resumed.next(1);
    assert.equal(missed?.event, 'ue.deregistered');
    assert.equal(missed?.data?.['imsi'], OTHER);
    assert.ok(Number(missed?.id) > Number(seen?.id));
    resumed.close();

    for (let i = 0; i < 1030; i++) t.network.subscriberDeregistered(IMSI);
    const late = await open(port, '/api/v1/events/stream?kinds=ue.registered', token, {
      'last-event-id': String(seen?.id),
    });
    const [gap] = await late.next(1);
    assert.equal(gap?.event, 'gap');
    assert.equal(gap?.data?.['after'], Number(seen?.id));
    late.close();
  });

  it('streams audit log entries as written to the roles that read the audit log, and to no other', async () => {
    const readOnly = await userWithRole(t, token, ROLE.readOnly);
    const refused = await t.request({
      method: 'GET',
      url: '/api/v1/events/stream?kinds=audit',
      token: readOnly,
    });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json<{ error: string }>().error, /audit:read/);
    const admin = await open(port, '/api/v1/events/stream?kinds=audit', token);
    const reader = await open(port, '/api/v1/events/stream', readOnly);

    const made = await t.request({
      method: 'POST',
      url: '/api/v1/users/me/api-tokens',
      token,
      payload: { name: 'stream audit' },
    });
    assert.equal(made.statusCode, 201, made.body);
    // Entries written while no client listened (the user's creation and login) may come first.
    let entry: Frame | undefined;
    while (entry?.data?.['action'] !== 'create_api_token') [entry] = await admin.next(1);
    assert.equal(entry.event, 'audit');
    const { record_id: recordId, timestamp, details, ...fields } = entry.data;
    assert.deepEqual(fields, {
      kind: 'audit',
      level: 'INFO',
      actor: 'admin@example.com',
      action: 'create_api_token',
      ip: '127.0.0.1',
    });
    assert.match(String(details), /^API token "stream audit" \(\w+\) created for user admin@example.com$/);
    // The entry the list shows first is the one streamed.
    const list = await t.request({ method: 'GET', url: '/api/v1/logs/audit?per_page=1', token });
    const [newest] = list.json<{ result: { items: { id: number; timestamp: string }[] } }>().result.items;
    assert.deepEqual(
      [recordId, Date.parse(String(timestamp))],
      [newest?.id, Date.parse(String(newest?.timestamp))],
    );

    // The read-only client gets what follows the entry, and never the entry.
    t.network.subscriberDeregistered(IMSI);
    let next: Frame | undefined;
    while (next?.event !== 'ue.deregistered') [next] = await reader.next(1);
    assert.deepEqual(
      reader.frames.filter((frame) => frame.event === 'audit'),
      [],
    );
    admin.close();
    reader.close();
  });

  it(
    'measures how long each event waited for its write, records apart from network events (pmn_event_stream_delay_seconds)',
    { timeout: 30_000 },
    async () => {
      const counts = async () => {
        const text = (await t.request({ method: 'GET', url: '/api/v1/metrics', token })).body;
        const count = (source: string) =>
          Number(
            new RegExp(`^pmn_event_stream_delay_seconds_count\\{source="${source}"\\} (\\d+)$`, 'm').exec(
              text,
            )?.[1] ?? 0,
          );
        return { text, record: count('record'), event: count('event') };
      };
      const before = await counts();
      const stream = await open(
        port,
        `/api/v1/events/stream?imsi=${IMSI}&kinds=nas.message,ue.deregistered`,
        token,
      );
      t.records.recordSubscriberLog(nas(IMSI, 'Service Request', 'inbound'));
      t.core.networkEvents.emit('ue.deregistered', { supi: IMSI });
      // Both written (a record an earlier test left unread may come first).
      const kinds = new Set<string | undefined>();
      while (kinds.size < 2) for (const frame of await stream.next(1)) kinds.add(frame.event);
      const after = await counts();
      // Other events of this app may be written meanwhile: at least these two, each under its source.
      assert.ok(after.record - before.record >= 1, `a record's delay is measured:\n${after.text}`);
      assert.ok(after.event - before.event >= 1, `a network event's delay is measured:\n${after.text}`);
      stream.close();
    },
  );

  it('answers 503 past the client limit, and ends open streams when the service stops', async () => {
    const streams = [];
    for (let i = 0; i < 3; i++) streams.push(await open(port, '/api/v1/events/stream', token));
    const refused = await t.request({ method: 'GET', url: '/api/v1/events/stream', token });
    assert.equal(refused.statusCode, 503);
    assert.match(refused.json<{ error: string }>().error, /too many/);
    const other = await createTestApp();
    const otherToken = await initialize(other);
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const open1 = await open(
      (other.app.server.address() as AddressInfo).port,
      '/api/v1/events/stream',
      otherToken,
    );
    await other.close();
    await open1.ended;
    for (const s of streams) s.close();
  });
});

describe('the event stream hub', () => {
  it('cuts a client that cannot take an event, counts it, and keeps serving the others', async () => {
    const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
    let cuts = 0;
    const stream = createEventStream({ events, now: () => 0, onCut: () => cuts++ });
    const ends: string[] = [];
    const fast: string[] = [];
    stream.add({ filter: {}, deliver: () => false, end: (reason) => void ends.push(reason) });
    stream.add({
      filter: {},
      deliver: (frames) => fast.push(...framesOf(frames)) > 0,
      end: (reason) => void ends.push(`fast ${reason}`),
    });
    events.emit('ue.deregistered', { supi: IMSI });
    events.emit('ue.deregistered', { supi: OTHER });
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(ends, ['slow']);
    assert.equal(cuts, 1);
    assert.equal(stream.clientCount(), 1);
    assert.equal(fast.length, 2);
    await stream.close();
    assert.deepEqual(ends, ['slow', 'fast closing']);
    events.emit('ue.deregistered', { supi: IMSI });
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(fast.length, 2, 'no events after close');
  });

  it('writes a large burst in writes of at most WRITE_BATCH events, in order, so a reading client is never cut for it', async () => {
    const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
    const stream = createEventStream({ events, now: () => 0 });
    const writes: Buffer[] = [];
    // As the route does: a write that would leave more than 1 MiB unread cuts the client.
    let cut = false;
    stream.add({
      filter: {},
      deliver: (frames) => frames.length <= 1 << 20 && writes.push(frames) > 0,
      end: () => (cut = true),
    });
    const count = 5 * WRITE_BATCH + 3;
    // Rejects with a long cause: 2 KiB an event, a burst of several MiB had it been one write.
    for (let i = 0; i < count; i++)
      events.emit('nas.message', nas(IMSI, 'Registration Reject', 'outbound', 'x'.repeat(2048)));
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(cut, false);
    assert.deepEqual(
      writes.map((frames) => framesOf(frames).length),
      [...Array.from({ length: 5 }, () => WRITE_BATCH), 3],
    );
    const ids = writes.flatMap((frames) =>
      framesOf(frames).map((frame) => Number(frame.split('\n')[0]!.slice(4))),
    );
    assert.deepEqual(
      ids,
      Array.from({ length: count }, (_, i) => i + 1),
    );
  });

  it('tells how long each event waited for its write, once an event whatever the clients', async () => {
    const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
    let now = 1_000;
    const delays: [string, number][] = [];
    const stream = createEventStream({
      events,
      now: () => now,
      onDelay: (source, ms) => void delays.push([source, ms]),
    });
    events.emit('ue.deregistered', { supi: IMSI });
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(delays, [], 'no client, no write');
    for (let i = 0; i < 2; i++) stream.add({ filter: {}, deliver: () => true, end: () => {} });
    events.emit('ue.deregistered', { supi: IMSI });
    now += 40;
    events.emit('ue.deregistered', { supi: OTHER });
    now += 5;
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(delays, [
      ['event', 45],
      ['event', 5],
    ]);
    await stream.close();
  });

  it('does not count as its delay the time a record waited while no client listened', async () => {
    const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
    let now = 1_000;
    const delays: [string, number][] = [];
    const rows: AuditLogEntry[] = [];
    const entry = (id: number): AuditLogEntry => ({
      id,
      timestamp: now,
      level: 'INFO',
      actor: 'x@y',
      action: 'login',
      ip: '::1',
      details: '',
    });
    const stream = createEventStream({
      events,
      now: () => now,
      audit: {
        listAfterId: async (afterId) => rows.filter((row) => row.id > afterId),
        lastId: async () => rows.at(-1)?.id ?? 0,
        onRecorded: () => () => {},
      },
      onDelay: (source, ms) => void delays.push([source, ms]),
    });
    const frames: string[] = [];
    const client = {
      filter: { audit: true },
      deliver: (b: Buffer) => frames.push(b.toString()) > 0,
      end: () => {},
    };
    stream.add(client);
    // The followers start at the newest (empty) table.
    await new Promise<void>((resolve) => setImmediate(resolve));
    stream.remove(client);
    // Recorded at 1 s while no client listened; a client comes a minute later and is sent it.
    rows.push(entry(1));
    now = 61_000;
    stream.add(client);
    await until(
      'the entry written to the client',
      () => frames.length > 0,
      () => JSON.stringify(delays),
    );
    // Recorded while this client listened, written 20 ms later.
    rows.push(entry(2));
    now += 20;
    stream.add({ filter: {}, deliver: () => true, end: () => {} });
    await until(
      'the second entry written',
      () => frames.length > 1,
      () => JSON.stringify(delays),
    );
    assert.deepEqual(
      delays,
      [['record', 20]],
      'the one recorded while a client listened, not the minute-old one',
    );
    await stream.close();
  });

  it('writes a burst as one write per client, encoded once per filter; a later turn in a later write', async () => {
    const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
    const stream = createEventStream({ events, now: () => 0 });
    const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
    const client = (filter: StreamFilter) => {
      const writes: Buffer[] = [];
      stream.add({ filter, deliver: (frames) => writes.push(frames) > 0, end: () => {} });
      return writes;
    };
    const all = client({});
    const allToo = client({});
    const other = client({ imsi: OTHER });
    for (const supi of [IMSI, OTHER, IMSI]) events.emit('ue.deregistered', { supi });
    await tick();
    assert.equal(all.length, 1, 'three events, one write');
    assert.deepEqual(
      framesOf(all[0]!).map((frame) => frame.split('\n')[0]),
      ['id: 1', 'id: 2', 'id: 3'],
    );
    assert.equal(allToo[0], all[0], 'the same bytes for the same filter');
    assert.deepEqual(
      other.map((frames) => framesOf(frames).length),
      [1],
    );

    events.emit('ue.deregistered', { supi: OTHER });
    await tick();
    assert.equal(all.length, 2);
    assert.deepEqual(
      framesOf(all[1]!).map((frame) => frame.split('\n')[0]),
      ['id: 4'],
    );

    // A client that comes while events wait is not written them (its replay has them); the others are.
    events.emit('ue.deregistered', { supi: IMSI });
    const waiting = stream.replay(4, {}).frames;
    const late = client({});
    assert.equal(waiting.length, 1);
    assert.equal(all.length, 3);
    await tick();
    assert.deepEqual(late, []);
    events.emit('ue.deregistered', { supi: IMSI });
    await tick();
    assert.equal(late.length, 1);
    await stream.close();
  });
});

describe('the event stream hub: audit entries', () => {
  it(
    'sends an entry whose transaction commits after its write was told, to audit readers only',
    { timeout: 10_000 },
    async () => {
      const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
      const rows: {
        id: number;
        timestamp: number;
        level: string;
        actor: string;
        action: string;
        ip: string;
        details: string;
      }[] = [];
      let tell: () => void = () => {};
      const stream = createEventStream({
        events,
        now: () => 0,
        audit: {
          listAfterId: async (afterId) => rows.filter((row) => row.id > afterId),
          lastId: async () => rows.at(-1)?.id ?? 0,
          onRecorded: (listener) => {
            tell = listener;
            return () => {};
          },
        },
      });
      const others: string[] = [];
      stream.add({ filter: {}, deliver: (frames) => others.push(frames.toString()) > 0, end: () => {} });
      const delivered = new Promise<string>((resolve) =>
        stream.add({
          filter: { audit: true },
          deliver: (frames) => (resolve(frames.toString()), true),
          end: () => {},
        }),
      );
      // Let the followers start at the newest (empty) table before the entry is written.
      await new Promise<void>((resolve) => setImmediate(resolve));
      tell();
      // Written, told, and committed later (PostgreSQL's pool): the stream reads again until it comes.
      await new Promise<void>((resolve) => setImmediate(resolve));
      rows.push({
        id: 1,
        timestamp: 0,
        level: 'WARN',
        actor: 'x@y',
        action: 'login_failed',
        ip: '::1',
        details: 'wrong password',
      });
      const frame = await delivered;
      assert.match(frame, /^id: \d+\nevent: audit\ndata: /);
      assert.deepEqual(JSON.parse(frame.split('data: ')[1] ?? ''), {
        kind: 'audit',
        timestamp: '1970-01-01T00:00:00.000Z',
        record_id: 1,
        level: 'WARN',
        actor: 'x@y',
        action: 'login_failed',
        ip: '::1',
        details: 'wrong password',
      });
      await stream.close();
      assert.deepEqual(others, []);
    },
  );
});

describe('the record follower', () => {
  /** A table whose rows are committed by the test, in any order. */
  function table() {
    const rows = new Map<number, { id: number }>();
    return {
      commit: (...ids: number[]) => ids.forEach((id) => rows.set(id, { id })),
      clear: () => rows.clear(),
      listAfterId: async (afterId: number, limit: number) =>
        [...rows.values()]
          .filter((r) => r.id > afterId)
          .sort((a, b) => a.id - b.id)
          .slice(0, limit),
      lastId: async () => Math.max(0, ...rows.keys()),
    };
  }

  it('starts at the newest row, then reads each new row once, a late commit below a read id too', async () => {
    const rows = table();
    rows.commit(1, 2);
    const read: number[] = [];
    const follower = createRecordFollower(rows, {
      onRow: (row) => read.push(row.id),
      onSkipped: () => assert.fail('nothing is skipped'),
      maxBehind: 100,
    });
    await follower.start();
    await follower.poll();
    assert.deepEqual(read, [], 'history is not replayed');
    // Two batches written at once (PostgreSQL): ids 3-4 commit after 5-6.
    rows.commit(5, 6);
    await follower.poll();
    rows.commit(3, 4, 7);
    await follower.poll();
    await follower.poll();
    assert.deepEqual(read, [5, 6, 3, 4, 7]);
  });

  it('starts again at the highest id after a clear or a restore, and skips what is past its window', async () => {
    const rows = table();
    rows.commit(1, 2, 3);
    const read: number[] = [];
    const skipped: number[] = [];
    const follower = createRecordFollower(rows, {
      onRow: (row) => read.push(row.id),
      onSkipped: (count) => skipped.push(count),
      maxBehind: 5,
    });
    await follower.start();
    rows.clear();
    rows.commit(1);
    await follower.poll();
    rows.commit(2);
    await follower.poll();
    assert.deepEqual(read, [2], 'the restored table is followed from its own highest id');
    rows.commit(...Array.from({ length: 10 }, (_, i) => i + 3));
    await follower.poll();
    assert.deepEqual(skipped, [5]);
    assert.deepEqual(read, [2, 8, 9, 10, 11, 12]);
  });
});
