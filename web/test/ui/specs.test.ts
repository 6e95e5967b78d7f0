// Chart specs are pure functions of a result (src/charts/specs.ts).
import { describe, expect, it } from 'vitest';
import { byBoundSpec, inferenceTimeSpec, layoutLabel, logSpace, memorySpec, rooflineSpec, searchScatterSpec, studyAxes, studyDefaults, studySpec, trainingTimeSpec } from '../../src/charts/specs';
import type { ScatterSpec } from '../../src/charts/specs';
import type { Prediction, ResolvedScenario, SearchResult, StudyResult } from '../../src/engine/types';

const mem = (total: number, cap: number) => ({
  per_device_bytes: { weights: total / 2, gradients: 0, optimizer: 0, activations: total / 4, kv_cache: total / 4, total },
  capacity_bytes: cap,
  fits: total <= cap,
});

const prediction: Prediction = {
  training: {
    iteration_time_s: 10,
    tokens_per_s: 1,
    mfu: 0.5,
    hfu: 0.5,
    breakdown_s: { compute: 6, recompute: 1, tp_comm: 1, cp_comm: 0, pp_comm: 0.5, dp_comm: 0.5, ep_comm: 0, host: 0, bubble: 0.75, optimizer: 0.25 },
    by_bound_s: { compute: 7, memory: 1, communication: 2, other: 0 },
    micro_batches: 8,
    layer_s: { forward: 0.1, backward: 0.2, recompute: 0.05 },
    model_flops: 1e18,
    hardware_flops: 1.2e18,
    assumed: { attention: 'flash', overlap_grad_reduce: true, tp_comm_overlap: false },
    operators: [],
    math_precision: 'bf16',
  },
  inference: {
    ttft_s: 0.3,
    tpot_s: 0.02,
    e2e_latency_s: 0.3 + 9 * 0.02,
    throughput_tokens_per_s: 1,
    prefill_s: { compute: 0.2, communication: 0.1 },
    decode_step_s: { compute: 0.015, communication: 0.005 },
    max_batch: 64,
    math_precision: 'bf16',
    assumed: { launch_interval_us: 0 },
    operators: [
      { name: 'mlp_up', phase: 'prefill', flops: 1e12, bytes: 1e9, arithmetic_intensity: 1000, time_s: 0.002, achieved_flops_per_s: 5e14, bound: 'compute', count: 1 },
      { name: 'qkv_proj', phase: 'decode', flops: 1e9, bytes: 1e8, arithmetic_intensity: 10, time_s: 0.0001, achieved_flops_per_s: 1e13, bound: 'memory', count: 1 },
      { name: 'empty', phase: 'decode', flops: 0, bytes: 1, arithmetic_intensity: 0, time_s: 0, achieved_flops_per_s: 0, bound: 'memory', count: 1 },
    ],
    memory: mem(40 * 2 ** 30, 80 * 2 ** 30),
  },
  memory: mem(100 * 2 ** 30, 80 * 2 ** 30),
  params: { total: 7e9, active: 7e9, moe_layers: 0 },
  warnings: [],
  regime: {},
  uncertainty: {},
};

const resolved = { system: { device: { peak_tflops: { bf16: 1000 }, memory: { capacity_GiB: 80, bandwidth_GBps: 2000 } } }, inference: { output_len: 10 } } as unknown as ResolvedScenario;

describe('time charts', () => {
  it('training bars are breakdown_s, one per cause, summing to the iteration time', () => {
    const s = trainingTimeSpec(prediction)!;
    expect(s.bars).toHaveLength(8);
    expect(s.bars.reduce((a, b) => a + b.value, 0)).toBeCloseTo(10, 12);
    expect(s.bars.find((b) => b.category === 'Pipeline bubble')?.value).toBe(0.75);
    expect(trainingTimeSpec({ ...prediction, training: undefined })).toBeNull();
  });
  it('training by bound: the paper’s four parts, in order, summing to the iteration time', () => {
    const s = byBoundSpec(prediction)!;
    expect(s.bars.map((b) => [b.category, b.value])).toEqual([
      ['Compute-bound kernels', 7],
      ['Memory-bound kernels', 1],
      ['Exposed communication', 2],
      ['Other (bubble + optimizer)', 0],
    ]);
    expect(s.bars.reduce((a, b) => a + b.value, 0)).toBe(prediction.training!.iteration_time_s);
    expect(s.stacked).toBe(false);
    expect(byBoundSpec({ ...prediction, training: undefined })).toBeNull();
  });
  it('inference bars sum to e2e = ttft + (out - 1) x tpot', () => {
    const s = inferenceTimeSpec(prediction, 10)!;
    expect(s.bars.reduce((a, b) => a + b.value, 0)).toBeCloseTo(prediction.inference!.e2e_latency_s, 12);
    expect(s.bars[2]).toMatchObject({ row: 'Decode compute ×9', value: 0.015 * 9 });
    expect(inferenceTimeSpec(prediction, undefined)).toBeNull();
  });
});

