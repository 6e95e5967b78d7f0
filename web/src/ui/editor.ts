// The scenario editor: preset pickers plus editable fields, each an <input>/<select> with
// data-path = its JSON Pointer into the scenario and a <label> (DOM contract). Editing a field of
// a preset model or system turns it into an inline copy of that preset (fetched with
// engine.preset) with the edit applied. Errors from the engine are shown next to the field whose
// path is the error's path or its longest prefix; others go to the general area.
//
// What a field holds comes from the engine's scenario schema (engine.schema(), core/io/schema.h):
// its input kind (integer, number, one of a list, switch, text), the values of a list, whether it
// may be left empty (not required), the default shown when the key is absent (also the defaults
// that follow the norm) and its tooltip (the description, with the unit). The tables below only
// say which fields the page shows, in what order and with what labels. The model's nested objects
// (attention variant, mixture of experts) are shown key by key as the schema lists them, each
// labelled from its key, so a key the engine adds appears without a change here.
import type { EngineError, JsonSchema, PresetList } from '../engine/types';
import { couple, derivedDp, isDerived } from '../state/coupling';
import { clone, fieldForError, getPointer, setPointer } from '../state/pointer';
import { autoName } from '../state/tasks';
import { defaultOf, enumValues, inputKind, isRequired, schemaAt } from '../state/schema';
import { h, uid } from '../base/dom';

type Kind = 'int' | 'number' | 'select' | 'check' | 'text' | 'json';
type PresetPicker = 'models' | 'systems' | 'devices' | 'software';
type Input = HTMLInputElement | HTMLSelectElement;

/** A field as the page lays it out; unset properties come from the schema. */
interface FieldDef {
  path: string;
  label: string;
  /** Input kind where the page shows a value differently from the schema's type. */
  kind?: Kind;
  /** A preset picker of this kind (plus the custom entry `custom`), not a schema value. */
  picker?: PresetPicker;
  custom?: string;
  /** Labels of select values (numeric selects take their values from the schema's range). */
  optionLabels?: Record<string, string>;
  /** Label of the empty choice of a select that may be left empty ("" = none offered). */
  emptyLabel?: string;
  placeholder?: string;
  title?: string;
  /** Two grid columns wide (preset pickers with long names). */
  wide?: boolean;
  /** Errors at this path go to its group's slot (a switch that shares the group's path). */
  groupErrors?: boolean;
}

/** A field with everything resolved against the schema. */
interface Field extends FieldDef {
  kind: Kind;
  /** Empty input removes the key (the engine's default applies). */
  optional: boolean;
  /** Select values that are numbers in the scenario. */
  numeric: boolean;
  /** Select values that are booleans in the scenario ("true", "false"; empty: the key absent). */
  boolean: boolean;
  options: () => Array<[value: string, label: string]>;
}

export type Scenario = Record<string, unknown>;

export interface EditorDeps {
  presets: () => PresetList;
  /** A preset object (cached by the caller), or null when the engine does not know it. */
  preset: (kind: PresetPicker, id: string) => Promise<Record<string, unknown> | null>;
  /** The engine's scenario schema (engine.schema().scenario), or null when it has none. */
  schema: () => Promise<JsonSchema | null>;
  /** Called after every user edit that produced a complete scenario. */
  onEdit: () => void;
  /** Called when a field's text is not a valid value (nothing is computed then). */
  onInvalid: (path: string, message: string) => void;
  /**
   * The layout `parallel: "auto"` took for the scenario on screen (its estimate's
   * parallel_auto.parallel), when that estimate is of the editor's scenario as it is; switching
   * auto off states it, so the numbers do not change.
   */
  autoLayout?: () => unknown;
}

export interface LoadOptions {
  /** The layout is a task's starting one: it follows model, system and GPU changes as "auto". */
  layoutFollows?: boolean;
}

export interface Editor {
  el: HTMLElement;
  load(s: Scenario, options?: LoadOptions): Promise<void>;
  scenario(): Scenario;
  /** Shows a scenario before the form is built (the task form reads it beside the first numbers). */
  preview(s: Scenario): void;
  /** `words`: the error in plain words (app.ts: ui/words.ts plainError), shown instead of the engine's message, which the field's title keeps with the code. */
  showError(e: EngineError | null, words?: string): void;
  /** Re-fills the inputs (after presets arrived). */
  refresh(): void;
  /**
   * Sets one field as a person does (the short forms of the tasks call it): the keys that follow
   * it follow, the path counts as set by the person, and the scenario is estimated again.
   * `typed`: the finer key the person typed when `value` is a whole object (a length's mean or
   * max; state/coupling.ts reads it).
   */
  edit(path: string, value: unknown, typed?: string): Promise<void>;
  /** Paths the person set since the scenario was loaded. */
  userSet(): ReadonlySet<string>;
  /** The path of the person's last edit since the scenario was loaded, once: the next call gives undefined. */
  takeLastEdit(): string | undefined;
  /**
   * Sets one field on the person's behalf (not counted as theirs: it may follow again), the keys
   * that follow it following, `note` said first among what followed; estimated again.
   */
  follow(path: string, value: unknown, note: string): Promise<void>;
  /** Whether the layout is a task's starting one that still follows (state/coupling.ts). */
  layoutFollows(): boolean;
  /** What followed the last edit on the person's behalf, in plain words (state/coupling.ts notes). */
  followNotes(): string[];
  /** The value in effect at a JSON Pointer: the scenario's, else its preset's or the engine's default as the full editor shows it. */
  effectiveValue(path: string): unknown;
}

/** Edits after which an unnamed scenario's name follows it (model, GPUs, task). */
const NAME_DRIVERS = ['/model', '/system', '/num_devices', '/training', '/inference', '/training/train_tokens', '/inference/serving/concurrency', '/inference/serving'];

const CUSTOM = '__inline';

const MODEL_FIELDS: FieldDef[] = [
  { path: '/model', label: 'Model', picker: 'models', custom: 'Custom (inline model)', wide: true },
  { path: '/model/layers', label: 'Layers' },
  { path: '/model/layer_pattern', label: 'Layer pattern (* M - E)', kind: 'text', title: '* attention, M linear or windowed, - dense FFN, E MoE FFN, one per sublayer', wide: true },
  { path: '/model/hidden', label: 'Hidden size' },
  { path: '/model/heads', label: 'Attention heads' },
  { path: '/model/kv_heads', label: 'KV heads', placeholder: '= heads' },
  { path: '/model/head_dim', label: 'Head dim', placeholder: 'hidden / heads' },
  { path: '/model/ffn_hidden', label: 'FFN hidden' },
  { path: '/model/vocab', label: 'Vocabulary' },
  { path: '/model/ffn_type', label: 'FFN type' },
  { path: '/model/norm', label: 'Norm' },
  { path: '/model/block', label: 'Layer block' },
  { path: '/model/position', label: 'Positions' },
  { path: '/model/max_seq_len', label: 'Max sequence' },
  { path: '/model/tied_embeddings', label: 'Tied embeddings' },
  { path: '/model/bias', label: 'Biases' },
  { path: '/model/dropout', label: 'Dropout' },
  { path: '/model/mtp_layers', label: 'MTP modules' },
  { path: '/model/checkpoint_precision', label: 'Checkpoint precision', emptyLabel: '16-bit' },
  { path: '/model/checkpoint_block_scaled', label: 'Checkpoint block scales' },
  { path: '/model/checkpoint_experts_only', label: 'Checkpoint: experts only' },
];

