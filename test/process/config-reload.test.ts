import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { readAMFConfigurationUpdate } from '../../src/network/ngap/generated/messages.ts';
import type {
  AMFTNLAssociationToAddList,
  AMFTNLAssociationToUpdateList,
} from '../../src/network/ngap/generated/types.ts';
import { endpointOf } from '../../src/network/ngap/transport-layer-address.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { assertTsharkAgrees, gnbConfig } from '../e2e/n2-service.ts';
import { spawnService } from '../helpers/service-process.ts';
import { until, WAIT_MS } from '../helpers/until.ts';

/** The endpoints of an AMF TNL Association To Add or To Update List with their usage and weight factor. */
const offers = (list: AMFTNLAssociationToAddList | AMFTNLAssociationToUpdateList | undefined) =>
  list?.map((i) => [endpointOf(i.aMFTNLAssociationAddress), i.tNLAssociationUsage, i.tNLAddressWeightFactor]);

interface LogLine {
  level: number;
  msg: string;
  local?: { address: string; port: number }[];
  udpPort?: number;
  keys?: string[];
  added?: string[];
  removed?: string[];
  updated?: string[];
}

/**
 * The operator edits `n2_further_endpoints` in the configuration file of the running process
 * (docs/n2.md, "A change of the endpoints"; docs/operations.md, "Configuration"): the connected gNB gets
 * AMF Configuration Update with the AMF TNL Association To Add / To Remove / To Update Lists (TS 38.413
 * 8.7.3.2), sets the added association up and drops the removed one; one info line names the change. A
 * change of another key is logged as taking effect at the next start; a broken file changes nothing and
 * is warned of once; the process stops cleanly with the watch.
 */
describe('the configuration file edited while the process runs (npm start, N2 over udp)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-hendpoints-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.yaml');
  // SCTP ports of the udp transport are the service's own (one UDP socket): any free number will do.
  const first = 40_000 + Math.floor(Math.random() * 10_000);
  const second = first + 1;
  /** The file as editors save it: another file renamed over it. */
  const save = (text: string) => {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  };
  const settings = (endpoints: string, loginRateLimit = 10) =>
    [
      'listen: 127.0.0.1:0',
      `db: ${join(dir, 'core.db')}`,
      `login_rate_limit: ${loginRateLimit}`,
      'n2_transport: udp',
      'n2_addresses: [127.0.0.1]',
      'n2_port: 0',
      'n2_udp_port: 0',
      `n2_further_endpoints: ${endpoints}`,
      '',
    ].join('\n');

  it('offers the edited endpoints to the connected gNB, waits for restart on others, ignores a broken file', async () => {
    save(settings(`['127.0.0.1:${first}']`));
    // Debug logs: each reading of the file is logged, so the test knows when a save was read.
    const child = spawnService(['--config', file], { env: { ...process.env, PMN_LOG_LEVEL: 'debug' } });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines: LogLine[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(JSON.parse(line) as LogLine));
    const logged = (what: string, select: (line: LogLine) => boolean) =>
      until(
        what,
        () => lines.find(select),
        () => lines.map((l) => l.msg).join('\n'),
      );
    try {
      const n2 = await logged('N2 listening', (l) => l.msg.startsWith('N2 (NGAP) listening'));
      const amf = n2.local?.[0];
      assert.ok(amf !== undefined && n2.udpPort !== undefined, n2.msg);
      const link = await createUdpTransport({
        addresses: ['127.0.0.1'],
        udpPort: 0,
        peerUdpPort: n2.udpPort,
      });
      const gnb = new SimulatedGnb({
        config: gnbConfig(1),
        transport: link.transport,
        amf: [amf],
        furtherAssociations: true,
      });
      try {
        await gnb.connect();
        assert.equal((await gnb.ngSetup()).outcome, 'accepted');
        const ports = () => gnb.furtherAssociations.map((a) => a.endpoint.port).join();
        await until('the first further association', () => ports() === `${first}`, ports);
        const updates = () => gnb.received.filter((e) => e.messageType === 'AMFConfigurationUpdate');
        assert.equal(updates().length, 1, 'the offer after NG Setup');

        // The first endpoint is replaced by another for UE signalling, weight 3.
        const ended = gnb.next(
          (e) => (e.type === 'further-association-ended' ? e.association : undefined),
          WAIT_MS,
        );
        save(settings(`['127.0.0.1:${second}/ue/3']`));
        const applied = await logged('the change logged', (l) =>
          l.msg.startsWith('N2 further endpoints changed'),
        );
        assert.deepEqual(
          { added: applied.added, removed: applied.removed, updated: applied.updated },
          { added: [`127.0.0.1:${second}/ue/3`], removed: [`127.0.0.1:${first}/both/1`], updated: [] },
        );
        await until('the second association set up', () => ports() === `${second}`, ports);
        assert.equal((await ended).endpoint.port, first);
        const change = readAMFConfigurationUpdate(updates()[1]!.pdu!);
        assert.ok(change.ok);
        assert.deepEqual(offers(change.message.amfTnlAssociationToAddList), [
          [{ address: '127.0.0.1', port: second }, 'ue', 3],
        ]);
        assert.deepEqual(
          change.message.amfTnlAssociationToRemoveList?.map((i) => endpointOf(i.aMFTNLAssociationAddress)),
          [{ address: '127.0.0.1', port: first }],
        );
        assert.equal(change.message.amfTnlAssociationToUpdateList, undefined);

        // Its weight changes with the login rate limit: the first is updated at once, the other waits.
        save(settings(`['127.0.0.1:${second}/ue/5']`, 20));
        const restart = await logged('the other key logged', (l) => l.msg.includes('at the next start'));
        assert.deepEqual(restart.keys, ['login_rate_limit']);
        await until('the update', () => updates().length === 3);
        const update = readAMFConfigurationUpdate(updates()[2]!.pdu!);
        assert.ok(update.ok);
        assert.deepEqual(offers(update.message.amfTnlAssociationToUpdateList), [
          [{ address: '127.0.0.1', port: second }, 'ue', 5],
        ]);
        assert.equal(update.message.amfTnlAssociationToAddList, undefined);
        assert.equal(update.message.amfTnlAssociationToRemoveList, undefined);

        // A broken file, saved twice: one warning, nothing offered, the association kept.
        const reads = () => lines.filter((l) => l.msg.startsWith('configuration file read')).length;
        save(settings(`['127.0.0.1:${first}/sometimes']`, 20));
        await logged('the warning', (l) => l.msg.includes('changed but not applied'));
        const before = reads();
        save(`${settings(`['127.0.0.1:${first}/sometimes']`, 20)}# saved again\n`);
        await until('the second save read', () => reads() > before);
        const warnings = lines.filter((l) => l.msg.includes('changed but not applied'));
        assert.equal(warnings.length, 1, warnings.map((l) => l.msg).join('\n'));
        assert.equal(warnings[0]!.level, 40);
        assert.match(warnings[0]!.msg, /the usage must be ue, non-ue or both/);
        assert.equal(updates().length, 3, 'no update for the broken file or the log level');
        assert.equal(ports(), `${second}`);

        await assertTsharkAgrees(gnb.received);
        await assertTsharkAgrees(gnb.sent);
        child.kill('SIGTERM');
        assert.equal(await exited, 0);
        assert.ok(lines.some((l) => l.msg === 'stopped'));
      } finally {
        await link.transport.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  });
});
