// Browser end-to-end tests of the Pareto chart's reading aids (issue 15 §2), run with `node --test`
// like app.test.mjs (same server, browser and wait for the tools module).
//
// Page contract: chart <canvas id="pareto-chart"> (focusable), its heading #chart-title, axis
// selects #chart-x / #chart-y, the point tooltip #chart-tooltip (role=tooltip, aria-live=polite)
// and its ring .chart-focus over the canvas, #pin (tools module), #numbers-title ("At N in flight"),
// the layout's columns .scenario / .hero / .notes-slot / .synthetic and the tools module's #tools.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
const READY_TIMEOUT_MS = 20_000;
const STEP_TIMEOUT_MS = 5_000;

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

async function waitUntil(page, what, fn, arg, timeout = STEP_TIMEOUT_MS) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 20 });
  } catch (err) {
    if (!/Timeout/i.test(String(err))) throw err;
    throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
  }
}

async function openChart(t) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  t.after(() => context.close());
  await page.goto(baseUrl, { waitUntil: 'load' });
  await waitUntil(page, 'the first chart', () => window.__servecostDraws >= 1, null, READY_TIMEOUT_MS);
  await waitUntil(page, 'the tools module (servecost:tools-ready)', () => performance.getEntriesByName('servecost:tools-ready').length > 0, null, READY_TIMEOUT_MS);
  return { page, errors };
}

const draws = (page) => page.evaluate(() => window.__servecostDraws);

/** Canvas pixels within a small distance of an sRGB colour. */
const pixelsOf = (page, [r, g, b]) =>
  page.$eval(
    '#pareto-chart',
    (canvas, [r, g, b]) => {
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 40) count += 1;
      }
      return count;
    },
    [r, g, b],
  );

// The first pin's colour (Okabe–Ito orange, chart::overlay::pin_style).
const PIN_ORANGE = [0xe6, 0x9f, 0x00];

test('chart-1. pins are drawn on every y axis, and the heading and accessible name follow the axes', async (t) => {
  const { page, errors } = await openChart(t);
  const unpinned = await pixelsOf(page, PIN_ORANGE);
  await page.locator('#pin').click();
  // A second scenario, so the pin is a curve of its own (the 8B model's is far above the 70B's).
  await page.locator('#model').selectOption('llama-3.1-8b');
  await waitUntil(page, 'the pinned curve on the chart', (rgb) => {
    const canvas = document.querySelector('#pareto-chart');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i] - rgb[0]) + Math.abs(data[i + 1] - rgb[1]) + Math.abs(data[i + 2] - rgb[2]) < 40) count += 1;
    }
    return count > 200;
  }, PIN_ORANGE, 10_000);
  // The heading's two axis names are glossary terms (their definitions sit in the heading's
  // text too); the canvas's accessible name starts with the plain heading.
  const headings = {
    'per-gpu': ['Throughput', 'interactivity'],
    aggregate: ['Aggregate throughput', 'interactivity'],
    usd: ['$ per M output tokens', 'interactivity'],
    'tok-per-usd': ['Output tokens per $', 'interactivity'],
  };
  const counts = {};
  for (const [y, [yName, xName]] of Object.entries(headings)) {
    const heading = `${yName} vs. ${xName}`;
    const before = await draws(page);
    await page.locator('#chart-y').selectOption(y);
    if (y !== 'per-gpu') await waitUntil(page, `a redraw for y = ${y}`, (d) => window.__servecostDraws > d, before);
    counts[y] = await pixelsOf(page, PIN_ORANGE);
    const title = (await page.locator('#chart-title').textContent()).trim();
    assert.ok(title.startsWith(yName) && title.includes(` vs. ${xName}`), `heading for y = ${y}: ${title}`);
    const name = await page.locator('#pareto-chart').getAttribute('aria-label');
    assert.ok(name.startsWith(`${heading} chart:`), `accessible name for y = ${y}: ${name}`);
  }
  console.log(`pin pixels: unpinned ${unpinned}, ${JSON.stringify(counts)}`);
  for (const [y, count] of Object.entries(counts)) {
    assert.ok(count > unpinned + 200, `the pin is drawn on y = ${y} (${count} orange pixels, ${unpinned} without a pin)`);
  }
  await page.locator('#chart-x').selectOption('tpot');
  await waitUntil(page, 'the TPOT heading', () => document.querySelector('#pareto-chart').getAttribute('aria-label').startsWith('Output tokens per $ vs. TPOT chart:'));
  assert.match(await page.locator('#chart-title').textContent(), / vs\. TPOT/);
  assert.deepEqual(errors, []);
});

