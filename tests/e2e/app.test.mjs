// Browser end-to-end tests for the built servecost site (dist/), run with `node --test`.
//
// playwright-core drives the system Chromium (/usr/bin/chromium, or $CHROMIUM_PATH); nothing is downloaded.
// By default the tests serve ../../dist (or $E2E_DIST) with serve.mjs on a free 127.0.0.1 port; set
// BASE_URL (e.g. http://127.0.0.1:8080/ from `scripts/serve`) to test a running server instead.
//
// The page contract these tests rely on:
//   slider #batch-size (input type=range); controls #model, #gpu (select), #gpus, #tp, #precision,
//   #kv-precision, #input-len, #output-len, #usd-per-gpu-hour; metrics in [data-metric=NAME];
//   chart <canvas id="pareto-chart">; validation messages in #input-error (role=alert);
//   startup failure banner #fatal-error; window.__servecostDraws counts chart draws;
//   each update is measured with performance.measure('servecost:update', ...).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-dev-shm-usage',
];
const METRICS = [
  'output_tok_s',
  'output_tok_s_per_gpu',
  'tok_s_per_user',
  'tpot_ms',
  'ttft_ms',
  'max_concurrency',
  'usd_per_m_output',
  'usd_per_m_input',
  'usd_per_m_blended',
];
const CONTROLS = [
  '#batch-size',
  '#model',
  '#gpu',
  '#gpus',
  '#tp',
  '#precision',
  '#kv-precision',
  '#input-len',
  '#output-len',
  '#usd-per-gpu-hour',
];
const READY_TIMEOUT_MS = 20_000;
const STEP_TIMEOUT_MS = 5_000;

const metricSel = (name) => `[data-metric="${name}"]`;

let server;
let baseUrl;
let browser;

before(async () => {
  if (process.env.BASE_URL) {
    baseUrl = process.env.BASE_URL;
  } else {
    server = await startServer(process.env.E2E_DIST ? { root: process.env.E2E_DIST } : {});
    baseUrl = server.url;
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// ------------------------------------------------------------------------------------------ helpers

/** Everything a failing assertion should show about the page. */
async function snapshot(page) {
  return page.evaluate((metrics) => {
    const text = (sel) => {
      const el = document.querySelector(sel);
      return el ? el.textContent.trim() : null;
    };
    const out = { draws: window.__servecostDraws, metrics: {} };
    for (const m of metrics) out.metrics[m] = text(`[data-metric="${m}"]`);
    out.inputError = text('#input-error');
    out.fatalError = text('#fatal-error');
    const slider = document.querySelector('#batch-size');
    out.slider = slider ? slider.value : null;
    return out;
  }, METRICS);
}

/** page.waitForFunction with a readable error that includes the page state. */
async function waitUntil(page, what, fn, arg, timeout = STEP_TIMEOUT_MS) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 20 });
  } catch (err) {
    if (!/Timeout/i.test(String(err))) throw err;
    const state = await snapshot(page).catch((e) => `unavailable: ${e}`);
    throw new Error(`timed out after ${timeout} ms waiting for ${what}; page state: ${JSON.stringify(state)}`);
  }
}

/** Texts of every element carrying each metric (one entry per element). */
async function metricTexts(page) {
  const out = {};
  for (const m of METRICS) {
    out[m] = (await page.locator(metricSel(m)).allTextContents()).map((t) => t.trim());
  }
  return out;
}

const metricText = async (page, name) => (await page.locator(metricSel(name)).first().textContent()).trim();
const draws = (page) => page.evaluate(() => window.__servecostDraws);

/** Opens the app and waits for wasm start-up: first chart draw done and metrics filled in. */
async function openApp(t) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // The page's load ends when its second module (simulator, decision and glossary panels), which
  // the explorer imports after its first chart, has mounted: `deferredRequests` are the requests
  // between the load event and that point, `requestsAfterLoad` every request after it.
  const log = { consoleErrors: [], pageErrors: [], requests: [], deferredRequests: [], requestsAfterLoad: [], failedRequests: [] };
  let loadEvent = false;
  let loaded = false;
  page.on('console', (msg) => {
    if (msg.type() === 'error') log.consoleErrors.push(`${msg.text()} @ ${JSON.stringify(msg.location())}`);
  });
  page.on('pageerror', (err) => log.pageErrors.push(String(err && err.stack ? err.stack : err)));
  page.on('requestfailed', (req) => log.failedRequests.push(`${req.url()} (${req.failure()?.errorText})`));
  page.on('load', () => {
    loadEvent = true;
  });
  page.on('request', (req) => {
    const entry = { url: req.url(), type: req.resourceType(), method: req.method() };
    log.requests.push(entry);
    if (loaded) log.requestsAfterLoad.push(entry);
    else if (loadEvent) log.deferredRequests.push(entry);
  });
  t.after(() => context.close());

  const resp = await page.goto(baseUrl, { waitUntil: 'load' });
  assert.ok(resp, `no response for ${baseUrl}`);
  assert.equal(resp.status(), 200, `GET ${baseUrl} -> HTTP ${resp.status()}`);
  await waitUntil(
    page,
    'the app to start (window.__servecostDraws >= 1 and every metric containing a digit)',
    (metrics) =>
      Number.isInteger(window.__servecostDraws) &&
      window.__servecostDraws >= 1 &&
      metrics.every((m) => /\d/.test(document.querySelector(`[data-metric="${m}"]`)?.textContent ?? '')),
    METRICS,
    READY_TIMEOUT_MS,
  ).catch((err) => {
    err.message += `\npage errors: ${JSON.stringify(log.pageErrors)}\nconsole errors: ${JSON.stringify(log.consoleErrors)}`;
    throw err;
  });
  await waitUntil(
    page,
    'the tools module to mount (performance mark servecost:tools-ready)',
    () => performance.getEntriesByName('servecost:tools-ready').length > 0,
    null,
    READY_TIMEOUT_MS,
  );
  loaded = true;
  return { page, log };
}

