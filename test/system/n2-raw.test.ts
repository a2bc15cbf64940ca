import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { N2Service } from '../e2e/n2-service.ts';
import { startN2Service } from '../e2e/n2-service.ts';
import { createVethNamespace, rawPeerInNamespaceUnavailable, type VethNamespace } from '../helpers/netns.ts';
import { simulatorInNamespace } from '../helpers/simulator-child.ts';

/**
 * The simulator command over the `raw` transport: `npm run sim`'s script runs in its own network
 * namespace (its raw socket would otherwise see the service's packets), linked to the service's `raw`
 * stack by a veth pair. Three gNBs complete NG Setup, are listed by the API with their namespace's
 * address, and disappear when Ctrl-C shuts them down.
 */
const why = rawPeerInNamespaceUnavailable();

interface Page<T> {
  items: T[];
  total_count: number;
}

describe(
  'simulator command over raw IP against the service (veth, two namespaces)',
  { skip: why ?? false, timeout: 120_000 },
  () => {
    let s: N2Service | undefined;
    let ns: VethNamespace | undefined;

    before(async () => {
      ns = await createVethNamespace('g', 215);
      s = await startN2Service({ raw: { address: ns.hostAddress } });
    });

    after(async () => {
      await s?.close();
      await ns?.remove();
    });

    it('three gNBs complete NG Setup, are listed with their address, and leave on Ctrl-C', async () => {
      assert.ok(s && ns);
      const service = s;
      const { hostAddress: AMF, peerAddress: RAN } = ns;
      const { lines, interrupt } = await simulatorInNamespace(ns, [
        'gnb',
        ...['--transport', 'raw', '--amf', `${AMF}:38412`, '--local', RAN],
        ...['--count', '3', '--gnb-id', '0x20', '--name', 'raw', '--quiet'],
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

      assert.equal(await interrupt(), 0, lines.join(' | '));
      await service.until(
        async () =>
          (await service.get<Page<unknown>>('/api/v1/ran/radios')).total_count === 0 ? true : undefined,
        'the radios gone after the shutdown',
      );
    });
  },
);
