// Quality-gate measurements of the built site in headless Chromium; run by `scripts/bench`, which
// builds the release site into its own directory and passes it here:
//
//   node tests/e2e/bench.mjs DIST_DIR [--native-poisson-req-s N] [--native-closed-req-s N] [--json FILE]
//
// Prints one figure per line, then every budget as PASS/FAIL; exits 1 if a budget fails.
//   first load      the files the explorer fetches on its first load (html, js, wasm, css), raw and
//                   gzip -9 (what a compressing static host sends); budget: gzip <= 300 KB. The
//                   page's second module (tools-<hash>.js and its wasm), which the explorer imports
//                   after its first chart and the embed never loads, is printed on its own line.
//   first chart     navigation start -> performance mark `servecost:first-draw` (after the first
//                   live chart draw), median of 15 fresh loads (new browser context each, after one
//                   uncounted warm-up load that starts the browser's own services); budget <= 250 ms
//   first chart visible  navigation start -> a chart on screen, measured the same way for the
//                   default page and a link with state: the later of (a) the frame that shows a
//                   chart and (b) first-contentful-paint. (a) is a requestAnimationFrame loop an init
//                   script starts; its time is performance.now() in the first callback that finds a
//                   chart visible (checkVisibility, a box): the static one drawn at build time
//                   (`.prerender svg`, issue 28 §8) or the live canvas once drawn; that frame then
//                   paints it. Not the callback's own timestamp: that is the frame's begin time,
//                   which can precede the task that drew the live chart by 100 ms and more when the
//                   main thread is busy (a link's figure read 114 ms while its chart was drawn at
//                   200). (b) is when the browser presented the first paint, which the build-time
//                   chart is part of. Median of the same 15 loads for the default page (budget
//                   <= 120 ms) and of 15 loads of a link with state (`?model=llama-3.1-8b`, which
//                   shows only its own, live chart; budget <= 250 ms), each with its frame and FCP
//                   medians and the bytes (gzip -9) it needs first: HTML and CSS for the default
//                   page, the whole first load for a link; and when the live explorer replaced the
//                   build-time screen on the default page (`servecost:takeover`, median; not
//                   budgeted). Beside the default page, a blank page's first-contentful-paint
//                   (one word, served the same way, opened in a fresh context just before each
//                   default-page load; not budgeted): the part of the figure no page can remove,
//                   which moves with the machine's load between runs, and the default page's
//                   chart over it (median of the differences)
//   update          `servecost:update` measures (control input -> chart drawn) over 200 slider moves,
//                   each waited for; median and p95; budget: p95 <= 4 ms. `servecost:draw` (the
//                   canvas draw alone) is printed beside it to show what dominates.
//   drag            a 200-step mouse drag along the slider (press to release) on a fresh page:
//                   the longest main-thread task, from a light Chrome trace (task events on the
//                   page's renderer main thread only), and the `longtask` entries (> 50 ms) a
//                   PerformanceObserver saw; budget: no task > 50 ms. The second after the release
//                   is reported too. If a task is over 50 ms, the drag is repeated under full
//                   timeline tracing (which slows the page) to break such tasks down by event
//                   (script, input, layout, paint, timers, GC).
//   simulator       requests/s of the standard 10,000-request run in the page, timed with
//                   performance.now() around `__servecostSimBench(kind)`, an export of the page's
//                   second module (tools-<hash>.js) (best of 5,
//                   as the native simbench reports); the native figures come from the command line
//
// playwright-core drives the system Chromium (/usr/bin/chromium or $CHROMIUM_PATH); the site is
// served by serve.mjs on a free 127.0.0.1 port. Nothing is downloaded.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import os from 'node:os';
import { openPage as openAppPage, openSite } from './browser.mjs';
import { startServer } from './serve.mjs';

// Fresh loads per page-load figure. One load's first paint on a 2-core machine spreads over
// +-25 ms (first-contentful-paint of the default page ranged 84-232 ms over 40 loads), so a
// median of 5 moved by 10 ms and more between runs of one build; 15 halves that (the median's
// standard error falls as 1/sqrt(n)) for about 15 s more.
const LOADS = 15;
const MOVES = 200;
const DRAG_STEPS = 200;
const SETTLE_MS = 1_000;
const SIM_REPEATS = 5;

