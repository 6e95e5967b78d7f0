// The engine client and the worker protocol against the real wasm module (in-process worker
// stand-in, see wasm.ts), plus crash, timeout, cancel and dispose behaviour with broken workers.
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createEngine, quickScenario, type Engine, type WorkerLike } from '../src/engine/client';
import { handleRequest, needsFullEngine, type Method, type OptimusModule, type Request, type Response } from '../src/engine/protocol';
import { readFileSync } from 'node:fs';
import { InProcessWorker, loadModule, readJson, ROOT } from './wasm';
import { LLAMA3_8B_H100_OFFLINE } from './scenarios';

const defaultScenario = readJson('presets/scenarios/default.json') as Record<string, any>;
let mod: OptimusModule;
const engines: Engine[] = [];
const make = (create: () => WorkerLike, extra: { timeoutMs?: number; searchTimeoutMs?: number } = {}): Engine => {
  const e = createEngine({ createWorker: create, ...extra });
  engines.push(e);
  return e;
};

beforeAll(async () => {
  mod = await loadModule();
});
afterEach(() => {
  for (const e of engines.splice(0)) e.dispose();
});

describe('the two engines (worker.ts)', () => {
  const methods: Method[] = ['predict', 'validate', 'presets', 'preset', 'search', 'studies', 'study', 'schema', 'calibrate', 'import'];
  test('the worker asks the full engine for exactly the calls the first-load one lacks', async () => {
    const { default: factory } = await import('optimus-wasm-first');
    const first = (await factory({ wasmBinary: readFileSync(`${ROOT}build/wasm/wasm/optimus_wasm_first.wasm`) })) as unknown as Record<string, unknown>;
    const full = mod as unknown as Record<string, unknown>;
    for (const m of methods) {
      const call = m === 'import' ? 'import_measurements' : m;
      expect(typeof full[call], call).toBe('function');
      expect(needsFullEngine(m), m).toBe(typeof first[call] !== 'function');
    }
    expect(methods.filter(needsFullEngine)).toEqual(['studies', 'study', 'schema', 'calibrate', 'import']);
  });
});

describe('handleRequest (the worker logic, no Worker)', () => {
  const run = (req: Request): Response[] => {
    const out: Response[] = [];
    handleRequest(mod, req, (r) => out.push(r));
    return out;
  };

  test('forwards the engine JSON unchanged with the request id', () => {
    const json = JSON.stringify(defaultScenario);
    expect(run({ id: 7, method: 'predict', args: [json] })).toEqual([{ id: 7, kind: 'result', json: mod.predict(json) }]);
    expect(run({ id: 8, method: 'preset', args: ['models', 'llama3-70b'] })).toEqual([
      { id: 8, kind: 'result', json: mod.preset('models', 'llama3-70b') },
    ]);
  });

  test('an exception inside the module becomes an engine.crashed failure', () => {
    const throwing = { ...mod, predict: () => { throw new Error('memory access out of bounds'); } } as OptimusModule;
    const out: Response[] = [];
    handleRequest(throwing, { id: 3, method: 'predict', args: ['{}'] }, (r) => out.push(r));
    expect(out).toEqual([{ id: 3, kind: 'failure', code: 'engine.crashed', message: expect.stringContaining('out of bounds') }]);
  });

  test('an unknown method is a bad request, not a crash', () => {
    const out = run({ id: 4, method: 'launch', args: [] } as unknown as Request);
    expect(out).toEqual([{ id: 4, kind: 'failure', code: 'engine.bad_request', message: expect.any(String) }]);
  });

  test('search/studies/schema/calibrate/import without a binding answer engine.unavailable', () => {
    const bare = { predict: mod.predict, validate: mod.validate, presets: mod.presets, preset: mod.preset } as OptimusModule;
    for (const req of [
      { id: 1, method: 'search', args: ['{}', '{}', false] },
      { id: 2, method: 'studies', args: [] },
      { id: 3, method: 'study', args: ['x'] },
      { id: 4, method: 'schema', args: [] },
      { id: 5, method: 'calibrate', args: ['{}'] },
      { id: 6, method: 'import', args: ['vllm', '{}', '{}'] },
    ] as Request[]) {
      const out: Response[] = [];
      handleRequest(bare, req, (r) => out.push(r));
      expect(out.length).toBe(1);
      expect(out[0]!.kind).toBe('result');
      expect(JSON.parse((out[0] as { json: string }).json).error.code).toBe('engine.unavailable');
    }
  });

  test('search progress is forwarded, rate-limited, and the final 1 always', () => {
    let clock = 0;
    const fake = {
      ...mod,
      search: (_s: string, _o: string, progress: ((f: number) => boolean) | null) => {
        for (let i = 0; i <= 100; i++) {
          clock += 10; // 10 ms per step: at most one message per 50 ms
          progress?.(i / 100);
        }
        return '{"evaluated":101,"feasible":0,"rejected":{},"elapsed_s":1,"best":[]}';
      },
    } as OptimusModule;
    const out: Response[] = [];
    handleRequest(fake, { id: 9, method: 'search', args: ['{}', '{}', true] }, (r) => out.push(r), () => clock);
    const fractions = out.filter((r) => r.kind === 'progress').map((r) => (r as { fraction: number }).fraction);
    expect(fractions.length).toBeGreaterThan(15);
    expect(fractions.length).toBeLessThan(25);
    expect(fractions.at(-1)).toBe(1);
    expect(out.at(-1)!.kind).toBe('result');
  });
});

