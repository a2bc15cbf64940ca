// Network configuration suite (issue 3, item 9): with 100,000 subscribers in the database, a page of 100
// subscribers at the first, a middle and the last page, a single read of a random subscriber, and
// subscriber creation through the API, each beside the bare node:http ceiling; plus the time of each
// import of 10,000 subscribers (the 100,000 are seeded that way).
//
//   npm run bench -- --only network-configuration [--duration SECONDS]
//   npx tsx bench/network-configuration.ts [--duration SECONDS]     (the same)
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, withService, type Comparison, type Endpoint, type SuiteContext } from './harness.ts';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const SUBSCRIBERS = 100_000;
const IMPORT_BATCH = 10_000;
const CONNECTIONS = 10;
// Issue 3: a single read at 50% of the bare ceiling or more, a page of 100 at 25% or more, and an import
// of 10,000 subscribers in under 3 seconds.
const SINGLE_READ_GOAL = 0.5;
const PAGE_GOAL = 0.25;
const IMPORT_GOAL_SECONDS = 3;

const imsiOf = (n: number): string => `00101${String(n).padStart(10, '0')}`;
const subscriber = (n: number) => ({
  imsi: imsiOf(n),
  key: '465b5ce8b199b49faa5f0a2ee238a6bc',
  sequenceNumber: '000000000001',
  profile_name: 'default',
});

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
    const headers = { authorization: `Bearer ${created.result.token}` };

    const seconds: number[] = [];
    for (let start = 0; start < SUBSCRIBERS; start += IMPORT_BATCH) {
      const body = Array.from({ length: IMPORT_BATCH }, (_, i) => subscriber(start + i));
      const began = performance.now();
      await service.call({ method: 'POST', path: '/api/v1/subscribers/import', headers, body });
      seconds.push((performance.now() - began) / 1000);
    }
    const slowest = Math.max(...seconds);
    log(
      `import of ${IMPORT_BATCH} subscribers (JSON, as the client sees it), ${seconds.length} times: ` +
        `${seconds.map((s) => s.toFixed(2)).join(', ')} s; slowest ${slowest.toFixed(2)} s, ` +
        `${Math.round(IMPORT_BATCH / slowest)} subscribers/s (goal: under ${IMPORT_GOAL_SECONDS} s)`,
    );

    const lastPage = SUBSCRIBERS / 100;
    let nextImsi = SUBSCRIBERS;
    const endpoints: Endpoint[] = [
      // Not a network route: the floor every authenticated request pays, measured in the same run.
      {
        name: 'GET /api/v1/users/me (reference: authentication only)',
        request: { method: 'GET', path: '/api/v1/users/me', headers },
      },
      ...[1, lastPage / 2, lastPage].map((page) => ({
        name: `GET /api/v1/subscribers?per_page=100&page=${page}`,
        request: { method: 'GET' as const, path: `/api/v1/subscribers?per_page=100&page=${page}`, headers },
        goal: PAGE_GOAL,
      })),
      {
        name: 'GET /api/v1/subscribers/{imsi} (random IMSI)',
        request: {
          method: 'GET',
          path: `/api/v1/subscribers/${imsiOf(0)}`,
          headers,
          vary: () => ({ path: `/api/v1/subscribers/${imsiOf(Math.floor(Math.random() * SUBSCRIBERS))}` }),
        },
        goal: SINGLE_READ_GOAL,
      },
      {
        // Each request creates a new subscriber, so req/s here is subscribers created per second.
        name: 'POST /api/v1/subscribers (new IMSI each)',
        request: {
          method: 'POST',
          path: '/api/v1/subscribers',
          headers,
          body: subscriber(nextImsi++),
          vary: () => ({ body: subscriber(nextImsi++) }),
        },
      },
    ];
    const rows: Comparison[] = [];
    for (const endpoint of endpoints) {
      rows.push(await compare(service, endpoint, { durationSeconds, connections: CONNECTIONS }, log));
    }
    return rows;
  });
}

// Run by itself: the same as `npm run bench -- --only network-configuration` with the given flags.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.argv.splice(2, 0, '--only', 'network-configuration');
  await import('./run.ts');
}
