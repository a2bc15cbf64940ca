import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { radioEvent, radioLog, RADIO_1, subscriberLog } from '../helpers/records.ts';
import { seriousViolations } from './web-ui-axe.ts';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';

// The operator's view in Chromium (issue 32): the small defects an operator met, and accessibility
// checked by axe-core over every page, light and dark, and the main dialogs.
const READER = { email: 'reader@example.com', password: 'reader-password' };
const IMSI = '001010000000001';
const KEY = '465b5ce8b199b49faa5f0a2ee238a6bc';
// An NG Setup Request from free5gc's NGAP tests (as in web-ui-records.test.ts): 72 bytes, five dump lines.
const NG_SETUP_REQUEST =
  '00150044000004001b00080002f839000000040052400b0400667265653567632d310066001d00000000010402f83900001008010203000001020007001000000000100015400140';

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
  ['Short messages', 'Short messages'],
  ['Audit logs', 'Audit logs'],
  ['Users', 'Users'],
  ['Retention', 'Retention'],
  ['Backup and restore', 'Backup and restore'],
];

describe('web UI for the operator in a browser', { timeout: 300_000 }, () => {
  let h: Harness;

  before(async () => {
    // Each test signs in anew, more often than the default 10 a minute allows.
    h = await startHarness({ loginRateLimit: 1000 });
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
    h.service.records.recordRadioEvent(
      radioEvent({
        raw: Buffer.from(NG_SETUP_REQUEST, 'hex'),
        details: { radio: 'gnb-lab', ran_id: RADIO_1 },
      }),
    );
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
    // Chosen once the profiles are read (the input's value attribute follows React's value).
    await dialog
      .getByLabel(/^Profile/)
      .and(page.locator('input[value="default"]'))
      .waitFor();
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

  it('a radio event opens titled by message, radio and time, its hex dump with offsets beside the decoded tree', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Radio events');
    const row = page.getByRole('row').filter({ hasText: 'gnb-lab' });
    await row.getByRole('button', { name: /^Open record/ }).click();
    const dialog = page.getByRole('dialog');
    const title = (await dialog.getByRole('heading').first().textContent()) ?? '';
    assert.match(title, /^NGSetupRequest from gnb-lab · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/);
    await dialog.getByText('Raw message (72 bytes)').waitFor();
    const dump = (await dialog.getByLabel('Raw message as hex').textContent()) ?? '';
    const lines = dump.split('\n');
    assert.equal(lines.length, 5);
    assert.equal(lines[0], '0000  00 15 00 44 00 00 04 00  1b 00 08 00 02 f8 39 00  ...D..........9.');
    assert.match(lines[4] ?? '', /^0040 {2}/);
    await dialog.getByText('Decoded message').waitFor();
    await page.context().close();
  });

  it('shows every time in UTC or, as chosen, in the browser zone with its offset, and reads filters in it', async () => {
    const page = await h.newPage(1280, { timezoneId: 'Asia/Kolkata' });
    await h.signIn(page, ADMIN);
    // An API token's expiry is entered in the zone times are shown in (UTC here, not the browser's).
    const later = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.goto(`${h.base}/account`);
    await page.getByLabel('Name').fill('expiring token');
    await page.getByLabel('Expires (UTC, optional)').fill(`${later}T10:00`);
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByTestId('new-token').waitFor();
    const tokens = await h.service.request({
      method: 'GET',
      url: '/api/v1/users/me/api-tokens',
      token: await h.tokenOf(ADMIN),
    });
    const listed = tokens.json<{ result: { items: { name: string; expires_at: string | null }[] } }>();
    assert.equal(
      listed.result.items.find((item) => item.name === 'expiring token')?.expires_at,
      `${later}T10:00:00.000Z`,
    );
    await open(page, 'Radio events');
    const firstTime = page.getByRole('row').nth(1).getByRole('cell').first();
    assert.match((await firstTime.textContent()) ?? '', / UTC$/);
    await page.getByLabel('From (UTC)').waitFor();
    await page.getByText('Local (UTC+05:30)').click();
    await page.getByLabel('From (UTC+05:30)').waitFor();
    assert.match((await firstTime.textContent()) ?? '', / UTC\+05:30$/);
    // A time entered in the chosen zone: 10:00 in Kolkata is 04:30 UTC, after every record here was made.
    await page.getByLabel('From (UTC+05:30)').fill(`${later}T10:00`);
    await page.getByText('No records match.').waitFor();
    // The choice stays with the browser.
    await page.reload();
    await page
      .getByRole('heading', { name: 'Dashboard' })
      .or(page.getByRole('heading', { name: 'Radio events' }))
      .first()
      .waitFor();
    await open(page, 'Radio events');
    assert.match((await firstTime.textContent()) ?? '', / UTC\+05:30$/);
    await page.context().close();
  });

  it('the refresh is visible and can be paused: paused, a new record waits for resume', async () => {
    const page = await h.newPage();
    // A clock of the test's own: the refresh runs when the test moves the clock, not on the wall clock.
    // Radio events reload as the live stream carries each one, and once on resuming; paused, neither.
    await page.clock.install();
    await h.signIn(page, ADMIN);
    await open(page, 'Radio events');
    await page.getByText(/^Live, updated \d{4}-/).waitFor();
    h.service.records.recordRadioEvent(radioEvent({ messageType: 'NGReset' }));
    await h.service.records.flush();
    await page.clock.fastForward(11_000);
    await page.getByRole('cell', { name: 'NGReset', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Pause refresh' }).click();
    await page.getByText(/^Paused, updated/).waitFor();
    h.service.records.recordRadioEvent(radioEvent({ messageType: 'AMFStatusIndication' }));
    await h.service.records.flush();
    await page.clock.fastForward(31_000);
    await page.getByRole('cell', { name: 'NGReset', exact: true }).waitFor();
    assert.equal(await page.getByRole('cell', { name: 'AMFStatusIndication' }).count(), 0);

    await page.getByRole('button', { name: 'Resume refresh' }).click();
    await page.clock.fastForward(11_000);
    await page.getByRole('cell', { name: 'AMFStatusIndication' }).waitFor();
    await page.context().close();
  });

  it('suggests subscribers, radios, message types and protocols in the record filters', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Subscriber logs');
    await page.getByRole('combobox', { name: 'IMSI' }).fill('00101000000000');
    await page.getByRole('option', { name: IMSI }).click();
    assert.equal(await page.getByRole('combobox', { name: 'IMSI' }).inputValue(), IMSI);
    await page.getByRole('cell', { name: IMSI }).first().waitFor();
    await open(page, 'Radio events');
    // The radio events' subscriber picker (issue 32 item 5): the events whose details name the IMSI.
    await page.getByRole('combobox', { name: 'IMSI' }).fill('00101000000000');
    await page.getByRole('option', { name: IMSI }).click();
    assert.equal(await page.getByRole('combobox', { name: 'IMSI' }).inputValue(), IMSI);
    await page.getByRole('combobox', { name: 'IMSI' }).clear();
    await page.getByRole('combobox', { name: 'Message type' }).click();
    await page.getByRole('option', { name: 'NGSetupRequest' }).click();
    await page.getByRole('combobox', { name: 'Protocol' }).click();
    await page.getByRole('option', { name: 'NGAP' }).waitFor();
    await page.context().close();
  });

  it('the dashboard reads one small summary (not the metrics text), shows the service health, and leads an empty network', async () => {
    const page = await h.newPage();
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await h.signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Getting started' }).waitFor();
    const steps = page.getByRole('region', { name: 'Getting started' });
    await steps.getByText('(done)').first().waitFor();
    // A subscriber exists (before), no radio is connected: the subscriber step only is done.
    assert.deepEqual(
      (await steps.getByRole('listitem').allTextContents()).map((text) => text.includes('(done)')),
      [false, true, false, false, false],
    );
    await steps.getByText(/^N2 is not running/).waitFor();
    const health = page.getByRole('region', { name: 'Service' });
    await health.getByRole('row', { name: /^Database answering, \d/ }).waitFor();
    await health.getByRole('row', { name: /^N2 not running/ }).waitFor();
    await h.shot(page, 'dashboard-getting-started');
    await page.getByText('Subscribers', { exact: true }).locator('..').getByText(/^\d+$/).waitFor();
    assert.ok(asked.includes('/api/v1/status/summary'));
    assert.ok(!asked.includes('/api/v1/metrics'), 'the dashboard does not download the metrics text');

    h.service.network.radioConnected({
      id: '001:01:0000aa',
      name: 'gnb-start',
      address: '10.0.0.7:38412',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
    await page.reload();
    await page.getByText('Connected radios').locator('..').getByText('1', { exact: true }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Getting started' }).count(), 0);
    h.service.network.radioDisconnected('001:01:0000aa');
    await page.context().close();
  });

  it('at phone width the header keeps one row: the refresh control and the user menu stay inside it', async () => {
    const page = await h.newPage(375);
    await h.signIn(page, ADMIN);
    const header = await page.getByRole('banner').boundingBox();
    assert.ok(header);
    for (const control of [
      page.getByRole('button', { name: 'Pause refresh' }),
      page.getByRole('button', { name: 'User menu' }),
    ]) {
      const box = await control.boundingBox();
      assert.ok(box && box.y >= header.y && box.y + box.height <= header.y + header.height);
      assert.ok(box.x + box.width <= 375);
    }
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
