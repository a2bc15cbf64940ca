import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { radioEvent, radioLog, subscriberLog } from '../helpers/records.ts';
import { seriousViolations } from './web-ui-axe.ts';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';

// The operator's view in Chromium (issue 32): the small defects an operator met, and accessibility
// checked by axe-core over every page, light and dark, and the main dialogs.
const READER = { email: 'reader@example.com', password: 'reader-password' };
const IMSI = '001010000000001';
const KEY = '465b5ce8b199b49faa5f0a2ee238a6bc';

/** Every page of the navigation (by its link) and its heading, as an admin sees them. */
const PAGES: [link: string, heading: string][] = [
  ['Dashboard', 'Dashboard'],
  ['Subscribers', 'Subscribers'],
  ['Profiles', 'Profiles'],
  ['Policies', 'Policies'],
  ['Slices', 'Slices'],
  ['Data networks', 'Data networks'],
  ['Operator', 'Operator'],
  ['Radios', 'Radios'],
  ['Radio events', 'Radio events'],
  ['Flow reports', 'Flow reports'],
  ['Usage', 'Usage'],
  ['Location', 'Cell positions'],
  ['Radio logs', 'Radio logs'],
  ['Subscriber logs', 'Subscriber logs'],
  ['Audit logs', 'Audit logs'],
  ['Users', 'Users'],
  ['Retention', 'Retention'],
  ['Backup and restore', 'Backup and restore'],
];

describe('web UI for the operator in a browser', { timeout: 300_000 }, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness();
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
      payload: { imsi: IMSI, key: KEY, sequenceNumber: '000000000001', profile_name: 'default' },
    });
    assert.equal(subscriber.statusCode, 201);
    h.service.records.recordRadioEvent(radioEvent());
    h.service.records.recordRadioLog(radioLog());
    h.service.records.recordSubscriberLog(subscriberLog());
    await h.service.records.flush();
  });
  after(async () => {
    await h?.close();
    assert.deepEqual(h?.consoleErrors ?? [], []);
  });

  async function open(page: Page, link: string, heading = link): Promise<void> {
    await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  it('a load without a session logs nothing to the console (no refresh is asked without a session)', async () => {
    const page = await h.newPage();
    // Every console message of level error, 4xx answers included (the harness lets those pass).
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(h.base);
    await page.getByRole('heading', { name: 'Sign in to PMN Core' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to PMN Core' }).waitFor();
    assert.deepEqual(errors, []);
    // Signed in, a reload still finds the session; signed out, the next load asks nothing again.
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel(/^Password/).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to PMN Core' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to PMN Core' }).waitFor();
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it('the new-subscriber form starts with the default profile chosen, and creates with it', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Subscribers');
    await page.getByRole('button', { name: 'New subscriber' }).click();
    const dialog = page.getByRole('dialog');
    assert.equal(await dialog.getByLabel(/^Profile/).inputValue(), 'default');
    await dialog.getByLabel('IMSI').fill('001010000000009');
    await dialog.getByLabel('Key (K)').fill(KEY);
    await dialog.getByRole('button', { name: 'Create subscriber' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: '001010000000009' }).waitFor();
    await page.context().close();
  });

  it('backup and restore offers no action to a role the service refuses, even by its address', async () => {
    const page = await h.newPage();
    await h.signIn(page, READER);
    await page.goto(`${h.base}/backup`);
    await page.getByRole('heading', { name: 'Backup and restore', level: 1 }).waitFor();
    await page.getByText('Only administrators can back up and restore the database.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Download backup' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Restore' }).count(), 0);
    await page.context().close();
  });

  it('revoking an API token asks first; dismissed, the token stays and works', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await page.goto(`${h.base}/account`);
    await page.getByLabel('Name').fill('kept token');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent()) ?? '';
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: 'Revoke token kept token' }).click();
    await page.getByRole('cell', { name: 'kept token', exact: true }).waitFor();
    assert.match(asked, /Revoke the API token "kept token"/);
    const me = await h.service.request({ method: 'GET', url: '/api/v1/users/me', token });
    assert.equal(me.statusCode, 200);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke token kept token' }).click();
    await page.getByText('No API tokens.').waitFor();
    await page.context().close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`axe finds no critical or serious violation on any page or main dialog (${scheme})`, async () => {
      const page = await h.newPage();
      // Without motion, a dialog is scanned as it stays, not halfway through fading in.
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      const found: string[] = [];
      const scan = async (where: string) => {
        for (const violation of await seriousViolations(page)) found.push(`${where}: ${violation}`);
      };
      await page.goto(h.base);
      await page.getByRole('heading', { name: 'Sign in to PMN Core' }).waitFor();
      await scan('sign-in');
      await h.signIn(page, ADMIN);
      for (const [link, heading] of PAGES) {
        await open(page, link, heading);
        // Scanned once the page's data has come: no loader left.
        await page.waitForFunction('!document.querySelector(\'[aria-label="Loading"]\')');
        await scan(link);
      }
      await open(page, 'Subscribers');
      await page.getByRole('link', { name: IMSI }).click();
      await page.getByRole('heading', { name: `Subscriber ${IMSI}` }).waitFor();
      await scan('subscriber');
      await page.goto(`${h.base}/account`);
      await page.getByRole('heading', { name: 'Password and API tokens' }).waitFor();
      await scan('account');
      await page.getByRole('button', { name: 'User menu' }).click();
      await page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
      await scan('user menu');
      await page.keyboard.press('Escape');

      const dialogs: [link: string, button: string][] = [
        ['Subscribers', 'New subscriber'],
        ['Subscribers', 'Import'],
        ['Profiles', 'New profile'],
        ['Policies', 'New policy'],
        ['Users', 'New user'],
      ];
      for (const [link, button] of dialogs) {
        await open(page, link);
        await page.getByRole('button', { name: button, exact: true }).click();
        await page.getByRole('dialog').waitFor();
        await scan(`${link} / ${button}`);
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      }
      assert.deepEqual(found, []);
      await page.context().close();
    });
  }
});
