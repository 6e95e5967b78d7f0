// The page's engine, created before anything else of the page: the entry (main.ts) evaluates this
// module first, so the engine worker fetches and compiles the wasm module while the rest of the
// page (app.ts and its charts) is still being fetched, parsed and run.
import { createEngine } from './engine/client';

/**
 * The first-load engine's bytes. The built page's <head> preloads them (vite.config.ts,
 * `firstWasmPreload`), so their download starts with the document; this fetch takes that
 * response, and its body goes to the worker as a stream as soon as both are there (client.ts),
 * instead of the worker asking for the bytes only once its own script has been fetched and run. Without the link (the dev server) the worker
 * fetches the module itself.
 */
function firstWasm(): Promise<Response | null> | undefined {
  const link = document.querySelector<HTMLLinkElement>('link[data-engine-wasm]');
  if (!link) return undefined;
  return fetch(link.href, { credentials: 'same-origin' })
    .then((r) => (r.ok && r.body ? r : null))
    .catch(() => null);
}

export const engine = createEngine({ firstWasm: firstWasm() });
performance.mark('optimus:worker-created');
