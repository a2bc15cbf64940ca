import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pino, { type Logger } from 'pino';
import type { Clock, Timers } from '../../src/clock.ts';
import { createCore, type Core } from '../../src/core/create-core.ts';
import type { EventStreamLimits } from '../../src/resources/event-stream/event-stream.routes.ts';
import { buildHttpApp, type RouteSummary } from '../../src/http/build-http-app.ts';
import type { NetworkSource } from '../../src/resources/status/health.ts';
import type { ConnectionLimits } from '../../src/http/connection-limits.ts';
import { sqliteFileOf, type Db } from '../../src/storage/database.ts';
import { openStorage } from '../../src/storage/storage.ts';
import type { RoleId } from '../../src/identity/roles.ts';
import { networkReports, type NetworkReports } from './network-reports.ts';
import { freshPostgresDatabase, onPostgres } from './postgres-test-database.ts';

/** A clock tests move by hand; it is also the timers of the app, fired as the clock passes them. */
export function manualClock(start = Date.parse('2026-11-22T10:00:00.000Z')): Clock &
  Timers & {
    advance(ms: number): void;
    set(ms: number): void;
    /** How many timers are waiting to fire. */
    pendingTimers(): number;
  } {
  let now = start;
  let sequence = 0;
  const timers = new Map<number, { due: number; callback: () => void }>();

  /** Moves to `target`, firing each timer due by then at its own time, earliest first. */
  function moveTo(target: number): void {
    for (;;) {
      let next: [number, { due: number; callback: () => void }] | undefined;
      for (const entry of timers) if (!next || entry[1].due < next[1].due) next = entry;
      if (!next || next[1].due > target) break;
      timers.delete(next[0]);
      now = Math.max(now, next[1].due);
      next[1].callback();
    }
    now = target;
  }

  return {
    now: () => now,
    advance: (ms) => moveTo(now + ms),
    set: (ms) => (ms >= now ? moveTo(ms) : void (now = ms)),
    after: (ms, callback) => {
      const id = ++sequence;
      timers.set(id, { due: now + Math.max(0, ms), callback });
      return () => void timers.delete(id);
    },
    pendingTimers: () => timers.size,
  };
}