async function sliderInfo(page) {
  return page.$eval('#batch-size', (el) => ({
    type: el.type,
    min: el.min === '' ? 0 : Number(el.min),
    max: el.max === '' ? 100 : Number(el.max),
    step: el.step,
    value: Number(el.value),
  }));
}

/** Sets the slider like a user would (Playwright fill on a range input fires input + change). */
async function setSlider(page, value) {
  await page.locator('#batch-size').fill(String(value));
  return Number(await page.locator('#batch-size').inputValue());
}

/** Waits until the draw counter exceeds `prev`. */
async function waitForDrawAfter(page, prev, what) {
  await waitUntil(page, `a chart redraw after ${what} (__servecostDraws > ${prev})`, (p) => window.__servecostDraws > p, prev);
}

/** Waits until the text of a metric differs from `prev`; returns the new text. */
async function waitForMetricChange(page, name, prev, what, timeout = STEP_TIMEOUT_MS) {
  await waitUntil(
    page,
    `[data-metric=${name}] to change from ${JSON.stringify(prev)} after ${what}`,
    ({ sel, prev }) => {
      const el = document.querySelector(sel);
      return !!el && el.textContent.trim() !== prev;
    },
    { sel: metricSel(name), prev },
    timeout,
  );
  return metricText(page, name);
}