/**
 * Nested objects of the model, each shown as its own group with one field per key of its schema
 * (free-text keys left out). `toggle` labels a switch that adds or removes the whole object (its
 * required keys start as `first` gives them); without one, the object is created on the first
 * edit of one of its keys, with its required keys set to the values in effect.
 */
interface ObjectGroup {
  path: string;
  title: string;
  toggle?: string;
  first?: (effective: (path: string) => unknown) => Record<string, unknown>;
}

/** The inference block's nested objects: continuous-batching serving and its objectives. */
const INFERENCE_OBJECTS: ObjectGroup[] = [
  {
    path: '/inference/serving',
    title: 'Serving (continuous batching)',
    toggle: 'Serve a stream of requests',
    // The page's starting point: a Poisson stream of 500 requests at 4 per second.
    first: () => ({ arrival: 'poisson', requests_per_s: 4, num_requests: 500 }),
  },
  { path: '/inference/serving/slo', title: 'Service-level objectives' },
  {
    path: '/inference/speculative',
    title: 'Speculative decoding',
    toggle: 'Speculative decoding (draft and verify)',
    // The page's starting point: an MTP head drafting one token (DeepSeek-V3's use of it).
    first: () => ({ draft_tokens: 1 }),
  },
];

const MODEL_OBJECTS: ObjectGroup[] = [
  { path: '/model/attention', title: 'Attention variant' },
  {
    path: '/model/moe',
    title: 'Mixture of experts',
    toggle: 'Mixture of experts (MoE)',
    // The page's starting point (Mixtral's routing, 8 experts, top-2, as wide as the dense FFN).
    first: (effective) => ({ experts: 8, top_k: 2, expert_ffn_hidden: effective('/model/ffn_hidden') }),
  },
];

const OBJECT_GROUPS: ObjectGroup[] = [...MODEL_OBJECTS, ...INFERENCE_OBJECTS];

/** Words of a schema key for its label: "expert_ffn_hidden" -> "Expert FFN hidden". */
const ACRONYMS: Record<string, string> = {
  ffn: 'FFN',
  kv: 'KV',
  qk: 'QK',
  lora: 'LoRA',
  moe: 'MoE',
  mla: 'MLA',
  nope: 'no-PE',
  num: 'number of', // num_requests: "Number of requests", not "Num requests"
  rope: 'RoPE',
  v: 'V',
  q: 'Q',
  ttft: 'TTFT',
  tpot: 'TPOT',
  itl: 'ITL',
  gpu: 'GPU',
  mtp: 'MTP',
  utilization: 'utilisation',
  len: 'length', // shared_prefix_len: "Shared prefix length"
};
/** A key's unit suffix, said as a unit: "ttft_s" -> "TTFT (s)". */
const UNIT_SUFFIXES: Array<[suffix: string, unit: string]> = [
  ['_per_s', 'per second'],
  ['_ms', '(ms)'],
  ['_us', '(µs)'],
  ['_s', '(s)'],
  ['_GBps', '(GB/s)'],
  ['_W', '(W)'],
];
export function keyLabel(key: string): string {
  let unit = '';
  for (const [suffix, u] of UNIT_SUFFIXES) {
    if (key.endsWith(suffix) && key.length > suffix.length) {
      key = key.slice(0, -suffix.length);
      unit = ` ${u}`;
      break;
    }
  }
  const words = key.split('_').map((w) => ACRONYMS[w] ?? w);
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ') + unit;
}

const SYSTEM_FIELDS: FieldDef[] = [
  { path: '/system', label: 'System', picker: 'systems', custom: 'Custom (inline system)', wide: true },
  { path: '/num_devices', label: 'Devices in the job' },
  { path: '/system/device', label: 'Device', picker: 'devices', custom: 'Custom (inline device)', wide: true },
  {
    path: '/software',
    label: 'Software stack',
    picker: 'software',
    custom: 'Custom (inline profile)',
    wide: true,
    title:
      'The software stack that runs the job: a profile of presets/software, its values laid over the system\'s software block (attention kernel, overlaps, host times, the share of the matmul rate its kernels reach). System default: the system preset\'s own block.',
  },
  { path: '/system/devices_per_node', label: 'Devices per node' },
  { path: '/system/scale_up/domain_size', label: 'NVLink domain' },
  { path: '/system/scale_up/bandwidth_GBps', label: 'Scale-up GB/s' },
  { path: '/system/scale_out/bandwidth_GBps', label: 'Scale-out GB/s' },
];

const PARALLEL_FIELDS: FieldDef[] = [
  {
    path: '/parallel',
    label: 'Search the fastest layout (auto)',
    kind: 'check',
    wide: true,
    groupErrors: true,
    title: 'parallel: "auto": the engine searches every layout of the devices and predicts the fastest that fits (training) or the highest throughput (inference); the results say which it took.',
  },
  { path: '/parallel/tp', label: 'Tensor (tp)' },
  { path: '/parallel/pp', label: 'Pipeline (pp)' },
  { path: '/parallel/dp', label: 'Data (dp)', placeholder: 'rest of the devices' },
  { path: '/parallel/cp', label: 'Context (cp)' },
  { path: '/parallel/ep', label: 'Expert (ep)' },
  { path: '/parallel/etp', label: 'Expert tensor (etp)' },
  { path: '/parallel/micro_batch', label: 'Micro-batch' },
  { path: '/parallel/interleave', label: 'Interleave' },
  { path: '/parallel/recompute', label: 'Recompute' },
  { path: '/parallel/recompute_fraction', label: 'Recomputed layer share', placeholder: 'every layer (1)' },
  { path: '/parallel/recompute_modules', label: 'Recomputed modules', kind: 'json', placeholder: '["core_attn"]' },
  {
    path: '/parallel/zero_stage',
    label: 'ZeRO stage',
    kind: 'select',
    optionLabels: { 0: '0: replicated', 1: '1: optimizer', 2: '2: + gradients', 3: '3: + weights' },
  },
  { path: '/parallel/zero_shard', label: 'ZeRO shard group', placeholder: 'all dp ranks' },
  { path: '/parallel/offload_layers', label: 'Layers offloaded to host' },
  { path: '/parallel/optimizer_offload', label: 'Optimizer in host memory' },
  { path: '/parallel/sequence_parallel', label: 'Sequence parallel' },
];

