// Share, embed and export, end to end in headless Chromium (node --test; see browser.mjs).
//
//   link        a scenario set through the controls lands in the URL (debounced); opening that URL
//               in a fresh browser shows the same numbers; without a query the last scenario comes
//               back from localStorage; corrupt storage is ignored
//   hostile     a hostile or oversized link never crashes: defaults, a #url-notice naming what was
//               ignored, no page error, nothing injected
//   embed       /examples/glossary.html embeds the widget twice: both draw, a slider inside an
//               iframe moves its $/M, each iframe is sized from its height message; the widget
//               sends only height messages and installs no message listener; it fits 600×400 and
//               375 px; prints first-load transfer size and time to chart inside the iframe
//   hosting     the site served under /tools/servecost/ loads explorer, tools and embed from there;
//               a missing wasm file is named in the loading message
//   report      Download report: one HTML file with no script or external reference, complete when
//               opened offline, at most three A4 pages
//   export      JSON / CSV / PNG downloads with the right content, import (good and bad), the
//               embed snippet, the print layout; no network request after load (data:/blob: only)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { openSite, READY_TIMEOUT_MS } from './browser.mjs';
import { startServer } from './serve.mjs';

const METRICS = ['output_tok_s', 'output_tok_s_per_gpu', 'tok_s_per_user', 'tpot_ms', 'ttft_ms', 'usd_per_m_output'];
const STEP_TIMEOUT_MS = 5_000;

let site;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

/**
 * A fresh context and page with a log of errors and requests; `ready` marks the moment from which
 * any request other than data:/blob: counts as "after load".
 */
async function newPage(t, options = {}) {
  const { initScript, ...contextOptions } = options;
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, ...contextOptions });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  const log = { pageErrors: [], consoleErrors: [], requests: [], afterReady: [], ready: false };
  page.on('pageerror', (err) => log.pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') log.consoleErrors.push(msg.text());
  });
  page.on('request', (req) => {
    log.requests.push(req.url());
    if (log.ready) log.afterReady.push(req.url());
  });
  t.after(() => context.close());
  return { context, page, log };
}

/** The chart is drawn and, on the explorer, its second module (share bar, simulator, decision and
 * glossary panels, imported after the first chart) has mounted: the page's load is over. */
async function waitForApp(page) {
  await page.waitForFunction(() => Number(window.__servecostDraws) >= 1, null, { timeout: READY_TIMEOUT_MS, polling: 20 });
  await page.waitForFunction(
    () => document.documentElement.classList.contains('embed-mode') ||
      !document.getElementById('tools') ||
      performance.getEntriesByName('servecost:tools-ready').length > 0,
    null,
    { timeout: READY_TIMEOUT_MS, polling: 20 },
  );
}

async function openApp(t, query = '', options = {}) {
  const opened = await newPage(t, options);
  const response = await opened.page.goto(site.baseUrl + query, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, `GET ${query}`);
  await waitForApp(opened.page);
  opened.log.ready = true;
  return opened;
}

async function metrics(scope) {
  const out = {};
  for (const m of METRICS) out[m] = (await scope.locator(`[data-metric="${m}"]`).first().textContent()).trim();
  return out;
}

const external = (urls) => urls.filter((u) => !u.startsWith('data:') && !u.startsWith('blob:'));

/** Waits until `location.search` satisfies every regexp (the URL is written 300 ms after the last change). */
async function waitForSearch(page, patterns) {
  await page.waitForFunction(
    (sources) => sources.every((s) => new RegExp(s).test(location.search)),
    patterns.map((p) => p.source),
    { timeout: STEP_TIMEOUT_MS, polling: 50 },
  );
}

