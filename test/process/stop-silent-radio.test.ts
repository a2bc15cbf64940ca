import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { LISTENER_SHUTDOWN_TIMEOUT_MS } from '../../src/network/transport/n2-transport.ts';
import { ChunkType } from '../../src/network/transport/sctp/chunks.ts';
import { decodePacket } from '../../src/network/transport/sctp/packet.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { gnbConfig } from '../e2e/n2-service.ts';
import { spawnService } from '../helpers/service-process.ts';

interface LogLine {
  msg: string;
  local?: { address: string; port: number }[];
  udpPort?: number;
}

/**
 * SIGTERM while a radio has vanished without SHUTDOWN or ABORT: the process sends SHUTDOWN, gives up
 * after the listener's bound with ABORT, and exits 0, well within the systemd unit's TimeoutStopSec
 * (the SCTP timers alone kept it for a minute).
 */
describe('the process stopping with a silent radio (npm start, N2 over udp)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-stop-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'aborts the silent radio after the bound and exits 0 on SIGTERM',
    { timeout: 10 * LISTENER_SHUTDOWN_TIMEOUT_MS },
    async () => {
      const child = spawnService([
        ...['--listen', '127.0.0.1:0', '--db', join(dir, 'core.db')],
        ...['--n2-transport', 'udp', '--n2-addresses', '127.0.0.1', '--n2-port', '0', '--n2-udp-port', '0'],
      ]);
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const lines = createInterface({ input: child.stdout });
      const n2 = await new Promise<LogLine>((resolve) =>
        lines.on('line', (line) => {
          const entry = JSON.parse(line) as LogLine;
          if (entry.msg.startsWith('N2 (NGAP) listening')) resolve(entry);
        }),
      );
      const amf = n2.local?.[0];
      assert.ok(amf !== undefined && n2.udpPort !== undefined, n2.msg);

      const ran = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0, peerUdpPort: n2.udpPort });
      try {
        const gnb = new SimulatedGnb({ config: gnbConfig(1), transport: ran.transport, amf: [amf] });
        await gnb.connect();
        assert.equal((await gnb.ngSetup()).outcome, 'accepted');

        // The radio loses power: whatever reaches it is never answered.
        const arrived: number[] = [];
        ran.link.onPacket((packet) => {
          const decoded = decodePacket(packet);
          if (decoded.ok) arrived.push(...decoded.value.chunks.map((chunk) => chunk.type));
        });
        child.kill('SIGTERM');
        assert.equal(await exited, 0);
        // The ABORT left before the exit; this side reads it on a later turn (the test's timeout bounds it).
        while (!arrived.includes(ChunkType.ABORT)) await new Promise((resolve) => setTimeout(resolve, 20));
        const shutdown = arrived.indexOf(ChunkType.SHUTDOWN);
        assert.ok(
          shutdown >= 0 && shutdown < arrived.indexOf(ChunkType.ABORT),
          `SHUTDOWN, then ABORT: ${arrived.join(',')}`,
        );
      } finally {
        child.kill('SIGKILL');
        await ran.transport.close();
      }
    },
  );
});
