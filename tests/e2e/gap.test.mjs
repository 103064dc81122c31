// The production-gap waterfall (issue 15 §4), end to end in headless Chromium (node --test; see
// browser.mjs):
//
//   gap   the tools module renders #production-gap into the explorer's #production-gap-slot: one
//         row per step with data-factor (length spread, Poisson arrivals, P99 SLO headroom,
//         prefix-cache hits, average utilization), whose product equals the total shown
//         (#production-gap-total[data-total-factor]) within rounding, with the glossary's
//         4,000 → 800 tok/s (0.2×) as the reference line; a slider move does not rerun it; static
//         batching makes the length step far costlier; a burstiness of 4 in the panel's
//         #burstiness box reruns it with bursty (Gamma) arrivals: the arrivals row reads
//         "Bursty arrivals (CV 4)" and its factor is no higher than Poisson's
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, openPage } from './browser.mjs';

const GAP_TIMEOUT_MS = 30_000;
const STEPS = ['deployment', 'lengths', 'arrivals', 'slo', 'prefix-cache', 'utilization'];

let site;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

/** Waits for a finished (not updating) waterfall and reads it. */
async function waterfall(page) {
  // The waterfall simulates once its panel comes near the viewport (ui/tools/production_gap.rs).
  await page.locator('#production-gap-slot').scrollIntoViewIfNeeded();
  await page.waitForFunction(
    () => document.querySelector('#production-gap-total') &&
      !document.querySelector('#production-gap-slot section[aria-busy="true"]'),
    null,
    { timeout: GAP_TIMEOUT_MS, polling: 50 },
  );
  return page.evaluate(() => ({
    steps: [...document.querySelectorAll('#production-gap [data-factor]')].map((row) => ({
      step: row.getAttribute('data-step'),
      factor: Number(row.getAttribute('data-factor')),
    })),
    total: Number(document.querySelector('#production-gap-total').getAttribute('data-total-factor')),
    reference: Number(document.querySelector('[data-reference-factor]')?.getAttribute('data-reference-factor')),
    text: document.querySelector('#production-gap-total').textContent,
  }));
}

test('gap-1. the waterfall factors multiply to the total shown; static batching widens the length step', async (t) => {
  const { page, context, log } = await openPage(site.browser, site.baseUrl);
  t.after(() => context.close());
  // Below the first screen the waterfall waits to be scrolled to: no simulation at load.
  await page.waitForSelector('#production-gap-slot section', { timeout: GAP_TIMEOUT_MS });
  await page.waitForTimeout(1500);
  assert.equal(await page.locator('#production-gap-total').count(), 0, 'not simulated before it is in view');
  assert.match(await page.locator('#production-gap-slot .sim-status').innerText(), /comes into view/);
  const gap = await waterfall(page);
  console.log(`production gap: ${gap.text.trim()} ${JSON.stringify(gap.steps)}`);
  assert.deepEqual(gap.steps.map((s) => s.step), STEPS);
  for (const s of gap.steps) assert.ok(Number.isFinite(s.factor) && s.factor >= 0, JSON.stringify(s));
  const product = gap.steps.reduce((p, s) => p * s.factor, 1);
  assert.ok(Math.abs(product - gap.total) <= 0.001 + 0.002 * gap.total, `product ${product} vs total ${gap.total}`);
  assert.equal(gap.reference, 0.2, 'the glossary example 4,000 → 800 tok/s');
  assert.ok(gap.total > 0 && gap.total < 1, `total ${gap.total}`);

  // A slider move keeps the waterfall (it does not depend on the concurrency): no rerun.
  await page.locator('#batch-size').focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(600);
  assert.equal(await page.locator('#production-gap-slot section[aria-busy="true"]').count(), 0, 'no rerun after a slider move');

  const continuousLengths = gap.steps.find((s) => s.step === 'lengths').factor;
  await page.locator('#batching').selectOption('static');
  await page.waitForFunction(
    (before) => {
      const row = document.querySelector('#production-gap [data-step="lengths"]');
      return row && !document.querySelector('#production-gap-slot section[aria-busy="true"]') &&
        Number(row.getAttribute('data-factor')) !== before;
    },
    continuousLengths,
    { timeout: GAP_TIMEOUT_MS, polling: 50 },
  );
  const stat = await waterfall(page);
  const staticLengths = stat.steps.find((s) => s.step === 'lengths').factor;
  console.log(`length step: continuous ${continuousLengths}, static ${staticLengths}`);
  assert.ok(staticLengths < 0.5 * continuousLengths, `static ${staticLengths} vs continuous ${continuousLengths}`);
  const staticProduct = stat.steps.reduce((p, s) => p * s.factor, 1);
  assert.ok(Math.abs(staticProduct - stat.total) <= 0.001 + 0.002 * stat.total, `${staticProduct} vs ${stat.total}`);
  assert.deepEqual(log.pageErrors, [], 'uncaught page errors');
});

test('gap-2. a burstiness above 1 reruns the waterfall with bursty arrivals, serving no more than Poisson', async (t) => {
  const { page, context, log } = await openPage(site.browser, site.baseUrl);
  t.after(() => context.close());
  const arrivalsLabel = () => page.evaluate(
    () => document.querySelector('#production-gap [data-step="arrivals"] th')?.textContent.trim(),
  );
  const poisson = await waterfall(page);
  assert.equal(await arrivalsLabel(), 'Poisson arrivals');
  assert.equal(await page.locator('#burstiness').inputValue(), '1', 'the default is Poisson');
  const poissonArrivals = poisson.steps.find((s) => s.step === 'arrivals').factor;

  await page.locator('#burstiness').fill('4');
  await page.waitForFunction(
    () => {
      const label = document.querySelector('#production-gap [data-step="arrivals"] th');
      return label && label.textContent.trim().startsWith('Bursty') &&
        !document.querySelector('#production-gap-slot section[aria-busy="true"]');
    },
    null,
    { timeout: GAP_TIMEOUT_MS, polling: 50 },
  );
  const bursty = await waterfall(page);
  assert.equal(await arrivalsLabel(), 'Bursty arrivals (CV 4)');
  const burstyArrivals = bursty.steps.find((s) => s.step === 'arrivals').factor;
  console.log(`arrivals step: Poisson ${poissonArrivals}, CV 4 ${burstyArrivals}`);
  assert.ok(burstyArrivals <= poissonArrivals, `bursty ${burstyArrivals} vs Poisson ${poissonArrivals}`);
  assert.deepEqual(bursty.steps.map((s) => s.step), STEPS);
  const product = bursty.steps.reduce((p, s) => p * s.factor, 1);
  assert.ok(Math.abs(product - bursty.total) <= 0.001 + 0.002 * bursty.total, `product ${product} vs total ${bursty.total}`);
  assert.deepEqual(log.pageErrors, [], 'uncaught page errors');
});
