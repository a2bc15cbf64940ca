import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { RegistrationService } from '../e2e/registration-service.ts';
import { imsiOf, K, OPC, startRegistrationService, statusUntil } from '../e2e/registration-service.ts';
import { createVethNamespace, rawPeerInNamespaceUnavailable, type VethNamespace } from '../helpers/netns.ts';
import { simulatorInNamespace } from '../helpers/simulator-child.ts';

/**
 * Registration over the `raw` transport: `npm run sim -- ue` runs in its own network namespace, linked to
 * the service's `raw` stack by a veth pair (as test/system/n2-raw.test.ts does for gNBs). Three UEs behind
 * one gNB register; the API shows them registered via that gNB; Ctrl-C ends the simulator cleanly.
 */
const why = rawPeerInNamespaceUnavailable();

describe(
  'UE registration by the simulator command over raw IP against the service (veth, two namespaces)',
  { skip: why ?? false, timeout: 120_000 },
  () => {
    let s: RegistrationService | undefined;
    let ns: VethNamespace | undefined;

    before(async () => {
      ns = await createVethNamespace('u', 216);
      s = await startRegistrationService({ raw: { address: ns.hostAddress } });
    });

    after(async () => {
      await s?.close();
      await ns?.remove();
    });

    it('three UEs register through a gNB in the namespace and are shown registered', async () => {
      assert.ok(s && ns);
      const service = s;
      const imsis = [imsiOf(31), imsiOf(32), imsiOf(33)];
      for (const imsi of imsis) await service.provision(imsi);
      const { lines, interrupt } = await simulatorInNamespace(ns, [
        ...['ue', '--transport', 'raw', '--amf', `${ns.hostAddress}:38412`, '--local', ns.peerAddress],
        ...['--name', 'raw', '--gnb-id', '0x30'],
        ...['--ues', '3', '--imsi', imsis[0]!, '--key', K, '--opc', OPC, '--quiet'],
      ]);
      assert.ok(
        lines.some((line) => /^3 of 3 registered in \d+ ms/.test(line)),
        lines.join(' | '),
      );
      for (const imsi of imsis) {
        const status = await statusUntil(service, imsi, (st) => st.registered, `${imsi} registered`);
        assert.equal(status.last_seen_radio, 'raw-1');
      }
      assert.equal(await interrupt(), 0, lines.join(' | '));
    });
  },
);
