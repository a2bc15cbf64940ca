import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import pino from 'pino';
import { createScheduler } from '../../src/jobs/scheduler.ts';

describe('scheduler', () => {
  it('runs a job at start and then every interval, never twice at once', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const scheduler = createScheduler(pino({ level: 'silent' }));
      let runs = 0;
      let release: () => void = () => undefined;
      const first = scheduler.every('job', 1000, async () => {
        runs += 1;
        if (runs === 2) await new Promise<void>((resolve) => (release = resolve));
      });
      await first;
      assert.equal(runs, 1, 'ran at start');
      mock.timers.tick(1000);
      assert.equal(runs, 2, 'ran after one interval');
      mock.timers.tick(1000);
      assert.equal(runs, 2, 'did not start while the previous run was busy');
      release();
      await new Promise((resolve) => setImmediate(resolve));
      mock.timers.tick(1000);
      assert.equal(runs, 3);
      await scheduler.stop();
      mock.timers.tick(5000);
      assert.equal(runs, 3, 'nothing runs after stop');
    } finally {
      mock.timers.reset();
    }
  });

  it('stop signals a running job and waits for it to finish', async () => {
    const scheduler = createScheduler(pino({ level: 'silent' }));
    let sawAbort = false;
    let finished = false;
    void scheduler.every('long', 60_000, async (signal) => {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      sawAbort = signal.aborted;
      finished = true;
    });
    await scheduler.stop();
    assert.equal(sawAbort, true);
    assert.equal(finished, true);
  });

  it('logs a failing run and runs the job again at the next interval', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const logged: string[] = [];
      const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
      const scheduler = createScheduler(logger);
      let runs = 0;
      await scheduler.every('flaky', 1000, async () => {
        runs += 1;
        if (runs === 1) throw new Error('boom');
      });
      assert.equal(logged.length, 1);
      assert.match(logged[0] ?? '', /background job flaky failed/);
      mock.timers.tick(1000);
      assert.equal(runs, 2);
      await scheduler.stop();
    } finally {
      mock.timers.reset();
    }
  });
});