const BUDGET = {
  firstLoadGzipBytes: 300_000, // 300 KB
  firstChartMs: 250,
  updateP95Ms: 4,
  longestDragTaskMs: 50,
  firstChartVisibleMs: 120,
  firstChartVisibleLinkMs: 250,
};
/** A link with state: the page shows its own view, computed by the live explorer. */
const STATE_LINK = '?model=llama-3.1-8b';
// Issue 15's stricter targets for the same two figures, printed as budgets of their own.
const ISSUE_15 = { firstLoadGzipBytes: 280_000, firstChartMs: 200 };

// ------------------------------------------------------------------------------------ arguments
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const dist = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
if (!dist) {
  console.error('usage: node bench.mjs DIST_DIR [--native-poisson-req-s N] [--native-closed-req-s N] [--json FILE]');
  process.exit(2);
}
const nativeReqS = {
  poisson: Number(option('--native-poisson-req-s')) || null,
  closed: Number(option('--native-closed-req-s')) || null,
};
const jsonOut = option('--json');

// ------------------------------------------------------------------------------------ helpers
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
};
const ms = (x) => `${x.toFixed(2)} ms`;
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
const figures = {};
const budgets = [];
const line = (label, text) => console.log(`${label.padEnd(34)} ${text}`);
function budget(name, ok, detail) {
  budgets.push({ name, ok, detail });
}

/** A fresh page with the app drawn; `responses` lists every URL it requested, from navigation on. */
async function openPage(browser, url, options = {}) {
  const opened = await openAppPage(browser, url, options);
  return { ...opened, responses: opened.log.requests };
}

/**
 * Init script: `window.__benchChartVisible` = performance.now() in the first animation frame
 * callback that finds a chart visible, the build-time one (`.prerender svg`) or the live canvas
 * after its first draw (not the callback's frame timestamp: header comment).
 */
function watchFirstVisibleChart() {
  window.__benchChartVisible = null;
  const shown = (el) => {
    if (!el || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const check = () => {
    const pre = document.querySelector('.prerender .chart-frame svg');
    const live = document.getElementById('pareto-chart');
    if (shown(pre) || (Number(window.__servecostDraws) >= 1 && shown(live))) {
      window.__benchChartVisible = performance.now();
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

/** When the first chart was visible: its frame, no earlier than the first contentful paint. */
async function firstVisibleChart(page) {
  await page.waitForFunction(
    () => window.__benchChartVisible !== null && performance.getEntriesByName('first-contentful-paint').length > 0,
    null,
    { timeout: 10_000, polling: 20 },
  );
  return page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0;
    return { visible: Math.max(window.__benchChartVisible, fcp), frame: window.__benchChartVisible, fcp };
  });
}

/** A page holding one word, served as the site is (serve.mjs, from its own directory). */
let blankSite = null;
async function blankUrl() {
  if (!blankSite) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'servecost-bench-blank-'));
    fs.writeFileSync(
      path.join(dir, 'index.html'),
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body><p>blank</p></body></html>\n',
    );
    blankSite = { dir, server: await startServer({ root: dir }) };
  }
  return blankSite.server.url;
}

/** First-contentful-paint of the blank page in a fresh context, opened as the default page is. */
async function blankFirstPaint(browser) {
  const url = await blankUrl();
  const { context, page } = await openPage(browser, url, { initScript: watchFirstVisibleChart, waitForApp: false });
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, null, {
    timeout: 10_000,
    polling: 20,
  });
  const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0].startTime);
  await context.close();
  return fcp;
}

/** Waits until the chart has been drawn again (polled every animation frame). */
async function waitForDrawAfter(page, previous) {
  await page.waitForFunction((p) => window.__servecostDraws > p, previous, { timeout: 5_000, polling: 'raf' });
}

