// The default view's first screen drawn at build time (issue 28 §8), end to end in headless
// Chromium (node --test; see browser.mjs):
//
//   pre-1  with the wasm request blocked (page.route abort on *.wasm) the built page still shows
//          the default scenario's chart (an inline SVG), heading, answer, slider and numbers,
//          with no inline style and no id of the explorer's (#pareto-chart, #batch-size)
//   pre-2  the live explorer takes over without a jump: with the wasm held back, the static
//          screen's boxes (chart frame, slider, numbers panel, and the drop-down lists, text
//          boxes and slider it draws where the explorer has form controls) and texts (answer, subtitle, slider value, KV
//          status, numbers) are read; once the explorer has taken over
//          (servecost:takeover) the static screen is gone, the explorer is visible, and its boxes
//          are within a few px and its texts the same, at a desktop and a phone width; at the
//          desktop width the static chart is drawn on the live canvas's pixel grid
//   pre-3  a link with state (?model=, ?embed=1, a hash holding state) and a remembered
//          scenario (localStorage) never show the default's static chart: hidden at
//          DOMContentLoaded and after load, with the wasm blocked
//   pre-4  the static first screen paints as the page's one layer: no box of it is composited
//          (the compositor's layer tree, read through the DevTools protocol, with the wasm
//          blocked), since each layer is rasterized apart before the first paint (a sticky
//          scenario panel made seven)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, READY_TIMEOUT_MS } from './browser.mjs';

const TOLERANCE_PX = 3;

let site;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

/** A fresh page whose wasm requests fail (`block`) or wait until `release()` is called. */
async function pageWithWasm(mode, contextOptions = {}) {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  const page = await context.newPage();
  let release = () => {};
  const held = new Promise((resolve) => {
    release = resolve;
  });
  if (mode === 'block') {
    await page.route('**/*.wasm', (route) => route.abort());
  } else if (mode === 'hold') {
    await page.route('**/*.wasm', async (route) => {
      await held;
      await route.continue();
    });
  }
  // Whether the static first screen was visible when the document was parsed.
  await page.addInitScript(() => {
    document.addEventListener('DOMContentLoaded', () => {
      const pre = document.querySelector('.prerender');
      window.__prerenderAtDomContentLoaded = Boolean(pre && pre.checkVisibility());
    });
  });
  return { context, page, release };
}

/** Boxes and texts of the first screen, from the static one (`root` = '.prerender') or the live one. */
function readScreen(page, root) {
  return page.evaluate((root) => {
    const scope = document.querySelector(root);
    if (!scope) return null;
    const box = (selector) => {
      const el = scope.querySelector(selector);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    };
    const text = (selector) => scope.querySelector(selector)?.innerText.replace(/\s+/g, ' ').trim() ?? null;
    const metrics = [...scope.querySelectorAll('.numbers .metric-group')].slice(0, 3).map((group) =>
      [...group.querySelectorAll('.metric')].map((m) => [
        m.querySelector('.metric-label').innerText.replace(/\s+/g, ' ').trim(),
        m.querySelector('.metric-value').innerText.replace(/\s+/g, ' ').trim(),
      ]),
    );
    return {
      boxes: {
        chart: box('.chart-frame'),
        // The slider and the batch-size box, drawn in the static screen (first_screen.rs
        // `range`, `text_box`) and form controls in the explorer.
        slider: box('.slider input[type="range"], .slider .range'),
        number: box('.slider-number input, .slider-number .input'),
        numbers: box('.numbers-panel'),
        heading: box('.hero h2'),
        // The drop-down lists, drawn in the static screen (first_screen.rs `select`) and
        // <select>s in the explorer: the first field's and the two axes'.
        field: box('.field select, .field .select'),
        xAxis: box('.chart-axes > :nth-child(2)'),
        yAxis: box('.chart-axes > :nth-child(4)'),
      },
      // Boxes whose place differs (the explorer's scenario panel has more fields above the GPU
      // count than the static one shows) but whose size does not.
      sizes: {
        gpus: box('.field input, .field .input'),
      },
      texts: {
        heading: text('.hero h2'),
        subtitle: text('.subtitle'),
        answer: text('.answer'),
        value: text('.slider-value'),
        status: text('.kv-status'),
        scale: text('.slider-scale'),
        numbersTitle: text('.numbers-panel > h2'),
      },
      metrics,
      // The chart's pixel grid: the static SVG's viewBox, the live canvas's backing store.
      grid: (() => {
        const svg = scope.querySelector('.chart-frame svg');
        if (svg) return svg.getAttribute('viewBox').split(' ').slice(2).map(Number);
        const canvas = scope.querySelector('.chart-frame canvas');
        return canvas ? [canvas.width, canvas.height] : null;
      })(),
    };
  }, root);
}

