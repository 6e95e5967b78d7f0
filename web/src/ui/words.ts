// Plain words for the engine's errors and warnings: what is wrong, in a practitioner's words, and
// the one obvious fix where there is one (a button). The engine's code, path and message stay
// available in a details line. Pure (test/ui/words.test.ts).
import type { EngineError } from '../engine/types';
import { derivedDp } from '../state/coupling';
import { asObject } from '../state/pointer';
import { quickFields, TASKS } from '../state/tasks';
import { editorLabel, keyLabel } from './editor';
import { groupDigits, rangeWords } from '../base/format';

export interface Fix {
  /** The field the fix sets (a JSON Pointer; value undefined removes the key). */
  path: string;
  value: unknown;
  label: string;
  /** A second edit made after the first (a split job's engines grown: the GPUs, then the rollout pool). */
  then?: { path: string; value: unknown };
}

export interface Plain {
  words: string;
  fix?: Fix;
  /** A second way out, where the error has one (shown beside the fix). */
  alt?: Fix;
}

const AUTO: Fix = { path: '/parallel', value: true, label: 'Pick a layout for me (auto)' };

/** Plain words of the error codes a newcomer meets first; others keep the engine's message. */
const WORDS: Record<string, string> = {
  'parallel.product_mismatch': 'the layout does not use exactly the GPUs of the job (tensor × pipeline × data × context parallelism must equal the GPU count)',
  'parallel.sequence_parallel_without_tp': 'sequence parallelism needs tensor parallelism above 1',
  'parallel.moe_needs_sequence_parallel': 'a mixture-of-experts model with tensor parallelism needs sequence parallelism',
  'parallel.tp_not_divisor_of_heads': 'tensor parallelism must divide the attention heads',
  'parallel.tp_not_divisor_of_kv_heads': 'tensor parallelism and the KV heads must divide one another',
  'parallel.pp_exceeds_layers': 'more pipeline stages than the model has layers',
  'parallel.ep_without_moe': 'expert parallelism needs a mixture-of-experts model',
  'parallel.ep_not_divisor_of_experts': 'expert parallelism must divide the number of experts',
  'parallel.cp_in_inference': 'context parallelism is for training only; inference here runs without it',
  'parallel.auto_no_layout': 'no layout of these GPUs fits the model in memory: add GPUs, or pick GPUs with more memory',
  'rl.rollout_does_not_fit':
    'the rollout engines cannot hold the model’s weights and one response’s KV cache at any tensor parallelism these GPUs allow: add GPUs, store the weights in fewer bits (the rollout’s precision), or pick GPUs with more memory',
  'rl.train_no_layout':
    'no layout of the trainer holds the model’s training state (weights, gradients, optimizer) and one mini-batch in these GPUs’ memory, even fully sharded with the optimizer in host memory: add GPUs, or pick GPUs with more memory',
  'search.rank_without_price': 'ranking by cost needs a price per GPU-hour, and these GPUs have none on file: give a rental price (the full editor’s “Rental price (USD per device-hour)”), or rank by time',
};

/**
 * An engine error in a practitioner's words where there are some; else the engine's message with
 * the keys it names said as the page's fields say them (`label`: the label a key's field shows,
 * fieldWords), and an unknown preset's list of every id cut to the nearest few (presetWords).
 */
export function errorWords(e: EngineError, label?: (path: string) => string | undefined): string {
  return WORDS[e.code] ?? presetWords(e) ?? keyedWords(e, label) ?? e.message;
}

/**
 * An error about named keys in the page's words: a required key left out, a length whose mean is
 * not between its shortest and longest (lengthWords), a key the engine does not know
 * (unknownKeyWords), else the message with its keys as the fields say them (fieldWords).
 */
function keyedWords(e: EngineError, label?: (path: string) => string | undefined): string | undefined {
  return missingWords(e, label) ?? lengthWords(e, label) ?? unknownKeyWords(e) ?? fieldWords(e, label);
}

/**
 * The name a range error gives its field: the page's label, else (a field the full editor draws
 * from the schema, named by its key: "Number of requests") the label the editor gives that key, so that
 * the banner, the status and the field say one name (probe 61: "num requests" beside "Num
 * requests"); none without a label function (the engine's key, spaced).
 */
