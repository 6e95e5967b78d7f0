// Charts as pure functions from a result to a plain chart description (no DOM, no Plot objects),
// so they can be unit-tested (test/ui/specs.test.ts); charts/render.ts turns a spec into an SVG
// with Observable Plot.
import type { Prediction, ResolvedScenario, SearchResult, StudyResult } from '../engine/types';
import { countOf, formatBytes, formatSeconds, groupDigits, regimeWords } from '../base/format';

export interface Bar {
  /** The bar's row (y axis), e.g. "training". */
  row: string;
  /** Stack segment / category. */
  category: string;
  value: number;
  /** Where the bar starts (a waterfall's floating step); absent: at 0, or stacked. */
  start?: number;
}

export interface BarChartSpec {
  kind: 'bars';
  title: string;
  unit: 'seconds' | 'bytes';
  xLabel: string;
  bars: Bar[];
  /** Stack the categories of one row (memory) or draw one bar per category (time). */
  stacked: boolean;
  /** A vertical reference line (device capacity). */
  rule?: { value: number; label: string };
  /** A fixed colour per category (the RL timeline's phases); absent: the palette in order. */
  colors?: Record<string, string>;
  /**
   * The 80% band of the chart's headline total (the engine's `uncertainty` for it), drawn on a row
   * of its own under the bars: a dot at the prediction and a whisker from low to high.
   */
  band?: ChartBand;
}

/** An 80% band around a predicted total (prediction.uncertainty[path]). */
export interface ChartBand {
  /** The row's label, e.g. "Iteration time (80% band)". */
  row: string;
  value: number;
  low: number;
  high: number;
  /** What the band is fitted on (regime and row count), for the tooltip. */
  fitted: string;
}

/**
 * The band of the output at `path` around `value`, when the engine gave one
 * (prediction.uncertainty, scripts/fit_uncertainty.py); undefined otherwise.
 */
export function bandOf(p: Prediction, path: string, label: string, value: number | undefined): ChartBand | undefined {
  const u = p.uncertainty?.[path];
  if (!u || value === undefined || !Number.isFinite(value) || !Number.isFinite(u.low) || !Number.isFinite(u.high)) return undefined;
  return { row: `${label} (80% band)`, value, low: u.low, high: u.high, fitted: `${u.cases} published ${regimeWords(u.regime)}` };
}

export interface RooflinePoint {
  name: string;
  phase: string;
  intensity: number;
  rate: number;
  bound: string;
  time_s: number;
}

export interface RooflineSpec {
  kind: 'roofline';
  title: string;
  points: RooflinePoint[];
  /** Peak compute (FLOP/s) and memory bandwidth (B/s); absent when the device is unknown. */
  roofs?: { peak_flops_per_s: number; bandwidth_Bps: number; precision: string };
  /** The roof polyline min(peak, intensity × bandwidth), over the points' intensity range. */
  roofLine: Array<{ intensity: number; rate: number }>;
  domain: { x: [number, number]; y: [number, number] };
}

export interface ScatterSpec {
  kind: 'scatter';
  title: string;
  xLabel: string;
  yLabel: string;
  points: Array<{ x: number; y: number; feasible: boolean; label: string; reason: string }>;
  /** Rejected before timing: only their memory is known. */
  untimed: Array<{ y: number; label: string; reason: string }>;
  rule?: { value: number; label: string };
}

export interface LineChartSpec {
  kind: 'lines';
  title: string;
  xLabel: string;
  yLabel: string;
  /** Point (categorical) x axis when x is not numeric: dots only, no lines between categories. */
  xCategorical: boolean;
  /** Units as the engine names them ("s", "bytes", "GB/s", ... or ""). */
  unit: string;
  xUnit: string;
  logX: boolean;
  logY: boolean;
  /** The column the series are named after (legend title), if any. */
  seriesLabel?: string;
  /** low / high: the point's 80% band, drawn as a shaded area (or a whisker on a point axis). */
  points: Array<{ x: number | string; y: number; series: string; low?: number; high?: number }>;
  /** Horizontal reference lines (objectives), in the y unit. */
  rules?: Array<{ value: number; label: string }>;
  /** Points marked with a ring and a label (the scenario's own operating point). */
  marked?: Array<{ x: number; y: number; label: string }>;
  /** A line under the chart (what it was computed from). */
  note?: string;
  /** A series' colour where one metric keeps its colour across charts (else the palette in order). */
  colors?: Record<string, string>;
  /** A linear y axis that starts at zero (a throughput), not at the smallest value. */
  yFromZero?: boolean;
  /**
   * A step function of x (a count sampled over time): each value is held until the next sample,
   * drawn as steps, not as slopes between samples that would imply values never taken.
   */
  step?: boolean;
}

export type ChartSpec = BarChartSpec | RooflineSpec | ScatterSpec | LineChartSpec;

const BREAKDOWN_LABELS: Record<string, string> = {
  compute: 'Compute',
  recompute: 'Recompute',
  tp_comm: 'TP communication',
  cp_comm: 'CP communication',
  pp_comm: 'PP communication',
  dp_comm: 'DP communication',
  ep_comm: 'Expert all-to-all (MoE)',
  host: 'Waiting for the host',
  bubble: 'Pipeline bubble',
  optimizer: 'Optimizer',
};

/**
 * Training: exposed seconds per cause of one iteration (breakdown_s, spec: sums to the iteration
 * time), in the order of the labels above (then any cause the engine adds). The expert all-to-all
 * and the host wait are left out for a dense model, where they are always zero.
 */