async function waitForChange(scope, sel, before, what) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const now = (await scope.locator(sel).first().textContent()).trim();
    if (now !== before) return now;
    if (Date.now() > deadline) throw new Error(`${sel} stayed ${JSON.stringify(before)} after ${what}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

// ------------------------------------------------------------------------------------------- links

test('link: a scenario set with the controls round-trips through the URL and localStorage', async (t) => {
  const { page, context, log } = await openApp(t);
  const defaults = await metrics(page);
  await page.locator('#model').selectOption('llama-3.1-8b');
  await page.locator('#gpus').fill('2');
  await page.locator('#gpus').blur();
  await page.locator('#batch-size').fill('700');
  await waitForSearch(page, [/[?&]v=2(&|$)/, /model=llama-3\.1-8b/, /gpus=2/, /concurrency=\d+/]);
  const shown = await metrics(page);
  assert.notDeepEqual(shown, defaults, 'the controls changed the numbers');
  const link = page.url();
  console.log(`link: ${link}`);

  // A different browser profile (no storage): the link alone reproduces the view.
  const fresh = await newPage(t);
  await fresh.page.goto(link, { waitUntil: 'load' });
  await waitForApp(fresh.page);
  assert.deepEqual(await metrics(fresh.page), shown, 'same numbers from the link');
  assert.equal(await fresh.page.locator('#model').inputValue(), 'llama-3.1-8b');
  assert.equal(await fresh.page.locator('#gpus').inputValue(), '2');
  assert.equal(await fresh.page.locator('#url-notice').count(), 0, 'a good link shows no notice');
  assert.deepEqual(fresh.log.pageErrors, []);

  // Same profile, no query: the last scenario comes back from localStorage.
  const again = await context.newPage();
  await again.goto(site.baseUrl, { waitUntil: 'load' });
  await waitForApp(again);
  assert.deepEqual(await metrics(again), shown, 'restored from localStorage');
  const stored = await again.evaluate(() => localStorage.getItem('servecost.last.v1'));
  // Stored as the same query a link carries (version first).
  assert.ok(stored.startsWith('v=2'), `stored: ${stored}`);
  assert.equal(new URLSearchParams(stored).get('v'), '2');

  // An explicit link wins over storage; corrupt storage is ignored.
  await again.goto(`${site.baseUrl}?v=2`, { waitUntil: 'load' });
  await waitForApp(again);
  assert.deepEqual(await metrics(again), defaults, '?v=2 is the defaults, whatever is stored');
  await again.evaluate(() => localStorage.setItem('servecost.last.v1', '{"gpus": "lots", '));
  await again.goto(site.baseUrl, { waitUntil: 'load' });
  await waitForApp(again);
  assert.deepEqual(await metrics(again), defaults, 'corrupt storage: defaults');
  assert.deepEqual(log.pageErrors, []);
});

test('link: decision inputs travel, so a reopened link shows the same $/month; Copy link and Reset', async (t) => {
  const { page, context, log } = await openApp(t);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.locator('#slo-ttft-ms').fill('2000');
  await page.locator('#slo-tpot-ms').fill('60');
  await page.locator('#traffic').fill('40');
  await page.locator('#energy').check();
  await waitForSearch(page, [/slo-ttft-ms=2000/, /slo-tpot-ms=60/, /traffic=40/, /energy=on/]);
  const monthly = (await page.locator('[data-metric="usd_per_month"]').first().textContent()).trim();
  const sloPoint = (await page.locator('[data-metric="slo_output_tok_s_per_gpu"]').first().textContent()).trim();
  console.log(`decisions: ${monthly}/month at the SLO point ${sloPoint} tok/s per GPU`);

  // Copy link puts the same query on the clipboard.
  await page.locator('#copy-link').click();
  await page.waitForFunction(() => /Copied the link/.test(document.getElementById('share-status')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /slo-ttft-ms=2000/);
  assert.match(copied, /traffic=40/);

  // A customer opens the link in a fresh profile: same targets, same $/month, same SLO point.
  const fresh = await newPage(t);
  await fresh.page.goto(copied, { waitUntil: 'load' });
  await waitForApp(fresh.page);
  assert.equal(await fresh.page.locator('#slo-ttft-ms').inputValue(), '2000');
  assert.equal(await fresh.page.locator('#traffic').inputValue(), '40');
  assert.ok(await fresh.page.locator('#energy').isChecked());
  assert.equal((await fresh.page.locator('[data-metric="usd_per_month"]').first().textContent()).trim(), monthly);
  assert.equal((await fresh.page.locator('[data-metric="slo_output_tok_s_per_gpu"]').first().textContent()).trim(), sloPoint);
  // The printed summary lists the inputs that differ from the defaults, the decisions among
  // them, and says the others are at their defaults (issue 28 §1).
  const printed = await fresh.page.locator('#print-inputs').textContent();
  assert.match(printed, /TTFT target\s*2000 ms/);
  assert.doesNotMatch(printed, /GPU count/, 'a default input is summarized, not listed');
  assert.match(printed, /The other \d+ inputs are at servecost's defaults/);
  assert.deepEqual(fresh.log.pageErrors, []);

  // Reset to defaults: every input back, the link is the version alone, storage follows.
  await page.locator('#reset-defaults').click();
  await page.waitForFunction(() => location.search === '?v=2' || location.search === '', null, { timeout: STEP_TIMEOUT_MS, polling: 50 });
  assert.equal(await page.locator('#slo-ttft-ms').inputValue(), '');
  assert.equal(await page.locator('#traffic').inputValue(), '10');
  assert.equal(await page.locator('#model').inputValue(), 'llama-3.1-70b');
  assert.deepEqual(log.pageErrors, []);
});

/** Pages of a PDF (Chromium's print to PDF). */
const pdfPages = (pdf) => (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;

test('print-1. the printed summary is one A4 page (two with four pins): sentence, chart, numbers, decision, readable assumptions', async (t) => {
  const { page } = await openApp(t, '?v=2&slo-ttft-ms=500&slo-tpot-ms=40&traffic=30');
  await page.waitForFunction(() => /For the traffic: /.test(document.querySelector('.print-decision')?.textContent ?? ''), null, { timeout: 60_000 });
  // Chromium's print to PDF from a 1280 px window, as a user's Print button does.
  assert.equal(pdfPages(await page.pdf({ format: 'A4' })), 1, 'one page without pins');
  await page.emulateMedia({ media: 'print' });
  const printed = await page.evaluate(() => ({
    sentence: document.querySelector('.print-sentence')?.textContent ?? '',
    decision: document.querySelector('.print-decision')?.textContent ?? '',
    assumptions: document.querySelector('.assumptions pre')?.getBoundingClientRect().width ?? 0,
    chart: document.getElementById('pareto-chart')?.getBoundingClientRect().width ?? 0,
  }));
  assert.match(printed.sentence, /^Llama 3\.1 70B in FP8 on 8 × /);
  assert.match(printed.decision, /SLO P90 TTFT ≤ 500 ms and TPOT ≤ 40 ms/);
  // The assumptions print as lines across the page, not one character per line (18 px before).
  assert.ok(printed.assumptions >= 500, `assumptions ${printed.assumptions} px wide`);
  assert.ok(printed.chart >= 300, `chart ${printed.chart} px wide`);
  // Back to no emulation (an explicit 'screen' would make page.pdf print the screen layout).
  await page.emulateMedia({ media: null });
  for (let i = 0; i < 4; i++) {
    await page.locator('#gpus').fill(String(2 ** (i + 1)));
    await page.locator('#gpus').blur();
    await page.locator('#pin').click();
  }
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr').length === 5 &&
    /For the traffic: /.test(document.querySelector('.print-decision')?.textContent ?? ''), null, { timeout: 60_000 });
  await page.waitForTimeout(1000);
  const pages = pdfPages(await page.pdf({ format: 'A4' }));
  assert.ok(pages <= 2, `at most two pages with four pins (${pages})`);
});

test('hostile: bad, injected and oversized links load the defaults with a notice and no error', async (t) => {
  const { page: reference } = await openApp(t, '?v=2');
  const defaults = await metrics(reference);
  const hostile = [
    '?gpus=abc&model=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E&tp=3&%E0%A4%A&pin=tp:5;gpus:x&x=evil&y=%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D1%3E&zzz=1',
    `?v=2&model=${'a'.repeat(12_000)}`,
    '?v=99&input-len=-5&output-len=1e999&concurrency=NaN&usd-per-gpu-hour=%00',
    '?embed=1&controls=%3Cb%3E,model,,,bogus&theme=%22%3E%3Cscript%3E',
  ];
  for (const query of hostile) {
    const { page, log } = await openApp(t, query);
    const notice = page.locator('#url-notice');
    assert.equal(await notice.count(), 1, `${query.slice(0, 60)}: a notice`);
    assert.ok(await notice.isVisible(), 'the notice is visible');
    assert.equal(await notice.getAttribute('role'), 'status');
    const said = (await notice.textContent()).trim();
    assert.match(said, /ignored/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'nothing injected ran');
    assert.equal(await page.locator('#url-notice img, #url-notice script, #url-notice b').count(), 0, 'notices are text');
    if (!query.includes('embed=1')) assert.deepEqual(await metrics(page), defaults, 'defaults for what could not be read');
    await page.waitForTimeout(100);
    assert.deepEqual(log.pageErrors, [], 'no page error');
    assert.equal(await page.locator('#fatal-error').count(), 0, 'no panic');
    console.log(`hostile ${query.slice(0, 50)}… -> ${said.slice(0, 140)}…`);
  }
});

// ------------------------------------------------------------------------------------------- embed

/** Runs in every frame before its scripts: records `message` listeners; the top page records messages. */
const RECORD_MESSAGES = () => {
  window.__messageListeners = 0;
  const add = window.addEventListener;
  window.addEventListener = function (type, ...rest) {
    if (type === 'message') window.__messageListeners += 1;
    return add.call(this, type, ...rest);
  };
  if (window === window.top) {
    window.__messages = [];
    add.call(window, 'message', (e) => window.__messages.push({ data: e.data, origin: e.origin }));
  }
};

test('embed: the glossary page embeds two live widgets sized from their height messages', async (t) => {
  const { page, log } = await newPage(t, { initScript: RECORD_MESSAGES, viewport: { width: 1000, height: 1400 } });
  const started = Date.now();
  await page.goto(`${site.baseUrl}examples/glossary.html`, { waitUntil: 'load' });
  assert.equal(await page.locator('iframe.servecost-embed').count(), 2, 'two widgets');
  const ids = ['#embed-70b', '#embed-8b'];
  const usd = [];
  for (const id of ids) {
    await page.locator(id).scrollIntoViewIfNeeded();
    const frame = await (await page.locator(id).elementHandle()).contentFrame();
    await frame.waitForFunction(() => Number(window.__servecostDraws) >= 1, null, { timeout: READY_TIMEOUT_MS, polling: 20 });
    const painted = await frame.$eval('#pareto-chart', (c) => {
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      const colours = new Set();
      for (let i = 0; i < data.length; i += 28) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      return { width: c.width, height: c.height, colours: colours.size };
    });
    assert.ok(painted.width > 0 && painted.height > 0 && painted.colours >= 3, `${id} drew its chart: ${JSON.stringify(painted)}`);
    usd.push((await frame.locator('[data-metric="usd_per_m_output"]').textContent()).trim());
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.reportedHeight, id, { timeout: STEP_TIMEOUT_MS });
    const sizing = await page.$eval(id, (f) => ({ attr: f.getAttribute('height'), reported: f.dataset.reportedHeight, box: f.getBoundingClientRect().height }));
    assert.equal(sizing.attr, sizing.reported, `${id} height set from its message`);
    const mark = await frame.evaluate(() => performance.getEntriesByName('servecost:first-draw')[0]?.startTime);
    console.log(`${id}: $/M ${usd.at(-1)}, iframe height ${sizing.attr} px (reported), navigation -> first chart draw ${mark?.toFixed(0)} ms`);
  }
  assert.notEqual(usd[0], usd[1], 'the two widgets show different scenarios');
  console.log(`glossary page: goto -> both widgets drawn ${Date.now() - started} ms (wall, incl. scrolling)`);
  log.ready = true;

  // A slider inside an iframe moves its $/M.
  const widget = page.frameLocator('#embed-70b');
  const before = (await widget.locator('[data-metric="usd_per_m_output"]').textContent()).trim();
  await widget.locator('#batch-size').fill('0');
  const after = await waitForChange(widget, '[data-metric="usd_per_m_output"]', before, 'moving the slider in the iframe');
  assert.notEqual(after, before);
  const href = await widget.locator('#open-explorer').getAttribute('href');
  assert.match(href, /concurrency=1(&|$)/, `the explorer link follows the slider: ${href}`);
  assert.doesNotMatch(href, /embed=|controls=/);

  // The widget only ever says its height, and listens to nothing.
  await page.waitForTimeout(300);
  const messages = await page.evaluate(() => window.__messages);
  assert.ok(messages.length >= 2, `height messages arrived: ${messages.length}`);
  for (const { data, origin } of messages) {
    assert.deepEqual(Object.keys(data).sort(), ['height', 'type']);
    assert.equal(data.type, 'servecost:height');
    assert.ok(Number.isInteger(data.height) && data.height > 100, `height ${data.height}`);
    assert.equal(origin, new URL(site.baseUrl).origin);
  }
  for (const id of ids) {
    const frame = await (await page.locator(id).elementHandle()).contentFrame();
    assert.equal(await frame.evaluate(() => window.__messageListeners), 0, `${id} installs no message listener`);
    assert.equal(await frame.evaluate(() => window.onmessage), null);
  }
  assert.deepEqual(external(log.afterReady), [], 'no request after the widgets loaded');
  assert.deepEqual(log.pageErrors, []);
});

test('embed: fits 600×400 and 375 px, and its first load is measured', async (t) => {
  const responses = [];
  const { page, log } = await newPage(t, { viewport: { width: 600, height: 400 } });
  page.on('response', async (r) => {
    const body = await r.body().catch(() => null);
    if (body) responses.push({ url: r.url(), raw: body.length, gzip: zlib.gzipSync(body, { level: 9 }).length });
  });
  await page.goto(`${site.baseUrl}?v=2&embed=1`, { waitUntil: 'load' });
  await waitForApp(page);
  const navToDraw = await page.evaluate(() => performance.getEntriesByName('servecost:first-draw')[0]?.startTime);
  await page.waitForTimeout(200);
  const fit = await page.evaluate(() => ({
    scrollHeight: document.documentElement.scrollHeight,
    scrollWidth: document.documentElement.scrollWidth,
    chart: document.querySelector('#pareto-chart').getBoundingClientRect().height,
  }));
  assert.ok(fit.scrollHeight <= 400 && fit.scrollWidth <= 600, `600×400 without scrolling: ${JSON.stringify(fit)}`);
  assert.ok(fit.chart >= 150, `the chart keeps a usable height: ${fit.chart}`);
  for (const sel of ['#embed', '#batch-size', '[data-metric="usd_per_m_output"]', '#open-explorer']) {
    assert.ok(await page.locator(sel).isVisible(), `${sel} visible at 600×400`);
  }
  assert.equal(await page.locator('.share-bar, .layout, #glossary').count(), 0, 'no explorer chrome');
  const kinds = (re) => responses.filter((r) => re.test(new URL(r.url).pathname));
  const total = (list, key) => list.reduce((sum, r) => sum + r[key], 0);
  const firstLoad = [...kinds(/\.wasm$/), ...kinds(/\.js$/), ...kinds(/\.css$/), ...kinds(/\/$|\.html$/)];
  console.log(
    `embed first load: ${firstLoad.map((r) => `${new URL(r.url).pathname.split('/').pop() || 'index.html'} ${r.raw}/${r.gzip}`).join(', ')}; ` +
      `total ${total(firstLoad, 'raw')} B raw, ${total(firstLoad, 'gzip')} B gzip -9; navigation -> first chart draw ${navToDraw?.toFixed(0)} ms (600×400)`,
  );

  await page.setViewportSize({ width: 375, height: 520 });
  await page.goto(`${site.baseUrl}?v=2&embed=1&controls=model,gpu&theme=dark`, { waitUntil: 'load' });
  await waitForApp(page);
  await page.waitForTimeout(200);
  const phone = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    theme: document.documentElement.dataset.theme,
    controls: [...document.querySelectorAll('.embed select, .embed input[type=text]')].map((e) => e.id),
  }));
  assert.ok(phone.scrollWidth <= 375, `no sideways scrolling at 375 px: ${phone.scrollWidth}`);
  assert.equal(phone.theme, 'dark');
  assert.deepEqual(phone.controls, ['model', 'gpu'], 'only the controls asked for');
  assert.deepEqual(log.pageErrors, []);
});

test('embed: every field of the table is a control, technique and decision fields included', async (t) => {
  const { page, log } = await openApp(t, '?v=2&embed=1&controls=batching,spec-decode,workload,gpus,slo-ttft-ms,gpu-count');
  const ids = await page.evaluate(() => [...document.querySelectorAll('.embed select, .embed input[type=text]')].map((e) => e.id));
  assert.deepEqual(ids, ['batching', 'spec-decode', 'workload', 'gpus', 'slo-ttft-ms'], 'in order, the old gpu-count name folded into gpus');
  assert.equal(await page.locator('#url-notice').count(), 0, 'no control is refused');
  const before = (await page.locator('[data-metric="usd_per_m_output"]').first().textContent()).trim();
  await page.locator('#batching').selectOption('static');
  const after = await waitForChange(page, '[data-metric="usd_per_m_output"]', before, 'static batching in the embed');
  assert.notEqual(after, before);
  await page.locator('#workload').selectOption('code');
  await page.waitForFunction(() => document.querySelector('#workload')?.value === 'code', null, { timeout: STEP_TIMEOUT_MS });
  const unknown = await newPage(t);
  await unknown.page.goto(`${site.baseUrl}?v=2&embed=1&controls=model,no-such-field`, { waitUntil: 'load' });
  await waitForApp(unknown.page);
  assert.match(await unknown.page.locator('#url-notice').textContent(), /no-such-field/);
  assert.deepEqual(log.pageErrors, []);
});

// ------------------------------------------------------------------------------------------ export

async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }), page.locator(selector).click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), bytes: fs.readFileSync(path) };
}

test('hosting: the built site works under a sub-path (explorer, tools and embed), and a missing file is named', async (t) => {
  const sub = await startServer({ root: process.env.E2E_DIST || undefined, prefix: '/tools/servecost/' });
  t.after(() => sub.close());
  assert.match(sub.url, /\/tools\/servecost\/$/);
  const { page, log } = await newPage(t);
  const response = await page.goto(sub.url + '?v=2&model=llama-3.1-8b&gpus=1', { waitUntil: 'load' });
  assert.equal(response?.status(), 200);
  await waitForApp(page);
  assert.ok(await page.locator('#share-slot .share-bar').isVisible(), 'the tools module loaded from the sub-path');
  const outside = log.requests.filter((u) => u.startsWith(new URL(sub.url).origin) && !u.startsWith(sub.url));
  assert.deepEqual(outside, [], 'every asset loads from under the sub-path');
  const embed = await newPage(t);
  await embed.page.goto(sub.url + '?v=2&embed=1&model=llama-3.1-8b&gpus=1', { waitUntil: 'load' });
  await waitForApp(embed.page);
  assert.ok(await embed.page.locator('[data-metric="usd_per_m_output"]').first().isVisible(), 'the embed under the sub-path');
  assert.deepEqual([...log.pageErrors, ...embed.log.pageErrors], []);

  // A page whose wasm is missing (a half-copied deployment) says which file failed, not "no WebAssembly".
  const broken = await newPage(t);
  await broken.page.route('**/*_bg.wasm', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await broken.page.goto(sub.url, { waitUntil: 'load' });
  await broken.page.waitForFunction(() => /could not load/i.test(document.querySelector('#app .loading')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
  assert.match(await broken.page.locator('#app .loading').textContent(), /could not load .*web-[0-9a-f]+_bg\.wasm.*404/i);
});

test('report: Download report saves one self-contained HTML file that opens offline and prints on three A4 pages at most', async (t) => {
  const { page, log } = await openApp(t, '?v=2&model=llama-3.1-8b&gpus=1&concurrency=32&slo-tpot-ms=50&slo-ttft-ms=2000&traffic=20&gpus-allowed=h100-sxm,l40s');
  const [file] = await Promise.all([
    page.waitForEvent('download', { timeout: 30_000 }),
    page.locator('#download-report').click(),
  ]);
  assert.match(file.suggestedFilename(), /^servecost-llama-3\.1-8b-1x-h100-sxm-c32-report\.html$/);
  const html = fs.readFileSync(await file.path(), 'utf8');
  await page.waitForFunction(() => /Saved the report/.test(document.querySelector('#share-status')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
  assert.deepEqual(external(log.afterReady), [], 'building the report made no request');
  for (const forbidden of ['<script', 'src="http', 'url(', '<link']) assert.ok(!html.includes(forbidden), `report holds ${forbidden}`);

  // Opened offline in a fresh context: every request refused, the file renders complete.
  const offline = await site.browser.newContext({ offline: true });
  t.after(() => offline.close());
  const reader = await offline.newPage();
  const requests = [];
  reader.on('request', (r) => requests.push(r.url()));
  await offline.route('**/*', (route) => route.abort());
  await reader.setContent(html, { waitUntil: 'load' });
  assert.deepEqual(requests.filter((u) => !u.startsWith('data:') && u !== 'about:blank'), [], 'the report fetched nothing');
  const text = await reader.locator('body').innerText();
  for (const section of ['At 32 in flight', 'Service level and traffic', 'Simulated tails', 'Plan: the cheapest deployments', 'Why the others lost', 'Hardware leaderboard', 'Against API prices', 'Every input', 'Assumptions and sources']) {
    assert.ok(text.includes(section), `report section ${section}`);
  }
  assert.ok(await reader.locator('svg').count() >= 1, 'the chart is inline SVG');
  assert.match(text, /Reopen this view: http:\/\/127\.0\.0\.1:\d+\/\?v=2&model=llama-3\.1-8b/);
  const pdf = await reader.pdf({ format: 'A4' });
  const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;
  console.log(`report: ${html.length} B, ${pages} A4 pages`);
  assert.ok(pages >= 1 && pages <= 3, `${pages} A4 pages`);
  assert.deepEqual(log.pageErrors, []);
});

test('export: JSON, CSV and PNG downloads, import, embed snippet and print, all without the network', async (t) => {
  const { page, log } = await openApp(t, '?v=2&model=llama-3.1-8b&gpus=2&concurrency=37');

  const json = await download(page, '#export-json');
  const exported = JSON.parse(json.bytes.toString('utf8'));
  assert.equal(exported.v, 2);
  assert.equal(exported.model, 'llama-3.1-8b');
  assert.match(json.name, /^servecost-llama-3\.1-8b-2x-h100-sxm-c37\.json$/);

  const csv = await download(page, '#export-csv');
  const lines = csv.bytes.toString('utf8').trim().split('\n');
  assert.match(lines[0], /^# servecost \d+\.\d+\.\d+/);
  assert.ok(lines.some((l) => l.startsWith('# Hardware: 2 × NVIDIA H100')), 'assumptions header');
  const rows = lines.filter((l) => !l.startsWith('#'));
  assert.match(rows[0], /^concurrency,tok_s_per_user,output_tok_s_per_gpu/);
  assert.ok(rows.length > 10 && rows.slice(1).every((r) => r.split(',').length === rows[0].split(',').length), `${rows.length} rows`);

  const png = await download(page, '#export-png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG magic');
  assert.ok(png.bytes.length > 5_000, `PNG of ${png.bytes.length} B`);
  console.log(`downloads: ${json.name} ${json.bytes.length} B, ${csv.name} ${lines.length} lines, ${png.name} ${png.bytes.length} B`);

  // Import: a bad file names the field and keeps the view; a good one replaces it.
  const shown = await metrics(page);
  await page.locator('#import-json').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"v": 1, "gpus": "lots"}') });
  await page.waitForFunction(() => /gpus/.test(document.querySelector('#share-status')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
  assert.match(await page.locator('#share-status').textContent(), /Import failed: .*gpus.*current view is kept/);
  assert.deepEqual(await metrics(page), shown, 'a failed import keeps the view');
  const good = { ...exported, gpus: '4' };
  await page.locator('#import-json').setInputFiles({ name: 'good.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
  await waitForChange(page, '[data-metric="output_tok_s"]', shown.output_tok_s, 'importing gpus=4');
  assert.equal(await page.locator('#gpus').inputValue(), '4');
  await waitForSearch(page, [/gpus=4/]);

  // Embed snippet for the current view.
  await page.locator('#embed-button').click();
  const snippet = await page.locator('#embed-snippet').inputValue();
  assert.match(snippet, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/\?v=2&amp;model=llama-3\.1-8b&amp;gpus=4.*&amp;embed=1" title="servecost: Llama 3\.1 8B/);
  assert.equal(await page.locator('#embed-snippet').evaluate((e) => e.readOnly), true);

  // Print: the button calls window.print(); the print stylesheet keeps chart, numbers, assumptions and the link.
  await page.evaluate(() => {
    window.__printed = 0;
    window.print = () => {
      window.__printed += 1;
    };
  });
  await page.locator('#print-summary').click();
  assert.equal(await page.evaluate(() => window.__printed), 1);
  await page.emulateMedia({ media: 'print' });
  for (const sel of ['#pareto-chart', '[data-metric="usd_per_m_output"]', '#assumptions-text', '.print-header']) {
    assert.ok(await page.locator(sel).first().isVisible(), `${sel} printed`);
  }
  for (const sel of ['.share-bar', '#model', '#batch-size', '#glossary']) {
    assert.equal(await page.locator(sel).first().isVisible(), false, `${sel} not printed`);
  }
  assert.match(await page.locator('.print-link').textContent(), /\?v=2&model=llama-3\.1-8b&gpus=4/);
  await page.emulateMedia({ media: 'screen' });

  await page.waitForTimeout(300);
  assert.deepEqual(external(log.afterReady), [], 'no network request after load (data:/blob: allowed)');
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(log.consoleErrors, []);
});