export function rangeLabel(path: string, label?: (path: string) => string | undefined): string | undefined {
  if (!label) return undefined;
  const key = path.slice(path.lastIndexOf('/') + 1);
  return label(path) ?? (/^[A-Za-z][A-Za-z0-9_]*$/.test(key) ? keyLabel(key) : undefined);
}

/**
 * An error as the full editor's field beside it says it: the engine's message, whose numbers and
 * remedy ("tp=3 does not divide heads=64; ... (tp 1, 2, 4, 8 would)") say more there than a code's
 * words, with the keys it names in the page's words (fieldWords); a message that counts layouts by
 * their codes (a refusal of "auto": "parallel.pp_exceeds_layers x4165") gives way to `plain`, the
 * words the status and the fix box say.
 */
export function fieldMessage(e: EngineError, plain: string, label?: (path: string) => string | undefined): string {
  if (/\b[a-z]+\.[a-z_]+ x\d/.test(e.message) || presetWords(e) !== undefined) return plain;
  return rangeWords(e, rangeLabel(e.path, label)) ?? keyedWords(e, label) ?? e.message;
}

/** Keys short enough to be words of their own, named in messages bare ("dp*micro_batch"). */
const SHORT_KEYS = new Set(['tp', 'pp', 'dp', 'cp', 'ep', 'etp']);

/**
 * The engine's message with every scenario key it names ('num_devices', global_batch=100,
 * rollout_devices + train_devices, dp*micro_batch) replaced by the label of that key's field on
 * the page ("GPUs", "Global batch", "Data (dp)"), its products written ×; undefined where it names
 * no key the page shows a field for. A key is looked for beside the error's own key, at the top,
 * then in the layout, training, inference and RL blocks.
 */
export function fieldWords(e: { path: string; message: string }, label?: (path: string) => string | undefined): string | undefined {
  if (!label) return undefined;
  const parent = e.path.slice(0, Math.max(0, e.path.lastIndexOf('/')));
  const named = new Map<string, string | undefined>();
  const labelOf = (key: string): string | undefined => {
    if (!named.has(key)) {
      const rel = key.replace(/\./g, '/');
      const at = [`${parent}/${rel}`, `/${rel}`, `/parallel/${rel}`, `/training/${rel}`, `/inference/${rel}`, `/rl/${rel}`].map((p) => label(p)).find((x) => x);
      named.set(key, at);
    }
    return named.get(key);
  };
  let any = false;
  const out = e.message.replace(/'([a-z][A-Za-z0-9_.]*)'|\b([a-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z]{2,3})\b/g, (whole, quoted: string | undefined, bare: string | undefined) => {
    const key = quoted ?? bare!;
    if (!quoted && !key.includes('_') && !key.includes('.') && !SHORT_KEYS.has(key)) return whole;
    const l = labelOf(key);
    if (!l) return whole;
    any = true;
    return l;
  });
  if (!any) return undefined;
  // "Global batch=100 ... Data (dp)*Micro-batch=8": spaced, and a product said with ×.
  return out.replace(/\s*\*\s*/g, ' × ').replace(/([^\s<>!=])=(?=[^\s=])/g, '$1 = ');
}

/**
 * The label a key's field has on the page, for words said before the fields are drawn (a link's
 * banner): a task form's (the scenario's own split RL fields among them), else the full editor's.
 */
export function formLabel(s: unknown): (path: string) => string | undefined {
  const quick = new Map(TASKS.flatMap((t) => quickFields(t, s)).map((f) => [f.path, f.label]));
  return (path) => quick.get(path) ?? editorLabel(path);
}

/** What a length's key measures, for words where the form has no field of its mean ("the mean prompt length"). */
const LENGTH_NOUNS: Record<string, string> = { response_len: 'response', prompt_len: 'prompt', input_len: 'prompt', output_len: 'output' };

/**
 * A length given as {"mean", "max"} (an RL job's responses, a served stream's prompts) whose mean
 * is not between its shortest and longest (serving.length_mean_out_of_range, at the mean): the
 * two values by the form's labels ("Mean response (9,000 tokens) must be at most Longest
 * response (8,192 tokens)"), or in words where the form has no field of them; never the JSON of
 * the full editor's field (probe 61: 'Response tokens (longest, or {"mean", "max"}) needs min <
 * mean < max').
 */