describe('createEngine against the wasm module', () => {
  test('ready, then predict gives the same numbers as the module', async () => {
    const engine = make(() => new InProcessWorker(mod));
    await engine.ready;
    const r = await engine.predict(defaultScenario);
    expect(r).toEqual({ ok: true, value: JSON.parse(mod.predict(JSON.stringify(defaultScenario))) });
    if (r.ok) {
      expect(r.value.training!.iteration_time_s).toBeGreaterThan(0);
      expect(typeof r.value.memory.fits).toBe('boolean');
    }
  });

  test('an invalid scenario is an error result with the engine code and path', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const r = await engine.predict({ ...defaultScenario, num_devices: 24, parallel: { ...defaultScenario.parallel, tp: 3, dp: 4 } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.path).toBe('/parallel/tp');
      expect(r.error.code).toBe('parallel.tp_not_divisor_of_heads');
      expect(r.error.message.length).toBeGreaterThan(0);
    }
  });

  test("an error's fix reaches the page whole, and only an error that has one carries it", async () => {
    const engine = make(() => new InProcessWorker(mod));
    // Llama 3.1 70B on 8 H100: no layout fits, one would with the optimizer in host memory.
    const job = { model: 'llama3.1-70b', system: 'dgx-h100', num_devices: 8, parallel: 'auto', training: { global_batch: 64, seq_len: 4096 } };
    const r = await engine.predict(job);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('parallel.auto_no_layout');
      expect(r.error.fix).toEqual(JSON.parse(mod.predict(JSON.stringify(job))).error.fix);
      expect(r.error.fix).toMatchObject({ optimizer_offload: true, tp: expect.any(Number), pp: expect.any(Number), dp: expect.any(Number) });
      // the layouts tried, counted by what refused them, as the engine wrote them
      expect(r.error.rejected).toEqual(JSON.parse(mod.predict(JSON.stringify(job))).error.rejected);
      expect(r.error.rejected?.['memory.does_not_fit']).toBeGreaterThan(0);
    }
    const bad = await engine.predict({ ...defaultScenario, num_devices: 24, parallel: { ...defaultScenario.parallel, tp: 3, dp: 4 } });
    expect(!bad.ok && 'fix' in bad.error).toBe(false);
    expect(!bad.ok && 'fewest_pools' in bad.error).toBe(false);
  });

  test("a split RL job's two pools at the fewest GPUs reach the page whole", async () => {
    const engine = make(() => new InProcessWorker(mod));
    // DeepSeek-V3 GRPO split 8 + 8 on H100: engines of 8 hold no response, nor does a trainer of 8
    const job = {
      model: 'deepseek-v3', system: 'dgx-h100', num_devices: 16,
      rl: { placement: 'split', rollout_devices: 8, train_devices: 8, prompts_per_step: 64, samples_per_prompt: 8, prompt_len: 512, response_len: 2048, train: 'auto' },
    };
    const r = await engine.predict(job);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('rl.rollout_does_not_fit');
      expect(r.error.fewest_pools).toEqual(JSON.parse(mod.predict(JSON.stringify(job))).error.fewest_pools);
      expect(r.error.fewest_pools!.rollout_devices + r.error.fewest_pools!.train_devices).toBe(r.error.fewest_devices);
      expect(r.error.fewest_pools!.train_devices).toBeGreaterThan(8);
    }
  });

  test('values JSON cannot write are refused before reaching the engine', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await engine.predict(cyclic)).toMatchObject({ ok: false, error: { code: 'scenario.malformed_json' } });
    expect(await engine.predict(undefined)).toMatchObject({ ok: false, error: { code: 'scenario.malformed_json' } });
    expect(await engine.predict(10n)).toMatchObject({ ok: false, error: { code: 'scenario.malformed_json' } });
  });

  test('validate resolves presets and fills defaults', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const r = await engine.validate(defaultScenario);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(typeof r.value.scenario.model).toBe('object');
      expect(r.value.scenario.model.layers).toBeGreaterThan(0);
      expect(r.value.scenario.parallel.cp).toBe(1);
    }
  });

  test('schema returns the scenario and prediction schemas through the worker', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const r = await engine.schema();
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.value)).toEqual(['scenario', 'prediction']);
    expect(r.value.scenario.$defs?.training?.properties?.precision?.enum).toEqual(['fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'mxfp8', 'nvfp4', 'mxfp4']);
  });

  test('presets lists every kind; preset returns one; unknown ids are errors', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const all = await engine.presets();
    for (const kind of ['models', 'devices', 'systems', 'scenarios', 'technology', 'dram', 'studies'] as const) expect(all[kind]!.length).toBeGreaterThan(0);
    expect(all.scenarios!.map((p) => p.id)).toContain('default');
    const models = await engine.presets('models');
    expect(Object.keys(models)).toEqual(['models']);
    expect(await engine.presets('no-such-kind')).toEqual({});
    expect(await engine.preset('scenarios', 'default')).toEqual({ ok: true, value: defaultScenario });
    expect(await engine.preset('models', 'nope')).toMatchObject({ ok: false, error: { code: 'preset.unknown' } });
  });

  test('concurrent calls are matched to their answers by id', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const sizes = [8, 16, 32, 64, 128];
    const results = await Promise.all(
      sizes.map((dp) => engine.predict({ ...defaultScenario, num_devices: 16 * dp, parallel: { ...defaultScenario.parallel, dp } })),
    );
    results.forEach((r, i) => {
      const s = { ...defaultScenario, num_devices: 16 * sizes[i]!, parallel: { ...defaultScenario.parallel, dp: sizes[i] } };
      expect(r).toEqual({ ok: true, value: JSON.parse(mod.predict(JSON.stringify(s))) });
    });
  });

  test('search: works when the module has it, else engine.unavailable', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const fractions: number[] = [];
    const { result } = engine.search(defaultScenario, { top: 3 }, (f) => fractions.push(f));
    const r = await result;
    if (typeof mod.search !== 'function') {
      expect(r).toMatchObject({ ok: false, error: { code: 'engine.unavailable' } });
      return;
    }
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.best.length).toBeGreaterThan(0);
    expect(r.value.best.length).toBeLessThanOrEqual(3);
    expect(r.value.evaluated).toBeGreaterThanOrEqual(r.value.feasible);
    // The best layout, put back into the scenario, predicts the same time (the agreed contract).
    const best = r.value.best[0]!;
    const again = await engine.predict({ ...defaultScenario, parallel: best.parallel });
    expect(again.ok && again.value.training!.iteration_time_s).toBe(best.training!.iteration_time_s);
    for (const f of fractions) expect(f >= 0 && f <= 1).toBe(true);
  });

  test('studies: listed and each one runs when the module has them, else engine.unavailable', async () => {
    const engine = make(() => new InProcessWorker(mod));
    const list = await engine.studies();
    if (typeof mod.studies !== 'function') {
      expect(list).toEqual({ studies: [] });
      expect(await engine.study('x')).toMatchObject({ ok: false, error: { code: 'engine.unavailable' } });
      return;
    }
    expect(list.studies.length).toBeGreaterThan(0);
    const first = await engine.study(list.studies[0]!.name);
    expect(first.ok).toBe(true);
    if (first.ok) expect(first.value.rows.length).toBeGreaterThan(0);
    expect(await engine.study('no-such-study')).toMatchObject({ ok: false, error: { code: 'study.unknown' } });
  });
});

