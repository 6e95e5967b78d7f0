// @vitest-environment happy-dom
// The editor and the results panel in a DOM (happy-dom): data-path fields, inline copies of
// presets on edit, error routing by JSON Pointer, workload toggles, and the DOM contract of the
// results (data-metric / data-value = String(x)) with pinned differences.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEditor, keyLabel, type Editor } from '../../src/ui/editor';
import { renderResults } from '../../src/ui/results';
import type { JsonSchema, Prediction } from '../../src/engine/types';
import { loadModule } from '../wasm';

const presets = {
  models: [
    { id: 'm1', name: 'Model One', source: 'paper' },
    { id: 'moe1', name: 'MoE One', source: 'paper' },
  ],
  systems: [{ id: 's1', name: 'System One', source: 'datasheet' }],
  software: [
    { id: 'sw1', name: 'Stack One', source: 'docs' },
    { id: 'sw2', name: 'Stack Two', source: 'docs' },
  ],
  devices: [
    { id: 'd1', name: 'Device One', source: 'datasheet' },
    { id: 'd2', name: 'Device Two', source: 'datasheet' },
  ],
};
const store: Record<string, Record<string, Record<string, unknown>>> = {
  models: {
    m1: { name: 'Model One', source: 'paper', layers: 2, hidden: 64, heads: 4, ffn_hidden: 256, vocab: 100, notes: 'not modelled: x' },
    fp8m: { name: 'FP8 One', layers: 2, hidden: 64, heads: 4, ffn_hidden: 256, vocab: 100, checkpoint_precision: 'fp8', checkpoint_block_scaled: true },
    moe1: {
      name: 'MoE One',
      layers: 4,
      hidden: 64,
      heads: 4,
      ffn_hidden: 256,
      vocab: 100,
      norm: 'rmsnorm',
      ffn_type: 'swiglu',
      attention: { type: 'mla', q_lora_rank: 32, kv_lora_rank: 16, qk_nope_head_dim: 16, qk_rope_head_dim: 8, v_head_dim: 16 },
      moe: { experts: 16, top_k: 2, expert_ffn_hidden: 32, shared_experts: 1, first_dense_layers: 1 },
    },
  },
  software: { sw1: { name: 'Stack One', source: 'docs', software: { attention: 'standard', training_matmul_share: 0.74 } } },
  systems: { s1: { name: 'System One', device: 'd1', devices_per_node: 8, scale_up: { bandwidth_GBps: 450, latency_us: 2, domain_size: 8 }, scale_out: { bandwidth_GBps: 50, latency_us: 3 } } },
};
const start = { schema_version: 1, model: 'm1', system: 's1', num_devices: 8, parallel: { tp: 8, pp: 1, dp: 1 }, training: { global_batch: 8, seq_len: 128, precision: 'bf16' } };

