import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeNasMessage } from '../../src/network/nas/index.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { Page, RegistrationService } from './registration-service.ts';
import {
  assertShownRegistered,
  detailsOf,
  IMEI,
  imsiOf,
  logsOf,
  startRegistrationService,
  statusUntil,
} from './registration-service.ts';

/**
 * Initial registration end to end (network.md sections 4-5, TS 24.501 5.5.1.2): a simulated UE behind a
 * simulated gNB against the real service over udp, with SUCI null, Profile A and Profile B; what the
 * device did is asserted through the management API: status fields, the radio filter, subscriber logs
 * with every NAS message, radio events decoding the NAS inside. tshark reads every PDU the gNB received.
 */

interface RadioEvent {
  id: number;
  message_type: string;
  direction: string;
  details: string;
}

const EXPECTED_LOGS = [
  ['Registration Request', 'inbound'],
  ['Authentication Request', 'outbound'],
  ['Authentication Response', 'inbound'],
  ['Security Mode Command', 'outbound'],
  ['Security Mode Complete', 'inbound'],
  ['Registration Accept', 'outbound'],
  ['Registration Complete', 'inbound'],
];

describe('initial registration through the simulator against the real service', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('SUCI null: registered with IMEI, algorithms, last seen; radio filter; logs of every NAS message; events decode the NAS', async () => {
    const imsi = imsiOf(1);
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    const contextSetup = ue.next((e) => (e.type === 'context-setup' ? e : undefined));
    const outcome = await ue.register();
    assert.equal(outcome.outcome, 'accepted');
    assert.ok(outcome.outcome === 'accepted');
    assert.deepEqual(outcome.allowedNssai, [{ sst: 1 }]);
    assert.deepEqual({ mcc: outcome.guti?.mcc, mnc: outcome.guti?.mnc }, { mcc: '001', mnc: '01' });
    // The gNB got the KgNB the UE derives itself (TS 33.501 A.9): AS security would start.
    assert.equal((await contextSetup).kgnbMatches, true);

    await assertShownRegistered(s, imsi, { radio: 'gnb-1', imei: IMEI });

    const filtered = await s.get<Page<{ imsi: string }>>('/api/v1/subscribers?radio=gnb-1');
    assert.deepEqual(
      filtered.items.map((item) => item.imsi),
      [imsi],
    );
    const other = await s.get<Page<{ imsi: string }>>('/api/v1/subscribers?radio=gnb-2');
    assert.equal(other.total_count, 0);

    const logs = await s.until(async () => {
      const rows = await logsOf(s, imsi);
      return rows.length >= EXPECTED_LOGS.length ? rows : undefined;
    }, 'subscriber logs');
    assert.deepEqual(
      logs.map((log) => [log.event, log.direction]),
      EXPECTED_LOGS,
    );
    // `raw` is the plain NAS message: the Security Mode Complete's decodes, with the IMEISV inside.
    const complete = logs.find((log) => log.event === 'Security Mode Complete');
    const decoded = decodeNasMessage(Buffer.from(complete?.raw ?? '', 'base64'));
    assert.ok(decoded.ok && decoded.message.messageType === 'securityModeComplete');
    assert.equal(decoded.message.imeisv?.type, 'imeisv');
    assert.equal(detailsOf(logs[0]).radio, 'gnb-1');
    assert.match(detailsOf(logs[0]).suci ?? '', /^suci-0-001-01-/);

    const events = await s.get<Page<RadioEvent>>('/api/v1/ran/events?message_type=InitialUEMessage');
    const initial = events.items.find((event) => detailsOf(event).imsi === imsi) ?? events.items[0];
    assert.ok(initial);
    assert.equal(detailsOf(initial).nas, 'Registration Request');
    const single = await s.get<{ decoded: unknown }>(`/api/v1/ran/events/${initial.id}`);
    assert.match(JSON.stringify(single.decoded), /"registration_request"/);
    // UE-associated messages of the gNB are on a stream other than 0 (TS 38.412 7).
    assert.ok(
      s.received.filter((e) => e.messageType === 'DownlinkNASTransport').every((e) => e.streamId >= 1),
    );
  });

  for (const scheme of ['A', 'B'] as const) {
    it(`SUCI Profile ${scheme}: the service de-conceals it with its home network key and registers the UE`, async () => {
      const imsi = imsiOf(scheme === 'A' ? 2 : 3);
      await s.provision(imsi);
      const id = scheme === 'A' ? 5 : 6;
      const publicKey = await s.homeNetworkKey(scheme, id);
      const ue = s.ue({
        imsi,
        suci: { scheme, homeNetworkPublicKey: publicKey, homeNetworkPublicKeyId: id },
      });
      assert.equal((await ue.register()).outcome, 'accepted');
      await statusUntil(s, imsi, (st) => st.registered, 'registered');
      // The status is the AMF's at once; the logs reach the database a batch of the records writer later.
      const [first] = await s.until(async () => {
        const logs = await logsOf(s, imsi);
        return logs.length > 0 ? logs : undefined;
      }, 'the subscriber logs');
      assert.match(
        detailsOf(first).suci ?? '',
        new RegExp(`^suci-0-001-01-0-${scheme === 'A' ? 1 : 2}-${id}-`),
      );
    });
  }
});
