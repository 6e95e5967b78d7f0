// The typed request/response protocol between the page (client.ts) and the engine Web Worker
// (worker.ts), with ids so that replies can be matched to requests in any order. The handler that
// serves a request is a plain function of the wasm module (handleRequest), so Node tests can run
// it without a Worker.
//
// Every engine call returns a JSON string (core/io/api.h); the worker forwards that string
// unparsed and the client parses it, so the wire format is the engine's own.

/** The Embind surface of build/wasm/wasm/optimus_wasm.js (wasm/bindings.cpp); optimus_wasm_first.js has the calls without `?`, and search. */
export interface OptimusModule {
  predict(scenarioJson: string): string;
  validate(scenarioJson: string): string;
  presets(kind: string): string;
  preset(kind: string, id: string): string;
  /** Present once the search engineer's binding exists; progress returns false to cancel. */
  search?: (scenarioJson: string, optionsJson: string, progress: ((fraction: number) => boolean) | null) => string;
  studies?: () => string;
  /** `job`: "" or a job of one's own for cheapest-accelerator (docs/contract.md, Search and studies). */
  study?: (name: string, job: string) => string;
  /** {"scenario": JSON Schema, "prediction": JSON Schema} (core/io/schema.h). */
  schema?: () => string;
  /** JSON Lines of measurements -> {"calibration", "fitted", "cases", "warnings"} (docs/calibration.md). */
  calibrate?: (jsonl: string) => string;
  /** A benchmark tool's file read against a scenario -> {"format", "measurements", "filled", "unread"}. */
  import_measurements?: (format: string, file: string, scenarioJson: string) => string;
}

export type Method = 'predict' | 'validate' | 'presets' | 'preset' | 'search' | 'studies' | 'study' | 'schema' | 'calibrate' | 'import';

/** The calls of the first-load engine (optimus_wasm_first, wasm/bindings.cpp); the others need the full one. */
const FIRST_LOAD_METHODS: ReadonlySet<Method> = new Set<Method>(['predict', 'validate', 'presets', 'preset', 'search']);

/** Whether the worker must load the full engine (optimus_wasm) to serve `method`. */
export function needsFullEngine(method: Method): boolean {
  return !FIRST_LOAD_METHODS.has(method);
}

/** Arguments per method, all strings (JSON text for scenarios and options). */
export interface ArgsOf {
  predict: [scenarioJson: string];
  validate: [scenarioJson: string];
  presets: [kind: string];
  preset: [kind: string, id: string];
  search: [scenarioJson: string, optionsJson: string, wantProgress: boolean];
  studies: [];
  study: [name: string, jobJson: string];
  schema: [];
  calibrate: [jsonl: string];
  import: [format: string, file: string, scenarioJson: string];
}

export type Request = {
  [M in Method]: { id: number; method: M; args: ArgsOf[M] };
}[Method];

export type Response =
  /** The engine's JSON answer (a value or an in-band {"error": ...} object). */
  | { id: number; kind: 'result'; json: string }
  /** A search's progress, a fraction in [0, 1]. */
  | { id: number; kind: 'progress'; fraction: number }
  /** The worker could not serve the request (module failed to load, method unknown, trap). */
  | { id: number; kind: 'failure'; code: string; message: string }
  /**
   * The request needs the full engine, which the worker is still fetching and compiling: it waits
   * for that ('waiting'), then runs ('started'). The page does not count the wait against the
   * call's time limit (client.ts): on a slow connection the download alone can pass it.
   */
  | { id: number; kind: 'waiting' }
  | { id: number; kind: 'started' }
  /**
   * Sent once after the module loaded (id 0), or failure with id 0 when it could not load; with
   * when the worker's steps happened (Unix ms), which the page records as performance marks.
   */
  | { id: 0; kind: 'ready'; timings?: WorkerTimings };

/**
 * The worker's way to its first answer, as Unix ms (performance.timeOrigin + performance.now()
 * in the worker, so the page can place them on its own timeline): the worker's scope created, its
 * script running, the wasm request sent and its last byte received (the worker's resource timing;
 * without a request, when the page's bytes arrived), the module ready.
 */
