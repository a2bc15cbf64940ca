import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { Profile } from 'pprof-format';
import { ROLE } from '../../src/identity/roles.ts';
import {
  createApiToken,
  createTestApp,
  initialize,
  manualClock,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';

const BASE = '/api/v1/pprof';

const PATHS: { method: 'GET' | 'POST'; path: string }[] = [
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/allocs' },
  { method: 'GET', path: '/block' },
  { method: 'GET', path: '/cmdline' },
  { method: 'GET', path: '/goroutine' },
  { method: 'GET', path: '/heap' },
  { method: 'GET', path: '/mutex' },
  { method: 'GET', path: '/profile?seconds=1' },
  { method: 'GET', path: '/threadcreate' },
  { method: 'GET', path: '/trace?seconds=1' },
  { method: 'GET', path: '/symbol' },
  { method: 'POST', path: '/symbol' },
];

interface DecodedProfile {
  sampleTypes: string[];
  samples: number;
  functionNames: Set<string>;
}

/** Decodes a gzip-compressed pprof protobuf answer as `go tool pprof` would read it. */
function decodePprof(response: LightMyRequestResponse): DecodedProfile {
  const bytes = response.rawPayload;
  assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b], 'gzip magic');
  const profile = Profile.decode(gunzipSync(bytes));
  const text = (index: number | bigint) => profile.stringTable.strings[Number(index)] ?? '';
  return {
    sampleTypes: profile.sampleType.map((type) => `${text(type.type)}/${text(type.unit)}`),
    samples: profile.sample.length,
    functionNames: new Set(profile.function.map((fn) => text(fn.name))),
  };
}

/** Keeps the JavaScript thread busy for `ms` of CPU time, so CPU samples land in a function the test can name. */
function burnCpuForProfile(ms: number): number {
  let x = 0;
  const start = process.cpuUsage();
  for (;;) {
    for (let i = 0; i < 100_000; i++) x += Math.sqrt(x + 1);
    const used = process.cpuUsage(start);
    if (used.user + used.system >= ms * 1000) return x;
  }
}

/** The functions the samples land in: V8 may inline the loop into its caller once it is optimised. */
const BURNERS = ['burnCpuForProfile', 'burnWhileRunning'];
const hasBurner = (names: Set<string>) => BURNERS.some((name) => names.has(name));

/** 200 ms of CPU: about 20 samples at the profiler's 100 a second, however loaded the machine. */
function burnWhileRunning(): void {
  burnCpuForProfile(200);
}

const retained: object[] = [];
/** Allocates objects that stay alive, so the heap sampler holds samples in a function the test can name. */
function retainForHeapProfile(): void {
  for (let i = 0; i < 200_000; i++) retained.push({ i, text: `retained-${i}` });
}

