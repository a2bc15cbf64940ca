import type { Executor } from './transaction.ts';

/** Hears the notices of one topic sent by the other processes on the database (a rejection is logged). */
export type NoticeListener = (detail: unknown) => void | Promise<void>;

/**
 * How the processes on one database tell each other of committed changes, so that what each keeps in
 * memory from the database (verified API tokens, the signing secret, configuration it reacts to, counts)
 * follows changes made through another. On SQLite one process owns the file and nothing is sent; on
 * PostgreSQL notices travel by LISTEN/NOTIFY (postgres-change-notices.ts). Nothing here names a dialect.
 *
 * A notice reaches the other processes only: the sender has already acted on its own change. Its
 * `detail` comes from another process and is checked by whoever hears it.
 */
export interface ChangeNotices {
  /** Tells the others of a change that has committed (sent shortly after, several in one message). */
  send(topic: string, detail: unknown): void;
  /** Sends the notice with the transaction `executor` runs: delivered if and when it commits. */
  sendWithin(executor: Executor, topic: string, detail: unknown): Promise<void>;
  /** Hears the notices of `topic` from other processes; returns the function that stops it. */
  listen(topic: string, listener: NoticeListener): () => void;
  /**
   * Runs `listener` when notices may have been lost (the connection that listens was lost and is back,
   * or notices could not be sent): whatever was kept in memory is then forgotten or read again.
   */
  onMissed(listener: () => void | Promise<void>): () => void;
  close(): Promise<void>;
}

/** One process on an SQLite file: there is nobody to tell, and nobody will tell us anything. */
export const localChangeNotices: ChangeNotices = {
  send: () => {},
  sendWithin: () => Promise.resolve(),
  listen: () => () => {},
  onMissed: () => () => {},
  close: () => Promise.resolve(),
};
