import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createNetworkState,
  type PduSession,
  type RadioMeasurement,
  type Registration,
  type ServingCell,
} from '../../src/network/network-state.ts';
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
    state.radioConnected({
      id: '001:01:000001',
      name: 'gnb-1',
      address: '10.0.0.1:38412',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    assert.equal(state.radioDisconnected('001:01:000001'), true);
    assert.equal(state.radioDisconnected('001:01:000001'), false);
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
    const { state } = setup();
    state.radioConnected(gnb('gnb-2'));
    state.subscriberRegistered(IMSI_A, 'gnb-2', registration);
    assert.equal(state.radioUpdated('001:01:000002', { name: 'gnb-2b' }), true);
    assert.deepEqual(state.subscribersOnRadio('gnb-2'), []);
    assert.deepEqual(state.subscribersOnRadio('gnb-2b'), [IMSI_A]);
  });

  it('lets a radio that connects again under its id replace the old entry, which no longer serves devices', () => {
    const { state } = setup();
    state.radioConnected(gnb('gnb-2'));
    state.subscriberRegistered(IMSI_A, 'gnb-2', registration);
    state.radioConnected(gnb('gnb-2'));
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
      radioMeasurements: [],
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
    const cell: ServingCell = { rat: 'nr', mcc: '001', mnc: '01', tac: '000001', cellIdentity: '000000010' };
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
    assert.notEqual(state.subscriber(IMSI_B).lastSeenAt, undefined);
    // network.md 5, decisions 10: the strings of a device not registered are "".
    assert.equal(state.subscriber(IMSI_B).lastSeenRadio, '');
    state.subscriberRegistered(IMSI_B, 'gnb-1', registration);
    assert.equal(state.subscriber(IMSI_B).lastSeenRadio, 'gnb-1');
    state.subscriberDeregistered(IMSI_B);
    assert.equal(state.subscriber(IMSI_B).registered, false);
  });

  it('deregistration ends the registration and every session, and keeps when it was last seen', () => {
    const { state } = setup();
    state.subscriberRegistered(IMSI_A, 'gnb-1', registration);
    state.sessionEstablished(IMSI_A, session(1));
    state.subscriberDeregistered(IMSI_A);
    const seen = state.subscriber(IMSI_A);
    assert.deepEqual([seen.registered, seen.radioAccessTypes, seen.sessions], [false, [], []]);
    assert.notEqual(seen.lastSeenAt, undefined);
    assert.equal(seen.lastSeenRadio, '');
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

describe('network state: serving cell and radio measurements', () => {
  const nrCell = (cellIdentity: string): ServingCell => ({
    rat: 'nr',
    mcc: '001',
    mnc: '01',
    tac: '000001',
    cellIdentity,
  });
  const nrMeasurement: RadioMeasurement = {
    source: 'UE',
    rat: 'NR',
    serving: true,
    pci: 17,
    arfcn: 632628,
    arfcnType: 'SSB',
    ssRsrp: -92.5,
    ssRsrq: -11,
    ssbBeams: [{ index: 3, rsrp: -90, rsrq: -10.5 }],
  };

  it('records the serving cell (identity in lower case) and the measurements taken in it', () => {
    const { state } = setup();
    state.updateServingCell(IMSI_A, nrCell('00000001F'), [nrMeasurement]);
    const seen = state.subscriber(IMSI_A);
    assert.deepEqual(seen.servingCell, nrCell('00000001f'));
    assert.deepEqual(seen.radioMeasurements, [nrMeasurement]);
  });

  it('records an E-UTRA cell with its RSRP and RSRQ', () => {
    const { state } = setup();
    const cell: ServingCell = { rat: 'eutra', mcc: '001', mnc: '01', tac: '000001', cellIdentity: '0000a01' };
    const measurement: RadioMeasurement = {
      source: 'UE',
      rat: 'EUTRA',
      serving: true,
      pci: 5,
      arfcn: 1300,
      rsrp: -100,
      rsrq: -12,
    };
    state.updateServingCell(IMSI_A, cell, [measurement]);
    assert.deepEqual(state.subscriber(IMSI_A).servingCell, cell);
    assert.deepEqual(state.subscriber(IMSI_A).radioMeasurements, [measurement]);
  });

  it('keeps the measurements while the cell stays, replaces them when new ones come, drops them on a new cell', () => {
    const { state } = setup();
    state.updateServingCell(IMSI_A, nrCell('000000010'), [nrMeasurement]);
    state.updateServingCell(IMSI_A, nrCell('000000010'));
    assert.deepEqual(state.subscriber(IMSI_A).radioMeasurements, [nrMeasurement]);
    const newer = { ...nrMeasurement, ssRsrp: -80 };
    state.updateServingCell(IMSI_A, nrCell('000000010'), [newer]);
    assert.deepEqual(state.subscriber(IMSI_A).radioMeasurements, [newer]);
    state.updateServingCell(IMSI_A, nrCell('000000020'));
    assert.deepEqual(state.subscriber(IMSI_A).radioMeasurements, []);
  });

  it('tells listeners when the cell changes, not when the same cell is reported again', () => {
    const { state } = setup();
    const heard: [string, string][] = [];
    state.onServingCellChanged((imsi, cell) => heard.push([imsi, cell.cellIdentity]));
    state.updateServingCell(IMSI_A, nrCell('000000010'));
    state.updateServingCell(IMSI_A, nrCell('000000010'), [nrMeasurement]);
    state.updateServingCell(IMSI_A, { ...nrCell('000000010'), tac: '000002' });
    state.subscriberSeen(IMSI_A, 'gnb-2', nrCell('000000020'));
    state.subscriberSeen(IMSI_A, 'gnb-2', nrCell('000000020'));
    state.updateServingCell(IMSI_B, { ...nrCell('000000020'), mnc: '02' });
    assert.deepEqual(heard, [
      [IMSI_A, '000000010'],
      [IMSI_A, '000000020'],
      [IMSI_B, '000000020'],
    ]);
  });

  it('a listener reads the new cell in the state and stops hearing once removed', () => {
    const { state } = setup();
    const heard: (ServingCell | undefined)[] = [];
    const remove = state.onServingCellChanged((imsi) => heard.push(state.subscriber(imsi).servingCell));
    state.updateServingCell(IMSI_A, nrCell('000000010'));
    remove();
    state.updateServingCell(IMSI_A, nrCell('000000020'));
    assert.deepEqual(heard, [nrCell('000000010')]);
  });

  it('hands out copies of the cell and the measurements', () => {
    const { state } = setup();
    state.updateServingCell(IMSI_A, nrCell('000000010'), [nrMeasurement]);
    const read = state.subscriber(IMSI_A);
    read.servingCell!.cellIdentity = 'changed';
    read.radioMeasurements[0]!.ssbBeams![0]!.rsrp = 0;
    assert.equal(state.subscriber(IMSI_A).servingCell?.cellIdentity, '000000010');
    assert.equal(state.subscriber(IMSI_A).radioMeasurements[0]?.ssbBeams?.[0]?.rsrp, -90);
  });

  it('forgets a removed subscriber, seen by the network or not', () => {
    const { state } = setup();
    state.updateServingCell(IMSI_A, nrCell('000000010'));
    state.subscriberRemoved(IMSI_A);
    state.subscriberRemoved(IMSI_B);
    assert.equal(state.subscriber(IMSI_A).servingCell, undefined);
    assert.equal(state.subscriber(IMSI_B).lastSeenAt, undefined);
  });
});
