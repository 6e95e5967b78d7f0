// One cold load of the built site (web/dist) in headless Chromium with a DevTools trace, summed
// per thread up to the first result: where the page's main thread and the engine worker spend
// their time (script evaluation and compilation, WebAssembly compilation, layout, paint, ...),
// and the wasm's network timing. docs/performance.md "The page" quotes its output.
//   node scripts/trace-first-result.mjs [LOADS=3]
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const loads = Number(process.argv[2] ?? 3);
const web = fileURLToPath(new URL('../', import.meta.url));
const server = await preview({ root: web, configFile: `${web}vite.config.ts`, logLevel: 'warn', build: { outDir: process.env.PROFILE_DIST ?? `${web}dist` }, preview: { host: '127.0.0.1', port: 0 } });
const { port } = server.httpServer.address();
const browser = await chromium.launch({
  executablePath: process.env.OPTIMUS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const dir = mkdtempSync(`${tmpdir()}/optimus-trace-`);
for (let i = 0; i < loads; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    new MutationObserver((_, o) => {
      if (window.__firstResultMs === undefined && document.querySelector('[data-metric][data-value]')) {
        window.__firstResultMs = performance.now();
        o.disconnect();
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-value'] });
  });
  const path = `${dir}/trace-${i}.json`;
  await browser.startTracing(page, {
    path,
    categories: ['devtools.timeline', 'v8', 'v8.wasm', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'loading', 'toplevel', 'v8.execute'],
  });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForSelector('[data-testid="status"][data-state="ready"]', { timeout: 30_000 });
  const firstMs = await page.evaluate(() => window.__firstResultMs);
  const origin = await page.evaluate(() => performance.timeOrigin);
  await page.waitForTimeout(200);
  await browser.stopTracing();
  await context.close();
  summarize(JSON.parse(readFileSync(path, 'utf8')), firstMs, i + 1);
}
await browser.close();
await server.close();

/** Per thread, the time inside top-level tasks and by event name, up to the first result. */
function summarize(trace, firstMs, n) {
  const events = trace.traceEvents ?? trace;
  const names = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  // The navigation start (the page's performance.timeOrigin) on the trace clock.
  const nav = events.find((e) => e.name === 'navigationStart' || e.name === 'NavigationTiming' || (e.name === 'TracingStartedInBrowser'));
  const navStart = events.filter((e) => e.name === 'navigationStart').map((e) => e.ts).sort((a, b) => b - a)[0] ?? nav?.ts ?? 0;
  const end = navStart + firstMs * 1000;
  const perThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || e.ts < navStart || e.ts > end) continue;
    const thread = names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`;
    if (!/CrRendererMain|DedicatedWorker|ThreadPoolForeground|V8 DefaultWorker|wasm/i.test(thread)) continue;
    const t = perThread.get(thread) ?? new Map();
    t.set(e.name, (t.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    perThread.set(thread, t);
  }
  console.log(`\nload ${n}: first result at ${Math.round(firstMs)} ms; time inside events up to it (ms; nested events overlap):`);
  for (const [thread, t] of perThread) {
    const top = [...t.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
    console.log(`  ${thread}: ${top.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
  }
}
