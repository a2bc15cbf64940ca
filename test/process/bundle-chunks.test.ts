import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { gnbConfig } from '../e2e/n2-service.ts';
import { spawnService } from '../helpers/service-process.ts';

// The production bundle loads three things lazily, each from a chunk of its own or beside it: the
// network side when N2 starts, the records writer thread's worker on the first record, and the NGAP
// decoder on the first read of a radio event (docs/operations.md, "Starting fast"). A chunk or worker
// the bundle cannot find fails only then, so this drives all three through the built service.

interface LogLine {
  msg: string;
  local?: { address: string; port: number }[];
  udpPort?: number;
}

describe('the bundle (npm start) loads its lazy parts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-bundle-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('starts N2, writes radio events through the writer thread, and decodes one on read', async () => {
    const child = spawnService([
      '--listen',
      '127.0.0.1:0',
      '--db',
      join(dir, 'core.db'),
      '--n2-transport',
      'udp',
      '--n2-port',
      '0',
      '--n2-udp-port',
      '0',
    ]);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout });
    let base: string | undefined;
    let n2: LogLine | undefined;
    for await (const line of lines) {
      const entry = JSON.parse(line) as LogLine;
      base ??= /^PMN Core listening on (http:\/\/[\d.:]+)$/.exec(entry.msg)?.[1];
      if (entry.msg.startsWith('N2 (NGAP) listening')) n2 = entry;
      if (base !== undefined && n2 !== undefined) break;
    }
    const sctp = n2?.local?.[0];
    assert.ok(base && sctp && n2?.udpPort, 'the service says where its API and N2 listen');

    const ran = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0, peerUdpPort: n2.udpPort });
    const gnb = new SimulatedGnb({ config: gnbConfig(7), transport: ran.transport, amf: [sctp] });
    try {
      await gnb.connect();
      const outcome = await gnb.ngSetup();
      assert.equal(outcome.outcome, 'accepted');
    } finally {
      await gnb.shutdown().catch(() => undefined);
      await ran.transport.close();
    }

    const init = await fetch(`${base}/api/v1/init`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'password1' }),
    });
    const { token } = ((await init.json()) as { result: { token: string } }).result;
    const get = async (url: string): Promise<unknown> => {
      const response = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200, url);
      return ((await response.json()) as { result: unknown }).result;
    };

    let request: { id: number } | undefined;
    for (const end = Date.now() + 10_000; request === undefined;) {
      const { items } = (await get('/api/v1/ran/events?message_type=NGSetupRequest')) as {
        items: { id: number }[];
      };
      request = items[0];
      if (request === undefined) {
        assert.ok(Date.now() < end, 'the NG Setup Request is recorded');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const event = (await get(`/api/v1/ran/events/${request.id}`)) as { decoded: Record<string, unknown> };
    assert.deepEqual(Object.keys(event.decoded), ['initiating_message']);

    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
