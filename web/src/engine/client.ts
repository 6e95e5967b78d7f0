// The page's handle on the engine: every call goes to a Web Worker (worker.ts) over the typed
// protocol (protocol.ts) and comes back as {ok: true, value} or {ok: false, error} — never as an
// exception. A worker that crashes, fails to load or does not answer in time is terminated; its
// pending calls fail with code "engine.crashed" and the next call starts a fresh worker.
// Searches run in a worker of their own, so the page keeps predicting while one runs, and
// cancel() terminates that worker (its call resolves with code "engine.cancelled").
// The page may also hand it the first-load engine instantiated on its own thread (boot.ts): that
// one answers the calls made before the worker is ready (the first result), then the worker does.
import { WORKER_AWAITS_WASM, handleRequest, type OptimusModule, type Request, type Response, type ArgsOf, type Method, type WasmMessage, type WorkerTimings } from './protocol';
import type {
  CalibrateResult,
  EngineError,
  EngineResult,
  EngineSchemas,
  ImportResult,
  Prediction,
  PresetList,
  ResolvedScenario,
  SearchOptions,
  SearchResult,
  StudyList,
  StudyResult,
} from './types';

export type { EngineError, EngineResult } from './types';


export interface Engine {
  /**
   * Resolves once an engine can answer (the page's own first-load engine, or else the main
   * worker with its module loaded); rejects if neither can.
   */
  ready: Promise<void>;
  predict(s: unknown, options?: CallOptions): Promise<EngineResult<Prediction>>;
  validate(s: unknown, options?: CallOptions): Promise<EngineResult<{ scenario: ResolvedScenario }>>;
  /** All preset lists (kind omitted or "") or one kind's; {} when the engine answers an error. */
  presets(kind?: string): Promise<PresetList>;
  preset(kind: string, id: string): Promise<EngineResult<any>>;
  search(
    s: unknown,
    o: SearchOptions,
    onProgress?: (f: number) => void,
  ): { result: Promise<EngineResult<SearchResult>>; cancel(): void };
  /** The list of studies; {studies: []} when the engine has none or answers an error. */
  studies(): Promise<StudyList>;
  /** `job`: a job of one's own for cheapest-accelerator (model, num_devices, seq_len, global_batch, train_tokens). */
  study(name: string, job?: Record<string, unknown>): Promise<EngineResult<StudyResult>>;
  /** The engine's JSON Schemas of the scenario and the prediction (core/io/schema.h). */
  schema(): Promise<EngineResult<EngineSchemas>>;
  /** Fits a calibration to measurement lines (JSON Lines text, docs/calibration.md). */
  calibrate(jsonl: string): Promise<EngineResult<CalibrateResult>>;
  /** Measurement lines from a benchmark tool's file or a job's log (format: vllm, sglang,
   * trtllm-bench, megatron, nemo, torchtitan, inferencex, verl, nemo-rl), read against the
   * scenario the run used. */
  importMeasurements(format: string, file: string, s: unknown): Promise<EngineResult<ImportResult>>;
  /** Terminates the workers; later calls fail with engine.disposed. */
  dispose(): void;
}

export interface CallOptions {
  /**
   * Someone waits for this answer (the page's re-estimate after an edit): with the page's own
   * engine (EngineOptions.local) and a quick scenario (quickScenario), it is answered on the
   * page's thread, without the two thread hops of a worker call. Bulk callers (the accuracy view,
   * sweeps, lessons) leave it off: a loop of synchronous calls would hold the page's thread.
   */
  interactive?: boolean;
}

