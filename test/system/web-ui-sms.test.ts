import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { imsi, newSubscriber } from '../helpers/network.ts';
import { seriousViolations } from './web-ui-axe.ts';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';

// The subscriber page's short messages in Chromium against the real service: the send box counts parts as
// the service splits them, a refused sender is said in words, a sent message is listed queued (no device is
// attached to receive it), a failed one shows its cause and octets say binary, axe finds nothing serious in
// light or dark, and the read-only role sees the list without the send box.
const READER = { email: 'reader@example.com', password: 'reader-password' };
const SUBSCRIBER = imsi(1);

describe('web UI short messages in a browser', { timeout: 120_000 }, () => {
  let h: Harness;

  before(async () => {
    // Each test signs in anew (and the scans once per scheme), more often than the default 10 a minute allows.
    h = await startHarness({ loginRateLimit: 100 });
    const init = await h.service.request({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
    assert.equal(init.statusCode, 201);
    const token = await h.tokenOf(ADMIN);
    const reader = await h.service.request({
      method: 'POST',
      url: '/api/v1/users',
      token,
      payload: { ...READER, role_id: 2 },
    });
    assert.equal(reader.statusCode, 201);
    const subscriber = await h.service.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: newSubscriber(1, { msisdn: '+15550000001' }),
    });
    assert.equal(subscriber.statusCode, 201, subscriber.body);
  });
  after(() => h?.close());

  it('sends a message from the subscriber page and lists it queued', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await page.goto(`${h.base}/subscribers/${SUBSCRIBER}`);
    await page.getByRole('heading', { name: 'Short messages' }).waitFor();
    await page.getByText('No short messages.').waitFor();

    const box = page.getByLabel('Message', { exact: true });
    await box.fill('a'.repeat(160));
    await page.getByText('160 characters, 1 part (GSM 7-bit)').waitFor();
    await box.fill('a'.repeat(161));
    await page.getByText('161 characters, 2 parts (GSM 7-bit)').waitFor();
    await box.fill('ж'.repeat(71));
    await page.getByText('71 characters, 2 parts (UCS-2)').waitFor();

    // A sender id longer than 11 characters: the service's 400, in its words.
    await box.fill('Maintenance at 10:00');
    await page.getByLabel('From').fill('MaintenanceTeam');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page
      .getByRole('alert')
      .getByText(/sender id/)
      .waitFor();

    await page.getByLabel('From').fill('Ops');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByRole('status').getByText('Queued in 1 part.').waitFor();
    const row = page
      .getByRole('table', { name: `Short messages of ${SUBSCRIBER}` })
      .getByRole('row')
      .filter({ hasText: 'Maintenance at 10:00' });
    await row.getByRole('cell', { name: 'received' }).waitFor();
    await row.getByRole('cell', { name: 'Ops', exact: true }).waitFor();
    await row.getByText('queued').waitFor();
    await row
      .locator('time')
      .getByText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/)
      .waitFor();
    await h.shot(page, 'subscriber-sms');

    const listed = await h.service.request({
      method: 'GET',
      url: `/api/v1/sms?imsi=${SUBSCRIBER}`,
      token: await h.tokenOf(ADMIN),
    });
    const items = listed.json<{ result: { items: { text: string; from: string; status: string }[] } }>()
      .result.items;
    assert.deepEqual(
      items.map(({ text, from, status }) => ({ text, from, status })),
      [{ text: 'Maintenance at 10:00', from: 'Ops', status: 'queued' }],
    );
    await page.context().close();
  });

  /** Sends through the API as the admin; the parts' ids. */
  async function sendByApi(payload: Record<string, unknown>): Promise<number[]> {
    const sent = await h.service.request({
      method: 'POST',
      url: '/api/v1/sms',
      token: await h.tokenOf(ADMIN),
      payload,
    });
    assert.equal(sent.statusCode, 201, sent.body);
    return sent.json<{ result: { ids: number[] } }>().result.ids;
  }

  it('shows a failed message with its cause in words and octets as binary, with no axe violation in light or dark', async () => {
    const [failed] = await sendByApi({ msisdn: '+15550000001', text: 'Refused by the device' });
    assert.ok(failed !== undefined);
    // What the SMSF records when the device answers RP-ERROR (docs/sms.md, "Delivery").
    await h.service.core.ports.smsStore.settle(failed, {
      status: 'failed',
      cause: 'Unknown subscriber (30)',
      at: Date.now(),
    });
    await sendByApi({ imsi: SUBSCRIBER, data: '0a0b0c' });
    for (const scheme of ['light', 'dark'] as const) {
      const page = await h.newPage();
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      await h.signIn(page, ADMIN);
      await page.goto(`${h.base}/subscribers/${SUBSCRIBER}`);
      const table = page.getByRole('table', { name: `Short messages of ${SUBSCRIBER}` });
      const refused = table.getByRole('row').filter({ hasText: 'Refused by the device' });
      await refused.getByText('failed', { exact: true }).waitFor();
      await refused.getByText('Unknown subscriber (30)').waitFor();
      await table.getByRole('row').filter({ hasText: 'binary (3 octets)' }).getByText('queued').waitFor();
      assert.deepEqual(await seriousViolations(page), [], scheme);
      await page.context().close();
    }
  });

  it('lists every short message on the records page, filtered by status, direction, IMSI and MSISDN', async () => {
    await sendByApi({ msisdn: '+15550000001', text: 'For the records page' });
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await page.getByRole('navigation').getByRole('link', { name: 'Short messages', exact: true }).click();
    await page.getByRole('heading', { name: 'Short messages', level: 1 }).waitFor();
    const rows = page.getByRole('row').filter({ has: page.getByRole('cell') });
    const listed = page.getByRole('row').filter({ hasText: 'For the records page' });
    await listed.getByRole('cell', { name: 'network-originated' }).waitFor();
    await listed.getByRole('cell', { name: '15550000001', exact: true }).waitFor();

    const filters = page.getByRole('search', { name: 'Filter short messages' });
    const choose = async (label: string, option: string) => {
      await filters.getByLabel(label).and(page.locator('input')).click();
      await page.getByRole('option', { name: option, exact: true }).click();
    };
    await choose('Status', 'expired');
    await page.getByText('No records match.').waitFor();
    assert.equal(await rows.count(), 0);
    await choose('Status', 'queued');
    await listed.waitFor();
    await choose('Direction', 'mobile-originated');
    await page.getByText('No records match.').waitFor();
    await choose('Direction', 'network-originated');
    await listed.waitFor();
    await filters.getByLabel('IMSI').fill(imsi(2));
    await page.getByText('No records match.').waitFor();
    await filters.getByLabel('IMSI').fill(SUBSCRIBER);
    await listed.waitFor();
    await filters.getByLabel('MSISDN').fill('+15550000009');
    await page.getByText('No records match.').waitFor();
    await filters.getByLabel('MSISDN').fill('+15550000001');
    await listed.waitFor();
    await h.shot(page, 'sms');
    await page.context().close();

    // The scheme is set before the page loads, as a system's would be.
    for (const scheme of ['light', 'dark'] as const) {
      const scanned = await h.newPage();
      await scanned.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      await h.signIn(scanned, ADMIN);
      await scanned.goto(`${h.base}/sms`);
      await scanned.getByRole('row').filter({ hasText: 'For the records page' }).waitFor();
      assert.deepEqual(await seriousViolations(scanned), [], scheme);
      await scanned.context().close();
    }
  });

  it('shows the read-only role the messages without a send box', async () => {
    await sendByApi({ msisdn: '+15550000001', text: 'Shown to readers' });
    const page = await h.newPage();
    await h.signIn(page, READER);
    await page.goto(`${h.base}/subscribers/${SUBSCRIBER}`);
    await page.getByRole('heading', { name: 'Short messages' }).waitFor();
    await page
      .getByRole('table', { name: `Short messages of ${SUBSCRIBER}` })
      .getByText('Shown to readers')
      .waitFor();
    assert.equal(await page.getByLabel('Message', { exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Send message' }).count(), 0);
    await page.getByRole('navigation').getByRole('link', { name: 'Short messages', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'Shown to readers' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Clear all' }).count(), 0);
    await page.context().close();
    assert.deepEqual(h.consoleErrors, []);
  });
});
