import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertTsharkAgrees } from './n2-service.ts';
import type { Page } from './registration-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * PDU sessions end to end (network.md 6, TS 24.501 6.4.1, 6.4.3, 6.3.2, 6.3.3; TS 38.413 8.2): simulated
 * UEs behind a simulated gNB against the real service (N2 over udp, the SMF and the UPF's control side
 * as main.ts wires them). What the devices did is asserted through the management API and the rules
 * the UPF was given; tshark reads every NGAP PDU (and the NAS inside) the gNB received.
 */

interface SubscriberLog {
  event: string;
  direction: string;
  details: string;
}

describe('PDU sessions through the simulator against the real service', () => {
  let s: SessionService;
  before(async () => {
    s = await startSessionService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  const dataNetworkSessions = async (): Promise<number> =>
    (await s.get<{ status: { sessions: number } }>('/api/v1/networking/data-networks/internet')).status
      .sessions;

  it('IPv4: address, DNS, MTU, AMBR and QoS in the Accept; the API shows it active; the UPF has both tunnels; logs name the 5GSM messages', async () => {
    const { imsi, ue, sessions } = await s.registered(1);
    const outcome = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(outcome.outcome, 'accepted');
    assert.ok(outcome.outcome === 'accepted');
    const { session } = outcome;
    assert.equal(session.ipType, 'IPv4');
    assert.equal(session.ipv4, '10.45.0.1'); // the lowest address of 10.45.0.0/16 that is not the network's
    assert.equal(session.dns, '8.8.8.8');
    assert.equal(session.mtu, 1400);
    // 1 Gbps as 1000 Mbps: the smallest unit that holds it exactly (TS 24.501 9.11.4.14).
    assert.deepEqual(session.sessionAmbr, {
      downlink: { unit: 6, value: 1000 },
      uplink: { unit: 6, value: 1000 },
    });
    assert.equal(session.qfi, 1);
    assert.equal(session.fiveQi, 9);
    assert.equal(session.dnn, 'internet');

    const shown = await s.until(async () => {
      const list = await s.sessionsOf(imsi);
      return list[0]?.status === 'active' ? list : undefined;
    }, 'the session active');
    assert.deepEqual(shown, [
      {
        radio_access_type: '5G',
        id: 1,
        status: 'active',
        ip_type: 'IPv4',
        ipv4_address: '10.45.0.1',
        ipv6_prefix: '',
        data_network: 'internet',
        slice: { sst: 1, sd: '' },
        ambr_uplink: '1 Gbps',
        ambr_downlink: '1 Gbps',
      },
    ]);
    assert.equal(await dataNetworkSessions(), 1);
    const list = await s.get<Page<{ imsi: string; status: { num_sessions: number } }>>(
      '/api/v1/subscribers?data_network=internet',
    );
    assert.equal(list.items.find((item) => item.imsi === imsi)?.status.num_sessions, 1);

    // The UPF: the session's address, its AMBR, and the downlink to the gNB's N3 address and TEID.
    const [rule] = [...s.rules.sessions.values()];
    assert.equal(rule?.ipv4, '10.45.0.1');
    assert.deepEqual(rule?.ambr, [1e9, 1e9]);
    const tunnel = s.ues.sessions.of(ue)[0];
    assert.equal(rule?.teid, tunnel?.uplink.teid);
    assert.equal(tunnel?.uplink.address, '127.0.0.1');
    assert.equal(rule?.downlink, `127.0.0.2:2152 teid ${tunnel?.downlink.teid} qfi 1`);

    const logs = await s.until(async () => {
      const page = await s.get<Page<SubscriberLog>>(`/api/v1/logs/subscribers?imsi=${imsi}&per_page=100`);
      const found = page.items.filter((row) => row.event.startsWith('PDU Session'));
      return found.length >= 2 ? found : undefined;
    }, 'the 5GSM logs');
    const request = logs.find((row) => row.event === 'PDU Session Establishment Request');
    assert.equal(request?.direction, 'inbound');
    assert.equal((JSON.parse(request?.details ?? '{}') as { pdu_session_id?: number }).pdu_session_id, 1);
    assert.equal(logs.find((row) => row.event === 'PDU Session Establishment Accept')?.direction, 'outbound');
  });

  it('rejects with the 5GSM cause: unknown DNN #27, a slice not allowed #33, IPv6 without an IPv6 pool #50; IPv4v6 becomes IPv4 with #50', async () => {
    const { imsi, sessions } = await s.registered(2);
    assert.deepEqual(await sessions.establish({ pduSessionId: 1, dnn: 'nowhere' }), {
      outcome: 'rejected',
      cause: 27,
    });
    assert.deepEqual(await sessions.establish({ pduSessionId: 2, sNssai: { sst: 9 } }), {
      outcome: 'rejected',
      cause: 33,
    });
    assert.deepEqual(await sessions.establish({ pduSessionId: 3, type: 'IPv6' }), {
      outcome: 'rejected',
      cause: 50,
    });
    const dual = await sessions.establish({ pduSessionId: 4, type: 'IPv4v6' });
    assert.ok(dual.outcome === 'accepted', JSON.stringify(dual));
    assert.equal(dual.session.ipType, 'IPv4');
    assert.equal(dual.session.cause, 50);
    assert.equal(dual.session.dnn, 'internet'); // the default DNN
    const shown = await s.sessionsOf(imsi);
    assert.deepEqual(
      shown.map((x) => [x.id, x.ip_type]),
      [[4, 'IPv4']],
    );
    // Subscriber logs go through the records pipeline: wait until all three rejects are written.
    const rejects = await s.until(async () => {
      const page = await s.get<Page<SubscriberLog>>(`/api/v1/logs/subscribers?imsi=${imsi}&per_page=100`);
      const found = page.items.filter((row) => row.event === 'PDU Session Establishment Reject');
      return found.length >= 3 ? found : undefined;
    }, 'three rejects logged');
    assert.deepEqual(rejects.map((row) => (JSON.parse(row.details) as { cause?: string }).cause).sort(), [
      'Missing or unknown DNN (27)',
      'PDU session type IPv4 only allowed (50)',
      'Requested service option not subscribed (33)',
    ]);
  });

  it('IPv6 and IPv4v6 with an IPv6 pool: a /64 each, never the same; UE-requested release frees address and rules', async () => {
    await s.putDefaultProfile({ 'ue-ipv6-pool': '2001:db8:45::/48' });
    const { imsi, sessions } = await s.registered(3);
    const v6 = await sessions.establish({ pduSessionId: 1, type: 'IPv6' });
    const dual = await sessions.establish({ pduSessionId: 2, type: 'IPv4v6' });
    assert.ok(v6.outcome === 'accepted' && dual.outcome === 'accepted');
    assert.equal(v6.session.ipv4, undefined);
    assert.deepEqual([...(v6.session.ipv6InterfaceIdentifier ?? [])], [0, 0, 0, 0, 0, 0, 0, 1]);
    const shown = await s.until(async () => {
      const list = await s.sessionsOf(imsi);
      return list.length === 2 && list.every((x) => x.status === 'active') ? list : undefined;
    }, 'two active sessions');
    const byId = new Map(shown.map((x) => [x.id, x]));
    assert.equal(byId.get(1)?.ip_type, 'IPv6');
    assert.equal(byId.get(1)?.ipv6_prefix, '2001:db8:45::/64');
    assert.equal(byId.get(2)?.ip_type, 'IPv4v6');
    assert.equal(byId.get(2)?.ipv6_prefix, '2001:db8:45:1::/64');
    assert.match(byId.get(2)?.ipv4_address ?? '', /^10\.45\.0\.\d+$/);

    const before = s.rules.sessions.size;
    assert.deepEqual(await sessions.release(1), { outcome: 'released', cause: 36 });
    await s.until(
      async () => ((await s.sessionsOf(imsi)).length === 1 ? true : undefined),
      'one session left',
    );
    assert.equal(s.rules.sessions.size, before - 1);
    // The /64 is free again: the next IPv6 session gets it back.
    const again = await sessions.establish({ pduSessionId: 1, type: 'IPv6' });
    assert.ok(again.outcome === 'accepted');
    await s.until(async () => {
      const list = await s.sessionsOf(imsi);
      return list.find((x) => x.id === 1)?.ipv6_prefix === '2001:db8:45::/64' ? true : undefined;
    }, 'the /64 handed out again');
    await s.putDefaultProfile({});
  });

  it('idle: user plane deactivated (inactive), service request with uplink data status: reactivated (active) with a new downlink', async () => {
    const { imsi, ue, sessions } = await s.registered(4);
    assert.equal((await sessions.establish({ type: 'IPv4' })).outcome, 'accepted');
    await s.until(
      async () => ((await s.sessionsOf(imsi))[0]?.status === 'active' ? true : undefined),
      'active',
    );
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    await s.until(
      async () => ((await s.sessionsOf(imsi))[0]?.status === 'inactive' ? true : undefined),
      'inactive',
    );
    const up = new Promise<void>((resolve) => {
      const off = s.ues.sessions.on((event) => {
        if (event.type === 'up' && event.session.ue === ue) {
          off();
          resolve();
        }
      });
    });
    // Uplink data status asks for session 1's user plane back (TS 24.501 5.6.1.4.1).
    assert.equal((await ue.serviceRequest('data', { uplinkData: [1] })).outcome, 'accepted');
    await up;
    const shown = await s.until(async () => {
      const list = await s.sessionsOf(imsi);
      return list[0]?.status === 'active' ? list : undefined;
    }, 'active again');
    assert.equal(shown.length, 1);
  });

  it('a policy change modifies the live session (AMBR, 5QI); a pool change releases it with #39', async () => {
    const { imsi, sessions } = await s.registered(5);
    assert.equal((await sessions.establish({ type: 'IPv4' })).outcome, 'accepted');
    await s.until(
      async () => ((await s.sessionsOf(imsi))[0]?.status === 'active' ? true : undefined),
      'active',
    );
    const modified = sessions.next((e) => (e.type === 'modified' ? e.session : undefined));
    await s.putDefaultPolicy({
      bitrate_uplink: '100 Mbps',
      bitrate_downlink: '200 Mbps',
      var5qi: 8,
      arp: 2,
    });
    const session = await modified;
    assert.deepEqual(session.sessionAmbr, {
      downlink: { unit: 6, value: 200 },
      uplink: { unit: 6, value: 100 },
    });
    assert.equal(session.fiveQi, 8);
    const shown = await s.until(async () => {
      const list = await s.sessionsOf(imsi);
      return list[0]?.ambr_uplink === '100 Mbps' ? list : undefined;
    }, 'the new AMBR shown');
    assert.equal(shown[0]?.ambr_downlink, '200 Mbps');

    const releasedByNetwork = sessions.next((e) => (e.type === 'released' ? e.cause : undefined));
    await s.putDefaultProfile({ 'ue-ip-pool': '10.46.0.0/16' });
    assert.equal(await releasedByNetwork, 39);
    await s.until(
      async () => ((await s.sessionsOf(imsi)).length === 0 ? true : undefined),
      'no session left',
    );
    // A new session takes its address from the new pool.
    const fresh = await sessions.establish({ type: 'IPv4' });
    assert.ok(fresh.outcome === 'accepted');
    assert.equal(fresh.session.ipv4, '10.46.0.1');
  });
});