export function trainingTimeSpec(p: Prediction): BarChartSpec | null {
  const b = p.training?.breakdown_s as Record<string, unknown> | undefined;
  if (!b) return null;
  const order = Object.keys(BREAKDOWN_LABELS);
  const rank = (k: string): number => (order.includes(k) ? order.indexOf(k) : order.length);
  const bars = Object.entries(b)
    .filter((e): e is [string, number] => typeof e[1] === 'number')
    .filter(([k, v]) => !((k === 'ep_comm' || k === 'host') && v === 0 && !p.training?.moe))
    .sort(([a], [c]) => rank(a) - rank(c))
    .map(([k, v]) => ({ row: BREAKDOWN_LABELS[k] ?? k, category: BREAKDOWN_LABELS[k] ?? k, value: v }));
  const band = bandOf(p, 'training.iteration_time_s', 'Iteration time', p.training?.iteration_time_s);
  return { kind: 'bars', title: 'Training: time per iteration by cause', unit: 'seconds', xLabel: 'exposed time per iteration (s)', bars, stacked: false, band };
}

const BOUND_LABELS: Record<string, string> = {
  compute: 'Compute-bound kernels',
  memory: 'Memory-bound kernels',
  communication: 'Exposed communication',
  other: 'Other (bubble + optimizer)',
};

/**
 * Training split the paper's way (Kundu et al. 2024, Fig. 8; the engine's by_bound_s): seconds
 * of one iteration in kernels bound by compute, kernels bound by memory, exposed communication,
 * and other (pipeline bubble + optimizer step); the four sum to the iteration time.
 */
export function byBoundSpec(p: Prediction): BarChartSpec | null {
  const b = p.training?.by_bound_s as Record<string, unknown> | undefined;
  if (!b) return null;
  const bars = Object.entries(BOUND_LABELS)
    .filter(([k]) => typeof b[k] === 'number')
    .map(([k, label]) => ({ row: label, category: label, value: b[k] as number }));
  const band = bandOf(p, 'training.iteration_time_s', 'Iteration time', p.training?.iteration_time_s);
  return { kind: 'bars', title: 'Training: time per iteration by bound (the paper’s breakdown)', unit: 'seconds', xLabel: 'time per iteration (s)', bars, stacked: false, band };
}

/**
 * Inference: end-to-end latency split into prefill (TTFT) and the (output_len − 1) decode steps,
 * each into compute and exposed communication (e2e = ttft + (out − 1) × tpot, scenario.md).
 */
export function inferenceTimeSpec(p: Prediction, outputLen: number | undefined): BarChartSpec | null {
  const inf = p.inference;
  if (!inf || !inf.prefill_s || !inf.decode_step_s || outputLen === undefined) return null;
  const steps = Math.max(0, outputLen - 1);
  const bars: Bar[] = [
    { row: 'Prefill compute', category: 'Prefill compute', value: inf.prefill_s.compute },
    { row: 'Prefill comm.', category: 'Prefill communication', value: inf.prefill_s.communication },
    { row: `Decode compute ×${steps}`, category: 'Decode compute', value: inf.decode_step_s.compute * steps },
    { row: `Decode comm. ×${steps}`, category: 'Decode communication', value: inf.decode_step_s.communication * steps },
  ];
  const band = bandOf(p, 'inference.e2e_latency_s', 'End-to-end latency', inf.e2e_latency_s);
  return { kind: 'bars', title: `Inference: end-to-end latency by phase (${steps} decode steps)`, unit: 'seconds', xLabel: 'time per request (s)', bars, stacked: false, band };
}

/**
 * The whole run as a waterfall from the ideal time (every step at its steady-state time; with
 * later stages, the first part's and each stage's) to the elapsed time: the steps' time below the modelled rate (only where the
 * scenario states system.operations.production_efficiency; no preset does since issue 37),
 * checkpoint writes, work lost to failures and restarts each float on what came before
 * (run.lost_s; elapsed = ideal + their total, run/run.h).
 */
export function runWaterfallSpec(p: Prediction): BarChartSpec | null {
  const r = p.run;
  if (!r || !r.lost_s) return null;
  const below = r.lost_s.production ?? 0;
  const steps: Array<[string, number]> = [
    ...(below > 0 ? [['Below the modelled rate', below] as [string, number]] : []),
    ['Checkpoint writes', r.lost_s.checkpoint_writes],
    ['Work lost to failures', r.lost_s.lost_work],
    ['Restarts', r.lost_s.restarts],
  ];
  // With later stages (training.stages) the ideal time is the first part's, then each stage's on top.
  const stages = r.stages ?? [];
  const first = r.ideal_time_s - stages.reduce((a, st) => a + st.ideal_time_s, 0);
  const bars: Bar[] = [{ row: stages.length ? 'Ideal, first part' : 'Ideal (steady-state steps)', category: 'Ideal', value: first, start: 0 }];
  let at = first;
  stages.forEach((st, i) => {
    bars.push({ row: `+ Stage ${i}: ${st.seq_len}-token sequences`, category: 'Ideal, later stages', value: st.ideal_time_s, start: at });
    at += st.ideal_time_s;
  });
  for (const [row, value] of steps) {
    bars.push({ row: `+ ${row}`, category: row, value, start: at });
    at += value;
  }
  bars.push({ row: 'Elapsed', category: 'Elapsed', value: r.wall_time_s, start: 0 });
  const band = bandOf(p, 'run.wall_time_s', 'Elapsed', r.wall_time_s);
  return { kind: 'bars', title: `The whole run: from the ideal time to the elapsed time (goodput ${(r.goodput * 100).toFixed(1)} %)`, unit: 'seconds', xLabel: 'time (days)', bars, stacked: false, band };
}

const MEMORY_LABELS: Record<string, string> = {
  weights: 'Weights',
  gradients: 'Gradients',
  optimizer: 'Optimizer state',
  activations: 'Activations',
  kv_cache: 'KV cache',
};