const TRAINING_FIELDS: FieldDef[] = [
  { path: '/training', label: 'Estimate training', kind: 'check' },
  { path: '/training/global_batch', label: 'Global batch (seq)' },
  { path: '/training/seq_len', label: 'Sequence length' },
  { path: '/training/precision', label: 'Precision' },
  { path: '/training/train_tokens', label: 'Tokens to train', placeholder: 'e.g. 1e12' },
  { path: '/training/mtp_layers', label: 'MTP modules trained', placeholder: 'none' },
];

/** Planning the whole run (with training.train_tokens): failures, checkpoints and prices. */
const RUN_FIELDS: FieldDef[] = [
  { path: '/training/batch_ramp', label: 'Batch ramp [[tokens, batch], …]', kind: 'json', placeholder: '[[1e11, 512]]' },
  { path: '/training/stages', label: 'Later stages (e.g. context extension)', kind: 'json', placeholder: '[{"tokens": 8e11, "seq_len": 131072, "global_batch": 64, "parallel": {"cp": 16}}]' },
  { path: '/training/checkpoint_interval_s', label: 'Checkpoint interval (s)', placeholder: 'Young/Daly' },
  { path: '/system/operations/failures_per_device_hour', label: 'Failures per device-hour' },
  { path: '/system/operations/restart_s', label: 'Restart after a failure (s)' },
  { path: '/system/operations/production_efficiency', label: 'Sustained share of the modelled rate (stated; none by default)' },
  { path: '/system/operations/checkpoint_async', label: 'Asynchronous checkpoint saves', kind: 'check' },
  { path: '/economics/usd_per_gpu_hour', label: 'Rental price (USD per device-hour)', placeholder: 'owned: capital terms' },
  { path: '/economics/usd_per_kwh', label: 'Electricity (USD per kWh)' },
  { path: '/economics/pue', label: 'PUE (facility / IT power)' },
];

const INFERENCE_FIELDS: FieldDef[] = [
  { path: '/inference', label: 'Estimate inference', kind: 'check' },
  { path: '/inference/batch', label: 'Batch' },
  { path: '/inference/prompt_len', label: 'Prompt tokens' },
  { path: '/inference/output_len', label: 'Output tokens' },
  { path: '/inference/precision', label: 'Precision' },
  { path: '/inference/kv_precision', label: 'KV precision', emptyLabel: 'the runtime’s' },
  { path: '/inference/weight_group_size', label: 'Weight group (int4/int8)', placeholder: 'int4: 128, int8: per channel' },
  { path: '/inference/fp8_block_scaled', label: 'FP8 block scales (DeepSeek, Qwen3 FP8 checkpoints)' },
  // Absent, the runtime's default (a software profile's, or replayed in a serving simulation):
  // a select that can say so, where an unticked box would say "off".
  { path: '/inference/cuda_graphs', label: 'CUDA graphs (no host launch bound)', kind: 'select', emptyLabel: 'the runtime’s', optionLabels: { true: 'on: replayed', false: 'off: eager' } },
];

/**
 * An RL job's settings (docs/contract.md, rl; docs/rl.md), shown for a scenario with an `rl`
 * block: the RL task's short form has the common ones, this group every one the page can show as
 * a field (the lengths and the trainer's layout as JSON: a whole number, {"mean", "max"} or a
 * list; "auto" or layout keys).
 */
const RL_FIELDS: FieldDef[] = [
  { path: '/rl/algorithm', label: 'Algorithm' },
  { path: '/rl/prompts_per_step', label: 'Prompts per step' },
  { path: '/rl/samples_per_prompt', label: 'Samples per prompt' },
  { path: '/rl/prompt_len', label: 'Prompt tokens (longest, or {"mean", "max"})', kind: 'json', placeholder: '1024' },
  { path: '/rl/response_len', label: 'Response tokens (longest, or {"mean", "max"})', kind: 'json', placeholder: '4096' },
  { path: '/rl/response_style', label: 'Response style', emptyLabel: 'from the model’s name' },
  { path: '/rl/mini_batches', label: 'Optimizer steps per RL step' },
  { path: '/rl/reference', label: 'Reference model forward (KL)' },
  { path: '/rl/reward_cpu_ms', label: 'Rule-based reward, CPU ms per response', placeholder: '0: not timed' },
  { path: '/rl/reward_workers', label: 'Reward scoring processes' },
  { path: '/rl/controller_GBps', label: 'Driver’s batch rate, GB/s (0: workers exchange it directly)', placeholder: '0.25 (verl, NeMo-RL, OpenRLHF)' },
  { path: '/rl/old_logprob', label: 'Recompute old log-probabilities' },
  { path: '/rl/placement', label: 'Placement' },
  { path: '/rl/rollout_devices', label: 'Rollout GPUs (split)' },
  { path: '/rl/train_devices', label: 'Training GPUs (split)' },
  { path: '/rl/async/staleness', label: 'Staleness (split; steps)', placeholder: '0: on-policy' },
  { path: '/rl/async/partial_rollout', label: 'Partial rollout' },
  { path: '/rl/rollout/software', label: 'Rollout engine (vllm, sglang, ...)', kind: 'text', placeholder: 'vllm' },
  { path: '/rl/rollout/tp', label: 'Rollout tensor parallel (tp)', placeholder: 'fastest that fits' },
  { path: '/rl/rollout/dp', label: 'Rollout engines (dp)', placeholder: 'the rest' },
  { path: '/rl/rollout/ep', label: 'Rollout expert parallel (ep)' },
  { path: '/rl/rollout/precision', label: 'Rollout precision' },
  { path: '/rl/rollout/gpu_memory_utilization', label: 'Rollout GPU memory share' },
  { path: '/rl/rollout/max_batch', label: 'Rollout sequences per engine step', placeholder: 'the engine’s' },
  { path: '/rl/rollout/static_batching', label: 'Rollout in static batches (each to its longest)' },
  { path: '/rl/rollout/cuda_graphs', label: 'Rollout CUDA graphs', kind: 'select', emptyLabel: 'the engine’s (vLLM, SGLang: on)', optionLabels: { true: 'on: replayed', false: 'off: enforce_eager' } },
  { path: '/rl/rollout/prefix_caching', label: 'Samples of a prompt share its prefill and KV (prefix cache)' },
  { path: '/rl/rollout/speculative', label: 'Rollout speculative decoding ({"draft_tokens": 3}: the model’s MTP module)', kind: 'json', placeholder: 'none' },
  { path: '/rl/train', label: 'Trainer layout ("auto" or keys)', kind: 'json', placeholder: 'ZeRO by memory' },
  { path: '/rl/weight_sync', label: 'Weight sync' },
  { path: '/rl/train_steps', label: 'RL steps (whole run)' },
];

