// Shared by the browser tests: serves web/dist with `vite preview` (Vite JS API, port 0) and
// launches Debian's Chromium through playwright-core with the flags of docs/web.md (no
// network beyond this machine). Records, for every page, console errors, page errors, CSP
// violations and requests that leave the preview origin.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { OptimusModule } from '../src/engine/protocol';
import { loadModule } from '../test/wasm';

export const WEB = fileURLToPath(new URL('../', import.meta.url));
export const DIST = `${WEB}dist`;
/** Screenshots and metrics go here (gitignored: the repository's build/). */
export const OUT = fileURLToPath(new URL('../../build/e2e/', import.meta.url));

/** Debian's chromium package; OPTIMUS_CHROMIUM names another Chromium binary. */
export const CHROMIUM = process.env.OPTIMUS_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Containers (CI's debian:12) give /dev/shm 64 MB, too little for Chromium's renderer.
  '--disable-dev-shm-usage',
];

export interface Problems {
  consoleErrors: string[];
  pageErrors: string[];
  foreignRequests: string[];
  cspViolations: string[];
}

export class Site {
  server!: PreviewServer;
  browser!: Browser;
  context!: BrowserContext;
  origin = '';
  readonly problems: Problems = { consoleErrors: [], pageErrors: [], foreignRequests: [], cspViolations: [] };

  async start(): Promise<void> {
    if (!existsSync(`${DIST}/index.html`)) throw new Error(`${DIST} is missing: run "npm run build" in web/ first`);
    mkdirSync(OUT, { recursive: true });
    this.server = await preview({
      root: WEB,
      configFile: `${WEB}vite.config.ts`,
      logLevel: 'warn',
      preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
    });
    const address = this.server.httpServer.address();
    if (address === null || typeof address === 'string') throw new Error('vite preview has no TCP address');
    this.origin = `http://127.0.0.1:${address.port}`;
    await this.launch();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.browser?.close();
    await this.server?.close();
  }

  /** Every time Chromium exited while the file's tests still ran (when). */
  readonly browserExits: string[] = [];
  private stopping = false;