test('chart-2. keyboard and pointer show a point tooltip; Enter and click move the slider there', async (t) => {
  const { page, errors } = await openChart(t);
  const tooltip = page.locator('#chart-tooltip');
  assert.equal(await tooltip.getAttribute('role'), 'tooltip');
  assert.equal(await tooltip.getAttribute('aria-live'), 'polite');
  assert.equal(await tooltip.isVisible(), false, 'hidden until a point is pointed at');
  const drawsBefore = await draws(page);

  // Keyboard: the first → focuses the current point (C = 64), ← ← move to more concurrency.
  await page.locator('#pareto-chart').focus();
  await page.keyboard.press('ArrowRight');
  await waitUntil(page, 'the tooltip', () => !document.querySelector('#chart-tooltip').hidden);
  const first = (await tooltip.innerText()).split('\n').map((l) => l.trim());
  assert.equal(first[0], 'C = 64 in flight', first.join(' | '));
  assert.match(first[1], /^[\d.,]+ tok\/s per user$/);
  assert.match(first[2], /^[\d.,]+ output tok\/s per GPU$/);
  assert.match(first[3], /^\$[\d.,]+ per M output tokens$/);
  assert.match(first[4], /^bound by /);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  const moved = (await tooltip.innerText()).split('\n')[0].trim();
  const picked = Number(moved.match(/^C = (\d+)/)?.[1]);
  assert.ok(picked > 64, `← moves to more concurrency: ${moved}`);
  assert.equal(await draws(page), drawsBefore, 'pointing at points never redraws the chart');
  await page.keyboard.press('Enter');
  await waitUntil(page, `the numbers at C = ${picked}`, (c) => document.querySelector('#numbers-title')?.textContent.includes(`At ${c} in flight`), picked);

  // Pointer: hover the ring's point (the one → reaches next), read its C, click it.
  await page.keyboard.press('ArrowRight');
  const ring = await page.locator('.chart-focus').boundingBox();
  const target = (await tooltip.innerText()).split('\n')[0].trim();
  await page.keyboard.press('Escape');
  assert.equal(await tooltip.isVisible(), false, 'Escape hides the tooltip');
  await page.mouse.move(ring.x + ring.width / 2 + 2, ring.y + ring.height / 2 - 2);
  await waitUntil(page, 'the hover tooltip', () => !document.querySelector('#chart-tooltip').hidden);
  assert.equal((await tooltip.innerText()).split('\n')[0].trim(), target, 'hover finds the same point');
  const c = Number(target.match(/^C = (\d+)/)?.[1]);
  await page.mouse.click(ring.x + ring.width / 2, ring.y + ring.height / 2);
  await waitUntil(page, `the numbers at C = ${c} after a click`, (c) => document.querySelector('#numbers-title')?.textContent.includes(`At ${c} in flight`), c);
  const slider = Number(await page.locator('#batch-size').inputValue());
  console.log(`tooltip: ${first.join(' | ')}; Enter picked C = ${picked}, click C = ${c} (slider ${slider})`);
  await page.mouse.move(5, 5);
  await waitUntil(page, 'the tooltip to hide when the pointer leaves', () => document.querySelector('#chart-tooltip').hidden);
  assert.deepEqual(errors, []);
});