/** The label of the full editor's field for a key (its group's fixed fields), for words that name it before the editor is drawn (ui/words.ts formLabel). */
export function editorLabel(path: string): string | undefined {
  for (const list of [MODEL_FIELDS, SYSTEM_FIELDS, PARALLEL_FIELDS, TRAINING_FIELDS, RUN_FIELDS, INFERENCE_FIELDS, RL_FIELDS]) {
    const f = list.find((x) => x.path === path);
    if (f) return f.label;
  }
  return undefined;
}

/** What switched-off workloads start as when switched on (the page's choice, not defaults). */
const FIRST_WORKLOADS: Record<string, unknown> = {
  training: { global_batch: 512, seq_len: 4096, precision: 'bf16' },
  inference: { batch: 1, prompt_len: 1024, output_len: 256, precision: 'bf16' },
};

/** Select options from the schema: its enum, or the whole numbers of its range. */
function schemaOptions(def: FieldDef, node: JsonSchema | null, optional: boolean): Array<[string, string]> {
  let values = node?.type === 'boolean' ? ['true', 'false'] : enumValues(node);
  if (values.length === 0 && typeof node?.minimum === 'number' && typeof node.maximum === 'number') {
    values = [];
    for (let v = node.minimum; v <= node.maximum && values.length < 100; v += 1) values.push(String(v));
  }
  const options = values.map((v): [string, string] => [v, def.optionLabels?.[v] ?? v]);
  return optional && def.emptyLabel ? [['', def.emptyLabel], ...options] : options;
}

/** The field `def` with its kind, options, optional flag, placeholder and tooltip resolved. */
function resolveField(def: FieldDef, schema: JsonSchema | null, presetOptions: (kind: PresetPicker, custom: string) => () => Array<[string, string]>): Field {
  const node = def.picker ? null : schemaAt(schema, def.path);
  const kind: Kind = def.kind ?? (def.picker ? 'select' : inputKind(node));
  const optional = !def.picker && kind !== 'check' && !isRequired(schema, def.path);
  const fallback = defaultOf(node);
  const unit = node?.['x-unit'];
  return {
    ...def,
    kind,
    optional,
    numeric: kind === 'select' && node?.type === 'integer',
    boolean: kind === 'select' && node?.type === 'boolean',
    placeholder: def.placeholder ?? (optional && fallback !== undefined && kind !== 'select' ? String(fallback) : undefined),
    title: def.title ?? node?.description ?? (typeof unit === 'string' ? unit : undefined),
    options: def.picker ? presetOptions(def.picker, def.custom ?? 'Custom') : () => schemaOptions(def, node, optional),
  };
}

/** An inline copy of a preset to edit: its name marked "(edited)", and its source when given. */
function editedCopy(preset: Record<string, unknown>, id: string, source?: string): Record<string, unknown> {
  const base = clone(preset);
  base.name = `${String(base.name ?? id)} (edited)`;
  if (source !== undefined) base.source = source;
  return base;
}

/** Says that editing one of a preset's fields made the model (or system) a custom copy of it. */
function inlinedNotes(before: Scenario, after: Scenario): string[] {
  const notes: string[] = [];
  for (const [key, what] of [['model', 'model'], ['system', 'system']] as const) {
    const now = after[key];
    if (typeof before[key] !== 'string' || typeof now !== 'object' || now === null) continue;
    const name = String((now as Record<string, unknown>).name ?? before[key]);
    notes.push(`Editing one of its fields made the ${what} a custom copy, “${name}”: pick the preset again to undo.`);
  }
  return notes;
}

/** The value of a field's input, or why it is not one. */
function parseInput(f: Field, input: Input): { ok: true; value: unknown } | { ok: false; message: string } {
  if (f.kind === 'check') return { ok: true, value: (input as HTMLInputElement).checked };
  const raw = input.value.trim();
  if (f.kind === 'select') {
    if (raw === '' && f.optional) return { ok: true, value: undefined };
    return { ok: true, value: f.numeric ? Number(raw) : f.boolean ? raw === 'true' : raw };
  }
  if (f.kind === 'text') return { ok: true, value: raw === '' && f.optional ? undefined : raw };
  if (f.kind === 'json') {
    if (raw === '') return f.optional ? { ok: true, value: undefined } : { ok: false, message: 'Enter a value.' };
    const n = Number(raw.replace(/_/g, ''));
    if (Number.isFinite(n)) return { ok: true, value: n };
    if (raw === 'inf') return { ok: true, value: raw };
    try {
      return { ok: true, value: JSON.parse(raw) as unknown };
    } catch {
      // A bare word is a string (a preset id or a named choice, e.g. a draft model or "mtp").
      if (/^[A-Za-z0-9._-]+$/.test(raw)) return { ok: true, value: raw };
      return { ok: false, message: `"${raw}" is neither a number nor JSON (for example {"mean": 500, "max": 4000}).` };
    }
  }
  if (raw === '') return f.optional ? { ok: true, value: undefined } : { ok: false, message: 'Enter a number.' };
  const x = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(x)) return { ok: false, message: `"${raw}" is not a number.` };
  if (f.kind === 'int' && !Number.isInteger(x)) return { ok: false, message: `"${raw}" is not a whole number.` };
  return { ok: true, value: x };
}

/** The <input> or <select> of a field, not yet filled. */
function inputElement(f: Field, id: string): Input {
  if (f.kind === 'select') return h('select', { id, 'data-path': f.path });
  if (f.kind === 'check') return h('input', { id, type: 'checkbox', 'data-path': f.path });
  return h('input', {
    id,
    'data-path': f.path,
    // Numbers are text inputs with a numeric keyboard: they accept 1.5e13 and keep what was
    // typed while it is not a number yet, which a type=number input would blank.
    type: 'text',
    inputmode: f.kind === 'int' ? 'numeric' : f.kind === 'number' ? 'decimal' : undefined,
    placeholder: f.placeholder,
    autocomplete: 'off',
    spellcheck: 'false',
  });
}