/** Memory of the most loaded device per phase, stacked by category, with the capacity line. */
export function memorySpec(p: Prediction): BarChartSpec {
  const rows: Array<[string, Prediction['memory']]> = [];
  if (p.training) rows.push(['Training', p.memory]);
  if (p.inference) rows.push(['Inference', p.training ? (p.inference.memory ?? p.memory) : p.memory]);
  // An RL step's memory is the trainer's footprint; its rollout engines' reservation (rl.memory.rollout:
  // gpu_memory_utilization x HBM, plus the trainer's resident state when colocated) is its own row,
  // so that the chart shows the most loaded device of the job, whichever pool it is in.
  const rollout = p.rl?.memory?.rollout;
  if (rows.length === 0) rows.push([p.rl ? 'Trainer' : 'Memory', p.memory]);
  const bars: Bar[] = [];
  for (const [row, m] of rows) {
    for (const [k, label] of Object.entries(MEMORY_LABELS)) {
      const v = (m.per_device_bytes as unknown as Record<string, number>)[k];
      if (typeof v === 'number' && v > 0) bars.push({ row, category: label, value: v });
    }
  }
  if (rollout && rollout.per_device_bytes > 0) bars.push({ row: 'Rollout engines', category: 'Rollout engines’ reservation (weights, KV cache)', value: rollout.per_device_bytes });
  return {
    kind: 'bars',
    title: p.rl ? 'Memory per device: the trainer and the rollout engines (the most loaded device of each)' : 'Memory per device (most loaded device)',
    unit: 'bytes',
    xLabel: 'bytes per device (GiB)',
    bars,
    stacked: true,
    rule: { value: p.memory.capacity_bytes, label: 'capacity' },
    band: bandOf(p, 'memory.per_device_bytes.total', p.rl ? 'Trainer total' : 'Total', p.memory.per_device_bytes.total),
  };
}

/** Log-spaced samples of [lo, hi], n >= 2. */
export function logSpace(lo: number, hi: number, n: number): number[] {
  const a = Math.log10(lo);
  const b = Math.log10(hi);
  return Array.from({ length: n }, (_, i) => 10 ** (a + ((b - a) * i) / (n - 1)));
}

/**
 * Roofline of the inference operators (or, without inference, the training ones: the slowest
 * stage's kernels, forward and backward): arithmetic intensity (FLOP/B) against achieved FLOP/s,
 * log-log, with the device's roofs min(peak, intensity × HBM bandwidth) (Williams, Waterman and
 * Patterson 2009, "Roofline", CACM 52(4)). Peak is the dense peak of the precision the matmuls run
 * at (the prediction's math_precision), bandwidth the device's HBM bandwidth (GB/s = 1e9 B/s), from
 * the resolved scenario's device.
 */
export function rooflineSpec(p: Prediction, s: ResolvedScenario | null): RooflineSpec | null {
  // The inference operators where there are some, else training's (its slowest stage's kernels).
  const inference = (p.inference?.operators?.length ?? 0) > 0;
  const ops = inference ? p.inference?.operators : p.training?.operators;
  if (!ops || ops.length === 0) return null;
  // An operator listed once per layer kind is named by what tells its kinds apart (the FFN where
  // dense and MoE layers both run, the attention where windowed or linear and global layers both
  // do, and "no FFN" / "no attention" for a layer of one sublayer, model.layer_pattern).
  const kinds = [...new Set(ops.map((o) => o.layer_kind ?? ''))].filter((k) => k);
  const only = (k: string) => k.endsWith('_only');
  const ffn = (k: string) => (k.startsWith('moe') ? 'MoE' : k.startsWith('dense') ? 'dense' : '');
  const attn = (k: string) => (only(k) ? (ffn(k) ? '' : k === 'attention_only' ? 'global' : k.split('_')[0]) : k.split('_')[1] ?? 'global');
  const varies = (f: (k: string) => string) => new Set(kinds.map(f).filter((x) => x)).size > 1;
  const [ffnVaries, windowVaries, shapeVaries] = [varies(ffn), varies(attn), varies((k) => (only(k) ? 'y' : 'n'))];
  const label = (o: (typeof ops)[number]) => {
    const k = o.layer_kind ?? '';
    const lone = shapeVaries && only(k) ? (ffn(k) ? 'no attention' : 'no FFN') : '';
    const parts = k ? [ffnVaries ? ffn(k) : '', windowVaries ? attn(k) : '', lone].filter((x) => x) : [];
    return parts.length > 0 ? `${o.name} (${parts.join(', ')})` : o.name;
  };
  const points = ops
    .filter((o) => o.arithmetic_intensity > 0 && o.achieved_flops_per_s > 0)
    .map((o) => ({ name: label(o), phase: o.phase, intensity: o.arithmetic_intensity, rate: o.achieved_flops_per_s, bound: o.bound, time_s: o.time_s }));
  if (points.length === 0) return null;
  const device = s?.system?.device;
  const precision = (inference ? p.inference?.math_precision : p.training?.math_precision) ?? 'bf16';
  const peakT = (device?.peak_tflops as Record<string, number> | undefined)?.[precision];
  const bw = device?.memory?.bandwidth_GBps;
  let xs = points.map((q) => q.intensity);
  let ys = points.map((q) => q.rate);
  let roofs: RooflineSpec['roofs'];
  let roofLine: RooflineSpec['roofLine'] = [];
  if (typeof peakT === 'number' && typeof bw === 'number' && peakT > 0 && bw > 0) {
    roofs = { peak_flops_per_s: peakT * 1e12, bandwidth_Bps: bw * 1e9, precision };
    const ridge = roofs.peak_flops_per_s / roofs.bandwidth_Bps;
    xs = [...xs, ridge];
  }
  const xLo = Math.min(...xs) / 2;
  const xHi = Math.max(...xs) * 2;
  if (roofs) {
    const { peak_flops_per_s: peak, bandwidth_Bps: bwB } = roofs;
    const ridge = peak / bwB;
    roofLine = [...logSpace(xLo, xHi, 24).filter((x) => x < ridge), ridge, xHi].map((x) => ({ intensity: x, rate: Math.min(peak, x * bwB) }));
    ys = [...ys, ...roofLine.map((r) => r.rate)];
  }
  return {
    kind: 'roofline',
    title: `Roofline of the ${inference ? 'inference' : 'training'} operators (per device)`,
    points,
    roofs,
    roofLine,
    domain: { x: [xLo, xHi], y: [Math.min(...ys) / 2, Math.max(...ys) * 2] },
  };
}

