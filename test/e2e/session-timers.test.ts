import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UeSessionEvent } from '../../src/simulator/ue/ue-sessions.ts';
import { ManualTime } from '../helpers/manual-time.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * T3591 and T3592 end to end (TS 24.501 6.3.2.5 a, 6.3.3.5 a) on manual time: a device that stays
 * silent to the network's PDU Session Modification Command or Release Command hears it five times
 * (the first, then four retransmissions 16 s apart in DL NAS Transport); at the fifth expiry the
 * modification is given up and the session released with #31, the release finished locally. The API
 * shows what is left. Against the real service (session-service.ts).
 */

const T359X_MS = 16_000;

describe('T3591 and T3592 through the simulator against the real service (manual time)', () => {
  const time = new ManualTime();
  // Packets between the service and the simulator are real I/O: one turn of the event loop after each
  // timer lets what is already received be handled (the tests poll for what they wait on).
  const advance = (ms: number) => time.advance(ms, () => new Promise<void>((r) => setImmediate(r)));
  let s: SessionService;
  before(async () => {
    s = await startSessionService({ time });
  });
  after(async () => {
    await s.close();
  });

  /** Registers device `n` with an active session 1, silent to `command`; the commands it ignores. */
  const silentDevice = async (
    n: number,
    command: 'pduSessionModificationCommand' | 'pduSessionReleaseCommand',
  ) => {
    const device = await s.registered(n);
    const established = await device.sessions.establish({ pduSessionId: 1, type: 'IPv4' });
    assert.ok(established.outcome === 'accepted');
    await s.until(
      async () => ((await s.sessionsOf(device.imsi))[0]?.status === 'active' ? true : undefined),
      'active',
    );
    device.sessions.staySilentTo([command]);
    const ignored: Extract<UeSessionEvent, { type: 'ignored' }>[] = [];
    device.sessions.on((event) => {
      if (event.type === 'ignored') ignored.push(event);
    });
    const heard = (count: number): Promise<true> =>
      s.until(async () => (ignored.length >= count ? true : undefined), `${command} #${count}`);
    return { ...device, address: established.session.ipv4, ignored, heard };
  };

  it('T3591: a Modification Command left unanswered is sent five times, then the session is released with #31', async () => {
    const { imsi, sessions, ignored, heard } = await silentDevice(41, 'pduSessionModificationCommand');
    // A policy change: the network modifies the live session (6.3.2).
    await s.putDefaultPolicy({
      bitrate_uplink: '100 Mbps',
      bitrate_downlink: '200 Mbps',
      var5qi: 9,
      arp: 1,
    });
    await heard(1);
    // The UPF and the API have the new AMBR at once; the device has not confirmed it.
    await s.until(
      async () => ((await s.sessionsOf(imsi))[0]?.ambr_uplink === '100 Mbps' ? true : undefined),
      'the new AMBR shown',
    );
    for (let expiry = 1; expiry <= 4; expiry += 1) {
      await advance(T359X_MS);
      await heard(1 + expiry);
    }
    const released = sessions.next((e) => (e.type === 'released' ? e.cause : undefined));
    await advance(T359X_MS);
    // 6.3.2.5 a: the fifth expiry aborts the procedure; the network releases the session (#31).
    assert.equal(await released, 31);
    assert.equal(ignored.length, 5);
    assert.ok(
      ignored.every((e) => e.messageType === 'pduSessionModificationCommand' && e.pduSessionId === 1),
    );
    await s.until(async () => ((await s.sessionsOf(imsi)).length === 0 ? true : undefined), 'no session');
    assert.equal(sessions.get(1), undefined);
  });

  it('T3592: a Release Command left unanswered is sent five times, then the release ends locally; the resources went at once', async () => {
    const { imsi, sessions, ignored, heard, address } = await silentDevice(42, 'pduSessionReleaseCommand');
    // A pool change releases the session with #39 (network.md 6).
    await s.putDefaultProfile({ 'ue-ip-pool': '10.48.0.0/16' });
    await heard(1);
    // The session's address and forwarder rules are freed when the command goes (docs/sessions.md).
    await s.until(async () => ((await s.sessionsOf(imsi)).length === 0 ? true : undefined), 'no session');
    assert.ok(![...s.rules.sessions.values()].some((rule) => rule.ipv4 === address));
    for (let expiry = 1; expiry <= 4; expiry += 1) {
      await advance(T359X_MS);
      await heard(1 + expiry);
    }
    // The fifth expiry ends the procedure: nothing more is sent, however long the device stays silent.
    await advance(3 * T359X_MS);
    assert.equal(ignored.length, 5);
    assert.ok(ignored.every((e) => e.messageType === 'pduSessionReleaseCommand' && e.cause === 39));
    // The device still holds the session it never heard released; a new establishment under the same
    // PDU session id replaces it (6.4.1.2), with an address from the new pool.
    assert.ok(sessions.get(1) !== undefined);
    sessions.staySilentTo([]);
    const fresh = await sessions.establish({ pduSessionId: 1, type: 'IPv4' });
    assert.ok(fresh.outcome === 'accepted');
    assert.equal(fresh.session.ipv4, '10.48.0.1');
  });
});