class ScenarioEditor implements Editor {
  readonly el: HTMLFormElement;
  private current: Scenario = {};
  private modelPreset: Record<string, unknown> | null = null;
  private systemPreset: Record<string, unknown> | null = null;
  private schema: JsonSchema | null = null;
  /** Workload blocks switched off, kept to switch them back on as they were. */
  private readonly parked = clone(FIRST_WORKLOADS);
  /** Nested model objects switched off, by path. */
  private readonly parkedObjects = new Map<string, unknown>();
  private readonly inputs = new Map<string, Input>();
  private readonly errorSlots = new Map<string, HTMLElement>();
  private readonly fields = new Map<string, Field>();
  private localErrors = new Set<string>();
  /** Paths the person set since the last load: they never follow another field. */
  private typed = new Set<string>();
  private layoutFollows_ = false;
  /** What changed on the person's behalf at the last edit, said once. */
  /** The notes of the last edit (what followed it), for the short form that made it. */
  private lastNotes: string[] = [];
  /** The person's last edit (app.ts: the GPUs follow a model or system they cannot hold). */
  private lastEdit: string | undefined;
  private readonly followNote = h('p', { class: 'follow-note', 'data-testid': 'follow-note', 'aria-live': 'polite', hidden: true });
  private readonly general = h('div', { class: 'error general', 'data-testid': 'scenario-error', role: 'alert', hidden: true });
  private readonly hint = h('p', { class: 'hint', 'aria-live': 'polite' });
  private readonly fixBtn = h('button', { type: 'button', class: 'small', hidden: true }, 'Set devices');
  private trainingBox: HTMLElement | null = null;
  private inferenceBox: HTMLElement | null = null;
  private rlBox: HTMLElement | null = null;
  /** The model's nested-object groups with a switch, by object path. */
  private readonly objectBoxes = new Map<string, HTMLElement>();
  private pendingLoads = 0;

  constructor(private readonly deps: EditorDeps) {
    this.el = h('form', {
      class: 'editor',
      'data-testid': 'editor',
      'data-state': 'loading',
      'aria-label': 'scenario editor',
      novalidate: true,
      onsubmit: (e: Event) => e.preventDefault(),
    });
    this.fixBtn.addEventListener('click', () => this.fixDevices());
  }

  async load(s: Scenario, options: LoadOptions = {}): Promise<void> {
    this.layoutFollows_ = options.layoutFollows === true;
    // data-state says whether the form shows the last scenario given (loads may overlap: a link
    // opened while the first one still waits for its presets).
    await this.busy(() => this.loadNow(s));
  }

  private async loadNow(s: Scenario): Promise<void> {
    if (this.fields.size === 0) {
      this.schema = await this.deps.schema();
      this.build();
    }
    this.current = clone(s);
    this.localErrors = new Set();
    this.typed = new Set();
    this.lastEdit = undefined;
    this.followNote.hidden = true;
    for (const p of this.errorSlots.keys()) this.setLocalError(p, null);
    [this.modelPreset, this.systemPreset] = await Promise.all([
      typeof this.current.model === 'string' ? this.deps.preset('models', this.current.model) : null,
      typeof this.current.system === 'string' ? this.deps.preset('systems', this.current.system) : null,
    ]);
    this.refresh();
  }

  scenario(): Scenario {
    return this.current;
  }

  /**
   * Shows `s` as the scenario before the form is built (its schema loads after the first result,
   * app.ts): the task form reads its values from here, so it is not blank beside the first numbers.
   */
  preview(s: Scenario): void {
    if (this.fields.size === 0) this.current = clone(s);
  }

  userSet(): ReadonlySet<string> {
    return this.typed;
  }

  takeLastEdit(): string | undefined {
    const p = this.lastEdit;
    this.lastEdit = undefined;
    return p;
  }

  async follow(path: string, value: unknown, note: string): Promise<void> {
    await this.busy(async () => {
      const prior = this.lastNotes; // what followed the person's edit that led here (a precision)
      await this.applyCoupled(path, value, false);
      this.lastNotes = [...prior, note, ...this.lastNotes];
      this.showNotes();
      if (this.localErrors.size === 0) this.deps.onEdit();
    });
  }

  layoutFollows(): boolean {
    return this.layoutFollows_ && typeof this.current.parallel === 'object' && ![...this.typed].some((k) => k === '/parallel' || k.startsWith('/parallel/'));
  }

  followNotes(): string[] {
    return this.lastNotes;
  }

  effectiveValue(path: string): unknown {
    return this.effective(path);
  }

  async edit(path: string, value: unknown, typed?: string): Promise<void> {
    this.lastNotes = [];
    const f = this.fields.get(path);
    if (f) {
      this.localErrors.delete(path);
      this.setLocalError(path, null);
    }
    if (typed) this.typed.add(typed);
    // Busy, as while a scenario loads, until the edit has asked for its estimate: a picked model
    // or system waits for its preset first, and meanwhile the page still shows the last result
    // as ready (a browser test read that result as the pick's).
    await this.busy(async () => {
      await this.applyCoupled(path, value);
      if (this.localErrors.size === 0) this.deps.onEdit();
    });
  }

  /** Runs `work` with data-state "loading" (loads and edits may overlap; "ready" once none is left). */
  private async busy(work: () => Promise<void>): Promise<void> {
    this.pendingLoads += 1;
    this.el.dataset.state = 'loading';
    try {
      await work();
    } finally {
      this.pendingLoads -= 1;
      if (this.pendingLoads === 0) this.el.dataset.state = 'ready';
    }
  }

  /** Applies a person's edit, then lets the keys that follow it follow (state/coupling.ts). */
  private async applyCoupled(path: string, value: unknown, byPerson = true): Promise<void> {
    const before = clone(this.current);
    const modelBefore = this.modelPreset;
    if (byPerson) {
      this.typed.add(path);
      this.lastEdit = path;
    }
    await this.apply(path, value);
    const r = couple(before, this.current, path, this.typed, { model: this.modelPreset, modelBefore, system: this.systemPreset, layoutFollows: this.layoutFollows_ });
    this.current = r.scenario;
    if (!this.typed.has('/name') && NAME_DRIVERS.includes(path)) {
      const named = (kind: 'models' | 'systems') => (id: string) => this.deps.presets()[kind]?.find((p) => p.id === id)?.name;
      this.current.name = autoName(this.current, { model: named('models'), system: named('systems') });
    }
    this.lastNotes = [...inlinedNotes(before, this.current), ...r.notes];
    this.showNotes();
    this.refresh();
  }

  private showNotes(): void {
    this.followNote.textContent = this.lastNotes.join(' ');
    this.followNote.hidden = this.lastNotes.length === 0;
  }

