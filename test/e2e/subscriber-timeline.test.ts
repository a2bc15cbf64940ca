import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertTsharkAgrees } from './n2-service.ts';
import type { Page, RegistrationService } from './registration-service.ts';
import { imsiOf, logsOf, startRegistrationService } from './registration-service.ts';

interface Item {
  kind: string;
  direction: string | null;
  message: string;
  level: string;
  radio: string | null;
  linked_record_id: number | null;
  explanation: string | null;
}

/**
 * One device's timeline from what the real AMF records (docs/api.md, "One subscriber's timeline"): the
 * NGAP messages carrying its NAS messages are linked by their bytes until NAS ciphering starts, and a
 * failed authentication is explained.
 */
describe('subscriber timeline through the simulator against the real service', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  /** The messages of the device's timeline, oldest first, once its subscriber logs hold `last`. */
  const story = async (imsi: string, last: string) => {
    await s.until(
      async () => ((await logsOf(s, imsi)).some((row) => row.event === last) ? true : undefined),
      last,
    );
    const page = await s.get<Page<Item>>(
      `/api/v1/subscribers/${imsi}/timeline?order=oldest&per_page=100&kinds=nas,ngap`,
    );
    return page.items;
  };
  /** Its state changes and sessions, oldest first, once they hold `last`. */
  const states = (imsi: string, last: string) =>
    s.until(async () => {
      const page = await s.get<Page<Item>>(
        `/api/v1/subscribers/${imsi}/timeline?order=oldest&per_page=100&kinds=state,session`,
      );
      return page.items.some((item) => item.message === last) ? page.items : undefined;
    }, last);
  const steps = (items: Item[]) =>
    items.map((item) => `${item.kind} ${item.message}${item.linked_record_id === null ? '' : ' +'}`);

  it('a wrong key: each NAS message with the NGAP message that carried it, and MAC failure explained', async () => {
    const imsi = imsiOf(41);
    await s.provision(imsi);
    const ue = s.ue({ imsi, key: Buffer.alloc(16, 0x5a) });
    assert.deepEqual(await ue.register(), { outcome: 'authentication-rejected' });
    const items = await story(imsi, 'Authentication Reject');
    assert.deepEqual(steps(items), [
      'ngap InitialUEMessage +',
      'nas Registration Request +',
      'nas Authentication Request +',
      'ngap DownlinkNASTransport +',
      'ngap UplinkNASTransport +',
      'nas Authentication Failure +',
      'nas Authentication Reject +',
      'ngap DownlinkNASTransport +',
    ]);
    assert.ok(items.every((item) => item.radio === 'gnb-1'));
    const failure = items.find((item) => item.message === 'Authentication Failure');
    assert.match(failure?.explanation ?? '', /MAC failure.*check the K and OPc/);
    // Connected by its Initial UE Message, then rejected (and idle once its context is released).
    const changes = steps(await states(imsi, 'Rejected')).filter((step) => step !== 'state Idle');
    assert.deepEqual(changes, ['state Connected', 'state Rejected']);
  });

  it('a registration: plain and integrity-protected messages linked, ciphered ones (NEA2) shown alone', async () => {
    const imsi = imsiOf(42);
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    assert.equal((await ue.register()).outcome, 'accepted');
    const items = await story(imsi, 'Registration Complete');
    const nas = items.filter((item) => item.kind === 'nas');
    const linked = (message: string) =>
      nas.find((item) => item.message === message)?.linked_record_id !== null;
    for (const message of [
      'Registration Request',
      'Authentication Request',
      'Authentication Response',
      'Security Mode Command',
    ])
      assert.ok(linked(message), message);
    // After Security Mode Complete the NAS messages are ciphered with NEA2 (the default preference).
    for (const message of ['Registration Accept', 'Registration Complete'])
      assert.ok(!linked(message), message);
    assert.equal(
      items.filter((item) => item.kind === 'ngap').length,
      nas.filter((item) => item.linked_record_id !== null).length,
    );
    // The state changes the AMF's records and events tell: connected, then registered through the radio.
    const registered = await states(imsi, 'Registered');
    assert.deepEqual(steps(registered).slice(0, 2), ['state Connected', 'state Registered']);
    assert.equal(registered[1]?.radio, 'gnb-1');
  });
});
