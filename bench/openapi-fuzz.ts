/**
 * The OpenAPI-driven fuzzer of test/hardening/openapi-fuzz.test.ts with many more requests and any seed:
 *
 *   node --import tsx bench/openapi-fuzz.ts [--requests 1000] [--seed 12]
 *
 * `--requests` per operation. Prints every request that broke the contract (a 5xx, an error body other
 * than {"error": "<string>"}, a leaked internal) and the CPU time per request, beside the CPU time of
 * building the same requests without sending them (the bare baseline, same run).
 */
import type { InjectOptions } from 'fastify';
import { parseArgs } from 'node:util';
import {
  fuzzRequest,
  operationsOf,
  prng,
  violation,
  type FuzzRequest,
  type OpenApiDocument,
} from '../test/helpers/openapi-fuzz.ts';
import { createApiToken, createTestApp, initialize } from '../test/helpers/test-app.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '12' },
    // Passed by `npm run bench` to every suite; this one is sized by --requests.
    seconds: { type: 'string' },
  },
});
const perOperation = Number(values.requests);
const seed = Number(values.seed);
/** Sample the process for `seconds` by design, or stream until the client leaves (see the test). */
const SAMPLING = new Set([
  'GET /api/v1/pprof/profile',
  'GET /api/v1/pprof/trace',
  'GET /api/v1/events/stream',
]);

const t = await createTestApp();
try {
  const token = await createApiToken(t, await initialize(t));
  const document = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json<OpenApiDocument>();
  const operations = operationsOf(document).filter((op) => !SAMPLING.has(`${op.method} ${op.path}`));

  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };

  // Baseline: the same requests, built and not sent.
  let rng = prng(seed);
  let start = process.cpuUsage();
  for (const operation of operations) {
    for (let i = 0; i < perOperation; i++) fuzzRequest(operation, rng, `Bearer ${token}`);
  }
  const baselineMs = cpuMs(start);

  rng = prng(seed);
  const failures = new Map<string, { count: number; example: FuzzRequest; problem: string }>();
  const statuses = new Map<number, number>();
  start = process.cpuUsage();
  for (const operation of operations) {
    for (let i = 0; i < perOperation; i++) {
      const request = fuzzRequest(operation, rng, `Bearer ${token}`);
      const response = await t.app.inject(request as InjectOptions);
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      const problem = violation(request, response);
      if (!problem) continue;
      // One line per operation and kind of problem.
      const key = `${operation.method} ${operation.path}: ${problem.slice(0, 60)}`;
      const seen = failures.get(key);
      if (seen) seen.count += 1;
      else failures.set(key, { count: 1, example: request, problem });
    }
  }
  const sentMs = cpuMs(start);
  const total = operations.length * perOperation;

  const lines = [
    `OpenAPI fuzz: seed ${seed}, ${operations.length} operations x ${perOperation} requests = ${total}`,
    `CPU per request: ${((1000 * sentMs) / total).toFixed(0)} µs sent and checked, ${((1000 * baselineMs) / total).toFixed(0)} µs only built (baseline)`,
    `statuses: ${[...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status} x ${n}`)
      .join(', ')}`,
    `requests that broke the contract: ${[...failures.values()].reduce((n, f) => n + f.count, 0)}`,
    ...[...failures].map(
      ([key, { count, example, problem }]) =>
        `  ${count} x ${key}\n    e.g. ${example.method} ${example.url.slice(0, 160)} ${JSON.stringify(example.headers['content-type'] ?? '')} ${String(example.payload ?? '').slice(0, 160)}\n    ${problem}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (failures.size > 0) process.exitCode = 1;
} finally {
  await t.close();
}
