// Vitest: Node tests of the codec, the restore step, the engine client and protocol (against the
// real wasm module, loaded with its bytes, see test/wasm.ts) and the golden scenarios.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { validationCases, WASM_ALIAS } from './vite.config.ts';

export default defineConfig({
  plugins: [validationCases()],
  resolve: { alias: WASM_ALIAS },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // One process: the tests share a 2-core machine and each file loads the wasm module once.
    pool: 'threads',
    fileParallelism: false,
    // The repository root for test/wasm.ts: under a DOM environment (happy-dom) import.meta.url
    // is not a file URL there.
    env: { OPTIMUS_ROOT: fileURLToPath(new URL('..', import.meta.url)) },
  },
});