describe('bands on the charts', () => {
  const u = { low: 8, high: 13, regime: 'training/dense/earlier', cases: 50 };
  it('carry the engine’s 80% band of the headline total on a row of its own, bars unchanged', () => {
    const p = { ...prediction, uncertainty: { 'training.iteration_time_s': u, 'memory.per_device_bytes.total': { ...u, low: 90 * 2 ** 30, high: 130 * 2 ** 30 } } };
    const t = trainingTimeSpec(p)!;
    expect(t.band).toEqual({ row: 'Iteration time (80% band)', value: 10, low: 8, high: 13, fitted: '50 published training steps of dense models on GPUs without FP4 (H100, A100 and earlier)' });
    expect(t.bars.reduce((a, b) => a + b.value, 0)).toBeCloseTo(10, 12);
    expect(byBoundSpec(p)!.band?.high).toBe(13);
    expect(memorySpec(p).band).toMatchObject({ row: 'Total (80% band)', value: 100 * 2 ** 30, low: 90 * 2 ** 30 });
  });
  it('no band where the engine gave none (or a non-finite one)', () => {
    expect(trainingTimeSpec(prediction)!.band).toBeUndefined();
    expect(inferenceTimeSpec(prediction, 10)!.band).toBeUndefined();
    const bad = { ...prediction, uncertainty: { 'training.iteration_time_s': { ...u, high: Number.NaN } } };
    expect(trainingTimeSpec(bad)!.band).toBeUndefined();
  });
});

describe('memory chart', () => {
  it('stacks non-zero categories per phase, with the capacity rule', () => {
    const s = memorySpec(prediction);
    expect(s.stacked).toBe(true);
    expect(s.rule).toEqual({ value: 80 * 2 ** 30, label: 'capacity' });
    expect(s.bars.filter((b) => b.row === 'Training').map((b) => b.category)).toEqual(['Weights', 'Activations', 'KV cache']);
    expect(s.bars.filter((b) => b.row === 'Inference').reduce((a, b) => a + b.value, 0)).toBe(40 * 2 ** 30);
  });
  it('an inference-only prediction draws the top-level memory as the inference row', () => {
    const s = memorySpec({ ...prediction, training: undefined });
    expect([...new Set(s.bars.map((b) => b.row))]).toEqual(['Inference']);
    expect(s.bars.reduce((a, b) => a + b.value, 0)).toBe(100 * 2 ** 30);
  });
});