export function lengthWords(e: { code: string; path: string; message: string }, label?: (path: string) => string | undefined): string | undefined {
  const m = /^'([a-z_]+)' needs min <= mean <= max \(got min (\d+), mean ([0-9.e+-]+), max (\d+)\)$/.exec(e.message);
  if (e.code !== 'serving.length_mean_out_of_range' || !m) return undefined;
  const [lo, mean, hi] = [m[2], m[3], m[4]].map(Number) as [number, number, number];
  const noun = LENGTH_NOUNS[m[1]!] ?? m[1]!.replace(/_len$/, '').replace(/_/g, ' ');
  const parent = e.path.replace(/\/mean$/, '');
  const said = (key: string, fallback: string, v: number): string => `${label?.(`${parent}/${key}`) ?? fallback} (${groupDigits(v)} tokens)`;
  const longest = said('max', `the longest ${noun}`, hi);
  const shortest = said('min', `the shortest ${noun}`, lo);
  if (lo > hi) return `${shortest} must be at most ${longest}`;
  const average = said('mean', `the mean ${noun} length`, mean);
  return mean > hi ? `${average} must be at most ${longest}` : `${average} must be at least ${shortest}`;
}

/**
 * A key the engine does not know (scenario.unknown_key: a link's, a file's): the key, where, and
 * the keys that may be there, every one as the scenario writes it (probe 61: the engine's list
 * said one of them by its field's label, "GPUs", among the others' keys).
 */
export function unknownKeyWords(e: { code: string; path: string; message: string }): string | undefined {
  const m = /^unknown key '(.*?)'(?:; did you mean '(.*)'\?)? \(known keys here: (.*)\)$/s.exec(e.message);
  if (e.code !== 'scenario.unknown_key' || !m) return undefined;
  const owner = e.path.split('/').slice(1, -1).filter((k) => !/^\d+$/.test(k)).pop()?.replace(/~1/g, '/').replace(/~0/g, '~');
  const near = m[2] ? `; did you mean “${m[2]}”?` : '';
  return `${owner === undefined ? 'the scenario' : `“${owner}”`} has a key Optimus does not know, “${m[1]}”${near} (the keys it may have: ${m[3]})`;
}

/** A required key left out (a field cleared): the field, and that it needs a value. */
function missingWords(e: EngineError, label?: (path: string) => string | undefined): string | undefined {
  if (e.code !== 'scenario.missing_key') return undefined;
  const l = label?.(e.path);
  const typo = /; '(.*)' is written here: did you mean/.exec(e.message);
  return l ? `${l} is empty: it needs a value${typo ? ` (“${typo[1]}” is written beside it: a typo?)` : ''}` : undefined;
}

/**
 * An unknown preset (preset.unknown_model, ..._system: a link's id that no preset has): the
 * engine's message lists every id it knows (about 60 models), which fills a phone's screen; the
 * words keep the nearest few (the engine's "did you mean", else the ids sharing the longest
 * beginning with the one given) and point to the field's list, which holds them all by name.
 */
export function presetWords(e: { code: string; message: string }): string | undefined {
  const m = /^unknown (\S+) preset '([^']*)'(?:; did you mean (.*?)\?)?; known: (.*)$/s.exec(e.message);
  if (!e.code.startsWith('preset.unknown_') || !m) return undefined;
  const [, kind, id, near, known] = m as unknown as [string, string, string, string | undefined, string];
  const all = known.split(/,\s*/).filter(Boolean);
  let nearest = near ? [...near.matchAll(/'([^']+)'/g)].map((x) => x[1]!) : [];
  if (nearest.length === 0) {
    const shared = (a: string): number => {
      let i = 0;
      while (i < a.length && i < id.length && a[i]!.toLowerCase() === id[i]!.toLowerCase()) i++;
      return i;
    };
    const best = Math.max(0, ...all.map(shared));
    nearest = best >= 3 ? all.filter((a) => shared(a) === best).slice(0, 3) : [];
  }
  const list = KIND_LISTS[kind] ?? `the ${kind} list`;
  const or = nearest.length > 1 ? `${nearest.slice(0, -1).join(', ')} or ${nearest[nearest.length - 1]}` : nearest[0];
  return `there is no ${kind} called “${id}”${or ? `: did you mean ${or}?` : '.'} Every ${kind} the engine knows (${all.length}) is in ${list}`;
}

