// The Content-Security-Policy of the built site, in two parts, used by vite.config.ts.
//
// DOCUMENT_CSP governs the page: it is a <meta> in the built index.html (static hosts such as
// GitHub Pages cannot send headers) and the header `vite preview` sends with the page. The page's
// own code needs no eval: its one relaxation is 'wasm-unsafe-eval', which lets it compile the
// first-load engine (src/boot.ts computes the first result on the page's thread) and nothing else;
// that engine's glue is linked with -sDYNAMIC_EXECUTION=0 (wasm/CMakeLists.txt), so Embind builds
// no function from text.
//
// WORKER_CSP governs the engine's Web Worker. A dedicated worker does not inherit the document's
// policy: it takes the one sent with its own script (CSP Level 3, "initialize a worker's policy";
// verified in Chromium: a document <meta> without 'unsafe-eval' leaves the worker working, the
// same policy as the worker script's header breaks it). `vite preview` sends it with every
// JavaScript response (for scripts a document loads, the header has no effect). Its relaxations,
// each one needed (tried one at a time in Chromium):
// - 'unsafe-eval': Embind (Emscripten 3.1.6) builds its call wrappers with `new Function(...)`;
//   without it the worker dies with an EvalError. The first-load engine is linked with
//   -sDYNAMIC_EXECUTION=0 (closures instead); the full engine, which only the worker runs, is not.
// - 'wasm-unsafe-eval': compiling the WebAssembly module ('unsafe-eval' implies it in today's
//   browsers; named so that the policy stays right if 'unsafe-eval' can be dropped one day).
// - connect-src 'self': the worker fetches the .wasm asset; nothing else is fetched, anywhere.
//
// The document's other relaxations: style-src 'unsafe-inline' (Observable Plot writes a <style>
// element into each chart's SVG) and img-src data: blob: (the inline favicon and the PNG export,
// which draws the chart's SVG on a canvas). A static host that cannot send headers runs the
// worker without a policy of its own; the document's policy still holds.
type Directives = Record<string, string[]>;

export const DOCUMENT_DIRECTIVES: Directives = {
  'default-src': ["'none'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  'worker-src': ["'self'"],
  'connect-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'"],
  'manifest-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'object-src': ["'none'"],
};

export const WORKER_DIRECTIVES: Directives = {
  'default-src': ["'none'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'", "'unsafe-eval'"],
  'connect-src': ["'self'"],
};

const serialize = (d: Directives): string =>
  Object.entries(d)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');

export const DOCUMENT_CSP = serialize(DOCUMENT_DIRECTIVES);
export const WORKER_CSP = serialize(WORKER_DIRECTIVES);

/** Parses a policy back into directives (for tests). */
export function parseCsp(policy: string): Directives {
  return Object.fromEntries(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}
