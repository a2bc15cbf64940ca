import assert from 'node:assert/strict';
import { beforeEach, afterEach, describe, it } from 'node:test';
import type { ConfigurationChange } from '../../src/network/ports/configuration-events.ts';
import { imsi, newSubscriber, TEST_SET_1 } from '../helpers/network.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let token: string;

beforeEach(async () => {
  t = await createTestApp();
  token = await initialize(t);
});
afterEach(() => t.close());

async function createSubscriber(n: number, sequenceNumber = '000000000001'): Promise<void> {
  const response = await t.request({
    method: 'POST',
    url: '/api/v1/subscribers',
    token,
    payload: newSubscriber(n, { sequenceNumber, opc: TEST_SET_1.opc }),
  });
  assert.equal(response.statusCode, 201, response.body);
}

async function storedSqn(n: number): Promise<string> {
  const response = await t.request({
    method: 'GET',
    url: `/api/v1/subscribers/${imsi(n)}/credentials`,
    token,
  });
  return result<{ sequenceNumber: string }>(response).sequenceNumber;
}

describe('authentication data port', () => {
  it('gives K and OPc and a fresh SQN (SEQ + 1, IND + 1), stored before it returns', async () => {
    await createSubscriber(1);
    const port = t.core.ports.authenticationData;
    const first = await port.generateAuthenticationData(imsi(1));
    assert.ok(first);
    assert.equal(first.k.toString('hex'), TEST_SET_1.key);
    assert.equal(first.opc.toString('hex'), TEST_SET_1.opc);
    // 000000000001: SEQ 0, IND 1 -> SEQ 1, IND 2 = 1 << 5 | 2.
    assert.equal(first.sqn.toString('hex'), '000000000022');
    assert.equal(await storedSqn(1), '000000000022');
    const second = await port.generateAuthenticationData(imsi(1));
    assert.equal(second?.sqn.toString('hex'), '000000000043');
  });

  it('writes no audit entry for the network reading authentication data', async () => {
    await createSubscriber(1);
    const before = (await auditEntries(t, token)).length;
    await t.core.ports.authenticationData.generateAuthenticationData(imsi(1));
    assert.equal((await auditEntries(t, token)).length, before);
  });

  it('never gives two concurrent generations for one subscriber the same SQN', async () => {
    await createSubscriber(1);
    const port = t.core.ports.authenticationData;
    const generated = await Promise.all(
      Array.from({ length: 40 }, () => port.generateAuthenticationData(imsi(1))),
    );
    const sqns = generated.map((data) => data?.sqn.toString('hex'));
    assert.equal(new Set(sqns).size, 40);
    const highest = sqns.map((sqn) => BigInt(`0x${sqn}`)).reduce((a, b) => (a > b ? a : b));
    assert.equal(BigInt(`0x${await storedSqn(1)}`), highest);
  });

  it('resynchronises from SQN_MS: the next vector follows the device, not the old SQN_HE', async () => {
    await createSubscriber(1, '0000000003e1');
    const port = t.core.ports.authenticationData;
    assert.equal(await port.resynchronise(imsi(1), Buffer.from('000000100005', 'hex')), true);
    const next = await port.generateAuthenticationData(imsi(1));
    // SQN_MS 0x100005: SEQ 0x8000, IND 5 -> SEQ 0x8001, IND 6.
    assert.equal(next?.sqn.toString('hex'), ((0x8001 << 5) | 6).toString(16).padStart(12, '0'));
  });

  it('answers undefined and false for an unknown subscriber', async () => {
    const port = t.core.ports.authenticationData;
    assert.equal(await port.generateAuthenticationData(imsi(9)), undefined);
    assert.equal(await port.resynchronise(imsi(9), Buffer.alloc(6)), false);
  });
});

