// The engine's Web Worker: loads the wasm engine, then serves requests (protocol.ts). Requests
// that arrive while a module is still loading wait in a queue.
//
// Two modules (wasm/CMakeLists.txt, docs/web.md "Weight"): the first-load engine
// (optimus_wasm_first: predict, validate, presets, search) is what the page downloads before its
// first result; the full engine (optimus_wasm: also the schema, studies, calibration and
// importers) is imported the first time a request needs a call the first one lacks, which the
// page makes only after its first numbers are on screen. Both are built from the same sources, so
// a prediction is the same bit for bit in either (tests/wasm/first-load.test.mjs).
import createFirstModule from 'optimus-wasm-first';
import { handleRequest, needsFullEngine, type OptimusModule, type Request, type Response } from './protocol';

// The dedicated worker's global scope, typed by hand: the "webworker" lib cannot be combined with
// the "dom" lib the rest of src/ compiles against.
const scope = self as unknown as {
  postMessage(message: Response): void;
  onmessage: ((event: MessageEvent<Request>) => void) | null;
};

const post = (r: Response): void => scope.postMessage(r);

/** One module's load: the module once there, or why it could not load; requests kept until then. */
class Loaded {
  engine: OptimusModule | null = null;
  error: string | null = null;
  private readonly queue: Request[] = [];

  constructor(load: () => Promise<OptimusModule>, onSettled?: (ok: boolean) => void) {
    load()
      .then((mod) => {
        this.engine = mod;
        onSettled?.(true);
      })
      .catch((e: unknown) => {
        this.error = e instanceof Error ? e.message : String(e);
        onSettled?.(false);
      })
      .finally(() => {
        for (const req of this.queue.splice(0)) this.serve(req);
      });
  }

  submit(req: Request): void {
    if (this.engine || this.error !== null) this.serve(req);
    else this.queue.push(req);
  }

  private serve(req: Request): void {
    if (this.engine) handleRequest(this.engine, req, post);
    else post({ id: req.id, kind: 'failure', code: 'engine.crashed', message: `the engine could not be loaded: ${this.error ?? 'unknown reason'}` });
  }
}

const first = new Loaded(
  () => createFirstModule(),
  (ok) =>
    post(
      ok
        ? { id: 0, kind: 'ready' }
        : { id: 0, kind: 'failure', code: 'engine.crashed', message: `the engine could not be loaded: ${first.error ?? 'unknown reason'}` },
    ),
);
let full: Loaded | null = null;

scope.onmessage = (event: MessageEvent<Request>): void => {
  const req = event.data;
  if (!needsFullEngine(req.method)) return first.submit(req);
  full ??= new Loaded(() => import('optimus-wasm').then((m) => m.default()));
  full.submit(req);
};
