import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { radioEvent, radioLog, RADIO_1, subscriberLog } from '../helpers/records.ts';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';
import { until } from '../helpers/until.ts';

// Records and administration in Chromium against the real service: radio events with the decoded tree,
// logs with filters, users, retention, backup and restore; then what the read-only role is offered.
const READER = { email: 'reader@example.com', password: 'reader-password' };
// An NG Setup Request from free5gc's NGAP tests (/work/shared/vectors/free5gc-ngap-pdus.json,
// message/ng_setup_request_test.go), decoded by the service's NGAP decoder when the event is read.
const NG_SETUP_REQUEST =
  '00150044000004001b00080002f839000000040052400b0400667265653567632d310066001d00000000010402f83900001008010203000001020007001000000000100015400140';

describe('web UI records and administration in a browser', { timeout: 120_000 }, () => {
  let h: Harness;
  // A database file, since a restore replaces the file (an in-memory service refuses it).
  const dir = mkdtempSync(join(tmpdir(), 'pmn-web-ui-records-'));

  before(async () => {
    h = await startHarness({ database: join(dir, 'core.db') });
    const init = await h.service.request({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
    assert.equal(init.statusCode, 201);
    const created = await h.service.request({
      method: 'POST',
      url: '/api/v1/users',
      token: await h.tokenOf(ADMIN),
      payload: { ...READER, role_id: 2 },
    });
    assert.equal(created.statusCode, 201);
    const records = h.service.records;
    records.recordRadioEvent(radioEvent({ raw: Buffer.from(NG_SETUP_REQUEST, 'hex') }));
    records.recordRadioEvent(radioEvent({ messageType: 'NGSetupResponse', direction: 'outbound' }));
    records.recordSubscriberLog(subscriberLog());
    records.recordSubscriberLog(subscriberLog({ imsi: '001010000000002', event: 'Deregistration request' }));
    records.recordRadioLog(radioLog());
    records.recordRadioLog(radioLog({ ranId: '001:01:000002', event: 'NG Reset' }));
    await records.flush();
  });
  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(page: Page, link: string, heading = link): Promise<void> {
    await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  const rows = (page: Page) => page.getByRole('table').getByRole('row');

  it('filters radio events and shows a decoded NGAP message as a collapsible tree', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Radio events');
    await page.getByRole('cell', { name: 'NGSetupResponse' }).waitFor();
    await page.getByRole('combobox', { name: 'Message type' }).fill('NGSetupRequest');
    await page.getByRole('cell', { name: 'NGSetupResponse' }).waitFor({ state: 'detached' });
    assert.equal(await rows(page).count(), 2); // the header and the one request
    await page.getByRole('button', { name: /^Open record / }).click();
    const dialog = page.getByRole('dialog');
    const tree = dialog.getByRole('list', { name: 'decoded' });
    await tree.getByText('initiating_message').waitFor();
    await tree.getByText('initiating_message').click();
    await tree.getByText('procedure_code').waitFor();
    await h.shot(page, 'radio-event');
    await page.keyboard.press('Escape');
    await page.context().close();
  });

  it('filters radio and subscriber logs, and reads the audit log', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Radio logs');
    await page.getByRole('cell', { name: 'NG Reset' }).waitFor();
    await page.getByRole('combobox', { name: 'Radio ID' }).fill(RADIO_1);
    await page.getByRole('cell', { name: 'NG Reset' }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'NG Setup', exact: true }).waitFor();

    await open(page, 'Subscriber logs');
    await page.getByRole('cell', { name: 'Deregistration request' }).waitFor();
    const direction = page.getByLabel('Direction').and(page.locator('input'));
    await direction.click();
    await page.getByRole('option', { name: 'outbound' }).click();
    await page.getByText('No records match.').waitFor();
    await direction.click();
    await page.getByRole('option', { name: 'inbound' }).click();
    await page.getByRole('combobox', { name: 'IMSI' }).fill('001010000000002');
    await page
      .getByRole('cell', { name: 'Registration request', exact: true })
      .waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'Deregistration request' }).waitFor();
    await h.shot(page, 'subscriber-logs');

    await open(page, 'Audit logs');
    await page.getByRole('cell', { name: 'create_user' }).first().waitFor();
    await page.getByLabel('Actor (e-mail)').fill('nobody@example.com');
    await page.getByText('No records match.').waitFor();
    await page.context().close();
  });

  it('creates a user, changes its role and deletes it', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Users');
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('E-mail').fill('ops@example.com');
    await dialog.getByLabel(/^Password/).fill('short');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.getByText(/^password /).waitFor();
    await dialog.getByLabel(/^Password/).fill('ops-password');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'ops@example.com', exact: true }).waitFor();
    await page.getByLabel('Role of ops@example.com').and(page.locator('input')).click();
    await page.getByRole('option', { name: 'network manager' }).click();
    const token = await h.tokenOf(ADMIN);
    // The browser sends the change on its own time: waited for (20 s), not for 50 polls.
    let roleId: number | undefined;
    await until(
      'the role changed to network manager',
      async () => {
        const user = await h.service.request({ method: 'GET', url: '/api/v1/users/ops@example.com', token });
        roleId = user.json<{ result: { role_id: number } }>().result.role_id;
        return roleId === 3;
      },
      () => `role_id ${roleId}`,
      { everyMs: 100 },
    );
    await h.shot(page, 'users');
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete user ops@example.com' }).click();
    await page.getByRole('cell', { name: 'ops@example.com', exact: true }).waitFor({ state: 'detached' });
    await page.context().close();
  });

  it('changes a retention (a refused value named), downloads a backup and restores it', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Retention');
    const days = page.getByLabel('Radio events: days');
    await days.fill('0');
    await page
      .getByRole('region', { name: 'Radio events retention' })
      .getByRole('button', { name: 'Save' })
      .click();
    await page.getByText(/^days /).waitFor();
    await days.fill('3');
    await page
      .getByRole('region', { name: 'Radio events retention' })
      .getByRole('button', { name: 'Save' })
      .click();
    await page.getByText('Radio events retention saved.').waitFor();
    await page.getByText('Kept 3 days').waitFor();
    await h.shot(page, 'retention');
    const token = await h.tokenOf(ADMIN);
    const retention = await h.service.request({
      method: 'GET',
      url: '/api/v1/ran/events/retention',
      token,
    });
    assert.equal(retention.json<{ result: { days: number } }>().result.days, 3);

    await open(page, 'Backup and restore');
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download backup' }).click();
    const file = await (await downloading).path();
    assert.equal(readFileSync(file).subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
    // A change after the backup, which the restore must undo.
    const changed = await h.service.request({
      method: 'PUT',
      url: '/api/v1/ran/events/retention',
      token,
      payload: { days: 5 },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    // Mantine's file input is a button in front of a hidden <input type="file">.
    await page.locator('input[type="file"]').setInputFiles(file);
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText(/^Database restored \(\d+ bytes\)/).waitFor();
    await h.shot(page, 'backup');
    const restored = await h.service.request({ method: 'GET', url: '/api/v1/ran/events/retention', token });
    assert.equal(restored.json<{ result: { days: number } }>().result.days, 3);
    // The session is the backup's too: the page still works after the restore.
    await open(page, 'Retention');
    await page.getByText('Kept 3 days').waitFor();
    await page.context().close();
  });

  it('offers the read-only role no write action and no admin page', async () => {
    const page = await h.newPage();
    await h.signIn(page, READER);
    for (const name of ['Radio events', 'Radio logs', 'Subscriber logs']) {
      await open(page, name);
      await page.getByRole('table').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Clear all' }).count(), 0, name);
    }
    await open(page, 'Retention');
    await page
      .getByText(/^Kept \d+ days/)
      .first()
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0);
    const navigation = page.getByRole('navigation');
    for (const name of ['Audit logs', 'Users', 'Backup and restore']) {
      assert.equal(await navigation.getByRole('link', { name }).count(), 0, name);
    }
    await open(page, 'Radios');
    await page.getByText('No radio is connected.').waitFor();
    await page.context().close();
  });

  it('logged no console errors on any page', () => {
    assert.deepEqual(h.consoleErrors, []);
  });
});
