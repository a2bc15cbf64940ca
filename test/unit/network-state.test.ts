import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createNetworkState,
  type PduSession,
  type Registration,
  type ServingCell,
} from '../../src/network/network-state.ts';
import pino from 'pino';
import { createNetworkEvents } from '../../src/network/events/network-events.ts';
import { networkReports } from '../helpers/network-reports.ts';
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

/** Network state over its events; `report` emits what the network functions would. */
const setup = () => {
  const clock = manualClock(Date.parse('2026-11-22T10:00:00.000Z'));
  const events = createNetworkEvents({ logger: pino({ level: 'silent' }) });
  const state = createNetworkState({ clock, events });
  return { clock, state, events, report: networkReports({ networkEvents: events, networkState: state }) };
};

describe('network state: one writer', () => {
  it('is written only through the network events: it exposes no writer to the network functions', () => {
    const { state } = setup();
    // @ts-expect-error the network functions emit `ue.registered`; network state alone writes
    assert.equal(state.subscriberRegistered, undefined);
    // @ts-expect-error the SMF emits `session.established`
    assert.equal(state.sessionEstablished, undefined);
    // @ts-expect-error N2 emits `radio.connected`
    assert.equal(state.radioConnected, undefined);
  });
});

describe('network state: radios', () => {
  it('a disconnecting radio no longer serves its devices, which stay registered', () => {
    const { state, report } = setup();
    report.radioConnected({
      id: '001:01:000001',
      name: 'gnb-1',
      address: '10.0.0.1:38412',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
    report.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    assert.equal(report.radioDisconnected('001:01:000001'), true);
    assert.equal(report.radioDisconnected('001:01:000001'), false);
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.equal(state.subscriber(IMSI_A).registered, true);
    assert.equal(state.subscriber(IMSI_A).lastSeenRadio, 'gnb-1');
  });
});

describe('network state: radios', () => {
  const gnb = (name: string) => ({
    id: '001:01:000002',
    name,
    address: '10.0.0.2:38412',
    ranNodeType: 'gNB',
    supportedTais: [],
  });

  it('keeps the devices of a renamed radio under its new name', () => {
    const { state, report } = setup();
    report.radioConnected(gnb('gnb-2'));
    report.subscriberRegistered(IMSI_A, 'gnb-2', registration);
    assert.equal(report.radioUpdated('001:01:000002', { name: 'gnb-2b' }), true);
    assert.deepEqual(state.subscribersOnRadio('gnb-2'), []);
    assert.deepEqual(state.subscribersOnRadio('gnb-2b'), [IMSI_A]);
  });

  it('lets a radio that connects again under its id replace the old entry, which no longer serves devices', () => {
    const { state, report } = setup();
    report.radioConnected(gnb('gnb-2'));
    report.subscriberRegistered(IMSI_A, 'gnb-2', registration);
    report.radioConnected(gnb('gnb-2'));
    assert.equal(state.radioCount(), 1);
    assert.deepEqual(state.subscribersOnRadio('gnb-2'), []);
    assert.equal(state.subscriber(IMSI_A).registered, true);
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
      servingCellReportedAt: undefined,
      sessions: [],
    });
    assert.deepEqual(state.summary(IMSI_A), { registered: false, radioAccessTypes: [], sessions: 0 });
  });

  it('records a registration: RAT, IMEI, algorithms, last seen time and radio', () => {
    const { state, report } = setup();
    report.subscriberRegistered(IMSI_A, 'gnb-1', registration);
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
    const { clock, state, report } = setup();
    report.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    clock.advance(5000);
    const cell: ServingCell = { rat: 'nr', mcc: '001', mnc: '01', tac: '000001', cellIdentity: '000000010' };
    report.subscriberSeen(IMSI_A, 'gnb-2', cell);
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.deepEqual(state.subscribersOnRadio('gnb-2'), [IMSI_A]);
    const seen = state.subscriber(IMSI_A);
    assert.deepEqual(
      [seen.lastSeenAt, seen.lastSeenRadio, seen.servingCell],
      [Date.parse('2026-11-22T10:00:05.000Z'), 'gnb-2', cell],
    );
  });

  it('signalling from an unregistered device updates last seen but puts it on no radio', () => {
    const { state, report } = setup();
    report.subscriberSeen(IMSI_B, 'gnb-1');
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.notEqual(state.subscriber(IMSI_B).lastSeenAt, undefined);
    // network.md 5, decisions 10: the strings of a device not registered are "".
    assert.equal(state.subscriber(IMSI_B).lastSeenRadio, '');
    report.subscriberRegistered(IMSI_B, 'gnb-1', registration);
    assert.equal(state.subscriber(IMSI_B).lastSeenRadio, 'gnb-1');
    report.subscriberDeregistered(IMSI_B);
    assert.equal(state.subscriber(IMSI_B).registered, false);
  });

  it('deregistration ends the registration and every session, and keeps when it was last seen', () => {
    const { state, report } = setup();
    report.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    report.sessionEstablished(IMSI_A, session(1));
    report.subscriberDeregistered(IMSI_A);
    const seen = state.subscriber(IMSI_A);
    assert.deepEqual([seen.registered, seen.radioAccessTypes, seen.sessions], [false, [], []]);
    assert.notEqual(seen.lastSeenAt, undefined);
    assert.equal(seen.lastSeenRadio, '');
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.equal(state.sessionsOnDataNetwork('internet'), 0);
  });

  it('forgets a removed subscriber entirely', () => {
    const { state, report } = setup();
    report.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    report.sessionEstablished(IMSI_A, session(1));
    state.subscriberRemoved(IMSI_A);
    assert.equal(state.subscriber(IMSI_A).lastSeenAt, undefined);
    assert.deepEqual(state.subscribersOnRadio('gnb-1'), []);
    assert.equal(state.sessionsOnDataNetwork('internet'), 0);
  });

  it('hands out copies: changing a read value leaves the state as it was', () => {
    const { state, report } = setup();
    report.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    report.sessionEstablished(IMSI_A, session(1));
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
    const { state, report } = setup();
    report.sessionEstablished(IMSI_A, session(1));
    report.sessionEstablished(IMSI_A, session(2, 'corp'));
    report.sessionEstablished(IMSI_B, session(1));
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
    const { state, report } = setup();
    report.sessionEstablished(IMSI_A, session(1));
    report.sessionEstablished(IMSI_A, session(1, 'corp'));
    assert.equal(state.summary(IMSI_A).sessions, 1);
    assert.equal(state.sessionsOnDataNetwork('internet'), 0);
    assert.equal(state.sessionsOnDataNetwork('corp'), 1);
  });

  it('releasing a session removes it and its count; releasing an unknown one changes nothing', () => {
    const { state, report } = setup();
    report.sessionEstablished(IMSI_A, session(1));
    report.sessionEstablished(IMSI_A, session(2));
    report.sessionReleased(IMSI_A, 1);
    report.sessionReleased(IMSI_A, 99);
    report.sessionReleased(IMSI_B, 1);
    assert.deepEqual(
      state.subscriber(IMSI_A).sessions.map((s) => s.id),
      [2],
    );
    assert.equal(state.sessionsOnDataNetwork('internet'), 1);
  });
});

