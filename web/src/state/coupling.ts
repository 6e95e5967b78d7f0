// Fields that fix themselves: after an edit, the keys that depend on the edited one follow it
// unless the person set them. Pure functions of the scenario (test/ui/coupling.test.ts); the
// editor calls `couple` after every edit, with the set of paths typed in this session.
//
// The rules lean on the engine's own defaults (core/io/schema.cpp, parallel_schema and
// serving_schema): a key left out is derived by the engine, so "following" mostly means removing
// a key the person did not set.
//   - dp: "Default: num_devices / (tp pp cp)". Changing the devices, tp, pp or cp drops a dp the
//     person did not set, so dp is the rest of the devices.
//   - sequence_parallel: "Default: tp > 1" (which also satisfies parallel.moe_needs_sequence_parallel
//     and parallel.sequence_parallel_without_tp). Changing tp, the model or its MoE block drops one
//     the person did not set.
//   - serving.arrival: poisson needs requests_per_s, closed needs concurrency, offline neither;
//     switching drops the other arrival's key and starts the needed one if it is missing.
//   - a task's starting layout (the search's pick for it) becomes "auto" when the model, system or
//     GPU count changes, until the person sets a layout key.
//   - model or system: the layout is kept when it still divides the new model (tp divides heads
//     and KV heads, pp at most the layers, ep divides the experts and needs an MoE model);
//     otherwise the layout becomes "auto" (the engine's
//     search) and a note says so (core/parallel/plan.cpp's checks, in the same order).
//   - rl placement (docs/contract.md, rl): split needs rollout_devices + train_devices =
//     num_devices (rl.split_needs_devices, rl.devices_mismatch), colocated refuses them and async
//     (rl.devices_for_colocated, rl.async_needs_split). Switching to split starts half the GPUs
//     (whole nodes when there are several) on each side; to colocated drops both and async. A
//     change of the GPUs, or of one pool, makes the other pool the rest (coupleRl below).
//   - a length given as {"mean", "max"} (rl prompt_len and response_len, serving lengths): the
//     engine needs min <= mean <= max (serving.length_mean_out_of_range; a mean at max makes every
//     length max); an edit of one end onto or past the other moves the other, if the person did not
//     set it, at the ratio the two had (coupleLengths): both typed equal stay, as exact lengths.
//   - serving.num_requests follows a closed loop's concurrency at ten requests a user (InferenceX's
//     sweeps send num_prompts = 10 x conc, tests/validation/data/inferencemax_public.csv), at most
//     the engine's 1,000,000: a loop of more users than requests is a burst of the requests sent
//     at once, whatever the users (serving.clients_beyond_requests), coupleRequests.
//   - model: inference.precision and rl.rollout.precision follow the model's published checkpoint
//     (model.checkpoint_precision: DeepSeek-V3/R1 and Kimi K2 ship FP8 with block scales) while
//     they hold the previous model's own (coupleCheckpoint); a precision the person set stays.
import { isLayerPattern, patternLayers } from '../base/layer-pattern';
import { asObject, clone, getPointer } from './pointer';

export type Scenario = Record<string, unknown>;

/** What the coupling needs to know of the model and the system in effect (presets resolved). */
export interface Context {
  model?: Record<string, unknown> | null;
  /** The model in effect before the edit (a model change: its checkpoint precision). */
  modelBefore?: Record<string, unknown> | null;
  system?: Record<string, unknown> | null;
  /**
   * The layout came with a task's starting scenario (the search's pick for it): it follows, as
   * "auto", a change of model, system or GPU count until the person sets a layout key.
   */
  layoutFollows?: boolean;
}

export interface Coupled {
  scenario: Scenario;
  /** Paths whose keys were removed or set because they follow the edited one. */
  followed: string[];
  /** Plain-words notes of what changed on the person's behalf (shown once). */
  notes: string[];
}

/** The starting values of the key an arrival needs (the page's choice, shown as set values). */
export const ARRIVAL_START: Record<string, Record<string, number>> = {
  poisson: { requests_per_s: 4 },
  closed: { concurrency: 32 },
  offline: {},
};
const ARRIVAL_KEYS = ['requests_per_s', 'concurrency'];

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** dp as the engine derives it when absent: num_devices / (tp pp cp), when that divides. */
export function derivedDp(s: Scenario): number | undefined {
  const p = asObject(s.parallel);
  const n = num(s.num_devices);
  if (!p || n === undefined) return undefined;
  const rest = (num(p.tp) ?? 1) * (num(p.pp) ?? 1) * (num(p.cp) ?? 1);
  const dp = n / rest;
  return Number.isInteger(dp) && dp >= 1 ? dp : undefined;
}

