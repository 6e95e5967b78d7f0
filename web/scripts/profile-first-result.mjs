// The page's way to its first result, measured: N cold loads of the built site (web/dist, served
// by `vite preview`) in headless Chromium, each in a fresh browser context (empty HTTP cache),
// printing for each load and as medians (with min and max) the milestones from navigation start
// in ms: the document, the entry and app scripts, the worker and its wasm (fetch, compile and
// instantiate), the first estimate and the first number on screen, and the main thread's long
// tasks before it. docs/performance.md "The page" holds the results.
//   node scripts/profile-first-result.mjs [LOADS=9] [PATH=/]
// Build first (npm run build); Chromium is Debian's (OPTIMUS_CHROMIUM names another);
// PROFILE_CHROMIUM_ARGS adds flags (e.g. --js-flags=--no-wasm-lazy-compilation, to see a cost).
import { dists, launchChromium, serveBuilds } from './profile-lib.mjs';
const loads = Number(process.argv[2] ?? 9);
const path = process.argv[3] ?? '/';
const servers = await serveBuilds();
const browser = await launchChromium();

const rowsOf = dists.map(() => []);
for (let i = 0; i < loads * dists.length; i++) {
  const which = i % dists.length;
  const rows = rowsOf[which];
  const { port } = servers[which].httpServer.address();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window;
    w.__longTasks = [];
    new PerformanceObserver((l) => w.__longTasks.push(...l.getEntries().map((e) => [Math.round(e.startTime), Math.round(e.duration)]))).observe({ type: 'longtask', buffered: true });
    new MutationObserver((_, o) => {
      if (w.__firstResultMs === undefined && document.querySelector('[data-metric][data-value]')) {
        w.__firstResultMs = performance.now();
        o.disconnect();
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-value'] });
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) if (e.name === 'first-contentful-paint') w.__fcp = e.startTime;
    }).observe({ type: 'paint', buffered: true });
  });
  await page.goto(`http://127.0.0.1:${port}${path}`);
  await page.waitForSelector('[data-testid="status"][data-state="ready"]', { timeout: 30_000 });
  await page.waitForTimeout(300);
  const row = await page.evaluate(() => {
    const out = {};
    const nav = performance.getEntriesByType('navigation')[0];
    out.html = nav.responseEnd;
    out.fcp = window.__fcp;
    for (const r of performance.getEntriesByType('resource')) {
      const m = /\/assets\/(index|app)-[^/]*\.js$/.exec(r.name);
      if (m) out[`${m[1]}_js`] = r.responseEnd;
    }
    for (const m of performance.getEntriesByType('mark')) if (m.name.startsWith('optimus:') && !(m.name.slice(8) in out)) out[m.name.slice(8)] = m.startTime;
    out.first_number = window.__firstResultMs;
    out.long_tasks = window.__longTasks.filter(([s]) => s < window.__firstResultMs);
    return out;
  });
  rows.push(row);
  console.log(`load ${Math.floor(i / dists.length) + 1}${dists.length > 1 ? ` of ${dists[which]}` : ''}: ${Object.entries(row).map(([k, v]) => `${k}=${Array.isArray(v) ? JSON.stringify(v) : Math.round(v)}`).join(' ')}`);
  await context.close();
}
await browser.close();
for (const s of servers) await s.close();

for (const [which, rows] of rowsOf.entries()) {
  if (dists.length > 1) console.log(`\n${dists[which]}:`);
  summary(rows);
}

function summary(rows) {
const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k !== 'long_tasks');
const order = (k) => {
  const v = rows.map((r) => r[k]).filter((x) => typeof x === 'number').sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : Infinity;
};
console.log(`\nmedian (min-max) of ${loads} cold loads, ms from navigation start:`);
for (const k of keys.sort((a, b) => order(a) - order(b))) {
  const v = rows.map((r) => r[k]).filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (v.length) console.log(`  ${k.padEnd(22)} ${String(Math.round(v[Math.floor(v.length / 2)])).padStart(5)}  (${Math.round(v[0])}-${Math.round(v[v.length - 1])})`);
}
const busy = rows.map((r) => r.long_tasks.reduce((s, [, d]) => s + d, 0)).sort((a, b) => a - b);
console.log(`  main thread long tasks before the first number: median ${busy[Math.floor(busy.length / 2)]} ms in all`);
}
