import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { createNetworkEvents } from '../../src/network/events/network-events.ts';
import { createNetworkState, type PduSession } from '../../src/network/network-state.ts';
import type { SubscriberViewWrites, SubscriberViews } from '../../src/network/ports/subscriber-views.ts';
import { createSubscriberViewWriter, VIEW_WRITE_DELAY_MS } from '../../src/network/subscriber-view-writer.ts';
import { createWriteRetry } from '../../src/network/write-retry.ts';
import { OverloadedError } from '../../src/errors.ts';
import { createSubscriberViewsStore } from '../../src/storage/network-ports/subscriber-views-store.ts';
import { createTestApp, manualClock, type TestApp } from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';

/**
 * The AMF set's read model of subscribers (migration 0024; docs/amf-set.md, "One view of the network"):
 * the store on the run's database (SQLite, or PostgreSQL with PMN_TEST_DB=postgres) and the writer that
 * fills it from a member's network events.
 */
const REGISTRATION = {
  radioAccessTypes: ['5G'],
  imei: '356938035643809',
  cipheringAlgorithm: 'NEA1',
  integrityAlgorithm: 'NIA2',
};
const SESSION: PduSession = {
  id: 1,
  radioAccessType: '5G',
  status: 'active',
  ipType: 'IPv4',
  ipv4Address: '10.45.0.1',
  ipv6Prefix: '',
  dataNetwork: 'internet',
  slice: { sst: 1, sd: '' },
  ambrUplink: '1 Gbps',
  ambrDownlink: '1 Gbps',
};
const imsi = (n: number) => `0010100000000${String(n).padStart(2, '0')}`;

