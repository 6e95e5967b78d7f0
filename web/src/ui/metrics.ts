// The result numbers the page shows, their units, and how each one is obtained (formula and the
// inputs it used), so a reader can follow the method of Kundu et al. (arXiv 2407.14645) and the
// output contract of shared/spec/scenario.md. Pure: unit-tested in test/ui/metrics.test.ts.
import type { Prediction, ResolvedScenario } from '../engine/types';
import { formatValue, type Quantity } from './format';

export interface Explanation {
  /** The formula in words/symbols. */
  formula: string;
  /** Named inputs with their formatted values. */
  inputs: Array<[name: string, value: string]>;
  /** Where the formula comes from. */
  source?: string;
}

export interface ExplainContext {
  prediction: Prediction;
  /** validate()'s scenario (presets resolved, defaults filled); null while unknown. */
  scenario: ResolvedScenario | null;
}

export interface MetricDef {
  /** Dotted output path (the DOM contract's data-metric). */
  path: string;
  label: string;
  q: Quantity;
  /** Which way is better, for colouring differences against a pinned result. */
  better?: 'lower' | 'higher';
  explain?: (c: ExplainContext) => Explanation | null;
}

/** Value at a dotted path of a JSON tree, or undefined. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

const f = formatValue;
const num = (x: unknown): number => (typeof x === 'number' ? x : NaN);

/** Dense peak FLOP/s of the scenario's device for a precision, from the resolved scenario. */
export function devicePeak(s: ResolvedScenario | null, precision: string | undefined): number | undefined {
  const peaks = s?.system?.device?.peak_tflops as Record<string, number> | undefined;
  if (!peaks || !precision) return undefined;
  const t = peaks[precision];
  return typeof t === 'number' ? t * 1e12 : undefined;
}

const BREAKDOWN_KEYS = ['compute', 'recompute', 'tp_comm', 'cp_comm', 'pp_comm', 'dp_comm', 'bubble', 'optimizer'];
const MEMORY_KEYS = ['weights', 'gradients', 'optimizer', 'activations', 'kv_cache'] as const;

function memoryMetrics(prefix: string, phase: 'training' | 'inference'): MetricDef[] {
  const m = (k: string): string => `${prefix}.per_device_bytes.${k}`;
  const cats: Record<(typeof MEMORY_KEYS)[number], string> = {
    weights: 'parameters held by this device (its 1/pp of the layers, 1/tp of each matrix, plus the embedding on the first stage) × bytes per parameter; sharded over dp under ZeRO-3',
    gradients: 'one gradient per parameter held (fp32 main gradients in mixed precision); sharded over dp from ZeRO-2',
    optimizer: 'Adam state: fp32 master weights, momentum and variance (12 B per parameter); sharded over dp from ZeRO-1',
    activations: 'activations stored for the backward pass of the micro-batches in flight on the first pipeline stage (Korthikanti et al. 2022, Table 2), reduced by sequence parallelism and recomputation; for inference the largest transient working set',
    kv_cache: 'keys and values of every layer on this device: 2 × layers/pp × batch × (prompt + output) × kv_heads/tp × head_dim × bytes of kv_precision',
  };
  const out: MetricDef[] = MEMORY_KEYS.filter((k) => !(phase === 'inference' && (k === 'gradients' || k === 'optimizer'))).map((k) => ({
    path: m(k),
    label: k === 'kv_cache' ? 'KV cache' : k[0]!.toUpperCase() + k.slice(1),
    q: 'bytes' as Quantity,
    better: 'lower' as const,
    explain: (c: ExplainContext): Explanation => ({
      formula: cats[k],
      inputs: scenarioInputs(c.scenario, phase),
      source: 'Kundu et al. 2024, Sec. 3 (memory model)',
    }),
  }));
  out.push(
    {
      path: m('total'),
      label: 'Total per device',
      q: 'bytes',
      better: 'lower',
      explain: (c) => ({
        formula: 'total = weights + gradients + optimizer + activations + KV cache (the most loaded device)',
        inputs: MEMORY_KEYS.map((k) => [k, f(getPath(c.prediction, m(k)), 'bytes')] as [string, string]),
      }),
    },
    {
      path: `${prefix}.capacity_bytes`,
      label: 'Device capacity',
      q: 'bytes',
      explain: (c) => {
        const gib = c.scenario?.system?.device?.memory?.capacity_GiB;
        return { formula: 'capacity = device memory capacity_GiB × 2^30 B', inputs: gib !== undefined ? [['capacity_GiB', String(gib)]] : [] };
      },
    },
    {
      path: `${prefix}.fits`,
      label: 'Fits in memory',
      q: 'bool',
      explain: (c) => ({
        formula: 'fits = total ≤ capacity',
        inputs: [
          ['total', f(getPath(c.prediction, m('total')), 'bytes')],
          ['capacity', f(getPath(c.prediction, `${prefix}.capacity_bytes`), 'bytes')],
        ],
      }),
    },
  );
  return out;
}