async function selectOptions(page, sel) {
  return page.$$eval(`${sel} option`, (opts) =>
    opts.map((o) => ({ value: o.value, label: o.textContent.trim(), disabled: o.disabled })),
  );
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

// -------------------------------------------------------------------------------------------- tests

test('a. page loads without errors and shows every metric', async (t) => {
  const { page, log } = await openApp(t);
  // let anything late (e.g. a favicon request, a deferred error) surface before judging
  await page.waitForTimeout(300);

  assert.deepEqual(log.pageErrors, [], 'uncaught page errors');
  assert.deepEqual(log.consoleErrors, [], 'console errors');
  assert.deepEqual(log.failedRequests, [], 'failed requests');

  for (const sel of CONTROLS) {
    assert.equal(await page.locator(sel).count(), 1, `exactly one ${sel} control`);
  }
  assert.equal((await sliderInfo(page)).type, 'range', '#batch-size is an <input type=range>');

  const texts = await metricTexts(page);
  for (const m of METRICS) {
    assert.ok(texts[m].length >= 1, `[data-metric=${m}] is present`);
    for (const txt of texts[m]) {
      assert.notEqual(txt, '', `[data-metric=${m}] is non-empty`);
      assert.match(txt, /\d/, `[data-metric=${m}] contains a digit (got ${JSON.stringify(txt)})`);
    }
  }
  console.log(`metrics at load: ${JSON.stringify(Object.fromEntries(METRICS.map((m) => [m, texts[m][0]])))}`);

  const fatal = page.locator('#fatal-error');
  if ((await fatal.count()) > 0) {
    assert.equal(await fatal.isVisible(), false, `#fatal-error banner is visible: ${await fatal.textContent()}`);
  }

  // the chart exists, has a size and has actually been painted (not a blank canvas)
  const canvas = await page.$eval('#pareto-chart', (c) => {
    const ctx = c.getContext('2d');
    const colours = new Set();
    if (ctx && c.width > 0 && c.height > 0) {
      const { data } = ctx.getImageData(0, 0, c.width, c.height);
      const stride = 4 * 7; // sample every 7th pixel
      for (let i = 0; i < data.length; i += stride) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
    }
    return { tag: c.tagName, width: c.width, height: c.height, colours: colours.size };
  });
  assert.equal(canvas.tag, 'CANVAS', '#pareto-chart is a <canvas>');
  assert.ok(canvas.width > 0 && canvas.height > 0, `#pareto-chart has a size (${canvas.width}x${canvas.height})`);
  assert.ok(canvas.colours >= 3, `#pareto-chart has been drawn on (distinct colours sampled: ${canvas.colours})`);
  assert.ok((await draws(page)) >= 1, '__servecostDraws >= 1 after start-up');
});

test('b. moving the batch slider updates $/M output and redraws the chart', async (t) => {
  const { page } = await openApp(t);
  const s = await sliderInfo(page);
  assert.ok(s.max > s.min, `slider range is non-empty (min=${s.min}, max=${s.max})`);
  const span = s.max - s.min;

  // 1. locator.fill with a value at the far end of the range
  const far = s.value - s.min > s.max - s.value ? s.min : s.max;
  let usd = await metricText(page, 'usd_per_m_output');
  let d = await draws(page);
  const got = await setSlider(page, far);
  assert.equal(got, far, `slider value after fill(${far})`);
  const usdFar = await waitForMetricChange(page, 'usd_per_m_output', usd, `fill(${far})`);
  await waitForDrawAfter(page, d, `fill(${far})`);
  assert.notEqual(usdFar, usd);

  // 2. back to the middle of the range with fill
  const mid = s.min + Math.round(span / 2);
  usd = usdFar;
  d = await draws(page);
  const midValue = await setSlider(page, mid);
  const usdMid = await waitForMetricChange(page, 'usd_per_m_output', usd, `fill(${mid})`);
  await waitForDrawAfter(page, d, `fill(${mid})`);

  // 3. keyboard: PageUp (a big step) must change the value, the price and redraw
  const slider = page.locator('#batch-size');
  await slider.focus();
  d = await draws(page);
  await page.keyboard.press('PageUp');
  const afterPageUp = Number(await slider.inputValue());
  assert.ok(afterPageUp > midValue, `PageUp increases the slider (${midValue} -> ${afterPageUp})`);
  const usdPageUp = await waitForMetricChange(page, 'usd_per_m_output', usdMid, 'PageUp');
  await waitForDrawAfter(page, d, 'PageUp');

  // 4. keyboard: ArrowRight (small steps); a step may land on the same batch (G11), so allow a few presses
  d = await draws(page);
  let value = afterPageUp;
  let changed = false;
  for (let i = 0; i < 20 && !changed && value < s.max; i++) {
    await page.keyboard.press('ArrowRight');
    const next = Number(await slider.inputValue());
    assert.ok(next > value, `ArrowRight increases the slider (${value} -> ${next})`);
    value = next;
    changed = await waitForMetricChange(page, 'usd_per_m_output', usdPageUp, 'ArrowRight', 1_000).then(
      () => true,
      () => false,
    );
  }
  assert.ok(changed, `usd_per_m_output changed within 20 ArrowRight presses (slider ${afterPageUp} -> ${value})`);
  await waitForDrawAfter(page, d, 'ArrowRight');
});

test('c. changing the model changes output tok/s', async (t) => {
  const { page } = await openApp(t);
  const model = page.locator('#model');
  const original = await model.inputValue();
  const before = await metricText(page, 'output_tok_s');
  const options = await selectOptions(page, '#model');
  const others = options.filter((o) => !o.disabled && o.value !== original);
  assert.ok(others.length >= 1, `#model offers another enabled option (options: ${JSON.stringify(options)})`);

  // A model that does not fit the current GPU setup may legitimately keep the last view (with a notice),
  // so try the other models in order until one changes the number; at least one must.
  const tried = [];
  let changedTo = null;
  for (const opt of others) {
    await model.selectOption(opt.value);
    const ok = await waitForMetricChange(page, 'output_tok_s', before, `selecting model ${opt.value}`, 3_000).then(
      () => true,
      () => false,
    );
    tried.push({ model: opt.value, outputTokS: await metricText(page, 'output_tok_s'), notice: (await snapshot(page)).inputError });
    if (ok) {
      changedTo = opt;
      break;
    }
  }
  assert.ok(changedTo, `output_tok_s (${before}) changed for some other model; tried: ${JSON.stringify(tried)}`);
  console.log(`model ${original} -> ${changedTo.value}: output_tok_s ${before} -> ${tried.at(-1).outputTokS}`);

  // and selecting the original model again restores the original number (the model is deterministic)
  await model.selectOption(original);
  await waitUntil(
    page,
    `output_tok_s to return to ${JSON.stringify(before)} after re-selecting ${original}`,
    ({ sel, before }) => document.querySelector(sel)?.textContent.trim() === before,
    { sel: metricSel('output_tok_s'), before },
  );
});

test('d. no network request once the page has loaded (load event, then the deferred tools module)', async (t) => {
  const { page, log } = await openApp(t);
  const origin = new URL(baseUrl).origin;
  const s = await sliderInfo(page);

  // interact with every kind of control
  let d = await draws(page);
  await setSlider(page, s.value - s.min > s.max - s.value ? s.min : s.max);
  await waitForDrawAfter(page, d, 'moving the slider');
  for (const sel of ['#model', '#gpu', '#precision', '#kv-precision']) {
    const loc = page.locator(sel);
    const tag = await loc.evaluate((el) => el.tagName);
    if (tag !== 'SELECT') continue;
    const current = await loc.inputValue();
    const other = (await selectOptions(page, sel)).find((o) => !o.disabled && o.value !== current);
    if (other) await loc.selectOption(other.value);
  }
  for (const [sel, value] of [
    ['#input-len', '3000'],
    ['#output-len', '700'],
    ['#usd-per-gpu-hour', '3.5'],
  ]) {
    await page.locator(sel).fill(value);
    await page.locator(sel).blur();
  }
  d = await draws(page);
  await setSlider(page, s.min + Math.round((s.max - s.min) / 2));
  await waitForDrawAfter(page, d, 'moving the slider back to the middle');
  await page.waitForTimeout(1_000);

  const external = (list) => list.filter((r) => !r.url.startsWith('data:') && !r.url.startsWith('blob:'));
  const loadRequests = external(log.requests.filter((r) => !log.requestsAfterLoad.includes(r)));
  console.log(`requests before load: ${loadRequests.map((r) => `${r.type} ${r.url}`).join(', ')}`);
  assert.deepEqual(
    loadRequests.filter((r) => new URL(r.url).origin !== origin),
    [],
    `page load fetches only from its own origin ${origin}`,
  );
  assert.deepEqual(external(log.requestsAfterLoad), [], 'requests made after the load event');
  // Between the load event and the tools mounting, only the tools module itself (script, wasm and
  // its stylesheet) is fetched.
  const deferred = external(log.deferredRequests);
  console.log(`deferred after the load event: ${deferred.map((r) => `${r.type} ${r.url}`).join(', ')}`);
  assert.ok(
    deferred.every((r) => new URL(r.url).origin === origin && /^\/tools-[0-9a-f]{16}(\.js|_bg\.wasm|\.css)$/.test(new URL(r.url).pathname)),
    `only the tools module is fetched after the load event: ${JSON.stringify(deferred)}`,
  );
});

test('e. performance: 100 slider moves, servecost:update measures', async (t) => {
  const { page } = await openApp(t);
  const s = await sliderInfo(page);
  const span = s.max - s.min;
  // positions far apart (G11: the slider value must change the batch, or nothing is redrawn);
  // start with the one farthest from the current value so that the first move changes something.
  let cycle = [0, 0.5, 0.2, 0.7].map((f) => s.min + Math.round(f * span));
  const start = cycle.reduce((best, v, i) => (Math.abs(v - s.value) > Math.abs(cycle[best] - s.value) ? i : best), 0);
  cycle = [...cycle.slice(start), ...cycle.slice(0, start)];

  const before = await page.evaluate(
    () => performance.getEntriesByName('servecost:update').filter((e) => e.entryType === 'measure').length,
  );
  const roundTrips = [];
  const MOVES = 100;
  for (let i = 0; i < MOVES; i++) {
    const target = cycle[i % cycle.length];
    const d = await draws(page);
    const t0 = performance.now();
    await setSlider(page, target);
    await waitForDrawAfter(page, d, `slider move ${i + 1}/${MOVES} to ${target}`);
    roundTrips.push(performance.now() - t0);
  }

  const durations = await page.evaluate(() =>
    performance
      .getEntriesByName('servecost:update')
      .filter((e) => e.entryType === 'measure')
      .map((e) => e.duration),
  );
  assert.ok(
    durations.length - before >= MOVES,
    `at least ${MOVES} performance measures named 'servecost:update' for ${MOVES} moves (before: ${before}, after: ${durations.length})`,
  );
  const sorted = [...durations].sort((a, b) => a - b);
  const rt = [...roundTrips].sort((a, b) => a - b);
  const fmt = (x) => x.toFixed(2);
  console.log(
    `servecost:update (${sorted.length} measures): median ${fmt(quantile(sorted, 0.5))} ms, ` +
      `p95 ${fmt(quantile(sorted, 0.95))} ms, max ${fmt(sorted.at(-1))} ms`,
  );
  console.log(
    `slider move -> redraw seen by the test (${rt.length} moves, includes Playwright round trips): ` +
      `median ${fmt(quantile(rt, 0.5))} ms, p95 ${fmt(quantile(rt, 0.95))} ms`,
  );
});

test('f. an invalid input length shows a message and keeps the last good view', async (t) => {
  const { page } = await openApp(t);
  const input = page.locator('#input-len');
  const errorBox = page.locator('#input-error');
  const original = await input.inputValue();
  const good = await metricTexts(page);
  const type = await input.evaluate((el) => el.type);
  // Playwright (like a user) cannot type letters into <input type=number>; try them only on text inputs.
  const bad = type === 'number' ? ['0', '-5'] : ['0', '-5', 'abc'];

  for (const value of bad) {
    await input.fill(value);
    await input.blur();
    await waitUntil(
      page,
      `a visible #input-error mentioning "input" after typing ${JSON.stringify(value)} into #input-len`,
      () => {
        const el = document.querySelector('#input-error');
        if (!el) return false;
        const r = el.getBoundingClientRect();
        const st = getComputedStyle(el);
        const visible = r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
        return visible && /input/i.test(el.textContent);
      },
    );
    assert.equal(await errorBox.getAttribute('role'), 'alert', '#input-error has role=alert');
    const now = await metricTexts(page);
    for (const m of METRICS) {
      for (const txt of now[m]) assert.match(txt, /\d/, `[data-metric=${m}] still shows a number after ${JSON.stringify(value)}`);
    }
    assert.deepEqual(now, good, `metrics keep the last good view after the invalid input ${JSON.stringify(value)}`);
    console.log(`#input-len=${JSON.stringify(value)} -> ${JSON.stringify((await errorBox.textContent()).trim())}`);
  }

  // a valid value again clears the message and restores the same view
  await input.fill(original);
  await input.blur();
  await waitUntil(page, '#input-error to be hidden or empty after restoring a valid input length', () => {
    const el = document.querySelector('#input-error');
    if (!el) return true;
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    const visible = r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
    return !visible || el.textContent.trim() === '';
  });
  assert.deepEqual(await metricTexts(page), good, 'metrics after restoring the original input length');
});

// ------------------------------------------------------------------ decision tools (cost, compare, plan)
// Page contract: #pin, #compare-table (one tbody row for the current scenario + one per pin),
// #pins-notice, #slo-ttft-ms, #slo-tpot-ms, #slo-percentile, #traffic, #traffic-tokens-per-day,
// #price-tier, #energy, #offered-load, #plan-run, #plan-results, #plan-rejected, #calibrate-text,
// #calibrate-run, #calibrate-knobs; pins are saved in localStorage['servecost.pins.v1'].

const PINS_KEY = 'servecost.pins.v1';
const compareRows = (page) => page.locator('#compare-table tbody tr').count();

test('g. pinned scenarios survive a reload; a corrupt saved entry is only a notice', async (t) => {
  const { page, log } = await openApp(t);
  await page.locator('#pin').click();
  await page.locator('#model').selectOption('llama-3.1-8b');
  await waitUntil(page, 'the model change to reach the compare table', () =>
    /Llama 3\.1 8B/.test(document.querySelector('#compare-table tbody tr')?.textContent ?? ''),
  );
  await page.locator('#pin').click();
  await waitUntil(page, 'two pins in #compare-table', () => document.querySelectorAll('#compare-table tbody tr').length === 3);
  const saved = await page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? 'null'), PINS_KEY);
  assert.equal(saved?.pins?.length, 2, `two pins saved under ${PINS_KEY}: ${JSON.stringify(saved)}`);

  // Let the page's debounced link/memory writes settle, as a user's reload would.
  await page.waitForTimeout(600);
  await page.reload({ waitUntil: 'load' });
  await waitUntil(page, 'the app to start again', () => window.__servecostDraws >= 1, undefined, READY_TIMEOUT_MS);
  await waitUntil(page, 'both pins back after the reload', () => document.querySelectorAll('#compare-table tbody tr').length === 3);
  const table = await page.locator('#compare-table').textContent();
  assert.match(table, /pin 1: Llama 3\.1 70B/);
  assert.match(table, /pin 2: Llama 3\.1 8B/);

  // A corrupt entry (and no other memory of the page) opens with no pins and a notice, never a crash.
  // The storage is corrupted in a fresh page before any of its scripts run, with the first page
  // closed: a page that is navigating away may still save its own state while it unloads, which
  // would race a corruption written from inside it.
  const context = page.context();
  await page.close();
  const fresh = await context.newPage();
  const freshErrors = [];
  fresh.on('pageerror', (err) => freshErrors.push(String(err && err.stack ? err.stack : err)));
  await fresh.addInitScript((key) => {
    localStorage.clear();
    localStorage.setItem(key, '{"pins": [ not json');
  }, PINS_KEY);
  await fresh.goto(new URL(baseUrl).origin + new URL(baseUrl).pathname, { waitUntil: 'load' });
  await waitUntil(fresh, 'the app to start with a corrupt saved entry', () => window.__servecostDraws >= 1, undefined, READY_TIMEOUT_MS);
  await waitUntil(fresh, 'a notice about the saved pins', () => /could not be read/.test(document.querySelector('#pins-notice')?.textContent ?? ''));
  assert.equal(await compareRows(fresh), 1, 'no pins restored from a corrupt entry');
  assert.deepEqual(log.pageErrors, [], 'uncaught page errors (first page)');
  assert.deepEqual(freshErrors, [], 'uncaught page errors');
  assert.equal(await fresh.locator('#fatal-error').count(), 0, 'no fatal error banner');
});