  /** Launches Chromium and the shared context (a relaunch starts with no kept tabs). */
  private async launch(): Promise<void> {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    browser.on('disconnected', () => {
      if (this.stopping) return;
      const exit = `Chromium exited unasked at ${new Date().toISOString()}; launched again for the next page`;
      this.browserExits.push(exit);
      console.error(`E2E_BROWSER_EXIT ${exit}`);
    });
    this.browser = browser;
    this.idle.length = 0;
    this.context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    // Short waits: a missing hook fails in seconds instead of the default 30 s.
    this.context.setDefaultTimeout(10_000);
    await this.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: this.origin });
  }

  /**
   * Chromium, launched again if it exited: one exit (CI's run at b9deca1 lost its browser during
   * tasks.e2e.ts's first test, and every later test of the file failed at newContext) costs the
   * test it happened in, which Vitest runs once more (vitest.e2e.config.ts, retry).
   */
  async ensureBrowser(): Promise<Browser> {
    if (!this.browser.isConnected()) await this.launch();
    return this.browser;
  }

  /**
   * Tabs of the shared context that a test closed, kept for the next test: a new tab costs
   * Chromium about 1.8 CPU seconds (ten tabs opened and closed took 19 CPU s more than one tab
   * navigated ten times, 2026-11-29), which the browser tests, CPU-bound on two cores, paid about
   * 50 times a run.
   */
  private readonly idle: Page[] = [];

  /**
   * A page with the recorders attached (before any script of the site runs): a tab a test closed
   * before, brought to the front (a background tab's timers and animation frames are throttled)
   * on a blank document, that test's listeners, routes and media emulation gone; or a new one.
   * With `fresh`, always new, in a context of its own (empty HTTP cache), really closed with the
   * page.
   */
  async page(fresh = false): Promise<Page> {
    await this.ensureBrowser();
    const kept = fresh ? undefined : this.idle.pop();
    if (kept) {
      await kept.bringToFront();
      return kept;
    }
    const context = fresh ? await this.browser.newContext({ viewport: { width: 1280, height: 900 } }) : this.context;
    const page = await context.newPage();
    if (fresh) page.on('close', () => void context.close());
    else page.close = this.keep(page, page.close.bind(page));
    await page.addInitScript(() => {
      const w = window as unknown as { __csp: string[]; __firstResultMs?: number };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
      // When the first result number appears, relative to the navigation start (performance.now).
      const seen = (): boolean => document.querySelector('[data-metric][data-value]') !== null;
      const observer = new MutationObserver(() => {
        if (w.__firstResultMs === undefined && seen()) {
          w.__firstResultMs = performance.now();
          observer.disconnect();
        }
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-value'] });
    });
    this.record(page);
    return page;
  }

  /** A page's close for the shared context: back to the idle tabs, or closed if that fails. */
  private keep(page: Page, close: () => Promise<void>): () => Promise<void> {
    return async () => {
      try {
        await page.goto('about:blank');
        await page.unrouteAll();
        await page.emulateMedia({ media: null });
        page.removeAllListeners();
        this.record(page);
        this.idle.push(page);
      } catch {
        await close();
      }
    };
  }

  /** The recorders of console errors, page errors and requests outside the site. */
  private record(page: Page): void {
    page.on('console', (m) => {
      if (m.type() === 'error') this.problems.consoleErrors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.problems.pageErrors.push(`${page.url()}: ${e.message}`));
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(`${this.origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:') && url !== 'about:blank') this.problems.foreignRequests.push(url);
    });
  }

  /** No page error, console error or request outside the site so far (every page of this site). */
  expectNoProblems(): void {
    expect(this.problems.pageErrors).toEqual([]);
    expect(this.problems.consoleErrors).toEqual([]);
    expect(this.problems.foreignRequests).toEqual([]);
  }

  /** CSP violations the page's document saw. */
  async cspViolations(page: Page): Promise<string[]> {
    return page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
  }
}

/** Waits for the page to have finished computing (status ready or error). */
export async function settled(page: Page, state: 'ready' | 'error' = 'ready', timeout = 20_000): Promise<void> {
  await page.waitForSelector(`[data-testid="status"][data-state="${state}"]`, { timeout });
  // The numbers come before the form is filled in (the first result does not wait for the
  // editor), so a settled page also has its editor showing the scenario.
  if (state === 'ready') await page.waitForSelector('[data-testid="editor"][data-state="ready"]', { state: 'attached', timeout });
  // And the address holds the shown result's scenario (the page writes the link a few
  // milliseconds after the result: data-linked).
  // ("kept": a link that could not be used stays in the address until an edit.)
  if (state === 'ready') await page.waitForSelector('[data-testid="status"][data-linked="true"], [data-testid="status"][data-linked="kept"]', { state: 'attached', timeout });
}

/** Every displayed metric: path -> raw data-value text. */
export async function metrics(page: Page): Promise<Record<string, string>> {
  return page.$$eval('[data-metric][data-value]', (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute('data-metric')!, e.getAttribute('data-value')!])),
  );
}

/** Value at a dotted output path ("training.breakdown_s.compute", "inference.operators.0.time_s"). */
export function at(tree: unknown, path: string): unknown {
  let cur: unknown = tree;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Every shown metric equals the engine's number for the scenario (data-value = String(x)). */
export function expectMetricsOf(shown: Record<string, string>, prediction: unknown): void {
  for (const key of ['training.iteration_time_s', 'inference.ttft_s', 'memory.per_device_bytes.total', 'memory.fits']) {
    expect(Object.keys(shown), `metric ${key} is displayed`).toContain(key);
  }
  expectShownAre(shown, prediction);
}

/** Every number the page shows (data-metric) is the engine's for that path. */
export function expectShownAre(shown: Record<string, string>, prediction: unknown): void {
  for (const [path, value] of Object.entries(shown)) {
    const want = at(prediction, path);
    expect(want, `data-metric="${path}" names an output of the engine`).not.toBeUndefined();
    expect(value, `data-metric="${path}"`).toBe(String(want));
  }
}

/**
 * Sets a scenario field the way a person does (value, then input and change events) and returns
 * the milliseconds, measured in the page, from the input event until the metric's data-value
 * changes (or -1 if it did not change within the timeout).
 */
export async function editAndTime(page: Page, pointer: string, value: string, metric: string, timeoutMs = 5000): Promise<number> {
  // The first numbers are on screen (status ready) before the form is built from the engine's
  // schema: wait for the field itself.
  await page.waitForSelector(`[data-path="${pointer}"]`);
  return page.evaluate(
    ({ pointer, value, metric, timeoutMs }) =>
      new Promise<number>((resolve, reject) => {
        const field = document.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-path="${pointer}"]`);
        const target = document.querySelector(`[data-metric="${metric}"]`);
        if (!field) return reject(new Error(`no field [data-path="${pointer}"]`));
        if (!target) return reject(new Error(`no metric [data-metric="${metric}"]`));
        const before = target.getAttribute('data-value');
        let t0 = 0;
        const check = (): boolean => {
          const now = document.querySelector(`[data-metric="${metric}"]`)?.getAttribute('data-value');
          if (now !== undefined && now !== null && now !== before) {
            observer.disconnect();
            resolve(performance.now() - t0);
            return true;
          }
          return false;
        };
        const observer = new MutationObserver(check);
        observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-value'] });
        setTimeout(() => {
          observer.disconnect();
          resolve(-1);
        }, timeoutMs);
        field.value = value;
        t0 = performance.now();
        field.dispatchEvent(new Event('input', { bubbles: true }));
        field.dispatchEvent(new Event('change', { bubbles: true }));
      }),
    { pointer, value, metric, timeoutMs },
  );
}

