import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import {
  CONFIG_QUIET_MS,
  changedKeys,
  createConfigReload,
  endpointsChange,
} from '../../src/config/config-reload.ts';
import { loadConfigSources } from '../../src/config/config.ts';
import type { OfferedEndpoint } from '../../src/network/amf/n2/tnl-associations.ts';
import { ManualTime } from '../helpers/manual-time.ts';
import { until } from '../helpers/until.ts';

interface Line {
  level: number;
  msg: string;
  keys?: string[];
  overridden?: string[];
  added?: string[];
  removed?: string[];
  updated?: string[];
}

const watches = (): number => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The configuration file's watch (src/config/config-reload.ts) on a real directory: the file system's
 * events are real, its quiet time is moved by hand. N2 is a recorder of the endpoints it is asked to
 * offer (the process test test/process/config-reload.test.ts has the real service and gNB).
 */
describe('the configuration file watch', () => {
  let dir: string;
  let file: string;
  let lines: Line[];
  let offered: (readonly OfferedEndpoint[])[];
  let time: ManualTime;
  let answer: () => Promise<unknown> | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pmn-hendpoints-'));
    file = join(dir, 'config.yaml');
    lines = [];
    offered = [];
    time = new ManualTime();
    answer = () => Promise.resolve();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const save = (text: string) => {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  };
  const logger = () =>
    pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as Line);
          done();
        },
      }),
    );
  const start = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const reload = createConfigReload({
      loaded: loadConfigSources(argv, env),
      reload: () => loadConfigSources(argv, env),
      changeFurtherEndpoints: (next) => {
        offered.push(next);
        return answer();
      },
      logger: logger(),
      timers: time,
    });
    reload.start();
    return reload;
  };
  /** Waits for the file system's event, lets the quiet time pass, and for the file to have been read. */
  const settle = async () => {
    const read = lines.filter((l) => l.msg.startsWith('configuration file read')).length;
    await until('the edit seen', () => time.pending > 0);
    await time.advance(CONFIG_QUIET_MS, turn);
    await until(
      'the file read',
      () => lines.filter((l) => l.msg.startsWith('configuration file read')).length > read,
    );
  };

  it('offers the edited endpoints, with one info line naming what was added, removed and updated', async () => {
    save("n2_further_endpoints: ['127.0.0.1:40001', '127.0.0.1:40002/ue/2']\n");
    const reload = start(['--config', file]);
    try {
      save("n2_further_endpoints: ['127.0.0.1:40002/non-ue/2', '[::1]:40003']\n");
      await settle();
      assert.deepEqual(offered, [
        [
          { address: '127.0.0.1', port: 40002, usage: 'non-ue', weight: 2 },
          { address: '::1', port: 40003, usage: 'both', weight: 1 },
        ],
      ]);
      const info = lines.filter((l) => l.msg.startsWith('N2 further endpoints changed'));
      assert.equal(info.length, 1);
      assert.deepEqual(
        { added: info[0]!.added, removed: info[0]!.removed, updated: info[0]!.updated },
        {
          added: ['[::1]:40003/both/1'],
          removed: ['127.0.0.1:40001/both/1'],
          updated: ['127.0.0.1:40002/non-ue/2'],
        },
      );
      // The same endpoints written another way (one comma-separated string) change nothing.
      save("n2_further_endpoints: '127.0.0.1:40002/non-ue/2, [::1]:40003'\n");
      await settle();
      assert.equal(offered.length, 1);
      // The key removed: no endpoint offered any more.
      save('');
      await settle();
      assert.deepEqual(offered.at(-1), []);
    } finally {
      await reload.stop();
    }
  });

  it('warns once of a file broken the same way, changes nothing, and names other keys for the next start', async () => {
    save("n2_further_endpoints: ['127.0.0.1:40001']\nlogin_rate_limit: 10\n");
    const reload = start(['--config', file], { PMN_AMF_NAME: 'amf-1' });
    try {
      save("n2_further_endpoints: ['127.0.0.1:40001/sometimes']\n");
      await settle();
      save("n2_further_endpoints: ['127.0.0.1:40001/sometimes'] # again\n");
      await settle();
      save('n2_further_endpoints: [\n');
      await settle();
      const warnings = lines.filter((l) => l.level === 40);
      assert.deepEqual(
        warnings.map((l) => /usage must be|not valid YAML/.exec(l.msg)?.[0]),
        ['usage must be', 'not valid YAML'],
      );
      assert.deepEqual(offered, []);
      // Fixed, with two other keys changed (one removed): one line names them; the endpoints are as they were.
      save("n2_further_endpoints: ['127.0.0.1:40001']\nlog_level: debug\namf_name: amf-2\n");
      await settle();
      const restart = lines.filter((l) => l.msg.includes('at the next start'));
      assert.equal(restart.length, 1);
      assert.deepEqual(restart[0]!.keys, ['amf_name', 'log_level', 'login_rate_limit']);
      assert.deepEqual(restart[0]!.overridden, ['amf_name']);
      assert.match(restart[0]!.msg, /\(amf_name set by the environment or a flag, which win\)$/);
      assert.deepEqual(offered, []);
    } finally {
      await reload.stop();
    }
  });

  it('leaves endpoints the environment or a flag set as they are, and says so', async () => {
    save("n2_further_endpoints: ['127.0.0.1:40001']\n");
    const env = start(['--config', file], { PMN_N2_FURTHER_ENDPOINTS: '127.0.0.1:40009' });
    try {
      save("n2_further_endpoints: ['127.0.0.1:40002']\n");
      await settle();
    } finally {
      await env.stop();
    }
    const flag = start(['--config', file, '--n2-further-endpoints', '127.0.0.1:40009']);
    try {
      save("n2_further_endpoints: ['127.0.0.1:40003']\n");
      await settle();
    } finally {
      await flag.stop();
    }
    assert.deepEqual(offered, []);
    const said = lines.filter((l) => l.msg.includes('wins over the file'));
    assert.equal(said.length, 2);
    assert.equal(said[0]!.level, 30);
  });

  it('tries again at the next edit when N2 is not running or the change fails', async () => {
    save("n2_further_endpoints: ['127.0.0.1:40001']\n");
    const reload = start(['--config', file]);
    try {
      answer = () => undefined;
      save("n2_further_endpoints: ['127.0.0.1:40002']\n");
      await settle();
      assert.match(lines.filter((l) => l.level === 40).at(-1)!.msg, /N2 is not running/);
      answer = () => Promise.reject(new Error('listen EADDRINUSE'));
      save("n2_further_endpoints: ['127.0.0.1:40002'] # again\n");
      await settle();
      assert.match(lines.filter((l) => l.level === 40).at(-1)!.msg, /not applied: listen EADDRINUSE/);
      answer = () => Promise.resolve();
      save("n2_further_endpoints: ['127.0.0.1:40002'] # and again\n");
      await settle();
      assert.equal(offered.length, 3);
      assert.deepEqual(
        lines.filter((l) => l.msg.startsWith('N2 further endpoints changed')).map((l) => l.added),
        [['127.0.0.1:40002/both/1']],
      );
    } finally {
      await reload.stop();
    }
  });

  it('watches nothing without a file, and leaves no watch or timer behind when it stops', async () => {
    const before = watches();
    const none = start([]);
    assert.equal(watches(), before);
    await none.stop();

    save("n2_further_endpoints: ['127.0.0.1:40001']\n");
    const reload = start(['--config', file]);
    assert.equal(watches(), before + 1);
    save("n2_further_endpoints: ['127.0.0.1:40002']\n");
    await until('the edit seen', () => time.pending > 0);
    await reload.stop();
    assert.equal(time.pending, 0, 'the quiet timer cancelled');
    await until('the watch closed', () => watches() === before, undefined, { everyMs: 0 });
    save("n2_further_endpoints: ['127.0.0.1:40003']\n");
    await time.advance(CONFIG_QUIET_MS, turn);
    assert.deepEqual(offered, []);
  });
});

describe('what changed in the file', () => {
  it('compares keys by value, a key added or removed included', () => {
    assert.deepEqual(changedKeys({ a: 1, b: [1, 2], c: 'x' }, { a: 1, b: [1, 3], d: 'y' }), ['b', 'c', 'd']);
  });
  it('tells endpoints added, removed and updated apart by address and port', () => {
    const e = (port: number, usage: OfferedEndpoint['usage'] = 'both', weight = 1): OfferedEndpoint => ({
      address: '10.0.0.1',
      port,
      usage,
      weight,
    });
    assert.deepEqual(endpointsChange([e(1), e(2), e(3)], [e(2), e(3, 'ue', 4), e(4)]), {
      added: ['10.0.0.1:4/both/1'],
      removed: ['10.0.0.1:1/both/1'],
      updated: ['10.0.0.1:3/ue/4'],
    });
  });
});
