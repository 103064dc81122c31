// Shared set-up for the browser tests and the benchmark that are not app.test.mjs: the system
// Chromium with the flags this machine needs, the built site served on a free 127.0.0.1 port
// (or BASE_URL), and a page opened and waited on until the app has drawn its chart.
//
//   const site = await openSite();              // { baseUrl, browser, close() }
//   const { page, context, log } = await openPage(site.browser, url, { colorScheme: 'dark' });
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-dev-shm-usage',
];
export const READY_TIMEOUT_MS = 20_000;

/** Serves E2E_DIST (or ../../dist), unless BASE_URL names a running server, and starts Chromium. */
export async function openSite({ root } = {}) {
  let server = null;
  let baseUrl = process.env.BASE_URL;
  if (!baseUrl) {
    const dir = root || process.env.E2E_DIST;
    server = await startServer(dir ? { root: dir } : {});
    baseUrl = server.url;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  return {
    baseUrl,
    browser,
    close: async () => {
      await browser.close();
      await server?.close();
    },
  };
}

/**
 * Opens `url` in a fresh context (options: viewport, colorScheme, reducedMotion, ... and
 * `initScript`, a function run in the page before any of its own scripts) and waits until the app
 * has drawn its chart (`window.__servecostDraws >= 1`) and, on the explorer, mounted its second module
 * (`servecost:tools-ready`; `waitForTools: false` skips that). `waitForApp: false` waits for
 * neither: a page that is not the app (the bench's blank page). `log` collects page errors,
 * console errors, dialogs and every request URL.
 */
export async function openPage(browser, url, options = {}) {
  const { initScript, waitForTools, waitForApp, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  const log = { pageErrors: [], consoleErrors: [], requests: [], dialogs: [] };
  page.on('pageerror', (err) => log.pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') log.consoleErrors.push(msg.text());
  });
  page.on('request', (req) => log.requests.push(req.url()));
  page.on('dialog', (dialog) => {
    log.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  const response = await page.goto(url, { waitUntil: 'load' });
  if (!response || response.status() !== 200) {
    await context.close();
    throw new Error(`GET ${url} -> ${response ? response.status() : 'no response'}`);
  }
  if (waitForApp === false) return { context, page, log };
  try {
    await page.waitForFunction(() => Number(window.__servecostDraws) >= 1, null, {
      timeout: READY_TIMEOUT_MS,
      polling: 20,
    });
  } catch (err) {
    await context.close();
    throw new Error(`${url}: the app did not draw its chart (${err}); page errors: ${JSON.stringify(log.pageErrors)}`);
  }
  if (options.waitForTools !== false) {
    // The explorer imports its second module (simulator, decision and glossary panels) after the
    // first chart; wait for it to mount, except in the embed widget, which never loads it.
    try {
      await page.waitForFunction(
        () => document.documentElement.classList.contains('embed-mode') ||
          !document.getElementById('tools') ||
          performance.getEntriesByName('servecost:tools-ready').length > 0,
        null,
        { timeout: READY_TIMEOUT_MS, polling: 20 },
      );
    } catch (err) {
      await context.close();
      throw new Error(`${url}: the tools module did not mount (${err}); page errors: ${JSON.stringify(log.pageErrors)}`);
    }
  }
  return { context, page, log };
}