/** sequence_parallel as the engine derives it when absent: tp > 1. */
export function derivedSequenceParallel(s: Scenario): boolean | undefined {
  const p = asObject(s.parallel);
  if (!p) return undefined;
  return (num(p.tp) ?? 1) > 1;
}

/** Why `layout` does not suit the model and system, in plain words; null when it does. */
export function layoutProblem(s: Scenario, ctx: Context): string | null {
  const p = asObject(s.parallel);
  if (!p) return null;
  const model = asObject(s.model) ?? ctx.model ?? undefined;
  const tp = num(p.tp) ?? 1;
  const pp = num(p.pp) ?? 1;
  const ep = num(p.ep) ?? 1;
  if (model) {
    const heads = num(model.heads);
    const kv = num(model.kv_heads) ?? heads;
    const layers = num(model.layers);
    if (heads !== undefined && heads % tp !== 0) return `tensor parallelism ${tp} does not divide the model's ${heads} attention heads`;
    if (kv !== undefined && kv % tp !== 0 && tp % kv !== 0) return `tensor parallelism ${tp} does not divide the model's ${kv} KV heads`;
    const ffn = num(model.ffn_hidden);
    if (ffn !== undefined && !asObject(model.moe) && ffn % tp !== 0) return `tensor parallelism ${tp} does not divide the model's FFN width ${ffn}`;
    if (layers !== undefined && pp > layers) return `${pp} pipeline stages are more than the model's ${layers} layers`;
    const moe = asObject(model.moe);
    const experts = num(moe?.experts);
    if (ep > 1 && !moe) return `expert parallelism ${ep} needs a mixture-of-experts model`;
    if (ep > 1 && experts !== undefined && experts % ep !== 0) return `expert parallelism ${ep} does not divide the model's ${experts} experts`;
  }
  return null;
}

/**
 * The scenario after `changed` was edited, with the keys that follow it updated. `userSet` holds
 * the paths the person typed (those are never changed); `ctx` the model and system in effect
 * after the edit (for a preset id, its preset).
 */
export function couple(before: Scenario, after: Scenario, changed: string, userSet: ReadonlySet<string>, ctx: Context = {}): Coupled {
  const s = clone(after);
  const followed: string[] = [];
  const notes: string[] = [];
  const p = asObject(s.parallel);
  const drop = (key: string): void => {
    if (p && p[key] !== undefined && !userSet.has(`/parallel/${key}`)) {
      delete p[key];
      followed.push(`/parallel/${key}`);
    }
  };
  if (['/num_devices', '/parallel/tp', '/parallel/pp', '/parallel/cp'].includes(changed)) drop('dp');
  if (['/parallel/tp', '/model', '/model/moe'].includes(changed) || changed.startsWith('/model/moe/')) drop('sequence_parallel');

  if (changed === '/inference/serving/arrival') {
    const serving = asObject(asObject(s.inference)?.serving);
    const arrival = serving?.arrival;
    if (serving && typeof arrival === 'string' && ARRIVAL_START[arrival]) {
      const keep = Object.keys(ARRIVAL_START[arrival]!);
      for (const key of ARRIVAL_KEYS) {
        if (!keep.includes(key) && serving[key] !== undefined) {
          delete serving[key];
          followed.push(`/inference/serving/${key}`);
        }
      }
      for (const [key, v] of Object.entries(ARRIVAL_START[arrival]!)) {
        if (serving[key] === undefined) {
          // A value this arrival had before the switch (parked by the caller in `before`) wins.
          const prev = asObject(asObject(before.inference)?.serving)?.[key];
          serving[key] = prev ?? v;
          followed.push(`/inference/serving/${key}`);
        }
      }
    }
  }

  // A layer pattern makes the layer count: a mixer (*, M) with the FFN (-, E) right after it is one
  // layer, a mixer or an FFN alone one (docs/contract.md, model.layer_pattern).
  const model = asObject(s.model);
  const pattern = model?.layer_pattern;
  if (changed === '/model/layer_pattern' && typeof pattern === 'string' && isLayerPattern(pattern)) {
    const layers = patternLayers(pattern).length;
    if (model!.layers !== layers) {
      model!.layers = layers;
      followed.push('/model/layers');
      notes.push(`Layers follow the pattern: ${layers}.`);
    }
  }
  coupleRequests(s, changed, userSet, followed);
  coupleRl(s, changed, followed);
  coupleLengths(s, before, changed, userSet, followed, notes);
  if (changed === '/model') coupleCheckpoint(s, before, ctx, userSet, followed, notes);

  const layoutTyped = [...userSet].some((k) => k === '/parallel' || k.startsWith('/parallel/'));
  if (ctx.layoutFollows && p && !layoutTyped && ['/model', '/system', '/system/device', '/num_devices'].includes(changed)) {
    s.parallel = 'auto';
    followed.push('/parallel');
    return { scenario: s, followed, notes };
  }
  if ((changed === '/model' || changed === '/system' || changed === '/system/device') && p) {
    // A model without experts has no expert layout to keep.
    const model = asObject(s.model) ?? ctx.model ?? undefined;
    if (model && !asObject(model.moe)) {
      for (const key of ['ep', 'etp']) {
        if (p[key] !== undefined) {
          delete p[key];
          followed.push(`/parallel/${key}`);
        }
      }
    }
    drop('dp');
    const problem = layoutProblem(s, ctx);
    if (problem) {
      s.parallel = 'auto';
      followed.push('/parallel');
      notes.push(`The layout was set to "auto" (the fastest layout that fits is searched): ${problem}.`);
    }
  }
  return { scenario: s, followed, notes };
}

