import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { spawnService } from '../helpers/service-process.ts';

function post(url: string, body: object): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-tls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves HTTPS when tls.cert and tls.key are set, with Secure cookies and HSTS', async () => {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      {
        stdio: 'ignore',
      },
    );
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      `listen: "127.0.0.1:0"\ndb: ${join(dir, 'core.db')}\ntls:\n  cert: ${cert}\n  key: ${key}\n`,
    );
    const child = spawnService(['--config', config]);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    );
    const url = /listening on (https:\/\/\S+)/.exec((JSON.parse(first) as { msg: string }).msg)?.[1];
    assert.ok(url, first);

    const init = await post(`${url}/api/v1/init`, { email: 'admin@example.com', password: 'password1' });
    assert.equal(init.status, 201);
    assert.match(String(init.headers['set-cookie']), /; Secure/);
    assert.match(String(init.headers['strict-transport-security']), /max-age=/);

    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