/** Where the page lists every preset of a kind (the pickers of the task form and the full editor). */
const KIND_LISTS: Record<string, string> = {
  model: 'the Model list of the form',
  system: 'the GPU system list of the form',
  device: 'the Device list of “Every setting”',
  software: 'the Software stack list of “Every setting”',
};

export function plainError(e: EngineError, s: Record<string, unknown>, userSet: ReadonlySet<string>, label?: (path: string) => string | undefined): Plain {
  const words = rangeWords(e, rangeLabel(e.path, label)) ?? errorWords(e, label);
  const p = s.parallel !== null && typeof s.parallel === 'object' ? (s.parallel as Record<string, unknown>) : undefined;
  if (e.code === 'parallel.product_mismatch' && p?.dp !== undefined) {
    const rest = derivedDp({ ...s, parallel: { ...p, dp: undefined } });
    if (rest !== undefined) return { words, fix: { path: '/parallel/dp', value: undefined, label: `Let data parallelism be the rest of the GPUs (${rest})` } };
  }
  if ((e.code === 'parallel.sequence_parallel_without_tp' || e.code === 'parallel.moe_needs_sequence_parallel') && p?.sequence_parallel !== undefined)
    return { words, fix: { path: '/parallel/sequence_parallel', value: undefined, label: 'Let sequence parallelism follow tensor parallelism' } };
  if (e.code === 'parallel.cp_in_inference' && p?.cp !== undefined && !userSet.has('/parallel/cp'))
    return { words, fix: { path: '/parallel/cp', value: undefined, label: 'Remove context parallelism' } };
  if (e.code.startsWith('parallel.') && e.code !== 'parallel.auto_no_layout' && p) return { words, fix: AUTO };
  // Served weights of 16 or 32 bits that no layout of these GPUs holds (DeepSeek-R1 in BF16 is
  // 1.34 TB, over 8 H200's 1.13 TB): the checkpoint's own 8 bits halve them. Training keeps its
  // precision, and weights already in 8 bits or fewer have nothing to halve: twice the GPUs, as
  // for an RL trainer below (the next estimate says whether that is enough).
  const inf = asObject(s.inference);
  const n = s.num_devices;
  // Every layout failed to divide the job (the error's `rejected` counts none too large for the
  // devices): more GPUs cannot help, so no button, and words that say what can.
  if (e.code === 'parallel.auto_no_layout' && e.rejected !== undefined && !tooLarge(e.rejected))
    return { words: `no layout divides this job over these GPUs (tensor, pipeline, context and data parallelism must divide the heads, layers, sequence and batch): use fewer GPUs${s.training !== undefined ? ', or a larger global batch' : ''}` };
  if (e.code === 'parallel.auto_no_layout' && s.rl === undefined) {
    const more = isCount(n) ? moreDevices(n, e.fewest_devices) : undefined;
    if (inf && s.training === undefined && ['bf16', 'fp16', 'fp32', undefined].includes(inf.precision as string | undefined)) {
      const fp8: Fix = { path: '/inference/precision', value: 'fp8', label: 'Serve the weights in 8 bits (FP8)' };
      return { words: `${words}, or store the weights in fewer bits`, fix: fp8, ...(more ? { alt: more } : {}) };
    }
    const offload = hostOptimizerLayout(e);
    if (more && offload)
      return { words: `${words}, or keep the optimizer state in host memory (the same GPUs, slower steps)`, fix: more, alt: offload };
    if (more) return { words, fix: more };
  }
  // A key of the other kind of request stream (concurrency on a Poisson or offline stream, a rate
  // on a closed loop): the stream becomes the key's own kind (state/coupling.ts drops the other
  // kind's key).
  if (e.code === 'serving.key_for_other_arrival') {
    const key = e.path.split('/').pop();
    if (key === 'concurrency') return { words, fix: { path: '/inference/serving/arrival', value: 'closed', label: 'Serve them as concurrent users (a closed loop)' } };
    if (key === 'requests_per_s') return { words, fix: { path: '/inference/serving/arrival', value: 'poisson', label: 'Let the requests arrive at that rate (Poisson)' } };
  }
  // Two pools that do not add up to the GPUs (a link's, or the GPUs changed): the training pool
  // takes the rest of them, as the short form's "the rest train" says.
  const rl = asObject(s.rl);
  const r = rl?.rollout_devices;
  if (e.code === 'rl.devices_mismatch' && typeof n === 'number' && isCount(r) && r < n)
    return { words, fix: { path: '/rl/train_devices', value: n - r, label: `Let the training pool be the rest of the GPUs (${n - r})` } };
  // A trainer that no layout fits: the job's GPUs in all at the fewest the engine found a trainer
  // layout for (fewest_devices, core/rl/rl.cpp add_rl_fewest_devices), else twice the trainer's
  // (split: the training pool grown, which the GPU count's coupling gives it as the rest; colocated:
  // every GPU), and the next estimate says whether that is enough.
  const t = rl?.train_devices;
  const f = e.fewest_devices;
  const pools = rl?.placement === 'split' && isCount(t) && isCount(r) && r + t === n;
  if (e.code === 'rl.train_no_layout' && isCount(n)) {
    if (pools) return { words, fix: grownPool('trainer', n, t, r, f) };
    if (rl?.placement !== 'split') return { words, fix: moreDevices(n, f) };
  }
  // Engines that hold no response: the fewest GPUs the engine found the job validating at
  // (add_rl_fewest_devices; none where the rollout's tp is stated). Colocated, every GPU; split,
  // the rollout pool grows, and the trainer's with it where the engine's pools say so.
  if (e.code === 'rl.rollout_does_not_fit' && isCount(n) && isCount(f) && f > n) {
    if (rl?.placement !== 'split') return { words, fix: moreDevices(n, f) };
    if (pools) return { words, fix: grownPool('rollout', n, r, t, f, e.fewest_pools) };
  }
  // A stated engine tp (or dp) that holds no response: more GPUs would not widen that engine, and
  // the engine names no count; letting it choose its tp (the smallest that holds a response, then
  // the fastest) is the way out, and the next estimate names a count if the pool is still too small.
  const rollout = asObject(rl?.rollout);
  if (e.code === 'rl.rollout_does_not_fit' && rollout && (rollout.tp !== undefined || rollout.dp !== undefined))
    return {
      words: 'the rollout engines cannot hold the model’s weights and one response’s KV cache at the tensor parallelism stated: let them choose theirs, store the weights in fewer bits (the rollout’s precision), or pick GPUs with more memory',
      fix: { path: '/rl/rollout', value: { ...rollout, tp: undefined, dp: undefined }, label: 'Let the rollout engines choose their tensor parallelism' },
    };
  return { words };
}

