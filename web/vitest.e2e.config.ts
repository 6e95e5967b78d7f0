// Browser end-to-end tests (e2e/): the built site (web/dist) served by `vite preview` on a free
// port, driven by playwright-core in Debian's headless Chromium. Run `vite build` first.
import { defineConfig } from 'vitest/config';
import { WASM_ALIAS } from './vite.config.ts';

export default defineConfig({
  resolve: { alias: WASM_ALIAS },
  test: {
    include: ['e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