function scenarioInputs(s: ResolvedScenario | null, phase: 'training' | 'inference'): Array<[string, string]> {
  if (!s) return [];
  const p = s.parallel;
  const base: Array<[string, string]> = [
    ['layers', String(s.model.layers)],
    ['hidden', String(s.model.hidden)],
    ['tp', String(p.tp)],
    ['pp', String(p.pp)],
  ];
  if (phase === 'training') {
    base.push(['dp', String(p.dp)], ['zero_stage', String(p.zero_stage)], ['recompute', String(p.recompute)], ['micro_batch', String(p.micro_batch)]);
    if (s.training) base.push(['seq_len', String(s.training.seq_len)], ['precision', s.training.precision]);
  } else if (s.inference) {
    base.push(['batch', String(s.inference.batch)], ['prompt_len + output_len', String(s.inference.prompt_len + s.inference.output_len)], ['precision', s.inference.precision]);
  }
  return base;
}

export const TRAINING_METRICS: MetricDef[] = [
  {
    path: 'training.iteration_time_s',
    label: 'Iteration time',
    q: 'seconds',
    better: 'lower',
    explain: (c) => ({
      formula: 'iteration time = sum of the exposed (not overlapped) times on the critical path: compute + recompute + TP comm + CP comm + PP comm + DP comm + pipeline bubble + optimizer',
      inputs: BREAKDOWN_KEYS.map((k) => [k, f(getPath(c.prediction, `training.breakdown_s.${k}`), 'seconds')] as [string, string]),
      source: 'Kundu et al. 2024, Sec. 3 (training time)',
    }),
  },
  {
    path: 'training.tokens_per_s',
    label: 'Throughput',
    q: 'tokens_rate',
    better: 'higher',
    explain: (c) => ({
      formula: 'tokens/s = global_batch × seq_len / iteration time',
      inputs: [
        ['global_batch', String(c.scenario?.training?.global_batch ?? '?')],
        ['seq_len', String(c.scenario?.training?.seq_len ?? '?')],
        ['iteration time', f(c.prediction.training?.iteration_time_s, 'seconds')],
      ],
    }),
  },
  {
    path: 'training.mfu',
    label: 'MFU',
    q: 'ratio',
    better: 'higher',
    explain: (c) => flopsUtilisation(c, 'model_flops', 'model FLOPs (no recomputation)'),
  },
  {
    path: 'training.hfu',
    label: 'HFU',
    q: 'ratio',
    better: 'higher',
    explain: (c) => flopsUtilisation(c, 'hardware_flops', 'hardware FLOPs (including recomputation)'),
  },
  {
    path: 'training.time_to_train_s',
    label: 'Time to train',
    q: 'seconds',
    better: 'lower',
    explain: (c) => ({
      formula: 'time to train = train_tokens / tokens per second',
      inputs: [
        ['train_tokens', c.scenario?.training?.train_tokens !== undefined ? f(c.scenario.training.train_tokens, 'count') : '?'],
        ['tokens/s', f(c.prediction.training?.tokens_per_s, 'tokens_rate')],
      ],
    }),
  },
  {
    path: 'training.micro_batches',
    label: 'Micro-batches per iteration',
    q: 'count',
    explain: (c) => ({
      formula: 'micro-batches = global_batch / (dp × micro_batch)',
      inputs: [
        ['global_batch', String(c.scenario?.training?.global_batch ?? '?')],
        ['dp', String(c.scenario?.parallel.dp ?? '?')],
        ['micro_batch', String(c.scenario?.parallel.micro_batch ?? '?')],
      ],
    }),
  },
];

