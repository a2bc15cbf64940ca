import { describe, expect, it } from 'vitest';
import { runEventStream, type StreamAnswer } from './event-stream.ts';

async function* chunks(...texts: string[]): AsyncIterable<string> {
  for (const text of texts) yield text;
}

describe('the live event stream connection', () => {
  it('opens again after the stream ends, resuming after the last id seen, and passes a gap on', async () => {
    const controller = new AbortController();
    const opened: (string | undefined)[] = [];
    const answers: StreamAnswer[] = [
      {
        status: 200,
        chunks: chunks(
          'id: 1\nevent: ue.registered\ndata: {}\n\nid: 2\nevent: ue.deregistered\n',
          'data: {}\n\n',
        ),
      },
      { status: 503, chunks: undefined },
      { status: 200, chunks: chunks('id: 9\nevent: gap\ndata: {"after":2,"next":9}\n\n') },
    ];
    const seen: string[] = [];
    const waits: number[] = [];
    await runEventStream({
      open: (lastEventId) => {
        opened.push(lastEventId);
        const answer = answers.shift();
        if (!answer) controller.abort();
        return Promise.resolve(answer ?? { status: 200, chunks: chunks() });
      },
      onEvent: (event) => seen.push(`${event.id} ${event.event}`),
      signal: controller.signal,
      wait: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    expect(seen).toEqual(['1 ue.registered', '2 ue.deregistered', '9 gap']);
    // Each reconnection sends the last id seen (as Last-Event-ID); a refused one keeps it.
    expect(opened).toEqual([undefined, '2', '2', '9']);
    expect(waits).toEqual([2_000, 5_000, 2_000]);
  });

  it('stops at 401 or 403: the session ended, or the role may not read the records', async () => {
    for (const status of [401, 403]) {
      let opens = 0;
      await runEventStream({
        open: () => {
          opens += 1;
          return Promise.resolve({ status, chunks: undefined });
        },
        onEvent: () => undefined,
        signal: new AbortController().signal,
        wait: () => Promise.resolve(),
      });
      expect(opens).toBe(1);
    }
  });

  it('opens again after a dropped connection (the fetch rejects)', async () => {
    const controller = new AbortController();
    let opens = 0;
    await runEventStream({
      open: () => {
        opens += 1;
        if (opens === 2) controller.abort();
        return Promise.reject(new TypeError('network error'));
      },
      onEvent: () => undefined,
      signal: controller.signal,
      wait: () => Promise.resolve(),
    });
    expect(opens).toBe(2);
  });
});
