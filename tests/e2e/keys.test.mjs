// Links that do not fit, the keyboard, the number box and the phone layout (issue 15 §1, §3), in
// headless Chromium (node --test; see browser.mjs for how the site is served).
//
//   infeasible  ?model=deepseek-r1 (8 × H100): the controls keep DeepSeek-R1 and 8, no chart of
//               another scenario, one message naming the GPU count that would fit and no link
//               notice; fixing the GPU count draws its curve; the embed says the same in the chart's
//               place, and an embed's notices stay out of the chart area in a 600 × 400 frame
//   price       a GPU without a catalog price: the explorer and the embed show the same $/M for
//               the same link ("—", or the typed price's)
//   keyboard    every arrow press changes the batch size shown (1 → 2 → 3 …, ~9 % higher up);
//               the number box #batch-size-number takes a typed batch size, and a bad one is an
//               error beside it with the last good view kept
//   narrow      at 375 px the model, precision, GPU and GPU-count controls sit above the chart, an
//               error appears under its field, wide tables show a scroll cue
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openSite, READY_TIMEOUT_MS } from './browser.mjs';

let site;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

async function open(t, query, options = {}) {
  const opened = await openPage(site.browser, site.baseUrl + query, options);
  t.after(() => opened.context.close());
  return opened;
}

/** A page whose scenario does not validate draws no chart: wait for its controls instead. */
async function openUnfit(t, query, options = {}) {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  t.after(() => context.close());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(site.baseUrl + query, { waitUntil: 'load' });
  await page.waitForFunction(() => (document.querySelector('#input-error')?.textContent ?? '').length > 0, null, {
    timeout: READY_TIMEOUT_MS,
    polling: 20,
  });
  return { page, errors };
}

const metric = async (page, name) => (await page.locator(`[data-metric="${name}"]`).first().textContent()).trim();
const sliderValue = async (page) => Number((await page.locator('#batch-size-value').textContent()).replace(/[^0-9]/g, ''));

async function waitFor(page, what, predicate, arg, timeout = 5_000) {
  try {
    await page.waitForFunction(predicate, arg, { timeout, polling: 20 });
  } catch (err) {
    throw new Error(`timed out waiting for ${what}: ${err}`);
  }
}

// -------------------------------------------------------------------------------------- infeasible

test('infeasible: a link that does not fit keeps what it asked for and says once what would fit', async (t) => {
  const { page, errors } = await openUnfit(t, '?model=deepseek-r1');
  assert.equal(await page.locator('#model').inputValue(), 'deepseek-r1', 'the model asked for');
  assert.equal(await page.locator('#gpus').inputValue(), '8', 'the GPU count asked for');
  assert.equal(await page.locator('#pareto-chart').count(), 0, 'no curve of another scenario');
  assert.equal(await page.locator('#url-notice').count(), 0, 'no link notice: the link was read as asked');
  const message = (await page.locator('#input-error').textContent()).trim();
  assert.match(message, /DeepSeek-R1 in fp8 does not fit/);
  assert.match(message, /16 GPUs would fit it, or fp4 on 8/);
  const body = await page.locator('body').textContent();
  assert.equal(body.split('would fit').length - 1, 1, 'stated once');
  assert.equal(await page.locator('#gpus').getAttribute('aria-invalid'), 'true', 'the GPU count is marked');
  assert.match(page.url(), /model=deepseek-r1/, 'the address keeps the link');
  console.log(`infeasible: ${message}`);
  // The share bar stays, with what works without a curve (issue 28: it used to vanish, Reset too).
  await page.locator('#share-slot .share-bar').waitFor({ timeout: READY_TIMEOUT_MS });
  assert.equal(await page.locator('#reset-defaults').isEnabled(), true, 'Reset offered');
  assert.equal(await page.locator('#copy-link').isEnabled(), true, 'Copy link offered');
  assert.equal(await page.locator('#export-csv').isDisabled(), true, 'no curve to export');

  await page.locator('#gpus').fill('16');
  await waitFor(page, 'the curve for 16 GPUs', () => Number(window.__servecostDraws) >= 1);
  assert.equal(await page.locator('#model').inputValue(), 'deepseek-r1');
  assert.equal((await page.locator('#input-error').textContent()).trim(), '');
  assert.match(await page.locator('.subtitle').first().textContent(), /DeepSeek-R1 on 16 ×/);
  assert.deepEqual(errors, []);
});

