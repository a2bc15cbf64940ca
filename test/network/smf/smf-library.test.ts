import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitRateBps, PDU_SESSION_TYPE } from '../../../src/network/nas/index.ts';
import type { AuthorisedSession } from '../../../src/network/ports/subscription-data.ts';
import { createAddressPools } from '../../../src/network/working-state/address-pools.ts';
import { formatBitrate, parseBitrate } from '../../../src/network/common/bitrate-text.ts';
import { nasBitRate } from '../../../src/network/smf/bitrate.ts';
import { authorise, type SessionProfile } from '../../../src/network/smf/session-authorisation.ts';

describe('address pools (network.md 6)', () => {
  it('IPv4: lowest free, never network or broadcast, exhausted, freed addresses come back lowest first', () => {
    const pools = createAddressPools();
    const take = () => pools.allocate('ipv4', '192.168.7.0/30');
    assert.deepEqual(take(), { ok: true, address: '192.168.7.1' });
    assert.deepEqual(take(), { ok: true, address: '192.168.7.2' });
    assert.deepEqual(take(), { ok: false, error: 'exhausted' }); // .0 and .3 are never handed out
    assert.equal(pools.release('192.168.7.1'), true);
    assert.equal(pools.release('192.168.7.1'), false);
    assert.deepEqual(take(), { ok: true, address: '192.168.7.1' });
    assert.deepEqual(pools.allocate('ipv4', 'nonsense'), { ok: false, error: 'invalid' });
  });

  it('overlapping pools never share an address', () => {
    const pools = createAddressPools();
    assert.deepEqual(pools.allocate('ipv4', '10.0.0.0/24'), { ok: true, address: '10.0.0.1' });
    assert.deepEqual(pools.allocate('ipv4', '10.0.0.0/16'), { ok: true, address: '10.0.0.2' });
    pools.release('10.0.0.1');
    assert.deepEqual(pools.allocate('ipv4', '10.0.0.0/16'), { ok: true, address: '10.0.0.1' });
    assert.deepEqual(pools.allocate('ipv4', '10.0.0.0/24'), { ok: true, address: '10.0.0.3' });
  });

  it('IPv6: one /64 per session from a /62, exhausted after four, a prefix longer than /64 refused', () => {
    const pools = createAddressPools();
    const got = [0, 1, 2, 3].map(() => pools.allocate('ipv6', '2001:db8:0:4::/62'));
    assert.deepEqual(
      got.map((g) => (g.ok ? g.address : g.error)),
      ['2001:db8:0:4::', '2001:db8:0:5::', '2001:db8:0:6::', '2001:db8:0:7::'],
    );
    assert.deepEqual(pools.allocate('ipv6', '2001:db8:0:4::/62'), { ok: false, error: 'exhausted' });
    assert.deepEqual(pools.allocate('ipv6', '2001:db8::/96'), { ok: false, error: 'invalid' });
    assert.equal(pools.size, 4);
  });
});

describe('bitrates', () => {
  it('the API form to bits per second and back to a Session-AMBR rate (TS 24.501 9.11.4.14)', () => {
    assert.equal(parseBitrate('1 Gbps'), 1e9);
    assert.equal(parseBitrate('200 Mbps'), 200e6);
    assert.equal(parseBitrate('2.5 Gbps'), 2.5e9);
    assert.equal(parseBitrate('200 kbps'), undefined);
    // Written back in the same form, and read as the same number (an AMF set member's stored AMBRs).
    assert.deepEqual([1e9, 200e6, 2.5e9, 1_234_567, 1].map(formatBitrate), [
      '1 Gbps',
      '200 Mbps',
      '2500 Mbps',
      '1.234567 Mbps',
      '0.000001 Mbps',
    ]);
    for (const bps of [1e9, 200e6, 2.5e9, 1_234_567, 1, 10e9])
      assert.equal(parseBitrate(formatBitrate(bps)), bps);
    for (const bps of [1e6, 100e6, 1e9, 2.5e9, 65_535e6, 100e9, 1_500_000]) {
      const rate = nasBitRate(bps);
      assert.ok(rate.value <= 0xffff);
      assert.equal(bitRateBps(rate), bps, `${bps}`);
    }
    assert.deepEqual(nasBitRate(1e9), { unit: 6, value: 1000 });
    assert.deepEqual(nasBitRate(100e9), { unit: 11, value: 100 });
  });
});

describe('authorisation (network.md 6, decisions 9)', () => {
  const profile: SessionProfile = {
    name: 'default',
    ueIpPool: '10.45.0.0/16',
    dns: '8.8.8.8',
    mtu: 1400,
    ambrUplink: '1 Gbps',
    ambrDownlink: '1 Gbps',
    var5qi: 9,
    priorityLevel: 90,
  };
  const policy = (dataNetwork: string, slice?: { sst: number; sd?: string }): AuthorisedSession => ({
    policy: dataNetwork,
    dataNetwork,
    slice,
    ambrUplink: '100 Mbps',
    ambrDownlink: '200 Mbps',
    var5qi: 9,
    arp: 1,
  });
  const subscription = {
    profile,
    authorisedSessions: [policy('internet', { sst: 1 }), policy('ims', { sst: 2, sd: '000001' })],
  };
  const allowed = [{ sst: 1 }, { sst: 2, sd: 1 }];
  const ask = (request: Partial<Parameters<typeof authorise>[0]>, sub = subscription) =>
    authorise({ pduSessionType: undefined, dnn: undefined, sNssai: undefined, ...request }, sub, allowed);

  it('defaults: the first allowed slice with a policy and its data network; IPv4v6 asked without an IPv6 pool -> IPv4 with #50', () => {
    const granted = ask({});
    assert.ok(granted.ok);
    assert.deepEqual(
      [granted.dnn, granted.sNssai, granted.ipType, granted.typeCause],
      ['internet', { sst: 1 }, 'IPv4', 50],
    );
    const onSlice2 = ask({ sNssai: { sst: 2, sd: 1 } });
    assert.ok(onSlice2.ok);
    assert.equal(onSlice2.dnn, 'ims');
  });

  it('causes: #27 unknown DNN, #70 DNN not on the slice, #33 slice not allowed, #50 IPv6 without a pool, #28 Ethernet', () => {
    assert.deepEqual(ask({ dnn: 'nowhere' }), { ok: false, cause: 27 });
    assert.deepEqual(ask({ dnn: 'ims', sNssai: { sst: 1 } }), { ok: false, cause: 70 });
    assert.deepEqual(ask({ sNssai: { sst: 3 } }), { ok: false, cause: 33 });
    assert.deepEqual(ask({ pduSessionType: PDU_SESSION_TYPE.ipv6 }), { ok: false, cause: 50 });
    assert.deepEqual(ask({ pduSessionType: PDU_SESSION_TYPE.ethernet }), { ok: false, cause: 28 });
  });

  it('with an IPv6 pool: IPv6 and IPv4v6 as asked', () => {
    const sub = { ...subscription, profile: { ...profile, ueIpv6Pool: '2001:db8::/48' } };
    const v6 = ask({ pduSessionType: PDU_SESSION_TYPE.ipv6 }, sub);
    const dual = ask({}, sub);
    assert.ok(v6.ok && dual.ok);
    assert.deepEqual(
      [v6.ipType, v6.typeCause, dual.ipType, dual.typeCause],
      ['IPv6', undefined, 'IPv4v6', undefined],
    );
  });
});
