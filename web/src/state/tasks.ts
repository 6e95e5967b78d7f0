// Start from a task: what a newcomer wants to do (train, serve, plan a run, RL post-training, compare), the short
// form each one asks for, the scenario each starts from, the numbers its headline shows, and the
// scenario name that follows the scenario. Pure (test/ui/tasks.test.ts).
import { asObject, getPointer } from './pointer';

export type Scenario = Record<string, unknown>;
export const TASKS = ['train', 'serve', 'plan', 'rl', 'compare'] as const;
export type Task = (typeof TASKS)[number];

/** One field of a task's short form: a JSON Pointer of the scenario and its words. */
export interface QuickField {
  path: string;
  label: string;
  kind: 'model' | 'system' | 'int' | 'number' | 'auto' | 'precision' | 'placement' | 'runtime';
  /** A unit or hint after the input. */
  hint?: string;
  /** What the field shows when the key is absent (a picker's choice, a number's placeholder): the engine's default (docs/contract.md; test/ui/tasks.test.ts checks it against the schema). */
  absent?: string;
  /** A precision picker's values, most used first: every value the key takes (test/ui/tasks.test.ts checks them against the schema); a runtime picker's software profiles. */
  choices?: string[];
}

export interface TaskDef {
  id: Task;
  title: string;
  question: string;
  fields: QuickField[];
  /**
   * The scenario the task starts from. Its layout is the one the engine's search picks for it
   * (test/ui/tasks.test.ts checks that), stated so the first numbers need no search; the layout
   * follows (becomes "auto") when the model, system or GPU count changes (state/coupling.ts).
   */
  starter: Scenario;
}

const MODEL: QuickField = { path: '/model', label: 'Model', kind: 'model' };
const SYSTEM: QuickField = { path: '/system', label: 'GPU system', kind: 'system' };
const GPUS: QuickField = { path: '/num_devices', label: 'GPUs', kind: 'int' };
const LAYOUT: QuickField = { path: '/parallel', label: 'Pick the fastest layout for me (auto)', kind: 'auto' };
// Speculative decoding's drafted tokens a step (the draft: MTP unless the full editor names a model).
const SPECULATIVE: QuickField = { path: '/inference/speculative/draft_tokens', label: 'Speculative tokens', kind: 'int', hint: 'drafted a step (MTP)', absent: 'none' };
/** What every task asks first: the model, the GPU system and how many GPUs. */
const WHAT_ON_WHAT: QuickField[] = [MODEL, SYSTEM, GPUS];
const SEQ_LEN: QuickField = { path: '/training/seq_len', label: 'Sequence length', kind: 'int', hint: 'tokens' };
const GLOBAL_BATCH: QuickField = { path: '/training/global_batch', label: 'Global batch', kind: 'int', hint: 'sequences' };
/** The training step both Train and Compare start from (its layout the search's pick, tasks.test.ts). */
const TRAINING_STEP = {
  schema_version: 1,
  model: 'llama3-70b',
  system: 'dgx-h100',
  num_devices: 64,
  parallel: { tp: 8, pp: 2, micro_batch: 1, interleave: 2, recompute: 'none', zero_stage: 1 },
  training: { global_batch: 512, seq_len: 8192, precision: 'bf16' },
};