test('h. the plan ranks the cheapest configurations that meet the SLO', async (t) => {
  const { page } = await openApp(t);
  await page.locator('#model').selectOption('llama-3.1-8b');
  await page.locator('#slo-ttft-ms').fill('2000');
  await page.locator('#slo-tpot-ms').fill('50');
  await page.locator('#traffic').fill('20');
  assert.equal(await page.locator('#plan-results').count(), 0, 'the search runs only on the button');
  await page.locator('#plan-run').click();
  await page.waitForSelector('#plan-results tbody tr', { timeout: 20_000 });
  const months = await page.$$eval('#plan-results tbody tr [data-col="usd_per_month"]', (cells) =>
    cells.map((c) => Number(c.textContent.replace(/[$,]/g, ''))),
  );
  console.log(`plan: ${months.length} candidates, $/month ${months.join(', ')}`);
  assert.ok(months.length >= 2, `at least two candidates (got ${months.length})`);
  assert.ok(months.every((m) => Number.isFinite(m) && m > 0), `dollar amounts: ${months}`);
  assert.ok(months.every((m, i) => i === 0 || months[i - 1] <= m), `ranked cheapest first: ${months}`);
  await page.locator('#plan-rejected summary').click();
  assert.ok((await page.locator('#plan-rejected li').count()) >= 1, 'why the others lost');
  // Apply loads the cheapest configuration into the scenario.
  const total = (await page.locator('#plan-results tbody tr').first().locator('[data-col="total_gpus"]').textContent()).trim();
  await page.locator('#plan-apply-1').click();
  await waitUntil(page, `#gpus to become ${total}`, (n) => document.querySelector('#gpus')?.value === n, total);
});