function flopsUtilisation(c: ExplainContext, key: 'model_flops' | 'hardware_flops', what: string): Explanation {
  const t = c.prediction.training;
  const precision = c.scenario?.training?.precision;
  const peak = devicePeak(c.scenario, precision);
  return {
    formula: `${key === 'model_flops' ? 'MFU' : 'HFU'} = ${what} per iteration / (iteration time × devices × dense peak FLOP/s of the training precision)`,
    inputs: [
      [key.replace('_', ' '), f(t?.[key], 'flops')],
      ['iteration time', f(t?.iteration_time_s, 'seconds')],
      ['devices', String(c.scenario?.num_devices ?? '?')],
      [`peak (${precision ?? '?'})`, peak !== undefined ? f(peak, 'flop_rate') : '?'],
    ],
    source: 'Chowdhery et al. 2022 (PaLM), Appendix B; Korthikanti et al. 2022, Sec. 6',
  };
}

export const INFERENCE_METRICS: MetricDef[] = [
  {
    path: 'inference.ttft_s',
    label: 'Time to first token',
    q: 'seconds',
    better: 'lower',
    explain: (c) => ({
      formula: 'TTFT = prefill of the whole prompt (all layers, batch × prompt_len tokens): compute + exposed communication',
      inputs: [
        ['prefill compute', f(c.prediction.inference?.prefill_s?.compute, 'seconds')],
        ['prefill communication', f(c.prediction.inference?.prefill_s?.communication, 'seconds')],
      ],
    }),
  },
  {
    path: 'inference.tpot_s',
    label: 'Time per output token',
    q: 'seconds',
    better: 'lower',
    explain: (c) => ({
      formula: 'TPOT = one decode step (one token for each sequence of the batch, reading all weights and the KV cache): compute + exposed communication; with an eager runtime each kernel takes at least the host launch interval',
      inputs: [
        ['decode compute', f(c.prediction.inference?.decode_step_s?.compute, 'seconds')],
        ['decode communication', f(c.prediction.inference?.decode_step_s?.communication, 'seconds')],
        ['host launch interval per kernel', c.prediction.inference?.assumed ? `${c.prediction.inference.assumed.launch_interval_us} µs` : '?'],
      ],
    }),
  },
  {
    path: 'inference.e2e_latency_s',
    label: 'End-to-end latency',
    q: 'seconds',
    better: 'lower',
    explain: (c) => ({
      formula: 'e2e = TTFT + (output_len − 1) × TPOT',
      inputs: [
        ['TTFT', f(c.prediction.inference?.ttft_s, 'seconds')],
        ['output_len', String(c.scenario?.inference?.output_len ?? '?')],
        ['TPOT', f(c.prediction.inference?.tpot_s, 'seconds')],
      ],
    }),
  },
  {
    path: 'inference.throughput_tokens_per_s',
    label: 'Throughput (one replica)',
    q: 'tokens_rate',
    better: 'higher',
    explain: (c) => ({
      formula: 'throughput = batch × output_len / e2e latency',
      inputs: [
        ['batch', String(c.scenario?.inference?.batch ?? '?')],
        ['output_len', String(c.scenario?.inference?.output_len ?? '?')],
        ['e2e latency', f(c.prediction.inference?.e2e_latency_s, 'seconds')],
      ],
    }),
  },
  {
    path: 'inference.max_batch',
    label: 'Largest batch that fits',
    q: 'count',
    better: 'higher',
    explain: () => ({
      formula: 'largest batch whose weights + activations + KV cache (prompt_len + output_len tokens per sequence) fit in the device memory',
      inputs: [],
    }),
  },
];

export const TRAINING_MEMORY_METRICS = memoryMetrics('memory', 'training');
export const INFERENCE_MEMORY_METRICS = memoryMetrics('inference.memory', 'inference');
/** An inference-only prediction's top-level memory (no gradients or optimizer state). */
export const INFERENCE_ONLY_MEMORY_METRICS = memoryMetrics('memory', 'inference');

/** Every metric definition, for export and compare. */
export const ALL_METRICS: MetricDef[] = [...TRAINING_METRICS, ...INFERENCE_METRICS, ...TRAINING_MEMORY_METRICS, ...INFERENCE_MEMORY_METRICS];

/** Explanation for a metric, or null; never throws (a missing input shows as "?"). */
export function explain(def: MetricDef, c: ExplainContext): Explanation | null {
  try {
    return def.explain ? def.explain(c) : null;
  } catch {
    return null;
  }
}
