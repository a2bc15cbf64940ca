import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN, startN2Service } from './n2-service.ts';

/**
 * NG Setup end to end (network.md sections 2-4): a simulated gNB over the udp transport against the
 * real service; what it sees is asserted through the management API.
 */

interface RadioEvent {
  id: number;
  timestamp: string;
  protocol: string;
  message_type: string;
  direction: string;
  raw: string;
  details: string;
}
interface RadioLog {
  level: string;
  ran_id: string;
  event: string;
  direction: string;
  raw: string;
  details: string;
}
interface Page<T> {
  items: T[];
  total_count: number;
}

const received: NgapExchange[] = [];
after(() => assertTsharkAgrees(received));

describe('NG Setup through the simulator against the real service (udp transport)', () => {
  it('accepted: the radio is listed with every contract field, its events decode, its logs tell the story', async () => {
    const s = await startN2Service();
    try {
      const gnb = s.gnb(gnbConfig(1, { name: 'gnb-1' }));
      await gnb.connect();
      const outcome = await gnb.ngSetup();
      assert.equal(outcome.outcome, 'accepted');
      assert.ok(outcome.outcome === 'accepted');
      assert.equal(outcome.amf.name, 'pmn-amf');
      assert.deepEqual(outcome.amf.servedGuamis, [
        { plmn: OPERATOR_PLMN, regionId: '01', setId: '001', pointer: '00' },
      ]);
      assert.deepEqual(outcome.amf.plmnSupport, [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }]);

      const address = `127.0.0.1:${gnb.local?.port}`;
      const list = await s.get<Page<Record<string, unknown>>>('/api/v1/ran/radios');
      const tais = [{ tai: { plmnID: OPERATOR_PLMN, tac: '000001' }, snssais: [{ sst: 1 }] }];
      assert.deepEqual(list.items, [{ name: 'gnb-1', id: '001:01:000001', address, supported_tais: tais }]);
      const detail = await s.get<Record<string, unknown>>('/api/v1/ran/radios/gnb-1');
      const { connected_at: connectedAt, last_seen_at: lastSeenAt, ...rest } = detail;
      assert.deepEqual(rest, {
        name: 'gnb-1',
        id: '001:01:000001',
        address,
        ran_node_type: 'gNB',
        supported_tais: tais,
        associations: [{ address, usage: 'both' }],
        amf_name: 'pmn-amf',
      });
      assert.match(String(connectedAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      assert.ok(Date.parse(String(lastSeenAt)) >= Date.parse(String(connectedAt)) - 1000);

      const events = await s.until(async () => {
        const page = await s.get<Page<RadioEvent>>('/api/v1/ran/events?per_page=100');
        return page.total_count >= 2 ? page.items : undefined;
      }, 'two radio events');
      const byType = new Map(events.map((event) => [event.message_type, event]));
      const request = byType.get('NGSetupRequest');
      const response = byType.get('NGSetupResponse');
      assert.ok(request && response);
      assert.deepEqual(
        [request.protocol, request.direction, JSON.parse(request.details)],
        ['NGAP', 'inbound', { radio: 'gnb-1' }],
      );
      assert.equal(response.direction, 'outbound');
      // The stored raw bytes are exactly what went over the association, both ways.
      assert.equal(
        Buffer.from(request.raw, 'base64').toString('hex'),
        Buffer.from(gnb.sent[0]!.bytes).toString('hex'),
      );
      assert.equal(
        Buffer.from(response.raw, 'base64').toString('hex'),
        Buffer.from(gnb.received[0]!.bytes).toString('hex'),
      );
      const single = await s.get<{ raw: string; decoded: Record<string, unknown> }>(
        `/api/v1/ran/events/${request.id}`,
      );
      assert.deepEqual(JSON.parse(JSON.stringify(single.decoded)), {
        initiating_message: {
          procedure_code: 'NGSetup',
          criticality: 'Reject (0)',
          value: {
            ng_setup_request: {
              ies: [
                {
                  id: 'GlobalRANNodeID (27)',
                  criticality: 'Reject (0)',
                  global_ran_node_id: { global_gnb_id: { plmn_identity: OPERATOR_PLMN, gnb_id: '000001' } },
                },
                { id: 'RANNodeName (82)', criticality: 'Ignore (1)', ran_node_name: 'gnb-1' },
                {
                  id: 'SupportedTAList (102)',
                  criticality: 'Reject (0)',
                  supported_ta_list: [
                    {
                      tac: '000001',
                      broadcast_plmn_list: [
                        {
                          plmn_identity: OPERATOR_PLMN,
                          tai_slice_support_list: [{ s_nssai: { sst: '01' } }],
                        },
                      ],
                    },
                  ],
                },
                { id: 'DefaultPagingDRX (21)', criticality: 'Ignore (1)', default_paging_drx: 'v128' },
              ],
            },
          },
        },
      });
      const answer = await s.get<{ decoded: Record<string, Record<string, unknown>> }>(
        `/api/v1/ran/events/${response.id}`,
      );
      assert.equal(answer.decoded.successful_outcome?.procedure_code, 'NGSetup');

      const logs = await s.until(async () => {
        const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?per_page=100');
        return page.total_count >= 3 ? page.items : undefined;
      }, 'three radio logs');
      assert.deepEqual(
        logs
          .map((log): unknown[] => [
            log.event,
            log.level,
            log.ran_id,
            log.direction,
            log.raw === '',
            JSON.parse(log.details),
          ])
          .sort(),
        [
          // Before NG Setup the radio is known by its address (network.md section 4); no PDU.
          ['NG Setup Request', 'info', '001:01:000001', 'inbound', false, { radio: 'gnb-1', address }],
          ['NG Setup Response', 'info', '001:01:000001', 'outbound', false, { radio: 'gnb-1', address }],
          ['SCTP Association Up', 'info', address, 'inbound', true, { address }],
        ],
      );
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });

  it('an ng-eNB (macro id) is accepted, listed as ng-eNB and logged with its prefixed id', async () => {
    const s = await startN2Service();
    try {
      const enb = s.gnb(
        gnbConfig(0, { node: { kind: 'ng-eNB', variant: 'macro', value: 0xabcde }, name: 'enb-1' }),
      );
      await enb.connect();
      assert.equal((await enb.ngSetup()).outcome, 'accepted');
      const detail = await s.get<Record<string, unknown>>('/api/v1/ran/radios/enb-1');
      assert.deepEqual([detail.id, detail.ran_node_type], ['001:01:macro-abcde', 'ng-eNB']);
      const log = await s.until(async () => {
        const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?event=NG%20Setup%20Response');
        return page.items[0];
      }, 'the NG Setup Response log');
      assert.equal(log.ran_id, '001:01:macro-abcde');
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });

  it('refused: unknown PLMN and a PLMN without the TAC get their causes, in the answer and in the records', async () => {
    const s = await startN2Service();
    try {
      const stranger = s.gnb(
        gnbConfig(2, {
          plmn: { mcc: '999', mnc: '70' },
          supportedTas: [{ tac: 1, plmns: [{ plmn: { mcc: '999', mnc: '70' }, slices: [{ sst: 1 }] }] }],
        }),
      );
      await stranger.connect();
      const refused = await stranger.ngSetup();
      assert.deepEqual(refused.outcome === 'refused' && refused.failure.cause, 'misc/unknown-PLMN-or-SNPN');

      const elsewhere = s.gnb(
        gnbConfig(3, { supportedTas: [{ tac: 7, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }] }] }),
      );
      await elsewhere.connect();
      const noTac = await elsewhere.ngSetup();
      assert.deepEqual(noTac.outcome === 'refused' && noTac.failure.cause, 'misc/unspecified');

      assert.deepEqual((await s.get<Page<unknown>>('/api/v1/ran/radios')).items, []);
      const failures = await s.until(async () => {
        const page = await s.get<Page<RadioEvent>>('/api/v1/ran/events?message_type=NGSetupFailure');
        return page.total_count >= 2 ? page.items : undefined;
      }, 'two NG Setup Failure events');
      assert.deepEqual(
        failures
          .map((event) => JSON.parse(event.details) as Record<string, unknown>)
          .map((d) => d.cause)
          .sort(),
        ['misc/unknown-PLMN-or-SNPN', 'misc/unspecified'],
      );
      const logs = await s.until(async () => {
        const page = await s.get<Page<RadioLog>>('/api/v1/logs/radio?event=NG%20Setup%20Failure');
        return page.total_count >= 2 ? page.items : undefined;
      }, 'two NG Setup Failure logs');
      assert.ok(logs.every((log) => log.level === 'warn'));
      assert.deepEqual(logs.map((log) => (JSON.parse(log.details) as Record<string, unknown>).cause).sort(), [
        'misc/unknown-PLMN-or-SNPN',
        'misc/unspecified',
      ]);
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });
});
