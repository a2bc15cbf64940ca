import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { connectIn, nrCell } from '../helpers/location.ts';
import { flowReport, IMSI_1, IMSI_2, radioLog, subscriberLog } from '../helpers/records.ts';
import { seriousViolations } from './web-ui-axe.ts';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';

// Radios, flow reports, usage and location in Chromium against the real service: the network side's
// data is put into the service's network state and records pipeline as N2 and the user plane would.
const READER = { email: 'reader@example.com', password: 'reader-password' };
const CELL = nrCell('000000010');

describe('web UI radios, traffic and location in a browser', { timeout: 120_000 }, () => {
  let h: Harness;
  let token: string;

  before(async () => {
    h = await startHarness();
    const init = await h.service.request({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
    assert.equal(init.statusCode, 201);
    token = await h.tokenOf(ADMIN);
    const created = await h.service.request({
      method: 'POST',
      url: '/api/v1/users',
      token,
      payload: { ...READER, role_id: 2 },
    });
    assert.equal(created.statusCode, 201);
    h.service.network.radioConnected({
      id: '001:01:000001',
      name: 'gnb-1',
      address: '10.0.0.5:38412',
      ranNodeType: 'gNB',
      supportedTais: [
        {
          tai: { plmnID: { mcc: '001', mnc: '01' }, tac: '000001' },
          snssais: [{ sst: 1 }, { sst: 2, sd: '0a0b0c' }],
        },
      ],
    });
    const now = Date.now();
    const records = h.service.records;
    records.recordFlowReports([
      flowReport({ endTime: now - 60_000 }),
      flowReport({
        endTime: now - 50_000,
        protocol: 17,
        destinationIp: '8.8.8.8',
        destinationPort: 53,
        bytes: 80,
      }),
      flowReport({ endTime: now - 40_000, subscriberId: IMSI_2, bytes: 9000, direction: 'downlink' }),
    ]);
    records.recordUsage({ imsi: IMSI_1, uplinkBytes: 1_000_000, downlinkBytes: 5_000_000, at: now });
    records.recordUsage({ imsi: IMSI_2, uplinkBytes: 200_000, downlinkBytes: 300_000, at: now });
    await records.flush();
  });
  after(() => h?.close());

  async function open(page: Page, link: string, heading = link): Promise<void> {
    await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  it('shows the live network on the dashboard: counts, charts and recent warnings', async () => {
    const subscriber = await h.service.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: {
        imsi: IMSI_2,
        key: '465b5ce8b199b49faa5f0a2ee238a6bc',
        sequenceNumber: '000000000001',
        profile_name: 'default',
      },
    });
    assert.equal(subscriber.statusCode, 201);
    // As the AMF and SMF report them: one registered subscriber with one PDU session.
    h.service.network.subscriberRegistered(IMSI_2, 'gnb-1', {
      radioAccessTypes: ['5G'],
      imei: '356938035643809',
      cipheringAlgorithm: 'NEA2',
      integrityAlgorithm: 'NIA2',
    });
    h.service.network.sessionEstablished(IMSI_2, {
      id: 1,
      radioAccessType: '5G',
      status: 'active',
      ipType: 'IPv4',
      ipv4Address: '10.45.0.2',
      ipv6Prefix: '',
      dataNetwork: 'internet',
      slice: { sst: 1, sd: '' },
      ambrUplink: '100 Mbps',
      ambrDownlink: '200 Mbps',
    });
    h.service.records.recordRadioLog(radioLog({ event: 'Error Indication', level: 'warn' }));
    h.service.records.recordRadioLog(radioLog({ event: 'NG Setup' }));
    // A device whose SUCI the core could not read, refused: logged with no IMSI (network.md section 4).
    h.service.records.recordSubscriberLog(
      subscriberLog({
        imsi: '',
        level: 'warn',
        event: 'Registration Reject',
        direction: 'outbound',
        details: {
          radio: 'gnb-1',
          suci: `suci-0-001-01-0000-1-2-${'ab'.repeat(32)}${'cd'.repeat(5)}${'ef'.repeat(8)}`,
          cause: '5GS services not allowed (7)',
        },
      }),
    );
    h.service.records.recordSubscriberLog(subscriberLog({ imsi: IMSI_2, event: 'Registration Complete' }));
    await h.service.records.flush();
    // A failed sign-in is a WARN audit entry, which only an admin's dashboard lists.
    const failed = await h.service.request({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: ADMIN.email, password: 'not-the-password' },
    });
    assert.equal(failed.statusCode, 401);

    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    const figure = (label: string) => page.locator('.mantine-Card-root').filter({ hasText: label });
    await figure('Connected radios').getByText('1', { exact: true }).waitFor();
    await figure('Registered subscribers').getByText('1', { exact: true }).waitFor();
    await figure('Active sessions').getByText('1', { exact: true }).waitFor();
    await page
      .getByRole('img', { name: 'Traffic per day' })
      .locator('.recharts-bar-rectangle')
      .first()
      .waitFor();
    await page
      .getByRole('img', { name: 'Registered subscribers and active sessions over time' })
      .locator('.recharts-line-dot')
      .first()
      .waitFor();
    const warnings = page.getByRole('table', { name: 'Recent warnings' });
    await warnings.getByRole('cell', { name: 'Error Indication' }).waitFor();
    await warnings.getByRole('cell', { name: 'login_failed' }).waitFor();
    await warnings
      .getByRole('cell', { name: 'Registration Reject: 5GS services not allowed (7)' })
      .getByText(/^The SUCI names home network key 2 \(Profile A\); this core has no Profile A key/)
      .waitFor();
    await warnings
      .getByRole('cell', { name: 'SUCI of home network 001-01, Profile A, key 2 on gnb-1' })
      .waitFor();
    // Each level is read whole beside a long explanation, not cut to an ellipsis.
    for (const label of await warnings.locator('.mantine-Badge-label').all()) {
      assert.ok(
        await label.evaluate(
          (element: { scrollWidth: number; clientWidth: number }) =>
            element.scrollWidth <= element.clientWidth,
        ),
        `the level ${await label.textContent()} is cut`,
      );
    }
    assert.equal(await warnings.getByRole('cell', { name: 'NG Setup' }).count(), 0);
    assert.equal(await warnings.getByRole('cell', { name: /Registration Complete/ }).count(), 0);
    // Off the charts, so that no tooltip covers them in the screenshot.
    await page.mouse.move(0, 0);
    await h.shot(page, 'dashboard');
    await page.context().close();
    // The warnings' badges and explanations (dimmed text on striped rows) in light and dark.
    for (const scheme of ['light', 'dark'] as const) {
      const scanned = await h.newPage();
      await scanned.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      await h.signIn(scanned, ADMIN);
      await scanned
        .getByRole('table', { name: 'Recent warnings' })
        .getByText(/^The SUCI names home network key 2/)
        .waitFor();
      // With a chart's tooltip open, whose items name the series.
      await scanned
        .getByRole('img', { name: 'Registered subscribers and active sessions over time' })
        .hover();
      await scanned.locator('.recharts-tooltip-item-name').first().waitFor();
      assert.deepEqual(await seriousViolations(scanned), [], scheme);
      await scanned.context().close();
    }
  });

  it('lists a connected radio and shows its tracking areas and slices', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Radios');
    await page.getByRole('link', { name: 'gnb-1' }).click();
    await page.getByRole('heading', { name: 'Radio gnb-1' }).waitFor();
    await page.getByRole('cell', { name: '000001' }).waitFor();
    await page.getByText('2/0a0b0c').waitFor();
    await h.shot(page, 'radio');
    await page.context().close();
  });

  it('shows flow reports, their stats as charts, grouped by subscriber, and filtered', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Flow reports');
    await page.getByRole('cell', { name: '8.8.8.8:53' }).waitFor();
    // A report's end in the one time format, with its zone (issue 32 item 5).
    const end = page.getByRole('row').filter({ hasText: '8.8.8.8:53' }).getByRole('cell').first();
    assert.match((await end.textContent()) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/);
    await page
      .getByRole('img', { name: 'Flows by protocol' })
      .locator('.recharts-bar-rectangle')
      .first()
      .waitFor();
    await h.shot(page, 'flow-reports');
    await page.getByText('By subscriber').click();
    await page.getByRole('cell', { name: IMSI_2 }).waitFor();
    await page.getByText('Reports', { exact: true }).click();
    await page.getByLabel('Protocol number').fill('17');
    await page.getByRole('cell', { name: '142.250.1.1:443' }).first().waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '8.8.8.8:53' }).waitFor();
    await page.getByLabel('Protocol number').fill('300');
    await page
      .getByRole('alert')
      .getByText(/protocol/)
      .first()
      .waitFor();
    await page.context().close();
  });

  it('charts usage per day and per subscriber', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Usage');
    await page
      .getByRole('cell', { name: '5.00 MB' })
      .first()
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    // Per day: both subscribers' bytes add up on today's row.
    await page.getByRole('cell', { name: '5.30 MB' }).waitFor();
    await page.getByText('Per subscriber').click();
    await page.getByRole('cell', { name: IMSI_2 }).waitFor();
    await page
      .getByRole('img', { name: 'Usage per subscriber' })
      .locator('.recharts-bar-rectangle')
      .first()
      .waitFor();
    await h.shot(page, 'usage');
    await page.context().close();
  });

  it('adds a cell position, locates a subscriber there, and starts and cancels a periodic session', async () => {
    const subscriber = await h.service.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: {
        imsi: IMSI_1,
        key: '465b5ce8b199b49faa5f0a2ee238a6bc',
        sequenceNumber: '000000000001',
        profile_name: 'default',
      },
    });
    assert.equal(subscriber.statusCode, 201);
    connectIn(h.service, 1, CELL);
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Location', 'Cell positions');
    await page.getByRole('button', { name: 'New cell position' }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByLabel(/^Radio access/)
      .and(page.locator('input'))
      .click();
    await page.getByRole('option', { name: 'nr' }).click();
    await dialog.getByLabel('MCC').fill('001');
    await dialog.getByLabel('MNC').fill('01');
    await dialog.getByLabel(/^Cell identity/).fill(CELL.cellIdentity);
    await dialog.getByLabel(/^Latitude/).fill('95');
    await dialog.getByLabel(/^Longitude/).fill('2.35');
    await dialog.getByRole('button', { name: 'Create cell position' }).click();
    await dialog.getByText(/^latitude /).waitFor();
    await dialog.getByLabel(/^Latitude/).fill('48.85');
    await dialog.getByRole('button', { name: 'Create cell position' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '48.85' }).waitFor();

    await page.getByRole('textbox', { name: /^IMSI/ }).fill(IMSI_1);
    await page.getByRole('button', { name: 'Locate' }).click();
    const position = page.getByRole('alert').filter({ hasText: 'Position' });
    await position.getByText('48.85', { exact: true }).waitFor();
    await h.shot(page, 'location');

    await page.getByLabel('Request').and(page.locator('input')).click();
    await page.getByRole('option', { name: 'Periodic session' }).click();
    await page.getByRole('button', { name: 'Locate' }).click();
    await page.getByText(/^Positioning session .* started\.$/).waitFor();
    await page.getByRole('button', { name: /^Cancel session / }).click();
    await page.getByText('cancelled').waitFor();
    await page.context().close();
  });

  it('offers the read-only role no write action on these pages, nor audit warnings', async () => {
    const page = await h.newPage();
    await h.signIn(page, READER);
    // The dashboard's warnings come from the radio logs only: the audit log is an admin's.
    const warnings = page.getByRole('table', { name: 'Recent warnings' });
    await warnings.getByRole('cell', { name: 'Error Indication' }).waitFor();
    assert.equal(await warnings.getByRole('cell', { name: 'login_failed' }).count(), 0);
    for (const name of ['Flow reports', 'Usage']) {
      await open(page, name);
      await page.getByRole('table').first().waitFor();
      assert.equal(await page.getByRole('button', { name: 'Clear all' }).count(), 0, name);
    }
    await open(page, 'Location', 'Cell positions');
    await page.getByRole('cell', { name: '48.85' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^(New|Edit|Delete) / }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Locate' }).count(), 0);
    await page.context().close();
  });

  it('logged no console errors on any page', () => {
    assert.deepEqual(h.consoleErrors, []);
  });
});