export const TASK_DEFS: Record<Task, TaskDef> = {
  train: {
    id: 'train',
    title: 'Train',
    question: 'How long does a training step take, and does it fit in GPU memory?',
    fields: [...WHAT_ON_WHAT, SEQ_LEN, GLOBAL_BATCH, { path: '/training/precision', label: 'Precision', kind: 'precision', absent: 'bf16', choices: ['bf16', 'fp8', 'mxfp8', 'nvfp4', 'mxfp4', 'fp16', 'tf32', 'fp32'] }, LAYOUT],
    starter: TRAINING_STEP,
  },
  serve: {
    id: 'serve',
    title: 'Serve',
    question: 'Behind an endpoint: how fast is the first token, each next token, and how many tokens per second per GPU?',
    fields: [
      ...WHAT_ON_WHAT,
      { path: '/inference/serving/concurrency', label: 'Concurrent users', kind: 'int' },
      { path: '/inference/prompt_len', label: 'Prompt tokens', kind: 'int' },
      { path: '/inference/output_len', label: 'Output tokens', kind: 'int' },
      { path: '/inference/precision', label: 'Precision', kind: 'precision', absent: 'fp16', choices: ['bf16', 'fp16', 'fp8', 'mxfp8', 'nvfp4', 'mxfp4', 'int8', 'int4', 'fp32'] },
      // The serving engine (presets/software): its scheduler, CUDA graphs, KV cache and host times;
      // absent, the system's own software block (probe finding: reachable only in the full editor).
      { path: '/software', label: 'Runtime', kind: 'runtime', choices: ['vllm', 'sglang', 'sglang-deepep', 'tensorrt-llm', 'tensorrt-llm-pytorch', 'gpt-fast', 'pytorch-eager'] },
      SPECULATIVE,
      LAYOUT,
    ],
    starter: {
      schema_version: 1,
      model: 'llama3.1-8b',
      system: 'dgx-h100',
      num_devices: 1,
      parallel: { tp: 1, pp: 1 },
      inference: { prompt_len: 1000, output_len: 250, precision: 'bf16', serving: { arrival: 'closed', concurrency: 16, num_requests: 500 } },
    },
  },
  plan: {
    id: 'plan',
    title: 'Plan a run',
    question: 'A whole pre-training run: how many days, GPU-hours, how much energy and money?',
    fields: [
      ...WHAT_ON_WHAT,
      { path: '/training/train_tokens', label: 'Tokens to train', kind: 'number', hint: 'e.g. 15e12' },
      SEQ_LEN,
      GLOBAL_BATCH,
      { path: '/economics/usd_per_gpu_hour', label: 'Price per GPU-hour', kind: 'number', hint: 'USD (empty: the system\u2019s)' },
      LAYOUT,
    ],
    starter: {
      schema_version: 1,
      model: 'llama3-8b',
      system: 'dgx-h100',
      num_devices: 256,
      parallel: { tp: 1, pp: 1, cp: 2, micro_batch: 1, recompute: 'none', zero_stage: 1 },
      training: { global_batch: 512, seq_len: 8192, precision: 'bf16', train_tokens: 1e12 },
    },
  },
  rl: {
    id: 'rl',
    title: 'RL post-training',
    question: 'One GRPO step: generate the responses, score them, train on them, send the weights back. How long, and where does the time go?',
    fields: [
      ...WHAT_ON_WHAT,
      { path: '/rl/prompts_per_step', label: 'Prompts per step', kind: 'int' },
      { path: '/rl/samples_per_prompt', label: 'Samples per prompt', kind: 'int', hint: 'responses' },
      { path: '/rl/prompt_len/mean', label: 'Mean prompt', kind: 'int', hint: 'tokens' },
      { path: '/rl/prompt_len/max', label: 'Longest prompt', kind: 'int', hint: 'tokens' },
      { path: '/rl/response_len/mean', label: 'Mean response', kind: 'int', hint: 'tokens' },
      { path: '/rl/response_len/max', label: 'Longest response', kind: 'int', hint: 'tokens' },
      { path: '/rl/placement', label: 'Placement', kind: 'placement', absent: 'colocated' },
      // A whole run (rl.run: days, GPU-hours, energy, cost) when given; empty, one step.
      { path: '/rl/train_steps', label: 'Steps to plan (whole run)', kind: 'int', hint: 'steps' },
    ],
    // Qwen2.5 7B GRPO on one DGX H100 (the engine's rl bench job, tests/bench/rl_bench.cpp): 128
    // prompts x 8 samples, prompts of 256 tokens on average (at most 1,024), long-tailed responses
    // (mean 2,048, at most 8,192 tokens). The trainer's layout is the engine's search ("auto"); the
    // rollout's tp the fastest that fits (docs/rl.md). The driver's batch rate is stated at the
    // engine's fitted default (a verl-like single controller), a field the user sees and can set.
    starter: {
      schema_version: 1,
      model: 'qwen2.5-7b',
      system: 'dgx-h100',
      num_devices: 8,
      rl: { algorithm: 'grpo', prompts_per_step: 128, samples_per_prompt: 8, prompt_len: { mean: 256, max: 1024 }, response_len: { mean: 2048, max: 8192 }, placement: 'colocated', train: 'auto', controller_GBps: 0.25 },
    },
  },
  compare: {
    id: 'compare',
    title: 'Compare',
    question: 'Which GPUs or which layout: pin one result, change the GPUs, and read the differences; or rank every layout.',
    fields: [...WHAT_ON_WHAT, LAYOUT],
    starter: TRAINING_STEP,
  },
};