// ------------------------------------------------------------------------------------ 1. first load
async function measureFirstLoad(browser, baseUrl) {
  const origin = new URL(baseUrl).origin;
  const firstChartMs = [];
  const phases = [];
  let files = null;
  // One warm-up load first, not counted: the first page a freshly launched Chromium opens also
  // pays for starting the browser's own services (GPU and network processes, font caches),
  // which a reader whose browser is already open never waits for. Every counted load is still
  // cold for the page: a new browser context (no HTTP cache, no compiled-code cache, no
  // storage) and a new renderer.
  {
    const { context, page } = await openPage(browser, baseUrl);
    const warm = await page.evaluate(() => performance.getEntriesByName('servecost:first-draw')[0]?.startTime ?? null);
    figures.firstChartWarmUp = warm;
    line('warm-up load (not counted)', warm === null ? 'no first-draw mark' : `first chart ${ms(warm)}`);
    await context.close();
  }
  const visible = [];
  const blank = [];
  for (let i = 0; i < LOADS; i++) {
    blank.push(await blankFirstPaint(browser));
    const { context, page, responses } = await openPage(browser, baseUrl, { initScript: watchFirstVisibleChart });
    visible.push(await firstVisibleChart(page));
    const timing = await page.evaluate(() => {
      const entry = performance.getEntriesByName('servecost:first-draw')[0];
      const wasm = performance.getEntriesByType('resource').find((r) => r.name.endsWith('.wasm'));
      const nav = performance.getEntriesByType('navigation')[0];
      const tools = performance.getEntriesByName('servecost:tools-ready')[0];
      const started = performance.getEntriesByName('servecost:start')[0];
      const takeover = performance.getEntriesByName('servecost:takeover')[0];
      return {
        firstDraw: entry ? entry.startTime : null,
        toolsReady: tools ? tools.startTime : null,
        started: started ? started.startTime : null,
        takeover: takeover ? takeover.startTime : null,
        wasmLoaded: wasm ? wasm.responseEnd : null,
        domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
      };
    });
    if (timing.firstDraw === null) throw new Error('no performance mark servecost:first-draw after the first draw');
    firstChartMs.push(timing.firstDraw);
    phases.push(timing);
    if (files === null) {
      // Everything the first load fetched from the site (page, glue, module, stylesheet).
      files = [...new Set(responses)]
        .filter((u) => u.startsWith(origin))
        .map((u) => {
          let rel = decodeURIComponent(new URL(u).pathname);
          if (rel.endsWith('/')) rel += 'index.html';
          const body = fs.readFileSync(path.join(dist, rel));
          return { file: rel.replace(/^\//, ''), raw: body.length, gzip: zlib.gzipSync(body, { level: 9 }).length };
        });
    }
    await context.close();
  }
  // The explorer's first load is everything but the page's second module (tools-<hash>.js, its
  // wasm and its stylesheet), which the explorer imports only after its first chart is drawn.
  const isTools = (f) => /^tools-[0-9a-f]{16}(\.js|_bg\.wasm|\.css)$/.test(f.file);
  const toolsFiles = files.filter(isTools);
  files = files.filter((f) => !isTools(f));
  const raw = files.reduce((s, f) => s + f.raw, 0);
  const gzip = files.reduce((s, f) => s + f.gzip, 0);
  const byKind = (ext) => files.filter((f) => f.file.endsWith(ext));
  const parts = ['.wasm', '.js', '.css', '.html']
    .map((ext) => {
      const list = byKind(ext);
      if (list.length === 0) return null;
      return `${ext.slice(1)} ${kb(list.reduce((s, f) => s + f.raw, 0))}/${kb(list.reduce((s, f) => s + f.gzip, 0))}`;
    })
    .filter(Boolean)
    .join(', ');
  figures.firstLoad = { files, raw, gzip };
  line('first load, raw', `${kb(raw)} (${raw} bytes; ${files.length} files)`);
  line('first load, gzip -9', `${kb(gzip)} (${gzip} bytes; raw/gzip by kind: ${parts})`);
  budget('first load gzip <= 300 KB', gzip <= BUDGET.firstLoadGzipBytes, kb(gzip));
  budget('first load gzip <= 280 KB (issue 15)', gzip <= ISSUE_15.firstLoadGzipBytes, kb(gzip));
  const toolsRaw = toolsFiles.reduce((s, f) => s + f.raw, 0);
  const toolsGzip = toolsFiles.reduce((s, f) => s + f.gzip, 0);
  figures.toolsModule = { files: toolsFiles, raw: toolsRaw, gzip: toolsGzip };
  line(
    'deferred tools module',
    `${kb(toolsRaw)} raw, ${kb(toolsGzip)} gzip (${toolsFiles.map((f) => f.file).join(', ') || 'not loaded'}), ` +
      'fetched after the first chart; whole page ' + `${kb(raw + toolsRaw)} raw, ${kb(gzip + toolsGzip)} gzip`,
  );

  const median = quantile(firstChartMs, 0.5);
  figures.firstChart = { runs: firstChartMs, median };
  line(`first chart (median of ${LOADS} loads)`, `${ms(median)} (runs: ${firstChartMs.map((x) => x.toFixed(0)).join(', ')} ms)`);
  const medianOf = (key) => quantile(phases.map((p) => p[key]).filter((x) => x !== null), 0.5);
  line(
    '  on the way (medians)',
    `wasm downloaded ${ms(medianOf('wasmLoaded'))}, DOMContentLoaded ${ms(medianOf('domContentLoaded'))}, ` +
      `module running (servecost:start) ${ms(medianOf('started'))}; after that: the explorer's first render and draw`,
  );
  budget('first chart <= 250 ms', median <= BUDGET.firstChartMs, ms(median));

  // The first chart a reader sees: on the default page the build-time one, which needs only the
  // HTML and the stylesheet; on a link with state the live one, which needs the whole first load.
  const gzipOf = (exts) => files.filter((f) => exts.some((e) => f.file.endsWith(e))).reduce((s, f) => s + f.gzip, 0);
  const htmlCss = gzipOf(['.html', '.css']);
  const link = [];
  for (let i = 0; i < LOADS; i++) {
    const { context, page } = await openPage(browser, baseUrl + STATE_LINK, { initScript: watchFirstVisibleChart });
    link.push(await firstVisibleChart(page));
    await context.close();
  }
  const summary = (loads) => ({
    runs: loads.map((l) => l.visible),
    median: quantile(loads.map((l) => l.visible), 0.5),
    frameMedian: quantile(loads.map((l) => l.frame), 0.5),
    fcpMedian: quantile(loads.map((l) => l.fcp), 0.5),
  });
  const visibleSummary = summary(visible);
  const linkSummary = summary(link);
  const visibleMedian = visibleSummary.median;
  const linkMedian = linkSummary.median;
  figures.firstChartVisible = {
    default: { ...visibleSummary, gzipBytesBefore: htmlCss },
    link: { url: STATE_LINK, ...linkSummary, gzipBytesBefore: gzip },
  };
  const described = (s) =>
    `${ms(s.median)} (runs: ${s.runs.map((x) => x.toFixed(0)).join(', ')} ms; medians: chart frame ` +
    `${s.frameMedian.toFixed(0)} ms, first-contentful-paint ${s.fcpMedian.toFixed(0)} ms)`;
  line('first chart visible, default page', `${described(visibleSummary)}; needs HTML + CSS, ${kb(htmlCss)} gzip`);
  // What a page with one word costs in this browser on this machine, loaded just before each
  // default-page load: the part of the figure no page can remove (navigation, a new renderer,
  // the first frame), which moves with the machine's load between runs.
  const overBlank = visible.map((v, i) => v.visible - blank[i]);
  figures.blankFirstPaint = { runs: blank, median: quantile(blank, 0.5), defaultOverBlankMedian: quantile(overBlank, 0.5) };
  line(
    '  a blank page (not budgeted)',
    `first-contentful-paint ${ms(quantile(blank, 0.5))} (median of ${LOADS}, each loaded just before a default-page load); ` +
      `the default page's chart ${ms(quantile(overBlank, 0.5))} after it (median of the differences)`,
  );
  line(`first chart visible, ${STATE_LINK}`, `${described(linkSummary)}; needs the whole first load, ${kb(gzip)} gzip`);
  const takeovers = phases.map((p) => p.takeover).filter((x) => x !== null);
  figures.takeover = { runs: takeovers, median: takeovers.length ? quantile(takeovers, 0.5) : null };
  line(
    '  live chart shown (takeover)',
    takeovers.length
      ? `${ms(quantile(takeovers, 0.5))} median on the default page: the live explorer replaces the build-time screen once its chart has the technique ladder and its numbers (servecost:takeover)`
      : 'no servecost:takeover mark',
  );
  budget('first chart visible <= 120 ms (default page)', visibleMedian <= BUDGET.firstChartVisibleMs, ms(visibleMedian));
  budget('first chart visible <= 250 ms (link with state)', linkMedian <= BUDGET.firstChartVisibleLinkMs, ms(linkMedian));
  budget('first chart <= 200 ms (issue 15)', median <= ISSUE_15.firstChartMs, ms(median));
  const toolsReady = phases.map((p) => p.toolsReady).filter((x) => x !== null);
  figures.toolsReady = { runs: toolsReady, median: toolsReady.length ? quantile(toolsReady, 0.5) : null };
  line(
    `tools mounted (median of ${LOADS} loads)`,
    toolsReady.length ? `${ms(quantile(toolsReady, 0.5))} after navigation (runs: ${toolsReady.map((x) => x.toFixed(0)).join(', ')} ms)` : 'never',
  );
}

// ------------------------------------------------------------------------------------ 2. updates
async function sliderInfo(page) {
  return page.$eval('#batch-size', (el) => ({
    min: el.min === '' ? 0 : Number(el.min),
    max: el.max === '' ? 100 : Number(el.max),
    value: Number(el.value),
  }));
}

async function measureUpdates(browser, baseUrl) {
  const { context, page } = await openPage(browser, baseUrl);
  const s = await sliderInfo(page);
  const span = s.max - s.min;
  // Far-apart positions, so that every move changes the concurrency (several positions near the
  // left end map to the same one, and then nothing is redrawn).
  const cycle = [0.1, 0.6, 0.3, 0.9, 0.2, 0.7, 0.4, 1.0].map((f) => s.min + Math.round(f * span));
  await page.evaluate(() => {
    performance.clearMeasures('servecost:update');
    performance.clearMeasures('servecost:draw');
  });
  for (let i = 0; i < MOVES; i++) {
    const previous = await page.evaluate(() => window.__servecostDraws);
    await page.locator('#batch-size').fill(String(cycle[i % cycle.length]));
    await waitForDrawAfter(page, previous);
  }
  const { update, draw } = await page.evaluate(() => ({
    update: performance.getEntriesByName('servecost:update', 'measure').map((e) => e.duration),
    draw: performance.getEntriesByName('servecost:draw', 'measure').map((e) => e.duration),
  }));
  await context.close();
  if (update.length < MOVES) throw new Error(`only ${update.length} servecost:update measures for ${MOVES} moves`);
  const u = { n: update.length, median: quantile(update, 0.5), p95: quantile(update, 0.95), max: Math.max(...update) };
  const d = { n: draw.length, median: quantile(draw, 0.5), p95: quantile(draw, 0.95), max: Math.max(...draw) };
  figures.update = u;
  figures.draw = d;
  line(`update (${MOVES} slider moves)`, `median ${ms(u.median)}, p95 ${ms(u.p95)}, max ${ms(u.max)}`);
  line('  of which chart draw', `median ${ms(d.median)}, p95 ${ms(d.p95)}, max ${ms(d.max)}`);
  budget('update p95 <= 4 ms', u.p95 <= BUDGET.updateP95Ms, ms(u.p95));
}

// ------------------------------------------------------------------------------------ 3. drag
/** The longest task on the renderer main thread that recorded our marks, between two marks. */
function longestTask(trace, startMark, endMark) {
  const events = trace.traceEvents || [];
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const mark = (name) => events.find((e) => e.name === name && mainThreads.has(`${e.pid}:${e.tid}`));
  const start = mark(startMark);
  const end = mark(endMark);
  if (!start || !end) return null;
  const thread = `${start.pid}:${start.tid}`;
  // A task is one top-level scheduler event; Chrome names it one of these (nested, so use one).
  const onThread = events.filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === thread);
  const taskName = ['ThreadControllerImpl::RunTask', 'RunTask'].find((n) => onThread.some((e) => e.name === n));
  const tasks = onThread.filter((e) => e.name === taskName && e.ts >= start.ts && e.ts <= end.ts);
  const durations = tasks.map((e) => (e.dur || 0) / 1000);
  // What the long tasks did: time by trace event name inside each (nested events counted in each).
  const inside = {};
  for (const task of tasks.filter((e) => e.dur > 50_000)) {
    for (const e of onThread) {
      if (e === task || e.ts < task.ts || e.ts + (e.dur || 0) > task.ts + task.dur) continue;
      if (!BREAKDOWN.has(e.name)) continue;
      const key = e.name === 'EventDispatch' ? `EventDispatch(${e.args?.data?.type})` : e.name;
      inside[key] = (inside[key] || 0) + (e.dur || 0) / 1000;
    }
  }
  return {
    tasks: durations.length,
    longest: durations.length ? Math.max(...durations) : 0,
    over50: durations.filter((x) => x > 50).length,
    over50Ms: durations.filter((x) => x > 50).map((x) => Math.round(x)),
    inside,
  };
}
const BREAKDOWN = new Set([
  'FunctionCall',
  'TimerFire',
  'EventDispatch',
  'RunMicrotasks',
  'FireAnimationFrame',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'MajorGC',
  'MinorGC',
  'ResizeObserver',
]);

/** Light tracing: task events and our marks only, so that the trace barely slows the page. */
const LIGHT_TRACE = ['toplevel', 'blink.user_timing'];
/** Full timeline tracing, to say what a long task did; it slows the page noticeably. */
const DETAILED_TRACE = ['toplevel', 'blink.user_timing', 'devtools.timeline', 'disabled-by-default-devtools.timeline'];

/** One drag (press, DRAG_STEPS moves there and back, release) on a fresh page, traced. */
async function dragOnce(browser, baseUrl, categories) {
  const { context, page } = await openPage(browser, baseUrl);
  const slider = page.locator('#batch-size');
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  if (!box) throw new Error('#batch-size has no box');
  const y = box.y + box.height / 2;
  const left = box.x + 4;
  const right = box.x + box.width - 4;
  await page.evaluate(() => {
    window.__benchLongTasks = [];
    new PerformanceObserver((list) => window.__benchLongTasks.push(...list.getEntries().map((e) => [e.startTime, e.duration]))).observe({
      type: 'longtask',
    });
    performance.clearMeasures('servecost:update');
  });
  const drawsBefore = await page.evaluate(() => window.__servecostDraws);
  await browser.startTracing(page, { categories });
  await page.evaluate(() => performance.mark('bench:drag-start'));
  await page.mouse.move(left, y);
  await page.mouse.down();
  // There and back: 200 moves in all, one pixel-ish step each, every one dispatched and acknowledged.
  const half = DRAG_STEPS / 2;
  for (let i = 1; i <= DRAG_STEPS; i++) {
    const f = i <= half ? i / half : (DRAG_STEPS - i) / half;
    await page.mouse.move(left + f * (right - left), y);
  }
  await page.mouse.up();
  await page.evaluate(() => performance.mark('bench:drag-end'));
  // After the release: the last redraw and whatever the page does once the slider rests.
  await page.waitForTimeout(SETTLE_MS);
  await page.evaluate(() => performance.mark('bench:settle-end'));
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8'));
  const seen = await page.evaluate(() => ({
    longTasks: window.__benchLongTasks
      .filter(([start]) => start >= performance.getEntriesByName('bench:drag-start')[0].startTime)
      .filter(([start]) => start <= performance.getEntriesByName('bench:drag-end')[0].startTime)
      .map(([, duration]) => duration),
    updates: performance.getEntriesByName('servecost:update', 'measure').map((e) => e.duration),
    draws: window.__servecostDraws,
  }));
  await context.close();
  return {
    traced: longestTask(trace, 'bench:drag-start', 'bench:drag-end'),
    settled: longestTask(trace, 'bench:drag-end', 'bench:settle-end'),
    longTasks: seen.longTasks,
    updates: seen.updates,
    draws: seen.draws - drawsBefore,
  };
}

const inside = (t) =>
  Object.entries(t.inside)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, ms]) => `${name} ${ms.toFixed(0)} ms`)
    .join(', ');