  showError(e: EngineError | null, words?: string): void {
    this.clearEngineErrors();
    if (!e) return;
    const text = words ?? e.message;
    const title = text === e.message ? e.code : `${e.code}: ${e.message}`;
    const field = fieldForError(e.path, this.errorSlots.keys());
    if (field) {
      this.setLocalError(field, text);
      this.errorSlots.get(field)?.setAttribute('title', title);
    } else {
      this.general.hidden = false;
      this.general.textContent = text;
      this.general.title = title;
    }
  }

  refresh(): void {
    for (const [path, input] of this.inputs) this.setInput(path, input);
    const hasT = this.current.training !== undefined;
    const hasI = this.current.inference !== undefined;
    this.trainingBox?.classList.toggle('off', !hasT);
    this.inferenceBox?.classList.toggle('off', !hasI);
    const hasRl = this.current.rl !== undefined;
    // An RL job's group is shown for an RL scenario only (a training or inference one has no rl block to edit).
    if (this.rlBox) this.rlBox.hidden = !hasRl;
    const objectsOff = [...this.objectBoxes.keys()].filter((p) => this.effective(p) === undefined);
    for (const [p, box] of this.objectBoxes) box.classList.toggle('off', objectsOff.includes(p));
    for (const [path, input] of this.inputs) {
      // The run's fields (prices, failures) sit in the training group and go off with it.
      if (path.startsWith('/training/') || this.trainingBox?.contains(input)) input.disabled = !hasT;
      if (path.startsWith('/inference/')) input.disabled = !hasI;
      if (path.startsWith('/rl/')) input.disabled = !hasRl;
      // Prices apply to every cost: a whole run, an RL step or run, a search ranked by cost.
      if (path.startsWith('/economics/')) input.disabled = !(hasT || hasI || hasRl);
      if (objectsOff.some((p) => path.startsWith(`${p}/`))) input.disabled = true;
      else if (path.startsWith('/model/')) input.disabled = false;
      if (path.startsWith('/parallel/')) input.disabled = this.current.parallel === 'auto';
    }
    this.updateHints();
  }

  // ---- Building ---------------------------------------------------------------------------------

  /** The form's groups, once the schema is known. */
  private build(): void {
    const nameField = this.field({ path: '/name', label: 'Scenario name' });
    const modelBox = this.group('Model', null, MODEL_FIELDS);
    modelBox.classList.add('model');
    modelBox.append(...MODEL_OBJECTS.map((g) => this.objectGroup(g)));
    const systemBox = this.group('System', null, SYSTEM_FIELDS);
    const parallelBox = this.group('Parallel layout', '/parallel', PARALLEL_FIELDS);
    parallelBox.append(h('div', { class: 'hint-row' }, this.hint, this.fixBtn));
    this.trainingBox = this.group('Training', null, TRAINING_FIELDS);
    const runBox = this.group('Plan the run: failures, checkpoints, prices', null, RUN_FIELDS);
    runBox.classList.add('nested');
    this.trainingBox.append(runBox);
    this.inferenceBox = this.group('Inference', null, INFERENCE_FIELDS);
    this.inferenceBox.append(...INFERENCE_OBJECTS.map((g) => this.objectGroup(g)));
    this.rlBox = this.group('RL post-training', '/rl', RL_FIELDS);
    this.el.replaceChildren(nameField, this.general, this.followNote, modelBox, systemBox, parallelBox, this.trainingBox, this.inferenceBox, this.rlBox);
  }

  private group(title: string, errPath: string | null, defs: FieldDef[]): HTMLFieldSetElement {
    const fs = h('fieldset', null, h('legend', null, title), h('div', { class: 'grid' }, ...defs.map((d) => this.field(d))));
    if (errPath) {
      const slot = h('div', { class: 'error', 'data-error-for': errPath, role: 'alert', hidden: true });
      this.errorSlots.set(errPath, slot);
      fs.append(slot);
    }
    return fs;
  }

  /** A nested object's group: its switch (if any), then one field per key of its schema. */
  private objectGroup(g: ObjectGroup): HTMLFieldSetElement {
    const node = schemaAt(this.schema, g.path);
    const keys = Object.entries(node?.properties ?? {})
      .filter(([, sub]) => !(sub.type === 'string' && !sub.enum) && sub.type !== 'object')
      .map(([key]) => key);
    const defs: FieldDef[] = keys.map((key) => ({ path: `${g.path}/${key}`, label: keyLabel(key) }));
    if (g.toggle) defs.unshift({ path: g.path, label: g.toggle, kind: 'check', title: node?.description });
    const fs = this.group(g.title, g.toggle ? null : g.path, defs);
    fs.classList.add('nested');
    if (g.toggle) this.objectBoxes.set(g.path, fs);
    return fs;
  }

  private presetOptions(kind: PresetPicker, custom: string): () => Array<[string, string]> {
    // A software stack is optional: absent = the system preset's own software block.
    const none: Array<[string, string]> = kind === 'software' ? [['', 'System default']] : [];
    return () => [...none, ...(this.deps.presets()[kind] ?? []).map((p): [string, string] => [p.id, p.name ? p.name : p.id]), [CUSTOM, custom]];
  }

  /** One labelled field with its error slot. */
  private field(def: FieldDef): HTMLElement {
    const f = resolveField(def, this.schema, (kind, custom) => this.presetOptions(kind, custom));
    this.fields.set(f.path, f);
    const id = uid('f');
    const input = inputElement(f, id);
    if (f.title) input.title = f.title;
    this.inputs.set(f.path, input);
    const err = def.groupErrors ? null : h('div', { class: 'error', 'data-error-for': f.path, role: 'alert', id: `${id}-err`, hidden: true });
    if (err) {
      this.errorSlots.set(f.path, err);
      input.setAttribute('aria-describedby', `${id}-err`);
    }
    input.addEventListener(f.kind === 'select' || f.kind === 'check' ? 'change' : 'input', () => this.onInput(f, input));
    const label = h('label', { for: id }, f.label);
    const check = f.kind === 'check';
    return h('div', { class: `field${check ? ' check' : ''}${f.wide ? ' wide' : ''}` }, check ? input : label, check ? label : input, err);
  }

  // ---- Values shown -----------------------------------------------------------------------------