/** The task a scenario answers: serving, a whole run, a training step, or inference. */
export function taskOf(s: Scenario): Exclude<Task, 'compare'> | 'infer' {
  if (s.rl !== undefined) return 'rl';
  const inference = s.inference as Record<string, unknown> | undefined;
  const training = s.training as Record<string, unknown> | undefined;
  if (inference?.serving !== undefined && training === undefined) return 'serve';
  if (training?.train_tokens !== undefined) return 'plan';
  if (training !== undefined) return 'train';
  if (inference !== undefined) return inference.serving !== undefined ? 'serve' : 'infer';
  return 'train';
}

export type HeadlineQuantity = 'seconds' | 'ratio' | 'bytes' | 'bool' | 'days' | 'usd' | 'count' | 'tokens_rate';
type HeadlineRow = [path: string, label: string, q: HeadlineQuantity];
const STEP_TIME: HeadlineRow = ['training.iteration_time_s', 'Step time', 'seconds'];
const MFU: HeadlineRow = ['training.mfu', 'MFU', 'ratio'];
const FITS: HeadlineRow = ['memory.fits', 'Fits', 'bool'];
// Serving counts the output tokens it generates, RL the prompt and response tokens it trains on:
// two different rates, named apart (probe finding: one label for both).
/** The headline numbers of each task: output path, words, quantity. */
export const HEADLINES: Record<ReturnType<typeof taskOf>, HeadlineRow[]> = {
  train: [STEP_TIME, MFU, ['memory.per_device_bytes.total', 'GPU memory', 'bytes'], FITS],
  plan: [
    ['run.wall_days', 'Wall clock', 'days'],
    ['run.gpu_hours', 'GPU-hours', 'count'],
    ['run.cost_usd', 'Cost', 'usd'],
    STEP_TIME,
    MFU,
    FITS,
  ],
  serve: [
    ['serving.ttft_s.p50', 'TTFT p50', 'seconds'],
    ['serving.ttft_s.p90', 'TTFT p90', 'seconds'],
    ['serving.tpot_s.p50', 'TPOT p50', 'seconds'],
    ['serving.output_tokens_per_s_per_gpu', 'Output tokens/s per GPU', 'tokens_rate'],
    FITS,
  ],
  rl: [['rl.step_time_s', 'Step time', 'seconds'], ['rl.tokens_per_s_per_gpu', 'Trained tokens/s per GPU', 'tokens_rate'], FITS],
  infer: [['inference.ttft_s', 'TTFT', 'seconds'], ['inference.tpot_s', 'TPOT', 'seconds'], FITS],
};

/** Short words of a count of GPUs: "64 GPUs (NVIDIA DGX H100)". */
function gpus(s: Scenario, systemName: (id: string) => string | undefined): string {
  const n = s.num_devices;
  const sys = s.system;
  const device = typeof sys === 'string' ? (systemName(sys) ?? sys) : typeof sys === 'object' && sys ? String((sys as Record<string, unknown>).name ?? 'custom system') : 'GPUs';
  return `${typeof n === 'number' ? n : '?'} GPU${n === 1 ? '' : 's'} (${device})`;
}

const TASK_WORDS: Record<ReturnType<typeof taskOf>, string> = { train: 'training step', plan: 'whole run', serve: 'serving', infer: 'inference', rl: 'RL step' };

/** A token count in short form, three significant digits: 1.5e13 -> "15T", 3e11 -> "300B". */
export const tokensShort = (t: number): string => (t >= 1e12 ? `${+(t / 1e12).toPrecision(3)}T` : `${+(t / 1e9).toPrecision(3)}B`);

/**
 * The name a scenario gets when the person has not named it: model, GPUs and task
 * ("Llama 3 70B on 64 GPUs (NVIDIA DGX H100): training step"). Preset names come from `names`.
 */
