import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { downlinkNasTransport } from '../../src/network/amf/n2/ue-ngap-messages.ts';
import { encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import { uplinkNasTransport } from '../../src/simulator/ue/ran-ue-messages.ts';
import { created, errorOf, imsi, newProfile, newSubscriber } from '../helpers/network.ts';
import { at, subscriberLog } from '../helpers/records.ts';
import {
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

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
const BARE_IMSI = imsi(2);
const CELL = { plmn: { mcc: '001', mnc: '01' }, nrCellIdentity: 1, tac: 1 };
const IDS = { amfUeNgapId: 7, ranUeNgapId: 3 };

// Plain 5GMM messages (TS 24.501 8.2): Authentication Failure #20, Authentication Reject, Registration Complete.
const AUTH_FAILURE = Buffer.from('7e005914', 'hex');
const AUTH_REJECT = Buffer.from('7e0058', 'hex');
const REGISTRATION_COMPLETE = Buffer.from('7e0043', 'hex');
// A 5GSM PDU Session Establishment Accept's first octets (TS 24.501 8.3.2): session 1, PTI 1.
const SESSION_ACCEPT = Buffer.from('2e0101c2110009', 'hex');

/** A security protected NAS-PDU (TS 24.501 9.1.1): header type, a MAC, a sequence number, the message. */
const protectedPdu = (headerType: number, message: Uint8Array) =>
  Buffer.concat([Buffer.from([0x7e, headerType, 1, 2, 3, 4, 0]), message]);

const ul = (nasPdu: Uint8Array, ids = IDS) =>
  Buffer.from(encodeNgapPdu(uplinkNasTransport(ids, nasPdu, CELL)));
const dl = (nasPdu: Uint8Array, ids = IDS) => Buffer.from(encodeNgapPdu(downlinkNasTransport(ids, nasPdu)));

describe('GET /api/v1/subscribers/{imsi}/timeline', () => {
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  let manager: string;

  before(async () => {
    t = await createTestApp({ clock: manualClock() });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    manager = await userWithRole(t, admin, ROLE.networkManager);
    await created(t, admin, '/api/v1/subscribers', newSubscriber(1));
    // A profile without any policy: no slice and no data network is allowed to its subscribers.
    await created(t, admin, '/api/v1/profiles', newProfile('bare'));
    await created(t, admin, '/api/v1/subscribers', newSubscriber(2, { profile_name: 'bare' }));
  });
  after(() => t.close());

  beforeEach(async () => {
    await t.request({ method: 'DELETE', url: '/api/v1/logs/subscribers', token: admin });
    await t.request({ method: 'DELETE', url: '/api/v1/ran/events', token: admin });
  });

  async function timeline(query = '', who = IMSI, token = readOnly): Promise<Page> {
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${who}/timeline${query}`,
      token,
    });
    assert.equal(response.statusCode, 200, response.body);
    return result<Page>(response);
  }

  const steps = (page: Page) => page.items.map((item) => `${item.kind} ${item.message}`);

  function ngap(
    messageType: string,
    direction: 'inbound' | 'outbound',
    raw: Buffer,
    time: string,
    radio = 'gnb-1',
  ) {
    t.records.recordRadioEvent({
      protocol: 'NGAP',
      messageType,
      direction,
      raw,
      details: { radio, ran_ue_ngap_id: IDS.ranUeNgapId, amf_ue_ngap_id: IDS.amfUeNgapId },
      timestamp: at(time),
    });
  }

  function nas(
    event: string,
    direction: 'inbound' | 'outbound',
    raw: Buffer,
    time: string,
    extra: { imsi?: string; level?: 'info' | 'warn'; details?: Record<string, unknown> } = {},
  ) {
    t.records.recordSubscriberLog(
      subscriberLog({
        imsi: extra.imsi ?? IMSI,
        level: extra.level ?? 'info',
        event,
        direction,
        raw,
        details: { radio: 'gnb-1', ...extra.details },
        timestamp: at(time),
      }),
    );
  }

  /** An authentication that failed with MAC failure: each NAS message and the NGAP message carrying it. */
  async function failedAuthentication(): Promise<void> {
    // The inbound NGAP message and the NAS message read from it at the same instant.
    ngap('UplinkNASTransport', 'inbound', ul(protectedPdu(1, AUTH_FAILURE)), '2026-11-22T10:00:00.000Z');
    nas('Authentication Failure', 'inbound', AUTH_FAILURE, '2026-11-22T10:00:00.000Z', {
      level: 'warn',
      details: { guti: '00101000040000000001', cause: 'MAC failure (20)' },
    });
    nas('Authentication Reject', 'outbound', AUTH_REJECT, '2026-11-22T10:00:00.010Z', { level: 'warn' });
    ngap('DownlinkNASTransport', 'outbound', dl(AUTH_REJECT), '2026-11-22T10:00:00.010Z');
    // Another radio's life and another subscriber's message: not this device's story.
    ngap('NGSetupRequest', 'inbound', Buffer.from('00150035', 'hex'), '2026-11-22T10:00:00.005Z');
    nas('Registration Complete', 'inbound', REGISTRATION_COMPLETE, '2026-11-22T10:00:00.005Z', {
      imsi: BARE_IMSI,
    });
    await t.records.flush();
  }

  it('merges the NAS messages with the NGAP messages that carried them, newest first, each with its record', async () => {
    await failedAuthentication();
    const page = await timeline('?kinds=nas,ngap');
    assert.equal(page.total_count, 4);
    assert.deepEqual(steps(page), [
      'ngap DownlinkNASTransport',
      'nas Authentication Reject',
      'nas Authentication Failure',
      'ngap UplinkNASTransport',
    ]);
    const [downlink, reject, failure, uplink] = page.items as [Item, Item, Item, Item];
    assert.deepEqual(
      [downlink.linked_record_id, reject.linked_record_id],
      [reject.record_id, downlink.record_id],
    );
    assert.deepEqual(
      [uplink.linked_record_id, failure.linked_record_id],
      [failure.record_id, uplink.record_id],
    );
    const { record_id: recordId, linked_record_id: linked, explanation, ...rest } = failure;
    assert.equal(typeof recordId, 'number');
    assert.equal(linked, uplink.record_id);
    assert.deepEqual(rest, {
      timestamp: '2026-11-22T10:00:00.000+00:00',
      kind: 'nas',
      direction: 'inbound',
      message: 'Authentication Failure',
      level: 'warn',
      radio: 'gnb-1',
      summary: 'Authentication Failure, cause MAC failure (20), 5G-GUTI 00101000040000000001',
      source: 'subscriber_log',
      details: null,
    });
    assert.match(explanation ?? '', /MAC failure.*check the K and OPc/);
    assert.deepEqual(
      [uplink.level, uplink.radio, uplink.summary, uplink.explanation],
      [
        'warn',
        'gnb-1',
        'UplinkNASTransport carrying Authentication Failure, RAN UE NGAP ID 3, AMF UE NGAP ID 7',
        null,
      ],
    );
    // The NGAP message opens as a radio event.
    const event = await t.request({
      method: 'GET',
      url: `/api/v1/ran/events/${uplink.record_id}`,
      token: readOnly,
    });
    assert.equal(event.statusCode, 200, event.body);
  });

  it('lists oldest first on order=oldest, pages, and keeps to the timestamp window', async () => {
    await failedAuthentication();
    assert.deepEqual(steps(await timeline('?order=oldest&kinds=nas,ngap')), [
      'ngap UplinkNASTransport',
      'nas Authentication Failure',
      'nas Authentication Reject',
      'ngap DownlinkNASTransport',
    ]);
    const second = await timeline('?order=oldest&per_page=3&page=2&kinds=nas,ngap');
    assert.deepEqual(
      [second.page, second.per_page, second.total_count, steps(second)],
      [2, 3, 4, ['ngap DownlinkNASTransport']],
    );
    assert.deepEqual((await timeline('?page=3&per_page=2&kinds=nas,ngap')).items, []);
    assert.deepEqual(steps(await timeline('?timestamp_to=2026-11-22T10:00:00.000Z')), [
      'nas Authentication Failure',
      'ngap UplinkNASTransport',
    ]);
    const window = await timeline('?timestamp_from=2026-11-22T10:00:00.010Z&kinds=nas,ngap');
    assert.deepEqual(steps(window), ['ngap DownlinkNASTransport', 'nas Authentication Reject']);
  });

  it('orders the messages of one instant as recorded, each NGAP message beside the NAS message it carried', async () => {
    const time = '2026-11-22T10:00:00.000Z';
    // Recorded in another order than the signalling went: the outbound NGAP message first.
    ngap('DownlinkNASTransport', 'outbound', dl(AUTH_REJECT), time);
    ngap('UplinkNASTransport', 'inbound', ul(protectedPdu(1, AUTH_FAILURE)), time);
    nas('Authentication Failure', 'inbound', AUTH_FAILURE, time, { level: 'warn' });
    nas('Authentication Reject', 'outbound', AUTH_REJECT, time, { level: 'warn' });
    await t.records.flush();
    assert.deepEqual(steps(await timeline('?order=oldest&kinds=nas,ngap')), [
      'ngap UplinkNASTransport',
      'nas Authentication Failure',
      'nas Authentication Reject',
      'ngap DownlinkNASTransport',
    ]);
  });

  it('links an NGAP message only where the bytes prove it carried the NAS message', async () => {
    // Ciphered (NEA1-3): the plain message is not in the NAS-PDU.
    nas('Registration Complete', 'inbound', REGISTRATION_COMPLETE, '2026-11-22T10:01:00.000Z');
    ngap(
      'UplinkNASTransport',
      'inbound',
      ul(protectedPdu(2, Buffer.from('9a0c51', 'hex'))),
      '2026-11-22T10:01:00.001Z',
    );
    // Two devices sent the same bytes (NEA0) through the radio in the window: which one is ours is unknown.
    nas('Registration Complete', 'inbound', REGISTRATION_COMPLETE, '2026-11-22T10:02:00.000Z');
    ngap(
      'UplinkNASTransport',
      'inbound',
      ul(protectedPdu(2, REGISTRATION_COMPLETE)),
      '2026-11-22T10:02:00.001Z',
    );
    ngap(
      'UplinkNASTransport',
      'inbound',
      ul(protectedPdu(2, REGISTRATION_COMPLETE), { amfUeNgapId: 8, ranUeNgapId: 4 }),
      '2026-11-22T10:02:00.002Z',
    );
    // The same bytes through another radio, or more than 2 s away.
    nas('Authentication Reject', 'outbound', AUTH_REJECT, '2026-11-22T10:03:00.000Z');
    ngap('DownlinkNASTransport', 'outbound', dl(AUTH_REJECT), '2026-11-22T10:03:00.000Z', 'gnb-2');
    ngap('DownlinkNASTransport', 'outbound', dl(AUTH_REJECT), '2026-11-22T10:03:02.001Z');
    // Ciphered with NEA0, alone in its window: linked.
    nas('Registration Complete', 'inbound', REGISTRATION_COMPLETE, '2026-11-22T10:04:00.000Z');
    ngap(
      'UplinkNASTransport',
      'inbound',
      ul(protectedPdu(2, REGISTRATION_COMPLETE)),
      '2026-11-22T10:04:00.001Z',
    );
    // The bytes inside another, longer message: not the message the NAS-PDU carries.
    nas('Registration Complete', 'inbound', REGISTRATION_COMPLETE, '2026-11-22T10:05:00.000Z');
    ngap(
      'UplinkNASTransport',
      'inbound',
      ul(protectedPdu(2, Buffer.concat([Buffer.from('7e0054', 'hex'), REGISTRATION_COMPLETE]))),
      '2026-11-22T10:05:00.001Z',
    );
    // A 5GSM message travels inside DL NAS Transport (TS 24.501 8.2.11): payload container type N1 SM
    // information, the container, the PDU session id.
    nas('PDU Session Establishment Accept', 'outbound', SESSION_ACCEPT, '2026-11-22T10:06:00.000Z', {
      details: { pdu_session_id: 1 },
    });
    const transport = Buffer.concat([
      Buffer.from('7e00680100', 'hex'),
      Buffer.from([SESSION_ACCEPT.length]),
      SESSION_ACCEPT,
      Buffer.from('1201', 'hex'),
    ]);
    ngap('DownlinkNASTransport', 'outbound', dl(protectedPdu(2, transport)), '2026-11-22T10:06:00.001Z');
    await t.records.flush();
    const page = await timeline('?order=oldest&kinds=nas,ngap');
    assert.deepEqual(
      page.items.map(
        (item) =>
          `${item.timestamp.slice(14, 23)} ${item.kind} ${item.linked_record_id === null ? '-' : 'linked'}`,
      ),
      [
        '01:00.000 nas -',
        '02:00.000 nas -',
        '03:00.000 nas -',
        '04:00.000 nas linked',
        '04:00.001 ngap linked',
        '05:00.000 nas -',
        '06:00.000 nas linked',
        '06:00.001 ngap linked',
      ],
    );
    // The carrier inside the window is found though the NAS message's log is just outside it.
    const [carrier, ...others] = (
      await timeline('?timestamp_from=2026-11-22T10:04:00.001Z&timestamp_to=2026-11-22T10:04:59Z')
    ).items;
    assert.deepEqual(
      [carrier?.kind, carrier?.linked_record_id, others],
      ['ngap', page.items[3]?.record_id, []],
    );
  });

  it('explains a failure from its cause and the configuration: slices and data networks of the profile', async () => {
    nas('Registration Reject', 'outbound', Buffer.from('7e00443e', 'hex'), '2026-11-22T10:00:00.000Z', {
      imsi: BARE_IMSI,
      level: 'warn',
      details: { cause: 'No network slices available (62)' },
    });
    nas(
      'PDU Session Establishment Reject',
      'outbound',
      Buffer.from('2e0101c31b', 'hex'),
      '2026-11-22T10:00:00.000Z',
      {
        level: 'warn',
        details: { pdu_session_id: 1, cause: 'Missing or unknown DNN (27)' },
      },
    );
    nas('Registration Request', 'inbound', Buffer.from('7e0041', 'hex'), '2026-11-22T10:00:01.000Z');
    await t.records.flush();
    const [slices] = (await timeline('?kinds=nas', BARE_IMSI)).items;
    assert.match(slices?.explanation ?? '', /profile bare has no policy, so no slice is allowed to it/);
    const [request, session] = (await timeline()).items;
    assert.equal(request?.explanation, null);
    assert.match(
      session?.explanation ?? '',
      /PDU session 1 refused: the data network .* profile default may use internet/,
    );
  });

  it('refuses a window of more than 10,000 NAS messages with a 400 that says to narrow it', async () => {
    for (let i = 0; i <= 10_000; i++) {
      const second = String(Math.floor(i / 1000)).padStart(2, '0');
      const ms = String(i % 1000).padStart(3, '0');
      nas('Registration Complete', 'inbound', REGISTRATION_COMPLETE, `2026-11-22T11:00:${second}.${ms}Z`);
      if (i % 1000 === 999) await t.records.flush();
    }
    await t.records.flush();
    const response = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${IMSI}/timeline`,
      token: readOnly,
    });
    assert.equal(
      errorOf(response, 400),
      `the timeline of ${IMSI} holds 10001 NAS messages in this window, more than 10000: narrow it with timestamp_from and timestamp_to`,
    );
    assert.equal((await timeline('?timestamp_to=2026-11-22T11:00:04.999Z')).total_count, 5000);
  });

  it('answers every role with records:read, 401 without credentials, 404 for an unknown IMSI, 400 for bad queries', async () => {
    for (const token of [admin, readOnly, manager])
      assert.equal((await timeline('', IMSI, token)).total_count, 0);
    const anonymous = await t.request({ method: 'GET', url: `/api/v1/subscribers/${IMSI}/timeline` });
    assert.equal(anonymous.statusCode, 401);
    const unknown = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${imsi(9)}/timeline`,
      token: readOnly,
    });
    assert.match(errorOf(unknown, 404), /subscriber 001010000000009 not found/);
    for (const query of ['?order=sideways', '?timestamp_from=yesterday', '?per_page=101']) {
      const response = await t.request({
        method: 'GET',
        url: `/api/v1/subscribers/${IMSI}/timeline${query}`,
        token: readOnly,
      });
      assert.equal(response.statusCode, 400, query);
    }
  });
});
