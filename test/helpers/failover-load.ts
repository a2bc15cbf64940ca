import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { newSubscriber } from './network.ts';
import { spawnService } from './service-process.ts';

/**
 * What the database failover tests share (test/system/postgres-failover.test.ts, plain streaming
 * replication; postgres-patroni.test.ts, Patroni): the service as a process on a database URL, and a
 * load of subscriber creations whose every answer is kept.
 */

/** A request that has not answered after this long hangs (the connect timeout is 10 s). */
const HANG_MS = 15_000;
/** Concurrent writers creating subscribers, per service. */
const WRITERS = 3;

export interface Outcome {
  imsi: string;
  status: number | 'hang' | 'network error';
  body: string;
  /** When the request was sent and answered (ms since the epoch). */
  sent: number;
  answered: number;
}

/** Polls `done` every 50 ms; fails after `ms` (30 s), with `detail()` in the message. */
export async function until(
  what: string,
  done: () => boolean,
  detail = () => '',
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}${detail()}`);
    await sleep(50);
  }
}

/** A service process and its log. */
export interface Service {
  child: ChildProcessWithoutNullStreams;
  base: string;
  output: () => string;
}

/**
 * The production bundle on database `url` (N2 off), listening on a free port; `dir` holds its key file.
 * Added to `services` before it listens, so the caller's cleanup stops one that never does.
 */
export async function startService(url: string, dir: string, services: Service[]): Promise<Service> {
  const child = spawnService([
    '--listen',
    '127.0.0.1:0',
    '--n2-transport',
    'off',
    '--db',
    url,
    '--secret-key-file',
    join(dir, 'core.key'),
  ]);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const service = { child, base: '', output: () => output };
  services.push(service);
  await until(
    'the service to listen',
    () => /listening on http:\/\/\S+/.test(output),
    () => output,
  );
  service.base = /listening on (http:\/\/[^"\s]+)/.exec(output)?.[1] as string;
  return service;
}

/** Stops the services still running (SIGTERM) and waits for each to exit. */
export async function stopServices(services: readonly Service[]): Promise<void> {
  for (const { child } of services) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** The first admin's API token on a fresh service: verified once, then from memory, so writes test the database. */
export async function apiToken(base: string): Promise<string> {
  const init = await fetch(`${base}/api/v1/init`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin-password' }),
  });
  assert.equal(init.status, 201, await init.clone().text());
  const token = ((await init.json()) as { result: { token: string } }).result.token;
  const created = await fetch(`${base}/api/v1/users/me/api-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'load' }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  return ((await created.json()) as { result: { token: string } }).result.token;
}

/** The writes one service answered, made by `WRITERS` writers creating subscribers from `first` on. */
export function writeLoad(base: string, token: string, first: number) {
  const outcomes: Outcome[] = [];
  let next = first;
  let running = true;
  async function write(): Promise<Outcome> {
    const subscriber = newSubscriber(next++);
    const sent = Date.now();
    try {
      const response = await fetch(`${base}/api/v1/subscribers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(subscriber),
        signal: AbortSignal.timeout(HANG_MS),
      });
      const body = await response.text();
      return { imsi: subscriber.imsi as string, status: response.status, body, sent, answered: Date.now() };
    } catch (error) {
      const status = (error as Error).name === 'TimeoutError' ? 'hang' : 'network error';
      return { imsi: subscriber.imsi as string, status, body: String(error), sent, answered: Date.now() };
    }
  }
  const writers = Array.from({ length: WRITERS }, async () => {
    while (running) {
      const outcome = await write();
      outcomes.push(outcome);
      // A refused write is tried again with the next IMSI after a pause, as a client told Retry-After would.
      if (outcome.status !== 201) await sleep(50);
    }
  });
  return {
    outcomes,
    /** Answers of `status` to writes sent after `since`. */
    answered: (status: number, since = 0) => outcomes.filter((o) => o.sent > since && o.status === status),
    /** Answers other than an acknowledgement or a 503 with an error: a 500, a hang, a dropped connection. */
    unexpected: () =>
      outcomes
        .filter((o) => o.status !== 201 && !(o.status === 503 && /^\{"error":"[^"]+"\}$/.test(o.body)))
        .map((o) => `${o.status} ${o.body}`),
    /** The answers so far, for a failure's message: status and body, grouped, and the slowest. */
    summary: () => {
      const seen = new Map<string, number>();
      for (const o of outcomes) {
        const key = `${o.status} ${o.body.replace(/\d{15}/g, 'IMSI').slice(0, 160)}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      const slowest = Math.max(0, ...outcomes.map((o) => o.answered - o.sent));
      return `; answers: ${JSON.stringify([...seen])}, slowest ${slowest} ms`;
    },
    async stop(): Promise<void> {
      running = false;
      await Promise.all(writers);
    },
  };
}