  /** The value in effect at `path`: the scenario's, else its preset's, else the engine's default. */
  private effective(path: string): unknown {
    const v = getPointer(this.current, path);
    if (v !== undefined) return v;
    if (path.startsWith('/model/') && typeof this.current.model === 'string') {
      const p = getPointer(this.modelPreset, path.slice('/model'.length));
      if (p !== undefined) return p;
    }
    if (path.startsWith('/system/') && typeof this.current.system === 'string') {
      const p = getPointer(this.systemPreset, path.slice('/system'.length));
      if (p !== undefined) return p;
    }
    if (path === '/model/kv_heads') return this.effective('/model/heads');
    if (path === '/model/attention/type') {
      // Absent, the variant follows kv_heads (schema: "Default: follows kv_heads").
      const heads = this.effective('/model/heads');
      const kv = this.effective('/model/kv_heads');
      return kv === heads ? 'mha' : kv === 1 ? 'mqa' : 'gqa';
    }
    if (path.startsWith('/model/moe/') && this.effective('/model/moe') !== undefined) {
      if (path === '/model/moe/shared_expert_ffn_hidden') return this.effective('/model/moe/expert_ffn_hidden');
      if (path === '/model/moe/imbalance') return this.effective('/model/moe/router_balance') === 'balanced' ? 1 : 1.2;
    }
    // Request lengths default to the static batch's (schema: "Default: the inference block's ...").
    if (path === '/inference/serving/input_len') return this.effective('/inference/prompt_len');
    if (path === '/inference/serving/output_len') return this.effective('/inference/output_len');
    // The served precision follows the model's published checkpoint (docs/contract.md,
    // model.checkpoint_precision), its block scales with it; the RL rollout's precision too.
    if (path === '/inference/precision' || path === '/rl/rollout/precision') {
      const checkpoint = this.effective('/model/checkpoint_precision');
      if (typeof checkpoint === 'string') return checkpoint;
    }
    if (path === '/inference/fp8_block_scaled' && getPointer(this.current, '/inference/precision') === undefined && this.effective('/model/checkpoint_block_scaled') === true) return true;
    if (path === '/parallel/dp') return derivedDp(this.current);
    if (path === '/parallel/sequence_parallel') {
      const tp = this.effective('/parallel/tp');
      return typeof tp === 'number' && tp > 1;
    }
    const norm = path.startsWith('/model/') && path !== '/model/norm' ? this.effective('/model/norm') : undefined;
    return defaultOf(schemaAt(this.schema, path), norm);
  }

  /** What a field shows: a picker its preset id (or the custom entry), a switch its workload. */
  private shown(path: string): unknown {
    if (path === '/model') return typeof this.current.model === 'string' ? this.current.model : CUSTOM;
    if (path === '/system') return typeof this.current.system === 'string' ? this.current.system : CUSTOM;
    if (path === '/software') {
      const sw = this.current.software;
      return sw === undefined ? '' : typeof sw === 'string' ? sw : CUSTOM;
    }
    if (path === '/system/device') {
      const d = this.effective(path);
      return typeof d === 'string' ? d : CUSTOM;
    }
    if (path === '/training' || path === '/inference') return this.current[path.slice(1)] !== undefined;
    if (path === '/parallel') return this.current.parallel === 'auto';
    if (this.objectBoxes.has(path)) return this.effective(path) !== undefined;
    return this.effective(path);
  }

  private setInput(path: string, input: Input): void {
    const f = this.fields.get(path)!;
    if (f.kind === 'select') {
      const select = input as HTMLSelectElement;
      const options = f.options();
      const want = options.map(([v]) => v).join('\u0000');
      if (select.dataset.options !== want) {
        select.replaceChildren(...options.map(([v, l]) => h('option', { value: v }, l)));
        select.dataset.options = want;
      }
    }
    if (document.activeElement === input && f.kind !== 'select' && f.kind !== 'check') return;
    if (this.localErrors.has(path)) return;
    // parallel: "auto": the layout fields show no value (the search picks them; the results say
    // which), the numeric ones "auto" in grey.
    const searched = path.startsWith('/parallel/') && this.current.parallel === 'auto';
    if (f.kind !== 'select' && f.kind !== 'check') {
      const el = input as HTMLInputElement;
      if (searched) el.placeholder = 'auto';
      else if (f.placeholder !== undefined) el.placeholder = f.placeholder;
      else el.removeAttribute('placeholder');
    }
    const v = searched ? undefined : this.shown(path);
    // A value the engine derives (the key is absent) looks derived: grey and italic, labelled.
    const derived = !searched && !f.picker && path !== '/name' && !path.match(/^\/(training|inference|parallel)$/) && !this.objectBoxes.has(path) && isDerived(this.current, path) && v !== undefined;
    input.classList.toggle('derived', derived);
    if (derived) input.dataset.follows = 'true';
    else delete input.dataset.follows;
    if (f.kind === 'check') (input as HTMLInputElement).checked = v === true;
    else if (!(searched && f.kind === 'select')) input.value = v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }

  // ---- Editing ----------------------------------------------------------------------------------

  private onInput(f: Field, input: Input): void {
    const p = parseInput(f, input);
    if (!p.ok) {
      this.localErrors.add(f.path);
      this.clearEngineErrors();
      this.setLocalError(f.path, p.message);
      // The status line is far from the field: it names it.
      this.deps.onInvalid(f.path, `${f.label}: ${p.message}`);
      return;
    }
    this.localErrors.delete(f.path);
    this.setLocalError(f.path, null);
    // A value typed over a derived one is the person's now: it stops looking derived at once
    // (refresh() skips the focused field, so it would keep the grey until the next redraw).
    if (p.value !== undefined && f.kind !== 'select' && f.kind !== 'check') {
      input.classList.remove('derived');
      delete input.dataset.follows;
    }
    void this.applyCoupled(f.path, p.value).then(() => {
      if (this.localErrors.size === 0) this.deps.onEdit();
    });
  }

  private async apply(path: string, value: unknown): Promise<void> {
    if (path === '/model' || path === '/system' || path === '/system/device') return this.pick(path, value);
    if (path === '/software') return this.pickSoftware(value);
    if (path === '/training' || path === '/inference') return this.switchWorkload(path.slice(1), value === true);
    if (path === '/parallel') return value !== null && typeof value === 'object' ? this.stateLayout(value) : this.switchAuto(value === true);
    if (this.objectBoxes.has(path)) return this.switchObject(OBJECT_GROUPS.find((g) => g.path === path)!, value === true);
    this.inlineFor(path);
    // An economics preset id becomes an inline object at the engine's defaults (those of the one
    // preset, us-2025) before one of its prices is set.
    if (path.startsWith('/economics/') && typeof this.current.economics === 'string') this.current.economics = {};
    if (value !== undefined) this.createObjectFor(path);
    setPointer(this.current, path, value);
    // Other fields may show values that follow this one (defaults by norm, kv_heads = heads).
    if (path.startsWith('/model/') || path.startsWith('/system/')) this.refresh();
    this.updateHints();
  }