test('lb-1. the hardware leaderboard ranks once in view, sorts and loads a row', async (t) => {
  const { page } = await openApp(t);
  await page.locator('#model').selectOption('llama-3.1-8b');
  await page.locator('.leaderboard-panel').scrollIntoViewIfNeeded();
  await page.waitForSelector('#leaderboard tbody tr', { timeout: 30_000 });
  const prices = await page.$$eval('#leaderboard tbody tr [data-col="usd-m"]', (cells) => cells.map((c) => c.textContent.trim()));
  console.log(`leaderboard: ${prices.length} rows`);
  const firstUnpriced = prices.indexOf('no price');
  assert.ok(firstUnpriced > 0, `priced rows first, then unpriced: ${prices}`);
  assert.ok(prices.slice(firstUnpriced).every((p) => p === 'no price'), `unpriced last: ${prices}`);
  // "$0.509 ($0.454–0.579)": the $/M, then its range within the expected error (issue 26 §7).
  assert.ok(prices.slice(0, firstUnpriced).every((p) => /^\$[\d.,]+ \(\$[\d.,]+–[\d.,]+\)$/.test(p)), `each $/M with its range: ${prices}`);
  const dollars = prices.slice(0, firstUnpriced).map((p) => parseFloat(p.replace(/[$,]/g, '')));
  assert.ok(dollars.every((d, i) => i === 0 || dollars[i - 1] <= d), `cheapest first: ${dollars}`);
  await page.locator('#leaderboard-sort-tok-s-gpu').click();
  assert.equal(await page.locator('#leaderboard-sort-tok-s-gpu').locator('xpath=..').getAttribute('aria-sort'), 'descending');
  const perGpu = await page.$$eval('#leaderboard tbody tr [data-col="tok-s-gpu"]', (cells) => cells.map((c) => Number(c.textContent.replace(/,/g, ''))));
  assert.ok(perGpu.every((v, i) => i === 0 || perGpu[i - 1] >= v), `sorted by tok/s per GPU: ${perGpu}`);
  // (The CSV and PNG downloads need a context with acceptDownloads: see share.test.mjs's `download`.)
  // Load the first row as sorted (its rank is in its first cell): the explorer takes its GPU count.
  const first = page.locator('#leaderboard tbody tr').first();
  const gpus = (await first.locator('[data-col="replica-gpus"]').textContent()).trim();
  await first.locator('button').click();
  await waitUntil(page, `#gpus to become ${gpus}`, (n) => document.querySelector('#gpus')?.value === n, gpus);
});

