import { encode, heap, time } from '@datadog/pprof';
import { Session } from 'node:inspector/promises';
import { systemTimers, type Timers } from '../clock.ts';
import { ConflictError } from '../errors.ts';

/** Average bytes allocated between two heap samples: Go's default `MemProfileRate`. */
const HEAP_SAMPLING_INTERVAL_BYTES = 512 * 1024;
const HEAP_STACK_DEPTH = 64;
/** 100 samples a second, the rate of Go's CPU profiler, so profiles read the same way. */
const CPU_SAMPLING_INTERVAL_MICROS = 10_000;

/**
 * Trace categories: V8 (GC, compilation), Node.js core and its async operations (timers, sockets, file
 * system, promises), performance marks, and V8's CPU profiler samples so Perfetto draws a flame chart.
 */
const TRACE_CATEGORIES = [
  'v8',
  'node',
  'node.async_hooks',
  'node.perf',
  'disabled-by-default-v8.cpu_profiler',
];

/** A trace ends early once it holds this many events, so a busy service cannot fill its memory with one. */
export const MAX_TRACE_EVENTS = 300_000;

/**
 * V8 has one CPU profiler and one tracing agent per process, so the guard is per process too: one CPU
 * profile or trace at a time, whichever app in the process asked for it.
 */
let running: string | undefined;
let heapSampling = false;

async function exclusively<T>(what: string, work: () => Promise<T>): Promise<T> {
  if (running !== undefined) {
    throw new ConflictError(`a ${running} is running; only one CPU profile or trace runs at a time`);
  }
  running = what;
  try {
    return await work();
  } finally {
    running = undefined;
  }
}

/** Waits `seconds` on `timers`, or less when `signal` aborts (client gone, service stopping). */
function waitUnlessAborted(timers: Timers, seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = timers.after(seconds * 1000, done);
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The sampling profilers behind /api/v1/pprof. The heap sampler runs from the start (as Go's does), so a
 * heap profile shows every live allocation sampled since then; its cost is one stack walk per 512 KiB
 * allocated. CPU profiles and traces run on request, for the asked duration, and stop early when the
 * caller's signal aborts or the profiler is closed. Their length runs on `timers` (tests move a manual
 * clock instead of waiting).
 */
export function createProfiler(timers: Timers = systemTimers) {
  // One sampler for the process, started by the first app and shared by any other.
  if (!heapSampling) {
    heap.start(HEAP_SAMPLING_INTERVAL_BYTES, HEAP_STACK_DEPTH);
    heapSampling = true;
  }
  const closing = new AbortController();

  return {
    /** A CPU profile in pprof protobuf, gzip-compressed (sample types: count, wall time, CPU time). */
    async cpuProfile(seconds: number, signal: AbortSignal): Promise<Buffer> {
      return exclusively('CPU profile', async () => {
        time.start({
          intervalMicros: CPU_SAMPLING_INTERVAL_MICROS,
          durationMillis: seconds * 1000,
          // CPU time per sample needs the sampler's context tracking.
          withContexts: true,
          collectCpuTime: true,
        });
        let profile: ReturnType<typeof time.stop>;
        try {
          await waitUnlessAborted(timers, seconds, AbortSignal.any([signal, closing.signal]));
        } finally {
          profile = time.stop();
        }
        return encode(profile);
      });
    },

    /** Live objects sampled since the start, in pprof protobuf, gzip-compressed (inuse objects, space). */
    async heapProfile(): Promise<Buffer> {
      return encode(heap.profile());
    },

    /**
     * A Chrome trace-event JSON document (`{"traceEvents": [...]}`), which Perfetto and chrome://tracing
     * open. It ends early when it reaches MAX_TRACE_EVENTS.
     */
    async trace(seconds: number, signal: AbortSignal): Promise<string> {
      return exclusively('trace', async () => {
        const session = new Session();
        session.connect();
        const events: object[] = [];
        const full = new AbortController();
        session.on('NodeTracing.dataCollected', (message) => {
          events.push(...message.params.value);
          if (events.length >= MAX_TRACE_EVENTS) full.abort();
        });
        const complete = new Promise<void>((resolve) => session.once('NodeTracing.tracingComplete', resolve));
        try {
          await session.post('NodeTracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES } });
          try {
            await waitUnlessAborted(timers, seconds, AbortSignal.any([signal, closing.signal, full.signal]));
          } finally {
            await session.post('NodeTracing.stop');
            await complete;
          }
        } finally {
          session.disconnect();
        }
        return JSON.stringify({ traceEvents: events });
      });
    },

    /** Ends a running CPU profile or trace early, so stopping the service does not wait for it. */
    close(): void {
      closing.abort();
    },
  };
}

export type Profiler = ReturnType<typeof createProfiler>;
