// The agentic mode (issue 27 §4), end to end in headless Chromium (node --test; see browser.mjs).
//
//   link        an agentic share link opens without an "ignored" notice, shows the agents panel's
//               numbers (agents per GPU and per MW, hit rate reached, $/M cached input) with their
//               assumptions and chart, and the page's URL keeps every agentic key
//   mode        choosing "Agentic coding" in the panel's mode select puts the session keys in the
//               URL; "Off" takes them out
//   leaderboard the leaderboard panel ranks by agents per MW at the agentic tier
//   report      the downloaded report carries the agentic section, on three A4 pages at most
//   embed       ?embed=1 with the agentic workload shows agents per GPU and per MW and $/M at the
//               tier with the conditions line
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openSite, READY_TIMEOUT_MS } from './browser.mjs';

const STEP_TIMEOUT_MS = 15_000;
const LINK = '?v=2&model=llama-3.1-8b&gpu=h100-sxm&gpus=1&workload=agentic-coding&concurrency=32&tok-s-per-user=30&fleet-agents=500&interactivity-percentile=p90';

let site;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

async function open(t, query, viewport = { width: 1280, height: 900 }) {
  const context = await site.browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const log = { pageErrors: [], consoleErrors: [] };
  page.on('pageerror', (err) => log.pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') log.consoleErrors.push(msg.text());
  });
  t.after(() => context.close());
  const response = await page.goto(site.baseUrl + query, { waitUntil: 'load' });
  assert.equal(response?.status(), 200);
  await page.waitForFunction(() => Number(window.__servecostDraws) >= 1, null, { timeout: READY_TIMEOUT_MS, polling: 20 });
  return { page, log };
}

async function toolsReady(page) {
  await page.waitForFunction(() => performance.getEntriesByName('servecost:tools-ready').length > 0, null, { timeout: READY_TIMEOUT_MS, polling: 20 });
}

test('link: an agentic share link reopens the agentic view without an ignored notice', async (t) => {
  const { page, log } = await open(t, LINK);
  await toolsReady(page);
  const notice = await page.locator('#url-notice').count() ? (await page.locator('#url-notice').textContent()) : '';
  assert.ok(!/ignored/i.test(notice), `no ignored notice: ${notice}`);
  await page.locator('#agents-headline').waitFor({ timeout: STEP_TIMEOUT_MS });
  assert.equal(await page.locator('#agent-mode').inputValue(), 'agentic-coding');
  const headline = await page.locator('#agents-headline').textContent();
  assert.match(headline, /per GPU/);
  assert.match(headline, /P90/);
  for (const row of ['agents-per-gpu', 'agents-per-mw', 'agents-hit-rate', 'agents-joules']) {
    const cells = await page.locator(`#${row} td`).allTextContents();
    assert.ok(cells.length >= 2 && /\d/.test(cells[1]), `${row}: ${cells}`);
  }
  assert.match(await page.locator('#agents-usd-per-m-cached-input td').textContent(), /\$/);
  assert.match(await page.locator('#agents-fleet').textContent(), /500 agents/);
  const assumptions = await page.locator('.agents-assumptions').innerText();
  for (const part of ['Session shape', 'Prefix-cache hit rate reached', 'Power basis', 'API prices']) {
    assert.ok(assumptions.includes(part), part);
  }
  assert.ok(await page.locator('#agent-chart').isVisible(), 'the chart is drawn');
  // The explorer's own URL (written after a pause) keeps every agentic key.
  await page.waitForFunction(() => /session-turns=20/.test(location.search) && /fleet-agents=500/.test(location.search), null, { timeout: STEP_TIMEOUT_MS, polling: 50 });
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(log.consoleErrors, []);
});

test('mode: the panel enters and leaves agentic mode, and the URL follows', async (t) => {
  const { page, log } = await open(t, '?v=2&model=llama-3.1-8b&gpu=h100-sxm&gpus=1');
  await toolsReady(page);
  await page.locator('#agent-mode').selectOption('agentic-coding');
  await page.locator('#agents-headline').waitFor({ timeout: STEP_TIMEOUT_MS });
  await page.waitForFunction(() => /session-turns=20/.test(location.search), null, { timeout: STEP_TIMEOUT_MS, polling: 50 });
  // A session field edited in the panel travels too.
  await page.locator('#session-tool-s').fill('5');
  await page.waitForFunction(() => /session-tool-s=5/.test(location.search), null, { timeout: STEP_TIMEOUT_MS, polling: 50 });
  await page.locator('#agent-mode').selectOption('off');
  await page.waitForFunction(() => !/session-turns/.test(location.search), null, { timeout: STEP_TIMEOUT_MS, polling: 50 });
  assert.equal(await page.locator('#agents-headline').count(), 0);
  assert.deepEqual(log.pageErrors, []);
});

test('leaderboard: the panel ranks GPUs by agents per MW at the agentic tier', async (t) => {
  const { page, log } = await open(t, `${LINK}&gpus-allowed=h100-sxm,l40s`);
  await toolsReady(page);
  await page.locator('#leaderboard-target').scrollIntoViewIfNeeded();
  await page.locator('#leaderboard-target').selectOption('agents-per-mw');
  await page.locator('#agent-leaderboard').waitFor({ timeout: 60_000 });
  const rows = await page.locator('#agent-leaderboard tbody tr').count();
  assert.ok(rows >= 1, `${rows} rows`);
  assert.match(await page.locator('#leaderboard-status').textContent(), /ranked by agents per MW/);
  assert.deepEqual(log.pageErrors, []);
});

test('report: the downloaded report carries the agentic section on three A4 pages at most', async (t) => {
  const { page, log } = await open(t, LINK);
  await toolsReady(page);
  const [file] = await Promise.all([
    page.waitForEvent('download', { timeout: 60_000 }),
    page.locator('#download-report').click(),
  ]);
  const html = fs.readFileSync(await file.path(), 'utf8');
  assert.ok(html.includes('Agents at the tier'), 'the agentic section');
  assert.ok(html.includes('Prefix-cache hit rate reached'));
  const reader = await page.context().newPage();
  await reader.setContent(html, { waitUntil: 'load' });
  const pdf = await reader.pdf({ format: 'A4' });
  const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;
  console.log(`agentic report: ${html.length} B, ${pages} A4 pages`);
  assert.ok(pages >= 1 && pages <= 3, `${pages} A4 pages`);
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(log.consoleErrors.filter((e) => /Content Security Policy/i.test(e)), []);
});

test('embed: the widget with the agentic workload shows agents per GPU and MW and $/M at the tier', async (t) => {
  const { page, log } = await open(t, `${LINK}&embed=1`, { width: 600, height: 400 });
  await page.locator('#embed-agents').waitFor({ timeout: READY_TIMEOUT_MS });
  const text = await page.locator('#embed-agents').innerText();
  assert.match(text, /agents per GPU/i);
  assert.match(text, /per MW/i);
  assert.match(text, /\$[\d.]+\/M/);
  assert.match(text, /Tier: TTFT/);
  assert.ok(await page.locator('#embed-conditions').isVisible());
  assert.equal(await page.locator('#url-notice').count() ? /ignored/.test(await page.locator('#url-notice').textContent()) : false, false);
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(log.consoleErrors, []);
});