/** Requests a closed loop simulates per user, and the engine's most (docs/contract.md). */
export const REQUESTS_PER_USER = 10;
const MAX_REQUESTS = 1_000_000;

/** A closed loop's num_requests follows its users (the rules above), unless the person set it. */
function coupleRequests(s: Scenario, changed: string, userSet: ReadonlySet<string>, followed: string[]): void {
  const serving = asObject(asObject(s.inference)?.serving);
  const users = num(serving?.concurrency);
  if (changed !== '/inference/serving/concurrency' || !serving || serving.arrival !== 'closed' || users === undefined) return;
  if (userSet.has('/inference/serving/num_requests')) return;
  serving.num_requests = Math.min(MAX_REQUESTS, Math.max(1, Math.round(users)) * REQUESTS_PER_USER);
  followed.push('/inference/serving/num_requests');
}

/** Whether a field shows a value the person did not set (absent: the engine derives it). */
export function isDerived(s: Scenario, path: string): boolean {
  const tokens = path.split('/').slice(1);
  let cur: unknown = s;
  for (const t of tokens) {
    const o = asObject(cur);
    if (!o || !(t in o)) return true;
    cur = o[t];
  }
  return false;
}

/** Half of n GPUs for the rollout pool: whole nodes of `perNode` when n spans several. */
export function halfPool(n: number, perNode = 8): number {
  if (n < 2) return 1;
  if (n >= 2 * perNode && n % perNode === 0) return Math.max(1, Math.floor(n / perNode / 2)) * perNode;
  return Math.floor(n / 2);
}

/**
 * A length given as {"mean", "max"} (RL prompts and responses, serving lengths): the engine needs
 * min <= mean <= max (serving.length_mean_out_of_range), a mean at max meaning every length is
 * max. When an edit of one end reaches or crosses the other
 * and the other was not set by the person, the other follows at the ratio the two had before (a
 * quarter where that ratio was not valid), so that lowering the longest response below the mean
 * moves the mean rather than refuse the scenario.
 */
function coupleLengths(s: Scenario, before: Scenario, changed: string, userSet: ReadonlySet<string>, followed: string[], notes: string[]): void {
  const m = /^(\/(?:rl|inference)\/(?:[a-z_]+\/)*[a-z_]*len)(?:\/(mean|max))?$/.exec(changed);
  if (!m) return;
  const at = m[1]!;
  const o = asObject(getPointer(s, at));
  const mean = num(o?.mean), max = num(o?.max);
  if (!o || mean === undefined || max === undefined || mean < max) return;
  const prev = asObject(getPointer(before, at));
  const pm = num(prev?.mean), px = num(prev?.max);
  // The end edited: named by the path, or (the whole object written, as the short form does) the
  // one that differs from before.
  const end = (m[2] as 'mean' | 'max' | undefined) ?? (max !== px && mean === pm ? 'max' : mean !== pm && max === px ? 'mean' : undefined);
  if (!end) return;
  const other = end === 'max' ? 'mean' : 'max';
  if (userSet.has(`${at}/${other}`)) return;
  const ratio = pm !== undefined && px !== undefined && pm > 0 && pm < px ? pm / px : 0.25;
  const min = num(o.min) ?? 1;
  if (end === 'max') {
    const next = Math.max(min + 1, Math.round(max * ratio));
    if (next >= max) return; // too short a limit for any mean: the engine says so
    o.mean = next;
  } else {
    o.max = Math.max(mean + 1, Math.ceil(mean / ratio));
  }
  followed.push(`${at}/${other}`);
  const what = at.split('/').pop()!.replace('_len', '');
  notes.push(`The ${what}s’ ${other === 'mean' ? 'mean' : 'longest'} followed to ${String(o[other])} tokens, keeping the ratio of mean to longest it had.`);
}