/**
 * Short text of a parallel layout, e.g. "TP8 PP2 DP4 mb1 selective Z1". An inference or serving
 * layout (training false) runs no micro-batches, recomputation or optimizer sharding: the engine
 * echoes those keys at their defaults, and the label leaves them out.
 */
export function layoutLabel(par: Record<string, unknown>, training = true): string {
  const parts: string[] = [];
  for (const k of ['tp', 'pp', 'dp', 'cp', 'ep', 'etp']) {
    const v = par[k];
    if (typeof v === 'number' && (v !== 1 || k === 'tp' || k === 'pp' || k === 'dp')) parts.push(`${k.toUpperCase()}${v}`);
  }
  if (!training) return [...parts, ...(par.sequence_parallel === true ? ['SP'] : [])].join(' ');
  if (typeof par.micro_batch === 'number') parts.push(`mb${par.micro_batch}`);
  if (typeof par.interleave === 'number' && par.interleave > 1) parts.push(`v${par.interleave}`);
  if (typeof par.recompute === 'string' && par.recompute !== 'none') parts.push(par.recompute);
  if (typeof par.zero_stage === 'number' && par.zero_stage > 0) parts.push(`Z${par.zero_stage}`);
  if (par.sequence_parallel === true) parts.push('SP');
  return parts.join(' ');
}

/**
 * Search scatter: time vs memory per device of every evaluated layout the engine returned,
 * infeasible ones marked. Layouts rejected before they were timed (time_s null, e.g. those that
 * do not fit in memory) have no time: they are kept apart in `untimed` (drawn on the memory axis).
 * Where none was timed (nothing fits), a time axis would be empty: the layouts' memory per device,
 * leanest first, against the capacity instead (how far the leanest is from fitting). The line is
 * drawn where the engine judged the points, `usableBytes` (the capacity less the runtime's own
 * reserve) when given, else at the capacity.
 */
export function searchScatterSpec(r: SearchResult, capacityBytes?: number, usableBytes?: number): ScatterSpec | LineChartSpec | null {
  const pts = r.points ?? [];
  const ok = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;
  const points = pts.flatMap((q) =>
    ok(q.time_s) && ok(q.memory_bytes) ? [{ x: q.time_s, y: q.memory_bytes, feasible: q.feasible, label: layoutLabel(q.parallel, r.mode === 'training'), reason: q.reason }] : [],
  );
  const untimed = pts.filter((q) => !ok(q.time_s) && ok(q.memory_bytes)).map((q) => ({ y: q.memory_bytes, label: layoutLabel(q.parallel, r.mode === 'training'), reason: q.reason }));
  if (points.length === 0 && untimed.length === 0) return null;
  const usable = ok(usableBytes) ? usableBytes : undefined;
  if (points.length === 0) return leanestFirstSpec(untimed.map((u) => u.y), capacityBytes, usable);
  return {
    kind: 'scatter',
    title: `Evaluated layouts: ${r.mode === 'inference' ? 'request latency' : 'iteration time'} vs memory per device`,
    xLabel: r.mode === 'inference' ? 'end-to-end latency (s)' : 'iteration time (s)',
    yLabel: 'memory per device (GiB)',
    points,
    untimed,
    rule: memoryRule(capacityBytes, usable),
  };
}

/** The line the search held memory against: what is usable beside the runtime's reserve where the engine said, else the capacity. */
function memoryRule(capacityBytes?: number, usableBytes?: number): { value: number; label: string } | undefined {
  return usableBytes ? { value: usableBytes, label: 'usable' } : capacityBytes ? { value: capacityBytes, label: 'capacity' } : undefined;
}

/** Layouts none of which was timed: memory per device, leanest first, with the line they were held against (log axis: the memory spans decades). */
function leanestFirstSpec(bytes: number[], capacityBytes?: number, usableBytes?: number): LineChartSpec {
  const rule = memoryRule(capacityBytes, usableBytes);
  const sorted = [...bytes].sort((a, b) => a - b);
  const n = sorted.length;
  const leanest = sorted[0]!;
  const held = capacityBytes ? `, against ${formatBytes(capacityBytes)} these GPUs hold` : '';
  // A layout just under the capacity is still refused: the runtime keeps a reserve (CUDA context, communicators).
  const reserve =
    usableBytes !== undefined ? `, ${formatBytes(usableBytes)} of it beside the runtime's own reserve` : capacityBytes && leanest <= capacityBytes ? ' (less what the runtime keeps for itself)' : '';
  return {
    kind: 'lines',
    title: 'Evaluated layouts: memory per device, leanest first',
    xLabel: 'layouts, leanest first',
    yLabel: 'memory per device',
    xCategorical: false,
    unit: 'bytes',
    xUnit: '',
    logX: false,
    logY: true,
    points: sorted.map((y, i) => ({ x: i + 1, y, series: 'memory per device' })),
    rules: rule ? [rule] : [],
    note: `None was timed: the leanest of ${countOf(n, 'layout', groupDigits)} needs ${formatBytes(leanest)} a device${held}${held ? reserve : ''}.`,
  };
}

/** Which columns a study chart draws: x, y, and optionally a column whose values colour the points. */
export interface StudyChoice {
  x: string;
  y: string;
  color: string;
}

/** Columns of the y axis preferred by default, in order (the studies' headline quantities). */
const PREFERRED_Y = ['cost_usd', 'speedup', 'speedup_tpot', 'normalized', 'iteration_time_s', 'tpot_s', 'total_bytes', 'time_s', 'tokens_per_s', 'mfu'];

