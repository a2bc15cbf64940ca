import { createSseParser, type SseEvent } from './sse.ts';

/** What opening the stream answers: its status and, when 200, the body as text chunks. */
export interface StreamAnswer {
  status: number;
  chunks: AsyncIterable<string> | undefined;
}

/** Opens the stream once, resuming after `lastEventId` (the Last-Event-ID header) when given. */
export type OpenStream = (lastEventId: string | undefined, signal: AbortSignal) => Promise<StreamAnswer>;

/** Waits before trying again, ended early by the signal. */
export type Wait = (ms: number, signal: AbortSignal) => Promise<void>;

/** After a stream ends or cannot be opened: 2 s, then 5 s, then 15 s apart (a service restarting). */
const RETRY_MS = [2_000, 5_000, 15_000];

/**
 * Keeps the live event stream open until `signal` aborts: every event to `onEvent`, whether it is open to
 * `onOpen`. When the stream ends (a restart, a cut for reading slowly) it opens again with the last id
 * seen, so the service replays what was missed, or sends `gap` first when that left its window. A 401 or
 * 403 stops it: the session ended, or the role may not read the records.
 */
export async function runEventStream(options: {
  open: OpenStream;
  onEvent: (event: SseEvent) => void;
  onOpen?: (open: boolean) => void;
  signal: AbortSignal;
  wait?: Wait;
}): Promise<void> {
  const { open, onEvent, onOpen, signal, wait = sleep } = options;
  let lastEventId: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const answer = await open(lastEventId, signal);
      if (answer.status === 401 || answer.status === 403) return;
      if (answer.status === 200 && answer.chunks) {
        onOpen?.(true);
        failures = 0;
        const parse = createSseParser();
        for await (const chunk of answer.chunks) {
          for (const event of parse(chunk)) {
            if (event.id !== undefined) lastEventId = event.id;
            onEvent(event);
          }
        }
      }
    } catch {
      // A dropped connection, or the abort: the loop decides.
    }
    onOpen?.(false);
    if (signal.aborted) return;
    await wait(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] ?? 15_000, signal);
    failures += 1;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
