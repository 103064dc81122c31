// Accessibility of the built site, in headless Chromium (node --test; see browser.mjs for how
// the site is served). axe-core (pinned in package.json) is evaluated in the page through the
// DevTools protocol, which the page's Content-Security-Policy does not govern, so the policy is
// tested exactly as shipped.
//
//   axe          no serious or critical violation: explorer light and dark, embed widget (?embed=1)
//   keyboard     Tab reaches every scenario control and the batch slider, in reading order, with a
//                visible focus indicator; ArrowRight/Left move the slider one visible step; PageUp/PageDown
//                move the batch size to the next power of two above/below
//   names        every visible form control and button has an accessible name
//   chart        the canvas has a text alternative naming the current point and the knee, kept
//                current when the slider moves
//   motion       with prefers-reduced-motion: reduce, nothing transitions or animates
//   narrow       at 375 CSS px the page does not scroll sideways
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { openPage, openSite } from './browser.mjs';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The scenario controls and the slider, as app.test.mjs names them. */
const CONTROLS = [
  '#model',
  '#precision',
  '#kv-precision',
  '#gpu',
  '#gpus',
  '#tp',
  '#usd-per-gpu-hour',
  '#input-len',
  '#output-len',
  '#batch-size',
];
const MAX_TABS = 80;

let site;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

async function open(t, query = '', options = {}) {
  const opened = await openPage(site.browser, site.baseUrl + query, options);
  t.after(() => opened.context.close());
  return opened;
}

