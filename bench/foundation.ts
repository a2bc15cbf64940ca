import { compare, withService, type Comparison, type SuiteContext } from './harness.ts';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };

// Reads are cheap, so enough connections to keep the service busy. Each login costs tens of ms of scrypt
// CPU by design (on the libuv thread pool), so one connection per core already saturates the machine.
const READ_CONNECTIONS = 10;
const LOGIN_CONNECTIONS = 2;

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
    const rows: Comparison[] = [];
    rows.push(
      await compare(
        service,
        { name: 'GET /api/v1/status', request: { method: 'GET', path: '/api/v1/status' } },
        reads,
        log,
      ),
    );
    rows.push(
      await compare(
        service,
        {
          name: 'GET /api/v1/users/me (API token)',
          request: {
            method: 'GET',
            path: '/api/v1/users/me',
            headers: { authorization: `Bearer ${apiToken}` },
          },
        },
        reads,
        log,
      ),
    );
    rows.push(
      await compare(
        service,
        {
          name: 'POST /api/v1/auth/login',
          request: { method: 'POST', path: '/api/v1/auth/login', body: ADMIN },
        },
        logins,
        log,
      ),
    );
    return rows;
  });
}