test('infeasible: the embed says why in the chart place, and its notices stay off the chart', async (t) => {
  const frame = { viewport: { width: 600, height: 400 } };
  const { page } = await openUnfit(t, '?model=deepseek-r1&embed=1', frame);
  const said = await page.locator('#embed #input-error').textContent();
  assert.match(said, /DeepSeek-R1 in fp8 does not fit .* on 8 × NVIDIA H100/, 'what was asked');
  assert.match(said, /16 GPUs would fit it/);
  assert.equal(await page.locator('#embed canvas').count(), 0);
  assert.match(await page.locator('#open-explorer').getAttribute('href'), /model=deepseek-r1/, 'the explorer link keeps it');

  // A scenario that fits, with a link that holds parts the widget cannot use.
  const { page: widget } = await open(t, '?v=2&embed=1&model=llama-3.1-8b&gpus=1&controls=gpu,bogus,nope&x=evil', frame);
  const notice = widget.locator('#url-notice');
  assert.equal(await notice.count(), 1);
  assert.match(await notice.textContent(), /bogus/);
  const chart = await widget.locator('.chart-frame').boundingBox();
  const box = await notice.boundingBox();
  assert.ok(chart && box, 'both laid out');
  assert.ok(box.y >= chart.y + chart.height, `the notice (y ${box.y}) is below the chart (${chart.y}+${chart.height})`);
  assert.ok(chart.height >= 150, `the chart keeps its height (${chart.height})`);
  console.log(`embed: chart ${Math.round(chart.height)} px tall, notice at y ${Math.round(box.y)}`);
});

// ------------------------------------------------------------------------------------------ price

test('price: a GPU without a catalog price shows the same $/M in the explorer and the embed', async (t) => {
  for (const query of ['?v=2&gpu=mi355x', '?v=2&gpu=gb200&usd-per-gpu-hour=5']) {
    const { page: explorer } = await open(t, query);
    const { page: embed } = await open(t, `${query}&embed=1`);
    const [a, b] = [await metric(explorer, 'usd_per_m_output'), await metric(embed, 'usd_per_m_output')];
    assert.equal(a, b, `${query}: explorer ${a}, embed ${b}`);
    if (!query.includes('usd-per-gpu-hour')) assert.equal(a, '—', 'no price, no made-up cost');
    else assert.match(a, /^\$\d/);
    console.log(`price ${query}: ${a} in both`);
  }
});

// --------------------------------------------------------------------------------------- keyboard

test('keyboard: every arrow press changes the batch size; the number box takes a typed one', async (t) => {
  const { page } = await open(t, '?v=2');
  const slider = page.locator('#batch-size');
  await slider.focus();
  await page.keyboard.press('Home');
  await waitFor(page, 'batch size 1', () => /^1 /.test(document.querySelector('#batch-size-value')?.textContent ?? ''));
  const seen = [await sliderValue(page)];
  for (let i = 0; i < 24; i++) {
    await page.keyboard.press('ArrowRight');
    await waitFor(page, `press ${i + 1} to change the batch size`, (last) => {
      const text = document.querySelector('#batch-size-value')?.textContent ?? '';
      return Number(text.replace(/[^0-9]/g, '')) > last;
    }, seen[seen.length - 1]);
    seen.push(await sliderValue(page));
  }
  assert.deepEqual(seen.slice(0, 6), [1, 2, 3, 4, 5, 6], 'whole numbers near 1');
  const last = seen[seen.length - 1];
  assert.ok(last >= 16, `24 presses reach past 16 (${last})`);
  for (let i = 1; i < seen.length; i++) {
    const ratio = seen[i] / seen[i - 1];
    assert.ok(seen[i] === seen[i - 1] + 1 || ratio < 1.2, `one visible step: ${seen[i - 1]} -> ${seen[i]}`);
  }
  await page.keyboard.press('ArrowLeft');
  await waitFor(page, 'ArrowLeft to lower it', (n) => Number((document.querySelector('#batch-size-value')?.textContent ?? '').replace(/[^0-9]/g, '')) < n, last);
  console.log(`arrows from 1: ${seen.join(' ')}`);

  // The number box: labelled, typed values move the slider, bad ones are an error beside it.
  const box = page.locator('#batch-size-number');
  assert.equal(await box.getAttribute('type'), 'number');
  assert.equal(await page.locator('label[for="batch-size-number"]').count(), 1, 'labelled');
  const position = Number(await slider.inputValue());
  await box.fill('100');
  await box.press('Enter');
  await waitFor(page, 'the slider at 100', () => /^100 /.test(document.querySelector('#batch-size-value')?.textContent ?? ''));
  assert.notEqual(Number(await slider.inputValue()), position, 'the thumb moved');
  assert.match(await page.locator('#numbers-title').textContent(), /100 in flight/);
  const max = await box.getAttribute('max');
  for (const bad of ['0', String(Number(max) + 1)]) {
    await box.fill(bad);
    await box.press('Enter');
    const error = page.locator('#concurrency-error');
    await error.waitFor({ timeout: 5_000 });
    assert.match(await error.textContent(), bad === '0' ? /whole number from 1/ : /engine limit/);
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    assert.equal(await sliderValue(page), 100, `${bad}: the last good batch size stays`);
    const [errorBox, boxBox] = [await error.boundingBox(), await box.boundingBox()];
    assert.ok(Math.abs(errorBox.y - (boxBox.y + boxBox.height)) < 80, 'the error is beside the box');
  }
  await box.fill('64');
  await box.press('Enter');
  await waitFor(page, 'the slider at 64', () => /^64 /.test(document.querySelector('#batch-size-value')?.textContent ?? ''));
  assert.equal(await page.locator('#concurrency-error').count(), 0, 'a good value clears the error');
});