function studyColumns(st: StudyResult): { cols: string[]; numeric: string[]; text: string[] } {
  const cols = st.columns.length > 0 ? st.columns : Object.keys(st.rows[0] ?? {});
  const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
  const numeric = cols.filter((c) => st.rows.some((r) => isNum(r[c])) && st.rows.every((r) => isNum(r[c]) || r[c] === null || r[c] === undefined));
  const text = cols.filter((c) => st.rows.every((r) => typeof r[c] === 'string' || typeof r[c] === 'boolean' || r[c] === null || r[c] === undefined));
  return { cols, numeric, text };
}

/** The columns a study can be drawn with: any column for x, numeric ones for y, text ones for colour. */
export function studyAxes(st: StudyResult): { x: string[]; y: string[]; color: string[] } {
  const { cols, numeric, text } = studyColumns(st);
  return { x: cols.filter((c) => numeric.includes(c) || text.includes(c)), y: numeric, color: text };
}

/**
 * Default chart of a study: y = the first preferred headline column present (else the last
 * numeric one); x = the first column; colour = the first text column (other than x) that tells
 * apart rows sharing an x value, so that each line or group of dots is one configuration.
 */
export function studyDefaults(st: StudyResult): StudyChoice | null {
  const { cols, numeric, text } = studyColumns(st);
  if (numeric.length === 0 || cols.length < 2) return null;
  const y = PREFERRED_Y.find((c) => numeric.includes(c) && c !== cols[0]) ?? numeric.filter((c) => c !== cols[0]).pop() ?? numeric[0]!;
  const x = cols[0]!;
  const key = (r: Record<string, unknown>): string => String(r[x]);
  const duplicated = new Set(st.rows.map(key)).size < st.rows.length;
  let color = '';
  if (duplicated) {
    // Of the text columns that tell apart all rows sharing an x, the one with the fewest
    // distinct values (the varied parameter, not a row label); else any column that varies.
    const distinct = (c: string): number => new Set(st.rows.map((r) => String(r[c]))).size;
    const separating = text.filter((c) => c !== x && st.rows.every((a, i) => st.rows.every((b, j) => i === j || key(a) !== key(b) || a[c] !== b[c])));
    separating.sort((a, b) => distinct(a) - distinct(b));
    color = separating[0] ?? text.find((c) => c !== x && distinct(c) > 1) ?? '';
  }
  return { x, y, color };
}

/**
 * The 80% band of a study row's column (the engine's band_80 cell: "<column>.low" and
 * "<column>.high", fitted on the published rows of the row's regime), when it has one.
 */
export function studyBand(row: Record<string, unknown>, column: string): { low: number; high: number } | undefined {
  const g = row.band_80 as Record<string, unknown> | undefined;
  const low = g?.[`${column}.low`];
  const high = g?.[`${column}.high`];
  return typeof low === 'number' && typeof high === 'number' && Number.isFinite(low) && Number.isFinite(high) ? { low, high } : undefined;
}

/**
 * A study's rows as a chart of column `y` against column `x`, one series per value of `color`
 * (or one series). Numeric x gives lines (points sorted by x within a series); text x gives dots
 * in row order. An axis is logarithmic when its positive values span more than three decades.
 */
export function studySpec(st: StudyResult, choice?: Partial<StudyChoice>, names?: (value: string) => string | undefined): LineChartSpec | null {
  const d = studyDefaults(st);
  if (!d) return null;
  const c: StudyChoice = { ...d, ...choice };
  const { numeric } = studyColumns(st);
  if (!numeric.includes(c.y)) return null;
  const units = (st.units ?? {}) as Record<string, string>;
  const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  const xCategorical = !st.rows.every((r) => isNum(r[c.x]));
  // A text cell as the page names it: a preset id ("megatron-22b") by its preset's name.
  const named = (v: unknown): string => {
    const text = String(v ?? '');
    return names?.(text) ?? text;
  };
  const yWords = studyColumnWords(c.y, units[c.y]);
  let points: LineChartSpec['points'] = [];
  let banded = false;
  for (const r of st.rows) {
    const y = r[c.y];
    if (!isNum(y)) continue;
    const b = studyBand(r, c.y);
    banded ||= b !== undefined;
    points.push({ x: xCategorical ? named(r[c.x]) : (r[c.x] as number), y, series: c.color ? named(r[c.color]) : yWords, ...b });
  }
  if (points.length === 0) return null;
  if (!xCategorical) points = [...points].sort((a, b) => (a.x as number) - (b.x as number));
  const wide = (xs: number[]): boolean => xs.length > 1 && Math.min(...xs) > 0 && Math.max(...xs) / Math.min(...xs) > 1000;
  return {
    kind: 'lines',
    title: st.title,
    xLabel: studyColumnWords(c.x, units[c.x]),
    yLabel: yWords,
    unit: units[c.y] ?? '',
    xUnit: units[c.x] ?? '',
    xCategorical,
    logX: !xCategorical && wide(points.map((p) => p.x as number)),
    logY: wide(points.map((p) => p.y)),
    seriesLabel: c.color ? studyColumnWords(c.color, units[c.color]) : undefined,
    points,
    rules: capacityRule(st, c.y, units),
    note: banded ? `The 80% band of ${yWords} on each row (shaded, or a bar on a category axis), fitted on the published rows of its regime.` : undefined,
  };
}

/**
 * The line a study's column is held against: a capacity column (capacity_bytes, "device memory")
 * in the drawn column's unit, one value on every row (the memory study's 80 GB A100), drawn as a
 * reference line when the column drawn is not that one.
 */
function capacityRule(st: StudyResult, y: string, units: Record<string, string>): LineChartSpec['rules'] {
  const unit = units[y];
  if (!unit) return undefined;
  const cap = st.columns.find((col) => col !== y && col.startsWith('capacity') && units[col] === unit);
  const values = cap ? [...new Set(st.rows.map((r) => r[cap]))] : [];
  const v = values[0];
  return values.length === 1 && typeof v === 'number' && Number.isFinite(v) && v > 0 ? [{ value: v, label: 'capacity' }] : undefined;
}

