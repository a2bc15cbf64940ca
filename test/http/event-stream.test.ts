import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createNetworkEvents, type NasMessageEvent } from '../../src/network/events/network-events.ts';
import { createEventStream } from '../../src/resources/event-stream/event-stream.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

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

  it('streams the network events as they happen, with filters, rejects named and heartbeats', async () => {
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
    t.core.networkEvents.emit('nas.message', nas(IMSI, 'Service Request', 'inbound'));
    t.core.networkEvents.emit('nas.message', nas(IMSI, 'Service Reject', 'outbound', 'Illegal UE (3)'));
    t.network.sessionReleased(IMSI, 1);

    const seen = await all.next(7);
    assert.deepEqual(
      seen.map((f) => f.event),
      [
        'radio.connected',
        'ue.registered',
        'ue.registered',
        'nas.message',
        'nas.message',
        'ue.rejected',
        'session.released',
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
    assert.equal(seen[5]?.data?.['message'], 'Service Reject');
    assert.deepEqual(seen[5]?.data?.['details'], { radio: 'gnb-1', cause: 'Illegal UE (3)' });
    assert.equal(seen[4]?.data?.['level'], 'warn');
    assert.equal('raw' in (seen[4]?.data ?? {}), false, 'the stream carries summaries, not the bytes');

    const filtered = await mine.next(2);
    assert.deepEqual(
      filtered.map((f) => [f.event, f.data?.['imsi']]),
      [
        ['ue.registered', IMSI],
        ['ue.rejected', IMSI],
      ],
    );
    // A quiet stream still hears from the service (heartbeat comments).
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.ok(mine.frames.some((f) => f.comment === 'heartbeat'));
    all.close();
    mine.close();
  });

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
  it('cuts a client that cannot take an event, counts it, and keeps serving the others', () => {
    const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
    let cuts = 0;
    const stream = createEventStream({ events, now: () => 0, onCut: () => cuts++ });
    const ends: string[] = [];
    const fast: string[] = [];
    stream.add({ filter: {}, deliver: () => false, end: (reason) => void ends.push(reason) });
    stream.add({
      filter: {},
      deliver: (frame) => fast.push(frame) > 0,
      end: (reason) => void ends.push(`fast ${reason}`),
    });
    events.emit('ue.deregistered', { supi: IMSI });
    events.emit('ue.deregistered', { supi: OTHER });
    assert.deepEqual(ends, ['slow']);
    assert.equal(cuts, 1);
    assert.equal(stream.clientCount(), 1);
    assert.equal(fast.length, 2);
    stream.close();
    assert.deepEqual(ends, ['slow', 'fast closing']);
    events.emit('ue.deregistered', { supi: IMSI });
    assert.equal(fast.length, 2, 'no events after close');
  });
});
