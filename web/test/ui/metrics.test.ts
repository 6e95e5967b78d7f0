// Explanations show the formula with the inputs that produced the number: check the inputs are
// the prediction's own numbers and that the formulas hold on them.
import { describe, expect, it } from 'vitest';
import { ALL_METRICS, devicePeak, explain, getPath, INFERENCE_METRICS, SERVING_METRICS, TRAINING_METRICS } from '../../src/ui/metrics';
import type { Prediction, ResolvedScenario } from '../../src/engine/types';

const scenario = {
  num_devices: 64,
  model: { layers: 80, hidden: 8192, heads: 64, ffn_hidden: 28672, vocab: 128256 },
  system: { device: { peak_tflops: { bf16: 989 }, memory: { capacity_GiB: 79.6, bandwidth_GBps: 3350 } } },
  parallel: { tp: 8, pp: 2, dp: 4, cp: 1, ep: 1, sequence_parallel: true, micro_batch: 1, interleave: 1, recompute: 'selective', zero_stage: 1 },
  training: { global_batch: 512, seq_len: 8192, precision: 'bf16', train_tokens: 1.5e13 },
  inference: { batch: 16, prompt_len: 2048, output_len: 256, precision: 'bf16' },
} as unknown as ResolvedScenario;

const t = 65.26991174562218;
const prediction = {
  training: { iteration_time_s: t, tokens_per_s: (512 * 8192) / t, mfu: 2.0192838907362017e18 / (t * 64 * 989e12), hfu: 0.49, model_flops: 2.0192838907362017e18, breakdown_s: { compute: 46.8 } },
  inference: { ttft_s: 1.27, tpot_s: 0.0167, e2e_latency_s: 1.27 + 255 * 0.0167, throughput_tokens_per_s: 1, prefill_s: { compute: 1, communication: 0.27 } },
  memory: { per_device_bytes: { weights: 1, gradients: 2, optimizer: 3, activations: 4, kv_cache: 0, total: 10 }, capacity_bytes: 85469849190.4, fits: true },
  warnings: [],
} as unknown as Prediction;