describe('roofline', () => {
  it('places operators and draws min(peak, intensity x bandwidth)', () => {
    const s = rooflineSpec(prediction, resolved)!;
    expect(s.points.map((p) => p.name)).toEqual(['mlp_up', 'qkv_proj']); // zero-intensity dropped (log axes)
    expect(s.roofs).toEqual({ peak_flops_per_s: 1e15, bandwidth_Bps: 2e12, precision: 'bf16' });
    const ridge = 1e15 / 2e12;
    expect(s.roofLine.some((r) => r.intensity === ridge && r.rate === 1e15)).toBe(true);
    for (const r of s.roofLine) expect(r.rate).toBeCloseTo(Math.min(1e15, r.intensity * 2e12), -3);
    expect(s.roofLine[s.roofLine.length - 1]!.rate).toBe(1e15);
    expect(s.domain.x[0]).toBeLessThan(10);
    expect(s.domain.x[1]).toBeGreaterThan(1000);
    for (const p of s.points) expect(p.rate).toBeLessThanOrEqual(Math.min(1e15, p.intensity * 2e12));
  });
  it('without the device it still plots the operators, with no roofs', () => {
    const s = rooflineSpec(prediction, null)!;
    expect(s.roofs).toBeUndefined();
    expect(s.roofLine).toEqual([]);
  });
  it('is null without operators', () => {
    expect(rooflineSpec({ ...prediction, inference: undefined, training: undefined }, resolved)).toBeNull();
  });
  it('without inference it places the training operators, at the training precision', () => {
    const training = { ...prediction.training!, operators: prediction.inference!.operators.map((o) => ({ ...o, phase: 'forward' })) };
    const s = rooflineSpec({ ...prediction, inference: undefined, training }, resolved)!;
    expect(s.title).toBe('Roofline of the training operators (per device)');
    expect(s.points.map((p) => p.phase)).toEqual(['forward', 'forward']);
    expect(s.roofs?.precision).toBe('bf16');
  });
  it('names an operator listed once per layer kind by what tells the kinds apart', () => {
    const op = prediction.inference!.operators.find((o) => o.name === 'qkv_proj')!;
    type Kind = NonNullable<(typeof op)['layer_kind']> | undefined;
    const ops = (kinds: Kind[]) =>
      rooflineSpec({ ...prediction, inference: { ...prediction.inference!, operators: kinds.map((layer_kind) => ({ ...op, layer_kind })) } }, resolved)!.points.map((p) => p.name);
    expect(ops(['moe', 'moe_windowed'])).toEqual(['qkv_proj (global)', 'qkv_proj (windowed)']);
    expect(ops(['dense', 'moe'])).toEqual(['qkv_proj (dense)', 'qkv_proj (MoE)']);
    expect(ops(['dense', 'moe_windowed', undefined])).toEqual(['qkv_proj (dense, global)', 'qkv_proj (MoE, windowed)', 'qkv_proj']);
    expect(ops(['moe', 'moe_linear'])).toEqual(['qkv_proj (global)', 'qkv_proj (linear)']);
    expect(ops(['moe', 'moe'])).toEqual(['qkv_proj', 'qkv_proj']); // one kind: nothing to tell apart
    // Nemotron 3 Nano (model.layer_pattern): Mamba-2 + MoE layers, Mamba-2 alone, attention + MoE.
    expect(ops(['moe_linear', 'linear_only', 'moe'])).toEqual(['qkv_proj (linear)', 'qkv_proj (linear, no FFN)', 'qkv_proj (global)']);
    expect(ops(['dense', 'dense_only', 'attention_only'])).toEqual(['qkv_proj', 'qkv_proj (no attention)', 'qkv_proj (no FFN)']);
  });
  it('logSpace spans its ends', () => {
    const xs = logSpace(1, 1000, 4);
    expect(xs[0]).toBeCloseTo(1);
    expect(xs[3]).toBeCloseTo(1000);
    expect(xs[1]).toBeCloseTo(10);
  });
});

