import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuBetween, parseCpuLine, parseRunnable, sampleMachine } from '../../bench/machine-load.ts';

// /proc/stat of a two-core machine (proc(5)): the first line sums the cores.
const STAT = `cpu  1000 20 300 5000 80 10 15 40 7 0
cpu0 500 10 150 2500 40 5 8 20 3 0
cpu1 500 10 150 2500 40 5 7 20 4 0
intr 123456 0 0
ctxt 987654
procs_running 3
procs_blocked 1
`;

describe('machine load', () => {
  it('reads idle (with I/O wait), steal and the total from the summed cpu line, guest time not twice', () => {
    assert.deepEqual(parseCpuLine(STAT), {
      idle: 5000 + 80,
      steal: 40,
      total: 1000 + 20 + 300 + 5000 + 80 + 10 + 15 + 40,
    });
  });

  it('keeps the shares within 0-100 % when the I/O wait counter went down (proc(5))', () => {
    const first = { idle: 5080, steal: 40, total: 6465 };
    // Two ticks later, iowait read 3 lower: idle (with iowait) and the total went down.
    const load = cpuBetween(first, { idle: 5077, steal: 40, total: 6464 });
    assert.deepEqual(load, { idlePercent: 0, stealPercent: 0, busySeconds: 0.01 });
  });

  it('reads the runnable tasks', () => {
    assert.equal(parseRunnable(STAT), 3);
  });

  it('samples this machine: percentages within 0-100, at least this reader runnable', () => {
    const load = sampleMachine().stop();
    assert.ok(load.idlePercent >= 0 && load.idlePercent <= 100, String(load.idlePercent));
    assert.ok(load.stealPercent >= 0 && load.stealPercent <= 100, String(load.stealPercent));
    assert.ok(load.runnable.max >= 1, JSON.stringify(load.runnable));
    assert.match(load.loadAverage, /^\d+\.\d+ \d+\.\d+ \d+\.\d+$/);
  });
});