export function autoName(s: Scenario, names: { model: (id: string) => string | undefined; system: (id: string) => string | undefined }): string {
  const m = s.model;
  const model = typeof m === 'string' ? (names.model(m) ?? m) : typeof m === 'object' && m ? String((m as Record<string, unknown>).name ?? 'custom model') : 'model';
  let words = TASK_WORDS[taskOf(s)];
  if (taskOf(s) === 'plan') {
    const t = getPointer(s, '/training/train_tokens');
    if (typeof t === 'number') words = `${tokensShort(t)} tokens`;
  }
  if (taskOf(s) === 'serve') {
    const c = getPointer(s, '/inference/serving/concurrency');
    if (typeof c === 'number') words = `serving ${c} users`;
  }
  return `${model} on ${gpus(s, names.system)}: ${words}`;
}

/** The preset names the starters use, for their names before the preset lists have arrived. */
const STARTER_NAMES: Record<string, string> = {
  'llama3-70b': 'Llama 3 70B',
  'llama3-8b': 'Llama 3 8B',
  'llama3.1-8b': 'Llama 3.1 8B',
  'dgx-h100': 'NVIDIA DGX H100',
  'qwen2.5-7b': 'Qwen2.5 7B',
};

/**
 * The scenario at the layout parallel "auto" chose for it (`prediction.parallel_auto`), else as it is.
 * A calibration belongs to the layout measured: searched again at the calibrated rates another
 * layout can win (70B serving on 8 H100: TP8 measured at 700 ms TTFT, TP4 x 2 shown at 987 ms
 * "calibrated"), so the calibrate panel fits on it and the page applies the fit with it.
 */
export function atChosenLayout<S extends { parallel?: unknown }>(s: S, p: { parallel_auto?: { parallel?: unknown } } | null | undefined): S {
  const chosen = s.parallel === 'auto' ? p?.parallel_auto?.parallel : undefined;
  return chosen ? { ...s, parallel: JSON.parse(JSON.stringify(chosen)) as unknown } : s;
}

/** A starter's preset name by its id (before the preset lists have arrived), else undefined. */
export const starterName = (id: string): string | undefined => STARTER_NAMES[id];

/** A task's starting scenario, named. */
export function starter(task: Task): Scenario {
  const s = structuredClone(TASK_DEFS[task].starter);
  s.name = autoName(s, { model: (id) => STARTER_NAMES[id], system: (id) => STARTER_NAMES[id] });
  return s;
}

/**
 * What the Serve form asks in place of its concurrent users when the scenario's requests come
 * otherwise (ui/taskform.ts): a Poisson stream's rate, an offline run's requests (all at time 0,
 * the arrival's default), a static batch's sequences (an inference block without a serving run).
 */
export const SERVE_REQUESTS: Record<'poisson' | 'offline' | 'batch', QuickField> = {
  poisson: { path: '/inference/serving/requests_per_s', label: 'Requests per second', kind: 'number' },
  offline: { path: '/inference/serving/num_requests', label: 'Requests', kind: 'int', hint: 'all at once', absent: '1000' },
  batch: { path: '/inference/batch', label: 'Batch', kind: 'int', hint: 'sequences at once', absent: '1' },
};

/** The fields the RL form adds for a split placement: the rollout pool (the rest train) and the staleness. */
const RL_SPLIT_FIELDS: QuickField[] = [
  { path: '/rl/rollout_devices', label: 'Rollout GPUs', kind: 'int', hint: 'the rest train' },
  // Absent (no async block): on-policy, docs/contract.md rl.async.
  { path: '/rl/async/staleness', label: 'Staleness', kind: 'int', hint: 'steps (0: on-policy; 1: the rollout runs a step ahead)', absent: '0' },
];

/**
 * The short form of a task for this scenario: the Serve form asks what the scenario's requests
 * are (SERVE_REQUESTS; a closed loop keeps its concurrent users, the arrival's default is
 * offline), the RL form adds the split placement's fields.
 */
export function quickFields(task: Task, s: unknown): QuickField[] {
  const fields = TASK_DEFS[task].fields;
  if (task === 'serve' && getPointer(s, '/inference') !== undefined) {
    const arrival = getPointer(s, '/inference/serving/arrival') ?? 'offline';
    const requests = getPointer(s, '/inference/serving') === undefined ? SERVE_REQUESTS.batch : arrival === 'poisson' || arrival === 'offline' ? SERVE_REQUESTS[arrival] : null;
    if (requests) return fields.map((f) => (f.path === '/inference/serving/concurrency' ? requests : f));
  }
  if (task === 'rl' && getPointer(s, '/rl/placement') === 'split') return [...fields, ...RL_SPLIT_FIELDS];
  return fields;
}

