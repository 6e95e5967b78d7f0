// The Content-Security-Policy definitions (csp.ts): the document gets no eval (only WebAssembly
// compilation, for the first-load engine it runs itself), the worker
// exactly Embind's and WebAssembly's relaxations; nothing may be loaded from another origin.
import { expect, test } from 'vitest';
import { DOCUMENT_CSP, DOCUMENT_DIRECTIVES, WORKER_CSP, WORKER_DIRECTIVES, parseCsp } from '../csp';

test('serialised policies parse back to their directives', () => {
  expect(parseCsp(DOCUMENT_CSP)).toEqual(DOCUMENT_DIRECTIVES);
  expect(parseCsp(WORKER_CSP)).toEqual(WORKER_DIRECTIVES);
});

test('the document policy allows no eval, no inline script and no other origin', () => {
  const d = parseCsp(DOCUMENT_CSP);
  expect(d['default-src']).toEqual(["'none'"]);
  expect(d['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  expect(d['connect-src']).toEqual(["'self'"]);
  expect(d['worker-src']).toEqual(["'self'"]);
  expect(d['object-src']).toEqual(["'none'"]);
  expect(d['base-uri']).toEqual(["'none'"]);
});

test('the worker policy has exactly the engine relaxations', () => {
  expect(parseCsp(WORKER_CSP)).toEqual({
    'default-src': ["'none'"],
    'script-src': ["'self'", "'wasm-unsafe-eval'", "'unsafe-eval'"],
    'connect-src': ["'self'"],
  });
});

test('no directive names a host, a scheme wildcard or http(s)', () => {
  for (const policy of [DOCUMENT_CSP, WORKER_CSP]) {
    for (const values of Object.values(parseCsp(policy))) {
      for (const v of values) expect(v).toMatch(/^('[a-z-]+'|data:|blob:)$/);
    }
  }
});