/** The part of the Worker interface the client uses (tests pass an in-process stand-in). */
export interface WorkerLike {
  postMessage(message: Request): void;
  terminate(): void;
  onmessage: ((event: { data: Response }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export interface EngineOptions {
  /** Starts a worker; default: the bundled worker.ts as a module worker. */
  createWorker?: () => WorkerLike;
  /** A call without an answer after this long counts as a crash (ms, default 30 000). */
  timeoutMs?: number;
  /** The same for a search (ms, default 600 000). */
  searchTimeoutMs?: number;
  /**
   * The first-load engine's module, compiled by the page (boot.ts) from the response its document
   * preloads, or null when it could not compile it: every default worker (the main one, a
   * search's, a restart) is handed it (a WebAssembly.Module is cloned, its compiled code shared)
   * instead of fetching and compiling the module itself.
   */
  firstModule?: Promise<WebAssembly.Module | null>;
  /**
   * The same module instantiated on the page's thread (boot.ts), or null when it could not be:
   * it answers the first-load calls but search (predict, validate, presets, preset) made before
   * the main worker is ready, so the first result does not wait for a worker to start. The main
   * worker is started once it has answered its first call (or failed), not before, so that its
   * start does not compete with that call.
   */
  local?: Promise<OptimusModule | null>;
  /** The clock (ms) that times a call on the page's thread against LOCAL_BUDGET_MS; default performance.now. */
  now?: () => number;
}

function startWorker(name: string): Worker {
  // Vite bundles the worker from this exact expression (new URL(..., import.meta.url)).
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name });
}

function defaultWorker(): WorkerLike {
  return startWorker('optimus-engine') as unknown as WorkerLike;
}

/** A default worker handed the page's compiled first module (null: it fetches the module itself). */
function workerGiven(module: Promise<WebAssembly.Module | null>): WorkerLike {
  const worker = startWorker(WORKER_AWAITS_WASM);
  const give = (m: WasmMessage): void => worker.postMessage(m);
  void module.then(
    (wasm) => give({ wasm }),
    () => give({ wasm: null }),
  );
  return worker as unknown as WorkerLike;
}

const err = (code: string, message: string, path = ''): EngineError => ({ code, path, message });

/** A JSON object of whole counts by code (an error's `rejected`). */
function isCounts(x: unknown): x is Record<string, number> {
  return x !== null && typeof x === 'object' && !Array.isArray(x) && Object.values(x).every((n) => typeof n === 'number');
}

/** A split RL job's two pool sizes, as an error's `fewest_pools` holds them. */
function isPools(x: unknown): x is { rollout_devices: number; train_devices: number } {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  const { rollout_devices: r, train_devices: t } = x as Record<string, unknown>;
  return typeof r === 'number' && typeof t === 'number';
}

type Answer = { json: string } | { error: EngineError };

interface Pending {
  resolve(answer: Answer): void;
  onProgress?: (fraction: number) => void;
  /** How long the worker may take over this call once it is the oldest one waiting. */
  timeoutMs: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The worker said the call waits for the full engine to load ('waiting'), until 'started'. */
  loading?: boolean;
}

/** One worker and its in-flight calls. Once dead, it stays dead (the engine makes a new one). */
class Connection {
  readonly ready: Promise<void>;
  dead = false;
  /** The module is loaded and the worker answers. */
  loaded = false;
  private readonly worker: WorkerLike;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private settleReady!: (error?: EngineError) => void;

