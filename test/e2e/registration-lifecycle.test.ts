import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeNasMessage } from '../../src/network/nas/index.ts';
import { nasOf } from '../helpers/nas-psis.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { Page, RegistrationService } from './registration-service.ts';
import {
  assertShownUnregistered,
  imsiOf,
  logsOf,
  startRegistrationService,
  statusOf,
  statusUntil,
} from './registration-service.ts';

/**
 * A registered device's life end to end (TS 24.501 5.3, 5.5.2, 5.6; network.md section 5): idle after
 * the radio's release request (still registered), back with a service request, deregistration by the
 * device (normal and switch-off), and by the network when the subscriber is deleted through the API,
 * connected or idle (paged first).
 */

describe('registered device lifecycle through the simulator against the real service', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  async function registered(n: number) {
    const imsi = imsiOf(n);
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered');
    return { imsi, ue };
  }

  /**
   * The radio asks for the UE's release (user inactivity); resolves once the service has stored the UE
   * Context Release Complete, so that what the test does next meets an idle UE in the AMF too.
   */
  async function idle(ue: ReturnType<RegistrationService['ue']>): Promise<void> {
    const released = await releasing(ue);
    assert.equal(s.ues.requestRelease(ue), true);
    await released();
  }

  const completes = async () =>
    (await s.get<Page<unknown>>('/api/v1/ran/events?message_type=UEContextReleaseComplete')).total_count;

  /**
   * Resolves to a wait for the UE's next release (by the radio or the AMF): until the UE hears it and the
   * service has stored the UE Context Release Complete.
   */
  async function releasing(ue: ReturnType<RegistrationService['ue']>): Promise<() => Promise<void>> {
    const before = await completes();
    const released = ue.next((e) => (e.type === 'released' ? e : undefined));
    return async () => {
      await released;
      await s.until(async () => ((await completes()) > before ? true : undefined), 'release complete stored');
    };
  }

  it('idle stays registered; a service request brings the device back (new KgNB); logs show it', async () => {
    const { imsi, ue } = await registered(21);
    await idle(ue);
    assert.equal((await statusOf(s, imsi)).registered, true);
    const setup = ue.next((e) => (e.type === 'context-setup' ? e : undefined));
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    assert.equal((await setup).kgnbMatches, true);
    const rows = await s.until(async () => {
      const logged = await logsOf(s, imsi);
      return logged.some((row) => row.event === 'Service Request') ? logged : undefined;
    }, 'service request logged');
    // `raw` is the whole message its ciphered NAS message container held (TS 24.501 4.4.6), in plain.
    const logged = rows.find((row) => row.event === 'Service Request');
    const decoded = decodeNasMessage(Buffer.from(logged?.raw ?? '', 'base64'));
    assert.ok(decoded.ok && decoded.message.messageType === 'serviceRequest');
    assert.equal(decoded.message.nasMessageContainer, undefined);
    const [sent] = nasOf(ue, 'serviceRequest');
    assert.deepEqual(Buffer.from(logged?.raw ?? '', 'base64'), Buffer.from(sent ?? []));
  });

  it('periodic and mobility registration updating from idle (integrity-protected, cleartext IEs): accepted', async () => {
    const { imsi, ue } = await registered(25);
    const tmsi = ue.guti?.tmsi;
    await idle(ue);
    const released = await releasing(ue);
    const periodic = await ue.registrationUpdate('periodic');
    assert.equal(periodic.outcome, 'accepted', JSON.stringify(periodic));
    // network.md section 5: a 5G-GUTI reallocated at every registration.
    assert.notEqual(ue.guti?.tmsi, tmsi);
    // Without a follow-on request the AMF releases the connection itself (TS 24.501 5.5.1.3.4).
    await released();
    assert.equal((await ue.registrationUpdate('mobility')).outcome, 'accepted');
    assert.equal((await statusOf(s, imsi)).registered, true);
  });

  it('UE-initiated deregistration (normal, then switch-off after registering again): unregistered', async () => {
    const { imsi, ue } = await registered(22);
    assert.deepEqual(await ue.deregister(), { outcome: 'accepted' });
    await assertShownUnregistered(s, imsi);
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered again');
    assert.deepEqual(await ue.deregister({ switchOff: true }), { outcome: 'switched-off' });
    await statusUntil(s, imsi, (st) => !st.registered, 'unregistered after switch-off');
  });

  it('a 5G-GUTI the AMF does not hold (forgotten after deregistration): Identity Request for the SUCI, then registered', async () => {
    const { imsi, ue } = await registered(26);
    assert.deepEqual(await ue.deregister(), { outcome: 'accepted' });
    await statusUntil(s, imsi, (st) => !st.registered, 'unregistered');
    const from = ue.log.length;
    // The device keeps its 5G-GUTI and registers with it (TS 24.501 5.5.1.2.2); the AMF forgot it.
    assert.equal((await ue.register()).outcome, 'accepted');
    const exchanged = ue.log.slice(from).map((x) => `${x.direction} ${x.messageType}`);
    assert.deepEqual(exchanged.slice(0, 4), [
      'uplink registrationRequest',
      'downlink identityRequest',
      'uplink identityResponse',
      'downlink authenticationRequest',
    ]);
    const request = ue.log.slice(from).find((x) => x.messageType === 'registrationRequest');
    const decoded = decodeNasMessage(request?.plain ?? new Uint8Array());
    assert.ok(decoded.ok && decoded.message.messageType === 'registrationRequest');
    assert.equal(decoded.message.mobileIdentity.type, '5g-guti');
    await statusUntil(s, imsi, (st) => st.registered, 'registered again');
    const rows = await s.until(async () => {
      const logged = await logsOf(s, imsi);
      return logged.filter((row) => row.event === 'Registration Complete').length === 2 ? logged : undefined;
    }, 'the second registration logged');
    const second = rows.slice(rows.findLastIndex((row) => row.event === 'Deregistration Accept') + 1);
    assert.deepEqual(
      second.slice(0, 4).map((row) => [row.event, row.direction]),
      [
        ['Registration Request', 'inbound'],
        ['Identity Request', 'outbound'],
        ['Identity Response', 'inbound'],
        ['Authentication Request', 'outbound'],
      ],
    );
  });

  it('a policy for another slice added, then deleted, through the API: Configuration Update Command with the allowed NSSAI each time', async () => {
    const imsi = imsiOf(27);
    await s.provision(imsi);
    assert.equal(await s.request('POST', '/api/v1/slices', { name: 'second', sst: 2 }), 201);
    const ue = s.ue({ imsi, requestedNssai: [{ sst: 1 }, { sst: 2 }] });
    assert.equal((await ue.register()).outcome, 'accepted');
    // Only the default slice has a policy for the default profile (decisions section 9).
    assert.deepEqual(ue.allowedNssai, [{ sst: 1 }]);
    const policy = {
      bitrate_uplink: '100 Mbps',
      bitrate_downlink: '100 Mbps',
      var5qi: 9,
      arp: 1,
      data_network_name: 'internet',
      profile_name: 'default',
      slice_name: 'second',
    };
    const widened = ue.next((e) => (e.type === 'configuration-update' ? true : undefined));
    assert.equal(await s.request('POST', '/api/v1/policies', { name: 'second', ...policy }), 201);
    await widened;
    assert.deepEqual(ue.allowedNssai, [{ sst: 1 }, { sst: 2 }]);
    const narrowed = ue.next((e) => (e.type === 'configuration-update' ? true : undefined));
    assert.equal(await s.request('DELETE', '/api/v1/policies/second'), 200);
    await narrowed;
    assert.deepEqual(ue.allowedNssai, [{ sst: 1 }]);
    const rows = await s.until(async () => {
      const logged = await logsOf(s, imsi);
      return logged.filter((row) => row.event === 'Configuration Update Complete').length === 2
        ? logged
        : undefined;
    }, 'both updates acknowledged and logged');
    assert.deepEqual(
      rows.slice(-4).map((row) => [row.event, row.direction]),
      [
        ['Configuration Update Command', 'outbound'],
        ['Configuration Update Complete', 'inbound'],
        ['Configuration Update Command', 'outbound'],
        ['Configuration Update Complete', 'inbound'],
      ],
    );
    assert.equal((await statusOf(s, imsi)).registered, true);
  });

  it('the subscriber deleted through the API: network-initiated deregistration, connected and idle (paged)', async () => {
    const connected = await registered(23);
    const gone = connected.ue.next((e) => (e.type === 'deregistered-by-network' ? e : undefined));
    assert.equal(await s.request('DELETE', `/api/v1/subscribers/${connected.imsi}`), 200);
    await gone;
    assert.equal(connected.ue.state, 'deregistered');

    const sleeping = await registered(24);
    await idle(sleeping.ue);
    const paged = sleeping.ue.next((e) => (e.type === 'paged' ? e : undefined));
    const away = sleeping.ue.next((e) => (e.type === 'deregistered-by-network' ? e : undefined));
    assert.equal(await s.request('DELETE', `/api/v1/subscribers/${sleeping.imsi}`), 200);
    // The paged device comes back with a Service Request; the network answers it with the
    // Deregistration Request it paged for (TS 24.501 5.5.2.3.1), not a Service Accept.
    await away;
    assert.deepEqual((await paged).outcome, { outcome: 'failed', reason: 'deregistered by the network' });
    assert.ok(sleeping.ue.log.some((e) => e.messageType === 'serviceRequest'));
    assert.equal(sleeping.ue.state, 'deregistered');
  });
});
