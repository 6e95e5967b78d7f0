// Shared by the browser tests: serves web/dist with `vite preview` (Vite JS API, port 0) and
// launches Debian's Chromium through playwright-core with the flags of docs/web.md (no
// network beyond this machine). Records, for every page, console errors, page errors, CSP
// violations and requests that leave the preview origin.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';

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
    this.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    this.context = await this.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    // Short waits: a missing hook fails in seconds instead of the default 30 s.
    this.context.setDefaultTimeout(10_000);
    await this.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: this.origin });
  }

  async stop(): Promise<void> {
    await this.browser?.close();
    await this.server?.close();
  }

  /**
   * A new page with the recorders attached (before any script of the site runs); with `fresh`,
   * in a context of its own (empty HTTP cache), closed with the page.
   */
  async page(fresh = false): Promise<Page> {
    const context = fresh ? await this.browser.newContext({ viewport: { width: 1280, height: 900 } }) : this.context;
    const page = await context.newPage();
    if (fresh) page.on('close', () => void context.close());
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
    page.on('console', (m) => {
      if (m.type() === 'error') this.problems.consoleErrors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.problems.pageErrors.push(`${page.url()}: ${e.message}`));
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(`${this.origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) this.problems.foreignRequests.push(url);
    });
    return page;
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