test('pre-1. with the wasm blocked the built page still shows the default chart, slider and numbers', async (t) => {
  const { context, page } = await pageWithWasm('block');
  t.after(() => context.close());
  await page.goto(site.baseUrl, { waitUntil: 'load' });
  await page.waitForTimeout(300);
  const seen = await page.evaluate(() => {
    const pre = document.querySelector('.prerender');
    const svg = pre?.querySelector('.chart-frame svg');
    const r = svg?.getBoundingClientRect();
    return {
      visible: Boolean(svg && svg.checkVisibility({ visibilityProperty: true })),
      box: r ? [r.width, r.height] : null,
      texts: svg ? [...svg.querySelectorAll('text')].map((t) => t.textContent) : [],
      answer: pre?.querySelector('.answer')?.textContent ?? '',
      slider: Boolean(pre?.querySelector('.slider .range circle')),
      metrics: pre ? pre.querySelectorAll('.metric').length : 0,
      styled: pre ? pre.querySelectorAll('[style]').length : -1,
      ids: pre ? [...pre.querySelectorAll('[id]')].map((e) => e.id) : [],
      inert: pre?.inert ?? false,
      draws: window.__servecostDraws ?? 0,
    };
  });
  console.log(`static first screen: ${seen.box?.map(Math.round).join(' × ')} px chart, ${seen.texts.length} texts, ${seen.metrics} numbers`);
  assert.ok(seen.visible, 'the static chart is visible');
  assert.ok(seen.box[0] > 200 && seen.box[1] > 150, JSON.stringify(seen.box));
  assert.equal(seen.draws, 0, 'no wasm ran');
  assert.ok(seen.texts.some((t) => /current: C = \d+/.test(t)), JSON.stringify(seen.texts));
  assert.ok(seen.texts.some((t) => /knee/.test(t)), 'the knee is labelled');
  assert.match(seen.answer, /in flight on .*tok\/s/);
  assert.ok(seen.slider);
  assert.ok(seen.metrics >= 8, `${seen.metrics} numbers`);
  assert.equal(seen.styled, 0, 'no inline style (CSP)');
  assert.deepEqual(seen.ids, [], 'no ids inside the static screen');
  assert.ok(seen.inert, 'inert until the explorer takes over');
});

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 375, height: 800 },
]) {
  test(`pre-2. the explorer takes over without a jump at ${viewport.width} px`, async (t) => {
    const { context, page, release } = await pageWithWasm('hold', { viewport });
    t.after(() => context.close());
    await page.goto(site.baseUrl, { waitUntil: 'domcontentloaded' });
    await page.waitForTimeout(200);
    const before = await readScreen(page, '.prerender');
    assert.ok(before, 'the static screen is there while the wasm is held');
    assert.ok(await page.evaluate(() => window.__prerenderAtDomContentLoaded), 'visible at DOMContentLoaded');
    assert.equal(
      await page.evaluate(() => getComputedStyle(document.getElementById('app')).visibility),
      'hidden',
      'the explorer stays invisible behind it',
    );
    release();
    await page.waitForFunction(() => performance.getEntriesByName('servecost:takeover').length > 0, null, {
      timeout: READY_TIMEOUT_MS,
      polling: 'raf',
    });
    const live = await readScreen(page, '#app');
    const state = await page.evaluate(() => ({
      prerender: document.querySelectorAll('.prerender').length,
      visibility: getComputedStyle(document.getElementById('app')).visibility,
      ladderDrawn: Number(window.__servecostDraws),
    }));
    console.log(`${viewport.width} px: chart ${JSON.stringify(before.boxes.chart)} -> ${JSON.stringify(live.boxes.chart)}`);
    assert.equal(state.prerender, 0, 'the static screen is removed');
    assert.equal(state.visibility, 'visible');
    for (const [name, a] of Object.entries(before.boxes)) {
      const b = live.boxes[name];
      assert.ok(a && b, `${name}: ${JSON.stringify(a)} / ${JSON.stringify(b)}`);
      for (const key of ['x', 'y', 'width']) {
        assert.ok(Math.abs(a[key] - b[key]) <= TOLERANCE_PX, `${name}.${key}: ${a[key]} static, ${b[key]} live`);
      }
      if (name !== 'numbers') {
        // The live numbers panel has more groups below the three the static one shows.
        assert.ok(Math.abs(a.height - b.height) <= TOLERANCE_PX, `${name}.height: ${a.height} static, ${b.height} live`);
      }
    }
    for (const [name, a] of Object.entries(before.sizes)) {
      const b = live.sizes[name];
      assert.ok(a && b, `${name}: ${JSON.stringify(a)} / ${JSON.stringify(b)}`);
      for (const key of ['width', 'height']) {
        assert.ok(Math.abs(a[key] - b[key]) <= TOLERANCE_PX, `${name}.${key}: ${a[key]} static, ${b[key]} live`);
      }
    }
    assert.deepEqual(live.texts, before.texts);
    assert.deepEqual(live.metrics, before.metrics);
    if (viewport.width === 1280) {
      // Both charts lay their text out in one estimate (present::chart::svg::page_text_size),
      // so on the same pixel grid the legend and the knee's and current point's labels land on
      // the same sides of their markers; one pixel of plot height moved the current point's.
      assert.deepEqual(live.grid, before.grid, 'the static chart is drawn on the live canvas\'s pixel grid');
    }
  });
}

