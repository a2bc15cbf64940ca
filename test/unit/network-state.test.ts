import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createNetworkState, type PduSession, type Registration } from '../../src/network/network-state.ts';
import { manualClock } from '../helpers/test-app.ts';

const IMSI_A = '001010000000001';
const IMSI_B = '001010000000002';

const registration: Registration = {
  radioAccessTypes: ['5G'],
  imei: '356938035643809',
  cipheringAlgorithm: 'NEA2',
  integrityAlgorithm: 'NIA2',
};

const session = (id: number, dataNetwork = 'internet'): PduSession => ({
  id,
  radioAccessType: '5G',
  status: 'active',
  ipType: 'IPv4',
  ipv4Address: `10.45.0.${id}`,
  ipv6Prefix: '',
  dataNetwork,
  slice: { sst: 1, sd: '010203' },
  ambrUplink: '1 Gbps',
  ambrDownlink: '1 Gbps',
});

const setup = () => {
  const clock = manualClock(Date.parse('2026-11-22T10:00:00.000Z'));
  return { clock, state: createNetworkState({ clock }) };
};

describe('network state: radios', () => {
  it('a disconnecting radio no longer serves its devices, which stay registered', () => {
    const { state } = setup();
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    state.radioDisconnected('gnb-1');
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.equal(state.subscriber(IMSI_A).registered, true);
    assert.equal(state.subscriber(IMSI_A).lastSeenRadio, 'gnb-1');
  });
});

describe('network state: registrations', () => {
  it('reports a subscriber it has never seen as not registered, with empty values', () => {
    const { state } = setup();
    assert.deepEqual(state.subscriber(IMSI_A), {
      registered: false,
      radioAccessTypes: [],
      imei: '',
      cipheringAlgorithm: '',
      integrityAlgorithm: '',
      lastSeenAt: undefined,
      lastSeenRadio: '',
      servingCell: undefined,
      sessions: [],
    });
    assert.deepEqual(state.summary(IMSI_A), { registered: false, radioAccessTypes: [], sessions: 0 });
  });

  it('records a registration: RAT, IMEI, algorithms, last seen time and radio', () => {
    const { state } = setup();
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    const seen = state.subscriber(IMSI_A);
    assert.deepEqual(
      [seen.registered, seen.radioAccessTypes, seen.imei, seen.cipheringAlgorithm, seen.integrityAlgorithm],
      [true, ['5G'], '356938035643809', 'NEA2', 'NIA2'],
    );
    assert.deepEqual(
      [seen.lastSeenAt, seen.lastSeenRadio],
      [Date.parse('2026-11-22T10:00:00.000Z'), 'gnb-1'],
    );
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), [IMSI_A]);
  });

  it('moves a device between radios as it is seen, and keeps its serving cell', () => {
    const { clock, state } = setup();
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    clock.advance(5000);
    const cell = { mcc: '001', mnc: '01', tac: '000001', cellIdentity: '000000010' };
    state.subscriberSeen(IMSI_A, 'gnb-2', cell);
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.deepEqual(state.subscribersOnRadio('gnb-2'), [IMSI_A]);
    const seen = state.subscriber(IMSI_A);
    assert.deepEqual(
      [seen.lastSeenAt, seen.lastSeenRadio, seen.servingCell],
      [Date.parse('2026-11-22T10:00:05.000Z'), 'gnb-2', cell],
    );
  });

  it('signalling from an unregistered device updates last seen but puts it on no radio', () => {
    const { state } = setup();
    state.subscriberSeen(IMSI_B, 'gnb-1');
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.equal(state.subscriber(IMSI_B).lastSeenRadio, 'gnb-1');
    assert.equal(state.subscriber(IMSI_B).registered, false);
  });

  it('deregistration ends the registration and every session, and keeps last seen', () => {
    const { state } = setup();
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    state.sessionEstablished(IMSI_A, session(1));
    state.subscriberDeregistered(IMSI_A);
    const seen = state.subscriber(IMSI_A);
    assert.deepEqual([seen.registered, seen.radioAccessTypes, seen.sessions], [false, [], []]);
    assert.equal(seen.lastSeenRadio, 'gnb-1');
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.equal(state.sessionsOnDataNetwork('internet'), 0);
  });

  it('forgets a removed subscriber entirely', () => {
    const { state } = setup();
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    state.sessionEstablished(IMSI_A, session(1));
    state.subscriberRemoved(IMSI_A);
    assert.equal(state.subscriber(IMSI_A).lastSeenAt, undefined);
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.equal(state.sessionsOnDataNetwork('internet'), 0);
  });

  it('hands out copies: changing a read value leaves the state as it was', () => {
    const { state } = setup();
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    state.sessionEstablished(IMSI_A, session(1));
    const read = state.subscriber(IMSI_A);
    read.radioAccessTypes.push('4G');
    read.sessions[0]!.slice.sst = 9;
    state.summary(IMSI_A).radioAccessTypes.push('3G');
    assert.deepEqual(state.subscriber(IMSI_A).radioAccessTypes, ['5G']);
    assert.equal(state.subscriber(IMSI_A).sessions[0]?.slice.sst, 1);
  });
});

describe('network state: sessions', () => {
  it('counts sessions per subscriber and per data network', () => {
    const { state } = setup();
    state.sessionEstablished(IMSI_A, session(1));
    state.sessionEstablished(IMSI_A, session(2, 'corp'));
    state.sessionEstablished(IMSI_B, session(1));
    assert.equal(state.summary(IMSI_A).sessions, 2);
    assert.deepEqual(
      state.subscriber(IMSI_A).sessions.map((s) => [s.id, s.dataNetwork]),
      [
        [1, 'internet'],
        [2, 'corp'],
      ],
    );
    assert.equal(state.sessionsOnDataNetwork('internet'), 2);
    assert.equal(state.sessionsOnDataNetwork('corp'), 1);
    assert.equal(state.sessionsOnDataNetwork('other'), 0);
  });

  it('replacing a session with the same id moves its count to the new data network', () => {
    const { state } = setup();
    state.sessionEstablished(IMSI_A, session(1));
    state.sessionEstablished(IMSI_A, session(1, 'corp'));
    assert.equal(state.summary(IMSI_A).sessions, 1);
    assert.equal(state.sessionsOnDataNetwork('internet'), 0);
    assert.equal(state.sessionsOnDataNetwork('corp'), 1);
  });

  it('releasing a session removes it and its count; releasing an unknown one changes nothing', () => {
    const { state } = setup();
    state.sessionEstablished(IMSI_A, session(1));
    state.sessionEstablished(IMSI_A, session(2));
    state.sessionReleased(IMSI_A, 1);
    state.sessionReleased(IMSI_A, 99);
    state.sessionReleased(IMSI_B, 1);
    assert.deepEqual(
      state.subscriber(IMSI_A).sessions.map((s) => s.id),
      [2],
    );
    assert.equal(state.sessionsOnDataNetwork('internet'), 1);
  });
});
