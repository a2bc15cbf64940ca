import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN, startN2Service } from './n2-service.ts';

/**
 * The procedures after NG Setup end to end (network.md sections 2-4): RAN Configuration Update, NG
 * Reset, Error Indication both ways, and AMF Configuration Update after an operator change through the
 * API. Each asserts what the management API shows afterwards.
 */

interface Page<T> {
  items: T[];
  total_count: number;
}
interface Row {
  message_type?: string;
  event?: string;
  level?: string;
  direction: string;
  details: string;
}

const received: NgapExchange[] = [];
after(() => assertTsharkAgrees(received));

const details = (row: Row): Record<string, unknown> => JSON.parse(row.details) as Record<string, unknown>;

describe('procedures after NG Setup, simulator against the real service (udp transport)', () => {
  it('RAN Configuration Update: acknowledged; the radio shows its new name and tracking areas', async () => {
    const s = await startN2Service();
    try {
      const gnb = s.gnb(gnbConfig(4));
      await gnb.connect();
      assert.equal((await gnb.ngSetup()).outcome, 'accepted');
      const supportedTas = [
        { tac: 1, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }, { sst: 1, sd: 0xabcdef }] }] },
        { tac: 0x99, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }] },
      ];
      assert.deepEqual(await gnb.ranConfigurationUpdate({ name: 'gnb-4-renamed', supportedTas }), {
        outcome: 'acknowledged',
      });
      const radio = await s.get<Record<string, unknown>>('/api/v1/ran/radios/gnb-4-renamed');
      assert.equal(radio.id, '001:01:000004');
      assert.deepEqual(radio.supported_tais, [
        { tai: { plmnID: OPERATOR_PLMN, tac: '000001' }, snssais: [{ sst: 1 }, { sst: 1, sd: 'abcdef' }] },
        { tai: { plmnID: OPERATOR_PLMN, tac: '000099' }, snssais: [{ sst: 1 }] },
      ]);
      // A change that leaves no served TAC is refused (network.md section 2: same rules as NG Setup).
      const refused = await gnb.ranConfigurationUpdate({
        supportedTas: [{ tac: 0x98, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }] }],
      });
      assert.deepEqual(refused.outcome === 'refused' && refused.failure.cause, 'misc/unspecified');
      const logs = await s.until(async () => {
        const page = await s.get<Page<Row>>('/api/v1/logs/radio?ran_id=001:01:000004&per_page=100');
        const events = page.items.map((row) => row.event);
        return events.includes('RAN Configuration Update Failure') ? page.items : undefined;
      }, 'the RAN Configuration Update logs');
      const events = logs.map((row) => [row.event, row.level]);
      assert.ok(events.some(([e, l]) => e === 'RAN Configuration Update Acknowledge' && l === 'info'));
      assert.ok(events.some(([e, l]) => e === 'RAN Configuration Update Failure' && l === 'warn'));
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });

  it('NG Reset from the gNB is acknowledged and logged; the radio stays connected', async () => {
    const s = await startN2Service();
    try {
      const gnb = s.gnb(gnbConfig(5));
      await gnb.connect();
      await gnb.ngSetup();
      assert.deepEqual(await gnb.ngReset({ choice: 'misc', value: 'om-intervention' }), {
        outcome: 'acknowledged',
        connections: [],
      });
      const logs = await s.until(async () => {
        const page = await s.get<Page<Row>>('/api/v1/logs/radio?ran_id=001:01:000005&per_page=100');
        return page.items.some((row) => row.event === 'NG Reset Acknowledge') ? page.items : undefined;
      }, 'the NG Reset logs');
      const reset = logs.find((row) => row.event === 'NG Reset');
      assert.deepEqual(reset && [reset.direction, details(reset).cause], ['inbound', 'misc/om-intervention']);
      assert.equal((await s.get<Page<unknown>>('/api/v1/ran/radios')).total_count, 1);
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });

  it('Error Indication both ways: ours is recorded with its cause; garbage is recorded as Unknown and answered', async () => {
    const s = await startN2Service();
    try {
      const gnb = s.gnb(gnbConfig(6));
      await gnb.connect();
      await gnb.ngSetup();
      assert.deepEqual(gnb.errorIndication({ cause: { choice: 'protocol', value: 'semantic-error' } }), {
        ok: true,
      });
      const answered = gnb.next((event) => (event.type === 'error-indication' ? event.report : undefined));
      gnb.sendBytes(Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
      // TS 38.413 10.2: a PDU that does not decode is answered by Error Indication with a protocol cause.
      assert.match((await answered).cause ?? '', /^protocol\//);
      const events = await s.until(async () => {
        const page = await s.get<Page<Row>>('/api/v1/ran/events?per_page=100');
        const types = page.items.map((row) => `${row.message_type}/${row.direction}`);
        return types.includes('Unknown/inbound') && types.includes('ErrorIndication/outbound')
          ? page.items
          : undefined;
      }, 'the error indications and the unknown PDU');
      const ours = events.find(
        (row) => row.message_type === 'ErrorIndication' && row.direction === 'inbound',
      );
      assert.deepEqual(ours && details(ours).cause, 'protocol/semantic-error');
      const logs = await s.until(async () => {
        const page = await s.get<Page<Row>>('/api/v1/logs/radio?event=Error%20Indication&per_page=100');
        return page.total_count >= 2 ? page.items : undefined;
      }, 'the Error Indication logs');
      assert.ok(logs.every((row) => row.level === 'warn'));
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });

  it('AMF Configuration Update reaches the radio after an operator slice and TAC change through the API', async () => {
    const s = await startN2Service();
    try {
      const gnb = s.gnb(gnbConfig(7));
      await gnb.connect();
      await gnb.ngSetup();
      const sliceUpdate = gnb.next((event) =>
        event.type === 'amf-configuration-update' ? event : undefined,
      );
      const created = await s.t.request({
        method: 'POST',
        url: '/api/v1/slices',
        token: s.token,
        payload: { name: 'video', sst: 2, sd: '00000a' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const update = await sliceUpdate;
      assert.deepEqual(update.amf.plmnSupport, [
        { plmn: OPERATOR_PLMN, slices: [{ sst: 1 }, { sst: 2, sd: 10 }] },
      ]);

      const tacUpdate = gnb.next((event) => (event.type === 'amf-configuration-update' ? event : undefined));
      const tracking = await s.t.request({
        method: 'PUT',
        url: '/api/v1/operator/tracking',
        token: s.token,
        payload: { supportedTacs: ['000001', '000002'] },
      });
      assert.equal(tracking.statusCode, 200, tracking.body);
      await tacUpdate;
      const acks = await s.until(async () => {
        const page = await s.get<Page<Row>>(
          '/api/v1/ran/events?message_type=AMFConfigurationUpdateAcknowledge',
        );
        return page.total_count >= 2 ? page.items : undefined;
      }, 'two acknowledgements recorded');
      assert.ok(acks.every((row) => row.direction === 'inbound'));
      const logs = await s.get<Page<Row>>('/api/v1/logs/radio?event=AMF%20Configuration%20Update');
      assert.ok(logs.total_count >= 2);
      received.push(...s.received);
    } finally {
      await s.close();
    }
  });
});