test('pre-3. a link with state or a remembered scenario never shows the default static chart', async (t) => {
  const cases = [
    ['?model=llama-3.1-8b', null],
    ['?embed=1', null],
    ['#v=1&model=llama-3.1-8b', null],
    ['', 'v=1&model=llama-3.1-8b'],
  ];
  for (const [suffix, stored] of cases) {
    const { context, page } = await pageWithWasm('block');
    if (stored !== null) {
      await context.addInitScript((value) => localStorage.setItem('servecost.last.v1', value), stored);
    }
    await page.goto(site.baseUrl + suffix, { waitUntil: 'load' });
    await page.waitForTimeout(100);
    const seen = await page.evaluate(() => ({
      atDomContentLoaded: window.__prerenderAtDomContentLoaded,
      now: Boolean(document.querySelector('.prerender')?.checkVisibility()),
      hidden: document.documentElement.classList.contains('no-prerender'),
    }));
    await context.close();
    const what = stored !== null ? `remembered ${stored}` : suffix;
    assert.equal(seen.atDomContentLoaded, false, `${what}: shown at DOMContentLoaded`);
    assert.equal(seen.now, false, `${what}: shown after load`);
    assert.ok(seen.hidden, what);
  }
  // The default page keeps it (the same check, no state).
  const { context, page } = await pageWithWasm('block');
  t.after(() => context.close());
  await page.goto(site.baseUrl, { waitUntil: 'load' });
  assert.equal(await page.evaluate(() => window.__prerenderAtDomContentLoaded), true);
});

test('pre-4. the static first screen paints as the page\'s one layer', async (t) => {
  const { context, page } = await pageWithWasm('block');
  t.after(() => context.close());
  const cdp = await context.newCDPSession(page);
  await cdp.send('DOM.enable');
  let layers = null;
  cdp.on('LayerTree.layerTreeDidChange', (event) => {
    if (event.layers) layers = event.layers;
  });
  await page.goto(site.baseUrl, { waitUntil: 'load' });
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, null, {
    timeout: READY_TIMEOUT_MS,
    polling: 20,
  });
  // The tree is reported when it changes after LayerTree.enable: a scroll by one pixel and back.
  await cdp.send('LayerTree.enable');
  await page.evaluate(() => window.scrollTo(0, 1));
  await page.waitForTimeout(100);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(200);
  assert.ok(layers && layers.length > 0, 'the layer tree was reported');
  const composited = [];
  for (const layer of layers) {
    if (!layer.drawsContent || layer.backendNodeId === undefined) continue;
    const { node } = await cdp.send('DOM.describeNode', { backendNodeId: layer.backendNodeId });
    if (node.nodeName === '#document') continue;
    const { compositingReasonIds } = await cdp.send('LayerTree.compositingReasons', { layerId: layer.layerId });
    composited.push(`${node.nodeName.toLowerCase()} ${(node.attributes ?? []).join('=')} (${compositingReasonIds.join(', ')})`);
  }
  assert.deepEqual(composited, [], 'composited boxes on the first screen');
});