test('chart-3. the chart stays where it was first drawn while the rest of the page arrives', async (t) => {
  // The first render holds the chart's panel and the four fields a phone shows above it; the
  // other controls, the numbers and (a module later) the share-and-export bar come after the
  // first draw. None of them may push the chart down: its box at the first-draw mark (read in
  // the page as the mark is set) must be its box once the tools module has mounted.
  const moves = [];
  for (const width of [1280, 1000, 375]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    t.after(() => context.close());
    await context.addInitScript(() => {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.name !== 'servecost:first-draw') continue;
          const r = document.getElementById('pareto-chart').getBoundingClientRect();
          window.__chartAtFirstDraw = [r.left, r.top + window.scrollY, r.width, r.height];
        }
      }).observe({ type: 'mark' });
    });
    const page = await context.newPage();
    await page.goto(baseUrl, { waitUntil: 'load' });
    await waitUntil(page, 'the tools module (servecost:tools-ready)', () => performance.getEntriesByName('servecost:tools-ready').length > 0, null, READY_TIMEOUT_MS);
    const [first, last] = await page.evaluate(() => {
      const r = document.getElementById('pareto-chart').getBoundingClientRect();
      return [window.__chartAtFirstDraw, [r.left, r.top + window.scrollY, r.width, r.height]];
    });
    assert.ok(first, `${width} px: no chart box recorded at the first-draw mark`);
    moves.push(`${width} px: ${first.map((v) => v.toFixed(0)).join(',')} -> ${last.map((v) => v.toFixed(0)).join(',')}`);
    first.forEach((v, i) => assert.ok(Math.abs(v - last[i]) <= 1, `${width} px: the chart moved from ${first} to ${last}`));
  }
  console.log(`chart box (left, top, width, height) at first draw -> with the tools: ${moves.join('; ')}`);
});

test('chart-4. at desktop width the scenario column stays in view and the panels below follow the chart', async (t) => {
  // Three columns (> 1180 px): the scenario's controls, far taller than the chart's column,
  // scroll in a sticky column of the window's height, so a control far down the list changes
  // the chart without scrolling it away, and the tools module's panels start after the chart's
  // column, not a screen of blank page lower down.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  t.after(() => context.close());
  const page = await context.newPage();
  await page.goto(baseUrl, { waitUntil: 'load' });
  await waitUntil(page, 'the tools module (servecost:tools-ready)', () => performance.getEntriesByName('servecost:tools-ready').length > 0, null, READY_TIMEOUT_MS);
  const box = (selector) => page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, viewTop: r.top, height: r.height, scrollHeight: e.scrollHeight };
  });
  const scenario = await box('.scenario');
  assert.ok(scenario.height <= 900, `the scenario column fits the window: ${scenario.height} px`);
  assert.ok(scenario.scrollHeight > scenario.height, `its controls scroll inside it: ${scenario.scrollHeight} > ${scenario.height}`);
  const middle = Math.max(...await page.$$eval('.layout > .hero, .layout > .notes-slot, .layout > .synthetic', (els) =>
    els.map((e) => e.getBoundingClientRect().bottom + window.scrollY)));
  const tools = await box('#tools');
  assert.ok(tools.top - Math.max(middle, scenario.bottom) <= 40, `the tools start ${tools.top - middle} px below the chart's column (scenario ends at ${scenario.bottom})`);
  // A control at the end of the list is reached by scrolling the column, not the page.
  await page.locator('#spec-decode').scrollIntoViewIfNeeded();
  const afterScroll = await page.evaluate(() => window.scrollY);
  const chart = await box('#pareto-chart');
  assert.ok(chart.viewTop + chart.height > 0 && chart.viewTop < 900, `the chart is still in view (top ${chart.viewTop}, page scrolled ${afterScroll} px)`);
  // Scrolled past the masthead, the column stays at the window's top.
  await page.evaluate(() => window.scrollTo(0, 250));
  const stuck = await box('.scenario');
  assert.ok(stuck.viewTop >= 0 && stuck.viewTop <= 16, `the scenario column stays at the window's top: ${stuck.viewTop}`);
  console.log(`scenario column ${scenario.height.toFixed(0)} px tall (${scenario.scrollHeight} px of controls); tools start ${(tools.top - middle).toFixed(0)} px below the chart's column`);
});
