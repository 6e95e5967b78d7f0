// Loads the engine's wasm module in Node as the page's worker does, but with its bytes passed in
// (Node's fetch cannot read file URLs), and runs the worker protocol in-process.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OptimusModule, Request, Response } from '../src/engine/protocol';
import { handleRequest } from '../src/engine/protocol';
import type { WorkerLike } from '../src/engine/client';

/** The repository root, with a trailing slash (vitest.config.ts sets OPTIMUS_ROOT). */
export const ROOT = process.env.OPTIMUS_ROOT?.replace(/\/?$/, '/') ?? fileURLToPath(new URL('../../', import.meta.url));
const WASM_DIR = process.env.OPTIMUS_WASM_DIR ?? `${ROOT}build/wasm/wasm`;

let loading: Promise<OptimusModule> | null = null;

/** The module, loaded once per test file. */
export function loadModule(): Promise<OptimusModule> {
  loading ??= (async () => {
    // The build's module through the 'optimus-wasm' alias (vitest.config.ts), which also resolves
    // under a DOM test environment; another build's by its file URL.
    const { default: factory } = (
      process.env.OPTIMUS_WASM_DIR ? await import(pathToFileURL(`${WASM_DIR}/optimus_wasm.js`).href) : await import('optimus-wasm')
    ) as { default: (o: { wasmBinary: Uint8Array }) => Promise<OptimusModule> };
    return factory({ wasmBinary: readFileSync(`${WASM_DIR}/optimus_wasm.wasm`) });
  })();
  return loading;
}

/**
 * A stand-in for the engine Worker: the same protocol handler over the same module, answering
 * asynchronously as a worker would. `hooks` let tests break it.
 */
export class InProcessWorker implements WorkerLike {
  onmessage: ((event: { data: Response }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  terminated = false;
  readonly received: Request[] = [];

  constructor(
    private readonly mod: OptimusModule,
    private readonly hooks: { silent?: boolean; failToLoad?: string } = {},
  ) {
    setTimeout(() => {
      if (this.hooks.failToLoad) this.emit({ id: 0, kind: 'failure', code: 'engine.crashed', message: this.hooks.failToLoad });
      else this.emit({ id: 0, kind: 'ready' });
    }, 0);
  }

  postMessage(req: Request): void {
    this.received.push(req);
    if (this.hooks.silent) return;
    setTimeout(() => handleRequest(this.mod, req, (r) => this.emit(r)), 0);
  }

  terminate(): void {
    this.terminated = true;
  }

  private emit(r: Response): void {
    if (!this.terminated) this.onmessage?.({ data: r });
  }
}

export function readJson(relativeToRoot: string): unknown {
  return JSON.parse(readFileSync(`${ROOT}${relativeToRoot}`, 'utf8'));
}
