// The page's engine, created before anything else of the page: the entry (main.ts) evaluates this
// module first, so the first-load engine is compiled while the rest of the page (app.ts and its
// charts) is still being fetched, parsed and run.
//
// The first result does not wait for a Web Worker: the page compiles the first-load module from
// the response its document preloads (`WebAssembly.compileStreaming`, the bytes compiled as they
// arrive), instantiates it on its own thread (its glue is linked without eval: wasm/CMakeLists.txt)
// and answers its first calls there; the engine worker starts once that first
// answer is out and is handed the compiled module (its code shared, nothing fetched or compiled
// again), and every later call goes to it (client.ts). docs/performance.md "The page" measures it.
import createFirstModule from 'optimus-wasm-first';
import { createEngine } from './engine/client';
import { fromCompiled } from './engine/protocol';

/**
 * The first-load engine compiled from the preloaded response (vite.config.ts,
 * `firstResultPreloads`), or null when it cannot be (the worker then fetches the module itself);
 * undefined without the link (the dev server): the worker fetches and compiles it as before.
 */
function compileFirst(): Promise<WebAssembly.Module | null> | undefined {
  const link = document.querySelector<HTMLLinkElement>('link[data-engine-wasm]');
  if (!link || typeof WebAssembly?.compileStreaming !== 'function') return undefined;
  return fetch(link.href, { credentials: 'same-origin' })
    .then((r) => (r.ok && r.body ? WebAssembly.compileStreaming(new Response(r.body, { headers: { 'Content-Type': 'application/wasm' } })) : null))
    .then((m) => {
      performance.mark('optimus:compiled');
      return m;
    })
    .catch(() => null);
}

const firstModule = compileFirst();
// Instantiated on this thread (Embind's registrations included) once compiled.
const local = firstModule
  ?.then((m) => (m ? fromCompiled(createFirstModule, m) : null))
  .then((m) => {
    performance.mark('optimus:local-ready');
    return m;
  })
  .catch(() => null);
export const engine = createEngine({ firstModule, local });
performance.mark('optimus:boot');
