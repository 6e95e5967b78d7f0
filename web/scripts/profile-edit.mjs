// The page's re-estimate after an edit, measured the way web/e2e/page.e2e.ts measures it (from the
// field's input event until the headline's number changes, in the page): EDITS edits of the
// global batch of the landing page's training step (page.e2e.ts edits presets/scenarios/default's,
// also a training step) in headless Chromium, with the page's own steps of each edit (optimus:edit-*), printed one by one with their
// median, then the main thread's CPU profile over those edits (self time per function, the top
// ones), so that what is on the re-estimate's path can be named. docs/performance.md "The page".
//   [PROFILE_EXAMPLE=default] node scripts/profile-edit.mjs [EDITS=24]
// Build first (npm run build; `npx vite build --minify false` keeps the function names readable);
// PROFILE_DIST=a,b serves two builds and alternates their pages (an A/B comparison).
import { dists, launchChromium, serveBuilds } from './profile-lib.mjs';
const edits = Number(process.argv[2] ?? 24);
const servers = await serveBuilds();
const browser = await launchChromium();


const timeEdit = (page, value) =>
  page.evaluate(
    (value) =>
      new Promise((resolve) => {
        const field = document.querySelector('[data-path="/training/global_batch"]');
        const metric = 'training.iteration_time_s';
        const before = document.querySelector(`[data-metric="${metric}"]`)?.getAttribute('data-value');
        let t0 = 0;
        const observer = new MutationObserver(() => {
          const now = document.querySelector(`[data-metric="${metric}"]`)?.getAttribute('data-value');
          if (now && now !== before) {
            observer.disconnect();
            const shown = performance.now() - t0;
            // The page's steps of this edit (app.ts, optimus:edit-*), ms after the input event.
            const steps = Object.fromEntries(
              performance
                .getEntriesByType('mark')
                .filter((m) => m.name.startsWith('optimus:edit-') && m.startTime >= t0)
                .map((m) => [m.name.slice(13), m.startTime - t0]),
            );
            resolve({ shown, steps });
          }
        });
        observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-value'] });
        setTimeout(() => (observer.disconnect(), resolve({ shown: -1, steps: {} })), 5000);
        field.value = value;
        t0 = performance.now();
        field.dispatchEvent(new Event('input', { bubbles: true }));
        field.dispatchEvent(new Event('change', { bubbles: true }));
      }),
    value,
  );

const settle = (page) =>
  page.waitForSelector('[data-testid="status"][data-state="ready"]', { timeout: 30_000 }).then(() =>
    page.waitForSelector('[data-testid="editor"][data-state="ready"]', { state: 'attached', timeout: 30_000 }),
  );

const batches = [1024, 256, 2048, 768, 512, 1536];
for (const [which, dist] of dists.entries()) {
  const { port } = servers[which].httpServer.address();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/`);
  await settle(page);
  // PROFILE_EXAMPLE=default: an example of the page's picker first (page.e2e.ts edits that one).
  if (process.env.PROFILE_EXAMPLE) {
    await page.selectOption('[data-testid="scenario-preset"]', process.env.PROFILE_EXAMPLE);
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.getAttribute('data-state') !== 'computing');
    await settle(page);
  }
  await page.waitForTimeout(500); // the charts, the presets and the schema after the first result
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  const times = [];
  const steps = {};
  for (let i = 0; i < edits; i++) {
    const r = await timeEdit(page, String(batches[i % batches.length]));
    times.push(r.shown);
    for (const [k, v] of Object.entries(r.steps)) (steps[k] ??= []).push(v);
    await settle(page);
    await page.waitForTimeout(50);
  }
  const { profile } = await cdp.send('Profiler.stop');
  const sorted = times.slice().sort((a, b) => a - b);
  console.log(`${dist}: edits ${times.map((t) => t.toFixed(1)).join(' ')}`);
  console.log(`  median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms (min ${sorted[0].toFixed(1)}, max ${sorted.at(-1).toFixed(1)}) over ${edits} edits`);
  const med = (v) => v.slice().sort((a, b) => a - b)[Math.floor(v.length / 2)];
  console.log(`  steps, median ms after the input event: ${Object.entries(steps).map(([k, v]) => `${k} ${med(v).toFixed(1)}`).join(', ')}`);
  // Self time per function over the whole run (edits, settling, charts in the next task).
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i]);
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  const top = [...self].filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(program)')).sort((a, b) => b[1] - a[1]).slice(0, 30);
  console.log(`  main thread self time over the run (ms, ${edits} edits), top functions:`);
  for (const [k, ms] of top) console.log(`    ${ms.toFixed(1).padStart(8)}  ${k}`);
  await page.close();
}
await browser.close();
for (const s of servers) await s.close();
