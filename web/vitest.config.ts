// Vitest: Node tests of the codec, the restore step, the engine client and protocol (against the
// real wasm module, loaded with its bytes, see test/wasm.ts) and the golden scenarios.
import { defineConfig } from 'vitest/config';
import { WASM_JS } from './vite.config.ts';

export default defineConfig({
  resolve: { alias: { 'optimus-wasm': WASM_JS } },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // One process: the tests share a 2-core machine and each file loads the wasm module once.
    pool: 'threads',
    fileParallelism: false,
  },
});
