import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import type { ConfigurationChange } from '../../src/network/ports/configuration-events.ts';
import { errorOf } from '../helpers/network.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

const URL = '/api/v1/sms/smsc';
const BODY = {
  host: 'smsc.example.net',
  port: 2775,
  system_id: 'pmn',
  password: 'Pa55word',
  system_type: 'VMA',
};

let t: TestApp;
let token: string;
beforeEach(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
afterEach(() => t.close());

const get = async (as = token) => {
  const response = await t.request({ method: 'GET', url: URL, token: as });
  assert.equal(response.statusCode, 200, response.body);
  assert.ok(!response.body.includes(BODY.password), 'the password is never returned');
  return result<Record<string, unknown>>(response);
};
const put = (payload: Record<string, unknown>, as = token) =>
  t.request({ method: 'PUT', url: URL, token: as, payload });

describe('GET|PUT|DELETE /api/v1/sms/smsc', () => {
  it('none at first; PUT stores it with its password sealed, audits and publishes it; GET never shows the password', async () => {
    assert.deepEqual(await get(), { configured: false, state: 'disabled', last_error: null });
    const changes: ConfigurationChange[] = [];
    t.core.configuration.subscribe((change) => void changes.push(change));

    const response = await put(BODY);
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(!response.body.includes(BODY.password));
    const view = await get();
    assert.deepEqual(
      { ...view, updated_at: typeof view.updated_at },
      {
        configured: true,
        host: 'smsc.example.net',
        port: 2775,
        system_id: 'pmn',
        system_type: 'VMA',
        enabled: true,
        updated_at: 'string',
        state: 'disabled',
        last_error: null,
      },
    );
    const row = await t.db.selectFrom('smsc_link').selectAll().executeTakeFirstOrThrow();
    assert.ok(!row.password_sealed.includes(BODY.password), 'sealed at rest');
    assert.equal((await t.core.ports.smscLink.configuration.read())?.password, BODY.password);
    assert.deepEqual(changes, [{ resource: 'smsc-link', change: 'changed', name: '' }]);
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['update_smsc_link', 'SMSC link set: pmn@smsc.example.net:2775, enabled, password changed'],
    );
    assert.ok(!JSON.stringify(await auditEntries(t, token)).includes(BODY.password));
  });

  it('a PUT without password keeps the stored one; with none stored it is a 400', async () => {
    const withoutPassword: Record<string, unknown> = { ...BODY };
    delete withoutPassword.password;
    assert.equal(
      errorOf(await put(withoutPassword), 400),
      'password: required when no SMSC link is configured',
    );
    assert.equal((await put(BODY)).statusCode, 200);
    assert.equal((await put({ ...withoutPassword, port: 2776, enabled: false })).statusCode, 200);
    const read = await t.core.ports.smscLink.configuration.read();
    assert.deepEqual([read?.password, read?.port, read?.enabled], [BODY.password, 2776, false]);
  });

  it('refuses bad fields with a clear 400', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...BODY, port: 0 }, /port.*1 to 65535/],
      [{ ...BODY, port: 'x' }, /port/],
      [{ ...BODY, host: '' }, /host/],
      [{ ...BODY, host: 'smsc example' }, /host.*host name or an IP address/],
      [{ ...BODY, system_id: 'a'.repeat(16) }, /system_id.*1 to 15 printable ASCII/],
      [{ ...BODY, system_id: '' }, /system_id/],
      [{ ...BODY, password: '123456789' }, /password.*1 to 8 printable ASCII/],
      [{ ...BODY, password: 'p\u0000w' }, /password/],
      [{ ...BODY, system_type: 'x'.repeat(13) }, /system_type.*at most 12/],
      [{ ...BODY, enabled: 'yes' }, /enabled/],
      [{ ...BODY, extra: 1 }, /extra|additional/i],
    ];
    for (const [payload, message] of cases) assert.match(errorOf(await put(payload), 400), message);
    assert.deepEqual(await get(), { configured: false, state: 'disabled', last_error: null });
  });

  it('read-only reads; a network manager or admin changes it', async () => {
    const reader = await userWithRole(t, token, ROLE.readOnly);
    assert.equal((await put(BODY, reader)).statusCode, 403);
    assert.equal((await t.request({ method: 'DELETE', url: URL, token: reader })).statusCode, 403);
    assert.equal((await get(reader)).configured, false);
    const manager = await userWithRole(t, token, ROLE.networkManager);
    assert.equal((await put(BODY, manager)).statusCode, 200);
    assert.equal((await t.request({ method: 'DELETE', url: URL, token: manager })).statusCode, 200);
  });

  it('DELETE removes it (audited, published), then 404', async () => {
    assert.equal((await put(BODY)).statusCode, 200);
    const changes: ConfigurationChange[] = [];
    t.core.configuration.subscribe((change) => void changes.push(change));
    assert.equal((await t.request({ method: 'DELETE', url: URL, token })).statusCode, 200);
    assert.equal((await get()).configured, false);
    assert.equal(await t.core.ports.smscLink.configuration.read(), undefined);
    assert.deepEqual(changes, [{ resource: 'smsc-link', change: 'deleted', name: '' }]);
    assert.equal((await auditEntries(t, token))[0]?.action, 'delete_smsc_link');
    assert.equal(
      errorOf(await t.request({ method: 'DELETE', url: URL, token }), 404),
      'no SMSC link is configured',
    );
  });

  it("reports the running link's state and last error, and the metric follows it", async () => {
    t.core.ports.smscLink.running({
      status: () => ({ state: 'connecting', lastError: 'connection failed: ECONNREFUSED' }),
    });
    const view = await get();
    assert.deepEqual([view.state, view.last_error], ['connecting', 'connection failed: ECONNREFUSED']);
    t.core.ports.smscLink.onPdu('sent', 'bind_transceiver');
    const metrics = await t.core.metrics.render();
    assert.match(metrics, /pmn_smsc_link_state\{state="connecting"\} 1/);
    assert.match(metrics, /pmn_smsc_link_state\{state="bound"\} 0/);
    assert.match(metrics, /pmn_smsc_pdus_total\{direction="sent",command="bind_transceiver"\} 1/);
    t.core.ports.smscLink.running(undefined);
    assert.equal((await get()).state, 'disabled');
  });
});
