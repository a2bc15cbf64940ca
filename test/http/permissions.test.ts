import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import type { Timers } from '../../src/clock.ts';
import { PERMISSIONS } from '../../src/http/permissions.ts';
import { ROLE, ROLE_NAMES, type RoleId } from '../../src/identity/roles.ts';
import { renderPermissionsDoc } from '../../scripts/permissions-doc.ts';
import {
  createApiToken,
  createTestApp,
  initialize,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

/** Routes that run for as long as they are asked (CPU profile, trace): the walk asks for the shortest. */
const TIMED = new Set(['/api/v1/pprof/profile', '/api/v1/pprof/trace']);
/** The event stream answers until its client leaves: the walk asks for an unknown kind (400 once permitted). */
const STREAM = '/api/v1/events/stream';

/** The app's timers pass at once (the next turn of the event loop): a 1 s profile does not wait 1 s here. */
const instant: Timers = {
  after(_ms, callback) {
    const pending = setImmediate(callback);
    return () => clearImmediate(pending);
  },
};

/** Fills path parameters with values that name nothing, so a permitted call ends in 400/404, not a change. */
function concrete(url: string): string {
  const filled = url.replace(/:([a-z_]+)/g, (_m, name: string) =>
    name === 'email' ? 'nobody@example.com' : 'unknown-id',
  );
  if (url === STREAM) return `${filled}?kinds=none`;
  return TIMED.has(url) ? `${filled}?seconds=1` : filled;
}

describe('permission table', () => {
  let t: TestApp;
  const apiTokens = new Map<RoleId, string>();

  before(async () => {
    t = await createTestApp({ timers: instant });
    const adminBearer = await initialize(t);
    const bearers: [RoleId, string][] = [
      [ROLE.admin, adminBearer],
      [ROLE.readOnly, await userWithRole(t, adminBearer, ROLE.readOnly)],
      [ROLE.networkManager, await userWithRole(t, adminBearer, ROLE.networkManager)],
    ];
    // API tokens survive rotate-secret, which the walk calls.
    for (const [roleId, bearer] of bearers) {
      apiTokens.set(roleId, await createApiToken(t, bearer, 'permission walk'));
    }
  });
  after(() => t.close());

  it('covers every route, and every route names a permission of the table', () => {
    assert.ok(t.routes.length > 20);
    for (const route of t.routes) assert.ok(route.permission in PERMISSIONS, `${route.method} ${route.url}`);
  });

  it('answers each role as the table says on every route', async () => {
    for (const route of t.routes) {
      const roles = PERMISSIONS[route.permission];
      if (roles === 'public' || roles === 'session') continue;
      const url = concrete(route.url);
      const payload = ['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined;

      const method = route.method as InjectOptions['method'];
      const anonymous = await t.request({ method, url, payload });
      assert.equal(anonymous.statusCode, 401, `${route.method} ${route.url} without credentials`);

      for (const [roleId, token] of apiTokens) {
        const response = await t.request({ method, url, payload, token });
        const allowed = (roles as readonly number[]).includes(roleId);
        const label = `${route.method} ${route.url} as ${ROLE_NAMES[roleId]}`;
        if (allowed)
          assert.ok(
            ![401, 403].includes(response.statusCode),
            `${label}: ${response.statusCode} ${response.body}`,
          );
        else assert.equal(response.statusCode, 403, `${label}: ${response.body}`);
      }
    }
  });

  it('is printed in docs/permissions.md exactly as the code has it', () => {
    const doc = readFileSync(new URL('../../docs/permissions.md', import.meta.url), 'utf8');
    assert.equal(doc, renderPermissionsDoc(t.routes), 'run `npm run docs:permissions` to regenerate');
  });
});
