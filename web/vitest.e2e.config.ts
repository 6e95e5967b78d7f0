// Browser end-to-end tests (e2e/): the built site (web/dist) served by `vite preview` on a free
// port, driven by playwright-core in Debian's headless Chromium. Run `vite build` first.
//
// Two projects, one after the other (sequence.groupOrder 1, then 2; Vitest runs a project of
// group 0 that has file parallelism off last, in a group of its own): "timing"
// (e2e/timing.e2e.ts, the tests that time the page against its goals) runs first and alone, so
// that nothing else loads the machine while it measures; then "browser", every other file, two
// at a time. A file drives one page at a time, and Chromium's renderer and the page's engine
// worker keep about a core busy: one file at a time the suite took 271 s wall, two at a time 286
// s with the longest file (page.e2e.ts, 209 s, most of it the accuracy view's test) alone at the
// end, three at a time 309 s (every file slower: 2026-11-29). The accuracy view's test is now a
// file of its own (e2e/accuracy.e2e.ts), so the two lanes even out. docs/web.md "How it is
// tested".
import { defineConfig } from 'vitest/config';
import { WASM_ALIAS } from './vite.config.ts';

export default defineConfig({
  resolve: { alias: WASM_ALIAS },
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // A test in which Chromium itself exited runs once more on a new Chromium (e2e/harness.ts,
    // Site.ensureBrowser; a retry after any other failure is refused there).
    retry: { count: 1, condition: /Target page, context or browser has been closed|Browser has been closed|browser has disconnected/ },
    projects: [
      {
        extends: true,
        test: { name: 'timing', include: ['e2e/timing.e2e.ts'], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['e2e/**/*.e2e.ts'],
          exclude: ['e2e/timing.e2e.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
