import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FlowReportInput } from '../../src/records/record-inputs.ts';
import { GROUP_REPORTS } from '../../src/resources/flow-reports/flow-reports.service.ts';
import { ROLE } from '../../src/identity/roles.ts';
import { at, flowReport, IMSI_1, IMSI_2 } from '../helpers/records.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

interface FlowItem {
  id: number;
  subscriber_id: string;
  source_ip: string;
  destination_ip: string;
  source_port: number;
  destination_port: number;
  protocol: number;
  packets: number;
  bytes: number;
  start_time: string;
  end_time: string;
  direction: string;
  action: string;
}
interface Page {
  items: FlowItem[];
  page: number;
  per_page: number;
  total_count: number;
}

// The test clock says 2026-11-22T10:00:00Z: the default window is 2026-11-15 00:00 to the end of 2026-11-22.
describe('flow reports', () => {
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  let manager: string;

  before(async () => {
    t = await createTestApp({ clock: manualClock() });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    manager = await userWithRole(t, admin, ROLE.networkManager);
  });
  after(() => t.close());

  async function clear(): Promise<void> {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/flow-reports', token: admin });
    assert.equal(response.statusCode, 200);
  }

  async function record(...reports: Partial<FlowReportInput>[]): Promise<void> {
    assert.equal(t.records.recordFlowReports(reports.map((report) => flowReport(report))), true);
    await t.records.flush();
  }

  async function get<T>(url: string): Promise<T> {
    const response = await t.request({ method: 'GET', url, token: readOnly });
    assert.equal(response.statusCode, 200, response.body);
    return result<T>(response);
  }

  const list = (query = '') => get<Page>(`/api/v1/flow-reports${query}`);
  const ends = async (query = '') => (await list(query)).items.map((item) => item.end_time);
  const ports = async (query = '') =>
    (await list(query)).items.map((item) => item.destination_port).sort((a, b) => a - b);

  async function badRequest(url: string): Promise<string> {
    const response = await t.request({ method: 'GET', url, token: readOnly });
    assert.equal(response.statusCode, 400, response.body);
    return response.json<{ error: string }>().error;
  }

  describe('GET /api/v1/flow-reports', () => {
    beforeEach(clear);

    it('shapes each report, times in UTC with milliseconds and Z', async () => {
      await record({
        subscriberId: IMSI_1,
        sourceIp: '10.45.0.2',
        destinationIp: '2001:DB8:0:0::1',
        sourcePort: 51000,
        destinationPort: 443,
        protocol: 17,
        packets: 12,
        bytes: 3400,
        startTime: at('2026-11-22T09:59:58.500Z'),
        endTime: at('2026-11-22T09:59:59.750Z'),
        direction: 'uplink',
        action: 'drop',
      });
      const { items, page, per_page, total_count } = await list();
      const { id, ...item } = items[0] as FlowItem;
      assert.equal(typeof id, 'number');
      assert.deepEqual({ page, per_page, total_count }, { page: 1, per_page: 25, total_count: 1 });
      assert.deepEqual(item, {
        subscriber_id: IMSI_1,
        source_ip: '10.45.0.2',
        destination_ip: '2001:db8::1',
        source_port: 51000,
        destination_port: 443,
        protocol: 17,
        packets: 12,
        bytes: 3400,
        start_time: '2026-11-22T09:59:58.500Z',
        end_time: '2026-11-22T09:59:59.750Z',
        direction: 'uplink',
        action: 'drop',
      });
    });

    it('lists newest first by end time, then by id', async () => {
      await record(
        { endTime: at('2026-11-21T10:00:00Z'), destinationPort: 1 },
        { endTime: at('2026-11-22T08:00:00Z'), destinationPort: 2 },
        { endTime: at('2026-11-21T10:00:00Z'), destinationPort: 3 },
      );
      assert.deepEqual(
        (await list()).items.map((item) => item.destination_port),
        [2, 3, 1],
      );
    });

    it('selects by end time from 7 days ago 00:00 UTC to the end of today by default', async () => {
      await record(
        { endTime: at('2026-11-14T23:59:59.999Z') },
        { endTime: at('2026-11-15T00:00:00.000Z') },
        { endTime: at('2026-11-22T23:59:59.999Z') },
        { endTime: at('2026-11-23T00:00:00.000Z') },
      );
      assert.deepEqual(await ends(), ['2026-11-22T23:59:59.999Z', '2026-11-15T00:00:00.000Z']);
    });

    it('selects whole UTC days with start and end, both included', async () => {
      await record(
        { endTime: at('2026-11-09T23:59:59.999Z') },
        { endTime: at('2026-11-10T00:00:00.000Z') },
        { endTime: at('2026-11-11T23:59:59.999Z') },
        { endTime: at('2026-11-12T00:00:00.000Z') },
      );
      assert.deepEqual(await ends('?start=2026-11-10&end=2026-11-11'), [
        '2026-11-11T23:59:59.999Z',
        '2026-11-10T00:00:00.000Z',
      ]);
      assert.deepEqual(await ends('?start=2026-11-11&end=2026-11-11'), ['2026-11-11T23:59:59.999Z']);
      // A start alone runs to the end of today; an end alone starts 7 days ago.
      assert.equal((await list('?start=2026-11-12')).total_count, 1);
      assert.equal((await list('?end=2026-11-16')).total_count, 0);
    });

    it('filters by subscriber_id, protocol, direction and action', async () => {
      await record(
        { subscriberId: IMSI_1, protocol: 6, direction: 'uplink', action: 'allow', destinationPort: 1 },
        { subscriberId: IMSI_2, protocol: 17, direction: 'downlink', action: 'allow', destinationPort: 2 },
        { subscriberId: IMSI_2, protocol: 6, direction: 'uplink', action: 'drop', destinationPort: 3 },
      );
      assert.deepEqual(await ports(`?subscriber_id=${IMSI_2}`), [2, 3]);
      assert.deepEqual(await ports('?protocol=6'), [1, 3]);
      assert.deepEqual(await ports('?protocol=255'), []);
      assert.deepEqual(await ports('?direction=downlink'), [2]);
      assert.deepEqual(await ports('?action=drop'), [3]);
      assert.deepEqual(await ports('?action=allow'), [1, 2]);
      assert.deepEqual(await ports(`?subscriber_id=${IMSI_2}&protocol=6&direction=uplink&action=drop`), [3]);
    });

    it('filters by source and destination as IP, IP:port, [IPv6]:port and :port', async () => {
      await record(
        { sourceIp: '10.45.0.2', sourcePort: 40000, destinationIp: '8.8.8.8', destinationPort: 53 },
        { sourceIp: '10.45.0.2', sourcePort: 40001, destinationIp: '8.8.4.4', destinationPort: 443 },
        { sourceIp: '2001:db8::5', sourcePort: 40000, destinationIp: '2001:db8::53', destinationPort: 853 },
      );
      assert.deepEqual(await ports('?source=10.45.0.2'), [53, 443]);
      assert.deepEqual(await ports('?source=10.45.0.2:40001'), [443]);
      assert.deepEqual(await ports('?source=:40000'), [53, 853]);
      assert.deepEqual(await ports('?source=%5B2001:db8:0::5%5D:40000'), [853]);
      assert.deepEqual(await ports('?source=2001:0db8::5'), [853]);
      assert.deepEqual(await ports('?destination=8.8.8.8'), [53]);
      assert.deepEqual(await ports('?destination=8.8.4.4:443'), [443]);
      assert.deepEqual(await ports('?destination=8.8.4.4:53'), []);
      assert.deepEqual(await ports('?destination=:853'), [853]);
      assert.deepEqual(await ports('?destination=[2001:db8::53]:853'), [853]);
      assert.deepEqual(await ports('?source=10.45.0.2&destination=:53'), [53]);
    });

    it('pages with page and per_page up to 100', async () => {
      await record(
        ...Array.from({ length: 5 }, (_, i) => ({
          endTime: at('2026-11-22T09:00:00Z') + i,
          destinationPort: i,
        })),
      );
      const page = await list('?page=2&per_page=2');
      assert.deepEqual(
        page.items.map((item) => item.destination_port),
        [2, 1],
      );
      assert.deepEqual([page.page, page.per_page, page.total_count], [2, 2, 5]);
      assert.equal((await list('?per_page=100')).items.length, 5);
    });

    for (const [query, error] of [
      ['?protocol=0', 'query parameter protocol must be an integer 1..255'],
      ['?protocol=256', 'query parameter protocol must be an integer 1..255'],
      ['?protocol=tcp', 'query parameter protocol must be an integer 1..255'],
      ['?source=10.45.0', 'source must be IP, IP:port, [IPv6]:port or :port (got "10.45.0")'],
      [
        '?source=2001:db8::1:443x',
        'source must be IP, IP:port, [IPv6]:port or :port (got "2001:db8::1:443x")',
      ],
      ['?destination=:70000', 'destination port must be 0..65535'],
      [
        '?destination=[10.0.0.1]:80',
        'destination must be IP, IP:port, [IPv6]:port or :port (got "[10.0.0.1]:80")',
      ],
      ['?start=22-11-2026', 'query parameter start must be a date in the form YYYY-MM-DD'],
      ['?end=2026-02-30', 'end must be a date in the form YYYY-MM-DD'],
      ['?start=2026-11-20&end=2026-11-19', 'start must not be after end'],
      ['?start=2026-11-23', 'start must not be after end (which defaults to today)'],
      ['?end=2026-11-01', 'end must not be before start (which defaults to 7 days ago)'],
      ['?direction=inbound', 'query parameter direction must be uplink or downlink'],
      ['?action=reject', 'query parameter action must be allow or drop'],
      ['?group_by=week', 'query parameter group_by must be day or subscriber'],
      ['?subscriber_id=imsi-001010000000001', 'query parameter subscriber_id must be 15 digits'],
      ['?per_page=0', 'query parameter per_page must be >= 1'],
    ] as const) {
      it(`answers 400 naming the parameter for ${query}`, async () => {
        assert.equal(await badRequest(`/api/v1/flow-reports${query}`), error);
      });
    }
  });

  describe('GET /api/v1/flow-reports?group_by=day', () => {
    beforeEach(clear);

    it('answers an unpaginated array of single-key objects, one per UTC day with reports, ascending', async () => {
      await record(
        { endTime: at('2026-11-20T23:59:59.999Z'), destinationPort: 1 },
        { endTime: at('2026-11-21T00:00:00.000Z'), destinationPort: 2 },
        { endTime: at('2026-11-21T12:00:00.000Z'), destinationPort: 3 },
        { endTime: at('2026-11-18T08:00:00.000Z'), destinationPort: 4 },
      );
      const groups = await get<Record<string, FlowItem[]>[]>('/api/v1/flow-reports?group_by=day');
      assert.deepEqual(
        groups.map((group) => Object.keys(group)),
        [['2026-11-18'], ['2026-11-20'], ['2026-11-21']],
      );
      assert.deepEqual(
        groups.map((group) => Object.values(group)[0]?.map((item) => item.destination_port)),
        [[4], [1], [3, 2]],
      );
    });

    it('applies the filters and the window, and answers [] when nothing matches', async () => {
      await record(
        { endTime: at('2026-11-20T10:00:00Z'), protocol: 17 },
        { endTime: at('2026-11-21T10:00:00Z'), protocol: 6 },
        { endTime: at('2026-11-10T10:00:00Z'), protocol: 6 },
      );
      const groups = await get<Record<string, FlowItem[]>[]>('/api/v1/flow-reports?group_by=day&protocol=6');
      assert.deepEqual(groups.map(Object.keys), [['2026-11-21']]);
      const older = await get<Record<string, FlowItem[]>[]>(
        '/api/v1/flow-reports?group_by=day&start=2026-11-01&end=2026-11-20',
      );
      assert.deepEqual(older.map(Object.keys), [['2026-11-10'], ['2026-11-20']]);
      assert.deepEqual(await get('/api/v1/flow-reports?group_by=day&protocol=1'), []);
    });

    it(`holds the newest ${GROUP_REPORTS} reports of each day`, async () => {
      const base = at('2026-11-21T00:00:00Z');
      await record(...Array.from({ length: GROUP_REPORTS + 1 }, (_, i) => ({ endTime: base + i * 1000 })));
      const [group] = await get<Record<string, FlowItem[]>[]>('/api/v1/flow-reports?group_by=day');
      const reports = group?.['2026-11-21'] ?? [];
      assert.equal(reports.length, GROUP_REPORTS);
      assert.equal(reports[0]?.end_time, new Date(base + GROUP_REPORTS * 1000).toISOString());
      assert.equal(reports.at(-1)?.end_time, new Date(base + 1000).toISOString());
    });
  });

  describe('GET /api/v1/flow-reports?group_by=subscriber', () => {
    beforeEach(clear);

    it('keys each group by IMSI, ascending, with that subscriber’s newest reports', async () => {
      await record(
        { subscriberId: IMSI_2, endTime: at('2026-11-21T10:00:00Z'), destinationPort: 1 },
        { subscriberId: IMSI_1, endTime: at('2026-11-20T10:00:00Z'), destinationPort: 2 },
        { subscriberId: IMSI_2, endTime: at('2026-11-22T09:00:00Z'), destinationPort: 3 },
      );
      const groups = await get<Record<string, FlowItem[]>[]>('/api/v1/flow-reports?group_by=subscriber');
      assert.deepEqual(groups.map(Object.keys), [[IMSI_1], [IMSI_2]]);
      assert.deepEqual(
        groups.map((group) => Object.values(group)[0]?.map((item) => item.destination_port)),
        [[2], [3, 1]],
      );
      const one = await get<Record<string, FlowItem[]>[]>(
        `/api/v1/flow-reports?group_by=subscriber&subscriber_id=${IMSI_2}&destination=:1`,
      );
      assert.deepEqual(
        one.map((group) => Object.values(group)[0]?.map((item) => item.destination_port)),
        [[1]],
      );
    });
  });

  describe('GET /api/v1/flow-reports/stats', () => {
    beforeEach(clear);

    it('counts reports by protocol, most first, ties by protocol number', async () => {
      await record(
        { protocol: 17 },
        { protocol: 6 },
        { protocol: 17 },
        { protocol: 1 },
        { protocol: 58 },
        { protocol: 58 },
      );
      const stats = await get<{ protocols: unknown[] }>('/api/v1/flow-reports/stats');
      assert.deepEqual(stats.protocols, [
        { protocol: 17, count: 2 },
        { protocol: 58, count: 2 },
        { protocol: 1, count: 1 },
        { protocol: 6, count: 1 },
      ]);
    });

    it('names the 10 uplink destinations with the most reports, ties by address, ignoring downlink', async () => {
      const reports: Partial<FlowReportInput>[] = [];
      // 10.0.0.1 gets 12 reports, 10.0.0.2 gets 11, ... 10.0.0.12 gets 1.
      for (let host = 1; host <= 12; host += 1) {
        for (let n = 0; n < 13 - host; n += 1) reports.push({ destinationIp: `10.0.0.${host}` });
      }
      reports.push({ destinationIp: '10.0.0.99', direction: 'downlink' });
      reports.push({ destinationIp: '10.0.0.99', direction: 'downlink' });
      reports.push({ destinationIp: '10.0.0.100' });
      await record(...reports);
      const stats = await get<{ top_destinations_uplink: { ip: string; count: number }[] }>(
        '/api/v1/flow-reports/stats',
      );
      assert.deepEqual(stats.top_destinations_uplink, [
        { ip: '10.0.0.1', count: 12 },
        { ip: '10.0.0.2', count: 11 },
        { ip: '10.0.0.3', count: 10 },
        { ip: '10.0.0.4', count: 9 },
        { ip: '10.0.0.5', count: 8 },
        { ip: '10.0.0.6', count: 7 },
        { ip: '10.0.0.7', count: 6 },
        { ip: '10.0.0.8', count: 5 },
        { ip: '10.0.0.9', count: 4 },
        { ip: '10.0.0.10', count: 3 },
      ]);
    });

    it('applies the list filters and window', async () => {
      await record(
        { subscriberId: IMSI_1, protocol: 6, destinationIp: '1.1.1.1' },
        { subscriberId: IMSI_2, protocol: 17, destinationIp: '9.9.9.9' },
        { subscriberId: IMSI_2, protocol: 17, destinationIp: '9.9.9.9', endTime: at('2026-11-01T00:00:00Z') },
      );
      assert.deepEqual(await get(`/api/v1/flow-reports/stats?subscriber_id=${IMSI_2}`), {
        protocols: [{ protocol: 17, count: 1 }],
        top_destinations_uplink: [{ ip: '9.9.9.9', count: 1 }],
      });
      assert.deepEqual(await get('/api/v1/flow-reports/stats?direction=downlink'), {
        protocols: [],
        top_destinations_uplink: [],
      });
      assert.deepEqual(await get('/api/v1/flow-reports/stats?start=2026-11-01&end=2026-11-01'), {
        protocols: [{ protocol: 17, count: 1 }],
        top_destinations_uplink: [{ ip: '9.9.9.9', count: 1 }],
      });
    });

    it('validates its filters as the list does', async () => {
      assert.equal(
        await badRequest('/api/v1/flow-reports/stats?protocol=300'),
        'query parameter protocol must be an integer 1..255',
      );
      assert.equal(
        await badRequest('/api/v1/flow-reports/stats?destination=nowhere'),
        'destination must be IP, IP:port, [IPv6]:port or :port (got "nowhere")',
      );
    });
  });

  describe('DELETE /api/v1/flow-reports', () => {
    it('deletes every flow report and audits it', async () => {
      await clear();
      await record({}, {});
      const response = await t.request({ method: 'DELETE', url: '/api/v1/flow-reports', token: manager });
      assert.deepEqual(response.json(), { result: { message: 'all flow reports deleted (2)' } });
      assert.equal((await list('?start=2000-01-01')).total_count, 0);
      const [entry] = await auditEntries(t, admin);
      assert.deepEqual(entry && [entry.action, entry.details], [
        'clear_flow_reports',
        'All flow reports deleted (2)',
      ]);
    });

    it('is refused to the read-only role', async () => {
      const response = await t.request({ method: 'DELETE', url: '/api/v1/flow-reports', token: readOnly });
      assert.equal(response.statusCode, 403);
    });
  });
});