describe('network state: serving cell', () => {
  const nrCell = (cellIdentity: string): ServingCell => ({
    rat: 'nr',
    mcc: '001',
    mnc: '01',
    tac: '000001',
    cellIdentity,
  });

  it('records the serving cell (identity in lower case) and how long ago it was reported', () => {
    const { state, report, clock } = setup();
    assert.equal(state.servingCellAge(IMSI_A), undefined);
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('00000001F'));
    clock.advance(2000);
    assert.deepEqual(state.subscriber(IMSI_A).servingCell, nrCell('00000001f'));
    assert.equal(state.servingCellAge(IMSI_A), 2000);
    report.subscriberSeen(IMSI_A, 'gnb-1', undefined);
    assert.equal(state.servingCellAge(IMSI_A), 2000, 'a message without a cell reports none');
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('00000001f'));
    assert.equal(state.servingCellAge(IMSI_A), 0, 'the same cell reported again');
  });

  it('records an E-UTRA cell', () => {
    const { state, report } = setup();
    const cell: ServingCell = { rat: 'eutra', mcc: '001', mnc: '01', tac: '000001', cellIdentity: '0000a01' };
    report.subscriberSeen(IMSI_A, 'gnb-1', cell);
    assert.deepEqual(state.subscriber(IMSI_A).servingCell, cell);
  });

  it('tells listeners when the cell changes, not when the same cell is reported again', () => {
    const { events, report } = setup();
    const heard: [string, string][] = [];
    events.on('ue.servingCellChanged', (e) => heard.push([e.supi, e.servingCell.cellIdentity]));
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('000000010'));
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('000000010'));
    report.subscriberSeen(IMSI_A, 'gnb-1', { ...nrCell('000000010'), tac: '000002' });
    report.subscriberSeen(IMSI_A, 'gnb-2', nrCell('000000020'));
    report.subscriberSeen(IMSI_A, 'gnb-2', nrCell('000000020'));
    report.subscriberSeen(IMSI_B, 'gnb-2', { ...nrCell('000000020'), mnc: '02' });
    assert.deepEqual(heard, [
      [IMSI_A, '000000010'],
      [IMSI_A, '000000020'],
      [IMSI_B, '000000020'],
    ]);
  });

  it('a listener reads the new cell in the state and stops hearing once removed', () => {
    const { state, events, report } = setup();
    const heard: (ServingCell | undefined)[] = [];
    const remove = events.on('ue.servingCellChanged', (e) =>
      heard.push(state.subscriber(e.supi).servingCell),
    );
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('000000010'));
    remove();
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('000000020'));
    assert.deepEqual(heard, [nrCell('000000010')]);
  });

  it('hands out a copy of the cell', () => {
    const { state, report } = setup();
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('000000010'));
    state.subscriber(IMSI_A).servingCell!.cellIdentity = 'changed';
    assert.equal(state.subscriber(IMSI_A).servingCell?.cellIdentity, '000000010');
  });

  it('forgets a removed subscriber, seen by the network or not', () => {
    const { state, report } = setup();
    report.subscriberSeen(IMSI_A, 'gnb-1', nrCell('000000010'));
    state.subscriberRemoved(IMSI_A);
    state.subscriberRemoved(IMSI_B);
    assert.equal(state.subscriber(IMSI_A).servingCell, undefined);
    assert.equal(state.subscriber(IMSI_B).lastSeenAt, undefined);
  });
});
