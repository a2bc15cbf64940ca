import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page, RegistrationService } from '../e2e/registration-service.ts';
import {
  assertShownRegistered,
  assertShownUnregistered,
  IMEI,
  imsiOf,
  K,
  logsOf,
  OPC,
  startRegistrationService,
  statusOf,
} from '../e2e/registration-service.ts';
import { createVethNamespace, rawPeerInNamespaceUnavailable, type VethNamespace } from '../helpers/netns.ts';
import { simulatorInNamespace, simulatorRunInNamespace } from '../helpers/simulator-child.ts';

/**
 * A registered device's life over the `raw` transport: `npm run sim -- ue` runs in its own network
 * namespace, linked to the service's `raw` stack by a veth pair (as test/system/n2-raw.test.ts does for
 * gNBs). Three UEs behind one gNB register, go idle on the radio's release request and come back with a
 * service request, and the API shows them registered with every status field; the simulator's Ctrl-C
 * shuts the association down and they stay registered (network.md section 4); a second run registers
 * them again and deregisters them, and the API shows them unregistered.
 */
const why = rawPeerInNamespaceUnavailable();

describe(
  'UE lifecycle by the simulator command over raw IP against the service (veth, two namespaces)',
  { skip: why ?? false, timeout: 120_000 },
  () => {
    let s: RegistrationService | undefined;
    let ns: VethNamespace | undefined;
    const imsis = [imsiOf(31), imsiOf(32), imsiOf(33)];
    const ueArguments = (): string[] => [
      ...['ue', '--transport', 'raw', '--amf', `${ns!.hostAddress}:38412`, '--local', ns!.peerAddress],
      ...['--name', 'raw', '--gnb-id', '0x30'],
      ...['--ues', '3', '--imsi', imsis[0]!, '--key', K, '--opc', OPC, '--quiet'],
    ];

    before(async () => {
      ns = await createVethNamespace('u', 216);
      s = await startRegistrationService({ raw: { address: ns.hostAddress } });
      for (const imsi of imsis) await s.provision(imsi);
    });

    after(async () => {
      await s?.close();
      await ns?.remove();
    });

    it('three UEs register, go idle and come back by service request; shown registered with every field', async () => {
      assert.ok(s && ns);
      const service = s;
      const { lines, interrupt } = await simulatorInNamespace(ns, [
        ...ueArguments(),
        ...['--idle', '--service-request', '--then', 'hold'],
      ]);
      const said = lines.join(' | ');
      assert.ok(
        lines.some((line) => /^3 of 3 registered in \d+ ms/.test(line)),
        said,
      );
      assert.ok(lines.includes('3 of 3 idle after UE Context Release Request'), said);
      assert.ok(lines.includes('3 of 3 connected again by service request'), said);
      // The first UE has the simulator's first IMEISV, the default one.
      await assertShownRegistered(service, imsis[0]!, { radio: 'raw-1', imei: IMEI });
      for (const imsi of imsis.slice(1))
        assert.equal((await statusOf(service, imsi)).last_seen_radio, 'raw-1');

      const logs = await service.until(async () => {
        const rows = await logsOf(service, imsis[0]!);
        return rows.some((row) => row.event === 'Service Request') ? rows : undefined;
      }, 'service request logged');
      assert.ok(logs.some((row) => row.event === 'Registration Complete'));
      const releases = await service.get<Page<{ message_type: string }>>(
        '/api/v1/ran/events?message_type=UEContextReleaseRequest',
      );
      assert.equal(releases.total_count, 3);

      // Ctrl-C shuts the association down: its devices stay registered, idle (network.md section 4).
      assert.equal(await interrupt(), 0, said);
      await service.until(
        async () =>
          (await service.get<Page<unknown>>('/api/v1/ran/radios')).total_count === 0 ? true : undefined,
        'radio gone',
      );
      for (const imsi of imsis) assert.equal((await statusOf(service, imsi)).registered, true);
    });

    it('registered again, then deregistered by the devices: shown unregistered', async () => {
      assert.ok(s && ns);
      const service = s;
      const { code, lines } = await simulatorRunInNamespace(ns, [...ueArguments(), '--then', 'deregister']);
      const said = lines.join(' | ');
      assert.equal(code, 0, said);
      assert.ok(lines.includes('3 of 3 deregistered'), said);
      for (const imsi of imsis) await assertShownUnregistered(service, imsi);
      const logs = await service.until(async () => {
        const rows = await logsOf(service, imsis[0]!);
        return rows.at(-1)?.event === 'Deregistration Accept' ? rows : undefined;
      }, 'deregistration logged');
      assert.deepEqual(
        logs.slice(-2).map((row) => [row.event, row.direction]),
        [
          ['Deregistration Request', 'inbound'],
          ['Deregistration Accept', 'outbound'],
        ],
      );
    });
  },
);