  constructor(create: () => WorkerLike) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = (error) => (error ? reject(Object.assign(new Error(error.message), { code: error.code })) : resolve());
    });
    this.ready.catch(() => undefined); // a load failure also reaches every call; no unhandled rejection
    let worker: WorkerLike;
    try {
      worker = create();
    } catch (e) {
      this.worker = { postMessage() {}, terminate() {}, onmessage: null, onerror: null };
      this.kill(err('engine.crashed', `the engine worker could not be started: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    this.worker = worker;
    worker.onmessage = (event) => this.receive(event.data);
    worker.onerror = (event) => {
      const detail = event && typeof event === 'object' && 'message' in event ? String((event as { message: unknown }).message) : 'worker error';
      this.kill(err('engine.crashed', `the engine worker failed: ${detail}`));
    };
  }

  call<M extends Method>(method: M, args: ArgsOf[M], timeoutMs: number, onProgress?: (f: number) => void): Promise<Answer> {
    if (this.dead) return Promise.resolve({ error: err('engine.crashed', 'the engine worker is not running') });
    const id = this.nextId++;
    return new Promise<Answer>((resolve) => {
      const entry: Pending = { resolve, onProgress, timeoutMs, timer: undefined };
      this.pending.set(id, entry);
      // The clock starts once the worker has loaded the module (a call made while the wasm is still
      // downloading waits for it without timing out), and runs for the oldest call only: the
      // worker answers one call at a time, so a call queued behind a long one (a layout search of
      // 600 s) is not timed while it waits, and is not killed, with the search, at its own 30 s.
      // A call to the full engine is not timed while the worker fetches that module either
      // ('waiting' until 'started'), which a slow connection can take longer than 30 s over.
      this.ready.then(
        () => this.timeHead(),
        () => undefined,
      );
      this.worker.postMessage({ id, method, args } as Request);
    });
  }

  /**
   * Starts the clock of the oldest call, if it has none yet. A call waiting for the full engine
   * to load is passed over: the download and compile are not the call's work, and the worker
   * answers calls to the first engine meanwhile.
   */
  private timeHead(): void {
    const head = [...this.pending.values()].find((p) => !p.loading);
    if (!this.dead && head && head.timer === undefined) this.startClock(head);
  }

  private stopClock(p: Pending): void {
    if (p.timer !== undefined) clearTimeout(p.timer);
    p.timer = undefined;
  }

  private startClock(p: Pending): void {
    if (!(p.timeoutMs > 0 && Number.isFinite(p.timeoutMs))) return;
    const ms = p.timeoutMs;
    p.timer = setTimeout(() => this.kill(err('engine.crashed', `the engine did not answer within ${ms / 1000} s`)), ms);
  }

  /** The worker runs `running` now and nothing else: only its clock runs, from now. */
  private startedAlone(running: Pending): void {
    for (const p of this.pending.values()) this.stopClock(p);
    running.loading = false;
    this.startClock(running);
  }

  /** Terminates the worker and answers every pending call with the error. */
  kill(error: EngineError): void {
    if (this.dead) return;
    this.dead = true;
    this.worker.onmessage = null;
    this.worker.onerror = null;
    this.worker.terminate();
    this.settleReady(error);
    for (const p of this.pending.values()) {
      if (p.timer !== undefined) clearTimeout(p.timer);
      p.resolve({ error });
    }
    this.pending.clear();
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  private receive(r: Response): void {
    if (r.kind === 'ready') {
      if (r.timings) markWorker(r.timings);
      this.loaded = true;
      return this.settleReady();
    }
    if (r.id === 0 && r.kind === 'failure') return this.kill(err(r.code, r.message));
    const p = this.pending.get(r.id);
    if (!p) return;
    if (r.kind === 'progress') {
      p.onProgress?.(r.fraction);
      return;
    }
    if (r.kind === 'waiting') {
      this.stopClock(p);
      p.loading = true;
      if (this.loaded) this.timeHead();
      return;
    }
    if (r.kind === 'started') return this.startedAlone(p);
    this.pending.delete(r.id);
    this.stopClock(p);
    if (this.loaded) this.timeHead();
    if (r.kind === 'result') {
      p.resolve({ json: r.json });
    } else {
      p.resolve({ error: err(r.code, r.message) });
      // A trap inside the module can leave its memory inconsistent: never reuse it.
      if (r.code === 'engine.crashed') this.kill(err(r.code, r.message));
    }
  }
}

/**
 * The worker's steps as the page's performance marks (optimus:worker-*), for the first-result
 * profile (docs/performance.md): on the page's timeline, ms since its navigation start.
 */
function markWorker(t: WorkerTimings): void {
  if (typeof performance === 'undefined' || typeof performance.mark !== 'function') return;
  const steps: Array<[string, number | undefined]> = [
    ['origin', t.origin],
    ['started', t.started],
    ['wasm-requested', t.wasmRequested],
    ['wasm-received', t.wasmReceived],
    ['ready', t.ready],
  ];
  for (const [name, at] of steps) {
    const startTime = at === undefined ? NaN : at - performance.timeOrigin;
    if (Number.isFinite(startTime) && startTime >= 0) performance.mark(`optimus:worker-${name}`, { startTime });
  }
}

/** Turns the engine's JSON answer into a result; `pick` shapes the value. */
function toResult<T>(answer: Answer, pick: (parsed: any) => T = (p) => p as T): EngineResult<T> {
  if ('error' in answer) return { ok: false, error: answer.error };
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.json);
  } catch {
    return { ok: false, error: err('engine.bad_response', 'the engine answered something that is not JSON') };
  }
  if (parsed !== null && typeof parsed === 'object' && 'error' in parsed) {
    const e = (parsed as { error: Partial<EngineError> }).error ?? {};
    return {
      ok: false,
      error: {
        code: typeof e.code === 'string' ? e.code : 'engine.bad_response',
        path: typeof e.path === 'string' ? e.path : '',
        message: typeof e.message === 'string' ? e.message : 'the engine reported an error without a message',
        ...(e.fix !== null && typeof e.fix === 'object' && !Array.isArray(e.fix) ? { fix: e.fix } : {}),
        ...(typeof e.fewest_devices === 'number' ? { fewest_devices: e.fewest_devices } : {}),
        ...(isCounts(e.rejected) ? { rejected: e.rejected } : {}),
        ...(isPools(e.fewest_pools) ? { fewest_pools: e.fewest_pools } : {}),
      },
    };
  }
  return { ok: true, value: pick(parsed) };
}

/** JSON text of a scenario or options value, or the error that says why there is none. */
function serialize(value: unknown, what: string): { json: string } | { error: EngineError } {
  try {
    const json = JSON.stringify(value);
    if (typeof json === 'string') return { json };
  } catch {
    // cycles, BigInt: fall through
  }
  return { error: err('scenario.malformed_json', `the ${what} cannot be written as JSON`) };
}

/**
 * The most a call may block the page's thread (ms) once the worker is ready: a quick scenario's
 * predict takes about 1 ms (0.5-1.7 ms in Node, 2026-11-28, 40-50 ms at the 90th percentile on a
 * machine at load 10-15, where the thread is preempted); three in a row over this send every later
 * call to the worker.
 */
const LOCAL_BUDGET_MS = 50;

/**
 * A scenario whose predict is quick: no layout search (`parallel: "auto"`), no serving simulation
 * (`inference.serving`, 20-30 ms for a 70B model), no RL step. Anything else goes to the worker.
 */
export function quickScenario(s: unknown): boolean {
  if (s === null || typeof s !== 'object') return false;
  const o = s as Record<string, unknown>;
  const inference = o.inference as Record<string, unknown> | undefined;
  return !searchesLayouts(s) && o.rl === undefined && (inference === undefined || (typeof inference === 'object' && inference !== null && inference.serving === undefined));
}

/** A scenario whose predict searches the layouts first (`parallel: "auto"`). */
function searchesLayouts(s: unknown): boolean {
  return s !== null && typeof s === 'object' && (s as { parallel?: unknown }).parallel === 'auto';
}

/** The calls the page's own first-load engine answers (a search runs in a worker of its own). */
const LOCAL_METHODS: ReadonlySet<Method> = new Set<Method>(['predict', 'validate', 'presets', 'preset']);

export function createEngine(options: EngineOptions = {}): Engine {
  const firstModule = options.createWorker ? undefined : options.firstModule;
  const create = options.createWorker ?? ((): WorkerLike => (firstModule ? workerGiven(firstModule) : defaultWorker()));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const searchTimeoutMs = options.searchTimeoutMs ?? 600_000;
  const now = options.now ?? ((): number => performance.now());
  let disposed = false;
  /** The main worker, started on demand (at once without a local engine). */
  let main: Connection | null = null;
  let searcher: Connection | null = null;
  const mainConnection = (): Connection => {
    if (!main || (main.dead && !disposed)) {
      main = new Connection(create);
      if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark('optimus:worker-created');
    }
    return main;
  };

  /** The page's own engine: undefined while it loads, null when there is none (or it trapped). */
  let local: OptimusModule | null | undefined = options.local ? undefined : null;
  const localLoaded: Promise<OptimusModule | null> = (options.local ?? Promise.resolve(null)).then(
    (m) => m,
    () => null,
  ).then((m) => {
    local = disposed ? null : m;
    if (!local && !disposed) mainConnection(); // the worker answers everything from now on
    return local;
  });
  const ready: Promise<void> = options.local
    ? localLoaded.then((m) => {
        if (m) return undefined;
        if (disposed) throw Object.assign(new Error('the engine was disposed'), { code: 'engine.disposed' });
        return mainConnection().ready;
      })
    : mainConnection().ready;
  ready.catch(() => undefined);

  let localId = 0;
  /** One call answered on this thread, synchronously, by the same handler the worker runs. */
  const callLocal = async <M extends Method>(method: M, args: ArgsOf[M]): Promise<Answer> => {
    const mod = local === undefined ? await localLoaded : local;
    if (!mod || disposed) return disposed ? { error: err('engine.disposed', 'the engine was disposed') } : mainConnection().call(method, args, timeoutMs); // none after all: the worker's
    let answer: Answer = { error: err('engine.crashed', 'the engine did not answer') };
    handleRequest(mod, { id: ++localId, method, args } as Request, (r) => {
      if (r.kind === 'result') answer = { json: r.json };
      else if (r.kind === 'failure') answer = { error: err(r.code, r.message) };
    });
    // A trap can leave the module's memory inconsistent: the worker answers from now on.
    if ('error' in answer && answer.error.code === 'engine.crashed') local = null;
    // The worker starts once the first answer is out, so its start does not slow that one down.
    if (!main) setTimeout(() => disposed || mainConnection(), 0);
    return answer;
  };
  /**
   * Set once three calls in a row on this thread, after the worker was ready, took longer than
   * LOCAL_BUDGET_MS (one alone may be V8 compiling the code a new kind of scenario runs first, or
   * the machine preempting the thread).
   */
  let localSlow = false;
  let slowInARow = 0;
  /**
   * Where a call goes. This thread's engine answers, while the worker is not ready, the
   * interactive predict and validate calls of a quick scenario (the first result: CallOptions;
   * quickScenario, as after an edit) and the preset
   * look-ups; after that, an interactive predict or validate of a quick scenario (quickScenario),
   * so a re-estimate after an edit does not wait for two thread hops (on a loaded machine the
   * worker's wake-up and the answer's message are most of an edit's time, the engine's work about
   * 1 ms), unless three such calls in a row took longer than LOCAL_BUDGET_MS here. Everything else goes to
   * the worker (started then if it is not yet), so no loop of calls holds this thread.
   */
  const call = <M extends Method>(method: M, args: ArgsOf[M], interactive = false, quick = false, search = false): Promise<Answer> => {
    if (disposed) return Promise.resolve({ error: err('engine.disposed', 'the engine was disposed') });
    if (local !== null && LOCAL_METHODS.has(method)) {
      const lookup = method === 'presets' || method === 'preset';
      // Before the worker is ready too, only a quick scenario: a link's layout search (seconds for
      // a large cluster), serving simulation or RL step (a million responses: half a minute) would
      // hold this thread, the page frozen and half built, where an edit of it runs in the worker.
      if (!main?.loaded && ((interactive && quick) || lookup)) return callLocal(method, args);
      if (main?.loaded && interactive && quick && !localSlow && local !== undefined) {
        const t0 = now();
        return callLocal(method, args).then((answer) => {
          slowInARow = now() - t0 > LOCAL_BUDGET_MS ? slowInARow + 1 : 0;
          if (slowInARow >= 3) localSlow = true;
          return answer;
        });
      }
    }
    // A predict with parallel "auto" runs a layout search first (Llama 4 Scout's whole run: 5.5 s
    // natively, twice that in wasm, more on a slow or busy machine), and an RL step or a serving
    // simulation can take as long (GRPO with 1000 x 1000 responses: 30 s in Chromium): any scenario
    // that is not quick gets a search's time, not a single estimate's, or the worker is killed as
    // crashed in the middle of it.
    return mainConnection().call(method, args, search ? searchTimeoutMs : timeoutMs);
  };

  return {
    ready,

    async predict(s, o) {
      const input = serialize(s, 'scenario');
      if ('error' in input) return { ok: false, error: input.error };
      const quick = quickScenario(s);
      return toResult<Prediction>(await call('predict', [input.json], o?.interactive === true, quick, !quick));
    },

    async validate(s, o) {
      const input = serialize(s, 'scenario');
      if ('error' in input) return { ok: false, error: input.error };
      // Validating parallel "auto" searches the layouts as predict does: a search's time limit.
      return toResult(await call('validate', [input.json], o?.interactive === true, quickScenario(s), searchesLayouts(s)), (p: { scenario: ResolvedScenario }) => ({ scenario: p.scenario }));
    },

    async presets(kind = '') {
      const r = toResult<PresetList>(await call('presets', [kind]));
      return r.ok ? r.value : {};
    },

    async preset(kind, id) {
      return toResult(await call('preset', [kind, id]));
    },

    search(s, o, onProgress) {
      const input = serialize(s, 'scenario');
      const opts = serialize(o ?? {}, 'search options');
      if ('error' in input || 'error' in opts) {
        const error = 'error' in input ? input.error : (opts as { error: EngineError }).error;
        return { result: Promise.resolve({ ok: false, error }), cancel() {} };
      }
      if (disposed) return { result: Promise.resolve({ ok: false, error: err('engine.disposed', 'the engine was disposed') }), cancel() {} };
      // One search at a time per worker; a second concurrent search gets a worker of its own.
      const conn = searcher && !searcher.dead && !searcher.busy ? searcher : new Connection(create);
      searcher = conn;
      let cancelled = false;
      let done = false;
      const result = conn
        .call('search', [input.json, opts.json, onProgress !== undefined], searchTimeoutMs, onProgress)
        .then((answer) => {
          done = true;
          return cancelled ? { ok: false as const, error: err('engine.cancelled', 'the search was cancelled') } : toResult<SearchResult>(answer);
        });
      return {
        result,
        cancel() {
          if (cancelled || done) return;
          cancelled = true;
          conn.kill(err('engine.cancelled', 'the search was cancelled'));
        },
      };
    },

    async studies() {
      const r = toResult<StudyList>(await call('studies', []));
      return r.ok && Array.isArray(r.value.studies) ? r.value : { studies: [] };
    },

    async study(name, job) {
      return toResult<StudyResult>(await call('study', [name, job ? JSON.stringify(job) : '']));
    },

    async schema() {
      return toResult<EngineSchemas>(await call('schema', []));
    },

    async calibrate(jsonl) {
      return toResult<CalibrateResult>(await call('calibrate', [jsonl]));
    },

    async importMeasurements(format, file, s) {
      const input = serialize(s, 'scenario');
      if ('error' in input) return { ok: false, error: input.error };
      return toResult<ImportResult>(await call('import', [format, file, input.json]));
    },

    dispose() {
      disposed = true;
      local = null;
      main?.kill(err('engine.disposed', 'the engine was disposed'));
      searcher?.kill(err('engine.disposed', 'the engine was disposed'));
      searcher = null;
    },
  };
}