/** Sets a field and waits for the page to settle (ready or error). */
export async function setField(page: Page, pointer: string, value: string): Promise<void> {
  const field = page.locator(`[data-path="${pointer}"]`).first();
  const tag = await field.evaluate((e) => e.tagName);
  if (tag === 'SELECT') await field.selectOption(value);
  else await field.fill(value);
  await field.dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.getAttribute('data-state') !== 'computing');
}

/** The viewports of a newcomer's tasks (tasks.e2e.ts, timing.e2e.ts). */
export const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** A page in a context of its own (no cache, no storage: a newcomer), at the viewport's size. */
export async function freshPage(site: Site, viewport: { width: number; height: number }): Promise<Page> {
  const context = await (await site.ensureBrowser()).newContext({ viewport, isMobile: viewport.width < 500, hasTouch: viewport.width < 500 });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  page.on('close', () => void context.close().catch(() => undefined));
  page.on('console', (m) => {
    if (m.type() === 'error') site.problems.consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => site.problems.pageErrors.push(`${page.url()}: ${e.message}`));
  return page;
}

/** The landing page in a fresh page at the viewport's size, once it shows numbers and its editor; t0 is before the navigation. */
export async function landing(site: Site, viewport: { width: number; height: number }): Promise<{ page: Page; t0: number }> {
  const page = await freshPage(site, viewport);
  const t0 = Date.now();
  await page.goto(`${site.origin}/`);
  await page.waitForSelector('[data-testid="status"][data-state="ready"]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid="editor"][data-state="ready"]', { state: 'attached' });
  return { page, t0 };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious or critical violations on the whole page as it is now: "id [targets]" each. */
export async function axeClean(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} ${JSON.stringify((v as unknown as { nodes: Array<{ target: unknown }> }).nodes.map((x) => x.target))}`);
  });
}

/**
 * Prints one parseable line of the timings and sizes a test file measured (`E2E_METRICS k=v ...`)
 * and writes them to build/e2e/metrics-NAME.json.
 */
export function reportMetrics(name: string, measured: Record<string, number>): void {
  const line = Object.entries(measured)
    .map(([k, v]) => `${k}=${Math.round(v * 10) / 10}`)
    .join(' ');
  console.log(`E2E_METRICS ${line}`);
  mkdirSync(OUT, { recursive: true });
  writeFileSync(`${OUT}metrics-${name}.json`, `${JSON.stringify(measured, null, 2)}\n`);
}

/**
 * A test of the file runs again (Vitest's retry, vitest.e2e.config.ts) only when
 * Chromium exited during its first try; after any other failure the retry fails at once.
 */
export function retryOnlyAfterBrowserExit(site: Site): void {
  let exitsAtStart = 0;
  beforeEach(({ task }) => {
    const exits = site.browserExits.length;
    if ((task.result?.retryCount ?? 0) > 0 && exits === exitsAtStart) throw new Error('not tried again: Chromium did not exit during the first try, whose failure stands');
    exitsAtStart = exits;
  });
}

/**
 * One test file's site and engine: the wasm module loaded (the truth the page is checked against)
 * and `vite preview` started before its tests, the site stopped after them, then `after` (a file's
 * metrics or lines printed).
 */
export function siteWithEngine(after?: () => void): { site: Site; engine: () => OptimusModule; predict: (s: unknown) => any } {
  const site = new Site();
  let mod: OptimusModule | undefined;
  beforeAll(async () => {
    mod = await loadModule();
    await site.start();
  });
  retryOnlyAfterBrowserExit(site);
  afterAll(async () => {
    await site.stop();
    after?.();
  });
  const engine = (): OptimusModule => mod!;
  return { site, engine, predict: (s) => JSON.parse(engine().predict(JSON.stringify(s))) };
}

/** One recorded message to or from an engine worker (recordWorkerCalls; the type is erased, so the page's script can use it). */
type WorkerEvent = { t: number; worker: number; ev: string; id?: number; method?: string; kind?: string; detail?: string };

/**
 * Records, in the page, every message to and from the engine's Web Workers (before any script of
 * the site runs): what was sent when, what came back and how long it took. `workerCalls` reads
 * it back as lines: the calls that were not predictions, took over a second, failed or were never
 * answered, and the workers started and terminated; for a failure's message (the accuracy view's
 * live check), so that a row refused there says which call the worker was on and for how long.
 */
export async function recordWorkerCalls(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const log: WorkerEvent[] = [];
    (window as unknown as { __workerCalls: WorkerEvent[] }).__workerCalls = log;
    let workers = 0;
    const Base = window.Worker;
    window.Worker = class extends Base {
      private readonly n = workers++;
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        log.push({ t: performance.now(), worker: this.n, ev: 'started' });
        this.addEventListener('message', (e: MessageEvent) => {
          const d = e.data as { id?: number; kind?: string; code?: string; message?: string } | null;
          if (d && d.kind !== 'progress' && d.kind !== 'waiting' && d.kind !== 'started') log.push({ t: performance.now(), worker: this.n, ev: 'answer', id: d.id, kind: d.kind, detail: d.code ? `${d.code}: ${d.message}` : undefined });
        });
        this.addEventListener('error', (e: ErrorEvent) => log.push({ t: performance.now(), worker: this.n, ev: 'error', detail: e.message }));
      }
      override postMessage(m: unknown, ...rest: unknown[]): void {
        const r = m as { id?: number; method?: string; args?: unknown[] } | null;
        if (r && typeof r.method === 'string') log.push({ t: performance.now(), worker: this.n, ev: 'call', id: r.id, method: r.method, detail: String(r.args?.[0] ?? '').slice(0, 80) });
        (Base.prototype.postMessage as (...a: unknown[]) => void).call(this, m, ...rest);
      }
      override terminate(): void {
        log.push({ t: performance.now(), worker: this.n, ev: 'terminated' });
        super.terminate();
      }
    };
  });
}

/** The recorded worker calls worth reading after a failure (recordWorkerCalls), one per line. */
export async function workerCalls(page: Page): Promise<string> {
  const log = await page.evaluate(() => (window as unknown as { __workerCalls?: WorkerEvent[] }).__workerCalls ?? []);
  const open = new Map<string, WorkerEvent>();
  const lines: string[] = [];
  const at = (e: WorkerEvent): string => `${(e.t / 1000).toFixed(2)} s worker ${e.worker}`;
  for (const e of log) {
    const key = `${e.worker}:${e.id}`;
    if (e.ev === 'call') open.set(key, e);
    else if (e.ev === 'answer' && open.has(key)) {
      const c = open.get(key)!;
      open.delete(key);
      const ms = e.t - c.t;
      if (c.method !== 'predict' || ms > 1000 || e.kind !== 'result') lines.push(`${at(c)}: ${c.method} #${c.id} -> ${e.kind} after ${ms.toFixed(0)} ms${e.detail ? ` (${e.detail})` : ''} ${c.detail ?? ''}`);
    } else if (e.ev !== 'answer') lines.push(`${at(e)}: ${e.ev}${e.detail ? ` (${e.detail})` : ''}`);
  }
  for (const c of open.values()) lines.push(`${at(c)}: ${c.method} #${c.id} never answered ${c.detail ?? ''}`);
  return lines.join('\n');
}