/**
 * Where a short-form length field reads and writes: an RL length's part (`/rl/prompt_len/mean`,
 * `/rl/response_len/max`: the key and the part), or a serving run's own length, which stands in
 * for the inference block's when the run states it (`inference.serving.input_len` and
 * `output_len` default to `prompt_len` and `output_len`, docs/contract.md): editing the block's
 * would change nothing the run uses.
 */
function lengthPart(s: unknown, path: string): { key: string; part: 'mean' | 'max' | 'served' } | null {
  const m = /^(\/rl\/(?:prompt|response)_len)\/(mean|max)$/.exec(path);
  if (m) return { key: m[1]!, part: m[2] as 'mean' | 'max' };
  const served = path === '/inference/prompt_len' ? '/inference/serving/input_len' : path === '/inference/output_len' ? '/inference/serving/output_len' : null;
  return served && getPointer(s, served) !== undefined ? { key: served, part: 'served' } : null;
}

/** A copy of a length object ({"mean", "max"}, {"uniform"}) to edit, or null for a number or a list. */
const objectCopy = (v: unknown): Record<string, unknown> | null => {
  const o = asObject(v);
  return o ? { ...o } : null;
};

/**
 * What a short-form field shows. An RL length may be a whole number, which the engine reads as
 * the limit with its mean assumed (docs/rl.md "Lengths: limits and means"): its Longest field
 * shows that number and its Mean field nothing. A serving run's own length shows as a number, or
 * its mean. A list or a range of lengths shows in no field.
 */
export function quickValue(s: unknown, path: string): unknown {
  const l = lengthPart(s, path);
  if (!l) return getPointer(s, path);
  const v = getPointer(s, l.key);
  if (typeof v === 'number') return l.part === 'mean' ? undefined : v;
  return objectCopy(v)?.[l.part === 'served' ? 'mean' : l.part];
}

/** What an empty short-form field says instead (an RL length's assumed mean, a list or range of lengths). */
export function quickPlaceholder(s: unknown, path: string): string {
  const l = lengthPart(s, path);
  if (!l) return path === '/economics/usd_per_gpu_hour' ? 'system price' : path === '/rl/train_steps' ? 'one step' : '';
  const v = getPointer(s, l.key);
  if (Array.isArray(v)) return 'a list: full editor';
  if (objectCopy(v)?.uniform !== undefined) return 'a range: full editor';
  return typeof v === 'number' && l.part === 'mean' ? 'assumed' : '';
}

/**
 * The edit a short-form field makes: the key written and its value. A length keeps the form it
 * has: an RL whole number (a limit) stays one when its Longest field changes and becomes
 * {"mean", "max"} when a mean is typed; clearing the mean of {"mean", "max"} makes it the limit
 * again; a serving run's {"mean", ...} takes the typed mean, a number, list or range becomes the
 * typed number, and clearing it leaves the run the inference block's length. An edit the engine
 * cannot take ({"max"} alone) is left for its error. Cleared speculative tokens switch the
 * speculative block off.
 */
export function quickEdit(s: unknown, path: string, x: unknown): { path: string; value: unknown } {
  // Cleared speculative tokens switch the speculative block off (the editor's box for it: the
  // block needs them).
  if (path === SPECULATIVE.path && x === undefined) return { path: '/inference/speculative', value: false };
  const l = lengthPart(s, path);
  if (!l) return { path, value: x };
  const v = getPointer(s, l.key);
  const obj = objectCopy(v);
  if (l.part === 'served') return { path: l.key, value: obj && obj.mean !== undefined && x !== undefined ? { ...obj, mean: x } : x };
  if (l.part === 'max') {
    if (!obj) return { path: l.key, value: x };
    if (x === undefined) delete obj.max;
    else obj.max = x;
    return { path: l.key, value: obj };
  }
  if (x === undefined) {
    if (obj && obj.min === undefined) return { path: l.key, value: obj.max };
    if (obj) delete obj.mean;
    return { path: l.key, value: obj ?? v };
  }
  if (obj) return { path: l.key, value: { ...obj, mean: x } };
  return { path: l.key, value: typeof v === 'number' ? { mean: x, max: v } : { mean: x } };
}