async function measureDrag(browser, baseUrl) {
  const run = await dragOnce(browser, baseUrl, LIGHT_TRACE);
  const { traced, settled, longTasks, updates, draws } = run;
  const observedMax = longTasks.length ? Math.max(...longTasks) : 0;
  const longest = Math.max(traced ? traced.longest : 0, observedMax);
  figures.drag = run;
  line(
    `drag (${DRAG_STEPS} mouse moves)`,
    `longest main-thread task ${traced ? ms(traced.longest) : 'n/a (no trace)'} of ${traced ? traced.tasks : '?'} tasks; ` +
      `longtask entries (> 50 ms): ${longTasks.length}${longTasks.length ? ` (max ${ms(observedMax)})` : ''}; ${draws} redraws`,
  );
  if (updates.length) {
    line('  update while dragging', `median ${ms(quantile(updates, 0.5))}, p95 ${ms(quantile(updates, 0.95))} (${updates.length} measures)`);
  }
  if (settled) line(`  after release (${SETTLE_MS} ms)`, `longest task ${ms(settled.longest)} (not budgeted)`);
  budget('no main-thread task > 50 ms while dragging', longest <= BUDGET.longestDragTaskMs, ms(longest));

  if (longest > BUDGET.longestDragTaskMs || (settled && settled.over50)) {
    // Explain: the same drag again under full timeline tracing (slower, so only for the breakdown).
    const detail = await dragOnce(browser, baseUrl, DETAILED_TRACE);
    figures.dragDetail = detail;
    for (const [label, t] of [
      ['  why (detailed trace, drag)', detail.traced],
      ['  why (detailed trace, release)', detail.settled],
    ]) {
      if (!t) continue;
      line(
        label,
        t.over50
          ? `tasks over 50 ms: ${t.over50Ms.join(', ')} ms; inside them: ${inside(t)}`
          : `no task over 50 ms on this repeat (longest ${ms(t.longest)}): the long task does not recur every time`,
      );
    }
  }
}