/** axe-core's violations of the whole document, compact. */
async function axeViolations(page) {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join('')}`),
      count: v.nodes.length,
    }));
  });
}

function assertNoSeriousViolations(violations, where) {
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const others = violations.filter((v) => !serious.includes(v));
  if (others.length) {
    console.log(`${where}: ${others.length} minor/moderate axe finding(s): ${others.map((v) => `${v.id} (${v.impact}, ${v.count})`).join(', ')}`);
  }
  assert.deepEqual(serious, [], `${where}: serious or critical axe-core violations`);
}

/** The number in the slider's aria-valuetext ("64 requests in flight" -> 64). */
async function sliderState(page) {
  return page.$eval('#batch-size', (el) => ({
    position: Number(el.value),
    max: Number(el.max || 100),
    concurrency: Number((el.getAttribute('aria-valuetext') || '').replace(/,/g, '').match(/\d+/)?.[0]),
    text: el.getAttribute('aria-valuetext'),
  }));
}

/**
 * Waits until the slider announces about `expected` requests: within 1.5 % (the log-scale track
 * cannot land on every integer; 257 is the position nearest 256), or `orEnd` if clamped there.
 */
async function waitForConcurrency(page, expected, what, orEnd = null) {
  try {
    await page.waitForFunction(
      ({ want, end }) => {
        const text = document.querySelector('#batch-size')?.getAttribute('aria-valuetext') || '';
        const value = Number(text.replace(/,/g, '').match(/\d+/)?.[0]);
        return Math.abs(value / want - 1) <= 0.015 || value === end;
      },
      { want: expected, end: orEnd },
      { timeout: 5_000, polling: 20 },
    );
  } catch {
    assert.fail(`timed out waiting for ${what}; slider: ${JSON.stringify(await sliderState(page))}`);
  }
}

/** The power of two PageUp/PageDown aims for (a value within ~1 % of a power counts as it). */
const TOLERANCE_LOG2 = 0.015;
const nextPowerAbove = (c) => 2 ** (Math.floor(Math.log2(c) + TOLERANCE_LOG2) + 1);
const powerBelow = (c) => 2 ** Math.max(0, Math.ceil(Math.log2(c) - TOLERANCE_LOG2) - 1);

// ------------------------------------------------------------------------------------------ axe

test('axe: no serious or critical violations in the explorer, light and dark', async (t) => {
  for (const colorScheme of ['light', 'dark']) {
    const { page } = await open(t, '', { colorScheme });
    const scheme = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches);
    assert.equal(scheme, colorScheme === 'dark', `prefers-color-scheme emulated as ${colorScheme}`);
    assertNoSeriousViolations(await axeViolations(page), `explorer (${colorScheme})`);
  }
});

test('axe: no serious or critical violations in the embed widget (?embed=1), light and dark', async (t) => {
  for (const colorScheme of ['light', 'dark']) {
    const { page } = await open(t, '?embed=1', { colorScheme });
    const widget = await page.locator('#embed').count();
    if (widget === 0) {
      t.skip('this build shows no embed widget (#embed) for ?embed=1');
      return;
    }
    assertNoSeriousViolations(await axeViolations(page), `embed (${colorScheme})`);
  }
});

// ------------------------------------------------------------------------------------------ keyboard

test('keyboard: Tab reaches every control and the slider in reading order, with a visible focus ring', async (t) => {
  const { page } = await open(t);
  const positive = await page.$$eval('[tabindex]', (els) => els.filter((e) => e.tabIndex > 0).map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(positive, [], 'no positive tabindex (it would break the layout order)');

  const reached = [];
  const unfocusable = [];
  for (let i = 0; i < MAX_TABS && reached.length < CONTROLS.length; i++) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate((controls) => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
      const shadow = style.boxShadow && style.boxShadow !== 'none';
      return {
        selector: controls.find((sel) => el.matches(sel)) || null,
        tag: el.tagName.toLowerCase(),
        id: el.id,
        focusVisible: el.matches(':focus-visible'),
        indicator: outline || shadow ? `${style.outlineStyle} ${style.outlineWidth} ${style.boxShadow}` : null,
        // Positions in the page's layout: add the window's scroll and that of every scrolling
        // ancestor (the scenario's sticky column scrolls its controls on its own above 1180 px).
        box: (() => {
          let x = scrollX;
          let y = scrollY;
          for (let p = el.parentElement; p; p = p.parentElement) {
            x += p.scrollLeft;
            y += p.scrollTop;
          }
          return { left: box.left + x, top: box.top + y, right: box.right + x };
        })(),
      };
    }, CONTROLS);
    if (!focus) continue;
    if (!focus.focusVisible || !focus.indicator) unfocusable.push(focus);
    if (focus.selector && !reached.some((r) => r.selector === focus.selector)) reached.push(focus);
  }
  assert.deepEqual(
    CONTROLS.filter((sel) => !reached.some((r) => r.selector === sel)),
    [],
    `controls reached within ${MAX_TABS} Tab presses (reached: ${reached.map((r) => r.selector).join(' ')})`,
  );
  assert.deepEqual(unfocusable, [], 'every element focused by Tab matches :focus-visible and shows an outline or box-shadow');

  // Reading order: the next control is below in the same column, right of it on the same row,
  // or in a column further right; never back up or to the left.
  for (let i = 1; i < reached.length; i++) {
    const a = reached[i - 1];
    const b = reached[i];
    const sameColumn = Math.abs(b.box.left - a.box.left) < 24 && b.box.top > a.box.top;
    const sameRow = Math.abs(b.box.top - a.box.top) < 8 && b.box.left > a.box.left;
    const nextColumn = b.box.left >= a.box.right - 1;
    assert.ok(
      sameColumn || sameRow || nextColumn,
      `tab order ${a.selector} -> ${b.selector} follows the layout (${JSON.stringify(a.box)} -> ${JSON.stringify(b.box)})`,
    );
  }
  console.log(`tab order: ${reached.map((r) => r.selector).join(' -> ')}`);
});

test('keyboard: a skip link is the first Tab stop and takes the keyboard to the chart and slider', async (t) => {
  const { page } = await open(t);
  await page.keyboard.press('Tab');
  const first = await page.evaluate(() => {
    const el = document.activeElement;
    const box = el.getBoundingClientRect();
    return { cls: el.className, text: el.textContent, visible: box.left >= 0 && box.width > 0, ring: getComputedStyle(el).outlineStyle };
  });
  assert.equal(first.cls, 'skip-link', JSON.stringify(first));
  assert.ok(first.visible && first.ring !== 'none', `the focused skip link is visible with a ring: ${JSON.stringify(first)}`);
  await page.keyboard.press('Enter');
  let presses = 0;
  for (; presses < 8; presses++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.id === 'batch-size')) break;
  }
  assert.ok(presses < 8, 'the slider within a few Tab presses after the skip link');
  console.log(`skip link: the slider after ${presses + 1} Tab presses`);
});

test('keyboard: arrows move the slider one step; PageUp/PageDown by powers of two', async (t) => {
  const { page } = await open(t);
  const slider = page.locator('#batch-size');
  await slider.focus();
  const start = await sliderState(page);
  assert.ok(start.position > 0 && start.position < start.max, `slider starts inside its range (${JSON.stringify(start)})`);

  // The arrows move one visible step of the batch size (keys.test.mjs checks every press).
  await page.keyboard.press('ArrowRight');
  assert.ok(Number(await slider.inputValue()) > start.position, 'ArrowRight moves the thumb right');
  await page.keyboard.press('ArrowLeft');
  await waitForConcurrency(page, start.concurrency, `ArrowLeft to return to ${start.concurrency}`);
  await page.keyboard.press('ArrowLeft');
  assert.ok(Number(await slider.inputValue()) < start.position, 'ArrowLeft moves the thumb left');
  await page.keyboard.press('ArrowRight');
  await waitForConcurrency(page, start.concurrency, `the batch size to return to ${start.concurrency}`);

  // From 1, seven PageUps reach 128; then 256, 512, 256, 128, 64: each the next power of two.
  const drawsBefore = await page.evaluate(() => window.__servecostDraws);
  await page.keyboard.press('End');
  await page.waitForFunction((d) => window.__servecostDraws > d, drawsBefore, { timeout: 5_000, polling: 20 });
  const limit = (await sliderState(page)).concurrency;
  await page.keyboard.press('Home');
  await waitForConcurrency(page, 1, 'Home to move to batch size 1');
  await page.keyboard.press('PageUp'); // from 1 to 2
  for (let i = 0; i < 6; i++) await page.keyboard.press('PageUp'); // to 128
  await waitForConcurrency(page, Math.min(128, limit), 'seven PageUp presses from 1 to move to 128', limit);
  const seen = [(await sliderState(page)).concurrency];
  for (const key of ['PageUp', 'PageUp', 'PageDown', 'PageDown', 'PageDown']) {
    const before = await sliderState(page);
    const expected = key === 'PageUp' ? nextPowerAbove(before.concurrency) : powerBelow(before.concurrency);
    await page.keyboard.press(key);
    const end = key === 'PageUp' ? limit : 1;
    await waitForConcurrency(page, expected, `${key} from ${before.concurrency} to move to ${expected}`, end);
    const after = await sliderState(page);
    assert.ok(key === 'PageUp' ? after.position > before.position : after.position < before.position, `${key} moves the thumb`);
    seen.push(after.concurrency);
  }
  console.log(`PageUp/PageDown: ${seen.join(' -> ')} requests`);

  // The ends: End then PageUp stays at the end; Home then PageDown stays at 1.
  await page.keyboard.press('End');
  await page.keyboard.press('PageUp');
  assert.equal(Number(await slider.inputValue()), start.max, 'PageUp at the end stays at the end');
  await page.keyboard.press('Home');
  await page.keyboard.press('PageDown');
  assert.equal(Number(await slider.inputValue()), 0, 'PageDown at the start stays at the start');
  await waitForConcurrency(page, 1, 'the batch size 1 at the left end');
});

// ------------------------------------------------------------------------------------------ names

test('every visible control and button has an accessible name', async (t) => {
  const { page } = await open(t);
  const unnamed = await page.evaluate(() => {
    const textOf = (ids) =>
      (ids || '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent?.trim() || '')
        .join(' ')
        .trim();
    const visible = (el) => {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return style.display !== 'none' && style.visibility !== 'hidden' && (box.width > 0 || box.height > 0 || el.type === 'file');
    };
    const name = (el) =>
      el.getAttribute('aria-label')?.trim() ||
      textOf(el.getAttribute('aria-labelledby')) ||
      [...(el.labels || [])].map((l) => l.textContent.trim()).join(' ').trim() ||
      (el.tagName === 'BUTTON' ? el.textContent.trim() : '') ||
      el.getAttribute('title')?.trim() ||
      '';
    return [...document.querySelectorAll('input, select, textarea, button, [role="slider"], [role="button"]')]
      .filter((el) => el.type !== 'hidden' && visible(el))
      .filter((el) => !name(el))
      .map((el) => el.outerHTML.slice(0, 120));
  });
  assert.deepEqual(unnamed, [], 'controls without an accessible name');
  for (const sel of CONTROLS) {
    const label = await page.$eval(sel, (el) => [...(el.labels || [])].map((l) => l.textContent.trim()).join(' ') || el.getAttribute('aria-label'));
    assert.ok(label, `${sel} has a label`);
  }
});

// ------------------------------------------------------------------------------------------ chart

test('the chart canvas has a text alternative naming the current point and the knee', async (t) => {
  const { page } = await open(t);
  const alt = () =>
    page.$eval('#pareto-chart', (canvas) => {
      const described = (canvas.getAttribute('aria-describedby') || '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent || '')
        .join(' ');
      return {
        role: canvas.getAttribute('role'),
        text: `${canvas.getAttribute('aria-label') || ''} ${described}`.trim(),
      };
    });
  const first = await alt();
  assert.equal(first.role, 'img', 'the canvas has role=img');
  const { concurrency } = await sliderState(page);
  assert.match(first.text, /current point/i, `the text alternative names the current point: ${first.text}`);
  assert.match(first.text, new RegExp(`\\b${concurrency}\\b`), `it gives the current batch size ${concurrency}: ${first.text}`);
  assert.match(first.text, /knee/i, `it names the knee: ${first.text}`);

  // It follows the slider.
  await page.locator('#batch-size').focus();
  await page.keyboard.press('Home');
  await waitForConcurrency(page, 1, 'batch size 1');
  await page.waitForFunction(
    () => /current point: 1 request/i.test(document.querySelector('#pareto-chart')?.getAttribute('aria-label') || ''),
    null,
    { timeout: 5_000, polling: 20 },
  ).catch(() => {});
  const moved = await alt();
  assert.match(moved.text, /current point: 1 request/i, `the text alternative follows the slider: ${moved.text}`);
});

// ------------------------------------------------------------------------------------------ motion

test('prefers-reduced-motion: reduce turns off every transition and animation', async (t) => {
  const { page } = await open(t, '', { reducedMotion: 'reduce' });
  assert.equal(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches), true);
  const moving = await page.evaluate(() =>
    [...document.querySelectorAll('*')]
      .map((el) => {
        const s = getComputedStyle(el);
        const positive = (list) => list.split(',').some((d) => parseFloat(d) > 0);
        const transition = positive(s.transitionDuration) && s.transitionProperty !== 'none';
        const animation = s.animationName !== 'none' && positive(s.animationDuration);
        return transition || animation
          ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${String(el.className).split(' ')[0]}: transition ${s.transitionDuration} ${s.transitionProperty}, animation ${s.animationName} ${s.animationDuration}`
          : null;
      })
      .filter(Boolean),
  );
  assert.deepEqual(moving.slice(0, 10), [], `${moving.length} element(s) still transition or animate`);
});

// ------------------------------------------------------------------------------------------ narrow

test('usable at 375 px wide: no horizontal scrolling', async (t) => {
  const { page } = await open(t, '', { viewport: { width: 375, height: 800 } });
  const layout = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits = [];
    for (const el of document.querySelectorAll('body *')) {
      const box = el.getBoundingClientRect();
      const parent = el.parentElement?.getBoundingClientRect();
      // only the outermost element that sticks out (its parent does not)
      if (box.width > 0 && box.right > width + 1 && parent && parent.right <= width + 1) {
        const s = getComputedStyle(el);
        culprits.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${String(el.className).split(' ')[0]} right=${Math.round(box.right)} (${s.position}, ${s.visibility})`);
      }
    }
    return { scrollWidth: document.scrollingElement.scrollWidth, width, culprits: culprits.slice(0, 10) };
  });
  assert.ok(
    layout.scrollWidth <= 375,
    `document.scrollingElement.scrollWidth ${layout.scrollWidth} > 375; sticking out: ${layout.culprits.join('; ')}`,
  );
  const slider = await page.locator('#batch-size').boundingBox();
  assert.ok(slider && slider.x >= 0 && slider.x + slider.width <= 375, `the slider fits the width (${JSON.stringify(slider)})`);
});