describe('search and study charts', () => {
  it('labels layouts compactly', () => {
    expect(layoutLabel({ tp: 8, pp: 2, dp: 4, cp: 1, ep: 1, micro_batch: 1, interleave: 1, recompute: 'selective', zero_stage: 1, sequence_parallel: true })).toBe('TP8 PP2 DP4 mb1 selective Z1 SP');
    expect(layoutLabel({ tp: 1, pp: 1, dp: 8, cp: 2 })).toBe('TP1 PP1 DP8 CP2');
  });
  it('labels an inference or serving layout without the training keys the engine echoes at their defaults', () => {
    // parallel_auto.parallel of a served stream: every key, micro_batch 1 and zero_stage 0 included
    const served = { tp: 1, pp: 4, dp: 2, cp: 1, ep: 1, etp: 1, sequence_parallel: false, micro_batch: 1, interleave: 1, recompute: 'none', zero_stage: 0 };
    expect(layoutLabel(served, false)).toBe('TP1 PP4 DP2');
    expect(layoutLabel({ ...served, tp: 8, pp: 1, dp: 1, sequence_parallel: true }, false)).toBe('TP8 PP1 DP1 SP');
    expect(layoutLabel({ ...served, ep: 8, micro_batch: 4, zero_stage: 1 }, false)).toBe('TP1 PP4 DP2 EP8');
    expect(layoutLabel(served)).toBe('TP1 PP4 DP2 mb1');
  });
  it('scatter keeps infeasible points flagged and drops unusable ones', () => {
    const plan = (tp: number, pp: number, dp: number) => ({ tp, pp, dp, cp: 1, ep: 1, etp: 1, sequence_parallel: false, micro_batch: 1, interleave: 1, recompute: 'none' as const, zero_stage: 0 });
    const r: SearchResult = {
      mode: 'training',
      evaluated: 3,
      feasible: 1,
      rejected: { 'memory.does_not_fit': 1 },
      elapsed_s: 0.1,
      layouts_per_s: 30,
      cancelled: false,
      best: [],
      points: [
        { parallel: plan(8, 1, 1), time_s: 2, memory_bytes: 1e10, feasible: true, reason: '' },
        { parallel: plan(1, 1, 8), time_s: 1, memory_bytes: 2e11, feasible: false, reason: 'memory.does_not_fit' },
        { parallel: plan(2, 1, 4), time_s: 0, memory_bytes: 0, feasible: false, reason: 'parallel.x' },
      ],
    };
    r.points!.push({ parallel: plan(1, 2, 4), time_s: null, memory_bytes: 3e11, feasible: false, reason: 'memory.does_not_fit' });
    const s = searchScatterSpec(r, 8e10)! as ScatterSpec;
    expect(s.kind).toBe('scatter');
    expect(s.points).toHaveLength(2);
    expect(s.untimed).toEqual([{ y: 3e11, label: 'TP1 PP2 DP4 mb1', reason: 'memory.does_not_fit' }]);
    expect(s.points[1]).toMatchObject({ feasible: false, reason: 'memory.does_not_fit', label: 'TP1 PP1 DP8 mb1' });
    // an inference search's points are labelled without micro-batches
    expect((searchScatterSpec({ ...r, mode: 'inference' }, 8e10) as ScatterSpec).points[1].label).toBe('TP1 PP1 DP8');
    expect(s.rule?.value).toBe(8e10);
    expect(searchScatterSpec({ ...r, points: undefined })).toBeNull();
    // none timed (nothing fits): memory per device, leanest first, against the capacity
    const none = { ...r, feasible: 0, points: [3e11, 9e10, 1.2e12].map((m) => ({ parallel: plan(1, 1, 8), time_s: null, memory_bytes: m, feasible: false, reason: 'memory.does_not_fit' })) };
    const lean = searchScatterSpec(none, 8e10)!;
    expect(lean.kind).toBe('lines');
    if (lean.kind !== 'lines') return;
    expect(lean.points.map((p) => [p.x, p.y])).toEqual([[1, 9e10], [2, 3e11], [3, 1.2e12]]);
    expect(lean.rules).toEqual([{ value: 8e10, label: 'capacity' }]);
    expect(lean.logY).toBe(true);
    expect(lean.note).toBe('None was timed: the leanest of 3 layouts needs 83.8 GiB a device, against 74.5 GiB these GPUs hold.');
    // the line where the engine held the points: the capacity less the runtime's reserve, said in the note
    const held = searchScatterSpec(none, 8e10, 8e10 - 1.92 * 2 ** 30)!;
    if (held.kind !== 'lines') throw new Error(held.kind);
    expect(held.rules).toEqual([{ value: 8e10 - 1.92 * 2 ** 30, label: 'usable' }]);
    expect(held.note).toBe("None was timed: the leanest of 3 layouts needs 83.8 GiB a device, against 74.5 GiB these GPUs hold, 72.6 GiB of it beside the runtime's own reserve.");
    expect((searchScatterSpec(r, 8e10, 7.8e10) as ScatterSpec).rule).toEqual({ value: 7.8e10, label: 'usable' });
  });
  const generations: StudyResult = {
    study: 'gen',
    title: 'GPUs',
    description: '',
    columns: ['label', 'system', 'global_batch', 'iteration_time_s', 'speedup', 'breakdown_s', 'fits'],
    units: { global_batch: '', iteration_time_s: 's', speedup: '' },
    rows: [
      { label: 'A100 bf16', system: 'dgx-a100-80gb', global_batch: 1536, iteration_time_s: 30, speedup: 1, breakdown_s: { compute: 20 }, fits: true },
      { label: 'H100 fp8', system: 'dgx-h100', global_batch: 1536, iteration_time_s: 10, speedup: 3, breakdown_s: { compute: 7 }, fits: true },
    ],
    notes: [],
  };
  it('study axes: any number or text column for x, numbers for y, text for colour', () => {
    expect(studyAxes(generations)).toEqual({ x: ['label', 'system', 'global_batch', 'iteration_time_s', 'speedup', 'fits'], y: ['global_batch', 'iteration_time_s', 'speedup'], color: ['label', 'system', 'fits'] });
  });
  it('a study draws its headline column by default, in row order for text x', () => {
    expect(studyDefaults(generations)).toEqual({ x: 'label', y: 'speedup', color: '' });
    const s = studySpec(generations)!;
    expect(s.xCategorical).toBe(true);
    expect(s.points).toEqual([
      { x: 'A100 bf16', y: 1, series: 'speedup' },
      { x: 'H100 fp8', y: 3, series: 'speedup' },
    ]);
    expect(studySpec(generations, { y: 'iteration_time_s' })!.unit).toBe('s');
    expect(studySpec(generations, { y: 'label' })).toBeNull();
  });
  it('a study row’s band_80 cell bands the drawn column, and only that one', () => {
    const banded: StudyResult = {
      ...generations,
      columns: [...generations.columns, 'band_80'],
      rows: generations.rows.map((r, i) => ({ ...r, band_80: { 'iteration_time_s.low': [25, 8][i]!, 'iteration_time_s.high': [40, 13][i]! } })),
    };
    expect(studyAxes(banded).y).not.toContain('band_80');
    const s = studySpec(banded, { y: 'iteration_time_s' })!;
    expect(s.points.map((p) => [p.y, p.low, p.high])).toEqual([
      [30, 25, 40],
      [10, 8, 13],
    ]);
    expect(s.note).toContain('80% band of iteration time');
    const speedup = studySpec(banded, { y: 'speedup' })!;
    expect(speedup.points.every((p) => p.low === undefined)).toBe(true);
    expect(speedup.note).toBeUndefined();
  });
  it('numeric x with repeated values: one line per configuration, sorted by x, log axes past 3 decades', () => {
    const st: StudyResult = {
      study: 'tech',
      title: 'Nodes',
      description: '',
      columns: ['node_nm', 'scaling', 'peak_tflops', 'iteration_time_s'],
      rows: [
        { node_nm: 7, scaling: 'compute', peak_tflops: 400, iteration_time_s: 10 },
        { node_nm: 3, scaling: 'compute', peak_tflops: 1100, iteration_time_s: 5 },
        { node_nm: 7, scaling: 'memory', peak_tflops: 400, iteration_time_s: 9 },
        { node_nm: 3, scaling: 'memory', peak_tflops: 400, iteration_time_s: 0.008 },
      ],
      notes: [],
    };
    expect(studyDefaults(st)).toEqual({ x: 'node_nm', y: 'iteration_time_s', color: 'scaling' });
    const s = studySpec(st)!;
    expect(s.xCategorical).toBe(false);
    expect(s.points.map((p) => [p.x, p.series])).toEqual([
      [3, 'compute'],
      [3, 'memory'],
      [7, 'compute'],
      [7, 'memory'],
    ]);
    expect(s.logY).toBe(true);
    expect(s.logX).toBe(false);
    expect(s.seriesLabel).toBe('scaling');
  });
  it('colours by the varied parameter rather than by a per-row label', () => {
    const st: StudyResult = {
      study: 'mem',
      title: 'Memory',
      description: '',
      columns: ['model', 'layout', 'recompute', 'total_bytes'],
      units: { total_bytes: 'bytes' },
      rows: ['none', 'full'].flatMap((rc) => ['22b', '175b'].map((m) => ({ model: m, layout: `${m} ${rc}`, recompute: rc, total_bytes: 1 }))),
      notes: [],
    };
    expect(studyDefaults(st)).toEqual({ x: 'model', y: 'total_bytes', color: 'recompute' });
  });
  it('no numeric column: nothing to draw', () => {
    expect(studySpec({ study: 'x', title: '', description: '', columns: ['a', 'b'], rows: [{ a: 'p', b: 'q' }], notes: [] })).toBeNull();
  });
});
