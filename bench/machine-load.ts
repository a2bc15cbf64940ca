// How busy the whole machine was over an interval, from /proc/stat (Linux): a bench's CPU figures are fair
// only if its processes were not queued behind each other or other work, which these figures show.
import { readFileSync } from 'node:fs';

const TICK = 100; // USER_HZ: /proc/stat's CPU times are in ticks of 1/100 s.

interface CpuTicks {
  idle: number;
  steal: number;
  total: number;
}

/**
 * The `cpu` line's sums (proc(5)): user nice system idle iowait irq softirq steal; guest time is already in
 * user. Idle is idle + iowait (a core waiting on I/O runs nothing).
 */
export function parseCpuLine(stat: string): CpuTicks {
  const line = /^cpu (.*)$/m.exec(stat)?.[1] ?? '';
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .map((f) => Number(f) || 0);
  const total = [user, nice, system, idle, iowait, irq, softirq, steal].reduce<number>(
    (a, b) => a + (b ?? 0),
    0,
  );
  return { idle: (idle ?? 0) + (iowait ?? 0), steal: steal ?? 0, total };
}

/**
 * Idle and steal shares and busy time between two reads. proc(5): the iowait counter can go down, so over a
 * short interval a difference can be negative; each share is kept within 0-100 %.
 */
export function cpuBetween(
  first: CpuTicks,
  last: CpuTicks,
): Pick<MachineLoad, 'idlePercent' | 'stealPercent' | 'busySeconds'> {
  const total = Math.max(1, last.total - first.total);
  const share = (ticks: number): number => Math.min(total, Math.max(0, ticks));
  const idle = share(last.idle - first.idle);
  const steal = share(last.steal - first.steal);
  return {
    idlePercent: (100 * idle) / total,
    stealPercent: (100 * steal) / total,
    busySeconds: Math.max(0, total - idle - steal) / TICK,
  };
}

/** `procs_running`: the tasks running or ready to run at the moment of the read, the reader included. */
export const parseRunnable = (stat: string): number => Number(/^procs_running (\d+)$/m.exec(stat)?.[1] ?? 0);

export interface MachineLoad {
  /** Of all cores' time over the interval: idle (with I/O wait), and taken by the hypervisor. */
  idlePercent: number;
  stealPercent: number;
  /** CPU seconds run on the machine (not idle, not stolen), every process's. */
  busySeconds: number;
  /** Runnable tasks (`procs_running`, this reader included) sampled every `everyMs`: their mean and most. */
  runnable: { mean: number; max: number };
  /** /proc/loadavg's 1, 5 and 15 minute averages at the end. */
  loadAverage: string;
}

/** Starts sampling; `stop` gives the interval's figures. */
export function sampleMachine(everyMs = 100): { stop(): MachineLoad } {
  const read = (): string => readFileSync('/proc/stat', 'utf8');
  const first = parseCpuLine(read());
  const runnable: number[] = [];
  const timer = setInterval(() => runnable.push(parseRunnable(read())), everyMs);
  return {
    stop() {
      clearInterval(timer);
      const stat = read();
      runnable.push(parseRunnable(stat));
      return {
        ...cpuBetween(first, parseCpuLine(stat)),
        runnable: {
          mean: runnable.reduce((a, b) => a + b, 0) / runnable.length,
          max: Math.max(...runnable),
        },
        loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
      };
    },
  };
}