const SIXTEEN_BITS = ['bf16', 'fp16'];

/**
 * A model change: the served precision (inference.precision, rl.rollout.precision) follows the
 * model's published checkpoint (docs/contract.md, model.checkpoint_precision) while it holds the
 * previous model's own, that checkpoint's precision or 16 bits for a model without one, and the
 * person did not set it. fp8_block_scaled goes with it (the engine refuses it beside other
 * precisions). A precision stated away from the previous model's own (a quantised Llama) stays.
 */
function coupleCheckpoint(s: Scenario, before: Scenario, ctx: Context, userSet: ReadonlySet<string>, followed: string[], notes: string[]): void {
  const native = (m: Record<string, unknown> | null | undefined): string | undefined => (typeof m?.checkpoint_precision === 'string' ? m.checkpoint_precision : undefined);
  const model = asObject(s.model) ?? ctx.model ?? undefined;
  const prevModel = asObject(before.model) ?? ctx.modelBefore ?? undefined;
  const was = native(prevModel), now = native(model);
  if (was === now) return;
  const blocks = model?.checkpoint_block_scaled === true;
  const follow = (at: Record<string, unknown> | undefined, path: string, blockKey: string | null): void => {
    if (!at || typeof at.precision !== 'string' || userSet.has(`${path}/precision`)) return;
    const held = at.precision;
    if (!(held === was || (was === undefined && SIXTEEN_BITS.includes(held)))) return;
    const next = now ?? 'bf16';
    if (next === held) return;
    at.precision = next;
    followed.push(`${path}/precision`);
    if (blockKey) {
      if (now === 'fp8' && blocks) at[blockKey] = true;
      else delete at[blockKey];
    }
    const name = typeof model?.name === 'string' ? model.name : 'the model';
    notes.push(now ? `The precision followed to ${next}: ${name} is published with ${next}${now === 'fp8' && blocks ? ' block-scaled' : ''} weights.` : `The precision followed to ${next}: ${name} is published in 16 bits.`);
  };
  follow(asObject(s.inference) ?? undefined, '/inference', 'fp8_block_scaled');
  follow(asObject(asObject(s.rl)?.rollout) ?? undefined, '/rl/rollout', null);
}

/** The rl placement's keys following placement, num_devices and the pools (see the header). */
function coupleRl(s: Scenario, changed: string, followed: string[]): void {
  const rl = asObject(s.rl);
  if (!rl) return;
  const n = num(s.num_devices);
  const set = (key: 'rollout_devices' | 'train_devices', v: number): void => {
    if (rl[key] !== v) {
      rl[key] = v;
      followed.push(`/rl/${key}`);
    }
  };
  if (rl.placement !== 'split') {
    for (const key of ['rollout_devices', 'train_devices', 'async']) {
      if (rl[key] !== undefined && changed === '/rl/placement') {
        delete rl[key];
        followed.push(`/rl/${key}`);
      }
    }
    return;
  }
  if (n === undefined || n < 2) return;
  const r = num(rl.rollout_devices);
  const t = num(rl.train_devices);
  if (changed === '/rl/train_devices' && t !== undefined && t >= 1 && t < n) set('rollout_devices', n - t);
  else if (changed === '/rl/rollout_devices' && r !== undefined && r >= 1 && r < n) set('train_devices', n - r);
  else if (changed === '/rl/placement' || changed === '/num_devices' || r === undefined || t === undefined) {
    if (r !== undefined && r >= 1 && r < n && changed === '/num_devices') set('train_devices', n - r);
    else if (r === undefined || t === undefined || r + t !== n) {
      const half = halfPool(n);
      set('rollout_devices', half);
      set('train_devices', n - half);
    }
  }
}
