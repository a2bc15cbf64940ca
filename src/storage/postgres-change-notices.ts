import { randomUUID } from 'node:crypto';
import { sql as kyselySql } from 'kysely';
import type postgres from 'postgres';
import type { ChangeNotices, NoticeListener } from './change-notices.ts';
import type { Executor } from './transaction.ts';

/** The one channel every PMN Core process on the database listens on. */
export const NOTICE_CHANNEL = 'pmn_core_changes';
/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more; notices are packed below that. */
const MAX_PAYLOAD_BYTES = 7_900;
/** Messages waiting to be sent (the database unreachable) beyond which they give way to one "missed". */
const MAX_PENDING = 100;
/** Pause before sending again after a failure. */
const RETRY_MS = 1_000;

/** What is sent: the sender's id, and either notices `[topic, detail]` or `missed` (forget everything). */
interface Message {
  o: string;
  n?: [string, unknown][];
  m?: true;
}

/**
 * Change notices over LISTEN/NOTIFY. The process listens on its own connection (Postgres.js opens one
 * for LISTEN, and after it is lost reconnects, to whichever host the URL's `target_session_attrs`
 * accepts, and listens again); when it listens again, notices sent meanwhile were lost, so the
 * `onMissed` listeners run. Notices sent after a commit are packed into as few NOTIFYs as fit, sent
 * on the pool; while that fails they wait and are sent again, and past `MAX_PENDING` messages they are
 * replaced by one "missed" message. `report` hears failures (logged by the caller).
 */
export async function openPostgresChangeNotices(
  client: postgres.Sql,
  report: (message: string, error?: unknown) => void,
): Promise<ChangeNotices> {
  const origin = randomUUID();
  const listeners = new Map<string, Set<NoticeListener>>();
  const missedListeners = new Set<() => void | Promise<void>>();
  let queued: [string, unknown][] = [];
  let pending: string[] = [];
  let sending: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  function safely(run: () => void | Promise<void>, what: string): void {
    const failed = (error: unknown) => report(`a change notice listener failed (${what})`, error);
    try {
      run()?.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  function missed(): void {
    for (const listener of missedListeners) safely(listener, 'missed');
  }

  function received(payload: string): void {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch {
      return report('a change notice that is not JSON was ignored');
    }
    if (typeof message !== 'object' || message === null || typeof message.o !== 'string') {
      return report('a change notice without a sender was ignored');
    }
    if (message.o === origin) return;
    if (message.m === true) return missed();
    if (!Array.isArray(message.n)) return report('a change notice without notices was ignored');
    for (const notice of message.n) {
      if (!Array.isArray(notice) || typeof notice[0] !== 'string') continue;
      const [topic, detail] = notice;
      for (const listener of listeners.get(topic) ?? []) safely(() => listener(detail), topic);
    }
  }

  /** The queued notices as messages of at most MAX_PAYLOAD_BYTES (a notice too large alone is dropped). */
  function pack(notices: [string, unknown][]): string[] {
    const messages: string[] = [];
    let batch: [string, unknown][] = [];
    const text = (n: [string, unknown][]) => JSON.stringify({ o: origin, n } satisfies Message);
    for (const notice of notices) {
      if (Buffer.byteLength(text([...batch, notice])) <= MAX_PAYLOAD_BYTES) {
        batch.push(notice);
        continue;
      }
      if (batch.length > 0) messages.push(text(batch));
      batch = [notice];
      if (Buffer.byteLength(text(batch)) > MAX_PAYLOAD_BYTES) {
        report(`a change notice of ${notice[0]} too large to send was replaced by "missed"`);
        messages.push(JSON.stringify({ o: origin, m: true } satisfies Message));
        batch = [];
      }
    }
    if (batch.length > 0) messages.push(text(batch));
    return messages;
  }

  async function flush(): Promise<void> {
    pending.push(...pack(queued));
    queued = [];
    if (pending.length > MAX_PENDING) pending = [JSON.stringify({ o: origin, m: true } satisfies Message)];
    while (pending.length > 0) {
      const message = pending[0] as string;
      try {
        await client`select pg_notify(${NOTICE_CHANNEL}, ${message})`;
      } catch (error) {
        if (!closed) {
          report('change notices could not be sent; trying again', error);
          retry = setTimeout(schedule, RETRY_MS);
          retry.unref();
        }
        return;
      }
      pending.shift();
    }
  }

  function schedule(): void {
    retry = undefined;
    if (closed || sending) return;
    sending = new Promise<void>((resolve) => setImmediate(resolve)).then(flush).finally(() => {
      sending = undefined;
      if (queued.length > 0 && !retry) schedule();
    });
  }

  let listened = 0;
  // The first LISTEN before anything is read from the database: no change can slip between the two.
  await client.listen(NOTICE_CHANNEL, received, () => {
    listened += 1;
    if (listened > 1) missed();
  });

  return {
    send(topic, detail) {
      if (closed) return;
      queued.push([topic, detail]);
      if (!retry) schedule();
    },
    async sendWithin(executor: Executor, topic, detail) {
      const message = JSON.stringify({ o: origin, n: [[topic, detail]] } satisfies Message);
      await kyselySql`select pg_notify(${NOTICE_CHANNEL}, ${message})`.execute(executor);
    },
    listen(topic, listener) {
      let set = listeners.get(topic);
      if (!set) listeners.set(topic, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
    onMissed(listener) {
      missedListeners.add(listener);
      return () => void missedListeners.delete(listener);
    },
    async close() {
      if (retry) clearTimeout(retry);
      retry = undefined;
      await sending;
      closed = true;
      if (retry) clearTimeout(retry);
    },
  };
}
