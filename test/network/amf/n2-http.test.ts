import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS, type N2Component } from '../../../src/core/n2.wiring.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../../src/network/ngap/ngap-codec.ts';
import type { N2Association } from '../../../src/network/transport/n2-transport.ts';
import type { SctpEndpoint } from '../../../src/network/transport/sctp/endpoint.ts';
import { createUdpTransport } from '../../../src/network/transport/udp/udp-transport.ts';
import { createTestApp, initialize, result, type TestApp } from '../../helpers/test-app.ts';
import { until } from '../../helpers/until.ts';
import { ngSetupRequest, taList } from './messages.ts';

interface Page<T> {
  items: T[];
}

// The service as main.ts composes it, with N2 on the `udp` transport on free ports, and a gNB speaking
// NGAP to it over SCTP/UDP: what the management API shows afterwards (network.md sections 2-4).
describe('N2 signalling as the management API shows it', () => {
  let t: TestApp;
  let token: string;
  let n2: N2Component;
  let gnb: SctpEndpoint;
  let association: N2Association;
  const answers: string[] = [];

  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
    n2 = createN2(t.core, { ...DEFAULT_N2_SETTINGS, transport: 'udp', port: 0, udpPort: 0 });
    await n2.start();
    const endpoint = n2.endpoint();
    assert.ok(endpoint?.udpPort !== undefined);
    ({ transport: gnb } = await createUdpTransport({
      addresses: ['127.0.0.1'],
      udpPort: 0,
      peerUdpPort: endpoint.udpPort,
    }));
    association = await gnb.connect(
      { remote: [{ address: '127.0.0.1', port: endpoint.local[0]!.port }] },
      () => ({
        message(message) {
          const decoded = decodeNgapPdu(message.payload);
          answers.push(decoded.ok ? ngapMessageType(decoded.value) : 'undecodable');
        },
        event: () => undefined,
      }),
    );
  });

  after(async () => {
    await gnb.close();
    await n2.stop();
    await t.close();
  });

  /** Sends one PDU and waits for the AMF's answer and for the records it wrote. */
  async function exchange(pdu: Uint8Array): Promise<void> {
    const count = answers.length + 1;
    association.send(0, 60, pdu);
    await until(
      `answer ${count}`,
      () => answers.length >= count,
      () => `${answers.length} answers`,
    );
    await t.records.flush();
  }

  // gnb-1's NG Setup, once per describe, by whichever test needs it first: each test passes alone.
  let setUp: Promise<void> | undefined;
  const gnb1 = () => (setUp ??= exchange(encodeNgapPdu(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }))));

  const get = async <T>(url: string): Promise<T> => result<T>(await t.request({ method: 'GET', url, token }));

  it('lists a radio after NG Setup with every field of the contract', async () => {
    await gnb1();
    assert.deepEqual(answers, ['NGSetupResponse']);
    const list = await get<Page<Record<string, unknown>>>('/api/v1/ran/radios');
    assert.equal(list.items.length, 1);
    const [radio] = list.items;
    assert.deepEqual(Object.keys(radio ?? {}).sort(), ['address', 'id', 'name', 'supported_tais']);
    assert.equal(radio?.id, '001:01:000001');
    assert.match(String(radio?.address), /^127\.0\.0\.1:\d+$/);
    const detail = await get<Record<string, unknown>>('/api/v1/ran/radios/gnb-1');
    assert.equal(detail.ran_node_type, 'gNB');
    assert.match(String(detail.connected_at), /^\d{4}-\d\d-\d\dT/);
    assert.match(String(detail.last_seen_at), /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(detail.supported_tais, [
      { tai: { plmnID: { mcc: '001', mnc: '01' }, tac: '000001' }, snssais: [{ sst: 1, sd: '010203' }] },
    ]);
  });

  it('stores both PDUs as radio events that decode as network.md section 3 shows', async () => {
    await gnb1();
    const events =
      await get<Page<{ id: number; message_type: string; direction: string; details: string }>>(
        '/api/v1/ran/events',
      );
    assert.deepEqual(
      events.items.map((e): unknown[] => [e.message_type, e.direction, JSON.parse(e.details)]),
      [
        ['NGSetupResponse', 'outbound', { radio: 'gnb-1' }],
        ['NGSetupRequest', 'inbound', { radio: 'gnb-1' }],
      ],
    );
    const request = events.items[1]!;
    const { decoded } = await get<{ decoded: Record<string, unknown> }>(`/api/v1/ran/events/${request.id}`);
    const message = decoded.initiating_message as Record<string, unknown>;
    assert.equal(message.procedure_code, 'NGSetup');
    assert.equal(message.criticality, 'Reject (0)');
    const ies = (message.value as { ng_setup_request: { ies: Record<string, unknown>[] } }).ng_setup_request
      .ies;
    assert.deepEqual(ies[0], {
      id: 'GlobalRANNodeID (27)',
      criticality: 'Reject (0)',
      global_ran_node_id: { global_gnb_id: { plmn_identity: { mcc: '001', mnc: '01' }, gnb_id: '000001' } },
    });
    assert.deepEqual(ies[1], { id: 'RANNodeName (82)', criticality: 'Ignore (1)', ran_node_name: 'gnb-1' });
  });

  it('writes the radio logs of its life under its id', async () => {
    await gnb1();
    const logs = await get<Page<{ ran_id: string; event: string; level: string; details: string }>>(
      '/api/v1/logs/radio?ran_id=001:01:000001',
    );
    assert.deepEqual(
      logs.items.map((l) => [l.event, l.level]),
      [
        ['NG Setup Response', 'info'],
        ['NG Setup Request', 'info'],
      ],
    );
    assert.deepEqual(Object.keys(JSON.parse(logs.items[0]!.details) as object).sort(), ['address', 'radio']);
  });

  it('answers a refused NG Setup with the cause in the event details; the radio stays as it was', async () => {
    await exchange(
      encodeNgapPdu(ngSetupRequest({ gnbId: 2, name: 'gnb-2', taList: taList({ mcc: '999' }) })),
    );
    assert.deepEqual(answers.at(-1), 'NGSetupFailure');
    const events = await get<Page<{ message_type: string; details: string }>>(
      '/api/v1/ran/events?message_type=NGSetupFailure',
    );
    assert.deepEqual(JSON.parse(events.items[0]!.details), {
      radio: 'gnb-2',
      cause: 'misc/unknown-PLMN-or-SNPN',
    });
  });

  it('removes the radio when its association ends', async () => {
    await gnb1();
    assert.equal((await get<Page<unknown>>('/api/v1/ran/radios')).items.length, 1);
    association.abort('test over');
    await until(
      'the radio removed',
      () => t.core.networkState.radios().length === 0,
      () => JSON.stringify(t.core.networkState.radios()),
    );
    assert.deepEqual((await get<Page<unknown>>('/api/v1/ran/radios')).items, []);
  });
});