export interface WorkerTimings {
  /** The worker's own time origin: its global scope created, before its script is fetched. */
  origin?: number;
  started: number;
  wasmRequested?: number;
  wasmReceived?: number;
  ready: number;
}

/**
 * The first-load engine, compiled by the page (boot.ts) from the response its document preloads,
 * and handed to the worker (a WebAssembly.Module is cloned with its compiled code shared, so the
 * worker neither fetches nor compiles it, and the functions the page's first calls compiled are
 * compiled for the worker too); null when the page could not compile it and the worker should
 * fetch the module itself.
 */
export interface WasmMessage {
  wasm: WebAssembly.Module | null;
}

/** An Emscripten factory of the engine (optimus-wasm.d.ts), as far as fromCompiled uses it. */
type Factory = (options: {
  instantiateWasm: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module?: WebAssembly.Module) => void) => object;
}) => Promise<OptimusModule>;

/** The engine from a module compiled elsewhere (the page, boot.ts): instantiated only, nothing fetched. */
export function fromCompiled(factory: Factory, module: WebAssembly.Module): Promise<OptimusModule> {
  return new Promise((resolve, reject) => {
    factory({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), reject);
        return {};
      },
    }).then(resolve, reject);
  });
}

/**
 * The name of a worker that waits for a WasmMessage before it loads the first-load engine (a
 * worker without it fetches the module itself at once).
 */
export const WORKER_AWAITS_WASM = 'optimus-engine (wasm from the page)';

/** How often at most a search reports progress (ms), so the page is not flooded with messages. */
export const PROGRESS_INTERVAL_MS = 50;

/** JSON text of an in-band engine error, the same shape the C++ side returns. */
export function errorJson(code: string, message: string, path = ''): string {
  return JSON.stringify({ error: { code, path, message } });
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'number') return `wasm exception pointer ${e}`;
  return String(e);
}

/**
 * Serves one request with the loaded module and posts the reply (and progress messages for a
 * search). Never throws: a trap or an exception inside the module becomes a 'failure' reply
 * with code engine.crashed (the caller should then consider the module unusable).
 */
export function handleRequest(mod: OptimusModule, req: Request, post: (r: Response) => void, now: () => number = Date.now): void {
  const reply = (json: string): void => post({ id: req.id, kind: 'result', json });
  /** An optional binding's answer, or engine.unavailable naming what this build lacks. */
  const optional = <F>(call: F | undefined, what: string, run: (f: F) => string): void =>
    reply(typeof call === 'function' ? run(call) : errorJson('engine.unavailable', `this build of the engine has no ${what}`));
  try {
    switch (req.method) {
      case 'predict':
        return reply(mod.predict(req.args[0]));
      case 'validate':
        return reply(mod.validate(req.args[0]));
      case 'presets':
        return reply(mod.presets(req.args[0]));
      case 'preset':
        return reply(mod.preset(req.args[0], req.args[1]));
      case 'search': {
        const [scenario, options, wantProgress] = req.args;
        let last = -Infinity;
        const progress = wantProgress
          ? (fraction: number): boolean => {
              const t = now();
              if (t - last >= PROGRESS_INTERVAL_MS || fraction >= 1) {
                last = t;
                post({ id: req.id, kind: 'progress', fraction });
              }
              return true; // cancelling is done by terminating the worker (client.ts)
            }
          : null;
        return optional(mod.search, 'search', (search) => search(scenario, options, progress));
      }
      case 'studies':
        return optional(mod.studies, 'studies', (studies) => studies());
      case 'study':
        return optional(mod.study, 'studies', (study) => study(req.args[0], req.args[1]));
      case 'schema':
        return optional(mod.schema, 'schema', (schema) => schema());
      case 'calibrate':
        return optional(mod.calibrate, 'calibration', (calibrate) => calibrate(req.args[0]));
      case 'import':
        return optional(mod.import_measurements, 'importers', (read) => read(req.args[0], req.args[1], req.args[2]));
      default: {
        const unknown: { id: number; method: unknown } = req;
        return post({ id: unknown.id, kind: 'failure', code: 'engine.bad_request', message: `unknown method ${String(unknown.method)}` });
      }
    }
  } catch (e) {
    post({ id: req.id, kind: 'failure', code: 'engine.crashed', message: `the engine failed: ${describe(e)}` });
  }
}
