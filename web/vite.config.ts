// Vite: bundles the page, the engine worker (src/engine/worker.ts) and the wasm module built by
// `cmake --preset wasm && cmake --build --preset wasm`. The module's ES factory is imported as
// 'optimus-wasm' (an alias of build/wasm/wasm/optimus_wasm.js); its
// `new URL('optimus_wasm.wasm', import.meta.url)` makes Vite emit the .wasm as one hashed asset.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { DOCUMENT_CSP, WORKER_CSP } from './csp.ts';

export const WASM_JS = fileURLToPath(new URL('../build/wasm/wasm/optimus_wasm.js', import.meta.url));

/** Fails early, with the command to run, when the wasm module has not been built. */
function requireWasm(): Plugin {
  return {
    name: 'optimus-require-wasm',
    buildStart() {
      if (!existsSync(WASM_JS)) {
        this.error(`${WASM_JS} is missing: build it with "cmake --preset wasm && cmake --build --preset wasm" (or scripts/run)`);
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

export default defineConfig({
  // Relative asset URLs: the site works from any sub-path (GitHub Pages serves /<repo>/).
  base: './',
  plugins: [requireWasm(), csp()],
  resolve: { alias: { 'optimus-wasm': WASM_JS } },
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: false, reportCompressedSize: false },
  // The dev server may serve web/ and the wasm build folder (outside web/).
  server: { host: '127.0.0.1', fs: { allow: [fileURLToPath(new URL('.', import.meta.url)), fileURLToPath(new URL('../build/wasm/wasm/', import.meta.url))] } },
  preview: { host: '127.0.0.1' },
});
