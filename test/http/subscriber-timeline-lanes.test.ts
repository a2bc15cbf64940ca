import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { PduSession } from '../../src/network/network-state.ts';
import { encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import { initialUeMessage, ueContextReleaseComplete } from '../../src/simulator/ue/ran-ue-messages.ts';
import { created, errorOf, imsi, newSubscriber } from '../helpers/network.ts';
import { at, flowReport, subscriberLog } from '../helpers/records.ts';
import { createTestApp, initialize, manualClock, result, type TestApp } from '../helpers/test-app.ts';

interface Item {
  timestamp: string;
  kind: string;
  direction: string | null;
  message: string;
  level: string;
  radio: string | null;
  summary: string;
  source: string;
  record_id: number;
  linked_record_id: number | null;
  explanation: string | null;
  details: Record<string, unknown> | null;
}
interface Page {
  items: Item[];
  page: number;
  per_page: number;
  total_count: number;
}

const IMSI = imsi(1);
const OTHER = imsi(2);
const CELL = { plmn: { mcc: '001', mnc: '01' }, nrCellIdentity: 1, tac: 1 };
const IDS = { amfUeNgapId: 7, ranUeNgapId: 3 };
// Plain 5GMM messages (TS 24.501 8.2): a Registration Request's first octets, a Registration Reject #3.
const REGISTRATION_REQUEST = Buffer.from('7e004179000d0100f110000000000000000010', 'hex');
const REGISTRATION_REJECT = Buffer.from('7e004403', 'hex');

const session = (changes: Partial<PduSession> = {}): PduSession => ({
  id: 1,
  radioAccessType: '5G',
  status: 'active',
  ipType: 'IPv4',
  ipv4Address: '10.45.0.2',
  ipv6Prefix: '',
  dataNetwork: 'internet',
  slice: { sst: 1, sd: '000001' },
  ambrUplink: '100 Mbps',
  ambrDownlink: '200 Mbps',
  ...changes,
});

/** One device's day: a connection, a registration, a session with traffic, idle, a reject, deregistration. */
describe('GET /api/v1/subscribers/{imsi}/timeline: state changes, sessions and the UPF', () => {
  const clock = manualClock();
  let t: TestApp;
  let admin: string;

  before(async () => {
    t = await createTestApp({ clock });
    // An API token: it outlives the clock moved past the records' retention (a bearer lasts 15 minutes).
    const made = await t.request({
      method: 'POST',
      url: '/api/v1/users/me/api-tokens',
      token: await initialize(t),
      payload: { name: 'timeline' },
    });
    admin = result<{ token: string }>(made).token;
    await created(t, admin, '/api/v1/subscribers', newSubscriber(1));
    await created(t, admin, '/api/v1/subscribers', newSubscriber(2));
  });
  after(() => t.close());
  beforeEach(async () => {
    for (const url of ['/api/v1/logs/subscribers', '/api/v1/ran/events', '/api/v1/flow-reports'])
      await t.request({ method: 'DELETE', url, token: admin });
  });

  async function timeline(query = ''): Promise<Page> {
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${IMSI}/timeline${query}`,
      token: admin,
    });
    assert.equal(response.statusCode, 200, response.body);
    return result<Page>(response);
  }

  const steps = (page: Page) => page.items.map((item) => `${item.kind} ${item.message}`);

  /** The network tells `name` at `time` (the clock stands there, as the records take it). */
  function network(time: string, emit: () => void): void {
    clock.set(at(time));
    emit();
  }

  async function story(): Promise<void> {
    const events = t.core.networkEvents;
    const nasPdu = REGISTRATION_REQUEST;
    t.records.recordRadioEvent({
      protocol: 'NGAP',
      messageType: 'InitialUEMessage',
      direction: 'inbound',
      raw: Buffer.from(
        encodeNgapPdu(initialUeMessage({ ranUeNgapId: 3, nasPdu, cell: CELL, cause: 'mo-Signalling' })),
      ),
      details: { radio: 'gnb-1', ran_ue_ngap_id: 3 },
      timestamp: at('2026-11-22T10:00:00.000Z'),
    });
    t.records.recordSubscriberLog(
      subscriberLog({
        imsi: IMSI,
        event: 'Registration Request',
        direction: 'inbound',
        raw: nasPdu,
        details: { radio: 'gnb-1' },
        timestamp: at('2026-11-22T10:00:00.000Z'),
      }),
    );
    network('2026-11-22T10:00:01.000Z', () =>
      events.emit('ue.registered', {
        supi: IMSI,
        radio: 'gnb-1',
        registration: {
          radioAccessTypes: ['5G'],
          imei: '',
          cipheringAlgorithm: 'NEA2',
          integrityAlgorithm: 'NIA2',
        },
      }),
    );
    network('2026-11-22T10:00:02.000Z', () =>
      events.emit('session.established', { supi: IMSI, session: session() }),
    );
    // Another subscriber's session: not this device's story.
    network('2026-11-22T10:00:02.000Z', () =>
      events.emit('session.established', { supi: OTHER, session: session({ ipv4Address: '10.45.0.3' }) }),
    );
    t.records.recordFlowReports([
      flowReport({ subscriberId: IMSI, endTime: at('2026-11-22T10:00:30.000Z') }),
      flowReport({
        subscriberId: IMSI,
        sourceIp: '10.45.0.9',
        action: 'drop',
        endTime: at('2026-11-22T10:00:31.000Z'),
      }),
      flowReport({ subscriberId: OTHER, endTime: at('2026-11-22T10:00:30.000Z') }),
    ]);
    network('2026-11-22T10:01:00.000Z', () =>
      events.emit('session.modified', { supi: IMSI, session: session({ status: 'inactive' }) }),
    );
    t.records.recordRadioEvent({
      protocol: 'NGAP',
      messageType: 'UEContextReleaseComplete',
      direction: 'inbound',
      raw: Buffer.from(encodeNgapPdu(ueContextReleaseComplete(IDS, CELL))),
      details: { radio: 'gnb-1', ...{ ran_ue_ngap_id: 3, amf_ue_ngap_id: 7 }, imsi: IMSI },
      timestamp: at('2026-11-22T10:01:00.000Z'),
    });
    t.records.recordSubscriberLog(
      subscriberLog({
        imsi: IMSI,
        level: 'warn',
        event: 'Registration Reject',
        direction: 'outbound',
        raw: REGISTRATION_REJECT,
        details: { radio: 'gnb-1', cause: 'Illegal UE (3)' },
        timestamp: at('2026-11-22T10:02:00.000Z'),
      }),
    );
    network('2026-11-22T10:03:00.000Z', () =>
      events.emit('session.released', { supi: IMSI, pduSessionId: 1 }),
    );
    network('2026-11-22T10:03:00.000Z', () => events.emit('ue.deregistered', { supi: IMSI }));
    await t.records.flush();
  }

  it('merges state changes, sessions and flow reports with the messages in time order, each on its lane', async () => {
    await story();
    const page = await timeline('?order=oldest');
    assert.deepEqual(steps(page), [
      'state Connected',
      'ngap InitialUEMessage',
      'nas Registration Request',
      'state Registered',
      'session PDU session established',
      'upf Flow',
      'upf Flow dropped',
      'session PDU session modified',
      'state Idle',
      'nas Registration Reject',
      'state Rejected',
      'session PDU session released',
      'state Deregistered',
    ]);
    const byMessage = new Map(page.items.map((item) => [item.message, item]));
    const established = byMessage.get('PDU session established');
    assert.deepEqual(
      [established?.source, established?.direction, established?.summary, established?.details],
      [
        'subscriber_event',
        null,
        'PDU session established, PDU session 1, DNN internet, S-NSSAI 1/000001, IPv4 10.45.0.2, user plane active, AMBR 100 Mbps up, 200 Mbps down',
        {
          pdu_session_id: 1,
          data_network: 'internet',
          slice: { sst: 1, sd: '000001' },
          ip_type: 'IPv4',
          ipv4_address: '10.45.0.2',
          ipv6_prefix: '',
          status: 'active',
          ambr_uplink: '100 Mbps',
          ambr_downlink: '200 Mbps',
        },
      ],
    );
    assert.equal(byMessage.get('PDU session modified')?.details?.status, 'inactive');
    assert.equal(byMessage.get('Registered')?.summary, 'Registered through gnb-1');
    const rejected = byMessage.get('Rejected');
    assert.deepEqual(
      [rejected?.level, rejected?.summary, rejected?.source, rejected?.record_id],
      [
        'warn',
        'Rejected: Registration Reject, cause Illegal UE (3)',
        'subscriber_log',
        byMessage.get('Registration Reject')?.record_id,
      ],
    );
    // Connected and idle are told by the NGAP messages that began and ended the connection.
    const connected = byMessage.get('Connected');
    assert.deepEqual(
      [connected?.source, connected?.record_id, connected?.details],
      [
        'radio_event',
        byMessage.get('InitialUEMessage')?.record_id,
        { state: 'connected', message_type: 'InitialUEMessage' },
      ],
    );
    assert.deepEqual(byMessage.get('Idle')?.details, {
      state: 'idle',
      message_type: 'UEContextReleaseComplete',
    });
    const flow = byMessage.get('Flow');
    assert.deepEqual(
      [flow?.source, flow?.timestamp, flow?.level, flow?.summary],
      [
        'flow_report',
        '2026-11-22T10:00:30.000+00:00',
        'info',
        'uplink TCP 10.45.0.2:40000 -> 142.250.1.1:443, 10 packets, 1500 bytes',
      ],
    );
    assert.equal(byMessage.get('Flow dropped')?.level, 'warn');
  });

  it('filters by kinds, pages over the merged kinds and keeps to the window', async () => {
    await story();
    assert.deepEqual(steps(await timeline('?kinds=state')), [
      'state Deregistered',
      'state Rejected',
      'state Idle',
      'state Registered',
      'state Connected',
    ]);
    assert.deepEqual(steps(await timeline('?kinds=upf,session&order=oldest')), [
      'session PDU session established',
      'upf Flow',
      'upf Flow dropped',
      'session PDU session modified',
      'session PDU session released',
    ]);
    const second = await timeline('?per_page=4&page=2');
    assert.deepEqual(
      [second.total_count, steps(second)],
      [13, ['state Idle', 'session PDU session modified', 'upf Flow dropped', 'upf Flow']],
    );
    assert.deepEqual(
      steps(await timeline('?timestamp_from=2026-11-22T10:00:02.000Z&timestamp_to=2026-11-22T10:01:00.000Z')),
      [
        'state Idle',
        'session PDU session modified',
        'upf Flow dropped',
        'upf Flow',
        'session PDU session established',
      ],
    );
    const bad = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${IMSI}/timeline?kinds=nas,radio`,
      token: admin,
    });
    assert.equal(errorOf(bad, 400), 'kinds: unknown kind "radio"; known: nas, ngap, state, session, upf');
  });

  it('expires the state changes and sessions with the subscriber logs, by their retention', async () => {
    await story();
    // Subscriber logs keep 7 days by default; radio events too: at 10:00:02 the story's first two
    // seconds are past the subscriber logs' retention, the rest is not.
    clock.set(at('2026-11-29T10:00:02.500Z'));
    const deleted = await t.retention.enforce();
    // The NAS message, the registration and the two sessions (this subscriber's and the other's).
    assert.equal(deleted['subscriber_logs'], 4);
    assert.deepEqual(steps(await timeline('?kinds=session,state&order=oldest')), [
      'session PDU session modified',
      'state Idle',
      'state Rejected',
      'session PDU session released',
      'state Deregistered',
    ]);
  });

  it('clears the state changes and sessions with the subscriber logs', async () => {
    await story();
    assert.equal((await timeline('?kinds=session')).total_count, 3);
    await t.request({ method: 'DELETE', url: '/api/v1/logs/subscribers', token: admin });
    // What remains is told by the radio events: the connection's end.
    assert.deepEqual(steps(await timeline('?kinds=session,state')), ['state Idle']);
  });
});