describe('calibrate and import through the worker', () => {
  // A measurement twice as slow as the prediction of the default (training) scenario.
  const line = (measured: number): string => JSON.stringify({ scenario: defaultScenario, metric: 'training.iteration_time_s', measured });

  test('calibrate: the fit of a typed measurement, the same JSON as the module', async () => {
    if (typeof mod.calibrate !== 'function') return;
    const engine = make(() => new InProcessWorker(mod));
    const predicted = JSON.parse(mod.predict(JSON.stringify(defaultScenario))).training.iteration_time_s as number;
    const r = await engine.calibrate(line(predicted * 1.5));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual(JSON.parse(mod.calibrate!(line(predicted * 1.5))));
    expect(r.value.calibration.factors).toBeTypeOf('object');
    expect(r.value.cases[0]!.before).toBeCloseTo(predicted, 9);
    // Slower than predicted: some rate went down, and the calibrated case is nearer the measurement.
    expect(Math.min(...r.value.fitted.map((f) => f.value))).toBeLessThan(1);
    expect(Math.abs(r.value.cases[0]!.after / (predicted * 1.5) - 1)).toBeLessThan(Math.abs(predicted / (predicted * 1.5) - 1));
  });

  test('calibrate: bad measurements are errors with code and line path', async () => {
    if (typeof mod.calibrate !== 'function') return;
    const engine = make(() => new InProcessWorker(mod));
    expect(await engine.calibrate('')).toMatchObject({ ok: false, error: { code: 'calibrate.no_measurements' } });
    expect(await engine.calibrate(line(-1))).toMatchObject({ ok: false, error: { code: 'calibrate.measured_not_positive', path: '/1/measured' } });
    expect(await engine.calibrate(line(1e9))).toMatchObject({ ok: false, error: { code: 'calibrate.measured_absurd', path: '/1/measured' } });
  });

  test('import: a vLLM result against a scenario gives measurement lines; an unknown format is an error', async () => {
    if (typeof mod.import_measurements !== 'function') return;
    const engine = make(() => new InProcessWorker(mod));
    const serving = LLAMA3_8B_H100_OFFLINE;
    const file = readFileSync(`${ROOT}tests/data/import/vllm_bench_serve.json`, 'utf8');
    const r = await engine.importMeasurements('vllm', file, serving);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.format).toBe('vllm');
    expect(r.value.measurements.map((m) => m.metric)).toContain('serving.output_tokens_per_s');
    expect(r.value.measurements.find((m) => m.metric === 'serving.output_tokens_per_s')!.measured).toBe(2070.5);
    expect(r.value.filled.length).toBeGreaterThan(0);
    expect(await engine.importMeasurements('nosuch', file, serving)).toMatchObject({ ok: false, error: { code: 'import.unknown_format' } });
    expect(await engine.importMeasurements('vllm', 'not json', serving)).toMatchObject({ ok: false, error: { code: 'import.malformed' } });
  });
});