/**
 * The layout a training refusal names as fitting with the optimizer state in host memory: the
 * engine's fix for parallel.auto_no_layout (core/search/auto_layout.cpp; docs/contract.md, Errors:
 * tp, pp, dp, zero_stage, micro_batch, recompute, the other parallel keys where not their
 * defaults, and optimizer_offload true), offered as an edit of /parallel; undefined without one,
 * or with one whose tp, pp and dp are not whole counts.
 */
export function hostOptimizerLayout(e: EngineError): Fix | undefined {
  const layout = e.fix;
  if (!layout || e.path !== '/parallel' || layout.optimizer_offload !== true) return undefined;
  const { tp, pp, dp } = layout;
  if (![tp, pp, dp].every(isCount)) return undefined;
  return { path: '/parallel', value: { ...layout }, label: `Keep the optimizer in host memory (tp ${tp}, pp ${pp}, dp ${dp})` };
}

/**
 * Whether some layout of a refused `auto` divided the job and was then too large for the devices:
 * the error's `rejected` holds memory.does_not_fit or serving.kv_insufficient (the contract's rule,
 * docs/contract.md Errors; the engine words its remedy by the same codes).
 */
function tooLarge(rejected: Record<string, number>): boolean {
  return (rejected['memory.does_not_fit'] ?? 0) > 0 || (rejected['serving.kv_insufficient'] ?? 0) > 0;
}

/** A GPU or pool count a fix can build on: a whole number, at least one. */
function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 1;
}

/**
 * The GPU count that follows a model or system the job's GPUs cannot hold (app.ts): the fewest the
 * engine found the job running on (`fewest_devices`, past the count given), where the person's last
 * edit picked the model or the system and they never set the GPUs themselves (a task's starting
 * count), so that picking DeepSeek-R1 in a form that starts on one GPU shows its numbers and not a
 * refusal. A split RL job's pools are two counts (its fix grows them, words above): none.
 */
