import {
  compare,
  withService,
  type Comparison,
  type Endpoint,
  type Load,
  type SuiteContext,
} from './harness.ts';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };

// Reads are cheap, so enough connections to keep the service busy. Each login costs tens of ms of scrypt
// CPU by design (on the libuv thread pool), so one connection per core already saturates the machine.
const READ_CONNECTIONS = 10;
const LOGIN_CONNECTIONS = 2;
// Issue 2: authenticated reads at 60% or more of the bare node:http ceiling.
const AUTHENTICATED_READ_GOAL = 0.6;

/** Status (public), the caller's own user with an API token (authenticated read), and a login. */
export async function run(context: SuiteContext): Promise<Comparison[]> {
  const { durationSeconds, log } = context;
  return withService({ nodeArgs: context.serviceNodeArgs, log }, async (service) => {
    const init = await service.call<{ result: { token: string } }>({
      method: 'POST',
      path: '/api/v1/init',
      body: ADMIN,
    });
    const created = await service.call<{ result: { token: string } }>({
      method: 'POST',
      path: '/api/v1/users/me/api-tokens',
      headers: { authorization: `Bearer ${init.result.token}` },
      body: { name: 'bench' },
    });
    const apiToken = created.result.token;

    const reads = { durationSeconds, connections: READ_CONNECTIONS };
    const logins = { durationSeconds, connections: LOGIN_CONNECTIONS };
    const endpoints = [
      { name: 'GET /api/v1/status', request: { method: 'GET', path: '/api/v1/status' }, load: reads },
      {
        name: 'GET /api/v1/users/me (API token)',
        request: {
          method: 'GET',
          path: '/api/v1/users/me',
          headers: { authorization: `Bearer ${apiToken}` },
        },
        load: reads,
        goal: AUTHENTICATED_READ_GOAL,
      },
      {
        name: 'POST /api/v1/auth/login',
        request: { method: 'POST', path: '/api/v1/auth/login', body: ADMIN },
        load: logins,
      },
    ] satisfies (Endpoint & { load: Load })[];
    const rows: Comparison[] = [];
    for (const { load, ...endpoint } of endpoints) rows.push(await compare(service, endpoint, load, log));
    return rows;
  });
}
