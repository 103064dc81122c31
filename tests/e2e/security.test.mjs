// Security properties of the built site, in headless Chromium (node --test; see browser.mjs).
//
//   policy      the Content-Security-Policy <meta> allows nothing but the page's own origin
//               ('self'), plus 'wasm-unsafe-eval' for compiling the module and data: images for
//               the empty favicon; no host, scheme wildcard, 'unsafe-inline' or 'unsafe-eval'
//   origins     every request the page makes, loading and in use, goes to its own origin
//   injection   markup and script in link parameters (?model=<script>...) never run and are
//               never inserted as HTML: no script executes, no element appears, and the policy
//               reports no violation (a violation would mean something tried)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openSite } from './browser.mjs';

let site;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

/** Records CSP violations from the very start of the document (an init script is not held to the page's CSP). */
const RECORD_VIOLATIONS = () => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} ${e.sample || ''}`);
  });
};

async function open(t, query = '') {
  const opened = await openPage(site.browser, site.baseUrl + query, { initScript: RECORD_VIOLATIONS });
  t.after(() => opened.context.close());
  return opened;
}

/** The policy from the page's <meta http-equiv=Content-Security-Policy>, as { directive: [sources] }. */
async function metaPolicy(page) {
  const content = await page.$eval('meta[http-equiv="Content-Security-Policy" i]', (m) => m.content).catch(() => null);
  assert.ok(content, 'index.html carries a Content-Security-Policy <meta>');
  const policy = {};
  for (const part of content.split(';').map((p) => p.trim()).filter(Boolean)) {
    const [directive, ...sources] = part.split(/\s+/);
    policy[directive.toLowerCase()] = sources;
  }
  return { content, policy };
}

test('the Content-Security-Policy allows only the page itself', async (t) => {
  const { page } = await open(t);
  const { content, policy } = await metaPolicy(page);
  console.log(`CSP: ${content}`);
  assert.deepEqual(policy['default-src'], ["'self'"], "default-src 'self'");
  assert.deepEqual([...policy['script-src']].sort(), ["'self'", "'wasm-unsafe-eval'"], "script-src 'self' 'wasm-unsafe-eval' only");
  for (const directive of ['object-src', 'base-uri']) {
    assert.deepEqual(policy[directive], ["'none'"], `${directive} 'none'`);
  }
  const allowed = new Set(["'self'", "'none'", "'wasm-unsafe-eval'"]);
  for (const [directive, sources] of Object.entries(policy)) {
    for (const source of sources) {
      const ok = allowed.has(source) || (source === 'data:' && directive === 'img-src');
      assert.ok(ok, `${directive} allows only the page itself, not ${source}`);
    }
  }
  // The meta must come before anything a policy should cover: only what the build writes
  // precedes it — the charset meta, Trunk's loader and its modulepreloads, and the page's
  // stylesheet inlined as one <style> (scripts/build-tools, issue 28 §8). No other <style>
  // exists anywhere: one injected at run time would come after the policy and be refused.
  const { before, styles } = await page.evaluate(() => {
    const meta = document.querySelector('meta[http-equiv="Content-Security-Policy" i]');
    const out = [];
    for (let el = document.head.firstElementChild; el && el !== meta; el = el.nextElementSibling) out.push(el.tagName.toLowerCase());
    return { before: out, styles: [...document.querySelectorAll('style')].map((s) => s.textContent.length) };
  });
  assert.ok(
    before.every((tag) => tag === 'meta' || tag === 'script' || tag === 'link' || tag === 'style'),
    `only the charset meta, the wasm loader and the inlined stylesheet precede the policy (found: ${before.join(', ')})`,
  );
  assert.equal(before.filter((tag) => tag === 'style').length, 1, 'the stylesheet is inlined once, above the policy');
  assert.equal(styles.length, 1, `one <style> in the whole document (found ${styles.length})`);
  assert.ok(styles[0] > 1000, `the inlined <style> holds the stylesheet (${styles[0]} characters)`);
});

test('every resource comes from the page origin, at load and in use', async (t) => {
  const { page, log } = await open(t);
  const origin = new URL(site.baseUrl).origin;
  // Use the page a little: the slider, a select, a text field.
  await page.locator('#batch-size').fill('900');
  const model = page.locator('#model');
  const other = await model.evaluate((el) => [...el.options].find((o) => !o.disabled && o.value !== el.value)?.value);
  if (other) await model.selectOption(other);
  await page.locator('#input-len').fill('4000');
  await page.locator('#input-len').blur();
  await page.waitForTimeout(500);
  const foreign = log.requests.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin);
  assert.deepEqual(foreign, [], `requests to other origins (all requests: ${log.requests.join(', ')})`);
  const entries = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.deepEqual(
    entries.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin),
    [],
    'resource timing entries from other origins',
  );
});

test('the client report and the leaderboard chart apply no inline style (no CSP violation)', async (t) => {
  const { page } = await open(t, '?v=2&model=llama-3.1-8b&slo-ttft-ms=500&slo-tpot-ms=40&traffic=30');
  await page.waitForFunction(() => performance.getEntriesByName('servecost:tools-ready').length > 0, null, { timeout: 60_000 });
  // The report draws its chart as SVG; plotters' text measurement on wasm appended a styled span
  // per label (issue 28 §2: 14 violations per download).
  await page.locator('#download-report').click();
  await page.waitForFunction(() => /Saved the report|Export failed/.test(document.body.textContent || ''), null, { timeout: 120_000 });
  assert.doesNotMatch(await page.evaluate(() => document.body.textContent), /Export failed/);
  // The leaderboard ranks once in view and sizes its chart's canvas.
  await page.locator('.leaderboard-panel').scrollIntoViewIfNeeded();
  await page.waitForSelector('#leaderboard tbody tr', { timeout: 60_000 });
  await page.waitForFunction(() => (document.getElementById('leaderboard-chart')?.style.height || '') !== '', null, { timeout: 120_000 });
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
});

const PAYLOADS = [
  ['model', '<script>window.__xss = "model"</script>'],
  ['gpu', '<img src=x onerror="window.__xss = \'gpu\'">'],
  ['precision', '"><svg onload="window.__xss = \'precision\'">'],
  ['x', 'javascript:window.__xss="x"'],
  ['theme', '<style>body{display:none}</style>'],
  ['pin', 'model:<script>window.__xss="pin"</script>'],
  ['custom-model', '{"id":"<img src=x onerror=window.__xss=1>","name":"<script>window.__xss=2</script>"}'],
  ['<b>key</b>', '<i>value</i>'],
];

test('script and markup in link parameters do not run and are not inserted as HTML', async (t) => {
  const query = '?' + PAYLOADS.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const { page, log } = await open(t, query);
  await page.waitForTimeout(300);

  const state = await page.evaluate(() => ({
    xss: window.__xss,
    violations: window.__cspViolations,
    scripts: [...document.scripts].map((s) => (s.src ? `src=${new URL(s.src).pathname}` : `inline ${s.textContent.length} chars`)),
    injectedElements: document.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload], body style, b, i').length,
    html: document.body.innerHTML,
    bodyVisible: getComputedStyle(document.body).display !== 'none',
    text: document.body.innerText,
  }));
  assert.equal(state.xss, undefined, 'no injected script ran');
  assert.deepEqual(log.dialogs, [], 'no dialog opened');
  assert.deepEqual(log.pageErrors, [], 'no page error');
  assert.deepEqual(state.violations, [], 'the policy had nothing to block (nothing was inserted as markup)');
  assert.equal(state.injectedElements, 0, 'no element from the payloads exists in the document');
  assert.ok(state.bodyVisible, 'the page is still visible');
  // Shown as text, markup is escaped in the serialized document (`<` becomes `&lt;`).
  for (const [, payload] of PAYLOADS.filter(([, v]) => v.includes('<'))) {
    assert.ok(!state.html.includes(payload), `the payload ${payload} does not appear as markup in the document`);
  }
  // Only Trunk's loader and scripts/build-tools' early compile (inline, in <head>) and no script in <body>.
  const bodyScripts = await page.evaluate(() => document.body.querySelectorAll('script').length);
  assert.equal(bodyScripts, 0, `no <script> in <body> (scripts: ${state.scripts.join(', ')})`);
  const shown = PAYLOADS.filter(([, v]) => state.text.includes(v.slice(0, 20))).length;
  console.log(`scripts: ${state.scripts.join(', ')}; ${shown} payload(s) shown as plain text (in notices)`);
});
