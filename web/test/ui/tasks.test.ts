// Tasks (src/state/tasks.ts): each starter is a scenario the engine accepts and answers its task
// with numbers that read naturally; the task a scenario answers; the name that follows it.
import { beforeAll, describe, expect, it } from 'vitest';
import { HEADLINES, SERVE_REQUESTS, TASK_DEFS, TASKS, autoName, quickEdit, quickFields, quickPlaceholder, quickValue, starter, taskOf } from '../../src/state/tasks';
import { rlTimelineSpec } from '../../src/charts/specs';
import { getPointer } from '../../src/state/pointer';
import { defaultOf, enumValues, isRequired, schemaAt } from '../../src/state/schema';
import type { OptimusModule } from '../../src/engine/protocol';
import { loadModule } from '../wasm';

let mod: OptimusModule;
beforeAll(async () => {
  mod = await loadModule();
});
const predict = (s: unknown): any => JSON.parse(mod.predict(JSON.stringify(s)));
const at = (o: unknown, dotted: string): unknown => getPointer(o, `/${dotted.split('.').join('/')}`);

describe('task starters', () => {
  for (const t of TASKS) {
    it(`${t}: the engine predicts it, every headline number exists, and it fits`, () => {
      const s = TASK_DEFS[t].starter;
      const p = predict(s);
      expect(p.error).toBeUndefined();
      for (const [path] of HEADLINES[taskOf(s)]) expect(at(p, path), path).not.toBeUndefined();
      expect(p.memory.fits).toBe(true);
      // Every short-form field names a key of the scenario or of the engine's schema.
      for (const f of TASK_DEFS[t].fields) expect(f.path.startsWith('/')).toBe(true);
    });
  }
  for (const t of TASKS.filter((x) => TASK_DEFS[x].starter.parallel !== undefined)) {
    it(`${t}: the starting layout is the one the engine's search picks for the scenario`, () => {
      const s = TASK_DEFS[t].starter;
      const picked = predict({ ...s, parallel: 'auto' }).parallel_auto.parallel;
      expect(picked).toMatchObject(s.parallel as Record<string, unknown>);
      // The keys left out are the engine's defaults or derived (dp the rest, sequence parallelism tp > 1).
      expect(predict(s).training?.iteration_time_s).toBe(predict({ ...s, parallel: picked }).training?.iteration_time_s);
    });
  }
  it('rl: the starter is an RL step whose trainer is searched; split and asynchronous placements of it predict, their timelines end at the step', () => {
    const s = TASK_DEFS.rl.starter;
    expect(taskOf(s)).toBe('rl');
    for (const extra of [{}, { placement: 'split', rollout_devices: 4, train_devices: 4 }, { placement: 'split', rollout_devices: 4, train_devices: 4, async: { staleness: 1 } }]) {
      const p = predict({ ...s, rl: { ...(s.rl as object), ...extra } });
      expect(p.error, JSON.stringify(extra)).toBeUndefined();
      expect(p.warnings.map((w: { code: string }) => w.code)).toEqual([]);
      const spec = rlTimelineSpec(p)!;
      for (const b of spec.bars) expect((b.start ?? 0) + b.value).toBeLessThanOrEqual(p.rl.step_time_s * (1 + 1e-9));
      for (const row of new Set(spec.bars.map((b) => b.row))) {
        const end = Math.max(...spec.bars.filter((b) => b.row === row).map((b) => (b.start ?? 0) + b.value));
        expect(end / p.rl.step_time_s, row).toBeCloseTo(1, 9);
      }
      // The long tail: the longest response is well past the mean one with {mean 2048, max 8192}.
      expect(p.rl.rollout.longest_response_s).toBeGreaterThan(1.5 * p.rl.rollout.mean_response_s);
    }
  });
  it('the RL lesson says what the engine computes: split on-policy is slower than colocated at every longest response, the tail grows with it, and the idle pool changes side', async () => {
    const { rlLesson } = await import('../../src/ui/rl-lesson');
    const idleSide = new Set<string>();
    let tail = 0;
    for (const c of rlLesson.widgets.find((w) => w.id === 'longest')!.choices) {
      const [co, sp, as] = ['colocated', 'split', 'split-async'].map((placement) => predict(rlLesson.scenario({ placement, longest: c.value }, { study: null })).rl);
      expect(sp.step_time_s).toBeGreaterThan(co.step_time_s);
      expect(as.step_time_s).toBeLessThan(sp.step_time_s);
      const t = co.rollout.longest_response_s - co.rollout.mean_response_s;
      expect(t).toBeGreaterThan(tail);
      tail = t;
      idleSide.add(as.idle_s.train > 0 ? 'train' : 'rollout');
    }
    expect([...idleSide].sort()).toEqual(['rollout', 'train']);
  });
  it('the plan starter reads in days, not years', () => {
    const days = predict(TASK_DEFS.plan.starter).run.wall_days;
    expect(days).toBeGreaterThan(1);
    expect(days).toBeLessThan(120);
  });
});