test('mp-1. measured points and expected errors: published rows for the configuration on screen, with the prediction and a toggle', async (t) => {
  const { page } = await openApp(t);
  await page.locator('#gpu').selectOption('mi300x');
  await page.locator('#gpus').fill('8');
  await page.locator('#model').selectOption('deepseek-r1');
  await page.locator('#input-len').fill('921.5');
  await page.locator('#output-len').fill('921.5');
  // InferenceX's DeepSeek-R1 sweep on 8×MI300X at 1k/1k (IX-001..005, measurements.csv).
  await waitUntil(page, 'measured rows for DeepSeek-R1 on 8×MI300X 1k/1k', () =>
    document.querySelectorAll('#measured-points tbody tr[data-measured-point^="IX-"]').length >= 5,
  undefined, 30_000);
  const rows = await page.$$eval('#measured-points tbody tr', (trs) => trs.map((tr) => ({ id: tr.dataset.measuredPoint, title: tr.title, text: tr.textContent })));
  assert.ok(rows.some((r) => r.id === 'IX-001'), JSON.stringify(rows.map((r) => r.id)));
  assert.ok(rows.every((r) => /sglang/i.test(r.title + r.text)), 'engine shown');
  assert.ok(rows.every((r) => /%/.test(r.text)), 'each row shows the error of the prediction');
  assert.ok(await page.locator('[data-measured-point="legend"]').isVisible(), 'the legend entry of the measured markers');
  // The toggle takes the markers off the chart (a redraw), and back.
  const draws = await page.evaluate(() => window.__servecostDraws);
  await page.locator('#measured-toggle').uncheck();
  await waitUntil(page, 'a redraw without the measured markers', (n) => window.__servecostDraws > n, draws);
  await page.locator('#measured-toggle').check();
  // Every headline number carries its expected error, and its source is one click away.
  for (const name of ['output_tok_s', 'tpot_ms', 'ttft_ms']) {
    assert.match(await page.locator(`[data-error="${name}"]`).first().textContent(), /±\d/, `${name} has its ±`);
  }
  await page.locator('#error-source summary').click();
  assert.match(await page.locator('#error-source').textContent(), /rows/);
  console.log(`measured: ${rows.length} rows (${rows.map((r) => r.id).join(' ')})`);
});

test('par-1. DEP 8 runs DeepSeek-R1 with a layout hint; the engine control names its profile', async (t) => {
  const { page } = await openApp(t);
  await page.locator('#gpu').selectOption('h200-sxm');
  await page.locator('#gpus').fill('8');
  await page.locator('#model').selectOption('deepseek-r1');
  await page.locator('#tp').selectOption('1');
  await page.locator('#ep').fill('8');
  await waitUntil(page, 'the DEP 8 hint', () =>
    /DEP 8: 8 attention ranks, experts over 8 GPUs/.test(document.querySelector('#dp-attention-hint')?.textContent ?? ''),
  );
  const dep = await metricText(page, 'output_tok_s');
  assert.match(dep, /\d/, `a throughput under DEP 8 (${dep})`);
  const hint = async () => (await page.locator('#engine-hint').textContent()).trim();
  assert.match(await hint(), /Generic \(pooled fit\) on CUDA, tuned, fitted on \d+ rows/);
  // The other deployment is shown beside the throughput (issue 25 §2).
  await waitUntil(page, 'the stock-launch line', () =>
    /^stock launch: [\d,]+ tok\/s, [−+]\d+ %, TPOT [\d.,]+ ms\.$/.test(document.querySelector('#deployment-contrast')?.textContent ?? ''),
  );
  await page.locator('#engine').selectOption('sglang');
  await waitUntil(page, 'the SGLang profile hint', () =>
    /SGLang on CUDA, tuned, fitted on \d+ rows/.test(document.querySelector('#engine-hint')?.textContent ?? ''),
  );
  // Stock: the control beside Engine picks the stock profile, and the line beside the
  // throughput now shows the tuned benchmark.
  await page.locator('#deployment').selectOption('stock');
  await waitUntil(page, 'the stock SGLang profile hint', () =>
    /SGLang on CUDA, stock, fitted on \d+ rows/.test(document.querySelector('#engine-hint')?.textContent ?? ''),
  );
  await waitUntil(page, 'the tuned-benchmark line', () =>
    /^tuned benchmark: /.test(document.querySelector('#deployment-contrast')?.textContent ?? ''),
  );
  await waitUntil(page, 'the link carrying the deployment', () => /deployment=stock/.test(location.href));
  await page.locator('#gpu').selectOption('mi300x');
  await waitUntil(page, 'the ROCm profile hint', () =>
    /SGLang on ROCm/.test(document.querySelector('#engine-hint')?.textContent ?? ''),
  );
  console.log(`DEP 8 on 8xH200: ${dep} tok/s; ${await hint()}`);
});

