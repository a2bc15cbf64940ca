import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AMF_TIMERS } from '../../src/network/amf/amf-settings.ts';
import { ManualTime } from '../helpers/manual-time.ts';
import { assertTsharkAgrees, gnbConfig } from './n2-service.ts';
import type { Page } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusOf } from './registration-service.ts';

/**
 * A long idle period on N2 with SCTP heartbeats only (docs/interop.md; radios failing after idle are a
 * known interop problem of other cores): a registered UE goes idle and nothing but the SCTP heartbeats
 * (RFC 9260 8.3, every 30 s plus an RTO) crosses the association for 50 minutes of the service's manual
 * time, whose SCTP heartbeats and acknowledgements the AMF's udp transport times. The association stays up
 * and counts as live (a second NG Setup for the same node id is still refused: the AMF heard the radio
 * within 90 s, docs/n2.md), the UE stays registered, and its Service Request then works.
 */

const IDLE_MS = 50 * 60_000;
/** Real time between manual-time steps, for the heartbeat acknowledgements to come back over UDP. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 2));

describe('a long idle period with heartbeats only (udp transport, manual time)', () => {
  it('50 minutes without NGAP: the radio stays connected and live, the UE registered; a Service Request then works', async () => {
    // Below T3512 + 4 min, after which the AMF would rightly deregister a UE that never came back
    // (registration-reachability.test.ts); the simulated UE's own T3512 runs on the system's time.
    assert.ok(IDLE_MS < DEFAULT_AMF_TIMERS.mobileReachableMs);
    const time = new ManualTime();
    const s = await startRegistrationService({ time });
    try {
      const imsi = imsiOf(81);
      await s.provision(imsi);
      const ue = s.ue({ imsi });
      assert.equal((await ue.register()).outcome, 'accepted');
      const released = ue.next((e) => (e.type === 'released' ? true : undefined));
      assert.ok(s.ues.requestRelease(ue));
      await released;
      await s.until(async () => {
        const events = await s.get<Page<unknown>>('/api/v1/ran/events?message_type=UEContextReleaseComplete');
        return events.total_count === 1 ? true : undefined;
      }, 'release complete stored');
      const ngap = { sent: s.gnb1.sent.length, received: s.gnb1.received.length };

      await time.advance(IDLE_MS, settle);

      assert.deepEqual(
        { sent: s.gnb1.sent.length, received: s.gnb1.received.length },
        ngap,
        'no NGAP meanwhile',
      );
      assert.equal(s.gnb1.state.kind, 'ready');
      const radios = await s.get<Page<{ name: string }>>('/api/v1/ran/radios');
      assert.deepEqual(
        radios.items.map((r) => r.name),
        ['gnb-1'],
      );
      assert.equal((await statusOf(s, imsi)).registered, true);
      // Only the heartbeats kept the association live in the AMF's eyes: an NG Setup naming the same
      // node over another association is refused (silent 90 s would give the node up).
      const impostor = s.gnb(gnbConfig(1, { name: 'impostor' }));
      await impostor.connect();
      const outcome = await impostor.ngSetup();
      assert.equal(outcome.outcome, 'refused');
      await impostor.shutdown();

      assert.equal((await ue.serviceRequest()).outcome, 'accepted');
      assert.equal(ue.state, 'registered');
      await assertTsharkAgrees(s.received);
    } finally {
      await s.close();
    }
  });
});
