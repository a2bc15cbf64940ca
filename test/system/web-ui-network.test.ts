import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';

// The network resource pages in Chromium against the real service: profiles, slices, data networks,
// policies, operator, subscriber import and edit, as the admin; then what the read-only role is offered.
const READER = { email: 'reader@example.com', password: 'reader-password' };

describe('web UI network pages in a browser', { timeout: 120_000 }, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness();
    const init = await h.service.request({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
    assert.equal(init.statusCode, 201);
    const created = await h.service.request({
      method: 'POST',
      url: '/api/v1/users',
      token: await h.tokenOf(ADMIN),
      payload: { ...READER, role_id: 2 },
    });
    assert.equal(created.statusCode, 201);
  });
  after(() => h?.close());

  async function open(page: Page, link: string, heading = link): Promise<void> {
    await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  /** Picks an option of a Mantine select (its input, not its list, carries the label). */
  async function choose(page: Page, label: string | RegExp, option: string): Promise<void> {
    await page.getByLabel(label).and(page.locator('input')).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  it('creates a profile (a refused field shown next to it), edits it, and refuses to delete one in use', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Profiles');
    await page.getByRole('button', { name: 'New profile' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('gold');
    await dialog.getByLabel('UE IP pool').fill('10.46.0.0/16');
    await dialog.getByLabel('DNS server').fill('1.1.1.1');
    await dialog.getByLabel('MTU').fill('70000');
    await dialog.getByLabel('Uplink bitrate').fill('100 Mbps');
    await dialog.getByLabel('Downlink bitrate').fill('200 Mbps');
    await dialog.getByLabel('5QI').fill('9');
    await dialog.getByLabel('Priority level').fill('80');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    await dialog.getByText(/^mtu /).waitFor();
    await dialog.getByLabel('MTU').fill('1400');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '10.46.0.0/16' }).waitFor();

    await page.getByRole('button', { name: 'Edit profile gold' }).click();
    assert.equal(await dialog.getByLabel('SMS over NAS allowed').isChecked(), true);
    await dialog.getByLabel('SMS over NAS allowed').uncheck();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    // An edit of another field keeps the switch as saved: PUT replaces the profile.
    await page.getByRole('button', { name: 'Edit profile gold' }).click();
    assert.equal(await dialog.getByLabel('SMS over NAS allowed').isChecked(), false);
    await dialog.getByLabel('DNS server').fill('9.9.9.9');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '9.9.9.9' }).waitFor();
    const saved = await fetch(`${h.base}/api/v1/profiles/gold`, {
      headers: { authorization: `Bearer ${await h.tokenOf(ADMIN)}` },
    });
    assert.equal(
      ((await saved.json()) as { result: { 'sms-allowed': boolean } }).result['sms-allowed'],
      false,
    );
    await h.shot(page, 'profiles');

    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete profile default' }).click();
    await page
      .getByRole('alert')
      .getByText(/default/)
      .waitFor();
    await page.context().close();
  });

  it('creates a slice and a data network, a policy naming them, renames the data network, deletes all three', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    const dialog = page.getByRole('dialog');

    await open(page, 'Slices');
    await page.getByRole('button', { name: 'New slice' }).click();
    await dialog.getByLabel('Name').fill('video');
    await dialog.getByLabel('SST').fill('1');
    await dialog.getByLabel('SD').fill('00ff0g');
    await dialog.getByRole('button', { name: 'Create slice' }).click();
    await dialog.getByText(/^sd /).waitFor();
    await dialog.getByLabel('SD').fill('00ff01');
    await dialog.getByRole('button', { name: 'Create slice' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '00ff01' }).waitFor();

    await open(page, 'Data networks');
    await page.getByRole('button', { name: 'New data network' }).click();
    await dialog.getByLabel(/^Name/).fill('ims');
    await dialog.getByRole('button', { name: 'Create data network' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'ims', exact: true }).waitFor();
    await h.shot(page, 'data-networks');

    await open(page, 'Policies');
    await page.getByRole('button', { name: 'New policy' }).click();
    await dialog.getByLabel('Name').fill('ims-video');
    await choose(page, /^Data network/, 'ims');
    await choose(page, /^Slice/, 'video');
    await dialog.getByLabel('Uplink bitrate').fill('10 Mbps');
    await dialog.getByLabel('Downlink bitrate').fill('20 Mbps');
    await dialog.getByLabel('5QI').fill('5');
    await dialog.getByLabel('ARP').fill('16');
    await dialog.getByRole('button', { name: 'Create policy' }).click();
    await dialog.getByText(/^arp /).waitFor();
    await dialog.getByLabel('ARP').fill('2');
    await dialog.getByRole('button', { name: 'Create policy' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'ims-video', exact: true }).waitFor();
    await h.shot(page, 'policies');

    // A slice a policy names cannot go: the service's 409 is said.
    await open(page, 'Slices');
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete slice video' }).click();
    await page.getByRole('alert').waitFor();

    // A data network is renamed (a refused name said at the field); the policy follows it.
    await open(page, 'Data networks');
    await page.getByRole('button', { name: 'Edit data network ims' }).click();
    await dialog.getByLabel(/^Name/).fill('ims voice');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText(/^name /).waitFor();
    await dialog.getByLabel(/^Name/).fill('ims-core');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'ims-core', exact: true }).waitFor();
    await open(page, 'Policies');
    await page.getByRole('cell', { name: 'ims-core', exact: true }).waitFor();

    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete policy ims-video' }).click();
    await page.getByRole('cell', { name: 'ims-video', exact: true }).waitFor({ state: 'detached' });
    await open(page, 'Slices');
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete slice video' }).click();
    await page.getByRole('cell', { name: 'video', exact: true }).waitFor({ state: 'detached' });
    await open(page, 'Data networks');
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete data network ims-core' }).click();
    await page.getByRole('cell', { name: 'ims-core', exact: true }).waitFor({ state: 'detached' });
    await page.context().close();
  });

  it('changes the operator: tracking areas, NAS preference order, a home network key', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Operator');
    const tacs = page.getByLabel('Supported TACs').and(page.locator('input'));
    await tacs.fill('00000g');
    await tacs.press('Enter');
    await page.getByRole('button', { name: 'Save tracking areas' }).click();
    await page.getByText(/^supportedTacs/).waitFor();
    await tacs.press('Backspace');
    await tacs.fill('000002');
    await tacs.press('Enter');
    await page.getByRole('button', { name: 'Save tracking areas' }).click();
    await page.getByText('Tracking areas saved.').waitFor();

    await page.getByRole('button', { name: 'Prefer NEA1', exact: true }).click();
    await page.getByRole('button', { name: 'Save NAS security' }).click();
    await page.getByText('NAS security saved.').waitFor();

    await page.getByLabel('Key ID').fill('7');
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.getByRole('button', { name: 'Delete home network key A 7' }).waitFor();
    await h.shot(page, 'operator');

    const token = await h.tokenOf(ADMIN);
    const operator = await h.service.request({ method: 'GET', url: '/api/v1/operator', token });
    assert.deepEqual(
      operator.json<{ result: { tracking: { supportedTacs: string[] } } }>().result.tracking.supportedTacs,
      ['000001', '000002'],
    );
    const nas = await h.service.request({ method: 'GET', url: '/api/v1/operator/nas-security', token });
    const ciphering = nas.json<{ result: { ciphering: string[] } }>().result.ciphering;
    const before = ciphering.indexOf('NEA1');
    assert.ok(before >= 0);

    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete home network key A 7' }).click();
    await page.getByRole('button', { name: 'Delete home network key A 7' }).waitFor({ state: 'detached' });
    await page.context().close();
  });

  it('imports subscribers (refused rows listed, then all created), changes a profile, deletes from the detail', async () => {
    const token = await h.tokenOf(ADMIN);
    const silver = await h.service.request({
      method: 'POST',
      url: '/api/v1/profiles',
      token,
      payload: {
        name: 'silver',
        'ue-ip-pool': '10.47.0.0/16',
        dns: '1.1.1.1',
        mtu: 1400,
        'bitrate-uplink': '10 Mbps',
        'bitrate-downlink': '10 Mbps',
        var5qi: 9,
        'priority-level': 90,
      },
    });
    assert.equal(silver.statusCode, 201);
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await open(page, 'Subscribers');
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog');
    const header = 'imsi,key,sequenceNumber,profile_name';
    const row = (imsi: string, profile = 'default') =>
      `${imsi},465b5ce8b199b49faa5f0a2ee238a6bc,000000000001,${profile}`;
    await dialog
      .getByLabel('Or paste')
      .fill(
        [header, row('001010000000011'), row('001010000000012', 'nope'), row('0010100000000')].join('\n'),
      );
    await dialog.getByRole('button', { name: 'Import' }).click();
    const refused = dialog.getByRole('list', { name: 'Rows refused' });
    await refused.getByText(/^Row 2: profile_name/).waitFor();
    await refused.getByText(/^Row 3: /).waitFor();
    assert.equal(await refused.getByRole('listitem').count(), 2);
    await h.shot(page, 'subscriber-import');
    await dialog
      .getByLabel('Or paste')
      .fill([header, row('001010000000011'), row('001010000000012')].join('\n'));
    await dialog.getByRole('button', { name: 'Import' }).click();
    await dialog.getByText('Imported', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await page.getByRole('link', { name: '001010000000012' }).click();

    await page.getByRole('heading', { name: 'Subscriber 001010000000012' }).waitFor();
    await choose(page, 'Profile', 'silver');
    await page.getByRole('button', { name: 'Change profile' }).click();
    await page.getByText('Profile changed.').waitFor();
    const read = await h.service.request({
      method: 'GET',
      url: '/api/v1/subscribers/001010000000012',
      token,
    });
    assert.equal(read.json<{ result: { profile_name: string } }>().result.profile_name, 'silver');

    await page.getByLabel(/^MSISDN/).fill('+4930123456');
    await page.getByRole('button', { name: 'Save MSISDN' }).click();
    await page.getByText('MSISDN saved.').waitFor();
    const numbered = await h.service.request({
      method: 'GET',
      url: '/api/v1/subscribers/001010000000012',
      token,
    });
    const saved = numbered.json<{ result: { profile_name: string; msisdn: string | null } }>().result;
    assert.deepEqual([saved.profile_name, saved.msisdn], ['silver', '4930123456']);
    await page.getByLabel(/^MSISDN/).fill('');
    await page.getByRole('button', { name: 'Save MSISDN' }).click();
    await page.getByText('MSISDN removed.').waitFor();

    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete subscriber' }).click();
    await page.getByRole('heading', { name: 'Subscribers', level: 1 }).waitFor();
    await page.getByRole('link', { name: '001010000000011' }).waitFor();
    assert.equal(await page.getByRole('link', { name: '001010000000012' }).count(), 0);
    await page.context().close();
  });

  it('offers the read-only role no write action on these pages', async () => {
    const page = await h.newPage();
    await h.signIn(page, READER);
    for (const name of ['Profiles', 'Policies', 'Slices', 'Data networks']) {
      await open(page, name);
      await page.getByRole('table').waitFor();
      assert.equal(await page.getByRole('button', { name: /^(New|Edit|Delete) / }).count(), 0, name);
    }
    await open(page, 'Subscribers');
    await page.getByRole('link', { name: '001010000000011' }).click();
    await page.getByRole('heading', { name: 'Subscriber 001010000000011' }).waitFor();
    for (const name of ['Delete subscriber', 'Change profile', 'Save MSISDN', 'Reveal credentials']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    await open(page, 'Operator');
    await page.getByRole('heading', { name: 'NAS security' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^(Save|Set|Add|Delete|Prefer)/ }).count(), 0);
    assert.equal(await page.getByLabel('New OP').count(), 0);
    await page.context().close();
  });

  it('logged no console errors on any page', () => {
    assert.deepEqual(h.consoleErrors, []);
  });
});
