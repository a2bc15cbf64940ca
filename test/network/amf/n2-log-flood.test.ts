import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createHarness } from './n2-harness.ts';
import { initialUeMessage, ngSetupRequest } from './messages.ts';

interface Line {
  level: number;
  msg: string;
  kind?: string;
  suppressed?: Record<string, number>;
}

/** A logger whose lines a test counts: pino writes each line to the stream synchronously. */
function countingLogger() {
  const lines: Line[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
  );
  return { logger, lines, warns: () => lines.filter((l) => l.level === 40) };
}

function counter(text: string, kind: string): number {
  const match = new RegExp(`^pmn_n2_peer_problems_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

describe('N2 warn lines a peer can trigger in bulk (issue 28, finding 4)', () => {
  it('thousands of bad messages: every one counted, the log gets one line per peer and kind and one summary a minute', async () => {
    const log = countingLogger();
    const h = await createHarness({ logger: log.logger });
    const radio = await h.connect();
    const n = 3000;
    for (let i = 0; i < n; i++) {
      // A foreign PPID, bytes that are not NGAP, a UE-associated message before NG Setup.
      radio.association.send(0, 0, new Uint8Array([1]));
      radio.send(new Uint8Array([1]));
      radio.send(initialUeMessage('reject'), 1);
    }
    await h.settled();

    const metrics = await h.metrics.render();
    assert.deepEqual(
      ['foreign_ppid', 'undecodable', 'before_ng_setup'].map((kind) => counter(metrics, kind)),
      [n, n, n],
    );
    assert.deepEqual(
      log.warns().map((l) => l.kind),
      ['foreign_ppid', 'undecodable', 'before_ng_setup'],
    );
    // The radio sets up, so that only the limiter's interval ends as time moves on.
    radio.send(ngSetupRequest({ gnbId: 1 }));
    await h.settled();

    // The interval ends: one summary line with what was not logged one by one.
    h.clock.advance(60_000);
    await h.settled();
    const summary = log.warns().at(-1);
    assert.equal(log.warns().length, 4);
    assert.deepEqual(summary?.suppressed, {
      foreign_ppid: n - 1,
      undecodable: n - 1,
      before_ng_setup: n - 1,
    });

    // A new interval logs the first of each kind again.
    radio.association.send(0, 0, new Uint8Array([1]));
    await h.settled();
    assert.equal(log.warns().length, 5);
    await h.close();
  });

  it('many peers: the lines of an interval stay bounded, the rest go into the summary', async () => {
    const log = countingLogger();
    const h = await createHarness({ logger: log.logger });
    // 1,100 associations from as many addresses, each sending one bad message (more than the limiter's 1,024 pairs).
    const peers = 1100;
    for (let i = 0; i < peers; i++) {
      const radio = await h.connect(`10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`);
      radio.association.send(0, 0, new Uint8Array([1]));
    }
    await h.settled();
    assert.equal(counter(await h.metrics.render(), 'foreign_ppid'), peers);
    assert.equal(log.warns().length, 1024);
    // Their NG Setup timers expire within the interval: counted, not logged one by one either.
    h.clock.advance(60_000);
    await h.settled();
    assert.equal(log.warns().length, 1025);
    assert.deepEqual(log.warns().at(-1)?.suppressed, { foreign_ppid: peers - 1024, no_ng_setup: peers });
    await h.close();
  });
});
