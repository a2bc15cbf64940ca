import type { Logger } from 'pino';

export type Job = (signal: AbortSignal) => Promise<void>;

/**
 * Runs background jobs at start and then on a fixed interval, never two runs of one job at once.
 * `stop` cancels the timers, tells running jobs to stop (through their AbortSignal) and waits for them.
 */
export function createScheduler(logger: Logger) {
  const controller = new AbortController();
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();

  function run(name: string, job: Job, busy: { value: boolean }): Promise<void> {
    if (busy.value || controller.signal.aborted) return Promise.resolve();
    busy.value = true;
    const execution = job(controller.signal)
      .catch((error: unknown) => logger.error({ err: error, job: name }, `background job ${name} failed`))
      .finally(() => {
        busy.value = false;
        running.delete(execution);
      });
    running.add(execution);
    return execution;
  }

  return {
    /** Schedules `job` every `intervalMs`; the first run starts now and its promise is returned. */
    every(name: string, intervalMs: number, job: Job): Promise<void> {
      const busy = { value: false };
      const timer = setInterval(() => void run(name, job, busy), intervalMs);
      timer.unref();
      timers.add(timer);
      return run(name, job, busy);
    },

    async stop(): Promise<void> {
      controller.abort();
      for (const timer of timers) clearInterval(timer);
      timers.clear();
      await Promise.all(running);
    },
  };
}
