// Vite: bundles the page, the engine worker (src/engine/worker.ts) and the wasm module built by
// `cmake --preset wasm && cmake --build --preset wasm`. The modules' ES factories are imported as
// 'optimus-wasm-first' and 'optimus-wasm' (aliases of build/wasm/wasm/optimus_wasm_first.js and
// optimus_wasm.js); each one's `new URL('NAME.wasm', import.meta.url)` makes Vite emit its .wasm
// as one hashed asset.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { DOCUMENT_CSP, WORKER_CSP } from './csp.ts';
import { metricBand, metricValue } from './src/state/metric.ts';

export const WASM_JS = fileURLToPath(new URL('../build/wasm/wasm/optimus_wasm.js', import.meta.url));
/** The first-load engine (wasm/CMakeLists.txt): what the page's worker loads first. */
export const WASM_FIRST_JS = fileURLToPath(new URL('../build/wasm/wasm/optimus_wasm_first.js', import.meta.url));
/** The two factories' import names (src/engine/optimus-wasm.d.ts). */
export const WASM_ALIAS = { 'optimus-wasm-first': WASM_FIRST_JS, 'optimus-wasm': WASM_JS };

/** Fails early, with the command to run, when the wasm module has not been built. */
function requireWasm(): Plugin {
  return {
    name: 'optimus-require-wasm',
    buildStart() {
      for (const js of [WASM_JS, WASM_FIRST_JS]) {
        if (!existsSync(js)) this.error(`${js} is missing: build it with "cmake --preset wasm && cmake --build --preset wasm" (or scripts/run)`);
      }
    },
  };
}

/**
 * The Content-Security-Policy (csp.ts): a <meta> first in the built index.html's <head>, and
 * `vite preview` headers: the worker policy on JavaScript responses (it governs a worker started
 * from that script), the document policy on everything else.
 */
function csp(): Plugin {
  return {
    name: 'optimus-csp',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, ctx) =>
        ctx.server ? [] : [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: DOCUMENT_CSP }, injectTo: 'head-prepend' }],
    },
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!;
        res.setHeader('Content-Security-Policy', /\.m?js$/.test(path) ? WORKER_CSP : DOCUMENT_CSP);
        next();
      });
    },
  };
}

/**
 * Links in the built index.html's <head> that start, while the document is still being parsed,
 * the two downloads the first result waits on: the first-load engine's .wasm (`preload`, marked
 * data-engine-wasm: src/boot.ts fetches it from there and hands the bytes to the engine worker)
 * and the page's code (`modulepreload` of the app chunk, which the entry imports only once it has
 * run). docs/performance.md "The page" measures what this takes off the first result.
 */
function firstResultPreloads(): Plugin {
  return {
    name: 'optimus-first-result-preloads',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, ctx) => {
        if (!ctx.bundle) return [];
        const files = Object.values(ctx.bundle);
        const wasm = files.find((f) => f.type === 'asset' && /(^|\/)optimus_wasm_first-[^/]*\.wasm$/.test(f.fileName));
        const app = files.find((f) => f.type === 'chunk' && /[\\/]src[\\/]app\.ts$/.test(f.facadeModuleId ?? ''));
        if (!wasm) throw new Error('optimus-first-result-preloads: the build has no optimus_wasm_first .wasm asset');
        return [
          { tag: 'link', attrs: { rel: 'preload', href: `./${wasm.fileName}`, as: 'fetch', type: 'application/wasm', crossorigin: '', 'data-engine-wasm': '' }, injectTo: 'head' },
          ...(app ? [{ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: '', href: `./${app.fileName}` }, injectTo: 'head' as const }] : []),
        ];
      },
    },
  };
}

/**
 * The validation rows (tests/validation/data/*.jsonl, imported `?raw` by the accuracy view) with
 * only the fields the view reads: each row's sources and notes stay in the repository, not in the
 * page (about a third of the rows' compressed bytes).
 */
export function validationCases(options: { predict?: boolean } = {}): Plugin {
  const keep = ['id', 'set', 'group', 'scenario', 'metric', 'expected'];
  let engine: Promise<{ predict(json: string): string }> | null = null;
  /**
   * With `predict` (the page's build): the engine the page bundles (the same wasm file), loaded
   * here in Node, predicts every row once and the row carries its answer (`cached`: [metric, band
   * low, band high], or the error code), so the accuracy view shows every source at once and
   * predicts them again live in the background.
   */
  const load = () =>
    (engine ??= (async () => {
      const bytes = readFileSync(WASM_JS.replace(/\.js$/, '.wasm'));
      const { default: factory } = (await import(pathToFileURL(WASM_JS).href)) as { default: (o: { wasmBinary: Uint8Array }) => Promise<{ predict(json: string): string }> };
      const mod = await factory({ wasmBinary: bytes });
      return { predict: (json: string) => mod.predict(json) };
    })());
  return {
    name: 'optimus-validation-cases',
    enforce: 'pre',
    async load(id) {
      const [path, query] = id.split('?');
      if (query !== 'raw' || !path || !/[\\/]tests[\\/]validation[\\/]data[\\/][^\\/]+\.jsonl$/.test(path)) return null;
      const e = options.predict ? await load() : null;
      const memo = new Map<string, unknown>();
      const rows = readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => {
          const c = JSON.parse(l) as Record<string, unknown>;
          const row: Record<string, unknown> = Object.fromEntries(keep.filter((k) => k in c).map((k) => [k, c[k]]));
          if (e) {
            const json = JSON.stringify(c.scenario);
            if (!memo.has(json)) memo.set(json, JSON.parse(e.predict(json)));
            const p = memo.get(json) as { error?: { code: string } };
            const metric = String(c.metric);
            const band = metricBand(p, metric);
            // The band to 6 significant digits (it only says inside or outside; the live check
            // replaces it), the metric whole (the table's errors equal the engine's to the last bit).
            const short = (x: number): number => Number(x.toPrecision(6));
            row.cached = p.error ? p.error.code : [metricValue(p, metric) ?? null, ...(band ? [short(band.low), short(band.high)] : [])];
          }
          return JSON.stringify(row);
        });
      return `export default ${JSON.stringify(rows.join('\n'))};`;
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the site works from any sub-path (GitHub Pages serves /<repo>/).
  base: './',
  plugins: [requireWasm(), csp(), firstResultPreloads(), validationCases({ predict: true })],
  resolve: { alias: WASM_ALIAS },
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: false, reportCompressedSize: false },
  // The dev server may serve web/ and the wasm build folder (outside web/).
  server: { host: '127.0.0.1', fs: { allow: [fileURLToPath(new URL('.', import.meta.url)), fileURLToPath(new URL('../build/wasm/wasm/', import.meta.url))] } },
  preview: { host: '127.0.0.1' },
});