test('one-1. a saturated headline takes the simulator\'s TTFT and says so; the Cost panel sizes for the traffic under the plan\'s ceiling', async (t) => {
  const { page } = await openApp(t);
  await page.locator('#model').selectOption('llama-3.1-8b');
  await page.locator('#gpus').fill('1');
  await page.locator('#batch-size-number').fill('1024');
  await page.locator('#batch-size-number').press('Enter');
  // Past the KV capacity the closed form is saturated; once the simulator panel's run of the
  // point is in, the headline TTFT is its mean, labelled (issue 26 §4).
  await waitUntil(page, 'the simulated TTFT headline', () =>
    [...document.querySelectorAll('.metric-label')].some((l) => l.textContent.trim() === 'TTFT (simulated)'),
  undefined, 30_000);
  const headline = Number((await metricText(page, 'ttft_ms')).replace(/,/g, ''));
  const simMean = Number((await page.locator('[data-metric="ttft_ms_mean"]').first().textContent()).replace(/,/g, ''));
  assert.ok(Math.abs(headline - simMean) <= 0.01 * simMean + 1, `headline ${headline} vs the simulator's mean ${simMean}`);
  // The Cost panel sizes the configuration for the traffic (default 10 req/s) under the plan's
  // ceiling and says so.
  await waitUntil(page, 'the sizing rules line', () =>
    /Sized at ≤ 80 % utilization/.test(document.querySelector('#sizing-rules')?.textContent ?? ''),
  undefined, 30_000);
  const util = Number((await metricText(page, 'traffic_utilization_pct')).replace(/[^\d.]/g, ''));
  assert.ok(util <= 80, `utilization ${util} % within the ceiling`);
  assert.match(await page.locator('#sizing-range').textContent(), /GPUs.*within the ±\d+ % expected throughput error.* \((modeled|calibrated|measured)\)/);
  // With an SLO, the Targets panel shows the simulated goodput and the attainment at the
  // traffic (issue 26 §8), and Compare a goodput column.
  await page.locator('#slo-ttft-ms').fill('3000');
  await page.locator('#slo-tpot-ms').fill('100');
  await waitUntil(page, 'the goodput', () =>
    /\d/.test(document.querySelector('[data-metric="goodput_req_s"]')?.textContent ?? ''),
  undefined, 30_000);
  assert.match(await metricText(page, 'slo_attainment_pct'), /^\d+(\.\d)?$/);
  await waitUntil(page, 'the Compare goodput cell', () =>
    /\d/.test(document.querySelector('#compare-table [data-col="goodput_req_s"]')?.textContent ?? ''),
  undefined, 30_000);
});

test('one-2. with an SLO, auto draws the layout that meets it most cheaply and says so; switching GPUs compares each GPU\'s choice', async (t) => {
  const { page } = await openApp(t);
  const tpHint = () => page.$eval('#tp', (el) => document.getElementById(el.getAttribute('aria-describedby'))?.textContent ?? '');
  await page.locator('#model').selectOption('llama-3.1-70b');
  await page.locator('#precision').selectOption('fp8');
  await page.locator('#gpu').selectOption('h200-sxm');
  // No target yet: the default rule, and the hint says which (issue 26 §2).
  await waitUntil(page, 'the default rule\'s hint', () => /smallest that fits/.test(
    document.getElementById(document.querySelector('#tp')?.getAttribute('aria-describedby'))?.textContent ?? ''));
  assert.match(await tpHint(), /^auto TP 1, the smallest that fits/);
  await page.locator('#slo-ttft-ms').fill('500');
  await page.locator('#slo-tpot-ms').fill('40');
  await waitUntil(page, 'auto\'s choice for the SLO in the TP hint', () => /^auto chose /.test(
    document.getElementById(document.querySelector('#tp')?.getAttribute('aria-describedby'))?.textContent ?? ''),
  undefined, 60_000);
  const chosen = await tpHint();
  assert.match(chosen, /^auto chose (TP|DEP) \d+: the cheapest meeting P90 TTFT ≤ 500 ms/);
  assert.doesNotMatch(chosen, /^auto chose TP 1:/, 'TP 1 on H200 is not the cheapest under this SLO');
  assert.equal(await page.locator('#tp').inputValue(), 'auto', 'the control (and so the link) keeps auto');
  const onH200 = await page.locator('#sizing-layout').textContent();
  assert.match(onH200, /^auto chose /);
  // Another GPU: auto chooses again for it (its own sizing of every layout), so the comparison
  // is between each GPU's best layout.
  await page.locator('#gpu').selectOption('h100-sxm');
  await waitUntil(page, 'auto\'s choice on H100', (before) => {
    const hint = document.getElementById(document.querySelector('#tp')?.getAttribute('aria-describedby'))?.textContent ?? '';
    const sizing = document.querySelector('#sizing-layout')?.textContent ?? before;
    return /^auto chose /.test(hint) && /^auto chose /.test(sizing) && sizing !== before;
  }, onH200, 60_000);
  assert.match(await tpHint(), /^auto chose (TP|DEP) \d+: /);
});

test('i. no network request while using the decision tools', async (t) => {
  const { page, log } = await openApp(t);
  await page.locator('#pin').click();
  await page.locator('#slo-tpot-ms').fill('40');
  await page.locator('#traffic-tokens-per-day').fill('2000000000');
  await page.locator('#price-tier').selectOption('low');
  await page.locator('#energy').check();
  await page.locator('#offered-load').fill('30');
  await page.locator('#plan-run').click();
  await page.waitForSelector('#plan-rejected', { timeout: 20_000 });
  await page.locator('#calibrate-text').fill('concurrency,output_tok_s,tpot_ms,ttft_ms\n1,60,16,120\n8,420,19,160\n32,1300,24,300\n');
  await page.locator('#calibrate-run').click();
  await page.waitForSelector('#calibrate-knobs', { timeout: 10_000 });
  await page.locator('#calibrate-apply').click();
  await page.waitForTimeout(1_000);
  for (const name of ['gpus_needed', 'usd_per_month', 'effective_usd_per_m_output', 'cost_usd_per_m_blended']) {
    assert.match(await metricText(page, name), /\d/, `[data-metric=${name}] shows a number`);
  }
  const external = (list) => list.filter((r) => !r.url.startsWith('data:') && !r.url.startsWith('blob:'));
  assert.deepEqual(external(log.requestsAfterLoad), [], 'requests made after the load event');
  assert.deepEqual(log.pageErrors, [], 'uncaught page errors');
});

// ------------------------------------------ serving techniques, advanced knobs, simulator

