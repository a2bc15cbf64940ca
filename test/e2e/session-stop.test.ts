import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LISTENER_SHUTDOWN_TIMEOUT_MS } from '../../src/network/transport/n2-transport.ts';
import { ChunkType } from '../../src/network/transport/sctp/chunks.ts';
import { decodePacket } from '../../src/network/transport/sctp/packet.ts';
import type { Page } from './registration-service.ts';
import { startSessionService } from './session-service.ts';

/**
 * The service's network side stopping while a radio has vanished without SHUTDOWN or ABORT (it lost
 * power): the live session's last flow report and usage reach the database before N2 closes, and the
 * radio is aborted after the listener's bound instead of the SCTP timers (up to a minute), which
 * outlasted the service manager's stop timeout (deploy/pmn-core.service).
 */

interface RadioLog {
  event: string;
  ran_id: string;
  details: string;
}
interface FlowReport {
  subscriber_id: string;
  source_ip: string;
  destination_ip: string;
  destination_port: number;
  bytes: number;
}

// Well below the minute the stop took: it fails, rather than hangs, if the bound is lost.
const STOP_TEST_TIMEOUT_MS = 10 * LISTENER_SHUTDOWN_TIMEOUT_MS;

describe('stopping N2 with a silent radio (simulator against the real service, udp)', () => {
  it(
    'writes the live session’s last usage and flow report first, then aborts the silent radio after the bound',
    { timeout: STOP_TEST_TIMEOUT_MS },
    async () => {
      const s = await startSessionService();
      try {
        const { imsi, sessions } = await s.registered(1);
        const outcome = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
        assert.equal(outcome.outcome, 'accepted');
        const [forwarderSession] = [...s.rules.sessions.keys()];
        assert.ok(forwarderSession !== undefined);
        // Live: the radio's Setup Response reached the SMF and the UPF has the downlink tunnel. Stopping
        // before it would fail the downlink and release the session towards the silent radio instead.
        await s.until(
          async () => (s.rules.sessions.get(forwarderSession)?.downlink === undefined ? undefined : true),
          'the downlink tunnel',
        );
        // Carried since the last usage report: only the session's end at the stop reports it.
        s.rules.traffic.set(forwarderSession, { uplinkBytes: 1200, downlinkBytes: 3400 });

        const arrived: number[] = [];
        s.silenceRan((packet) => {
          const decoded = decodePacket(packet);
          if (decoded.ok) arrived.push(...decoded.value.chunks.map((chunk) => chunk.type));
        });
        let stopped = false;
        const stopping = s.stopN2().then(() => {
          stopped = true;
        });
        const usage = await s.until(async () => {
          const groups = await s.get<unknown[]>('/api/v1/subscriber-usage?group_by=subscriber');
          return groups.length > 0 ? groups : undefined;
        }, 'the usage written');
        assert.equal(stopped, false, 'the records are written while N2 still waits for the silent radio');
        await stopping;

        assert.deepEqual(usage, [
          { [imsi]: { uplink_bytes: 1200, downlink_bytes: 3400, total_bytes: 4600 } },
        ]);
        const flows = await s.get<Page<FlowReport>>('/api/v1/flow-reports');
        assert.deepEqual(
          flows.items.map((f) => [
            f.subscriber_id,
            f.source_ip,
            f.destination_ip,
            f.destination_port,
            f.bytes,
          ]),
          [[imsi, '10.45.0.1', '10.99.0.1', 53, 4600]],
        );
        // The AMF sent SHUTDOWN, heard nothing, and ended the association with ABORT.
        await s.until(async () => (arrived.includes(ChunkType.ABORT) ? true : undefined), 'the ABORT');
        const shutdown = arrived.indexOf(ChunkType.SHUTDOWN);
        assert.ok(shutdown >= 0 && shutdown < arrived.indexOf(ChunkType.ABORT), 'SHUTDOWN, then ABORT');
        const down = await s.until(async () => {
          const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?event=SCTP%20Association%20Down');
          return page.items[0];
        }, 'the association-down log');
        assert.equal(down.ran_id, '001:01:000001');
        assert.equal((JSON.parse(down.details) as { cause?: string }).cause, 'listener closing');
      } finally {
        await s.close();
      }
    },
  );
});