export function followingGpus(e: EngineError, s: Record<string, unknown>, lastEdit: string | undefined, userSet: ReadonlySet<string>): number | undefined {
  if ((lastEdit !== '/model' && lastEdit !== '/system') || userSet.has('/num_devices')) return undefined;
  if (!['parallel.auto_no_layout', 'rl.rollout_does_not_fit', 'rl.train_no_layout'].includes(e.code)) return undefined;
  const n = s.num_devices;
  const f = e.fewest_devices;
  if (!isCount(n) || !isCount(f) || f <= n || asObject(s.rl)?.placement === 'split') return undefined;
  return f;
}

function doubled(n: number): Fix {
  return { path: '/num_devices', value: 2 * n, label: `Double the GPUs (${2 * n})` };
}

/**
 * A split RL job's refusing pool (`own` of the job's `n` GPUs) grown, the other pool (`other`) as
 * stated: to the engine's count `f` (the job's GPUs in all, `fewest_devices`) where it names one past
 * `n`, a trainer's said as twice its pool where it is that; without one, a trainer's pool doubled
 * (the next estimate says whether that is enough). The GPU count's coupling gives what it adds to
 * the training pool (the rest), so a rollout pool takes it back in a second edit. A rollout pool
 * takes the engine's `pools` where they add up to `f`: its training pool grown too where no trainer
 * layout of the stated pool fits beside the grown engines (the same two edits).
 */
function grownPool(pool: 'trainer' | 'rollout', n: number, own: number, other: number, f: number | undefined, pools?: EngineError['fewest_pools']): Fix | undefined {
  const counted = isCount(f) && f > n;
  if (pool === 'rollout') {
    if (!counted) return undefined;
    const both = pools && isCount(pools.rollout_devices) && isCount(pools.train_devices) && pools.rollout_devices + pools.train_devices === f ? pools : undefined;
    const rollout = both ? both.rollout_devices : f - other;
    const trainer = both && both.train_devices !== other ? ` and the trainer ${both.train_devices}` : '';
    return { path: '/num_devices', value: f, then: { path: '/rl/rollout_devices', value: rollout }, label: `Give the rollout ${rollout} GPUs${trainer} (${f} in all)` };
  }
  if (counted && f !== n + own) return { path: '/num_devices', value: f, label: `Give the trainer ${f - other} GPUs (${f} in all)` };
  return { path: '/num_devices', value: n + own, label: `Give the trainer twice the GPUs (${2 * own}, ${n + own} in all)` };
}

/**
 * More GPUs for a job that no layout of its `n` runs: the fewest the engine found a layout for
 * (`fewest_devices`, up to 32 times n: core/search/search.h fewest_count), said as such unless it
 * is twice n; without one (the engine did not find or did not look), twice the GPUs, and the next
 * estimate says whether that is enough.
 */
function moreDevices(n: number, fewest: number | undefined): Fix {
  if (!isCount(fewest) || fewest <= n || fewest === 2 * n) return doubled(n);
  return { path: '/num_devices', value: fewest, label: `Use ${fewest} GPUs (the fewest that run it)` };
}

/**
 * Why the search set layouts aside, in words said after a count and its noun ("41,810 layouts
 * that do not fit in GPU memory, 4 where the layers do not split evenly over the stages"):
 * rejectedWords. A code without words here is said by its last part ("for offload in inference").
 */