describe('taskOf', () => {
  it.each([
    [{ training: {} }, 'train'],
    [{ training: { train_tokens: 1e12 } }, 'plan'],
    [{ inference: { serving: {} } }, 'serve'],
    [{ inference: {} }, 'infer'],
    [{ training: {}, inference: { serving: {} } }, 'train'],
    [{}, 'train'],
    [{ rl: {} }, 'rl'],
  ])('%j -> %s', (s, t) => expect(taskOf(s)).toBe(t));
});

describe('autoName', () => {
  it('the starters are named before the preset lists arrive', () => {
    expect(starter('train').name).toBe('Llama 3 70B on 64 GPUs (NVIDIA DGX H100): training step');
    expect(starter('serve').name).toBe('Llama 3.1 8B on 1 GPU (NVIDIA DGX H100): serving 16 users');
    expect(starter('rl').name).toBe('Qwen2.5 7B on 8 GPUs (NVIDIA DGX H100): RL step');
  });
  const names = { model: (id: string) => ({ 'llama3-70b': 'Llama 3 70B' })[id], system: (id: string) => ({ 'dgx-h100': 'DGX H100' })[id] };
  it('model, GPUs and task', () => {
    expect(autoName(TASK_DEFS.train.starter, names)).toBe('Llama 3 70B on 64 GPUs (DGX H100): training step');
    expect(autoName({ ...TASK_DEFS.train.starter, training: { train_tokens: 1.5e13 } }, names)).toBe('Llama 3 70B on 64 GPUs (DGX H100): 15T tokens');
    expect(autoName({ model: 'x', system: 'y', num_devices: 8, inference: { serving: { concurrency: 32 } } }, names)).toBe('x on 8 GPUs (y): serving 32 users');
  });

  it('the RL form plans a whole run when given its steps: empty, one step; the engine answers the run', () => {
    expect(TASK_DEFS.rl.fields.map((f) => f.path)).toContain('/rl/train_steps');
    expect(quickPlaceholder(TASK_DEFS.rl.starter, '/rl/train_steps')).toBe('one step');
    expect(quickEdit(TASK_DEFS.rl.starter, '/rl/train_steps', 300)).toEqual({ path: '/rl/train_steps', value: 300 });
    const starterRl = TASK_DEFS.rl.starter.rl as Record<string, unknown>;
    const out = JSON.parse(mod.predict(JSON.stringify({ ...TASK_DEFS.rl.starter, rl: { ...starterRl, train_steps: 300 } }))) as { rl: { step_time_s: number; run: { wall_days: number } } };
    expect(out.rl.run.wall_days).toBeCloseTo((300 * out.rl.step_time_s) / 86400, 9);
  });

  it('the RL lengths in the short form: a whole number is the longest, a typed mean makes {mean, max}, clearing it the limit again', () => {
    const limit = { rl: { prompt_len: 1024, response_len: 8192 } };
    expect(quickValue(limit, '/rl/response_len/max')).toBe(8192);
    expect(quickValue(limit, '/rl/response_len/mean')).toBeUndefined();
    expect(quickPlaceholder(limit, '/rl/response_len/mean')).toBe('assumed');
    expect(quickPlaceholder(limit, '/rl/response_len/max')).toBe('');
    // a new limit stays a whole number
    expect(quickEdit(limit, '/rl/response_len/max', 16384)).toEqual({ path: '/rl/response_len', value: 16384 });
    // a mean typed beside a limit
    expect(quickEdit(limit, '/rl/prompt_len/mean', 300)).toEqual({ path: '/rl/prompt_len', value: { mean: 300, max: 1024 } });
    const stated = { rl: { response_len: { mean: 2048, max: 8192 } } };
    expect(quickValue(stated, '/rl/response_len/mean')).toBe(2048);
    expect(quickEdit(stated, '/rl/response_len/max', 4096)).toEqual({ path: '/rl/response_len', value: { mean: 2048, max: 4096 } });
    expect(quickEdit(stated, '/rl/response_len/mean', undefined)).toEqual({ path: '/rl/response_len', value: 8192 });
    // a stated minimum keeps the object form
    expect(quickEdit({ rl: { response_len: { mean: 10, max: 20, min: 5 } } }, '/rl/response_len/mean', undefined)).toEqual({ path: '/rl/response_len', value: { max: 20, min: 5 } });
    // a list of lengths shows in neither field, and says where it is
    const list = { rl: { response_len: [100, 200] } };
    expect(quickValue(list, '/rl/response_len/max')).toBeUndefined();
    expect(quickPlaceholder(list, '/rl/response_len/mean')).toBe('a list: full editor');
    // other fields are read and written where they are
    expect(quickValue(limit, '/rl/prompt_len')).toBe(1024);
    expect(quickEdit(limit, '/num_devices', 8)).toEqual({ path: '/num_devices', value: 8 });
  });

  it('the serve form\'s lengths read and write the serving run\'s own lengths when it states them', () => {
    const plain = { inference: { prompt_len: 1000, output_len: 250, serving: { concurrency: 16 } } };
    expect(quickValue(plain, '/inference/prompt_len')).toBe(1000);
    expect(quickEdit(plain, '/inference/prompt_len', 2000)).toEqual({ path: '/inference/prompt_len', value: 2000 });
    const own = { inference: { prompt_len: 1000, output_len: 250, serving: { input_len: { mean: 800, max: 3000 }, output_len: 300 } } };
    expect(quickValue(own, '/inference/prompt_len')).toBe(800);
    expect(quickValue(own, '/inference/output_len')).toBe(300);
    expect(quickEdit(own, '/inference/prompt_len', 1200)).toEqual({ path: '/inference/serving/input_len', value: { mean: 1200, max: 3000 } });
    expect(quickEdit(own, '/inference/output_len', 500)).toEqual({ path: '/inference/serving/output_len', value: 500 });
    // cleared: the run takes the inference block's length again
    expect(quickEdit(own, '/inference/output_len', undefined)).toEqual({ path: '/inference/serving/output_len', value: undefined });
    const range = { inference: { prompt_len: 1000, output_len: 250, serving: { input_len: { uniform: [100, 900] }, output_len: [[100, 1], [200, 1]] } } };
    expect(quickValue(range, '/inference/prompt_len')).toBeUndefined();
    expect(quickPlaceholder(range, '/inference/prompt_len')).toBe('a range: full editor');
    expect(quickPlaceholder(range, '/inference/output_len')).toBe('a list: full editor');
    expect(quickEdit(range, '/inference/prompt_len', 512)).toEqual({ path: '/inference/serving/input_len', value: 512 });
  });

  it('the serve form\'s speculative tokens: typed, the key (and its block); cleared, the block off; the engine takes both', () => {
    const base = TASK_DEFS.serve.starter as any;
    expect(quickFields('serve', base).map((f) => f.path)).toContain('/inference/speculative/draft_tokens');
    // set: the key itself (the editor creates the block around it, keeping a draft model it states)
    expect(quickEdit(base, '/inference/speculative/draft_tokens', 3)).toEqual({ path: '/inference/speculative/draft_tokens', value: 3 });
    // cleared: the block switched off, as the full editor's box for it does
    expect(quickEdit(base, '/inference/speculative/draft_tokens', undefined)).toEqual({ path: '/inference/speculative', value: false });
    expect(quickPlaceholder(base, '/inference/speculative/draft_tokens')).toBe('');
    const withSpec = { ...base, inference: { ...base.inference, speculative: { draft_tokens: 3 } } };
    const plain = predict(base), spec = predict(withSpec);
    expect(spec.error).toBeUndefined();
    expect(spec.inference.speculative.tokens_per_step).toBeGreaterThan(1);
    // Llama 3.1 8B ships no MTP module: the engine says so, and still answers
    expect(spec.warnings.map((w: any) => w.code)).toContain('speculative.mtp_not_native');
    expect(spec.serving.tpot_s.mean).not.toBe(plain.serving.tpot_s.mean);
  });

  it('the short form asks what the scenario\'s requests are, and adds the split placement\'s fields', () => {
    const users = (s: unknown) => quickFields('serve', s).find((f) => f.path.startsWith('/inference/serving/') || f.path === '/inference/batch')!.path;
    expect(users({ inference: { serving: { arrival: 'closed', concurrency: 8 } } })).toBe('/inference/serving/concurrency');
    expect(users({ inference: { serving: { arrival: 'poisson', requests_per_s: 2 } } })).toBe('/inference/serving/requests_per_s');
    expect(users({ inference: { serving: {} } })).toBe(SERVE_REQUESTS.offline.path);
    expect(users({ inference: { batch: 4 } })).toBe('/inference/batch');
    const rl = (placement: string) => quickFields('rl', { rl: { placement } }).map((f) => f.path);
    expect(rl('split')).toEqual([...TASK_DEFS.rl.fields.map((f) => f.path), '/rl/rollout_devices', '/rl/async/staleness']);
    expect(rl('colocated')).toEqual(TASK_DEFS.rl.fields.map((f) => f.path));
  });

  it('the engine takes what the RL length fields write', () => {
    const base = { ...TASK_DEFS.rl.starter, rl: { ...(TASK_DEFS.rl.starter as any).rl, prompt_len: 1024, response_len: 4096 } };
    const apply = (s: any, e: { path: string; value: unknown }) => {
      const c = JSON.parse(JSON.stringify(s));
      const key = e.path.split('/').pop()!;
      c.rl[key] = e.value;
      return c;
    };
    const withMean = apply(base, quickEdit(base, '/rl/response_len/mean', 1000));
    expect(withMean.rl.response_len).toEqual({ mean: 1000, max: 4096 });
    for (const s of [base, withMean, apply(base, quickEdit(base, '/rl/response_len/max', 2048))]) {
      const out = JSON.parse(mod.predict(JSON.stringify(s)));
      expect(out.error, JSON.stringify(s.rl)).toBeUndefined();
      expect(out.rl.step_time_s).toBeGreaterThan(0);
    }
  });

  it('the Serve form\'s runtimes are software presets', async () => {
    const { readdirSync } = await import('node:fs');
    const ids = readdirSync(`${process.cwd()}/../presets/software`).map((f) => f.replace(/\.json$/, ''));
    const runtime = TASK_DEFS.serve.fields.find((f) => f.kind === 'runtime')!;
    expect(runtime.path).toBe('/software');
    for (const id of runtime.choices ?? []) expect(ids, id).toContain(id);
  });

  it('a picker of an absent key shows the engine\'s default for it, and offers every value the key takes', () => {
    const root = JSON.parse(mod.schema!()).scenario;
    let n = 0;
    for (const t of TASKS) {
      for (const f of TASK_DEFS[t].fields) {
        if (f.kind !== 'precision' && f.kind !== 'placement') continue;
        expect(f.absent, f.path).toBeDefined();
        expect(defaultOf(schemaAt(root, f.path)), f.path).toBe(f.absent);
        // every value the key takes is a choice (a link in NVFP4 showed a blank picker)
        if (f.kind === 'precision') expect([...(f.choices ?? [])].sort(), f.path).toEqual([...enumValues(schemaAt(root, f.path))].sort());
        n += 1;
      }
    }
    expect(n).toBeGreaterThanOrEqual(3);
    // the Serve form's request fields that stand in for its users show their keys' defaults
    for (const f of Object.values(SERVE_REQUESTS)) if (f.absent !== undefined) expect(String(defaultOf(schemaAt(root, f.path))), f.path).toBe(f.absent);
    // The staleness the split placement adds (ui/taskform.ts) shows 0 when absent: without an
    // async block the step is on-policy (docs/contract.md rl.async), and the block is optional.
    expect(schemaAt(root, '/rl/async')).not.toBeNull();
    expect(isRequired(root, '/rl/async')).toBe(false);
  });
});