  /** A preset picker: another preset, or the custom entry (an inline copy of the current one). */
  private async pick(path: string, value: unknown): Promise<void> {
    this.dropLocalErrors(path);
    if (path === '/system/device') {
      this.inlineFor(path);
      if (value !== CUSTOM) setPointer(this.current, path, value);
    } else if (value === CUSTOM) {
      this.inlineFor(`${path}/x`);
    } else if (path === '/model') {
      this.current.model = value;
      this.modelPreset = await this.deps.preset('models', String(value));
    } else {
      this.current.system = value;
      this.systemPreset = await this.deps.preset('systems', String(value));
    }
    this.refresh();
  }

  /**
   * The software stack: a profile id, none (the system's own block), or the custom entry (an
   * inline copy of the profile in effect, to edit in the JSON view; an inline one stays as it is).
   */
  private async pickSoftware(value: unknown): Promise<void> {
    this.dropLocalErrors('/software');
    if (value === undefined || value === '') delete this.current.software;
    else if (value !== CUSTOM) this.current.software = value;
    else if (typeof this.current.software === 'string') {
      const id = this.current.software;
      const base = await this.deps.preset('software', id);
      if (base) this.current.software = editedCopy(base, id, `edited copy of software profile ${id}`);
    } else if (this.current.software === undefined) this.current.software = { name: 'Custom stack', software: {} };
    this.refresh();
  }

  private switchWorkload(key: string, on: boolean): void {
    this.dropLocalErrors(`/${key}`);
    if (on && this.current[key] === undefined) this.current[key] = clone(this.parked[key]);
    if (!on && this.current[key] !== undefined) {
      this.parked[key] = this.current[key];
      delete this.current[key];
    }
    this.refresh();
  }

  /** A whole layout stated at once (a fix that names one): the search's choice no longer. */
  private stateLayout(layout: object): void {
    this.dropLocalErrors('/parallel');
    this.current.parallel = clone(layout);
    this.refresh();
  }

  /** parallel: "auto" on (the layout fields park) or off (they come back as they were). */
  private switchAuto(on: boolean): void {
    this.dropLocalErrors('/parallel');
    const cur = this.current.parallel;
    if (on && cur !== 'auto') {
      this.parkedObjects.set('/parallel', cur);
      this.current.parallel = 'auto';
    }
    // Off: the layout the search took for this scenario, else the one parked when auto went on.
    if (!on && cur === 'auto') this.current.parallel = clone(this.deps.autoLayout?.() ?? this.parkedObjects.get('/parallel') ?? {});
    this.refresh();
  }

  /** Adds or removes a nested object of the model (its switch), keeping it to switch back on. */
  private switchObject(g: ObjectGroup, on: boolean): void {
    this.dropLocalErrors(g.path);
    const present = this.effective(g.path) !== undefined;
    if (on === present) return this.refresh();
    this.inlineFor(g.path);
    if (on) setPointer(this.current, g.path, clone(this.parkedObjects.get(g.path) ?? g.first?.((p) => this.effective(p)) ?? {}));
    else {
      this.parkedObjects.set(g.path, clone(getPointer(this.current, g.path)));
      setPointer(this.current, g.path, undefined);
    }
    this.refresh();
  }

  /**
   * Before a key of an absent nested object is set: the object with its required keys at the
   * values in effect (attention's type as kv_heads implies), so the edit alone is not an error.
   */
  private createObjectFor(path: string): void {
    // The innermost group holding the path (serving's objectives sit inside serving).
    const g = [...OBJECT_GROUPS].reverse().find((o) => path.startsWith(`${o.path}/`));
    if (!g || getPointer(this.current, g.path) !== undefined) return;
    const obj: Record<string, unknown> = {};
    for (const key of schemaAt(this.schema, g.path)?.required ?? []) {
      const v = this.effective(`${g.path}/${key}`);
      if (v !== undefined) obj[key] = v;
    }
    setPointer(this.current, g.path, obj);
  }

  /** Makes the model (or system) inline before one of its fields is edited. */
  private inlineFor(path: string): void {
    const s = this.current;
    if (path.startsWith('/model/') && typeof s.model === 'string') {
      const base = editedCopy(this.modelPreset ?? {}, s.model, `edited copy of preset ${s.model}`);
      delete base.notes;
      s.model = base;
    }
    if (path.startsWith('/system/') && typeof s.system === 'string') s.system = editedCopy(this.systemPreset ?? {}, s.system);
  }

  // ---- Errors -----------------------------------------------------------------------------------

  private setLocalError(path: string, message: string | null): void {
    const slot = this.errorSlots.get(path);
    if (slot) {
      slot.textContent = message ?? '';
      slot.hidden = message === null;
      slot.removeAttribute('title'); // an engine error's code and message (showError) go with it
    }
    this.inputs.get(path)?.setAttribute('aria-invalid', message === null ? 'false' : 'true');
  }

  private clearEngineErrors(): void {
    for (const p of this.errorSlots.keys()) if (!this.localErrors.has(p)) this.setLocalError(p, null);
    this.general.hidden = true;
    this.general.textContent = '';
    this.general.removeAttribute('title');
  }

  /** Forgets unparsed text in the fields under a path whose values are being replaced. */
  private dropLocalErrors(prefix: string): void {
    for (const p of [...this.localErrors]) {
      if (p.startsWith(`${prefix}/`)) {
        this.localErrors.delete(p);
        this.setLocalError(p, null);
      }
    }
  }

  // ---- The device-count hint ----------------------------------------------------------------------

  private product(): number | null {
    const g = (k: string): number => {
      const v = this.effective(`/parallel/${k}`);
      return typeof v === 'number' ? v : NaN;
    };
    const p = g('tp') * g('pp') * g('dp') * g('cp');
    return Number.isFinite(p) ? p : null;
  }

  private updateHints(): void {
    if (this.current.parallel === 'auto') {
      this.hint.textContent = 'The engine picks tp, pp, dp, cp and the rest for the devices in the job.';
      this.hint.classList.remove('warn');
      this.fixBtn.hidden = true;
      return;
    }
    const p = this.product();
    const n = this.current.num_devices;
    const off = typeof n === 'number' && n !== p;
    if (p === null) {
      this.hint.textContent = '';
      this.fixBtn.hidden = true;
      return;
    }
    this.hint.textContent = `tp × pp × dp × cp = ${p}${off ? ` ≠ ${String(n)} devices` : ' devices'}`;
    this.hint.classList.toggle('warn', off);
    this.fixBtn.hidden = !off;
    this.fixBtn.textContent = `Set devices to ${p}`;
  }

  private fixDevices(): void {
    const prod = this.product();
    if (prod) {
      this.current.num_devices = prod;
      this.refresh();
      this.deps.onEdit();
    }
  }
}

export function createEditor(deps: EditorDeps): Editor {
  return new ScenarioEditor(deps);
}
