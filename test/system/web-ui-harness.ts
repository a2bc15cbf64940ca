import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { WEB_UI_DIRECTORY } from '../../src/http/web-ui.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// What the browser tests of the web UI share: the whole service in the test process (an in-memory database
// unless a file is named) serving the built application in dist/ui (`npm run build:ui`), Debian's Chromium driven by
// playwright-core, console errors collected, and screenshots when UI_SCREENSHOTS names a directory.
const CHROMIUM = '/usr/bin/chromium';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password' };

export interface Harness {
  service: TestApp;
  browser: Browser;
  base: string;
  consoleErrors: string[];
  /** A page in a context of its own; `options` add to the context's (a time zone, a colour scheme). */
  newPage(width?: number, options?: BrowserContextOptions): Promise<Page>;
  shot(page: Page, name: string): Promise<void>;
  signIn(page: Page, user: { email: string; password: string }): Promise<void>;
  /** A bearer token of the user, from the API. */
  tokenOf(user: { email: string; password: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(
  options: {
    database?: string;
    /** Sign-ins a minute per address and e-mail (a file that signs in often raises it). */
    loginRateLimit?: number;
  } = {},
): Promise<Harness> {
  assert.ok(existsSync(join(WEB_UI_DIRECTORY, 'index.html')), 'dist/ui is not built: run npm run build:ui');
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  const screenshots = process.env.UI_SCREENSHOTS;
  if (screenshots) mkdirSync(screenshots, { recursive: true });
  const service = await createTestApp({ database: options.database, loginRateLimit: options.loginRateLimit });
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  // Playwright gives each launch a new empty profile of its own.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const consoleErrors: string[] = [];
  return {
    service,
    browser,
    base,
    consoleErrors,
    async newPage(width = 1280, options = {}) {
      const context = await browser.newContext({
        viewport: { width, height: 800 },
        acceptDownloads: true,
        ...options,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      page.on('console', (message) => {
        // Chromium logs every 4xx answer (the refresh without a session, a refused field); the tests
        // check the page says what they mean. Script errors and 5xx answers count. So does every failed
        // request but one: other tests add and remove interfaces on this host (TUN devices, veths), and
        // Chromium fails a request in flight when the host's addresses change (net::ERR_NETWORK_CHANGED),
        // an event of the test machine; a page it broke fails its own test's assertions.
        const clientError = /^Failed to load resource: the server responded with a status of 4\d\d/;
        const networkChanged = /net::ERR_NETWORK_CHANGED/;
        const text = message.text();
        if (message.type() === 'error' && !clientError.test(text) && !networkChanged.test(text)) {
          consoleErrors.push(`${page.url()}: ${text}`);
        }
      });
      page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
      return page;
    },
    async shot(page, name) {
      if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
    },
    async signIn(page, user) {
      await page.goto(base);
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel(/^Password/).fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    },
    async tokenOf(user) {
      const login = await service.request({ method: 'POST', url: '/api/v1/auth/login', payload: user });
      return login.json<{ result: { token: string } }>().result.token;
    },
    async close() {
      await browser.close();
      await service.close();
    },
  };
}