test('tech-1. static batching and a workload preset move the numbers; the simulator fills the tails offline', async (t) => {
  const { page, log } = await openApp(t);
  const before = await metricText(page, 'output_tok_s');
  await page.locator('#batching').selectOption('static');
  const staticTokS = await waitForMetricChange(page, 'output_tok_s', before, 'selecting static batching');
  console.log(`output_tok_s continuous ${before} -> static ${staticTokS}`);
  await page.locator('#batching').selectOption('continuous');
  await waitUntil(page, 'output_tok_s back to continuous', ({ sel, v }) => document.querySelector(sel)?.textContent.trim() === v, {
    sel: metricSel('output_tok_s'),
    v: before,
  });

  await page.locator('#workload').selectOption('code');
  await waitUntil(page, '#input-len to become 2048 (code preset)', () => document.querySelector('#input-len')?.value === '2048');
  assert.equal(await page.locator('#output-len').inputValue(), '28');
  assert.equal(await page.locator('#length-dist').inputValue(), 'lognormal');
  await waitForMetricChange(page, 'output_tok_s', before, 'the code preset');

  // After a pause the simulator fills P95/P99 and the latency-vs-load sweep, without the network.
  await waitUntil(
    page,
    'the simulator to fill [data-metric=tpot_ms_p99] and finish the load sweep',
    () =>
      /\d/.test(document.querySelector('[data-metric="tpot_ms_p99"]')?.textContent ?? '') &&
      /8 Poisson runs/.test(document.querySelector('#load-status')?.textContent ?? '') &&
      !/updating/.test(document.querySelector('#sim-status')?.textContent ?? ''),
    undefined,
    30_000,
  );
  const tails = {};
  for (const name of ['ttft_ms_p95', 'ttft_ms_p99', 'tpot_ms_p95', 'tpot_ms_p99', 'itl_ms_p99']) {
    tails[name] = await metricText(page, name);
    assert.match(tails[name], /\d/, `[data-metric=${name}] shows a number`);
  }
  console.log(`simulated tails: ${JSON.stringify(tails)}; ${(await page.locator('#load-status').textContent()).trim()}`);
  const loadChart = await page.$eval('#load-chart', (c) => ({ w: c.width, h: c.height }));
  assert.ok(loadChart.w > 0 && loadChart.h > 0, `#load-chart has a size (${JSON.stringify(loadChart)})`);
  const external = (list) => list.filter((r) => !r.url.startsWith('data:') && !r.url.startsWith('blob:'));
  assert.deepEqual(external(log.requestsAfterLoad), [], 'requests made after the load event');
  assert.deepEqual(log.pageErrors, [], 'uncaught page errors');
  assert.deepEqual(log.consoleErrors, [], 'console errors');
});

test('tech-2. a bad efficiency knob names the field and its range; the axis switches redraw', async (t) => {
  const { page } = await openApp(t);
  const good = await metricTexts(page);
  await page.locator('#advanced summary').click();
  await page.locator('#eta-mem').fill('2');
  await waitUntil(page, '#input-error to name eta-mem and its range', () =>
    /Memory-bandwidth efficiency.*0\.05 to 1/.test(document.querySelector('#input-error')?.textContent ?? ''),
  );
  assert.equal(await page.locator('#eta-mem').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(await metricTexts(page), good, 'the last good view stays');
  await page.locator('#eta-mem').fill('');
  await waitUntil(page, '#input-error to clear', () => (document.querySelector('#input-error')?.textContent ?? '').trim() === '');
  assert.deepEqual(await metricTexts(page), good, 'empty = the default');
  assert.match(await page.locator('#eta-mem').getAttribute('placeholder'), /^default 0\.\d+$/, 'the placeholder names the profile default');

  const usd = await metricText(page, 'usd_per_m_output');
  await page.locator('#ideal-roofline').check();
  const ideal = await waitForMetricChange(page, 'usd_per_m_output', usd, 'the ideal-roofline switch');
  console.log(`ideal roofline: $/M output ${usd} -> ${ideal}`);
  assert.equal(await page.locator('#eta-mem').isDisabled(), true, 'ideal roofline sets η_m');
  await page.locator('#ideal-roofline').uncheck();
  await waitForMetricChange(page, 'usd_per_m_output', ideal, 'switching ideal roofline off');

  for (const [sel, value] of [
    ['#chart-y', 'usd'],
    ['#chart-x', 'tpot'],
    ['#chart-y', 'tok-per-usd'],
    ['#chart-y', 'aggregate'],
  ]) {
    const d = await draws(page);
    await page.locator(sel).selectOption(value);
    await waitForDrawAfter(page, d, `${sel} = ${value}`);
  }
});

test('tech-3. a pasted config.json becomes the model, and a bad one names the key', async (t) => {
  const { page } = await openApp(t);
  const before = await metricText(page, 'output_tok_s');
  await page.locator('#model').selectOption('custom');
  await page.locator('#custom-model').fill('{"hidden_size": 4096}');
  await waitUntil(page, '#input-error to name the missing key', () =>
    /num_hidden_layers/.test(document.querySelector('#input-error')?.textContent ?? ''),
  );
  assert.equal(await metricText(page, 'output_tok_s'), before, 'the last good view stays');
  const config = {
    architectures: ['LlamaForCausalLM'],
    hidden_size: 4096,
    intermediate_size: 14336,
    num_attention_heads: 32,
    num_hidden_layers: 32,
    num_key_value_heads: 8,
    vocab_size: 128256,
    max_position_embeddings: 131072,
    model_type: 'llama',
  };
  await page.locator('#custom-model').fill(JSON.stringify(config, null, 2));
  await waitForMetricChange(page, 'output_tok_s', before, 'pasting a Llama 3.1 8B config.json');
  assert.equal((await page.locator('#input-error').textContent()).trim(), '');
  assert.equal(await metricText(page, 'custom_params_b'), '8.03 B');
});