describe('subscription data port', () => {
  it('reads the profile and every policy that authorises it, in one read', async () => {
    await createSubscriber(1);
    const anyProfile = await t.request({
      method: 'POST',
      url: '/api/v1/policies',
      token,
      payload: {
        name: 'any-profile',
        bitrate_uplink: '10 Mbps',
        bitrate_downlink: '20 Mbps',
        var5qi: 7,
        arp: 3,
        data_network_name: 'internet',
      },
    });
    assert.equal(anyProfile.statusCode, 201, anyProfile.body);
    const data = await t.core.ports.subscriptionData.getSubscriptionData(imsi(1));
    assert.deepEqual(data, {
      imsi: imsi(1),
      profile: {
        name: 'default',
        ueIpPool: '10.45.0.0/16',
        dns: '8.8.8.8',
        mtu: 1400,
        ambrUplink: '1 Gbps',
        ambrDownlink: '1 Gbps',
        var5qi: 9,
        priorityLevel: 90,
      },
      authorisedSessions: [
        {
          policy: 'any-profile',
          dataNetwork: 'internet',
          slice: undefined,
          ambrUplink: '10 Mbps',
          ambrDownlink: '20 Mbps',
          var5qi: 7,
          arp: 3,
        },
        {
          policy: 'default',
          dataNetwork: 'internet',
          slice: { sst: 1 },
          ambrUplink: '1 Gbps',
          ambrDownlink: '1 Gbps',
          var5qi: 9,
          arp: 1,
        },
      ],
    });
    assert.equal(await t.core.ports.subscriptionData.getSubscriptionData(imsi(2)), undefined);
  });
});

describe('operator configuration port', () => {
  it('reads PLMN, TACs, the opened OP, slices, NAS preferences and home network keys', async () => {
    const configuration = await t.core.ports.operatorConfiguration.getOperatorConfiguration();
    assert.deepEqual(configuration.plmn, { mcc: '001', mnc: '01' });
    assert.deepEqual(configuration.tacs, ['000001']);
    assert.equal(configuration.op.length, 16);
    assert.deepEqual(configuration.slices, [{ sst: 1 }]);
    assert.deepEqual(configuration.nasSecurity, {
      ciphering: ['NEA2', 'NEA1', 'NEA0'],
      integrity: ['NIA2', 'NIA1'],
    });
    assert.deepEqual(configuration.homeNetworkKeys, []);
  });
});

describe('configuration events', () => {
  it('are published after commit, and never for a change that failed', async () => {
    const heard: ConfigurationChange[] = [];
    t.core.ports.configurationEvents.subscribe((change) => heard.push(change));
    await createSubscriber(1);
    const duplicate = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: newSubscriber(1),
    });
    assert.equal(duplicate.statusCode, 409);
    await t.request({
      method: 'PUT',
      url: '/api/v1/operator/tracking',
      token,
      payload: { supportedTacs: ['000002'] },
    });
    await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(1)}`, token });
    assert.deepEqual(heard, [
      { resource: 'subscriber', change: 'created', name: imsi(1) },
      { resource: 'operator', change: 'changed', name: '' },
      { resource: 'subscriber', change: 'deleted', name: imsi(1) },
    ]);
  });

  it('remove a deleted subscriber from the network state', async () => {
    await createSubscriber(1);
    t.network.subscriberRegistered(imsi(1), 'gnb-1', {
      radioAccessTypes: ['5G'],
      imei: '490154203237518',
      cipheringAlgorithm: 'NEA2',
      integrityAlgorithm: 'NIA2',
    });
    await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(1)}`, token });
    assert.equal(t.networkState.subscriber(imsi(1)).registered, false);
    assert.deepEqual(t.networkState.subscribersOnRadio('gnb-1'), []);
  });

  it('keep the others running when one listener throws', async () => {
    const heard: string[] = [];
    t.core.ports.configurationEvents.subscribe(() => {
      throw new Error('broken listener');
    });
    t.core.ports.configurationEvents.subscribe((change) => heard.push(change.name));
    await createSubscriber(1);
    assert.deepEqual(heard, [imsi(1)]);
  });
});