/** Words of the studies' columns where their key says less (units stay off: the axis names them). */
const STUDY_COLUMN_WORDS: Record<string, string> = {
  label: 'configuration',
  cost_usd: 'cost of the run',
  relative_cost: 'cost relative to the cheapest',
  recompute: 'recomputation',
  optimizer_bytes: 'optimizer state',
  total_bytes: 'memory per GPU',
  capacity_bytes: 'GPU memory',
  tokens_per_s: 'tokens/s',
  mfu: 'MFU',
  node_nm: 'process node',
  frequency_GHz: 'clock',
  peak_tflops: 'peak TFLOP/s',
  dram_stacks: 'DRAM stacks',
  hbm_bandwidth_GBps: 'HBM bandwidth',
  scale_up_GBps: 'scale-up bandwidth',
  perf_per_dollar: 'performance per dollar',
  cost_4_chiplets_usd: 'cost as 4 chiplets',
  flops: 'work',
  bytes: 'bytes moved',
  ridge_intensity: 'ridge point',
  dram: 'DRAM',
  gpu: 'GPU',
  tpot_s: 'time per output token',
  ttft_s: 'time to first token',
  speedup_tpot: 'speedup of the time per output token',
  usd_per_gpu_hour: 'price per GPU-hour',
  wall_days: 'time to train',
  gpu_hours: 'GPU-hours',
  energy_mwh: 'energy',
};

/**
 * A study's column in words for its axes and pickers: "total_bytes" -> "memory per GPU",
 * "iteration_time_s" -> "iteration time" (a key's unit suffix left to the axis, which names the
 * unit), else the key with spaces.
 */
export function studyColumnWords(column: string, unit?: string): string {
  const known = STUDY_COLUMN_WORDS[column];
  if (known) return known;
  const bare = unit && !/_per_[a-z]+$/i.test(column) ? column.replace(/_(bytes|s|usd|gbps|gib|ghz|mwh|nm|days|hours)$/i, '') : column;
  return (bare || column).replace(/_/g, ' ');
}

/** One point of a serving rate sweep (ui/serving.ts). */
export interface SweepPoint {
  rate: number;
  throughput: number;
  ttft_p90: number;
  tpot_p90: number;
  /** The 99th percentile of every gap between two tokens (serving.itl_s.p99): the steps that also prefill. */
  itl_p99: number;
  goodput: number;
  /** The 80% bands of the two latencies at this rate (prediction.uncertainty), when given. */
  ttft_band?: { low: number; high: number };
  tpot_band?: { low: number; high: number };
}

/**
 * The duration of the first replica's sampled steps over time (serving.timeline: at most 256; a
 * run of decode-only steps the simulation takes at once is one sample, so the samples show which
 * durations occur, not how often): the tall ones also read prompt chunks, and every sequence
 * decoding waits them out.
 */
export function servingStepTimeSpec(p: Prediction): LineChartSpec | null {
  const tl = p.serving?.timeline;
  if (!tl || tl.length < 2) return null;
  return {
    kind: 'lines',
    title: 'Serving: how long each step takes (sampled steps of the first replica)',
    xLabel: 'time since the first arrival',
    yLabel: 'step duration',
    xCategorical: false,
    unit: 's',
    xUnit: 's',
    logX: false,
    logY: true,
    points: tl.map((x) => ({ x: x.t_s, y: x.step_s, series: x.prefill_tokens > 0 ? 'steps that also read prompt chunks' : 'decode-only steps' })),
  };
}

/** The serving simulation's steps of the first replica over time: sequences running and waiting. */
export function servingTimelineSpec(p: Prediction): LineChartSpec | null {
  const tl = p.serving?.timeline;
  if (!tl || tl.length < 2) return null;
  const points: LineChartSpec['points'] = [];
  for (const x of tl) {
    points.push({ x: x.t_s, y: x.running, series: 'running (in the batch)' });
    points.push({ x: x.t_s, y: x.waiting, series: 'waiting (queued)' });
  }
  return {
    kind: 'lines',
    title: 'Serving: requests in the batch and in the queue over time (first replica)',
    xLabel: 'time since the first arrival',
    yLabel: 'requests',
    xCategorical: false,
    unit: '',
    xUnit: 's',
    logX: false,
    logY: false,
    points,
    // Counts that change at steps: each sample holds until the next one (a run of decode steps
    // taken at once is one sample).
    step: true,
  };
}

/** The serving latencies' colours, the same in every serving chart (p50 lighter than p90). */
export const SERVING_COLORS: Record<string, string> = {
  'time to first token, p90': '#4e79a7',
  'time to first token, p50': '#a0cbe8',
  'time per output token, p90': '#f28e2b',
  'time per output token, p50': '#ffbe7d',
  'gap between tokens, p99': '#59a14f',
  'output tokens/s per GPU': '#76b7b2',
};

