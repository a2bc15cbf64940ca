import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { downlinkNasTransport } from '../../src/network/amf/n2/ue-ngap-messages.ts';
import { encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import { uplinkNasTransport } from '../../src/simulator/ue/ran-ue-messages.ts';
import { imsi, newSubscriber } from '../helpers/network.ts';
import { at, flowReport, radioEvent, radioLog, subscriberLog } from '../helpers/records.ts';
import type { Locator, Page } from 'playwright-core';
import { seriousViolations } from './web-ui-axe.ts';
import { ADMIN, startHarness, type Harness } from './web-ui-harness.ts';

// Following one device and the network as it happens, in Chromium against the real service: the
// subscriber's timeline, the radio events' capture download, and the live stream feeding the lists.
const IMSI = imsi(1);
const CELL = { plmn: { mcc: '001', mnc: '01' }, nrCellIdentity: 1, tac: 1 };
const IDS = { amfUeNgapId: 7, ranUeNgapId: 3 };
// Plain 5GMM messages (TS 24.501 8.2): Authentication Failure #20 (MAC failure), Authentication Reject.
const AUTH_FAILURE = Buffer.from('7e005914', 'hex');
const AUTH_REJECT = Buffer.from('7e0058', 'hex');
// A Profile A SUCI of home network 001-01 under home network key 2, which the core does not hold.
const UNREADABLE_SUCI = `suci-0-001-01-0000-1-2-${'ab'.repeat(32)}${'cd'.repeat(5)}${'ef'.repeat(8)}`;

describe('web UI timeline, capture and live stream in a browser', { timeout: 120_000 }, () => {
  let h: Harness;
  let token: string;

  before(async () => {
    h = await startHarness();
    const init = await h.service.request({ method: 'POST', url: '/api/v1/init', payload: ADMIN });
    assert.equal(init.statusCode, 201);
    token = await h.tokenOf(ADMIN);
    const subscriber = await h.service.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: newSubscriber(1),
    });
    assert.equal(subscriber.statusCode, 201);
    // A failed authentication: the NAS messages and the NGAP messages that carried them.
    const records = h.service.records;
    const details = { radio: 'gnb-1', ran_ue_ngap_id: IDS.ranUeNgapId, amf_ue_ngap_id: IDS.amfUeNgapId };
    records.recordRadioEvent({
      protocol: 'NGAP',
      messageType: 'UplinkNASTransport',
      direction: 'inbound',
      raw: Buffer.from(encodeNgapPdu(uplinkNasTransport(IDS, AUTH_FAILURE, CELL))),
      details,
      timestamp: at('2026-11-22T10:00:00.000Z'),
    });
    records.recordSubscriberLog(
      subscriberLog({
        imsi: IMSI,
        level: 'warn',
        event: 'Authentication Failure',
        direction: 'inbound',
        raw: AUTH_FAILURE,
        details: { radio: 'gnb-1', cause: 'MAC failure (20)' },
        timestamp: at('2026-11-22T10:00:00.000Z'),
      }),
    );
    records.recordSubscriberLog(
      subscriberLog({
        imsi: IMSI,
        level: 'warn',
        event: 'Authentication Reject',
        direction: 'outbound',
        raw: AUTH_REJECT,
        details: { radio: 'gnb-1' },
        timestamp: at('2026-11-22T10:00:00.010Z'),
      }),
    );
    records.recordRadioEvent({
      protocol: 'NGAP',
      messageType: 'DownlinkNASTransport',
      direction: 'outbound',
      raw: Buffer.from(encodeNgapPdu(downlinkNasTransport(IDS, AUTH_REJECT))),
      details,
      timestamp: at('2026-11-22T10:00:00.010Z'),
    });
    // The UPF's side: a flow report of the device's traffic.
    records.recordFlowReports([flowReport({ subscriberId: IMSI, endTime: at('2026-11-22T10:00:00.020Z') })]);
    // A session, as the SMF tells it (recorded at the service's clock: the newest step).
    h.service.network.sessionEstablished(IMSI, {
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
    await records.flush();
  });
  after(async () => {
    await h?.close();
    assert.deepEqual(h?.consoleErrors ?? [], []);
  });

  it("shows a subscriber's timeline as a sequence, its failure explained, each NGAP step opening its event", async () => {
    // Without motion, as the axe scan of every page: states are scanned as they stay.
    const page = await h.newPage(1280, { reducedMotion: 'reduce' });
    await h.signIn(page, ADMIN);
    await page.goto(`${h.base}/subscribers/${IMSI}`);
    const timeline = page.getByRole('table', { name: `Timeline of ${IMSI}` });
    await timeline.waitFor();
    for (const lane of ['UE', 'gNB', 'AMF/SMF', 'UPF']) {
      await timeline.getByRole('columnheader', { name: lane, exact: true }).waitFor();
    }
    const rows = timeline.getByRole('row');
    // The header and seven steps, newest first: the session, the flow, the reject's state change, the
    // four messages.
    assert.equal(await rows.count(), 8);
    // Each kind on its lanes: the session between the AMF/SMF and the UPF, the flow on the UPF's.
    const session = rows.filter({ hasText: '(SESSION, SMF to UPF)' });
    await session
      .getByText(/^PDU session established/)
      .first()
      .waitFor();
    await session.getByText(/DNN internet, S-NSSAI 1, IPv4 10\.45\.0\.2/).waitFor();
    const flow = rows.filter({ hasText: '(UPF, UPF)' });
    await flow.getByText(/uplink TCP 10\.45\.0\.2:40000 -> 142\.250\.1\.1:443/).waitFor();
    const rejected = rows.filter({ hasText: '(STATE, AMF)' });
    await rejected.getByText('Rejected: Authentication Reject').waitFor();
    // Cells before and after a step keep the lanes: a session leaves the UE's and the gNB's empty.
    const cells = [];
    for (const cell of await session.getByRole('cell').all())
      cells.push([(await cell.getAttribute('colspan')) ?? '1', (await cell.textContent()) === '']);
    assert.deepEqual(cells, [
      ['1', false],
      ['1', true],
      ['1', true],
      ['2', false],
      ['1', false],
      ['1', false],
    ]);
    await session.getByRole('button', { name: /^Details of PDU session established / }).click();
    const details = page.getByRole('dialog', { name: /^PDU session established · / });
    await details.getByRole('list', { name: 'details' }).getByText('internet').first().waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'detached' });
    // Inbound: towards the core, from the UE to the AMF; warned; explained in words.
    const failure = rows.filter({ has: page.getByText('Authentication Failure →') });
    await failure.getByText('UE to AMF/SMF').waitFor();
    await failure.getByText('2026-11-22 10:00:00.000 UTC').waitFor();
    await failure.getByText('warn', { exact: true }).waitFor();
    await failure.getByText(/K and OPc/).waitFor();
    await timeline.getByText('← Authentication Reject').waitFor();
    await failure.getByRole('link', { name: /^Subscriber log / }).waitFor();
    await h.shot(page, 'subscriber-timeline');
    const downlink = rows.filter({ has: page.getByText('← DownlinkNASTransport') });
    await downlink.getByText('AMF to gNB').waitFor();
    await downlink.getByRole('button', { name: /^Open radio event / }).click();
    const dialog = page.getByRole('dialog', { name: /^DownlinkNASTransport to gnb-1 · 2026-11-22/ });
    await dialog.getByRole('list', { name: 'decoded' }).waitFor();
    await dialog.getByLabel('Raw message as hex').waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.deepEqual(await seriousViolations(page), []);
    await page.emulateMedia({ colorScheme: 'dark' });
    // Mantine follows the system's scheme from a script: scanned once it has switched.
    // Polled from here: waitForFunction's string predicate is an eval the page's policy refuses.
    for (let tries = 0; ; tries++) {
      if ((await page.evaluate('document.documentElement.dataset.mantineColorScheme')) === 'dark') break;
      assert.ok(tries < 200, 'the page never switched to the dark scheme');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.deepEqual(await seriousViolations(page), []);
    await page.context().close();
  });

  it('downloads the radio events the filters select as a capture, and says why one is refused', async () => {
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await page.getByRole('navigation').getByRole('link', { name: 'Radio events', exact: true }).click();
    await page.getByRole('cell', { name: 'DownlinkNASTransport' }).waitFor();
    await page.getByRole('combobox', { name: 'Message type' }).fill('UplinkNASTransport');
    await page.getByRole('cell', { name: 'DownlinkNASTransport' }).waitFor({ state: 'detached' });
    const [request, saved] = await Promise.all([
      page.waitForRequest(/\/api\/v1\/ran\/events\/export\.pcapng/),
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download capture' }).click(),
    ]);
    assert.equal(new URL(request.url()).searchParams.get('message_type'), 'UplinkNASTransport');
    assert.equal(saved.suggestedFilename(), 'radio-events.pcapng');
    const file = await readFile(await saved.path());
    // A pcapng Section Header Block (0x0A0D0D0A), then the interface and one packet: the uplink only.
    assert.equal(file.readUInt32LE(0), 0x0a0d0d0a);
    const blocks: number[] = [];
    for (let at = 0; at < file.length; at += file.readUInt32LE(at + 4)) blocks.push(file.readUInt32LE(at));
    assert.deepEqual(blocks, [0x0a0d0d0a, 1, 6]);

    // The export carries NGAP only: another protocol is refused, and the page says so in words.
    await page.getByRole('combobox', { name: 'Protocol' }).fill('RRC');
    await page.getByRole('button', { name: 'Download capture' }).click();
    await page.getByRole('alert').filter({ hasText: 'protocol must be NGAP' }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await page.context().close();
  });

  /** Clicks "Download capture" on the page: the export's query and the pcapng file's block types. */
  async function capture(page: Page): Promise<{ query: URLSearchParams; name: string; blocks: number[] }> {
    const [request, saved] = await Promise.all([
      page.waitForRequest(/\/api\/v1\/ran\/events\/export\.pcapng/),
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download capture' }).click(),
    ]);
    const file = await readFile(await saved.path());
    const blocks: number[] = [];
    for (let at = 0; at < file.length; at += file.readUInt32LE(at + 4)) blocks.push(file.readUInt32LE(at));
    return { query: new URL(request.url()).searchParams, name: saved.suggestedFilename(), blocks };
  }

  it("downloads one subscriber's and one radio's capture from their pages, and lists a radio's events", async () => {
    // The subscriber's one message whose details name it (the AMF knew its SUPI), and another radio's.
    h.service.records.recordRadioEvent({
      protocol: 'NGAP',
      messageType: 'DownlinkNASTransport',
      direction: 'outbound',
      raw: Buffer.from(encodeNgapPdu(downlinkNasTransport(IDS, AUTH_REJECT))),
      details: {
        radio: 'gnb-1',
        ran_ue_ngap_id: IDS.ranUeNgapId,
        amf_ue_ngap_id: IDS.amfUeNgapId,
        imsi: IMSI,
      },
      timestamp: at('2026-11-22T10:00:01.000Z'),
    });
    h.service.records.recordRadioEvent(
      radioEvent({ messageType: 'AMFStatusIndication', details: { radio: 'gnb-2' } }),
    );
    await h.service.records.flush();
    h.service.network.radioConnected({
      id: '001:01:000001',
      name: 'gnb-1',
      address: '10.0.0.5:38412',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
    const page = await h.newPage();
    await h.signIn(page, ADMIN);
    await page.goto(`${h.base}/subscribers/${IMSI}`);
    const mine = await capture(page);
    assert.deepEqual([...mine.query], [['imsi', IMSI]]);
    assert.equal(mine.name, `radio-events-${IMSI}.pcapng`);
    assert.deepEqual(mine.blocks, [0x0a0d0d0a, 1, 6], 'a section, the interface and its one packet');
    assert.deepEqual(await seriousViolations(page), []);
    // Its radio events listed from its page: the IMSI filter set, the one event naming it.
    const listed = page.waitForResponse((answer) => {
      const url = new URL(answer.url());
      return url.pathname === '/api/v1/ran/events' && url.searchParams.get('imsi') === IMSI;
    });
    await page.getByRole('link', { name: 'Its radio events' }).click();
    await page
      .getByRole('combobox', { name: 'IMSI' })
      .and(page.locator(`[value="${IMSI}"]`))
      .waitFor();
    const answer = (await (await listed).json()) as { result: { total_count: number } };
    assert.equal(answer.result.total_count, 1);
    await page.getByRole('cell', { name: 'DownlinkNASTransport' }).waitFor();
    assert.equal(await page.getByRole('cell', { name: 'UplinkNASTransport' }).count(), 0);

    await page.goto(`${h.base}/radios/gnb-1`);
    const radio = await capture(page);
    assert.deepEqual([...radio.query], [['radio', 'gnb-1']]);
    assert.equal(radio.name, 'radio-events-gnb-1.pcapng');
    // The before hook's two NGAP messages of gnb-1 and the one above; not gnb-2's.
    assert.deepEqual(radio.blocks, [0x0a0d0d0a, 1, 6, 6, 6]);
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByRole('link', { name: 'Its radio events' }).click();
    await page.getByRole('combobox', { name: 'Radio' }).and(page.locator('[value="gnb-1"]')).waitFor();
    await page.getByRole('cell', { name: 'DownlinkNASTransport' }).first().waitFor();
    assert.equal(await page.getByRole('cell', { name: 'AMFStatusIndication' }).count(), 0);
    await page.context().close();
  });

  /**
   * A record written, and the list's request its event on the stream makes the page send, answered to
   * the end: the stream carries each record once written (docs/api.md, "The live event stream").
   */
  async function reloadOnRecord(page: Page, list: RegExp, record: () => void): Promise<void> {
    const reload = page.waitForResponse(list);
    record();
    await h.service.records.flush();
    await (await reload).finished();
  }

  /**
   * Waits for a cell while moving the paused clock a little at a time (the query cache tells the page of
   * new data on a timer), 2.5 s of the page's time at most: far from the 10 s polling.
   */
  async function shows(page: Page, cell: Locator): Promise<void> {
    for (let step = 0; step < 5; step++) {
      await page.clock.runFor(500);
      if (
        await cell.waitFor({ timeout: 2_000 }).then(
          () => true,
          () => false,
        )
      )
        return;
    }
    assert.fail('the reloaded list does not show the new record');
  }

  it('reloads the recent warnings, radio events, logs and audit logs as the live stream carries their records, not by polling', async () => {
    const page = await h.newPage();
    // A clock of the test's own, paused once signed in: the 10 s polling never comes by itself.
    await page.clock.install();
    const stream = page.waitForResponse(/\/api\/v1\/events\/stream/);
    await h.signIn(page, ADMIN);
    // The device's failed authentication (before): a subscriber log's warning, with its cause.
    const warnings = page.getByRole('table', { name: 'Recent warnings' });
    await warnings.getByRole('cell', { name: 'Authentication Failure: MAC failure (20)' }).waitFor();
    await warnings
      .getByRole('cell', { name: `${IMSI} on gnb-1` })
      .first()
      .waitFor();
    assert.equal((await stream).status(), 200);
    // Time stops here: from now on it moves only when the test moves it.
    await page.clock.pauseAt(Date.now() + 2_000);
    // A record on the stream: its list reloads (the clock stands still, so no polling does it).
    await reloadOnRecord(page, /\/api\/v1\/logs\/radio\?/, () =>
      h.service.records.recordRadioLog(radioLog({ level: 'warn', event: 'NG Setup refused' })),
    );
    await shows(page, page.getByRole('cell', { name: 'NG Setup refused' }));
    // A device of no subscriber refused (its SUCI under a key this core lacks): logged with no IMSI,
    // warned under what the core knows of it.
    await reloadOnRecord(page, /\/api\/v1\/logs\/subscribers\?/, () =>
      h.service.records.recordSubscriberLog(
        subscriberLog({
          imsi: '',
          level: 'warn',
          event: 'Registration Reject',
          direction: 'outbound',
          raw: Buffer.from('7e004407', 'hex'),
          details: { radio: 'gnb-1', suci: UNREADABLE_SUCI, cause: '5GS services not allowed (7)' },
        }),
      ),
    );
    await shows(
      page,
      warnings.getByRole('cell', { name: 'SUCI of home network 001-01, Profile A, key 2 on gnb-1' }),
    );
    // Explained in plain words: which key the SUCI names, and that this core has none of Profile A.
    await warnings
      .getByRole('cell', { name: 'Registration Reject: 5GS services not allowed (7)' })
      .getByText(/^The SUCI names home network key 2 \(Profile A\); this core has no Profile A key, so/)
      .waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Radio events', exact: true }).click();
    await shows(page, page.getByRole('cell', { name: 'DownlinkNASTransport' }).first());
    await reloadOnRecord(page, /\/api\/v1\/ran\/events\?/, () =>
      h.service.records.recordRadioEvent(radioEvent({ messageType: 'NGReset' })),
    );
    await shows(page, page.getByRole('cell', { name: 'NGReset', exact: true }));

    await page.getByRole('navigation').getByRole('link', { name: 'Subscriber logs', exact: true }).click();
    await shows(page, page.getByRole('cell', { name: 'Authentication Reject' }).first());
    // The device of no subscriber is named there too by what the core knows of it.
    await page
      .getByRole('cell', { name: 'SUCI of home network 001-01, Profile A, key 2', exact: true })
      .waitFor();
    await reloadOnRecord(page, /\/api\/v1\/logs\/subscribers\?/, () =>
      h.service.records.recordSubscriberLog(subscriberLog({ imsi: IMSI, event: 'Service Request' })),
    );
    await shows(page, page.getByRole('cell', { name: 'Service Request', exact: true }));

    await page.getByRole('navigation').getByRole('link', { name: 'Radio logs', exact: true }).click();
    await shows(page, page.getByRole('cell', { name: 'NG Setup refused' }));
    await reloadOnRecord(page, /\/api\/v1\/logs\/radio\?/, () =>
      h.service.records.recordRadioLog(radioLog({ event: 'NG Reset' })),
    );
    await shows(page, page.getByRole('cell', { name: 'NG Reset', exact: true }));

    // The audit log: an entry written by a change reloads the admin's list from the stream's `audit`.
    await page.getByRole('navigation').getByRole('link', { name: 'Audit logs', exact: true }).click();
    await shows(page, page.getByRole('cell', { name: 'login', exact: true }).first());
    const reload = page.waitForResponse(/\/api\/v1\/logs\/audit\?/);
    const made = await h.service.request({
      method: 'POST',
      url: '/api/v1/users/me/api-tokens',
      token,
      payload: { name: 'audit-live' },
    });
    assert.equal(made.statusCode, 201, made.body);
    await (await reload).finished();
    await shows(page, page.getByRole('cell', { name: /API token "audit-live"/ }));
    await page.context().close();
  });
  it("adds a subscriber's new signalling to its timeline as the live stream carries it, not by polling", async () => {
    const page = await h.newPage();
    await page.clock.install();
    await h.signIn(page, ADMIN);
    const stream = page.waitForResponse(/\/api\/v1\/events\/stream/);
    await page.goto(`${h.base}/subscribers/${IMSI}`);
    assert.equal((await stream).status(), 200);
    const timeline = page.getByRole('table', { name: `Timeline of ${IMSI}` });
    await timeline.getByText('← Authentication Reject').waitFor();
    // The 10 s refresh never comes by itself from here: only the stream can reload the timeline.
    await page.clock.pauseAt(Date.now() + 2_000);
    await reloadOnRecord(page, new RegExp(`/api/v1/subscribers/${IMSI}/timeline\\?`), () =>
      h.service.records.recordSubscriberLog(
        subscriberLog({ imsi: IMSI, event: 'Deregistration Request', direction: 'inbound' }),
      ),
    );
    await shows(page, timeline.getByText('Deregistration Request →'));
    await page.context().close();
  });
});
