import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { SmscConfiguration } from '../../../src/network/ports/smsc-configuration.ts';
import { createSmscGateway } from '../../../src/network/smsc-link/smsc-gateway.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { until as waitUntil } from '../../helpers/until.ts';
import { memorySmscOutbox, memorySmsStore, memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { listeningSmsc, TestSmsc } from '../../helpers/smpp-server.ts';

/** Closes each test's gateway and SMSC when it ends, passed or failed, the gateway first. */
const closeAtEnd = closeAfterEach();

/** The gateway over memory ports, its configuration changed by `set` as the API's PUT and DELETE do. */
function setup(initial: SmscConfiguration | undefined) {
  const time = new ManualTime();
  const store = memorySmsStore();
  let configuration = initial;
  const listeners = new Set<() => void>();
  const pdus: string[] = [];
  const gateway = createSmscGateway({
    configuration: { read: async () => configuration },
    changes: {
      subscribe: (listener) => {
        const heard = () => listener({ resource: 'smsc-link', change: 'changed', name: '' });
        listeners.add(heard);
        return () => void listeners.delete(heard);
      },
    },
    store,
    outbox: memorySmscOutbox(store),
    subscribers: memorySmsSubscribers({}),
    validityMs: 86_400_000,
    queuedFor: () => {},
    settled: () => {},
    onPdu: (direction, kind) => void pdus.push(`${direction} ${kind}`),
    clock: time,
    timers: time,
    logger: pino({ level: 'silent' }),
  });
  closeAtEnd(() => gateway.stop());
  return {
    time,
    gateway,
    pdus,
    listeners,
    async set(next: SmscConfiguration | undefined) {
      configuration = next;
      for (const listener of listeners) listener();
      await gateway.settled();
    },
  };
}

const config = (port: number, overrides: Partial<SmscConfiguration> = {}): SmscConfiguration => ({
  host: '127.0.0.1',
  port,
  systemId: 'pmn',
  password: 'secret',
  systemType: '',
  enabled: true,
  ...overrides,
});

/** Lets real sockets run, every turn, until `done` holds (20 s of wall time at most, not 2,000 turns: 25 ms). */
const until = (done: () => boolean) => waitUntil(done.toString(), done, () => '', { everyMs: 0 });

describe('the SMSC link as the core runs it', () => {
  it('binds when the configuration enables it; stop unbinds and leaves no socket, timer or listener', async () => {
    const smsc = await listeningSmsc(closeAtEnd);
    const s = setup(config(smsc.port));
    await s.gateway.start();
    await until(() => s.gateway.status().state === 'bound');
    assert.deepEqual(s.gateway.status(), { state: 'bound' });
    assert.equal(s.gateway.accepts(), true);
    assert.ok(s.time.pending > 0, 'enquire_link is scheduled while bound');

    await s.gateway.stop();
    await until(() => !smsc.isBound);
    assert.equal(smsc.isBound, false, 'the connection is closed');
    assert.ok(
      smsc.received.some((pdu) => pdu.kind === 'unbind'),
      'unbind was sent before closing',
    );
    assert.equal(s.time.pending, 0, 'no timer left');
    assert.equal(s.listeners.size, 0, 'no longer listening for configuration changes');
    assert.deepEqual(s.gateway.status(), { state: 'disabled' });
    assert.equal(s.gateway.accepts(), false);
    assert.deepEqual(s.pdus.slice(0, 2), ['sent bind_transceiver', 'received bind_transceiver_resp']);
    assert.ok(s.pdus.includes('sent unbind'));
  });

  it('stop while the SMSC cannot be reached cancels the reconnect', async () => {
    const down = new TestSmsc();
    const port = await down.listen();
    await down.close();
    const s = setup(config(port));
    await s.gateway.start();
    await until(() => s.gateway.status().lastError !== undefined);
    assert.equal(s.gateway.status().state, 'connecting');
    assert.match(s.gateway.status().lastError ?? '', /connection failed|closed/);
    await s.gateway.stop();
    assert.equal(s.time.pending, 0);
  });

  it('a changed configuration binds again with it, without a restart; disabled or deleted, it unbinds', async () => {
    const smsc = await listeningSmsc(closeAtEnd, { systemId: 'other', password: 'new' });
    const port = smsc.port;
    const s = setup(config(port));
    await s.gateway.start();
    await until(() => s.gateway.status().lastError !== undefined);
    assert.match(s.gateway.status().lastError ?? '', /bind refused by the SMSC \(0xe\)/);

    await s.set(config(port, { systemId: 'other', password: 'new' }));
    await until(() => s.gateway.status().state === 'bound');
    assert.equal(s.gateway.status().state, 'bound');
    const binds = smsc.received.flatMap((pdu) =>
      pdu.kind === 'bind_transceiver' ? [pdu.body.systemId] : [],
    );
    assert.deepEqual(binds.at(-1), 'other');

    await s.set(config(port, { systemId: 'other', password: 'new', enabled: false }));
    await until(() => !smsc.isBound);
    assert.deepEqual(s.gateway.status(), { state: 'disabled' });
    assert.equal(s.gateway.accepts(), false, 'disabled: numbers outside the network are refused');
    assert.equal(s.time.pending, 0);

    await s.set(config(port, { systemId: 'other', password: 'new' }));
    await until(() => s.gateway.status().state === 'bound');
    await s.set(undefined);
    await until(() => !smsc.isBound);
    assert.deepEqual(s.gateway.status(), { state: 'disabled' });
    assert.equal(s.time.pending, 0);
  });
});