/** Latency (p90 TTFT and TPOT, p99 gap between tokens) against deployment throughput over a sweep of request rates. */
export function servingCurveSpec(
  points: SweepPoint[],
  slo: ServingObjectives | undefined,
  ms?: number,
  current?: { throughput: number; ttft_p90: number; tpot_p90: number },
): LineChartSpec | null {
  if (points.length === 0) return null;
  const out: LineChartSpec['points'] = [];
  for (const q of points) {
    out.push({ x: q.throughput, y: q.ttft_p90, series: 'time to first token, p90', ...q.ttft_band });
    out.push({ x: q.throughput, y: q.tpot_p90, series: 'time per output token, p90', ...q.tpot_band });
    if (q.itl_p99 > 0) out.push({ x: q.throughput, y: q.itl_p99, series: 'gap between tokens, p99' });
  }
  return {
    kind: 'lines',
    title: 'Serving: latency against throughput as the request rate grows',
    xLabel: 'output tokens/s (deployment)',
    yLabel: 'latency',
    xCategorical: false,
    unit: 's',
    xUnit: 'tokens/s',
    logX: false,
    logY: true,
    points: out,
    rules: objectiveRules(slo),
    colors: SERVING_COLORS,
    marked: current
      ? [
          { x: current.throughput, y: current.ttft_p90, label: 'this scenario' },
          { x: current.throughput, y: current.tpot_p90, label: '' },
        ]
      : undefined,
    note: `${current ? 'Rings: this scenario (its own stream). ' : ''}${points.length} Poisson request rates from 5% to 150% of the offline throughput${ms !== undefined ? `, simulated in ${ms} ms` : ''}.${points.some((q) => q.ttft_band) ? ' Shaded: the 80% band of each latency, fitted on the published serving rows.' : ''}`,
  };
}

type ServingObjectives = { ttft_s: number; tpot_s: number; itl_s?: number; percentile: number };

/** The objectives as horizontal lines of a latency chart. */
function objectiveRules(slo: ServingObjectives | undefined): Array<{ value: number; label: string }> {
  const rules: Array<{ value: number; label: string }> = [];
  if (slo && slo.ttft_s > 0) rules.push({ value: slo.ttft_s, label: 'TTFT objective' });
  if (slo && slo.tpot_s > 0) rules.push({ value: slo.tpot_s, label: 'TPOT objective' });
  if (slo?.itl_s) rules.push({ value: slo.itl_s, label: 'ITL objective' });
  return rules;
}

/** One point of a concurrency sweep (ui/serving.ts): a closed loop of `clients` users. */
export interface ConcurrencyPoint {
  clients: number;
  ttft_p50: number;
  ttft_p90: number;
  tpot_p50: number;
  tpot_p90: number;
  /** serving.output_tokens_per_s_per_gpu */
  per_gpu: number;
}

/**
 * Where the scenario sits on the concurrency axis: its clients for a closed loop; for a Poisson
 * stream the requests in flight on average by Little's law (completed requests per second ×
 * mean end-to-end latency; Little, Operations Research 9(3), 1961); nothing offline.
 */
export interface ConcurrencyMark {
  clients: number;
  /** Whether `clients` is the scenario's own (closed loop) or Little's law's mean in flight. */
  exact: boolean;
  ttft_p50: number;
  ttft_p90: number;
  tpot_p50: number;
  tpot_p90: number;
  per_gpu: number;
}

const markLabel = (m: ConcurrencyMark): string => (m.exact ? 'this scenario' : `this scenario (≈${m.clients < 10 ? m.clients.toPrecision(2) : Math.round(m.clients)} in flight)`);

const concurrencyNote = (points: ConcurrencyPoint[], ms: number | undefined, mark: ConcurrencyMark | undefined): string =>
  `${mark ? (mark.exact ? 'Rings: this scenario. ' : 'Rings: this scenario’s Poisson stream at its mean requests in flight (Little’s law). ') : ''}A closed loop of ${points[0]!.clients} to ${points[points.length - 1]!.clients} users, each sending its next request when the last ends (${points.length} points${ms !== undefined ? `, simulated in ${ms} ms` : ''}).`;

/** p50 and p90 TTFT and TPOT against the number of concurrent users of a closed loop (log-log). */
export function servingConcurrencyLatencySpec(points: ConcurrencyPoint[], slo: ServingObjectives | undefined, ms?: number, mark?: ConcurrencyMark): LineChartSpec | null {
  if (points.length === 0) return null;
  const out: LineChartSpec['points'] = [];
  // A latency at or below zero has no place on a log axis: left out and said under the chart.
  const left: string[] = [];
  for (const q of points) {
    for (const [y, series] of [
      [q.ttft_p50, 'time to first token, p50'],
      [q.ttft_p90, 'time to first token, p90'],
      [q.tpot_p50, 'time per output token, p50'],
      [q.tpot_p90, 'time per output token, p90'],
    ] as const) {
      if (y > 0 && Number.isFinite(y)) out.push({ x: q.clients, y, series });
      else left.push(`${series} at ${countOf(q.clients, 'user')} (${Number.isFinite(y) ? formatSeconds(y) : String(y)})`);
    }
  }
  return {
    kind: 'lines',
    title: 'Serving: latency as concurrent users grow',
    xLabel: 'concurrent users (closed loop)',
    yLabel: 'latency',
    xCategorical: false,
    unit: 's',
    xUnit: '',
    logX: true,
    logY: true,
    points: out,
    rules: objectiveRules(slo),
    colors: SERVING_COLORS,
    marked: mark
      ? [
          { x: mark.clients, y: mark.ttft_p90, label: markLabel(mark) },
          { x: mark.clients, y: mark.tpot_p90, label: '' },
        ]
      : undefined,
    note: `${concurrencyNote(points, ms, mark)}${left.length > 0 ? ` Not drawn, at or below zero on a log axis: ${left.join(', ')}.` : ''}`,
  };
}

/** Output tokens/s per GPU against the number of concurrent users of a closed loop (y from zero). */
export function servingConcurrencyThroughputSpec(points: ConcurrencyPoint[], ms?: number, mark?: ConcurrencyMark): LineChartSpec | null {
  if (points.length === 0) return null;
  return {
    kind: 'lines',
    title: 'Serving: throughput per GPU as concurrent users grow',
    xLabel: 'concurrent users (closed loop)',
    yLabel: 'output tokens/s per GPU',
    xCategorical: false,
    unit: 'tokens/s',
    xUnit: '',
    logX: true,
    logY: false,
    yFromZero: true,
    points: points.map((q) => ({ x: q.clients, y: q.per_gpu, series: 'output tokens/s per GPU' })),
    colors: SERVING_COLORS,
    marked: mark ? [{ x: mark.clients, y: mark.per_gpu, label: markLabel(mark) }] : undefined,
    note: concurrencyNote(points, ms, mark),
  };
}