describe('profiling (/api/v1/pprof)', () => {
  let t: TestApp;
  let admin: string;
  let adminApiToken: string;
  let readOnly: string;
  let networkManager: string;
  // The length of CPU profiles and traces runs on this clock: the test moves it instead of waiting.
  const time = manualClock();

  /**
   * Sends a profile or trace request; once it runs (its timer waits), calls `whileRunning` and moves the
   * clock past its `seconds`. A refused request answers without starting a timer.
   */
  async function profiled<T>(send: () => Promise<T>, seconds: number, whileRunning = () => {}): Promise<T> {
    const timers = time.pendingTimers();
    let answered = false;
    const pending = send().finally(() => {
      answered = true;
    });
    await until(
      'the request answered or its profile started',
      () => answered || time.pendingTimers() !== timers,
      () => `${time.pendingTimers()} timers`,
      { everyMs: 0 },
    );
    if (!answered) {
      whileRunning();
      time.advance(seconds * 1000);
    }
    return pending;
  }

  before(async () => {
    t = await createTestApp({ timers: time });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    networkManager = await userWithRole(t, admin, ROLE.networkManager);
    adminApiToken = await createApiToken(t, admin, 'pprof scraper');
  });
  after(() => t.close());

  describe('access', () => {
    it('answers 401 without credentials on every path', async () => {
      for (const { method, path } of PATHS) {
        const response = await t.request({ method, url: `${BASE}${path}` });
        assert.equal(response.statusCode, 401, `${method} ${path}`);
      }
    });

    it('answers 403 to the read-only and network manager roles on every path', async () => {
      for (const { method, path } of PATHS) {
        for (const token of [readOnly, networkManager]) {
          const response = await t.request({ method, url: `${BASE}${path}`, token });
          assert.equal(response.statusCode, 403, `${method} ${path}`);
          assert.match(response.json<{ error: string }>().error, /needs profiling/);
        }
      }
    });

    it('serves an admin using an API token as well as a session bearer token', async () => {
      for (const token of [adminApiToken, admin]) {
        const response = await t.request({ method: 'GET', url: `${BASE}/heap`, token });
        assert.equal(response.statusCode, 200);
      }
    });
  });

  describe('GET /api/v1/pprof/profile', () => {
    it('returns a CPU profile in gzip pprof protobuf holding samples and function names', async () => {
      const response = await profiled(
        () => t.request({ method: 'GET', url: `${BASE}/profile?seconds=1`, token: adminApiToken }),
        1,
        burnWhileRunning,
      );
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/octet-stream');
      assert.match(
        String(response.headers['content-disposition']),
        /^attachment; filename="profile\.pb\.gz"$/,
      );
      const profile = decodePprof(response);
      assert.ok(profile.sampleTypes.includes('cpu/nanoseconds'), profile.sampleTypes.join(', '));
      assert.ok(profile.samples > 0);
      assert.ok(hasBurner(profile.functionNames), [...profile.functionNames].join(', '));
    });

    it('rejects seconds outside 1..300 or not an integer with 400 naming it', async () => {
      for (const seconds of ['0', '301', '-5', '1.5', 'abc']) {
        const response = await t.request({
          method: 'GET',
          url: `${BASE}/profile?seconds=${seconds}`,
          token: admin,
        });
        assert.equal(response.statusCode, 400, seconds);
        assert.deepEqual(response.json(), {
          error: 'query parameter seconds must be an integer from 1 to 300',
        });
      }
    });

    it('runs one CPU profile or trace at a time: a second one answers 409', async () => {
      const [first, second] = await profiled(
        () =>
          Promise.all([
            t.request({ method: 'GET', url: `${BASE}/profile?seconds=1`, token: admin }),
            t.request({ method: 'GET', url: `${BASE}/trace?seconds=1`, token: admin }),
          ]),
        1,
      );
      assert.deepEqual([first.statusCode, second.statusCode].sort(), [200, 409]);
      const refused = first.statusCode === 409 ? first : second;
      assert.match(refused.json<{ error: string }>().error, /only one CPU profile or trace runs at a time/);
    });

    it(
      'stops early when the client disconnects, so the next profile can start',
      { timeout: 60_000 },
      async () => {
        const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
        const { port } = t.app.server.address() as AddressInfo;
        const get = (path: string) =>
          new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
            const req = httpRequest(`${address}${BASE}${path}`, {
              headers: { authorization: `Bearer ${admin}` },
            });
            req.on('response', (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
            });
            req.on('error', reject);
            req.end();
          });

        const long = httpRequest({
          host: '127.0.0.1',
          port,
          path: `${BASE}/profile?seconds=300`,
          headers: { authorization: `Bearer ${admin}` },
        });
        long.on('error', () => undefined);
        long.end();
        // The 300 s profile is running once another profile is refused.
        while ((await profiled(() => get('/profile?seconds=1'), 1)).status !== 409);
        long.destroy();
        // Were the profile not stopped, every later one would be refused until the clock passed 300 s.
        let next: { status: number };
        do next = await profiled(() => get('/profile?seconds=1'), 1);
        while (next.status === 409);
        assert.equal(next.status, 200);
      },
    );
  });

  describe('GET /api/v1/pprof/heap and /allocs', () => {
    it('return a heap profile in gzip pprof protobuf holding samples and function names', async () => {
      retainForHeapProfile();
      for (const path of ['/heap', '/allocs']) {
        const response = await t.request({ method: 'GET', url: `${BASE}${path}`, token: admin });
        assert.equal(response.statusCode, 200, path);
        assert.equal(response.headers['content-type'], 'application/octet-stream');
        const profile = decodePprof(response);
        assert.deepEqual(profile.sampleTypes, ['inuse_objects/count', 'inuse_space/bytes']);
        assert.ok(profile.samples > 0);
        assert.ok(profile.functionNames.has('retainForHeapProfile'), [...profile.functionNames].join(', '));
      }
    });
  });

  describe('GET /api/v1/pprof/trace', () => {
    it('returns Chrome trace-event JSON with events and CPU samples naming functions', async () => {
      const response = await profiled(
        () => t.request({ method: 'GET', url: `${BASE}/trace?seconds=1`, token: admin }),
        1,
        burnWhileRunning,
      );
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.match(String(response.headers['content-disposition']), /filename="trace\.json"/);
      const { traceEvents } = response.json<{
        traceEvents: { name: string; ph: string; args?: { data?: { cpuProfile?: { nodes?: unknown[] } } } }[];
      }>();
      assert.ok(traceEvents.length > 0);
      assert.ok(traceEvents.every((event) => typeof event.name === 'string' && typeof event.ph === 'string'));
      const functionNames = new Set(
        traceEvents
          .flatMap((event) => event.args?.data?.cpuProfile?.nodes ?? [])
          .map((node) => (node as { callFrame: { functionName: string } }).callFrame.functionName),
      );
      assert.ok(hasBurner(functionNames), [...functionNames].join(', '));
    });

    it('rejects seconds outside 1..60 with 400 naming it', async () => {
      for (const seconds of ['0', '61', 'x']) {
        const response = await t.request({
          method: 'GET',
          url: `${BASE}/trace?seconds=${seconds}`,
          token: admin,
        });
        assert.equal(response.statusCode, 400, seconds);
        assert.deepEqual(response.json(), {
          error: 'query parameter seconds must be an integer from 1 to 60',
        });
      }
    });
  });

  describe('text pages', () => {
    it('GET /goroutine shows the JavaScript stack and the libuv handles', async () => {
      const response = await t.request({ method: 'GET', url: `${BASE}/goroutine`, token: admin });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain/);
      assert.match(response.body, /JavaScript stack of the main thread:\n {2}at /);
      assert.match(response.body, /libuv handles:\n {2}\w+ (active|inactive) (ref|unref)/);
    });

    it('GET /block and /mutex show the event-loop delay histogram', async () => {
      for (const path of ['/block', '/mutex']) {
        const response = await t.request({ method: 'GET', url: `${BASE}${path}`, token: admin });
        assert.equal(response.statusCode, 200, path);
        assert.match(response.body, /^samples: \d+$/m);
        assert.match(response.body, /^p99: \d+\.\d{3} ms$/m);
      }
    });

    it('GET /threadcreate lists the threads of the process', async () => {
      const response = await t.request({ method: 'GET', url: `${BASE}/threadcreate`, token: admin });
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /^native threads: [1-9]\d*/m);
      assert.match(response.body, /^worker threads: \d+$/m);
    });

    it('GET /cmdline returns the command line, NUL-separated', async () => {
      const response = await t.request({ method: 'GET', url: `${BASE}/cmdline`, token: admin });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.body.split('\0'), [
        process.argv0,
        ...process.execArgv,
        ...process.argv.slice(1),
      ]);
    });

    it('GET and POST /symbol say symbols exist and resolve nothing', async () => {
      const get = await t.request({ method: 'GET', url: `${BASE}/symbol`, token: admin });
      assert.equal(get.body, 'num_symbols: 1\n');
      const post = await t.request({
        method: 'POST',
        url: `${BASE}/symbol`,
        token: admin,
        headers: { 'content-type': 'application/octet-stream' },
        payload: Buffer.from('0x4a2b10+0x4a2c20'),
      });
      assert.equal(post.statusCode, 200);
      assert.equal(post.body, 'num_symbols: 1\n');
    });

    it('GET / is an HTML page linking every profile', async () => {
      const response = await t.request({ method: 'GET', url: `${BASE}/`, token: admin });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      for (const page of ['allocs', 'block', 'cmdline', 'goroutine', 'heap', 'mutex', 'profile', 'symbol']) {
        assert.match(response.body, new RegExp(`href="${BASE}/${page}`), page);
      }
      for (const page of ['threadcreate', 'trace'])
        assert.match(response.body, new RegExp(`href="${BASE}/${page}`));
    });
  });
});
