/**
 * The service as the PostgreSQL benchmarks run it (bench/postgres-goals.ts, bench/postgres-page-profile.ts):
 * core and Fastify app in the benchmark's process, requests through `inject`, on an SQLite path or a
 * PostgreSQL URL, with an admin and an API token; and subscribers inserted by SQL.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createCore } from '../src/core/create-core.ts';
import { buildHttpApp } from '../src/http/build-http-app.ts';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const secretKey = randomBytes(32);

export type Dialect = 'sqlite' | 'postgres';

/** The service on `path` (an SQLite file or a PostgreSQL URL), started, with an admin's API token. */
export async function startService(path: string) {
  const core = await createCore({
    storage: { path, poolSize: 10 },
    logger: pino({ level: 'silent' }),
    secretKey,
    scryptCost: { N: 1024, r: 8, p: 1 },
    backgroundJobs: false,
  });
  const { app } = await buildHttpApp(core, {});
  core.lifecycle.add({ name: 'http', stop: () => app.close() });
  await core.start();
  const call = async (method: 'GET' | 'POST', url: string, token?: string, payload?: object) => {
    const response = await app.inject({
      method,
      url,
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      ...(payload === undefined ? {} : { payload }),
    });
    if (response.statusCode > 299) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json<{ result: Record<string, unknown> }>().result;
  };
  const session = (await call('POST', '/api/v1/init', undefined, ADMIN)).token as string;
  const token = (await call('POST', '/api/v1/users/me/api-tokens', session, { name: 'bench' }))
    .token as string;
  return { core, call, token, stop: () => core.stop() };
}

export type Service = Awaited<ReturnType<typeof startService>>;

/** `count` subscribers under the first profile, by SQL (sealed values are placeholders: lists never open them). */
export async function seedSubscribers(service: Service, dialect: Dialect, count: number): Promise<void> {
  const imsi = dialect === 'sqlite' ? sql`printf('00101%010d', i)` : sql`'00101' || lpad(i::text, 10, '0')`;
  for (let first = 1; first <= count; first += 100_000) {
    const last = Math.min(count, first + 99_999);
    await sql`with recursive n(i) as (select ${sql.lit(first)} union all select i + 1 from n where i < ${sql.lit(last)})
      insert into subscribers (imsi, profile_id, key_sealed, opc_sealed, sequence_number, created_at)
      select ${imsi}, (select min(id) from profiles), 'k', 'o', '000000000001', 1 from n`.execute(
      service.core.db,
    );
  }
}