describe('the AMF set read model of subscribers', () => {
  let t: TestApp;
  let store: SubscriberViews;
  const clock = manualClock();

  before(async () => {
    t = await createTestApp();
    store = createSubscriberViewsStore({ db: t.db, clock });
  });
  after(() => t.close());
  beforeEach(() => t.db.deleteFrom('subscriber_views').execute());

  /** A member's network events and state, and its writer through `views` (the store unless given). */
  function member(options: { name?: string | undefined; views?: SubscriberViewWrites } = {}) {
    const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
    const state = createNetworkState({ clock, events });
    let name = 'name' in options ? options.name : 'amf-a';
    const writer = createSubscriberViewWriter({
      events,
      state,
      views: options.views ?? store,
      self: () => name,
      timers: clock,
      logger: pino({ level: 'silent' }),
      retry: createWriteRetry({
        store: 'subscriber_views',
        counters: { retried: () => undefined, failed: () => undefined },
        clock,
        timers: clock,
        logger: pino({ level: 'silent' }),
      }),
    });
    return { events, state, writer, rename: (next: string) => void (name = next) };
  }

  /** Radio gnb-1 (id 001:01:1) connects, and subscribers 1 and 2 register through it. */
  function servedByOneRadio(events: ReturnType<typeof member>['events']): void {
    events.emit('radio.connected', {
      id: '001:01:1',
      name: 'gnb-1',
      address: 'x',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
    for (const n of [1, 2]) {
      events.emit('ue.registered', { supi: imsi(n), radio: 'gnb-1', registration: REGISTRATION });
    }
  }

  /** The store, counting the calls that write. */
  function counted() {
    const calls: string[] = [];
    const views: SubscriberViewWrites = {
      write: (amf, change) => (calls.push('write'), store.write(amf, change)),
      clear: (amf) => (calls.push('clear'), store.clear(amf)),
      keepOnly: (live) => store.keepOnly(live),
    };
    return { views, calls };
  }

  it('a registration, its messages and its session are written once the delay has passed, as one write', async () => {
    const { views, calls } = counted();
    const { events, writer } = member({ views });
    for (const n of [1, 2, 3]) {
      events.emit('ue.registered', { supi: imsi(n), radio: 'gnb-1', registration: REGISTRATION });
      events.emit('ue.seen', { supi: imsi(n), radio: 'gnb-1', servingCell: undefined });
    }
    events.emit('session.established', { supi: imsi(2), session: SESSION });
    assert.deepEqual(await store.views(imsi(2), ['amf-a']), [], 'nothing before the delay');
    clock.advance(VIEW_WRITE_DELAY_MS);
    await writer.flush();
    // The first write of a run clears what an earlier run of the name left.
    assert.deepEqual(calls, ['clear', 'write']);
    const [view] = await store.views(imsi(2), ['amf-a']);
    assert.deepEqual(view, {
      imsi: imsi(2),
      amf: 'amf-a',
      registered: true,
      servingRadio: 'gnb-1',
      ...REGISTRATION,
      lastSeenAt: clock.now() - VIEW_WRITE_DELAY_MS,
      lastSeenRadio: 'gnb-1',
      servingCell: undefined,
      servingCellReportedAt: undefined,
      sessions: [SESSION],
    });
    assert.deepEqual(await store.views(imsi(2), ['amf-b']), [], 'only the members named are read');
    const registered = await store.registeredAmong([imsi(1), imsi(2), imsi(3), imsi(9)], ['amf-a']);
    assert.deepEqual(
      [...registered].map(([key, summary]) => [key, summary.sessions]),
      [
        [imsi(1), 0],
        [imsi(2), 1],
        [imsi(3), 0],
      ],
    );
    assert.deepEqual((await store.onRadio('gnb-1', ['amf-a'])).sort(), [imsi(1), imsi(2), imsi(3)]);
    assert.deepEqual(await store.totals(['amf-a']), [
      { amf: 'amf-a', registeredSubscribers: 3, activeSessions: 1 },
    ]);
    writer.stop();
  });

  it('a UE adopted from a dead member is written registered, with no serving radio, before it is heard from', async () => {
    const { events, writer } = member();
    events.emit('ue.adopted', { supi: imsi(4), registration: REGISTRATION });
    clock.advance(VIEW_WRITE_DELAY_MS);
    await writer.flush();
    const [view] = await store.views(imsi(4), ['amf-a']);
    assert.deepEqual(
      view && [view.registered, view.servingRadio, view.lastSeenRadio, view.cipheringAlgorithm],
      [true, '', '', REGISTRATION.cipheringAlgorithm],
    );
    assert.deepEqual(await store.totals(['amf-a']), [
      { amf: 'amf-a', registeredSubscribers: 1, activeSessions: 0 },
    ]);
    writer.stop();
  });

  it('the serving cell and when it was reported are written for every member to read', async () => {
    const { events, writer } = member();
    const cell = { rat: 'nr' as const, mcc: '001', mnc: '01', tac: '000001', cellIdentity: '000000010' };
    events.emit('ue.registered', { supi: imsi(5), radio: 'gnb-1', registration: REGISTRATION });
    clock.advance(VIEW_WRITE_DELAY_MS);
    await writer.flush();
    const reportedAt = clock.now();
    events.emit('ue.seen', { supi: imsi(5), radio: 'gnb-1', servingCell: cell });
    clock.advance(VIEW_WRITE_DELAY_MS);
    await writer.flush();
    const [view] = await store.views(imsi(5), ['amf-a']);
    assert.deepEqual(view && [view.servingCell, view.servingCellReportedAt], [cell, reportedAt]);
    writer.stop();
  });

  it('deregistration, a radio leaving and a deleted subscriber change the rows', async () => {
    const { events, writer } = member();
    servedByOneRadio(events);
    events.emit('session.established', { supi: imsi(1), session: SESSION });
    await writer.flush();
    events.emit('radio.disconnected', { id: '001:01:1' });
    await writer.flush();
    assert.deepEqual(await store.onRadio('gnb-1', ['amf-a']), [], 'no device served through the radio gone');
    assert.equal((await store.views(imsi(1), ['amf-a']))[0]?.registered, true, 'still registered');
    events.emit('ue.deregistered', { supi: imsi(1) });
    writer.removed(imsi(2));
    await writer.flush();
    const [view] = await store.views(imsi(1), ['amf-a']);
    assert.deepEqual([view?.registered, view?.sessions, view?.lastSeenRadio], [false, [], '']);
    assert.deepEqual(await store.views(imsi(2), ['amf-a']), []);
    writer.stop();
  });

  it('nothing is written while the process is no member; a new member name clears its earlier rows', async () => {
    const { views, calls } = counted();
    const { events, writer, rename } = member({ views, name: undefined });
    events.emit('ue.registered', { supi: imsi(1), radio: 'gnb-1', registration: REGISTRATION });
    await writer.flush();
    assert.deepEqual(calls, []);
    await store.write('amf-a', {
      views: [{ ...(await viewOf(imsi(7))), registered: true }],
      removed: [],
      radiosGone: [],
    });
    rename('amf-a');
    await writer.started();
    assert.deepEqual(await store.views(imsi(7), ['amf-a']), [], 'the previous run’s row');
    writer.stop();
  });

  it('a write the database refuses while unavailable is tried again until it lands; a refused one is given up', async () => {
    let failures = 2;
    const unavailable = new OverloadedError('the database is unavailable (57P01); try again', 1);
    const flaky: SubscriberViewWrites = {
      write: (amf, change) => (failures-- > 0 ? Promise.reject(unavailable) : store.write(amf, change)),
      clear: (amf) => store.clear(amf),
      keepOnly: (live) => store.keepOnly(live),
    };
    const { events, writer } = member({ views: flaky });
    events.emit('ue.registered', { supi: imsi(1), radio: 'gnb-1', registration: REGISTRATION });
    const flushed = writer.flush();
    // Two attempts refused: each waits its pause (100 ms, then 200 ms) on the test's clock.
    await until('the first pause', () => failures === 1 && clock.pendingTimers() > 0);
    clock.advance(100);
    await until('the second pause', () => failures === 0 && clock.pendingTimers() > 0);
    assert.deepEqual(await store.views(imsi(1), ['amf-a']), []);
    clock.advance(200);
    await flushed;
    assert.equal((await store.views(imsi(1), ['amf-a']))[0]?.registered, true);

    // Anything but an unavailable database is not tried again: the change waits for the subscriber's next.
    const refused: SubscriberViewWrites = { ...flaky, write: () => Promise.reject(new Error('a bug')) };
    const second = member({ views: refused });
    second.events.emit('ue.registered', { supi: imsi(2), radio: 'gnb-1', registration: REGISTRATION });
    await second.writer.flush();
    assert.equal(clock.pendingTimers(), 0, 'no retry waits');
    assert.deepEqual(await store.views(imsi(2), ['amf-a']), []);
    writer.stop();
    second.writer.stop();
  });

  it('the deletions of a write given up go with the next write: a deleted row and a radio gone do not stay', async () => {
    let refuse = false;
    const failing: SubscriberViewWrites = {
      write: (amf, change) => (refuse ? Promise.reject(new Error('a bug')) : store.write(amf, change)),
      clear: (amf) => store.clear(amf),
      keepOnly: (live) => store.keepOnly(live),
    };
    const { events, writer } = member({ views: failing });
    servedByOneRadio(events);
    await writer.flush();
    refuse = true;
    events.emit('radio.disconnected', { id: '001:01:1' });
    writer.removed(imsi(2));
    await writer.flush();
    assert.equal(clock.pendingTimers(), 0, 'a give-up starts no write of its own');
    assert.deepEqual((await store.onRadio('gnb-1', ['amf-a'])).sort(), [imsi(1), imsi(2)], 'given up');
    refuse = false;
    // Another subscriber's change: the held deletions go with its write.
    events.emit('ue.registered', { supi: imsi(3), radio: 'gnb-2', registration: REGISTRATION });
    clock.advance(VIEW_WRITE_DELAY_MS);
    await writer.flush();
    assert.deepEqual(await store.onRadio('gnb-1', ['amf-a']), [], 'no device served through the radio gone');
    assert.deepEqual(await store.views(imsi(2), ['amf-a']), [], 'the deleted subscriber’s row');
    assert.equal((await store.views(imsi(1), ['amf-a']))[0]?.registered, true);
    assert.equal((await store.views(imsi(3), ['amf-a']))[0]?.servingRadio, 'gnb-2');
    writer.stop();
  });

  it('a row another client spoiled reads as a view of nothing seen, never a failure', async () => {
    await t.db
      .insertInto('subscriber_views')
      .values([
        {
          imsi: imsi(1),
          amf: 'amf-b',
          registered: 1,
          serving_radio: 'gnb-9',
          session_count: 1,
          view: '{not json',
          updated_at: 1,
        },
        {
          imsi: imsi(2),
          amf: 'amf-b',
          registered: 1,
          serving_radio: '',
          session_count: 2,
          view: JSON.stringify({
            imei: 7,
            sessions: [null, { id: 'x' }, SESSION],
            lastSeenAt: 'soon',
            servingCell: { rat: 'lte' },
            servingCellReportedAt: 'then',
          }),
          updated_at: 1,
        },
      ])
      .execute();
    const [broken] = await store.views(imsi(1), ['amf-b']);
    assert.deepEqual(
      [broken?.registered, broken?.imei, broken?.sessions, broken?.lastSeenAt],
      [true, '', [], undefined],
    );
    const [odd] = await store.views(imsi(2), ['amf-b']);
    assert.deepEqual([odd?.imei, odd?.sessions, odd?.lastSeenAt], ['', [SESSION], undefined]);
    assert.deepEqual([odd?.servingCell, odd?.servingCellReportedAt], [undefined, undefined]);
  });

  it('keepOnly drops the rows of every member not named', async () => {
    for (const amf of ['amf-a', 'amf-b']) {
      await store.write(amf, { views: [await viewOf(imsi(1))], removed: [], radiosGone: [] });
    }
    await store.keepOnly(['amf-a']);
    const rows = await t.db.selectFrom('subscriber_views').select('amf').execute();
    assert.deepEqual(
      rows.map((row) => row.amf),
      ['amf-a'],
    );
    await store.keepOnly([]);
    assert.deepEqual(await t.db.selectFrom('subscriber_views').select('amf').execute(), []);
  });

  async function viewOf(supi: string) {
    return {
      imsi: supi,
      registered: false,
      servingRadio: '',
      radioAccessTypes: [],
      imei: '',
      cipheringAlgorithm: '',
      integrityAlgorithm: '',
      lastSeenAt: undefined,
      lastSeenRadio: '',
      servingCell: undefined,
      servingCellReportedAt: undefined,
      sessions: [],
    };
  }
});
