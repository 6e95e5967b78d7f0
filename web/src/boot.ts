// The page's engine, created before anything else of the page: the entry (main.ts) evaluates this
// module first, so the engine worker fetches and compiles the wasm module while the rest of the
// page (app.ts and its charts) is still being fetched, parsed and run.
import { createEngine } from './engine/client';

export const engine = createEngine();
