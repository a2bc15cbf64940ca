import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';

// The web UI in Debian's Chromium against the whole service in this process (in-memory database), through
// the built application in dist/ui (`npm run build:ui`; `npm ci` builds it). UI_SCREENSHOTS=<directory>
// saves the main pages as PNG (docs/ui.md shows them).
const READER = { email: 'reader@example.com', password: 'reader-password' };
const IMSI = '001010000000001';
const KEY = '465b5ce8b199b49faa5f0a2ee238a6bc';

describe('web UI in a browser', { timeout: 120_000 }, () => {
  let harness: Harness;
  let service: Harness['service'];
  let base: string;

  before(async () => {
    harness = await startHarness();
    ({ service, base } = harness);
  });
  after(async () => {
    await harness?.close();
  });

  const newPage = (width?: number): Promise<Page> => harness.newPage(width);
  const shot = (page: Page, name: string): Promise<void> => harness.shot(page, name);
  const signIn = (page: Page, user: { email: string; password: string }): Promise<void> =>
    harness.signIn(page, user);
  const tokenOf = (user: { email: string; password: string }): Promise<string> => harness.tokenOf(user);

  it('first start creates the admin and opens the dashboard', async () => {
    const page = await newPage();
    await page.goto(base);
    await page.getByRole('heading', { name: 'Welcome to PMN Core' }).waitFor();
    await shot(page, 'first-start');
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel(/^Password/).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByText('admin@example.com (admin)').waitFor();
    // No screenshot here: docs/ui/dashboard.png shows a live network (web-ui-traffic), an empty one is
    // dashboard-getting-started.png (web-ui-operator).
    await page.context().close();
  });

  it('a reload keeps the session (the cookie gives a new bearer token); sign-out ends it', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to PMN Core' }).waitFor();
    await shot(page, 'sign-in');
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to PMN Core' }).waitFor();
    await page.context().close();
  });

  it('a wrong password is answered in words', async () => {
    const page = await newPage();
    await page.goto(base);
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel(/^Password/).fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('invalid credentials').waitFor();
    await page.context().close();
  });

  it('creates a subscriber, shows the service error next to the field, reveals credentials, deletes it', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await page.getByRole('button', { name: 'New subscriber' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('IMSI').fill(IMSI);
    await dialog.getByLabel('Key (K)').fill('not-hex');
    await dialog.getByLabel(/^Profile/).click();
    await page.getByRole('option', { name: 'default' }).click();
    await dialog.getByRole('button', { name: 'Create subscriber' }).click();
    await dialog.getByText(/^key /).waitFor();
    await dialog.getByLabel('Key (K)').fill(KEY);
    await dialog.getByLabel(/^MSISDN/).fill('0155512345');
    await dialog.getByRole('button', { name: 'Create subscriber' }).click();
    await dialog.getByText(/^msisdn must be an E\.164 number/).waitFor();
    await dialog.getByLabel(/^MSISDN/).fill('+15551230001');
    await dialog.getByRole('button', { name: 'Create subscriber' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: IMSI }).waitFor();
    await page.getByRole('cell', { name: '15551230001', exact: true }).waitFor();
    await shot(page, 'subscribers');

    await page.getByLabel('MSISDN').fill('+15559999999');
    await page.getByText('No subscribers match.').waitFor();
    await page.getByLabel('MSISDN').fill('+15551230001');
    await page.getByRole('link', { name: IMSI }).waitFor();
    await page.getByLabel('MSISDN').fill('');

    await page.getByLabel('Radio').fill('no-such-radio');
    await page.getByText('No subscribers match.').waitFor();
    await page.getByLabel('Radio').fill('');
    await page.getByRole('link', { name: IMSI }).click();
    await page.getByRole('heading', { name: `Subscriber ${IMSI}` }).waitFor();
    await page.getByRole('button', { name: 'Reveal credentials' }).click();
    await page.getByText(KEY).waitFor();
    await shot(page, 'subscriber');
    const audit = await service.request({
      method: 'GET',
      url: '/api/v1/logs/audit',
      token: await tokenOf(ADMIN),
    });
    assert.ok(
      audit
        .json<{ result: { items: { action: string }[] } }>()
        .result.items.some((entry) => entry.action === 'get_subscriber_credentials'),
    );

    await page.getByRole('link', { name: 'Subscribers' }).first().click();
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: `Delete subscriber ${IMSI}` }).click();
    await page.getByText('No subscribers match.').waitFor();
    await page.context().close();
  });

  it('creates an API token shown once, which works, and revokes it', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Password and API tokens' }).click();
    await page.getByLabel('Name').fill('ci token');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent()) ?? '';
    assert.match(token, /^core_/);
    await shot(page, 'account');
    const me = await service.request({ method: 'GET', url: '/api/v1/users/me', token });
    assert.equal(me.statusCode, 200);
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Revoke token ci token' }).click();
    await page.getByText('No API tokens.').waitFor();
    const revoked = await service.request({ method: 'GET', url: '/api/v1/users/me', token });
    assert.equal(revoked.statusCode, 401);
    await page.context().close();
  });

  it("changing one's own password keeps this session and ends the others (decisions section 5)", async () => {
    const other = await tokenOf(ADMIN);
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Password and API tokens' }).click();
    await page.getByLabel(/^Current password/).fill(ADMIN.password);
    await page.getByLabel(/^New password/).fill('admin-password-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await page.getByRole('heading', { name: 'Subscribers' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Subscribers' }).waitFor();
    const ended = await service.request({ method: 'GET', url: '/api/v1/users/me', token: other });
    assert.equal(ended.statusCode, 401);
    // Back to the password the other tests sign in with.
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Password and API tokens' }).click();
    await page.getByLabel(/^Current password/).fill('admin-password-2');
    await page.getByLabel(/^New password/).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    await page.context().close();
  });

  it('offers the read-only role no write actions', async () => {
    const admin = await tokenOf(ADMIN);
    const created = await service.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      payload: { ...READER, role_id: 2 },
    });
    assert.equal(created.statusCode, 201);
    const page = await newPage();
    await signIn(page, READER);
    await page.getByText('reader@example.com (read-only)').waitFor();
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await page.getByRole('heading', { name: 'Subscribers' }).waitFor();
    await page.getByRole('table').waitFor();
    assert.equal(await page.getByRole('button', { name: 'New subscriber' }).count(), 0);
    await page.context().close();
  });

  it('is readable on a phone: the navigation is behind a button', async () => {
    const page = await newPage(390);
    await signIn(page, ADMIN);
    await page.getByRole('button', { name: 'Navigation' }).click();
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await page.getByRole('heading', { name: 'Subscribers' }).waitFor();
    // The screenshot shows the page once the drawer has slid away.
    // A function, not a string: the page's Content Security Policy refuses eval.
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as {
        document: { querySelector(selector: string): { getBoundingClientRect(): { right: number } } | null };
      };
      const nav = document.querySelector('nav[aria-label="Pages"]');
      return nav !== null && nav.getBoundingClientRect().right <= 0;
    });
    await shot(page, 'phone-subscribers');
    await page.context().close();
  });

  it('logged no console errors on any page', () => {
    assert.deepEqual(harness.consoleErrors, []);
  });
});