const REASONS: Record<string, string> = {
  'memory.does_not_fit': 'that do not fit in GPU memory',
  'parallel.tp_not_divisor_of_heads': 'where tp does not divide the heads',
  'parallel.cp_in_inference': 'with context parallelism at inference',
  'parallel.layers_not_divisible': 'where the layers do not split evenly over the stages',
  // The layout checks a search meets most (core/parallel/plan.cpp).
  'parallel.interleave_microbatches': 'interleaved with a micro-batch count that is not a multiple of the pipeline stages',
  'parallel.interleave_without_pp': 'interleaved without a pipeline',
  'parallel.pp_exceeds_layers': 'with more pipeline stages than layers',
  'parallel.product_mismatch': 'that do not use exactly the GPUs',
  'parallel.tp_not_divisor_of_kv_heads': 'where tp and the KV heads do not divide one another',
  'parallel.tp_not_divisor_of_ffn_hidden': 'where tp does not divide the FFN width',
  'parallel.tp_not_divisor_of_shared_experts': 'where tp does not divide the shared experts’ width',
  'parallel.tp_not_divisor_of_seq_len': 'where tp does not divide the sequence (sequence parallelism)',
  'parallel.cp_not_divisor_of_seq_len': 'where 2 × cp does not divide the sequence',
  'parallel.cp_chunk_odd': 'where the sequence does not split into 2 × cp equal chunks',
  'parallel.ep_not_divisor_of_experts': 'where ep does not divide the experts',
  'parallel.ep_not_divisor_of_tp': 'whose experts split over neither the tp ranks nor the replicas',
  'parallel.etp_not_divisor_of_expert_ffn_hidden': 'where etp does not divide the experts’ FFN width',
  'parallel.expert_layout_mismatch': 'where ep × etp does not divide a stage’s ranks',
  'parallel.ep_etp_not_divisor_of_dp': 'where ep × etp does not divide dp',
  'parallel.zero_shard_not_divisor': 'where the ZeRO shard group does not divide dp',
  'training.batch_not_divisible': 'where dp × micro-batch does not divide the global batch',
  'serving.kv_insufficient': 'that leave too little memory for the KV cache',
  'search.cost_above_budget': 'whose whole run costs more than the budget',
  // The RL placement search's rejections (a candidate's own error code), said of placements.
  'rl.rollout_layout_invalid': 'whose rollout layout does not divide the model',
  'rl.rollout_does_not_fit': 'whose rollout engines hold no response',
  'rl.rollout_layout_mismatch': 'whose rollout engines do not fill their pool',
  'rl.train_no_layout': 'where no trainer layout fits',
  'rl.train_layout_mismatch': 'whose trainer layouts do not fill their pool',
  'rl.slower_than_listed': 'whose rollout alone took longer than the steps listed (stopped there)',
};
export function reasonWords(code: string): string {
  return REASONS[code] ?? `for ${(code.split('.').pop() ?? code).replace(/_/g, ' ')}`;
}

/**
 * A search's rejections after their counts, the first with its noun so that none reads as a count
 * of something else (probe 61: "4 layers do not split over the stages" meant four layouts):
 * "41,810 layouts that do not fit in GPU memory, 4 where the layers do not split evenly over the
 * stages"; a count of one said in the singular ("1 layout that does not fit").
 */
export function rejectedWords(rejected: Record<string, number> | undefined, noun: 'layout' | 'deployment' | 'placement'): string {
  return Object.entries(rejected ?? {})
    .map(([code, n], i) => {
      let why = reasonWords(code);
      if (n === 1) why = why.replace(/^that do not /, 'that does not ').replace(/^that leave /, 'that leaves ');
      return `${groupDigits(n)}${i === 0 ? ` ${noun}${n === 1 ? '' : 's'}` : ''} ${why}`;
    })
    .join(', ');
}