export interface TestApp {
  core: Core;
  app: FastifyInstance;
  routes: RouteSummary[];
  db: Db;
  networkState: Core['networkState'];
  /** Reports as the network functions make them (network events), to set the network's picture up. */
  network: NetworkReports;
  records: Core['records']['ingestion'];
  decoders: Core['records']['decoders'];
  retention: Core['retention'];
  positioning: Core['location']['runner'];
  backgroundJobs: Core['backgroundJobs'];
  /** Sends a request with an optional bearer token; JSON bodies are encoded. */
  request(options: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  close: () => Promise<void>;
}

export const ADMIN = { email: 'admin@example.com', password: 'admin-password' };

/**
 * The whole service on an in-memory database (or the SQLite file `database`; with PMN_TEST_DB=postgres, a
 * fresh PostgreSQL database), with a cheap password hash so tests stay fast.
 */
export async function createTestApp(
  options: {
    clock?: Clock;
    /** Timers of the app (positioning sessions); a manual clock fires them as it moves. */
    timers?: Timers;
    loginRateLimit?: number;
    database?: string;
    restoreMaxBytes?: number;
    secretKey?: Buffer;
    /** Silent unless a test reads the logs. */
    logger?: Logger;
    connectionLimits?: Partial<ConnectionLimits>;
    /** Serve HTTPS with this certificate and key (PEM). */
    tls?: { cert: Buffer; key: Buffer };
    /** The network side the status's health view reads (main.ts passes its N2 component). */
    network?: NetworkSource;
    exportMaxRows?: number;
    eventStreamLimits?: Partial<EventStreamLimits>;
  } = {},
): Promise<TestApp> {
  const core = await createCore({
    storage: options.database
      ? { path: options.database }
      : onPostgres
        ? { path: await freshPostgresDatabase(), poolSize: 4 }
        : { path: ':memory:', image: await template() },
    logger: options.logger ?? pino({ level: 'silent' }),
    clock: options.clock,
    timers: options.timers,
    loginRateLimit: options.loginRateLimit,
    scryptCost: { N: 1024, r: 8, p: 1 },
    secretKey: options.secretKey ?? randomBytes(32),
    backgroundJobs: false,
  });
  const { app, routes } = await buildHttpApp(core, {
    restoreMaxBytes: options.restoreMaxBytes,
    connectionLimits: options.connectionLimits,
    tls: options.tls,
    network: options.network,
    exportMaxRows: options.exportMaxRows,
    eventStreamLimits: options.eventStreamLimits,
  });
  core.lifecycle.add({ name: 'http', stop: () => app.close() });
  await core.start();
  return {
    core,
    app,
    routes,
    db: core.db,
    networkState: core.networkState,
    network: networkReports(core),
    records: core.records.ingestion,
    decoders: core.records.decoders,
    retention: core.retention,
    positioning: core.location.runner,
    backgroundJobs: core.backgroundJobs,
    request: ({ token, headers, ...rest }) =>
      app.inject({
        ...rest,
        headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      }),
    close: () => core.stop(),
  };
}

let templateImage: Promise<Buffer> | undefined;

/**
 * A migrated empty database, serialized once per test process: each app opens an in-memory copy of it
 * instead of running every migration again.
 */
function template(): Promise<Buffer> {
  templateImage ??= (async () => {
    const storage = await openStorage({ path: ':memory:' });
    const image = sqliteFileOf(storage.db).serialize();
    await storage.close();
    return image;
  })();
  return templateImage;
}

/** Initializes the service and returns the first admin's bearer token. */
export async function initialize(t: TestApp): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
  if (response.statusCode !== 201) throw new Error(`init failed: ${response.body}`);
  return response.json<{ result: { token: string } }>().result.token;
}

/** Creates a user with the role and returns a bearer token from its login. */
export async function userWithRole(
  t: TestApp,
  adminToken: string,
  roleId: RoleId,
  email = `role${roleId}@example.com`,
): Promise<string> {
  const password = 'user-password';
  const created = await t.request({
    method: 'POST',
    url: '/api/v1/users',
    token: adminToken,
    payload: { email, password, role_id: roleId },
  });
  if (created.statusCode !== 201) throw new Error(`create user failed: ${created.body}`);
  return login(t, email, password);
}

export async function login(t: TestApp, email: string, password: string): Promise<string> {
  const response = await t.request({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email, password },
  });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.body}`);
  return response.json<{ result: { token: string } }>().result.token;
}

/** Creates an API token for the bearer's own user and returns it. */
export async function createApiToken(t: TestApp, bearer: string, name = 'test token'): Promise<string> {
  const response = await t.request({
    method: 'POST',
    url: '/api/v1/users/me/api-tokens',
    token: bearer,
    payload: { name },
  });
  if (response.statusCode !== 201) throw new Error(`create API token failed: ${response.body}`);
  return result<{ token: string }>(response).token;
}

/** The `result` member of a JSON body. */
/** A GET's status and JSON body, for one `deepEqual` against e.g. `[400, { error }]`. */
export async function answerTo(t: TestApp, url: string, token: string): Promise<[number, unknown]> {
  const response = await t.request({ method: 'GET', url, token });
  return [response.statusCode, response.json()];
}

export function result<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return response.json<{ result: T }>().result;
}

/** The audit entries, newest first, as an admin sees them. */
export async function auditEntries(
  t: TestApp,
  adminToken: string,
): Promise<{ action: string; actor: string; details: string; level: string; ip: string }[]> {
  const response = await t.request({
    method: 'GET',
    url: '/api/v1/logs/audit?per_page=100',
    token: adminToken,
  });
  return result<{ items: { action: string; actor: string; details: string; level: string; ip: string }[] }>(
    response,
  ).items;
}
