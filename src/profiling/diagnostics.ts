import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The parts of Node's diagnostic report these pages show (process.report.getReport()). */
interface DiagnosticReport {
  javascriptStack?: { message?: string; stack?: string[] };
  libuv?: ({ type: string; is_active: boolean; is_referenced: boolean } & Record<string, unknown>)[];
  workers?: DiagnosticReport[];
  header?: { threadId?: number };
}

function diagnosticReport(): DiagnosticReport {
  // Without this the report resolves the host name of every socket's peer, which can take seconds.
  const report = process.report as typeof process.report & { excludeNetwork?: boolean };
  const previous = report.excludeNetwork;
  report.excludeNetwork = true;
  try {
    return report.getReport();
  } finally {
    report.excludeNetwork = previous;
  }
}

function describeValue(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function stackLines(report: DiagnosticReport): string[] {
  const frames = report.javascriptStack?.stack ?? [];
  // A thread busy elsewhere reports no frames, only why ("Unavailable.").
  if (frames.length === 0) return [`  ${report.javascriptStack?.message ?? 'no stack'}`];
  return frames.map((frame) => `  ${frame}`);
}

function countBy(values: string[]): string[] {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([value, n]) => `  ${n} ${value}`);
}

const NS_PER_MS = 1e6;

/**
 * Text pages for the pprof paths that have no Node.js equivalent in protobuf form. Goroutines become
 * the JavaScript stack and the libuv handles keeping the event loop alive; blocking and mutex contention
 * become the event-loop delay (the time callbacks waited because the one JavaScript thread was busy).
 */
export function createDiagnostics() {
  const startedAt = new Date();
  const eventLoopDelay = monitorEventLoopDelay({ resolution: 10 });
  eventLoopDelay.enable();

  return {
    /** The JavaScript stacks of the main and worker threads, active resources and libuv handles. */
    stacks(): string {
      const report = diagnosticReport();
      const handles = (report.libuv ?? []).map(({ type, is_active, is_referenced, address: _, ...rest }) => {
        const details = Object.entries(rest)
          .filter(([, value]) => value !== null && value !== undefined)
          .map(([key, value]) => `${key}=${describeValue(value)}`);
        const state = `${is_active ? 'active' : 'inactive'} ${is_referenced ? 'ref' : 'unref'}`;
        return `  ${type} ${state} ${details.join(' ')}`.trimEnd();
      });
      const workers = (report.workers ?? []).flatMap((worker) => [
        '',
        `JavaScript stack of worker thread ${worker.header?.threadId ?? '?'}:`,
        ...stackLines(worker),
      ]);
      return [
        'Node.js runs JavaScript on one thread per isolate: there are no goroutines. This page shows the',
        'JavaScript stack of each thread at the moment of the request and what keeps the event loop alive.',
        '',
        'JavaScript stack of the main thread:',
        ...stackLines(report),
        ...workers,
        '',
        'Active resources (process.getActiveResourcesInfo):',
        ...countBy(process.getActiveResourcesInfo()),
        '',
        'libuv handles:',
        ...handles,
        '',
      ].join('\n');
    },

    /** The event-loop delay histogram since the start, in milliseconds. */
    eventLoopDelay(): string {
      const ms = (ns: number) => (ns / NS_PER_MS).toFixed(3);
      const percentiles = [50, 90, 99, 99.9].map((p) => `p${p}: ${ms(eventLoopDelay.percentile(p))} ms`);
      return [
        'Node.js has no blocking or mutex profile: JavaScript runs on one thread, so what blocks is the event',
        'loop itself. This is the event-loop delay (how late timers fired, sampled every 10 ms) since',
        `${startedAt.toISOString()}.`,
        '',
        `samples: ${eventLoopDelay.count}`,
        `min: ${ms(eventLoopDelay.min)} ms`,
        `mean: ${ms(eventLoopDelay.mean)} ms`,
        `stddev: ${ms(eventLoopDelay.stddev)} ms`,
        `max: ${ms(eventLoopDelay.max)} ms`,
        ...percentiles,
        '',
      ].join('\n');
    },

    /** The process's native threads (Linux /proc) and its worker threads. */
    threads(): string {
      const workers = diagnosticReport().workers ?? [];
      return [
        ...nativeThreads(),
        '',
        `worker threads: ${workers.length}`,
        ...workers.map((worker) => `  thread id ${worker.header?.threadId ?? '?'}`),
        `libuv thread pool size: ${process.env.UV_THREADPOOL_SIZE ?? '4'} (threads start on first use)`,
        '',
      ].join('\n');
    },

    /** The command line, arguments separated by NUL as Go's /cmdline does. */
    commandLine(): string {
      return [process.argv0, ...process.execArgv, ...process.argv.slice(1)].join('\0');
    },

    close(): void {
      eventLoopDelay.disable();
    },
  };
}

function nativeThreads(): string[] {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return [`native threads: not listed on ${process.platform} (needs Linux /proc)`];
  }
  const lines = tids
    .map(Number)
    .sort((a, b) => a - b)
    .map((tid) => {
      let name = '?';
      try {
        name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      } catch {
        // The thread ended between listing and reading.
      }
      return `  ${tid} ${name}`;
    });
  return [`native threads: ${lines.length} (thread id, name)`, ...lines];
}

export type Diagnostics = ReturnType<typeof createDiagnostics>;