// ----------------------------------------------------------------------------------------- narrow

test('narrow: at 375 px the model and GPU controls sit above the chart, errors under their field, tables show they scroll', async (t) => {
  const { page, log } = await open(t, '?v=2', { viewport: { width: 375, height: 800 } });
  const chart = await page.locator('#pareto-chart').boundingBox();
  for (const id of ['#model', '#precision', '#gpu', '#gpus']) {
    const box = await page.locator(id).boundingBox();
    assert.ok(box.y + box.height <= chart.y, `${id} (bottom ${box.y + box.height}) above the chart (top ${chart.y})`);
    assert.ok(box.x >= 0 && box.x + box.width <= 375, `${id} fits the width`);
  }
  assert.ok(chart.y < 800, `the chart starts on the first screen (${chart.y})`);
  const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
  assert.ok(width <= 375, `no sideways scrolling (${width})`);

  // An input longer than the model's context is the input length's error, under that field.
  await page.locator('#input-len').fill('10000000');
  const error = page.locator('#input-len-error');
  await error.waitFor({ timeout: 5_000 });
  assert.match(await error.textContent(), /longer than Llama 3\.1 70B's context of 131072 tokens/);
  const [field, message] = [await page.locator('#input-len').boundingBox(), await error.boundingBox()];
  assert.ok(message.y >= field.y + field.height - 1 && message.y - (field.y + field.height) < 40, 'right under the field');
  assert.match(await page.locator('#input-error').textContent(), /Input length/);
  await page.locator('#input-len').fill('1155');
  await waitFor(page, 'the error to clear', () => !document.querySelector('#input-len-error'));

  // Wide tables scroll inside a container that shows it (edge shadows).
  const scrollers = await page.$$eval('.table-scroll', (els) => els.map((el) => ({
    wide: el.scrollWidth > el.clientWidth + 1,
    background: getComputedStyle(el).backgroundImage,
  })));
  const wide = scrollers.filter((s) => s.wide);
  assert.ok(wide.length >= 1, `a table wider than 375 px (${scrollers.length} scrollers)`);
  for (const s of wide) assert.match(s.background, /gradient/, 'a scroll cue');
  console.log(`narrow: chart top ${Math.round(chart.y)} px; ${wide.length} of ${scrollers.length} tables scroll with a cue`);
  assert.deepEqual(log.pageErrors, []);
});

test('phone-6. at 375 px the leaderboard and the waterfall are cards: every value on screen under its column name', async (t) => {
  const { page, log } = await open(t, '?v=2&traffic=30&slo-ttft-ms=500&slo-tpot-ms=40', { viewport: { width: 375, height: 800 } });
  // The leaderboard ranks once it is near the viewport; the later panels mount as they come.
  for (let y = 0; y < 30_000; y += 700) {
    await page.evaluate((to) => window.scrollTo(0, to), y);
    await page.waitForTimeout(100);
  }
  await page.waitForFunction(() => document.querySelectorAll('#leaderboard tbody tr').length > 0, null, { timeout: 60_000, polling: 100 });
  for (const [table, name] of [['#leaderboard', 'leaderboard'], ['.production-gap-table', 'waterfall']]) {
    await page.locator(table).waitFor({ timeout: 60_000 });
    await page.locator(table).scrollIntoViewIfNeeded();
    const row = await page.$eval(`${table} tbody tr`, (tr) => [...tr.cells].filter((c) => getComputedStyle(c).display !== 'none').map((c) => {
      const r = c.getBoundingClientRect();
      return { left: r.left, right: r.right, width: r.width, label: getComputedStyle(c, '::before').content, text: c.textContent.trim() };
    }));
    for (const cell of row) {
      assert.ok(cell.left >= 0 && cell.right <= 375, `${name}: ${cell.text} on screen (${Math.round(cell.left)}–${Math.round(cell.right)})`);
      assert.ok(cell.width >= 200, `${name}: ${cell.text} gets the card's width (${Math.round(cell.width)} px)`);
    }
    const labelled = row.filter((c) => c.label && c.label !== 'none' && c.label !== 'normal');
    assert.ok(labelled.length >= (name === 'leaderboard' ? 10 : 1), `${name}: values under their column's name (${labelled.map((c) => c.label).join(', ')})`);
    if (name === 'leaderboard') assert.ok(labelled.some((c) => /\$\/M/.test(c.label) && /^\$/.test(c.text)), 'the $/M output is on screen');
    const shot = await page.locator(table).screenshot({ path: `${process.env.E2E_SHOTS || '/tmp'}/phone-${name}.png` });
    assert.ok(shot.length > 1000, `${name} screenshot`);
  }
  const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
  assert.ok(width <= 375, `no sideways scrolling (${width})`);
  assert.deepEqual(log.pageErrors, []);
});
