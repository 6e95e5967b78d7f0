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
import { WORKER_AWAITS_WASM, fromCompiled, handleRequest, needsFullEngine, type OptimusModule, type Request, type Response, type WasmMessage, type WorkerTimings } from './protocol';

/** Unix ms now (the worker's clock on the page's scale). */
const unixNow = (): number => performance.timeOrigin + performance.now();
const startedAt = unixNow();
/** When the page's compiled first module arrived, if it sent one. */
let wasmFromPageAt: number | undefined;

/** When the worker started, fetched (or was given) the first wasm and had the module (protocol.ts). */
function timings(): WorkerTimings {
  const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm')) as PerformanceResourceTiming | undefined;
  return {
    origin: performance.timeOrigin,
    started: startedAt,
    ...(wasm
      ? { wasmRequested: performance.timeOrigin + wasm.startTime, wasmReceived: performance.timeOrigin + wasm.responseEnd }
      : wasmFromPageAt !== undefined
        ? { wasmReceived: wasmFromPageAt }
        : {}),
    ready: unixNow(),
  };
}

// The dedicated worker's global scope, typed by hand: the "webworker" lib cannot be combined with
// the "dom" lib the rest of src/ compiles against.
const scope = self as unknown as {
  name: string;
  postMessage(message: Response): void;
  onmessage: ((event: MessageEvent<Request | WasmMessage>) => void) | null;
};

const post = (r: Response): void => scope.postMessage(r);

/** One module's load: the module once there, or why it could not load; requests kept until then. */
class Loaded {
  engine: OptimusModule | null = null;
  error: string | null = null;
  private readonly queue: Request[] = [];

  /**
   * @param announce tell the page when a request starts waiting for this module and when it then
   * runs (the full engine's, which loads while the first one answers): client.ts leaves the wait
   * out of the call's time limit
   */
  constructor(
    load: () => Promise<OptimusModule>,
    onSettled?: (ok: boolean) => void,
    private readonly announce = false,
  ) {
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
        for (const req of this.queue.splice(0)) {
          if (this.announce && this.engine) post({ id: req.id, kind: 'started' });
          this.serve(req);
        }
      });
  }

  submit(req: Request): void {
    if (this.engine || this.error !== null) return this.serve(req);
    this.queue.push(req);
    if (this.announce) post({ id: req.id, kind: 'waiting' });
  }

  private serve(req: Request): void {
    if (this.engine) handleRequest(this.engine, req, post);
    else post({ id: req.id, kind: 'failure', code: 'engine.crashed', message: `the engine could not be loaded: ${this.error ?? 'unknown reason'}` });
  }
}

// The page may compile the first module itself (boot.ts: its download starts with the document,
// before this script has loaded) and hand it over; else this worker fetches and compiles it.
type PageWasm = WasmMessage['wasm'];
let receiveWasm: (wasm: PageWasm) => void = () => undefined;
const pageWasm: Promise<PageWasm> = scope.name === WORKER_AWAITS_WASM ? new Promise((resolve) => (receiveWasm = resolve)) : Promise.resolve(null);

const first = new Loaded(
  () => pageWasm.then((wasm) => (wasm ? fromCompiled(createFirstModule, wasm) : createFirstModule())),
  (ok) =>
    post(
      ok
        ? { id: 0, kind: 'ready', timings: timings() }
        : { id: 0, kind: 'failure', code: 'engine.crashed', message: `the engine could not be loaded: ${first.error ?? 'unknown reason'}` },
    ),
);
let full: Loaded | null = null;

scope.onmessage = (event: MessageEvent<Request | WasmMessage>): void => {
  if ('wasm' in event.data) {
    const { wasm } = event.data;
    const given = wasm instanceof WebAssembly.Module ? wasm : null;
    if (given) wasmFromPageAt = unixNow();
    return receiveWasm(given);
  }
  const req = event.data;
  if (!needsFullEngine(req.method)) return first.submit(req);
  full ??= new Loaded(() => import('optimus-wasm').then((m) => m.default()), undefined, true);
  full.submit(req);
};