describe('metric explanations', () => {
  it('every metric path is unique (one data-metric element each)', () => {
    const paths = ALL_METRICS.map((m) => m.path);
    expect(new Set(paths).size).toBe(paths.length);
  });
  it('reads dotted paths', () => {
    expect(getPath(prediction, 'memory.per_device_bytes.total')).toBe(10);
    expect(getPath(prediction, 'training.nope.x')).toBeUndefined();
  });
  it('MFU: model FLOPs / (time x devices x peak) with the peak of the training precision', () => {
    expect(devicePeak(scenario, 'bf16')).toBe(989e12);
    expect(devicePeak(scenario, 'fp8')).toBeUndefined();
    const ex = explain(TRAINING_METRICS.find((m) => m.path === 'training.mfu')!, { prediction, scenario })!;
    expect(ex.formula).toMatch(/MFU = model FLOPs/);
    expect(Object.fromEntries(ex.inputs)).toEqual({ 'model flops': '2.02 EFLOP', 'iteration time': '65.3 s', devices: '64', 'peak (bf16)': '989 TFLOP/s' });
  });
  it('tokens/s and e2e name their inputs', () => {
    const tok = explain(TRAINING_METRICS.find((m) => m.path === 'training.tokens_per_s')!, { prediction, scenario })!;
    expect(Object.fromEntries(tok.inputs)).toMatchObject({ global_batch: '512', seq_len: '8192' });
    const e2e = explain(INFERENCE_METRICS.find((m) => m.path === 'inference.e2e_latency_s')!, { prediction, scenario })!;
    expect(e2e.formula).toBe('e2e = TTFT + (output_len − 1) × TPOT');
    expect(Object.fromEntries(e2e.inputs)).toEqual({ TTFT: '1.27 s', output_len: '256', TPOT: '16.7 ms' });
  });
  it('TPOT under speculation shows the acceptance the engine took for each drafted position', () => {
    const tpot = INFERENCE_METRICS.find((m) => m.path === 'inference.tpot_s')!;
    const spec = { ...scenario, inference: { ...scenario.inference, speculative: { draft_tokens: 3 } } } as unknown as ResolvedScenario;
    const speculative = { tokens_per_step: 2.841274515625, acceptance_by_position: [0.85, 0.7225, 0.614125], step_s: 0.03, draft_s: 0.004, verify_s: 0.026, tpot_without_s: 0.02, speedup: 1.9 };
    const withSpec = { ...prediction, inference: { ...prediction.inference, speculative } } as unknown as Prediction;
    const ex = explain(tpot, { prediction: withSpec, scenario: spec })!;
    expect(ex.formula).toMatch(/1 \+ a₁ \+ a₁a₂/);
    expect(Object.fromEntries(ex.inputs)).toMatchObject({ 'drafted tokens k': '3', 'acceptance by position a₁…a_k': '0.850, 0.723, 0.614', 'tokens per step': '2.841' });
  });
  it('inference memory names the weight group size only when the scenario sets one', () => {
    const weights = ALL_METRICS.find((m) => m.path === 'inference.memory.per_device_bytes.weights')!;
    expect(Object.fromEntries(explain(weights, { prediction, scenario })!.inputs)).not.toHaveProperty('weight_group_size');
    const int4 = { ...scenario, inference: { ...scenario.inference, precision: 'int4', weight_group_size: 32 } } as unknown as ResolvedScenario;
    expect(Object.fromEntries(explain(weights, { prediction, scenario: int4 })!.inputs)).toMatchObject({ precision: 'int4', weight_group_size: '32' });
  });
  it('wall-clock days list each later stage (training.stages) with its layout and ideal time', () => {
    const days = ALL_METRICS.find((m) => m.path === 'run.wall_days')!;
    const withRun = { ...prediction, run: { steps: 10, ideal_time_s: 1e7 } } as unknown as Prediction;
    expect(explain(days, { prediction: withRun, scenario })!.inputs.some(([k]) => k.startsWith('stage'))).toBe(false);
    const stage = { tokens: 8e11, seq_len: 131072, global_batch: 64, steps: 95368, iteration_time_s: 30.7, tokens_per_s: 2.7e5, mfu: 0.39, ideal_time_s: 2.92e6, memory_bytes: 4.2e10, fits: false, parallel: { tp: 8, pp: 4, cp: 16, dp: 2 } };
    const staged = { ...prediction, run: { steps: 10, ideal_time_s: 1e7, stages: [stage] } } as unknown as Prediction;
    const rows = explain(days, { prediction: staged, scenario })!.inputs.filter(([k]) => k.startsWith('stage'));
    expect(rows).toHaveLength(1);
    expect(rows[0][0]).toContain('131072 × 64');
    expect(rows[0][1]).toContain('tp 8 pp 4 cp 16 dp 2');
    expect(rows[0][1]).toContain('does not fit');
  });
  it('total memory names the pipeline stage whose device it is, when the engine says', () => {
    const total = ALL_METRICS.find((m) => m.path === 'memory.per_device_bytes.total')!;
    expect(explain(total, { prediction, scenario })!.formula).toMatch(/\(the most loaded device\)$/);
    const staged = { ...prediction, memory: { ...prediction.memory, pipeline_stage: 1 } } as unknown as Prediction;
    expect(explain(total, { prediction: staged, scenario })!.formula).toContain('(the most loaded device: pipeline stage 2 of 2, the heaviest)');
    expect(explain(total, { prediction: staged, scenario: null })!.formula).toContain('pipeline stage 2, the heaviest');
  });
  it('training memory names the recomputed layer share only when the scenario sets one', () => {
    const act = ALL_METRICS.find((m) => m.path === 'memory.per_device_bytes.activations')!;
    expect(Object.fromEntries(explain(act, { prediction, scenario })!.inputs)).not.toHaveProperty('recompute_fraction');
    const half = { ...scenario, parallel: { ...scenario.parallel, recompute: 'full', recompute_fraction: 0.5 } } as unknown as ResolvedScenario;
    expect(Object.fromEntries(explain(act, { prediction, scenario: half })!.inputs)).toMatchObject({ recompute: 'full', recompute_fraction: '0.5' });
  });
  it('iteration time names the software stack and its share of the matmul rate', () => {
    const it_ = TRAINING_METRICS.find((m) => m.path === 'training.iteration_time_s')!;
    const plain = { ...scenario, system: { ...scenario.system, software: { training_matmul_share: 1 } } } as unknown as ResolvedScenario;
    expect(Object.fromEntries(explain(it_, { prediction, scenario: plain })!.inputs)).toMatchObject({
      compute: '46.8 s',
      'software stack': 'system default',
      'its share of the matmul rate': '1',
    });
    const stack = { ...plain, software: 'megatron-deepspeed', system: { ...plain.system, software: { training_matmul_share: 0.74 } } } as unknown as ResolvedScenario;
    expect(Object.fromEntries(explain(it_, { prediction, scenario: stack })!.inputs)).toMatchObject({
      'software stack': 'megatron-deepspeed',
      'its share of the matmul rate': '0.74',
    });
  });
  it('time per output token says how the decode attention reads the KV cache', () => {
    const tpot = INFERENCE_METRICS.find((m) => m.path === 'inference.tpot_s')!;
    const grouped = { ...scenario, system: { ...scenario.system, software: { decode_kv_per_query_head: false } } } as unknown as ResolvedScenario;
    expect(Object.fromEntries(explain(tpot, { prediction, scenario: grouped })!.inputs)).toMatchObject({ 'KV cache read': 'once per KV head' });
    const perHead = { ...scenario, software: 'tensorrt-llm-2023', system: { ...scenario.system, software: { decode_kv_per_query_head: true } } } as unknown as ResolvedScenario;
    expect(Object.fromEntries(explain(tpot, { prediction, scenario: perHead })!.inputs)['KV cache read']).toMatch(/once per query head/);
    expect(Object.fromEntries(explain(tpot, { prediction, scenario: null })!.inputs)).toMatchObject({ 'KV cache read': '?' });
  });
  it('explanations never throw, with or without the resolved scenario', () => {
    for (const m of ALL_METRICS) {
      expect(() => explain(m, { prediction, scenario: null })).not.toThrow();
      expect(() => explain(m, { prediction: { memory: prediction.memory, warnings: [] } as unknown as Prediction, scenario })).not.toThrow();
    }
  });
});

describe('words that depend on the prediction', () => {
  const itl = SERVING_METRICS.find((m) => m.path === 'serving.itl_s.p99')!;
  const about = (s: { mean: number; p99: number }) =>
    typeof itl.about === 'function' ? itl.about({ serving: { itl_s: { ...s, p50: s.p99, p90: s.p99 } } } as unknown as Prediction) : itl.about;
  it('the p99 gap says why it sits below the mean when it does', () => {
    // A closed loop of 16 users with 250-token outputs: two long prefill steps per wave are 0.8%
    // of the gaps, so the mean (9.54 ms) is above the p99 (8.93 ms).
    expect(about({ mean: 9.54e-3, p99: 8.93e-3 })).toContain('Here it is below the mean');
    expect(about({ mean: 9.54e-3, p99: 8.93e-3 })).not.toContain('long before they move the mean');
    expect(about({ mean: 9e-3, p99: 30e-3 })).toContain('long before they move the mean');
  });
});