/** The phases of an RL step in the timeline's legend order, with the colour each keeps. */
export const RL_PHASES: Array<[category: string, color: string]> = [
  ['Rollout (to the mean response)', '#4e79a7'],
  ['Rollout tail (to the longest response)', '#a0cbe8'],
  ['Reward (model or host scoring)', '#f28e2b'],
  ['Reference forward', '#edc948'],
  ['Old log-probs forward', '#b07aa1'],
  ['Training (optimizer steps)', '#59a14f'],
  ['Weight sync', '#e15759'],
  ['Swap to host and back', '#9c755f'],
  ['Idle (waiting for the other pool)', '#d4d4d4'],
  ['Training: waiting for the heaviest data-parallel rank', '#8cd17d'],
];

/**
 * One RL step as a timeline per pool (the engine's rl output, docs/rl.md "The step"), each
 * segment floating from where the one before ended, every row ending at the step time:
 * - colocated (one pool): rollout, the engine's weights to host memory (half the swap), the
 *   scoring passes (reward, reference, old log-probs), the optimizer steps, the engine's weights
 *   back (the other half), the weight sync;
 * - split, on-policy: the rollout pool generates then idles (idle_s.rollout) while the training
 *   pool idles (idle_s.train) then scores and trains; both then take the weight sync;
 * - split, staleness >= 1: both pools work at once (the rollout of the next step), the faster
 *   one idles for the difference, then the sync.
 * The rollout is cut at the mean response's finish (rollout.mean_response_s): what follows is
 * the long tail a synchronous step waits for (rollout.longest_response_s sets the phase). The
 * optimizer steps end with the trainer's own straggler (train.straggler_s, docs/rl.md "The
 * data-parallel straggler"): the seconds the heaviest data-parallel rank adds.
 */
export function rlTimelineSpec(p: Prediction): BarChartSpec | null {
  const rl = p.rl;
  if (!rl) return null;
  const ph = rl.phases_s;
  const C = Object.fromEntries(RL_PHASES.map(([c], i) => [['mean', 'tail', 'reward', 'reference', 'old', 'train', 'sync', 'swap', 'idle', 'straggler'][i], c])) as Record<string, string>;
  const bars: Bar[] = [];
  const lane = (row: string, segments: Array<[key: string, seconds: number]>): void => {
    let at = 0;
    for (const [key, v] of segments) {
      if (v > 0) bars.push({ row, category: C[key]!, value: v, start: at });
      at += Math.max(0, v);
    }
  };
  const mean = Math.min(rl.rollout.mean_response_s, ph.rollout);
  const rollout: Array<[string, number]> = [
    ['mean', mean],
    ['tail', ph.rollout - mean],
  ];
  const straggler = Math.min(ph.train, Math.max(0, rl.train.straggler_s ?? 0));
  const scoring: Array<[string, number]> = [
    ['reward', ph.reward],
    ['reference', ph.reference],
    ['old', ph.old_logprob],
    ['train', ph.train - straggler],
    ['straggler', straggler],
  ];
  const gpus = (n: number): string => countOf(n, 'GPU');
  // Roles "separate" (docs/rl.md, "The trainer's models: roles"): one lane per model of the
  // trainer on its own GPUs: its forward, its wait for the slowest forward, its update, its wait
  // for the slower update (the engine's rl.roles.<role>.wait_after_forward_s and
  // wait_after_update_s); otherwise one lane for the training pool with the phases one after another.
  const roles = rl.roles?.mode === 'separate' ? (['actor', 'critic', 'reference', 'reward'] as const).filter((k) => rl.roles?.[k]) : [];
  const trainer = (pool: string, before: Array<[string, number]>, after: Array<[string, number]>): void => {
    if (roles.length === 0) {
      lane(pool, [...before, ...scoring, ...after]);
      return;
    }
    for (const k of roles) {
      const r = rl.roles![k]!;
      const key = k === 'reward' ? 'reward' : k === 'reference' ? 'reference' : 'old';
      const name = `${k[0]!.toUpperCase()}${k.slice(1)} (${gpus(r.devices)})`;
      lane(name, [...before, [key, r.forward_s], ['idle', r.wait_after_forward_s], ['train', r.update_s], ['idle', r.wait_after_update_s], ...after]);
    }
  };
  let title: string;
  if (rl.placement === 'colocated') {
    trainer(`All ${gpus(rl.rollout.devices)}`, [...rollout, ['swap', ph.swap / 2]], [['swap', ph.swap / 2], ['sync', ph.weight_sync]]);
    title = 'One RL step (colocated: the GPUs generate, then train)';
  } else if (rl.staleness === 0) {
    lane(`Rollout pool (${gpus(rl.rollout.devices)})`, [...rollout, ['idle', rl.idle_s.rollout], ['sync', ph.weight_sync]]);
    trainer(`Training pool (${gpus(rl.train.devices)})`, [['idle', rl.idle_s.train]], [['sync', ph.weight_sync]]);
    title = 'One RL step per pool (split, on-policy: each pool waits for the other)';
  } else {
    lane(`Rollout pool (${gpus(rl.rollout.devices)})`, [...rollout, ['idle', rl.idle_s.rollout], ['sync', ph.weight_sync]]);
    trainer(`Training pool (${gpus(rl.train.devices)})`, [], [['idle', rl.idle_s.train], ['sync', ph.weight_sync]]);
    title = `One RL step per pool (split, ${countOf(rl.staleness, 'step')} off-policy: the next step's rollout runs beside this step's training)`;
  }
  const colors = Object.fromEntries(RL_PHASES);
  return { kind: 'bars', title, unit: 'seconds', xLabel: 'time into the step (s)', bars, stacked: true, colors };
}