describe('failures of the worker', () => {
  test('a worker that fails to load: ready rejects, calls fail with engine.crashed', async () => {
    const engine = make(() => new InProcessWorker(mod, { failToLoad: 'no wasm' }));
    await expect(engine.ready).rejects.toThrow('no wasm');
    const r = await engine.predict(defaultScenario);
    expect(r).toMatchObject({ ok: false, error: { code: 'engine.crashed' } });
  });

  test('a crash fails the pending calls, and the next call starts a fresh worker', async () => {
    const workers: InProcessWorker[] = [];
    const engine = make(() => {
      const w = new InProcessWorker(mod, { silent: workers.length === 0 });
      workers.push(w);
      return w;
    });
    const pending = engine.predict(defaultScenario);
    await new Promise((resolve) => setTimeout(resolve, 5));
    workers[0]!.onerror?.({ message: 'RuntimeError: unreachable' });
    expect(await pending).toMatchObject({ ok: false, error: { code: 'engine.crashed', message: expect.stringContaining('unreachable') } });
    expect(workers[0]!.terminated).toBe(true);
    expect((await engine.predict(defaultScenario)).ok).toBe(true);
    expect(workers.length).toBe(2);
  });

  test('a trap reported by the handler retires the worker', async () => {
    const workers: InProcessWorker[] = [];
    let traps = true;
    const trapping = { ...mod, predict: (s: string) => { if (traps) throw new Error('unreachable'); return mod.predict(s); } } as OptimusModule;
    const engine = make(() => {
      const w = new InProcessWorker(trapping);
      workers.push(w);
      return w;
    });
    expect(await engine.predict(defaultScenario)).toMatchObject({ ok: false, error: { code: 'engine.crashed' } });
    traps = false;
    expect((await engine.predict(defaultScenario)).ok).toBe(true);
    expect(workers.length).toBe(2);
    expect(workers[0]!.terminated).toBe(true);
  });

  test('a worker that does not answer times out as engine.crashed', async () => {
    const engine = make(() => new InProcessWorker(mod, { silent: true }), { timeoutMs: 50 });
    const t0 = Date.now();
    expect(await engine.predict(defaultScenario)).toMatchObject({ ok: false, error: { code: 'engine.crashed', message: expect.stringContaining('did not answer') } });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  /** A worker that says it is ready at once and answers every request 150 ms late. */
  const lateWorker = (): WorkerLike => {
    const late: WorkerLike = {
      onmessage: null,
      onerror: null,
      postMessage(req) {
        setTimeout(() => handleRequest(mod, req, (r) => late.onmessage?.({ data: r })), 150);
      },
      terminate() {},
    };
    setTimeout(() => late.onmessage?.({ data: { id: 0, kind: 'ready' } as Response }), 0);
    return late;
  };

  test('a predict that searches the layouts (parallel "auto") has a search\'s time, not an estimate\'s', async () => {
    // The worker answers after 150 ms: past the estimate's 50 ms, within the search's 5 s.
    const engine = make(lateWorker, { timeoutMs: 50, searchTimeoutMs: 5000 });
    const auto = { ...defaultScenario, parallel: 'auto' };
    const r = await engine.predict(auto);
    expect(r.ok && r.value).toEqual(JSON.parse(mod.predict(JSON.stringify(auto))));
    // The same worker, a plain estimate: the estimate's 50 ms.
    expect(await engine.predict(defaultScenario)).toMatchObject({ ok: false, error: { code: 'engine.crashed' } });
  });

  test('a predict of a scenario that is not quick (an RL step, a serving simulation) has a search\'s time too', async () => {
    // GRPO with 1000 x 1000 responses takes 30 s in Chromium's worker: an estimate's limit killed it.
    const engine = make(lateWorker, { timeoutMs: 50, searchTimeoutMs: 5000 });
    const rl = { schema_version: 1, model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: 8, rl: { algorithm: 'grpo', prompts_per_step: 4, samples_per_prompt: 2, prompt_len: 64, response_len: 128 } };
    for (const s of [rl, LLAMA3_8B_H100_OFFLINE]) {
      const r = await engine.predict(s);
      expect(r.ok && r.value, JSON.stringify(s).slice(0, 60)).toEqual(JSON.parse(mod.predict(JSON.stringify(s))));
    }
    expect(await engine.predict(defaultScenario)).toMatchObject({ ok: false, error: { code: 'engine.crashed' } });
  });

  test('a call queued behind a long search is timed from when it is the oldest waiting, not from when it was sent', async () => {
    // The worker answers one call at a time (worker.ts): a layout search takes 300 ms, an estimate
    // 60 ms. An estimate sent during the search (limit 150 ms) waits 300 ms for it and then takes
    // 60 ms: timed from when it was sent, its clock ran out in the queue and the kill took the
    // search with it.
    let busyUntil = 0;
    const sequential: WorkerLike = {
      onmessage: null,
      onerror: null,
      postMessage(req) {
        const search = (req as Request).method === 'predict' && JSON.parse(String((req as Request).args[0])).parallel === 'auto';
        const start = Math.max(Date.now(), busyUntil);
        busyUntil = start + (search ? 300 : 60);
        setTimeout(() => handleRequest(mod, req, (r) => sequential.onmessage?.({ data: r })), busyUntil - Date.now());
      },
      terminate() {},
    };
    setTimeout(() => sequential.onmessage?.({ data: { id: 0, kind: 'ready' } as Response }), 0);
    const engine = make(() => sequential, { timeoutMs: 150, searchTimeoutMs: 5000 });
    const auto = { ...defaultScenario, parallel: 'auto' };
    const [searched, estimated] = await Promise.all([engine.predict(auto), (async () => {
      await new Promise((r) => setTimeout(r, 20));
      return engine.predict(defaultScenario);
    })()]);
    expect(searched.ok && searched.value).toEqual(JSON.parse(mod.predict(JSON.stringify(auto))));
    expect(estimated.ok && estimated.value).toEqual(JSON.parse(mod.predict(JSON.stringify(defaultScenario))));
  });

  test('a call to the full engine is not timed while the worker fetches that module; estimates sent meanwhile are', async () => {
    // The worker (worker.ts) answers estimates from the first engine at once and holds the schema
    // call while it loads the full engine (300 ms here, past the 50 ms limit: a slow connection),
    // saying 'waiting', then 'started' when it runs it. Timed from when it was the oldest call,
    // the schema call ran out of time during the download and the kill took every call with it.
    const emit = (r: Response): void => twoModules.onmessage?.({ data: r });
    let fullLoaded = false;
    const held: Request[] = [];
    const twoModules: WorkerLike = {
      onmessage: null,
      onerror: null,
      postMessage(req) {
        const r = req as Request;
        if (r.method !== 'schema' || fullLoaded) return void setTimeout(() => handleRequest(mod, r, emit), 5);
        held.push(r);
        emit({ id: r.id, kind: 'waiting' });
      },
      terminate() {},
    };
    setTimeout(() => emit({ id: 0, kind: 'ready' } as Response), 0);
    setTimeout(() => {
      fullLoaded = true;
      for (const r of held.splice(0)) {
        emit({ id: r.id, kind: 'started' });
        handleRequest(mod, r, emit);
      }
    }, 300);
    const engine = make(() => twoModules, { timeoutMs: 50 });
    const schema = engine.schema();
    const estimates = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 40));
      estimates.push(await engine.predict(defaultScenario));
    }
    expect((await schema).ok).toBe(true);
    for (const e of estimates) expect(e.ok).toBe(true);
  });

  test('a call to the full engine is timed from when the worker starts it', async () => {
    const emit = (r: Response): void => stuck.onmessage?.({ data: r });
    const stuck: WorkerLike = {
      onmessage: null,
      onerror: null,
      postMessage(req) {
        const r = req as Request;
        emit({ id: r.id, kind: 'waiting' });
        // the module arrives after 100 ms, and the call then never finishes
        setTimeout(() => emit({ id: r.id, kind: 'started' }), 100);
      },
      terminate() {},
    };
    setTimeout(() => emit({ id: 0, kind: 'ready' } as Response), 0);
    const engine = make(() => stuck, { timeoutMs: 50 });
    const t0 = Date.now();
    expect(await engine.schema()).toMatchObject({ ok: false, error: { code: 'engine.crashed', message: expect.stringContaining('did not answer') } });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  test('a call made while the module loads waits for it: the timeout counts from ready', async () => {
    // Loads for longer than the timeout and keeps the requests that arrive meanwhile (worker.ts).
    const slow: WorkerLike = {
      onmessage: null,
      onerror: null,
      postMessage(req) {
        queued.push(req);
      },
      terminate() {},
    };
    const queued: Request[] = [];
    const emit = (r: Response): void => slow.onmessage?.({ data: r });
    setTimeout(() => {
      emit({ id: 0, kind: 'ready' });
      for (const req of queued.splice(0)) setTimeout(() => handleRequest(mod, req, emit), 0);
    }, 200);
    const engine = make(() => slow, { timeoutMs: 50 });
    const r = await engine.predict(defaultScenario);
    expect(r.ok).toBe(true);
    expect(r.ok && r.value).toEqual(JSON.parse(mod.predict(JSON.stringify(defaultScenario))));
  });

  test('cancel terminates the search worker and leaves predict working', async () => {
    const workers: InProcessWorker[] = [];
    const engine = make(() => {
      // the second worker is the search's: it never answers (a long search)
      const w = new InProcessWorker(mod, { silent: workers.length === 1 });
      workers.push(w);
      return w;
    });
    const search = engine.search(defaultScenario, {});
    const predicted = engine.predict(defaultScenario);
    search.cancel();
    expect(await search.result).toMatchObject({ ok: false, error: { code: 'engine.cancelled' } });
    expect(workers[1]!.terminated).toBe(true);
    expect(workers[0]!.terminated).toBe(false);
    expect((await predicted).ok).toBe(true);
  });

  test('dispose terminates the workers and later calls fail', async () => {
    const workers: InProcessWorker[] = [];
    const engine = createEngine({ createWorker: () => { const w = new InProcessWorker(mod); workers.push(w); return w; } });
    await engine.ready;
    engine.dispose();
    expect(workers.every((w) => w.terminated)).toBe(true);
    expect(await engine.predict(defaultScenario)).toMatchObject({ ok: false, error: { code: 'engine.disposed' } });
    expect(workers.length).toBe(1);
  });
});

describe("the page's own first-load engine (boot.ts's `local`)", () => {
  const serving = { ...defaultScenario, inference: { prompt_len: 1000, output_len: 250, precision: 'bf16', serving: { arrival: 'closed', concurrency: 8, num_requests: 50 } } };
  const counted = (workers: InProcessWorker[]) => (): WorkerLike => {
    const w = new InProcessWorker(mod);
    workers.push(w);
    return w;
  };
  const tick = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));
  // An engine with `local` as the page's engine and counted workers, disposed after the test.
  const start = (local: Promise<OptimusModule>): { engine: Engine; workers: InProcessWorker[] } => {
    const workers: InProcessWorker[] = [];
    const engine = createEngine({ createWorker: counted(workers), local });
    engines.push(engine);
    return { engine, workers };
  };
  // The first-load module with its predict replaced; its other calls pass through.
  const withPredict = (predict: (s: string) => string): OptimusModule =>
    ({ ...mod, predict, validate: (s: string) => mod.validate(s), presets: (k: string) => mod.presets(k), preset: (k: string, i: string) => mod.preset(k, i) }) as OptimusModule;

  test('answers the first calls; the worker starts after the first answer and then serves what is not quick', async () => {
    const { engine, workers } = start(Promise.resolve(mod));
    await engine.ready;
    expect(workers.length, 'no worker before the first answer').toBe(0);
    const r = await engine.predict(defaultScenario, { interactive: true });
    expect(r).toEqual({ ok: true, value: JSON.parse(mod.predict(JSON.stringify(defaultScenario))) });
    expect((await engine.preset('models', 'llama3-70b')).ok).toBe(true);
    expect(workers.length).toBe(0);
    await tick();
    expect(workers.length, 'the worker started after the first answer').toBe(1);
    await tick();
    // The worker is ready: an interactive predict and validate of a quick scenario still answer
    // here (no message); the rest (not interactive, a serving simulation, parallel "auto", the
    // presets list, a full-engine call) there.
    const interactive = { interactive: true };
    expect((await engine.validate(defaultScenario, interactive)).ok).toBe(true);
    expect((await engine.predict({ ...defaultScenario, training: { ...defaultScenario.training, global_batch: 1024 } }, interactive)).ok).toBe(true);
    expect(workers[0]!.received).toEqual([]);
    const viaWorker = await engine.predict(serving, interactive);
    expect(viaWorker).toEqual({ ok: true, value: JSON.parse(mod.predict(JSON.stringify(serving))) });
    await engine.predict(defaultScenario);
    await engine.presets();
    await engine.schema();
    expect(workers[0]!.received.map((q) => q.method)).toEqual(['predict', 'predict', 'presets', 'schema']);
  });

  test('quickScenario: no layout search, serving simulation or RL step', () => {
    expect(quickScenario(defaultScenario)).toBe(true);
    expect(quickScenario({ ...defaultScenario, inference: { prompt_len: 10, output_len: 10 } })).toBe(true);
    expect(quickScenario(serving)).toBe(false);
    expect(quickScenario({ ...defaultScenario, parallel: 'auto' })).toBe(false);
    expect(quickScenario({ ...defaultScenario, rl: {} })).toBe(false);
    expect(quickScenario(null)).toBe(false);
    expect(quickScenario('x')).toBe(false);
  });

  test('a local engine that cannot load leaves everything to the worker, started at once', async () => {
    const { engine, workers } = start(Promise.reject(new Error('no wasm here')));
    await engine.ready;
    expect(workers.length).toBe(1);
    expect((await engine.predict(defaultScenario)).ok).toBe(true);
    expect(workers[0]!.received.map((q) => q.method)).toEqual(['predict']);
  });

  test('a trap in the local engine retires it: that call fails, the next ones go to the worker', async () => {
    const { engine, workers } = start(Promise.resolve(withPredict(() => { throw new Error('unreachable executed'); })));
    expect(await engine.predict(defaultScenario, { interactive: true })).toMatchObject({ ok: false, error: { code: 'engine.crashed' } });
    expect((await engine.predict(defaultScenario, { interactive: true })).ok).toBe(true);
    expect(workers[0]!.received.map((q) => q.method)).toEqual(['predict']);
  });

  test('quick calls that take too long here, three times in a row, send the later ones to the worker', async () => {
    // The client's clock is the test's: a slow call advances it by 60 ms (over the 50 ms budget), a
    // quick one by nothing, whatever the machine's load.
    let clock = 0;
    let slow = false;
    const local = Promise.resolve(withPredict((s: string) => ((clock += slow ? 60 : 0), mod.predict(s))));
    const workers: InProcessWorker[] = [];
    const engine = createEngine({ createWorker: counted(workers), local, now: () => clock });
    engines.push(engine);
    await engine.predict(defaultScenario, { interactive: true });
    // The worker starts a macrotask after the first answer and is ready one later; a slow call only
    // counts once it is (client.ts). Wait for both: a fixed 10 ms pause lost that race on a loaded
    // machine (the whole suite under scripts/test), and the calls below then ran uncounted.
    while (workers.length === 0) await tick(1);
    await tick(5);
    slow = true;
    // Slow calls (a first call compiles code, the machine preempts the thread) are forgiven until
    // three come in a row.
    const here = (): Promise<unknown> => engine.predict(defaultScenario, { interactive: true });
    await here(); // 60 ms here: over the budget
    await here();
    slow = false;
    await here();
    slow = true;
    await here();
    await here();
    expect(workers[0]!.received, 'two slow calls in a row stay here').toEqual([]);
    await here();
    expect(workers[0]!.received).toEqual([]);
    expect((await engine.predict(defaultScenario, { interactive: true })).ok).toBe(true);
    expect(workers[0]!.received.map((q) => q.method)).toEqual(['predict']);
  });

  test('a first predict that searches the layouts goes to the worker', async () => {
    const { engine, workers } = start(Promise.resolve(mod));
    await engine.ready;
    await engine.predict({ ...defaultScenario, parallel: 'auto' }, { interactive: true });
    expect(workers[0]!.received.map((q) => q.method)).toEqual(['predict']);
  });

  test("a link's first predict and validate of a scenario that is not quick (an RL step, a serving run, parallel \"auto\") go to the worker, never this thread", async () => {
    // A link opened with 1000 x 1000 RL responses held the page's thread for 35 s (no
    // "Computing…", a half-built form) where the same scenario typed in ran in the worker.
    const rl = { schema_version: 1, model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: 8, rl: { algorithm: 'grpo', prompts_per_step: 4, samples_per_prompt: 2, prompt_len: 64, response_len: 128 } };
    const auto = { ...defaultScenario, parallel: 'auto' };
    for (const s of [rl, serving, auto]) {
      const { engine, workers } = start(Promise.resolve(mod));
      await engine.ready;
      const v = await engine.validate(s, { interactive: true });
      const p = await engine.predict(s, { interactive: true });
      expect(v.ok && p.ok, JSON.stringify(!v.ok ? v.error : !p.ok ? p.error : '')).toBe(true);
      expect(workers[0]?.received.map((q) => q.method), JSON.stringify(s).slice(0, 80)).toEqual(['validate', 'predict']);
    }
    // A quick one is still answered here, before the worker exists.
    const { engine, workers } = start(Promise.resolve(mod));
    expect((await engine.validate(defaultScenario, { interactive: true })).ok).toBe(true);
    expect((await engine.predict(defaultScenario, { interactive: true })).ok).toBe(true);
    expect(workers.length).toBe(0);
  });

  test('calls nobody waits for (a loop of predictions) go to the worker even before it is ready', async () => {
    const { engine, workers } = start(Promise.resolve(mod));
    await engine.ready;
    const answers = await Promise.all([1, 2, 3].map(() => engine.predict(defaultScenario)));
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(workers[0]!.received.map((q) => q.method)).toEqual(['predict', 'predict', 'predict']);
  });

  test('dispose with a local engine: later calls fail and no worker starts', async () => {
    const { engine, workers } = start(Promise.resolve(mod));
    engine.dispose();
    expect(await engine.predict(defaultScenario)).toMatchObject({ ok: false, error: { code: 'engine.disposed' } });
    await tick();
    expect(workers.length).toBe(0);
  });
});