const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
const field = (path: string): HTMLInputElement & HTMLSelectElement => document.querySelector(`[data-path="${path}"]`)!;
const slot = (path: string): HTMLElement => document.querySelector(`[data-error-for="${path}"]`)!;
function type(path: string, value: string): void {
  const f = field(path);
  f.value = value;
  f.dispatchEvent(new Event(f.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
}

let schema: JsonSchema;
beforeAll(async () => {
  schema = (JSON.parse((await loadModule()).schema!()) as { scenario: JsonSchema }).scenario;
});

let editor: Editor;
let edits: number;
let stateAtEdit: string | undefined;
let invalid: Array<[string, string]>;

beforeEach(async () => {
  document.body.replaceChildren();
  edits = 0;
  invalid = [];
  editor = createEditor({
    presets: () => presets,
    preset: async (kind, id) => JSON.parse(JSON.stringify(store[kind]?.[id] ?? null)) as Record<string, unknown> | null,
    schema: async () => schema,
    onEdit: () => {
      edits += 1;
      stateAtEdit = editor.el.dataset.state;
    },
    onInvalid: (p, m) => invalid.push([p, m]),
  });
  document.body.append(editor.el);
  await editor.load(JSON.parse(JSON.stringify(start)) as Record<string, unknown>);
});

describe('scenario editor', () => {
  it('shows preset values and documented defaults in labelled data-path fields', () => {
    expect(field('/model').value).toBe('m1');
    expect(field('/model/layers').value).toBe('2');
    expect(field('/system/device').value).toBe('d1');
    expect(field('/system/scale_up/bandwidth_GBps').value).toBe('450');
    expect(field('/parallel/cp').value).toBe('1');
    expect(field('/parallel/sequence_parallel').checked).toBe(true); // default: tp > 1
    expect(field('/training').checked).toBe(true);
    expect(field('/inference').checked).toBe(false);
    for (const el of document.querySelectorAll<HTMLElement>('[data-path]')) {
      expect(document.querySelector(`label[for="${el.id}"]`), el.dataset.path).not.toBeNull();
    }
  });

  it('editing a field of a preset model makes an inline copy with the edit', async () => {
    type('/model/layers', '3');
    await flush();
    const m = editor.scenario().model as Record<string, unknown>;
    expect(m).toMatchObject({ layers: 3, hidden: 64, heads: 4, ffn_hidden: 256, vocab: 100, name: 'Model One (edited)' });
    expect(m).not.toHaveProperty('notes');
    expect(editor.followNotes()).toEqual(['Editing one of its fields made the model a custom copy, “Model One (edited)”: pick the preset again to undo.']);
    type('/model/layers', '4');
    await flush();
    expect(editor.followNotes()).toEqual([]);
    expect(field('/model').value).toBe('__inline');
    expect(edits).toBe(2);
  });

  it('is busy from an edit until it has asked for the estimate: a picked model waits for its preset', async () => {
    expect(editor.el.dataset.state).toBe('ready');
    const picked = editor.edit('/model', 'moe1');
    expect(editor.el.dataset.state).toBe('loading');
    expect(edits).toBe(0);
    await picked;
    expect(edits).toBe(1);
    expect(stateAtEdit).toBe('loading');
    expect(editor.el.dataset.state).toBe('ready');
    expect(editor.scenario().model).toBe('moe1');
  });

  it('picking another device makes the system inline with that device', async () => {
    type('/system/device', 'd2');
    await flush();
    expect(editor.scenario().system).toMatchObject({ device: 'd2', devices_per_node: 8, name: 'System One (edited)' });
  });

  it('text that is not a number is reported at its field and nothing is computed', async () => {
    type('/parallel/tp', '8x');
    await flush();
    expect(invalid).toEqual([['/parallel/tp', 'Tensor (tp): "8x" is not a number.']]);
    expect(edits).toBe(0);
    expect(slot('/parallel/tp').hidden).toBe(false);
    expect(field('/parallel/tp').getAttribute('aria-invalid')).toBe('true');
    type('/parallel/tp', '4');
    await flush();
    expect(slot('/parallel/tp').hidden).toBe(true);
    expect(edits).toBe(1);
    expect((editor.scenario().parallel as Record<string, unknown>).tp).toBe(4);
  });

  it('plans the run: prices make an inline economics object, and a failure rate an inline system', async () => {
    type('/training/train_tokens', '1e9');
    type('/economics/usd_per_gpu_hour', '2.5');
    type('/economics/pue', '1.1');
    type('/system/operations/failures_per_device_hour', '0.0001');
    type('/training/checkpoint_interval_s', '3600');
    await flush();
    const s = editor.scenario();
    expect(s.economics).toEqual({ usd_per_gpu_hour: 2.5, pue: 1.1 });
    expect((s.system as Record<string, unknown>).operations).toMatchObject({ failures_per_device_hour: 0.0001 });
    expect((s.training as Record<string, unknown>).checkpoint_interval_s).toBe(3600);
    // An economics preset id is replaced by an object before a price is set.
    await editor.load({ ...JSON.parse(JSON.stringify(start)), economics: 'us-2025' } as Record<string, unknown>);
    type('/economics/usd_per_kwh', '0.2');
    await flush();
    expect(editor.scenario().economics).toEqual({ usd_per_kwh: 0.2 });
    type('/economics/usd_per_kwh', '');
    await flush();
    expect(editor.scenario().economics).toEqual({});
  });

  it('plans a run with a batch ramp and later stages typed as JSON, and clears them when emptied', async () => {
    type('/training/train_tokens', '1e9');
    type('/training/batch_ramp', '[[1e8, 4]]');
    type('/training/stages', '[{"tokens": 1e8, "seq_len": 512, "global_batch": 2}]');
    await flush();
    const t = editor.scenario().training as Record<string, unknown>;
    expect(t.batch_ramp).toEqual([[1e8, 4]]);
    expect(t.stages).toEqual([{ tokens: 1e8, seq_len: 512, global_batch: 2 }]);
    type('/training/stages', '[{"tokens": 1e8');
    await flush();
    expect(invalid.some(([p]) => p === '/training/stages')).toBe(true);
    type('/training/stages', '');
    await flush();
    expect((editor.scenario().training as Record<string, unknown>).stages).toBeUndefined();
  });

  it('speculative decoding: its switch adds a starting block, its fields edit it, the draft takes a preset id', async () => {
    await editor.load({ ...JSON.parse(JSON.stringify(start)), training: undefined, inference: { batch: 1, prompt_len: 64, output_len: 16 } } as Record<string, unknown>);
    const sw = field('/inference/speculative');
    expect(sw.checked).toBe(false);
    expect(field('/inference/speculative/draft_tokens').disabled).toBe(true);
    sw.checked = true;
    sw.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect((editor.scenario().inference as Record<string, unknown>).speculative).toEqual({ draft_tokens: 1 });
    type('/inference/speculative/draft_tokens', '4');
    type('/inference/speculative/acceptance_rate', '0.7');
    type('/inference/speculative/draft', 'llama3-8b');
    await flush();
    expect((editor.scenario().inference as Record<string, unknown>).speculative).toEqual({ draft_tokens: 4, acceptance_rate: 0.7, draft: 'llama3-8b' });
  });

  it('an emptied optional field removes its key (the default applies)', async () => {
    type('/parallel/micro_batch', '2');
    await flush();
    expect((editor.scenario().parallel as Record<string, unknown>).micro_batch).toBe(2);
    type('/parallel/micro_batch', '');
    await flush();
    expect(editor.scenario().parallel).not.toHaveProperty('micro_batch');
  });

  it.each([
    ['/parallel/zero_shard', 'ZeRO shard group', 'all dp ranks', 'parallel', 'zero_shard', 4],
    ['/parallel/recompute_fraction', 'Recomputed layer share', 'every layer (1)', 'parallel', 'recompute_fraction', 0.5],
    ['/inference/weight_group_size', 'Weight group', 'int4: 128, int8: per channel', 'inference', 'weight_group_size', 32],
  ] as const)('the optional field %s writes its key, and emptied it is gone', async (path, label, placeholder, parent, key, value) => {
    const f = field(path);
    expect(document.querySelector(`label[for="${f.id}"]`)?.textContent).toContain(label);
    expect(f.placeholder).toBe(placeholder);
    type(path, String(value));
    await flush();
    expect((editor.scenario()[parent] as Record<string, unknown>)[key]).toBe(value);
    type(path, '');
    await flush();
    expect(editor.scenario()[parent]).not.toHaveProperty(key);
  });

  it('the software stack picker writes a profile id, drops it for the system default, and inlines a copy for custom', async () => {
    const f = field('/software');
    expect(document.querySelector(`label[for="${f.id}"]`)?.textContent).toContain('Software stack');
    expect([...f.options].map((o) => o.value)).toEqual(['', 'sw1', 'sw2', '__inline']);
    expect(f.value).toBe('');
    expect(editor.scenario()).not.toHaveProperty('software');
    type('/software', 'sw1');
    await flush();
    expect(editor.scenario().software).toBe('sw1');
    expect(edits).toBeGreaterThan(0);
    type('/software', '__inline');
    await flush();
    const inline = editor.scenario().software as Record<string, unknown>;
    expect(inline.software).toEqual({ attention: 'standard', training_matmul_share: 0.74 });
    expect(String(inline.source)).toContain('sw1');
    expect(field('/software').value).toBe('__inline');
    type('/software', '');
    await flush();
    expect(editor.scenario()).not.toHaveProperty('software');
    // A scenario that names a stack shows it.
    await editor.load({ ...JSON.parse(JSON.stringify(start)), software: 'sw2' } as Record<string, unknown>);
    expect(field('/software').value).toBe('sw2');
  });

  it('engine errors go next to the field named by their path, or its nearest parent, else to the general area', () => {
    editor.showError({ code: 'parallel.tp_not_divisor_of_heads', path: '/parallel/tp', message: 'tp=3 does not divide heads' });
    expect(slot('/parallel/tp').textContent).toBe('tp=3 does not divide heads');
    expect(slot('/parallel/tp').getAttribute('role')).toBe('alert');
    editor.showError({ code: 'parallel.product_mismatch', path: '/parallel', message: 'product' });
    expect(slot('/parallel/tp').hidden).toBe(true);
    expect(slot('/parallel').textContent).toBe('product');
    editor.showError({ code: 'model.x', path: '/model/source', message: 'source' });
    expect(slot('/model').textContent).toBe('source');
    editor.showError({ code: 'model.moe_top_k_exceeds_experts', path: '/model/moe/top_k', message: 'top_k' });
    expect(slot('/model/moe/top_k').textContent).toBe('top_k');
    expect(slot('/model').hidden).toBe(true);
    editor.showError({ code: 'scenario.no_workload', path: '', message: 'no workload' });
    const general = document.querySelector<HTMLElement>('[data-testid="scenario-error"]')!;
    expect(general.hidden).toBe(false);
    expect(general.textContent).toBe('no workload');
    editor.showError(null);
    expect(general.hidden).toBe(true);
  });

  it('switching a workload off and on restores what it was', async () => {
    type('/training/seq_len', '256');
    await flush();
    const f = field('/training');
    f.checked = false;
    f.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect(editor.scenario()).not.toHaveProperty('training');
    expect(field('/training/seq_len').disabled).toBe(true);
    f.checked = true;
    f.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect(editor.scenario().training).toEqual({ global_batch: 8, seq_len: 256, precision: 'bf16' });
  });

  it('shows the device product and offers to fix num_devices', async () => {
    type('/parallel/dp', '2');
    await flush();
    const hint = document.querySelector('.hint')!;
    expect(hint.textContent).toBe('tp × pp × dp × cp = 16 ≠ 8 devices');
    const fix = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Set devices to 16')!;
    fix.click();
    expect(editor.scenario().num_devices).toBe(16);
  });
});

describe('scenario editor fields from the engine schema', () => {
  const values = (path: string): string[] => [...field(path).querySelectorAll('option')].map((o) => o.value);

  it('lists the values of the name tables', () => {
    expect(values('/training/precision')).toEqual(['fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'mxfp8', 'nvfp4', 'mxfp4']);
    expect(values('/inference/precision')).toEqual(['fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4', 'mxfp8', 'nvfp4', 'mxfp4']);
    expect(values('/inference/kv_precision')).toEqual(['', 'fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4', 'mxfp8', 'nvfp4', 'mxfp4']);
    expect(values('/parallel/recompute')).toEqual(['none', 'selective', 'full']);
    expect(values('/model/ffn_type')).toEqual(['gelu', 'swiglu', 'relu2']);
    expect(values('/model/position')).toEqual(['learned', 'rotary', 'none']);
    expect(values('/parallel/zero_stage')).toEqual(['0', '1', '2', '3']);
  });

  it('a CUDA-graph switch left absent says the runtime decides, and writes true, false or nothing', async () => {
    // An unticked box would read "off", while an absent key means the engine profile's default
    // (vLLM replays graphs): the field is a three-way select.
    await editor.load({ schema_version: 1, model: 'm1', system: 's1', num_devices: 8, rl: { prompts_per_step: 8 } });
    const f = field('/rl/rollout/cuda_graphs');
    expect(f.tagName).toBe('SELECT');
    expect(f.value).toBe('');
    expect(Array.from(f.options).map((o) => o.textContent)).toEqual(['the engine’s (vLLM, SGLang: on)', 'on: replayed', 'off: enforce_eager']);
    type('/rl/rollout/cuda_graphs', 'false');
    await flush();
    expect(((editor.scenario().rl as Record<string, unknown>).rollout as Record<string, unknown>).cuda_graphs).toBe(false);
    type('/rl/rollout/cuda_graphs', 'true');
    await flush();
    expect(((editor.scenario().rl as Record<string, unknown>).rollout as Record<string, unknown>).cuda_graphs).toBe(true);
    type('/rl/rollout/cuda_graphs', '');
    await flush();
    expect((editor.scenario().rl as Record<string, unknown>).rollout ?? {}).not.toHaveProperty('cuda_graphs');
    await editor.load({ schema_version: 1, model: 'm1', system: 's1', num_devices: 8, parallel: { tp: 8 }, inference: { batch: 1, prompt_len: 16, output_len: 16, cuda_graphs: false } });
    expect(field('/inference/cuda_graphs').value).toBe('false');
  });

  it('the rollout engine is a profile id typed in, vllm when left empty', async () => {
    await editor.load({ schema_version: 1, model: 'm1', system: 's1', num_devices: 8, rl: { prompts_per_step: 8 } });
    expect(field('/rl/rollout/software').placeholder).toBe('vllm');
    type('/rl/rollout/software', 'sglang');
    await flush();
    expect(((editor.scenario().rl as Record<string, unknown>).rollout as Record<string, unknown>).software).toBe('sglang');
    type('/rl/rollout/software', '');
    await flush();
    expect((editor.scenario().rl as Record<string, unknown>).rollout ?? {}).not.toHaveProperty('software');
  });

  it('keeps the prices editable for an RL job and a serving one, whose costs use them (not only training)', async () => {
    await editor.load({ schema_version: 1, model: 'm1', system: 's1', num_devices: 8, rl: { prompts_per_step: 8 } });
    expect(field('/economics/usd_per_gpu_hour').disabled).toBe(false);
    expect(field('/training/global_batch').disabled).toBe(true);
    await editor.load({ schema_version: 1, model: 'm1', system: 's1', num_devices: 8, parallel: { tp: 8 }, inference: { batch: 1, prompt_len: 16, output_len: 16 } });
    expect(field('/economics/usd_per_gpu_hour').disabled).toBe(false);
  });

  it('shows the served precision the engine takes when none is stated: the model checkpoint’s, with its block scales', async () => {
    const serve = (model: string) => ({ schema_version: 1, model, system: 's1', num_devices: 8, parallel: { tp: 8 }, inference: { batch: 1, prompt_len: 16, output_len: 16 } });
    await editor.load(serve('fp8m'));
    expect(field('/inference/precision').value).toBe('fp8');
    expect(field('/inference/fp8_block_scaled').checked).toBe(true);
    await editor.load(serve('m1'));
    expect(field('/inference/precision').value).toBe('fp16');
    expect(field('/inference/fp8_block_scaled').checked).toBe(false);
  });

  it('shows and edits the checkpoint a model is published in, and the served precision follows it', async () => {
    const serve = (model: string) => ({ schema_version: 1, model, system: 's1', num_devices: 8, parallel: { tp: 8 }, inference: { batch: 1, prompt_len: 16, output_len: 16 } });
    await editor.load(serve('fp8m'));
    expect(field('/model/checkpoint_precision').value).toBe('fp8');
    expect(field('/model/checkpoint_block_scaled').checked).toBe(true);
    expect(field('/model/mtp_layers').placeholder).toBe('0');
    await editor.load(serve('m1'));
    // Not stated: the empty choice, in words.
    expect(field('/model/checkpoint_precision').value).toBe('');
    expect(field('/model/checkpoint_precision').selectedOptions[0]!.textContent).toBe('16-bit');
    type('/model/checkpoint_precision', 'fp8');
    await flush();
    expect(editor.scenario().model).toMatchObject({ layers: 2, checkpoint_precision: 'fp8' });
    expect(field('/inference/precision').value).toBe('fp8');
    type('/model/mtp_layers', '1');
    await flush();
    expect(editor.scenario().model).toMatchObject({ checkpoint_precision: 'fp8', mtp_layers: 1 });
  });

  it('shows the engine defaults, also those that follow the norm', async () => {
    expect(field('/model/ffn_type').value).toBe('gelu');
    expect(field('/model/norm').value).toBe('layernorm');
    expect(field('/model/position').value).toBe('learned');
    expect(field('/model/bias').checked).toBe(true);
    expect(field('/model/tied_embeddings').checked).toBe(true);
    expect(field('/parallel/micro_batch').placeholder).toBe('1');
    type('/model/norm', 'rmsnorm');
    await flush();
    expect(field('/model/position').value).toBe('rotary');
    expect(field('/model/bias').checked).toBe(false);
    expect(editor.scenario().model).not.toHaveProperty('bias');
  });

  it('takes tooltips (with units) and whether a key may be empty from the schema', async () => {
    expect(field('/system/scale_up/bandwidth_GBps').title).toContain('Unit: GB/s');
    type('/parallel/tp', ''); // tp defaults to 1
    await flush();
    expect(invalid).toEqual([]);
    expect(editor.scenario().parallel).not.toHaveProperty('tp');
    type('/training/seq_len', '');
    await flush();
    expect(invalid).toEqual([['/training/seq_len', 'Sequence length: Enter a number.']]);
  });
});

describe('parallel: "auto"', () => {
  it('the switch sets parallel to "auto", parks the layout fields, and off brings the layout back', async () => {
    const f = field('/parallel');
    expect(f.checked).toBe(false);
    f.checked = true;
    f.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect(editor.scenario().parallel).toBe('auto');
    expect(field('/parallel/tp').disabled).toBe(true);
    expect(field('/parallel/tp').value).toBe('');
    expect(field('/parallel/tp').placeholder).toBe('auto');
    expect(document.body.textContent).toContain('The engine picks tp, pp, dp, cp');
    expect(edits).toBe(1);
    f.checked = false;
    f.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect(editor.scenario().parallel).toEqual({ tp: 8, pp: 1, dp: 1 });
    expect(field('/parallel/tp').disabled).toBe(false);
    expect(field('/parallel/tp').value).toBe('8');
    expect(field('/parallel/dp').placeholder).toBe('rest of the devices');
  });
  it('switching auto off states the layout the search took for the scenario on screen, so the numbers do not change', async () => {
    // On the Train task, 128 GPUs: auto took TP8 PP1 DP16 (27.9 s, 76.9 GiB); unticking it gave
    // tp 1 pp 1 dp 128 (1.32 TiB, not fitting) and other numbers.
    document.body.replaceChildren();
    let pick: unknown;
    const ed = createEditor({
      presets: () => presets,
      preset: async (kind, id) => JSON.parse(JSON.stringify(store[kind]?.[id] ?? null)) as Record<string, unknown> | null,
      schema: async () => schema,
      onEdit: () => undefined,
      onInvalid: () => undefined,
      autoLayout: () => pick,
    });
    document.body.append(ed.el);
    await ed.load({ ...JSON.parse(JSON.stringify(start)), parallel: 'auto' } as Record<string, unknown>);
    pick = { tp: 4, pp: 1, dp: 2, micro_batch: 1, zero_stage: 1 };
    await ed.edit('/parallel', false);
    expect(ed.scenario().parallel).toEqual(pick);
    expect(field('/parallel').checked).toBe(false);
    expect(field('/parallel/tp').value).toBe('4');
    expect(field('/parallel/dp').value).toBe('2');
    // on again and off without a current pick (an estimate in flight): the layout parked when auto went on
    await ed.edit('/parallel', true);
    pick = undefined;
    await ed.edit('/parallel', false);
    expect(ed.scenario().parallel).toEqual({ tp: 4, pp: 1, dp: 2, micro_batch: 1, zero_stage: 1 });
  });

  it('a scenario that comes with "auto" (a share link) shows the switch on', async () => {
    await editor.load({ ...JSON.parse(JSON.stringify(start)), parallel: 'auto' } as Record<string, unknown>);
    expect(field('/parallel').checked).toBe(true);
    expect(field('/parallel/pp').disabled).toBe(true);
  });
  it('the results say which layout the search took, and what it fixed first', () => {
    const el = document.createElement('div');
    const pred = {
      training: { iteration_time_s: 1, tokens_per_s: 1, mfu: 0.5, hfu: 0.5, breakdown_s: { compute: 1 } },
      memory: { per_device_bytes: { weights: 1, gradients: 0, optimizer: 0, activations: 0, kv_cache: 0, total: 1 }, capacity_bytes: 100, fits: true },
      warnings: [],
      parallel_auto: { parallel: { tp: 8, pp: 2, dp: 4, cp: 1, micro_batch: 1, interleave: 1, recompute: 'none', zero_stage: 1 }, mode: 'training', evaluated: 1200, feasible: 300, simulated: 0, narrowed: { zero_stage: 1 } },
    } as unknown as Prediction;
    renderResults(el, { prediction: pred, resolved: null }, null);
    const sec = el.querySelector('[data-testid="auto-layout"]')!;
    expect(sec.textContent).toContain('TP8 PP2 DP4');
    expect(sec.textContent).toContain('300 layouts that fit, out of 1,200 searched');
    expect(sec.textContent).toContain('fixed zero_stage 1');
    // a training pick is said to be the engine's optimum, faster than teams' own layouts measured
    expect(sec.textContent).toContain('published training runs at theirs came out 4–17% slower');
  });
  it('a served scenario\'s layout is said to be the one that serves its stream best', () => {
    const el = document.createElement('div');
    const served = (simulated: number, feasible: number) =>
      ({
        inference: { ttft_s: 1, tpot_s: 1, e2e_latency_s: 1, throughput_tokens_per_s: 1 },
        memory: { per_device_bytes: { weights: 1, gradients: 0, optimizer: 0, activations: 0, kv_cache: 0, total: 1 }, capacity_bytes: 100, fits: true },
        warnings: [],
        parallel_auto: { parallel: { tp: 4, pp: 1, dp: 2, cp: 1, micro_batch: 1, interleave: 1, recompute: 'none', zero_stage: 0 }, mode: 'serving', evaluated: 40, feasible, simulated, narrowed: {} },
      }) as unknown as Prediction;
    renderResults(el, { prediction: served(16, 30), resolved: null }, null);
    const text = el.querySelector('[data-testid="auto-layout"]')!.textContent;
    expect(text).toContain('serves this request stream best');
    expect(text).toContain('the 16 highest-throughput of 30 layouts that fit, each run with the stream, out of 40 searched');
    renderResults(el, { prediction: served(9, 9), resolved: null }, null);
    expect(el.querySelector('[data-testid="auto-layout"]')!.textContent).toContain('of all 9 layouts that fit');
    expect(el.querySelector('[data-testid="auto-layout"]')!.textContent).not.toContain('published training runs');
  });
});

describe('results panel', () => {
  const mem = (total: number, fits: boolean) => ({ per_device_bytes: { weights: total, gradients: 0, optimizer: 0, activations: 0, kv_cache: 0, total }, capacity_bytes: 100, fits });
  const p = (t: number, fits = true): Prediction =>
    ({ training: { iteration_time_s: t, tokens_per_s: 1000 / t, mfu: 0.5, hfu: 0.5, breakdown_s: { compute: t } }, memory: mem(50, fits), warnings: [{ code: 'x.y', message: 'careful' }] }) as unknown as Prediction;

  it('every number carries data-metric and data-value = String(x)', () => {
    const el = document.createElement('div');
    renderResults(el, { prediction: p(0.1 + 0.2), resolved: null }, null);
    const shown = Object.fromEntries([...el.querySelectorAll<HTMLElement>('[data-metric]')].map((e) => [e.dataset.metric, e.dataset.value]));
    expect(shown['training.iteration_time_s']).toBe(String(0.1 + 0.2));
    expect(shown['memory.fits']).toBe('true');
    expect(shown['memory.per_device_bytes.total']).toBe('50');
    expect(el.querySelector('[data-metric="training.iteration_time_s"]')!.textContent).toBe('300 ms');
    expect(el.querySelector('[data-warning="x.y"]')!.textContent).toContain('careful');
  });

  it('says under a section what its 80% ranges are fitted on, and only where it has ranges', () => {
    const el = document.createElement('div');
    const pred = { ...p(2), uncertainty: { 'training.iteration_time_s': { low: 1.8, high: 2.6, regime: 'training/dense/earlier', cases: 53 } } } as unknown as Prediction;
    renderResults(el, { prediction: pred, resolved: null }, null);
    const notes = [...el.querySelectorAll('[data-testid="band-note"]')];
    expect(notes).toHaveLength(1);
    expect(notes[0]!.textContent).toContain('53 published training steps of dense models on GPUs without FP4 (H100, A100 and earlier)');
    expect(notes[0]!.closest('section')!.querySelector('h3')!.textContent).toBe('Training');
    expect(el.querySelector('[data-band-metric="training.iteration_time_s"]')!.textContent).toBe('80% range 1.8 – 2.6 s');
  });

  it('with a pinned result, shows it and the difference; "does not fit" stands out', () => {
    const el = document.createElement('div');
    renderResults(el, { prediction: p(12, false), resolved: null }, { prediction: p(10), resolved: null });
    expect(el.querySelector('[data-delta-metric="training.iteration_time_s"]')!.textContent).toBe('+2 s (+20 %)');
    expect(el.querySelector('[data-delta-metric="training.iteration_time_s"]')!.classList.contains('worse')).toBe(true);
    expect(el.querySelector('[data-delta-metric="training.tokens_per_s"]')!.classList.contains('worse')).toBe(true);
    expect(el.querySelector('[data-pinned-metric="training.iteration_time_s"]')!.getAttribute('data-value')).toBe('10');
    expect(el.querySelectorAll('[data-metric="training.iteration_time_s"]')).toHaveLength(1);
    expect(el.querySelector('.fit.bad')!.textContent).toContain('Does not fit');
    expect(el.querySelector('[data-metric="memory.fits"]')!.classList.contains('bad')).toBe(true);
  });
});

describe('mixture-of-experts and attention fields, from the schema', () => {
  const modelOf = (): Record<string, any> => editor.scenario().model as Record<string, any>;
  const keys = (object: 'moe' | 'attention'): string[] =>
    Object.entries((schema.$defs!.model!.properties![object]!.properties ?? {}) as Record<string, JsonSchema>)
      .filter(([, n]) => !(n.type === 'string' && !n.enum))
      .map(([k]) => k);

  it('shows a labelled field for every key of model.moe and model.attention, and ep/etp in the layout', () => {
    expect(keys('moe')).toEqual(expect.arrayContaining(['experts', 'top_k', 'expert_ffn_hidden', 'capacity_factor', 'router_balance', 'imbalance']));
    expect(keys('attention')).toEqual(expect.arrayContaining(['type', 'q_lora_rank', 'kv_lora_rank', 'qk_nope_head_dim', 'qk_rope_head_dim', 'v_head_dim', 'window', 'global_every']));
    for (const path of [...keys('moe').map((k) => `/model/moe/${k}`), ...keys('attention').map((k) => `/model/attention/${k}`), '/model/moe', '/parallel/ep', '/parallel/etp']) {
      const f = field(path);
      expect(f, path).not.toBeNull();
      expect(document.querySelector(`label[for="${f.id}"]`)?.textContent, path).toBeTruthy();
      expect(slot(path), path).not.toBeNull();
    }
    expect(document.querySelector(`label[for="${field('/model/moe/expert_ffn_hidden').id}"]`)!.textContent).toBe('Expert FFN hidden');
    expect(field('/model/moe/router_balance').tagName).toBe('SELECT');
    expect(field('/model/moe/experts').title).toBe('Routed experts per MoE layer.');
    expect(keyLabel('qk_rope_head_dim')).toBe('QK RoPE head dim');
    expect(keyLabel('num_requests')).toBe('Number of requests');
  });

  it('a dense model: MoE switched off with its fields disabled; the attention variant follows kv_heads', () => {
    expect(field('/model/moe').checked).toBe(false);
    expect(field('/model/moe/experts').disabled).toBe(true);
    expect(field('/model/attention/type').value).toBe('mha');
    expect(field('/model/attention/kv_lora_rank').disabled).toBe(false);
  });

  it('switching MoE on makes an inline copy with a starting MoE block; off and on restores it', async () => {
    const f = field('/model/moe');
    f.checked = true;
    f.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect(modelOf()).toMatchObject({ name: 'Model One (edited)', moe: { experts: 8, top_k: 2, expert_ffn_hidden: 256 } });
    expect(field('/model/moe/experts').disabled).toBe(false);
    expect(field('/model/moe/imbalance').value).toBe('1.2'); // measured routing by default
    type('/model/moe/experts', '16');
    await flush();
    expect(modelOf().moe.experts).toBe(16);
    f.checked = false;
    f.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect(modelOf()).not.toHaveProperty('moe');
    expect(field('/model/moe/experts').disabled).toBe(true);
    f.checked = true;
    f.dispatchEvent(new Event('change', { bubbles: true }));
    await flush();
    expect(modelOf().moe).toEqual({ experts: 16, top_k: 2, expert_ffn_hidden: 256 });
    expect(edits).toBe(4);
  });

  it('editing one attention key of a model without the object creates it with the type in effect', async () => {
    type('/model/attention/window', '128');
    await flush();
    expect(modelOf().attention).toEqual({ type: 'mha', window: 128 });
  });

  it('a MoE preset shows its values; editing one makes an inline copy', async () => {
    type('/model', 'moe1');
    await flush();
    expect(field('/model/moe').checked).toBe(true);
    expect(field('/model/moe/experts').value).toBe('16');
    expect(field('/model/moe/shared_expert_ffn_hidden').value).toBe('32'); // = expert_ffn_hidden
    expect(field('/model/attention/type').value).toBe('mla');
    expect(field('/model/attention/kv_lora_rank').value).toBe('16');
    type('/model/moe/top_k', '4');
    await flush();
    expect(modelOf()).toMatchObject({ name: 'MoE One (edited)', moe: { experts: 16, top_k: 4, shared_experts: 1 }, attention: { type: 'mla' } });
  });

  it('the engine error for ep=3 with 256 experts appears at the ep field', async () => {
    const mod = await loadModule();
    const s = { schema_version: 1, model: 'deepseek-v3', system: 'gb300-nvl72', num_devices: 256, parallel: { tp: 1, pp: 2, ep: 3, dp: 128 }, training: { global_batch: 4096, seq_len: 4096, precision: 'mxfp8' } };
    const r = JSON.parse(mod.validate(JSON.stringify(s))) as { error: { code: string; path: string; message: string } };
    expect(r.error).toMatchObject({ code: 'parallel.ep_not_divisor_of_experts', path: '/parallel/ep' });
    editor.showError(r.error);
    expect(slot('/parallel/ep').hidden).toBe(false);
    expect(slot('/parallel/ep').textContent).toBe(r.error.message);
    expect(field('/parallel/ep').getAttribute('aria-invalid')).toBe('true');
    expect(field('/parallel/ep').getAttribute('aria-describedby')).toBe(slot('/parallel/ep').id);
  });
});

describe('engine errors in plain words (probe 57)', () => {
  it('a field shows the words it is given, its title keeping the engine’s code and message', () => {
    const e = { code: 'parallel.auto_no_layout', path: '/parallel', message: 'no layout of 100000000 devices runs this scenario (27225 layouts: parallel.pp_exceeds_layers x4165)' };
    editor.showError(e, 'no layout divides this job over these GPUs');
    expect(slot('/parallel').textContent).toBe('no layout divides this job over these GPUs');
    expect(slot('/parallel').title).toBe(`${e.code}: ${e.message}`);
    editor.showError({ code: 'scenario.no_workload', path: '', message: 'no workload' }, 'nothing to estimate');
    const general = document.querySelector<HTMLElement>('[data-testid="scenario-error"]')!;
    expect(general.textContent).toBe('nothing to estimate');
    expect(general.title).toBe('scenario.no_workload: no workload');
    expect(slot('/parallel').hidden).toBe(true);
    expect(slot('/parallel').title).toBe('');
    editor.showError(null);
    expect(general.title).toBe('');
  });
});
