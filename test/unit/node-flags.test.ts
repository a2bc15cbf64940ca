import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SERVICE_NODE_FLAGS } from '../../src/node-flags.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

// Every launcher of the service passes the heap flags; the service's memory depends on them.
describe('service launchers', () => {
  const inline = SERVICE_NODE_FLAGS.join(' ');

  it('npm start runs node with the flags', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: { start: string } };
    assert.equal(scripts.start, `node ${inline} dist/main.js`);
  });

  it('the container runs node with the flags', () => {
    const entrypoint = /^ENTRYPOINT (.*)$/m.exec(read('Dockerfile'))?.[1] ?? '';
    assert.deepEqual(JSON.parse(entrypoint), ['node', ...SERVICE_NODE_FLAGS, 'dist/main.js']);
  });

  it('the systemd unit and the install guide run node with the flags', () => {
    assert.match(
      read('deploy/pmn-core.service'),
      new RegExp(`^ExecStart=/usr/bin/node ${inline} dist/main.js`, 'm'),
    );
    assert.ok(read('docs/operations.md').includes(`node ${inline} dist/main.js`));
  });
});