// ------------------------------------------------------------------------------------ 4. simulator
async function measureSimulator(browser, baseUrl) {
  const { context, page } = await openPage(browser, baseUrl);
  // The hook is an export of the page's second module; importing the URL the page imported gives
  // the same, already started module instance.
  const hook = await page.evaluate(async () => {
    const src = document.querySelector('meta[name="servecost-tools"]')?.content;
    if (!src) return 'no module';
    const module = await import(new URL(src, document.baseURI).href);
    await module.default();
    window.__servecostTools = module;
    return typeof module.__servecostSimBench;
  });
  if (hook !== 'function') {
    await context.close();
    line('simulator, browser', `n/a: the tools module has no __servecostSimBench export (${hook})`);
    budget('simulator hook present', false, 'missing');
    return;
  }
  figures.simulator = {};
  for (const kind of ['poisson', 'closed']) {
    const runs = [];
    for (let i = 0; i < SIM_REPEATS; i++) {
      runs.push(
        await page.evaluate((k) => {
          const t0 = performance.now();
          const r = window.__servecostTools.__servecostSimBench(k);
          const wall = performance.now() - t0;
          return { requests: r.requests, wall_ms: wall, inner_ms: r.wall_ms, events: r.events, truncated: r.truncated };
        }, kind),
      );
    }
    const best = runs.reduce((a, b) => (b.wall_ms < a.wall_ms ? b : a));
    const reqS = best.requests / (best.wall_ms / 1000);
    figures.simulator[kind] = { best, runs, requestsPerS: reqS, native: nativeReqS[kind] };
    const native = nativeReqS[kind];
    line(
      `simulator ${kind}, browser`,
      `${Math.round(reqS)} requests/s (${best.requests} requests in ${ms(best.wall_ms)}, best of ${SIM_REPEATS}${best.truncated ? ', TRUNCATED' : ''})` +
        (native ? `; native ${Math.round(native)} requests/s, browser/native ${(reqS / native).toFixed(2)}` : ''),
    );
  }
  await context.close();
}

// ------------------------------------------------------------------------------------ main
const site = await openSite({ root: dist });
const { browser, baseUrl } = site;
let failed = false;
try {
  console.log(`bench: ${path.resolve(dist)} served at ${baseUrl}; Chromium ${browser.version()}`);
  await measureFirstLoad(browser, baseUrl);
  await measureUpdates(browser, baseUrl);
  await measureDrag(browser, baseUrl);
  await measureSimulator(browser, baseUrl);
  console.log('budgets:');
  for (const b of budgets) {
    console.log(`  ${b.ok ? 'PASS' : 'FAIL'}  ${b.name.padEnd(44)} ${b.detail}`);
    if (!b.ok) failed = true;
  }
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ figures, budgets }, null, 2));
} catch (err) {
  console.error(`bench: ${err && err.stack ? err.stack : err}`);
  failed = true;
} finally {
  await site.close();
  if (blankSite) {
    await blankSite.server.close();
    fs.rmSync(blankSite.dir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