/** Plain words of warnings whose engine text names keys: the code's words, else the message. */
export const WARNING_WORDS: Record<string, string> = {
  'run.no_price': 'No price set for this system: enter one (price per GPU-hour) to see costs.',
  'serving.overloaded':
    'More requests arrive than this deployment can serve: the queue keeps growing through the run, so the latencies below depend on how many requests are simulated and describe no steady state. Lower the request rate or add GPUs; the requests per second completed is this deployment’s capacity.',
  'serving.clients_beyond_requests':
    'More users than requests: the users beyond the requests never send one, so the numbers below are of the requests sent all at once, not of a steady load of this many users. Simulate more requests (benchmarks send about ten per user).',
  'serving.preemption_heavy':
    'The KV cache holds fewer requests at their full length than this engine lets in: requests are evicted and their context recomputed again and again, which real engines avoid by admitting fewer. Read the throughput as a lower bound; a smaller batch limit, reserving each request’s whole cache when it is admitted, or more memory for the cache avoids it.',
  'speculative.mtp_not_native':
    'This model ships no multi-token-prediction head: the MTP draft is costed as if it had one, accepted as often as DeepSeek-V3’s own (85% per token unless you set the acceptance rate). Set the rate of the draft head you would run.',
  'speculative.decay_assumed':
    'The model’s one multi-token-prediction module drafts more than one token here, so the engine feeds it its own guesses, which it was not trained on: each further drafted token is assumed accepted less often (85% as often as the one before, fitted on a published measurement of DeepSeek-V3’s module). The tokens gained a step, and so the time per token, rest on that. Set the acceptance your engine reports by position.',
  'rl.train_optimizer_offload_assumed':
    'The trainer fits on these GPUs only with its optimizer state in host memory, updated by the CPU (how slime’s and OpenRLHF’s scripts train models this large on few GPUs). That is assumed here, and the copies and the CPU’s update are counted in the training time; more GPUs for training would keep the state on the devices.',
  'rl.train_layout_assumed':
    'No expert parallelism is set for the trainer: every GPU of the trainer holds and computes every expert, as verl’s FSDP trainer runs a mixture-of-experts model. Megatron-based trainers split the experts over GPUs: set the trainer’s expert parallelism, or let the search pick the layout (auto).',
  'training.host_bound':
    'The GPUs spend more than a quarter of each step waiting for the training framework to hand them work (a mixture-of-experts layer launches each expert’s matrix multiply from the CPU once it knows how many tokens the expert got). Faster GPUs do not shorten that part; spreading the experts over more GPUs, larger micro-batches, or a stack that replays whole layers from CUDA graphs would.',
  'training.fp4_tp_overlap_off':
    'At 4 bits this training stack stops overlapping the tensor-parallel traffic with the matrix multiplies (it does at 8 bits), so that traffic adds to each step: a smaller tensor parallelism shrinks it.',
  'training.beyond_context':
    'The training sequences are longer than the model’s context: those positions are costed like any others, but training past the context a model was built for is a context extension (its rotary positions scaled), a stage of its own.',
  'inference.beyond_context':
    'Prompt plus output is longer than the model’s context: those positions are costed like any others, but a serving engine set up for this model would refuse such requests.',
};

/**
 * A warning in plain words: WARNING_WORDS where the code has them, else words built from the
 * message where it tells form users to write JSON or names keys the form says otherwise (an RL
 * length given as its longest only: the form's "Mean response" / "Mean prompt"), else the message.
 */
export function warningWords(w: { code: string; message: string }): string {
  return WARNING_WORDS[w.code] ?? lengthWarningWords(w) ?? w.message;
}

/** rl.response_len_assumed and rl.prompt_len_assumed (core/rl/rl.cpp read_length_limits) in the RL form's words. */
function lengthWarningWords(w: { code: string; message: string }): string | undefined {
  const n = (x: string): string => groupDigits(Number(x));
  if (w.code === 'rl.response_len_assumed') {
    const m =
      /^response_len (\d+) is read as the longest response .*?; the responses' mean is assumed at (\d+) tokens for an? (.+?) \((.+)\)(, as rl\.response_style states|, read from the model's name \(rl\.response_style states it\))\. Give /s.exec(
        w.message,
      );
    if (!m) return undefined;
    const [, max, mean, kind, why, style] = m as unknown as [string, string, string, string, string, string];
    const read = style.startsWith(', as') ? 'as “Response style” in “Every setting” states' : 'read from the model’s name (“Response style” in “Every setting” states it)';
    return `Only the longest response is given (${n(max)} tokens): the responses’ mean is assumed at ${n(mean)} tokens, as for a ${kind} (${why.replace(/'/g, '’')}), ${read}. Type the mean in “Mean response” when you know it: the rollout, the forward passes and the update scale with the tokens generated.`;
  }
  if (w.code === 'rl.prompt_len_assumed') {
    const m = /^prompt_len (\d+) is read as the longest prompt \(max_prompt_length\); the prompts' mean is assumed at (\d+) tokens \((.+)\)\. Give /s.exec(w.message);
    if (!m) return undefined;
    const [, max, mean, why] = m as unknown as [string, string, string, string];
    return `Only the longest prompt is given (${n(max)} tokens): the prompts’ mean is assumed at ${n(mean)} tokens (${why.replace(/'/g, '’')}). Type the mean in “Mean prompt” when you know your dataset’s.`;
  }
  return undefined;
}
