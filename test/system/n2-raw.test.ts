import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
} from '../../src/network/transport/native/native-addon.ts';
import type { N2Service } from '../e2e/n2-service.ts';
import { startN2Service } from '../e2e/n2-service.ts';

/**
 * The simulator command over the `raw` transport: `npm run sim`'s script runs in its own network
 * namespace (its raw socket would otherwise see the service's packets), linked to the service's `raw`
 * stack by a veth pair. Three gNBs complete NG Setup, are listed by the API with their namespace's
 * address, and disappear when Ctrl-C shuts them down.
 */
const run = promisify(execFile);
const load = loadNativeAddon();
const why = !load.ok
  ? load.error.message
  : process.getuid?.() !== 0
    ? 'network namespaces need root'
    : !rawSocketSupport(load.addon, 4).available
      ? 'raw sockets need CAP_NET_RAW'
      : kernelSctpSupport(load.addon).available
        ? 'the host kernel has SCTP: it would answer the simulator itself'
        : undefined;

const n = (process.pid * 7) % 250;
const NS = `pmng${process.pid % 100000}`;
const VETH = `pmnw${process.pid % 100000}`;
const AMF = `10.215.${n}.1`;
const RAN = `10.215.${n}.2`;

interface Page<T> {
  items: T[];
  total_count: number;
}

describe(
  'simulator command over raw IP against the service (veth, two namespaces)',
  { skip: why ?? false, timeout: 120_000 },
  () => {
    let s: N2Service | undefined;

    before(async () => {
      assert.ok(load.ok);
      await run('ip', ['netns', 'add', NS]);
      await run('ip', ['link', 'add', VETH, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', NS]);
      await run('ip', ['addr', 'add', `${AMF}/24`, 'dev', VETH]);
      await run('ip', ['link', 'set', VETH, 'up']);
      await run('ip', ['-n', NS, 'addr', 'add', `${RAN}/24`, 'dev', 'eth0']);
      await run('ip', ['-n', NS, 'link', 'set', 'eth0', 'up']);
      await run('ip', ['-n', NS, 'link', 'set', 'lo', 'up']);
      s = await startN2Service({ raw: { address: AMF } });
    });

    after(async () => {
      await s?.close();
      await run('ip', ['link', 'del', VETH]).catch(() => undefined);
      await run('ip', ['netns', 'del', NS]).catch(() => undefined);
    });

    it('three gNBs complete NG Setup, are listed with their address, and leave on Ctrl-C', async () => {
      assert.ok(s);
      const service = s;
      const sim = spawn(
        'ip',
        [
          'netns',
          'exec',
          NS,
          process.execPath,
          '--import',
          'tsx',
          'scripts/sim.ts',
          'gnb',
          '--transport',
          'raw',
          '--amf',
          `${AMF}:38412`,
          '--local',
          RAN,
          '--count',
          '3',
          '--gnb-id',
          '0x20',
          '--name',
          'raw',
          '--quiet',
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const lines: string[] = [];
      const holding = new Promise<void>((resolve) => {
        createInterface({ input: sim.stdout }).on('line', (line) => {
          lines.push(line);
          if (line.startsWith('holding')) resolve();
        });
      });
      const exited = once(sim, 'exit') as Promise<[number | null]>;
      await Promise.race([
        holding,
        exited.then(() => assert.fail(`the simulator ended: ${lines.join(' | ')}`)),
      ]);
      assert.ok(
        lines.includes('3 of 3 accepted') || lines.some((line) => /^3 of 3 accepted in/.test(line)),
        lines.join(' | '),
      );

      const radios =
        await service.get<Page<{ name: string; id: string; address: string }>>('/api/v1/ran/radios');
      assert.deepEqual(radios.items.map((radio) => [radio.name, radio.id]).sort(), [
        ['raw-1', '001:01:000020'],
        ['raw-2', '001:01:000021'],
        ['raw-3', '001:01:000022'],
      ]);
      assert.ok(
        radios.items.every((radio) => radio.address.startsWith(`${RAN}:`)),
        JSON.stringify(radios.items),
      );

      sim.kill('SIGINT');
      const [code] = await exited;
      assert.equal(code, 0, lines.join(' | '));
      await service.until(
        async () =>
          (await service.get<Page<unknown>>('/api/v1/ran/radios')).total_count === 0 ? true : undefined,
        'the radios gone after the shutdown',
      );
    });
  },
);
