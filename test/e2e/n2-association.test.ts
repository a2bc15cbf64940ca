import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';
import { assertTsharkAgrees, gnbConfig, startN2Service } from './n2-service.ts';

/**
 * The end of a radio's association end to end (network.md section 2: a radio disappears when its
 * association ends by shutdown, abort or path failure; a second NG Setup for the same Global RAN Node ID
 * over another association is refused while the first one is live, docs/n2.md).
 */

interface Page<T> {
  items: T[];
  total_count: number;
}
interface RadioLog {
  event: string;
  level: string;
  ran_id: string;
  details: string;
}

const received: NgapExchange[] = [];
after(() => assertTsharkAgrees(received));

describe('association end and replacement, simulator against the real service (udp transport)', () => {
  it('abort and graceful shutdown: the radio disappears and its end is logged (warn for the abort)', async () => {
    const s = await startN2Service();
    try {
      const aborting = s.gnb(gnbConfig(8));
      const leaving = s.gnb(gnbConfig(9));
      await Promise.all([aborting.connect(), leaving.connect()]);
      await Promise.all([aborting.ngSetup(), leaving.ngSetup()]);
      assert.equal((await s.get<Page<unknown>>('/api/v1/ran/radios')).total_count, 2);

      assert.equal((await aborting.abort('test')).reason, 'communication-lost');
      assert.deepEqual(await leaving.shutdown(), { reason: 'shutdown' });
      await s.until(
        async () => ((await s.get<Page<unknown>>('/api/v1/ran/radios')).total_count === 0 ? true : undefined),
        'both radios gone',
      );
      const downs = await s.until(async () => {
        const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?event=SCTP%20Association%20Down');
        // The items, not the total: a page's list and count are two reads, and a write may land between.
        return page.items.length >= 2 ? page.items : undefined;
      }, 'two association-down logs');
      const levels = Object.fromEntries(downs.map((log) => [log.ran_id, log.level]));
      assert.deepEqual(levels, { '001:01:000008': 'warn', '001:01:000009': 'info' });
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });

  it('path failure: a radio that goes silent is dropped after the AMF heartbeats go unanswered', async () => {
    // Short RTO and heartbeat so that Path.Max.Retrans is exceeded in about a second (RFC 9260 8.2) of
    // manual time, which the test moves in steps instead of waiting.
    const time = new ManualTime();
    const s = await startN2Service({
      time,
      sctp: {
        rtoInitial: 100,
        rtoMin: 100,
        rtoMax: 200,
        heartbeatInterval: 100,
        pathMaxRetrans: 2,
        associationMaxRetrans: 2,
      },
    });
    try {
      const gnb = s.gnb(gnbConfig(10));
      await gnb.connect();
      await gnb.ngSetup();
      assert.equal((await s.get<Page<unknown>>('/api/v1/ran/radios')).total_count, 1);
      s.silenceRan();
      await s.until(async () => {
        await time.advance(100, oneTurn);
        return (await s.get<Page<unknown>>('/api/v1/ran/radios')).total_count === 0 ? true : undefined;
      }, 'the silent radio gone');
      const down = await s.until(async () => {
        const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?event=SCTP%20Association%20Down');
        return page.items[0];
      }, 'the association-down log');
      assert.deepEqual([down.ran_id, down.level], ['001:01:00000a', 'warn']);
      // Dropped for the unanswered heartbeats, not for an ABORT from the radio.
      assert.match(down.details, /retransmissions-exceeded/);
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });

  it('a second NG Setup for a Global RAN Node ID connected over a live association is refused; the first radio stays', async () => {
    const s = await startN2Service();
    try {
      const first = s.gnb(gnbConfig(11, { name: 'first' }));
      const second = s.gnb(gnbConfig(11, { name: 'second' }));
      await first.connect();
      await first.ngSetup();
      await second.connect();
      const outcome = await second.ngSetup();
      assert.ok(outcome.outcome === 'refused');
      assert.equal(outcome.failure.cause, 'misc/unspecified');
      const radios = await s.get<Page<{ name: string; address: string }>>('/api/v1/ran/radios');
      assert.deepEqual(
        radios.items.map((r) => [r.name, r.address]),
        [['first', `127.0.0.1:${first.local?.port}`]],
      );
      const failure = await s.until(async () => {
        const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?event=NG%20Setup%20Failure');
        return page.items[0];
      }, 'the NG Setup Failure log');
      assert.deepEqual([failure.ran_id, failure.level], ['001:01:00000b', 'warn']);
      assert.match(failure.details, new RegExp(`127\\.0\\.0\\.1:${second.local?.port}`));
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });
});
