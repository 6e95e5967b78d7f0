// The result numbers the page shows, their units, and how each one is obtained (formula and the
// inputs it used), so a reader can follow the method of Kundu et al. (arXiv 2407.14645) and the
// output contract of docs/contract.md. Pure: unit-tested in test/ui/metrics.test.ts.
import type { Prediction, ResolvedScenario } from '../engine/types';
import { countOf, formatValue, groupDigits, type Quantity } from '../base/format';

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
  /** What the number is, in plain words, shown under it (words that depend on the prediction: a function of it). */
  about?: string | ((p: Prediction) => string);
  explain?: (c: ExplainContext) => Explanation | null;
  /** Leave the card out when the value is 0 (an RL phase the job does not have). */
  hideZero?: boolean;
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

/** Block-scaled formats run at their element format's rate (schema: peak_tflops). */
const ELEMENT_FORMAT: Record<string, string> = { mxfp8: 'fp8', nvfp4: 'fp4', mxfp4: 'fp4' };

/** Dense peak FLOP/s of the scenario's device for a precision, from the resolved scenario. */
export function devicePeak(s: ResolvedScenario | null, precision: string | undefined): number | undefined {
  const peaks = s?.system?.device?.peak_tflops as Record<string, number> | undefined;
  if (!peaks || !precision) return undefined;
  const t = peaks[ELEMENT_FORMAT[precision] ?? precision];
  return typeof t === 'number' ? t * 1e12 : undefined;
}

const BREAKDOWN_KEYS = ['compute', 'recompute', 'tp_comm', 'cp_comm', 'pp_comm', 'dp_comm', 'ep_comm', 'host', 'bubble', 'optimizer'];
const MEMORY_KEYS = ['weights', 'gradients', 'optimizer', 'activations', 'kv_cache'] as const;

/** ", pipeline stage i of pp" when the memory block names the stage its device holds. */
function stageOf(c: ExplainContext, prefix: string): string {
  const stage = getPath(c.prediction, `${prefix}.pipeline_stage`);
  if (typeof stage !== 'number') return '';
  const pp = c.scenario?.parallel?.pp;
  return `: pipeline stage ${stage + 1}${typeof pp === 'number' ? ` of ${pp}` : ''}, the heaviest`;
}

function memoryMetrics(prefix: string, phase: 'training' | 'inference' | 'rl'): MetricDef[] {
  const m = (k: string): string => `${prefix}.per_device_bytes.${k}`;
  const cats: Record<(typeof MEMORY_KEYS)[number], string> = {
    weights: 'parameters held by this device (its pipeline stage’s layers, 1/tp of each matrix, plus the embedding on the first stage and the output layer on the last) × bytes per parameter; sharded over dp under ZeRO-3. The device shown is the heaviest stage’s',
    gradients: 'one gradient per parameter held (fp32 main gradients in mixed precision); sharded over dp from ZeRO-2',
    optimizer: 'Adam state: fp32 master weights, momentum and variance (12 B per parameter); sharded over dp from ZeRO-1',
    activations: 'activations stored for the backward pass of the micro-batches in flight on the heaviest pipeline stage (stage i keeps pp − i of them; Korthikanti et al. 2022, Table 2), the output layer’s fp32 logits on the last, reduced by sequence parallelism and recomputation, and by offloading (parallel.offload_layers: those layers wait in host memory, one layer more stays for the copy back); for inference the largest transient working set',
    kv_cache: 'keys and values of every layer on this device: 2 × layers/pp × batch × (prompt + output) × kv_heads/tp × head_dim × bytes of kv_precision',
  };
  // An RL prediction's memory is its trainer's footprint: no KV cache (the rollout engine's is in
  // the rollout pool's number).
  const keys = MEMORY_KEYS.filter((k) => !(phase === 'inference' && (k === 'gradients' || k === 'optimizer')) && !(phase === 'rl' && k === 'kv_cache'));
  const out: MetricDef[] = keys.map((k) => ({
    path: m(k),
    label: k === 'kv_cache' ? 'KV cache' : k[0]!.toUpperCase() + k.slice(1),
    q: 'bytes' as Quantity,
    better: 'lower' as const,
    explain: (c: ExplainContext): Explanation => ({
      formula: cats[k],
      inputs: phase === 'rl' ? rlTrainerInputs(c) : scenarioInputs(c.scenario, phase),
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
        formula: `total = ${keys.map((k) => (k === 'kv_cache' ? 'KV cache' : k)).join(' + ')} (the most loaded device${stageOf(c, prefix)})`,
        inputs: keys.map((k) => [k, f(getPath(c.prediction, m(k)), 'bytes')] as [string, string]),
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
  // Training with activations (parallel.offload_layers) or the optimizer state
  // (parallel.optimizer_offload) in host memory only.
  if (phase !== 'inference')
    out.splice(out.length - 1, 0, {
      path: `${prefix}.host_bytes`,
      label: 'In host memory (offloaded)',
      q: 'bytes',
      explain: (c) => ({
        formula:
          'host = offload_layers × one layer’s saved activations (a micro-batch; the device keeps the rest and one layer more for the copy back) + the optimizer state of the device’s ZeRO shard when the CPU steps it (optimizer_offload); the copies run at the system’s host_link_GBps',
        inputs: (() => {
          // An RL prediction's memory is its trainer's, whose layout the engine reports.
          const par = phase === 'rl' ? c.prediction.rl?.train.parallel : c.scenario?.parallel;
          return [
            ['offload_layers', String(par?.offload_layers ?? 0)],
            ['optimizer_offload', String(par?.optimizer_offload ?? false)],
            ['host_link_GBps', String(c.scenario?.system?.host_link_GBps ?? '?')],
          ];
        })(),
        source: 'Megatron-Core cpu_offloading (cpu_offloading_num_layers); --optimizer-cpu-offload',
      }),
    });
  return out;
}

/** The RL trainer's layout (the engine's choice under train "auto"), for its memory cards. */
function rlTrainerInputs(c: ExplainContext): Array<[string, string]> {
  const t = c.prediction.rl?.train;
  if (!t) return [];
  const p = t.parallel;
  return [
    ['trainer devices', String(t.devices)],
    ['trainer layout', layout(p)],
    ['zero_stage', String(p.zero_stage)],
    ['recompute', String(p.recompute)],
    ['micro_batch', String(p.micro_batch)],
    ['optimizer in host memory', p.optimizer_offload ? 'yes (the CPU steps it)' : 'no'],
    ['sequence length (packed)', String(t.seq_len)],
  ];
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
    if (p.zero_shard !== undefined) base.push(['zero_shard', String(p.zero_shard)]);
    if (p.recompute_fraction !== undefined) base.push(['recompute_fraction', String(p.recompute_fraction)]);
    if (p.recompute_modules !== undefined) base.push(['recompute_modules', p.recompute_modules.join(', ')]);
    if (p.offload_layers !== undefined) base.push(['offload_layers', String(p.offload_layers)]);
    if (p.optimizer_offload) base.push(['optimizer_offload', 'true']);
    if (s.training) base.push(['seq_len', String(s.training.seq_len)], ['precision', s.training.precision]);
  } else if (s.inference) {
    base.push(['batch', String(s.inference.batch)], ['prompt_len + output_len', String(s.inference.prompt_len + s.inference.output_len)], ['precision', s.inference.precision]);
    if (s.inference.weight_group_size !== undefined) base.push(['weight_group_size', String(s.inference.weight_group_size)]);
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
      formula: 'iteration time = sum of the exposed (not overlapped) times on the critical path: compute + recompute + TP comm + CP comm + PP comm + DP comm + expert all-to-all (MoE) + pipeline bubble + optimizer',
      inputs: [
        ...BREAKDOWN_KEYS.filter((k) => getPath(c.prediction, `training.breakdown_s.${k}`) !== undefined).map((k) => [k, f(getPath(c.prediction, `training.breakdown_s.${k}`), 'seconds')] as [string, string]),
        ['software stack', typeof c.scenario?.software === 'string' ? c.scenario.software : c.scenario?.software ? 'inline profile' : 'system default'],
        ['its share of the matmul rate', String(c.scenario?.system.software?.training_matmul_share ?? '?')],
      ],
      source: 'Kundu et al. 2024, Sec. 3 (training time); a stack\'s share of the matmul rate: its software profile (fitted on its own runs, presets/software)',
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
    label: 'Time to train at the modelled rate (before failures and restarts)',
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

// How the runtime's decode attention reads the cache (software.decode_kv_per_query_head).
function kvReads(c: ExplainContext): string {
  const perHead = c.scenario?.system.software?.decode_kv_per_query_head;
  if (perHead === undefined) return '?';
  return perHead ? 'once per query head (the stack expands a GQA cache to every head)' : 'once per KV head';
}

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
    explain: (c) => {
      const sp = c.prediction.inference?.speculative;
      const inputs: Array<[string, string]> = [
        ['decode compute', f(c.prediction.inference?.decode_step_s?.compute, 'seconds')],
        ['decode communication', f(c.prediction.inference?.decode_step_s?.communication, 'seconds')],
        ['host launch interval per kernel', c.prediction.inference?.assumed ? `${c.prediction.inference.assumed.launch_interval_us} µs` : '?'],
        ['KV cache read', kvReads(c)],
      ];
      if (!sp)
        return {
          formula: 'TPOT = one decode step (one token for each sequence of the batch, reading all weights and the KV cache): compute + exposed communication; with an eager runtime each kernel takes at least the host launch interval',
          inputs,
        };
      const k = c.scenario?.inference?.speculative?.draft_tokens;
      return {
        formula: 'TPOT = (k draft passes + one verification of k + 1 tokens per sequence) / tokens per step, tokens per step = 1 + a₁ + a₁a₂ + … + a₁…a_k, where a_i is the i-th drafted token’s acceptance given those before it: the acceptance rate for the draft’s own positions, times the decay for each position past them (an MTP module reused past the checkpoint’s modules)',
        inputs: [
          ['drafted tokens k', String(k ?? '?')],
          ['acceptance by position a₁…a_k', sp.acceptance_by_position.map((a) => a.toFixed(3)).join(', ')],
          ['tokens per step', sp.tokens_per_step.toFixed(3)],
          ['draft passes', f(sp.draft_s, 'seconds')],
          ['verification', f(sp.verify_s, 'seconds')],
          ['plain decode step (no speculation)', f(sp.tpot_without_s, 'seconds')],
          ['speed-up', `${sp.speedup.toFixed(2)}×`],
        ],
        source: 'Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding", Eq. 1; the decay of a reused MTP module: docs/serving.md',
      };
    },
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
      formula: 'largest batch whose weights + activations + KV cache (prompt_len + output_len tokens per sequence) fit in the device memory, leaving the runtime its own (CUDA context, NCCL)',
      inputs: [],
    }),
  },
];

// ---- Model size and mixture of experts ----------------------------------------------------------

type Model = ResolvedScenario['model'];
type Moe = NonNullable<Model['moe']>;

/** MoE layers of the model, as the engine counts them (prediction params.moe_layers). */
export function moeLayers(p: Prediction | undefined): number {
  return p?.params?.moe_layers ?? 0;
}

/** Weight matrices of one FFN (and so of one expert): gate, up and down with SwiGLU, else two. */
const ffnMatrices = (m: Model | undefined): number => (m?.ffn_type === 'swiglu' ? 3 : 2);

function moeInputs(s: ResolvedScenario | null, keys: Array<keyof Moe>): Array<[string, string]> {
  const moe = s?.model.moe;
  return keys.map((k) => [k, moe?.[k] !== undefined ? String(moe[k]) : '?']);
}

/** Tokens one device routes per micro-batch in a training step (the MoE layers' input). */
export function routedTokens(s: ResolvedScenario | null): { tokens: number; local: boolean } | null {
  if (!s?.training) return null;
  const p = s.parallel;
  const T = p.micro_batch * Math.floor(s.training.seq_len / p.cp);
  // With sequence parallelism (or tp 1) each tensor rank routes its own 1/tp of the tokens;
  // without it the tp ranks hold the same tokens and split the experts between them.
  const local = p.sequence_parallel || p.tp === 1;
  return { tokens: local ? T / p.tp : T, local };
}

export const PARAM_METRICS: MetricDef[] = [
  {
    path: 'params.total',
    label: 'Total parameters',
    q: 'params',
    about: 'Every weight of the model: what the checkpoint holds.',
    explain: (c) => {
      const m = c.scenario?.model;
      const inputs: Array<[string, string]> = m ? [['layers', String(m.layers)], ['hidden', String(m.hidden)], ['ffn_hidden', String(m.ffn_hidden)], ['vocab', String(m.vocab)], ['tied_embeddings', String(m.tied_embeddings)]] : [];
      if (m?.moe) inputs.push(['MoE layers', String(moeLayers(c.prediction))], ...moeInputs(c.scenario, ['experts', 'expert_ffn_hidden', 'shared_experts']));
      return {
        formula: m?.moe
          ? 'total = embedding (vocab × hidden) + LM head (vocab × hidden, unless tied) + every layer’s attention and norms + the dense FFN of the dense layers + in each MoE layer the router (hidden × experts), the shared experts and all routed experts'
          : 'total = embedding (vocab × hidden) + LM head (vocab × hidden, unless tied) + layers × (attention + FFN + norms)',
        inputs,
      };
    },
  },
  {
    path: 'params.active',
    label: 'Active parameters per token',
    q: 'params',
    about: 'The weights one token passes through: a mixture-of-experts model uses only top_k of its routed experts per layer; a dense model uses all of them.',
    explain: (c) => {
      const m = c.scenario?.model;
      if (!m?.moe) return { formula: 'active = total (a dense model: every token passes through every weight)', inputs: [['total', f(c.prediction.params?.total, 'params')]] };
      return {
        formula: `active = total − MoE layers × (experts − top_k) × parameters of one routed expert (${ffnMatrices(m)} × hidden × expert_ffn_hidden${m.bias ? ', plus biases' : ''}): the experts a token is not routed to`,
        inputs: [['total', f(c.prediction.params?.total, 'params')], ['MoE layers', String(moeLayers(c.prediction))], ...moeInputs(c.scenario, ['experts', 'top_k', 'expert_ffn_hidden']), ['hidden', String(m.hidden)], ['ffn_type', m.ffn_type]],
      };
    },
  },
];

export const MOE_METRICS: MetricDef[] = [
  {
    path: 'training.moe.tokens_per_expert',
    label: 'Tokens per expert',
    q: 'count',
    about: 'How many tokens one expert on the busiest expert-parallel rank processes per micro-batch: the rows of its expert GEMMs.',
    explain: (c) => {
      const r = routedTokens(c.scenario);
      const p = c.scenario?.parallel;
      const routed = r && c.scenario?.model.moe ? (r.tokens * c.scenario.model.moe.top_k) / (r.local ? 1 : p!.ep) : undefined;
      return {
        formula:
          'tokens per expert = ⌈tokens routed to this rank × ep / experts × imbalance⌉, where tokens routed to this rank = its tokens of the micro-batch (micro_batch × seq_len / cp, split over tp with sequence parallelism) × top_k; imbalance is at most capacity_factor when tokens are dropped. When fewer than about 30 tokens reach an expert on average, only the experts that get one run, and they share the tokens (÷ (1 − e^−mean)).',
        inputs: [
          ['tokens routed to this rank', routed !== undefined ? f(routed, 'count') : '?'],
          ['ep', String(p?.ep ?? '?')],
          ...moeInputs(c.scenario, ['experts', 'top_k', 'imbalance']),
          ...(c.scenario?.model.moe?.capacity_factor !== undefined ? moeInputs(c.scenario, ['capacity_factor']) : []),
        ],
        source: 'GShard (Lepikhin et al. 2020); Megatron-Core MoE all-to-all token dispatcher',
      };
    },
  },
  {
    path: 'training.moe.dispatch_bytes',
    label: 'All-to-all bytes per layer',
    q: 'bytes',
    better: 'lower',
    about: 'What the busiest expert-parallel rank exchanges in one MoE layer per micro-batch: a copy of each token’s hidden state for each expert it is routed to, imbalance × the mean rank’s, as the exchange waits for that rank. The combine sends as much back.',
    explain: (c) => {
      const r = routedTokens(c.scenario);
      const s = c.scenario;
      const wide = s?.training?.precision === 'fp32' || s?.training?.precision === 'tf32';
      const actBytes = wide ? 4 : s?.system.software?.activation_bytes;
      return {
        formula: `dispatch bytes = tokens on this rank × top_k × hidden × bytes per activation element${r && !r.local ? ' / ep (the tp ranks hold the same tokens and split them)' : ''} × imbalance (the busiest rank’s share, at most capacity_factor when tokens are dropped)`,
        inputs: [
          ['tokens on this rank', r ? f(r.tokens, 'count') : '?'],
          ...moeInputs(s, ['top_k', 'imbalance']),
          ['hidden', String(s?.model.hidden ?? '?')],
          ['bytes per activation element', actBytes !== undefined ? String(actBytes) : '?'],
        ],
      };
    },
  },
  {
    path: 'training.moe.all_to_all_layer_s',
    label: 'All-to-all time per layer',
    q: 'seconds',
    better: 'lower',
    about: 'Dispatch plus combine of one MoE layer in the forward pass of one micro-batch; the backward pass runs both again.',
    explain: (c) => {
      const s = c.scenario;
      const p = s?.parallel;
      const domain = s?.system.scale_up?.domain_size;
      const inside = p && domain !== undefined ? p.ep * p.etp <= domain : undefined;
      return {
        formula:
          'all-to-all time per layer = dispatch + combine = 2 × all-to-all of the dispatch bytes among the ep ranks: over the scale-up network (NVLink) when they share one domain, else over the scale-out network; with the deepep dispatcher a token crosses the scale-out network once per destination node and is forwarded over NVLink there',
        inputs: [
          ['dispatch bytes', f(c.prediction.training?.moe?.dispatch_bytes, 'bytes')],
          ['ep', String(p?.ep ?? '?')],
          ['ep ranks in one scale-up domain', inside === undefined ? '?' : inside ? `yes (domain of ${domain})` : `no (domain of ${domain})`],
          [inside === false ? 'scale-out bandwidth' : 'scale-up bandwidth', (inside === false ? s?.system.scale_out?.bandwidth_GBps : s?.system.scale_up?.bandwidth_GBps) !== undefined ? `${String(inside === false ? s!.system.scale_out.bandwidth_GBps : s!.system.scale_up.bandwidth_GBps)} GB/s` : '?'],
          ['dispatcher', s?.system.software?.moe_dispatcher ?? '?'],
        ],
        source: 'Megatron-Core MoE (arXiv 2504.14960); DeepEP',
      };
    },
  },
  {
    path: 'training.breakdown_s.ep_comm',
    label: 'Expert all-to-all per iteration',
    q: 'seconds',
    better: 'lower',
    about: 'The time the expert all-to-all adds to each iteration: it is not overlapped with compute (Megatron-Core’s all-to-all dispatcher), so all of it is exposed.',
    explain: (c) => ({
      formula:
        'expert all-to-all per iteration = micro-batches × (forward + backward all-to-alls, and the expert-tensor all-reduces when etp > 1) of every MoE layer on the busiest pipeline stage',
      inputs: [
        ['all-to-all time per layer (forward)', f(c.prediction.training?.moe?.all_to_all_layer_s, 'seconds')],
        ['micro-batches', String(c.prediction.training?.micro_batches ?? '?')],
        ['etp', String(c.scenario?.parallel.etp ?? '?')],
      ],
    }),
  },
  {
    path: 'training.breakdown_s.host',
    label: 'Waiting for the host per iteration',
    q: 'seconds',
    better: 'lower',
    about: 'Two ways the host stops running ahead of the GPU. A dropless MoE layer copies its per-expert token counts to the host before the dispatch and then issues its operators while the GPU waits; when that takes longer than the GPU’s work (small layers, many local experts), the difference counts here. And a pipelined stack that synchronises the GPU after every point-to-point exchange (Megatron-LM’s torch.cuda.synchronize() after batch_isend_irecv) leaves the GPU idle while the host issues the next step. Activations offloaded to host memory (parallel.offload_layers) add what their copies take beyond the forward and backward passes they run beside.',
    explain: (c) => ({
      formula:
        'host wait per iteration = micro-batches × Σ over the MoE layers of the busiest stage, forward and backward, of max(0, operators issued × host time per operator − the pass’s GPU time) (an expert GEMM counts once per local expert) + 2 (v m + p − 1) pipeline exchanges × the wait after each + micro-batches × [max(0, offloaded bytes / host link − forward) + max(0, offloaded bytes / host link − backward)]',
      inputs: [
        ['host time per operator', c.scenario?.system.software?.training_launch_interval_us !== undefined ? `${String(c.scenario.system.software.training_launch_interval_us)} µs` : '?'],
        ['attention and router in CUDA graphs', String(c.scenario?.system.software?.training_cuda_graphs ?? '?')],
        ['experts / ep', c.scenario?.model.moe && c.scenario.parallel ? String(c.scenario.model.moe.experts / c.scenario.parallel.ep) : 'none (dense model: no host wait)'],
        ['capacity_factor (set = no host sync)', c.scenario?.model.moe ? String(c.scenario.model.moe.capacity_factor ?? 'absent (dropless)') : 'none (dense model)'],
        ['micro-batches', String(c.prediction.training?.micro_batches ?? '?')],
        ['wait after each pipeline exchange', c.scenario?.system.software?.pipeline_sync_us !== undefined ? `${String(c.scenario.system.software.pipeline_sync_us)} µs` : '?'],
      ],
      source: 'Megatron-Core token dispatchers (host copy of tokens per expert); fitted on the Megatron-Bridge MoE rows. The wait after a pipeline exchange: fitted on the pipelined Korthikanti et al. 2022 rows (system preset notes)',
    }),
  },
  {
    path: 'training.moe.expert_params_per_device',
    label: 'Expert parameters per device',
    q: 'params',
    about: 'Routed-expert weights one device holds on the pipeline stage with the most of them: experts / ep experts of each MoE layer there, each split over etp ranks.',
    explain: (c) => {
      const s = c.scenario;
      const moe = s?.model.moe;
      const p = s?.parallel;
      const perLayer = moe && p ? ((moe.experts / p.ep) * ffnMatrices(s.model) * s.model.hidden * moe.expert_ffn_hidden) / p.etp : undefined;
      return {
        formula: `expert parameters per device = MoE layers on its stage × (experts / ep) × ${ffnMatrices(s?.model)} × hidden × expert_ffn_hidden / etp`,
        inputs: [
          ['experts / ep', moe && p ? String(moe.experts / p.ep) : '?'],
          ['one MoE layer’s share', perLayer !== undefined ? f(perLayer, 'params') : '?'],
          ['MoE layers on its stage', String(c.prediction.training?.moe?.layers_per_device ?? '?')],
          ['etp', String(p?.etp ?? '?')],
        ],
      };
    },
  },
  {
    path: 'training.moe.expert_dp',
    label: 'Expert data-parallel degree',
    q: 'count',
    about: 'Expert layers fold the stage’s tp × cp × dp ranks as etp × ep × expert-dp: each expert is replicated on this many ranks, which average its gradients (and share its optimizer state under ZeRO).',
    explain: (c) => {
      const p = c.scenario?.parallel;
      return {
        formula: 'expert-dp = tp × cp × dp / (ep × etp)',
        inputs: p ? [['tp', String(p.tp)], ['cp', String(p.cp)], ['dp', String(p.dp)], ['ep', String(p.ep)], ['etp', String(p.etp)]] : [],
        source: 'Megatron-Core MoE parallel folding (arXiv 2504.14960)',
      };
    },
  },
];

export const TRAINING_MEMORY_METRICS = memoryMetrics('memory', 'training');
export const INFERENCE_MEMORY_METRICS = memoryMetrics('inference.memory', 'inference');
/** An RL prediction's top-level memory: the trainer's footprint (no KV cache). */
export const RL_TRAINER_MEMORY_METRICS = memoryMetrics('memory', 'rl');
/** An inference-only prediction's top-level memory (no gradients or optimizer state). */
export const INFERENCE_ONLY_MEMORY_METRICS = memoryMetrics('memory', 'inference');

/** Every metric definition, for export and compare. */
const RUN_SOURCE = 'Checkpoint interval by Young (1974) / Daly (2006), failures per device-hour from the system preset (Llama 3 on 16k H100; OPT-175B logbook for A100), energy from board power and an activity model, cost from the economics preset';
const runIn = (c: ExplainContext, k: string, q: Quantity): string => f(getPath(c.prediction, `run.${k}`), q);
/** A run value with fixed decimals and its own unit text ("661 W", "$1.14"), or "?" when absent. */
const runFixed = (c: ExplainContext, k: string, digits: number, before: string, after: string): string => {
  const v = getPath(c.prediction, `run.${k}`);
  return typeof v === 'number' ? `${before}${v.toFixed(digits)}${after}` : '?';
};

/** One input row per later stage (training.stages): its tokens, sequence, layout and ideal time. */
function stageRows(c: ExplainContext): Array<[string, string]> {
  const stages = c.prediction.run?.stages ?? [];
  return stages.map((st, i) => {
    const p = st.parallel;
    return [
      `stage ${i}: ${f(st.tokens, 'count')} tokens at ${st.seq_len} × ${st.global_batch}`,
      `${f(st.ideal_time_s, 'seconds')} ideal (tp ${p.tp} pp ${p.pp} cp ${p.cp} dp ${p.dp}${st.fits ? '' : ', does not fit'})`,
    ];
  });
}

/** The whole training run (output `run`, present with training.train_tokens). */
export const RUN_METRICS: MetricDef[] = [
  {
    path: 'run.wall_days',
    label: 'Wall clock (with failures, checkpoints and restarts)',
    q: 'days',
    better: 'lower',
    about: 'Elapsed days of the whole run: every step at its predicted time (slowed only by a production efficiency the scenario states), plus checkpoint writes, the work lost to failures and the restarts after them. What published runs spend beyond that (evaluations, ablations, stalls) is in the band, not in the number.',
    explain: (c) => ({
      formula: 'wall time = ideal time / production efficiency + checkpoint writes + lost work + restarts; days = wall time / 86,400 s',
      inputs: [
        ['ideal time (steps × iteration time)', runIn(c, 'ideal_time_s', 'seconds')],
        ['production efficiency (system.operations, stated)', String(c.scenario?.system.operations?.production_efficiency ?? 'none: the modelled rate')],
        ['below the modelled rate', runIn(c, 'lost_s.production', 'seconds')],
        ['checkpoint writes', runIn(c, 'lost_s.checkpoint_writes', 'seconds')],
        ['lost work after failures', runIn(c, 'lost_s.lost_work', 'seconds')],
        ['restarts', runIn(c, 'lost_s.restarts', 'seconds')],
        ['steps', String(getPath(c.prediction, 'run.steps') ?? '?')],
        ...stageRows(c),
      ],
      source: RUN_SOURCE,
    }),
  },
  {
    path: 'run.gpu_hours',
    label: 'GPU-hours',
    q: 'count',
    better: 'lower',
    about: 'Devices × elapsed hours: what a cluster booking or a model card counts.',
    explain: (c) => ({
      formula: 'GPU-hours = devices × wall time / 3,600 s',
      inputs: [
        ['devices', String(c.scenario?.num_devices ?? '?')],
        ['wall time', runIn(c, 'wall_time_s', 'seconds')],
      ],
      source: RUN_SOURCE,
    }),
  },
  {
    path: 'run.goodput',
    label: 'Goodput (useful share of elapsed time)',
    q: 'ratio',
    better: 'higher',
    about: 'The share of the elapsed time spent on steps that count: the rest goes to checkpoints, recomputing work lost at failures, and restarts. Steps slower than modelled (a stated production efficiency) still count.',
    explain: (c) => ({
      formula: 'goodput = compute time / wall time, compute time = ideal time (/ a stated production efficiency); checkpoint every τ = √(2 δ M) − δ (Young/Daly) for a checkpoint of δ and a job MTBF of M',
      inputs: [
        ['checkpoint interval τ', runIn(c, 'checkpoint_interval_s', 'seconds')],
        ['checkpoint write δ', runIn(c, 'checkpoint_s', 'seconds')],
        ['checkpoint size', runIn(c, 'checkpoint_bytes', 'bytes')],
        ['job MTBF M', runIn(c, 'job_mtbf_s', 'seconds')],
        ['expected failures', runIn(c, 'expected_failures', 'count')],
      ],
      source: RUN_SOURCE,
    }),
  },
  {
    path: 'run.expected_failures',
    label: 'Expected failures',
    q: 'count',
    better: 'lower',
    about: 'Interruptions the run should expect: its elapsed time over the mean time between failures of the whole job (per-device failure rate × devices).',
    explain: (c) => ({
      formula: 'failures = wall time / job MTBF',
      inputs: [
        ['wall time', runIn(c, 'wall_time_s', 'seconds')],
        ['job MTBF', runIn(c, 'job_mtbf_s', 'seconds')],
      ],
      source: RUN_SOURCE,
    }),
  },
  {
    path: 'run.energy_mwh',
    label: 'Energy (at the meter)',
    q: 'energy_mwh',
    better: 'lower',
    about: 'Electricity of the whole run: the devices’ draw at the run’s mix of work, the rest of each node, and the facility overhead (PUE).',
    explain: (c) => ({
      formula: 'energy = (device power × devices + node overhead) × wall time × PUE',
      inputs: [
        ['device power (average)', runFixed(c, 'device_power_W', 0, '', ' W')],
        ['devices’ energy', runIn(c, 'device_energy_mwh', 'energy_mwh')],
        ['wall time', runIn(c, 'wall_time_s', 'seconds')],
      ],
      source: RUN_SOURCE,
    }),
  },
  {
    path: 'run.cost_usd',
    label: 'Cost (USD)',
    q: 'usd',
    better: 'lower',
    about: 'Money for the run at the scenario’s economics: a rental price per GPU-hour, or owned devices amortised over their years of use plus their electricity.',
    explain: (c) => ({
      formula: 'cost = GPU-hours × USD per GPU-hour (rental; or amortised price + energy × USD per kWh)',
      inputs: [
        ['GPU-hours', runIn(c, 'gpu_hours', 'count')],
        ['USD per GPU-hour', runFixed(c, 'usd_per_gpu_hour', 2, '$', '')],
        ['USD per million tokens trained', runFixed(c, 'usd_per_million_tokens', 3, '$', '')],
      ],
      source: RUN_SOURCE,
    }),
  },
];

/** Explanation for a metric, or null; never throws (a missing input shows as "?"). */
export function explain(def: MetricDef, c: ExplainContext): Explanation | null {
  try {
    return def.explain ? def.explain(c) : null;
  } catch {
    return null;
  }
}

/** The serving stream of the resolved scenario, in words. */
function servingInputs(c: ExplainContext): Array<[string, string]> {
  const sv = c.scenario?.inference?.serving;
  const v = c.prediction.serving;
  if (!sv || !v) return [];
  const len = (x: unknown): string => (typeof x === 'number' ? `${x} tokens` : JSON.stringify(x));
  const rate = sv.arrival === 'poisson' ? `Poisson, ${String(sv.requests_per_s)} requests/s` : sv.arrival === 'closed' ? `closed loop of ${String(sv.concurrency)} clients` : 'all at once (offline)';
  return [
    ['arrival', rate],
    ['requests', String(v.completed)],
    ['prompt', len(sv.input_len)],
    ['output', len(sv.output_len)],
    ['replicas × devices', `${v.replicas} × ${v.devices / Math.max(1, v.replicas)}`],
    ['max_batch / max_num_tokens', `${v.max_batch} / ${v.max_num_tokens}`],
    ['KV admission', String(sv.kv_admission)],
  ];
}

const SIM = 'Batching simulated step by step: every step each running request decodes one token or prefills its next prompt chunk, then waiting requests are admitted while sequences, the token budget and free KV blocks allow (continuous batching: at every step; static batching, inference.serving.static_batching: only once the last batch has finished); each step costs the engine’s step time for that mix (Yu et al. 2022 “Orca”; Kwon et al. 2023 “vLLM”; Agrawal et al. 2024 “Sarathi-Serve”)';

function latencyMetric(key: 'ttft_s' | 'tpot_s' | 'e2e_latency_s' | 'itl_s', stat: 'mean' | 'p90' | 'p99', label: string, about: MetricDef['about'], formula: string): MetricDef {
  // The request latencies are over the completed requests; the inter-token gaps over every token, binned.
  const over = key === 'itl_s' ? 'from log-spaced bins 0.7% wide' : '(linear between ranks)';
  const of = key === 'itl_s' ? 'every gap between two output tokens of every request, token-weighted' : 'the completed requests';
  return {
    path: `serving.${key}.${stat}`,
    label,
    q: 'seconds',
    better: 'lower',
    about,
    explain: (c) => ({
      formula: `${formula}; ${stat === 'mean' ? 'the mean' : `the ${stat.slice(1)}th percentile ${over}`} over ${of}`,
      inputs: [
        ['mean', f(c.prediction.serving?.[key]?.mean, 'seconds')],
        ['p50', f(c.prediction.serving?.[key]?.p50, 'seconds')],
        ['p90', f(c.prediction.serving?.[key]?.p90, 'seconds')],
        ['p99', f(c.prediction.serving?.[key]?.p99, 'seconds')],
        ...servingInputs(c),
      ],
      source: SIM,
    }),
  };
}

export const SERVING_METRICS: MetricDef[] = [
  {
    path: 'serving.output_tokens_per_s',
    label: 'Output tokens/s (deployment)',
    q: 'tokens_rate',
    better: 'higher',
    about: 'Generated tokens per second of the whole deployment.',
    explain: (c) => ({
      formula: 'throughput = generated tokens of all requests / (last completion − first arrival)',
      inputs: [['duration', f(c.prediction.serving?.duration_s, 'seconds')], ...servingInputs(c)],
      source: SIM,
    }),
  },
  {
    path: 'serving.output_tokens_per_s_per_gpu',
    label: 'Output tokens/s per GPU',
    q: 'tokens_rate',
    better: 'higher',
    explain: (c) => ({
      formula: 'per GPU = output tokens/s / devices',
      inputs: [
        ['output tokens/s', f(c.prediction.serving?.output_tokens_per_s, 'tokens_rate')],
        ['devices', String(c.prediction.serving?.devices ?? '?')],
      ],
    }),
  },
  {
    path: 'serving.requests_per_s',
    label: 'Requests/s served',
    q: 'requests_rate',
    better: 'higher',
    explain: (c) => ({
      formula: 'requests/s = completed requests / (last completion − first arrival)',
      inputs: [
        ['completed', String(c.prediction.serving?.completed ?? '?')],
        ['duration', f(c.prediction.serving?.duration_s, 'seconds')],
      ],
    }),
  },
  {
    path: 'serving.goodput_requests_per_s',
    label: 'Goodput',
    q: 'requests_rate',
    better: 'higher',
    about: 'Requests per second that meet both objectives (all of them without objectives).',
    explain: (c) => ({
      formula: 'goodput = requests with TTFT ≤ slo.ttft_s and TPOT ≤ slo.tpot_s / duration',
      inputs: [
        ['slo.ttft_s', c.prediction.serving?.slo ? f(c.prediction.serving.slo.ttft_s, 'seconds') : 'none'],
        ['slo.tpot_s', c.prediction.serving?.slo ? f(c.prediction.serving.slo.tpot_s, 'seconds') : 'none'],
        ['duration', f(c.prediction.serving?.duration_s, 'seconds')],
      ],
    }),
  },
  latencyMetric('ttft_s', 'mean', 'Time to first token, mean', 'From arrival to the first token: waiting for admission plus the prompt’s prefill chunks.', 'TTFT = end of the step that prefills the prompt’s last chunk − arrival'),
  latencyMetric('ttft_s', 'p90', 'Time to first token, p90', '', 'TTFT = end of the step that prefills the prompt’s last chunk − arrival'),
  latencyMetric('tpot_s', 'mean', 'Time per output token, mean', 'Inter-token latency: each later token waits one step of the whole batch.', 'TPOT = (last token − first token) / (output − 1), per request'),
  latencyMetric('tpot_s', 'p90', 'Time per output token, p90', '', 'TPOT = (last token − first token) / (output − 1), per request'),
  {
    path: 'serving.mean_itl_s',
    label: 'Inter-token latency, mean over tokens',
    q: 'seconds',
    better: 'lower',
    about: 'Every gap between two output tokens counted once (the “Mean ITL” of TensorRT-LLM’s and vLLM’s benchmarks); equal to the TPOT mean when all outputs have the same length.',
    explain: (c) => ({
      formula: 'mean ITL = Σ over requests (last token − first token) / Σ (output − 1)',
      inputs: [['TPOT mean (per request)', f(c.prediction.serving?.tpot_s?.mean, 'seconds')], ...servingInputs(c)],
      source: SIM,
    }),
  },
  latencyMetric(
    'itl_s',
    'p99',
    'Inter-token latency, p99 over tokens',
    (p) => {
      const itl = p.serving?.itl_s;
      const what = 'The gap between two tokens that only 1% of all gaps exceed (vLLM’s “P99 ITL”)';
      // Fewer than 1% long gaps (two prefill steps per wave of 250-token outputs) raise the mean
      // above the p99 without reaching it.
      return itl && itl.p99 < itl.mean
        ? `${what}. Here it is below the mean: fewer than 1% of the gaps are long ones (the steps that also prefill prompt chunks, or a request waiting out a preemption), enough to raise the mean but too few to reach this percentile.`
        : `${what}: the steps that also prefill prompt chunks, and requests waiting out a preemption, show up here long before they move the mean.`;
    },
    'a step that prefills prompt chunks lengthens the gap of every sequence decoding in it',
  ),
  latencyMetric('e2e_latency_s', 'p90', 'End-to-end latency, p90', '', 'e2e = last token − arrival'),
  {
    path: 'serving.mean_batch',
    label: 'Mean batch',
    q: 'count',
    about: 'Sequences per step, averaged over time, per replica.',
    explain: (c) => ({
      formula: 'mean batch = Σ (sequences in the step × step time) / Σ step time',
      inputs: [['steps', String(c.prediction.serving?.steps ?? '?')], ['max_batch', String(c.prediction.serving?.max_batch ?? '?')]],
      source: SIM,
    }),
  },
  {
    path: 'serving.kv_utilisation',
    label: 'KV cache in use',
    q: 'ratio',
    explain: (c) => ({
      formula: 'time-weighted share of the KV blocks claimed; capacity = memory × gpu_memory_utilization − weights − one max_num_tokens prefill workspace',
      inputs: [['capacity', `${groupDigits(c.prediction.serving?.kv_capacity_tokens ?? 0)} tokens per replica`], ['preemptions', String(c.prediction.serving?.preemptions ?? '?')]],
    }),
  },
  {
    path: 'serving.kv_peak_utilisation',
    label: 'Peak KV cache in use',
    q: 'ratio',
    explain: () => ({ formula: 'the largest share of the KV blocks claimed at the end of a step, over the replicas', inputs: [], source: SIM }),
  },
  {
    path: 'serving.kv_pool_bytes_per_device',
    label: 'KV cache pool per GPU',
    q: 'bytes',
    about: 'Set aside whole when the engine starts, whatever the stream uses.',
    explain: (c) => ({
      formula: 'pool = memory × gpu_memory_utilization − weights − one max_num_tokens prefill workspace (per device)',
      inputs: [['gpu_memory_utilization', String(c.scenario?.inference?.serving?.gpu_memory_utilization ?? 'the runtime’s')]],
    }),
  },
];


// ---- RL post-training (docs/rl.md "What one step is", core/rl/rl.cpp) --------------------------

const RL_SOURCE = 'docs/rl.md “What one step is”: HybridFlow (arXiv 2409.19256), OpenRLHF (arXiv 2405.11143), AReaL (arXiv 2505.24298)';
/** An RL card's explanation, from the prediction's rl block (none without it). */
const withRl =
  (fn: (rl: NonNullable<Prediction['rl']>, c: ExplainContext) => Explanation) =>
  (c: ExplainContext): Explanation | null => {
    const rl = c.prediction.rl;
    return rl ? fn(rl, c) : null;
  };
const sec = (x: unknown): string => f(x, 'seconds');
const layout = (p: { tp: number; pp: number; dp: number; cp?: number; ep?: number } | undefined): string =>
  p ? `tp ${p.tp} · pp ${p.pp} · dp ${p.dp}${(p.cp ?? 1) > 1 ? ` · cp ${p.cp}` : ''}${(p.ep ?? 1) > 1 ? ` · ep ${p.ep}` : ''}` : '?';
/** A token length as the scenario states it: a limit, a mean and a limit, or a list. */
const lengthWords = (x: unknown): string => {
  if (typeof x === 'number') return `at most ${groupDigits(x)} tokens (a limit; the mean is assumed from it)`;
  if (Array.isArray(x)) return `${x.length} stated lengths`;
  if (x && typeof x === 'object') {
    const o = x as { mean?: number; max?: number };
    return `mean ${groupDigits(o.mean ?? NaN)}, at most ${groupDigits(o.max ?? NaN)} tokens`;
  }
  return '?';
};

/** The forward-only passes (reward, reference, old log-probs): one formula, the pass named. */
function rlForward(path: 'reward' | 'reference' | 'old_logprob', label: string, what: string): MetricDef {
  return {
    path: `rl.phases_s.${path}`,
    label,
    q: 'seconds',
    better: 'lower',
    hideZero: true,
    about: `${what} A forward pass only, on the trainer’s devices.`,
    explain: withRl((rl, c) => {
      return {
        formula:
          'forward time = (one training step − optimizer − gradient reduction − recomputation) × the forward’s share of a micro-batch’s forward + backward through the busiest stage (about a third: the backward of a matmul is two matmuls), over the step’s tokens on the trainer’s layout',
        inputs: [
          ['this pass', sec(getPath(c.prediction, `rl.phases_s.${path}`))],
          ['tokens per step (prompts + responses)', f(rl.tokens_per_step, 'count')],
          ['trainer layout', layout(rl.train.parallel)],
          ['trainer devices', String(rl.train.devices)],
        ],
        source: RL_SOURCE,
      };
    }),
  };
}

/**
 * The reward phase: a reward model's forward (as the other forwards) and a rule-based reward's host
 * time per response (rl.reward_cpu_ms over rl.reward_workers), whichever the job has.
 */
function rlReward(): MetricDef {
  const model = rlForward('reward', 'Reward (scoring)', '');
  return {
    ...model,
    about: 'The responses are scored: a reward model’s forward pass, and a rule-based reward’s stated host time (exact: no range of its own).',
    explain: withRl((rl, c) => {
      const host = rl.reward_cpu_s;
      const forward = model.explain?.(c) ?? null;
      if (!(host > 0) && forward) return forward;
      const stated = c.scenario?.rl;
      const both = rl.phases_s.reward - host > 0 && forward !== null;
      return {
        formula: `${both ? 'reward model’s forward + ' : 'host scoring = '}responses × CPU time per response ÷ scoring processes`,
        inputs: [
          ['host scoring', sec(host)],
          ['responses', groupDigits(rl.rollout.responses)],
          ['CPU time per response', stated ? f((stated.reward_cpu_ms ?? 0) / 1000, 'seconds') : '?'],
          ['scoring processes', stated ? String(stated.reward_workers ?? 1) : '?'],
          ...(both && forward ? forward.inputs : []),
        ],
        source: 'docs/rl.md “Rule-based rewards”',
      };
    }),
  };
}

/** The RL step (output `rl`): the step, each phase the job has, the pools' idle time, rates. */
export const RL_METRICS: MetricDef[] = [
  {
    path: 'rl.step_time_s',
    label: 'Step time',
    q: 'seconds',
    better: 'lower',
    about: 'One RL step: generate the responses, score them, train on them, and hand the new weights to the generating engine.',
    explain: withRl((rl) => {
      const ph = rl.phases_s;
      const separate = rl.roles.mode === 'separate';
      const scoring = separate ? 'max(reward, reference, old log-probs)' : 'reward + reference + old log-probs';
      const formula =
        rl.placement === 'colocated'
          ? `step = rollout + ${scoring} + train + weight sync + swap (one pool of devices takes turns: the engine sleeps while the trainer runs)`
          : rl.staleness === 0
            ? `step = rollout + ${scoring} + train + weight sync (two pools; on-policy, so each waits for the other)`
            : `step = max(rollout, ${scoring} + train) + weight sync (two pools; the next step’s rollout runs during this step’s training, ${countOf(rl.staleness, 'step')} stale at most)`;
      return {
        formula,
        inputs: [
          ['rollout', sec(ph.rollout)],
          ['reward', sec(ph.reward)],
          ['reference', sec(ph.reference)],
          ['old log-probs', sec(ph.old_logprob)],
          ['train', sec(ph.train)],
          ['weight sync', sec(ph.weight_sync)],
          ['swap', sec(ph.swap)],
          ['placement', rl.placement],
        ],
        source: RL_SOURCE,
      };
    }),
  },
  {
    path: 'rl.phases_s.rollout',
    label: 'Rollout (generating the responses)',
    q: 'seconds',
    better: 'lower',
    hideZero: true,
    about: 'The inference engine writes every response of the step; the step waits for the longest one.',
    explain: withRl((rl, c) => {
      const sr = c.scenario?.rl;
      return {
        formula: rl.rollout.partial
          ? 'rollout = the extra time one more step’s responses add to a rollout that carries unfinished responses over (partial rollout): a continuous-batching serving run on the rollout pool'
          : 'rollout = the makespan of a continuous-batching serving run of prompts × samples responses, all handed to the engines at once: first prompt to last response',
        inputs: [
          ['responses (prompts × samples)', `${groupDigits(rl.rollout.responses)} (${sr?.prompts_per_step ?? '?'} × ${sr?.samples_per_prompt ?? '?'})`],
          ['prompt length', lengthWords(sr?.prompt_len)],
          ['a prompt’s samples', sr?.rollout?.prefix_caching === false ? 'each its own prompt prefill and KV (prefix cache off)' : 'one engine, one prompt prefill and KV (prefix cache)'],
          ['response length', lengthWords(sr?.response_len)],
          ['output tokens', f(rl.rollout.output_tokens, 'count')],
          ['engines', `${rl.rollout.parallel.dp} × (${layout(rl.rollout.parallel)}) on ${rl.rollout.devices} devices`],
          ['engine software, precision', `${sr?.rollout?.software ?? '?'}, ${sr?.rollout?.precision ?? '?'}`],
          ['mean running batch', f(rl.rollout.mean_batch, 'count')],
          ['preemptions', String(rl.rollout.preemptions)],
          ['steps without CUDA graphs (past the largest captured graph, or an eager prefill)', groupDigits(rl.rollout.eager_steps)],
        ],
        source: SIM,
      };
    }),
  },
  rlReward(),
  rlForward('reference', 'Reference log-probs', 'The frozen starting policy’s log-probabilities, for the KL penalty.'),
  rlForward('old_logprob', 'Old log-probs', 'The policy’s own log-probabilities of what it generated (and PPO’s critic values).'),
  {
    path: 'rl.phases_s.train',
    label: 'Training (policy update)',
    q: 'seconds',
    better: 'lower',
    hideZero: true,
    about: 'The optimizer steps on the step’s responses.',
    explain: withRl((rl, c) => {
      const t = rl.train;
      return {
        formula: 'train = mini-batches × one optimizer step of the policy on the trainer’s layout (the training model), each a mini-batch of the step’s sequences with padding removed' + (t.critic_s > 0 ? '; PPO adds its critic’s steps' : '') + (t.offload_s > 0 ? '; plus the host-link time of the offloaded state' : ''),
        inputs: [
          ['mini-batches', String(t.mini_batches)],
          ['one optimizer step', sec(t.iteration_time_s)],
          ['sequences × length (packed)', `${groupDigits(t.global_batch)} × ${groupDigits(t.seq_len)}`],
          ['trainer layout', `${layout(t.parallel)} on ${t.devices} devices`],
          ['critic', sec(t.critic_s)],
          ['offload', `${t.offload}${t.offload_s > 0 ? `, ${sec(t.offload_s)}` : ''}`],
        ],
        source: 'the training model (Kundu et al. 2024, Sec. 3); docs/rl.md “What one step is”',
      };
    }),
  },
  {
    path: 'rl.phases_s.weight_sync',
    label: 'Weight sync',
    q: 'seconds',
    better: 'lower',
    hideZero: true,
    about: 'The trained weights travel from the trainer to the generating engine.',
    explain: withRl((rl) => {
      const method = rl.weight_sync.method;
      const t = rl.phases_s.weight_sync;
      // One formula and its source per route (core/rl/rl.cpp weight_sync): storage, host memory,
      // or NCCL, which colocated hands the gathered tensors over in device memory.
      const [formula, source] =
        method === 'checkpoint'
          ? ['weight sync = the weights written by the trainer’s nodes and read by each engine node at the system’s checkpoint rate', 'docs/rl.md (weight sync through storage)']
          : method === 'host'
            ? ['weight sync = the weights read from host memory over the host link, then broadcast', 'MoonshotAI checkpoint-engine (host-to-device, broadcast, reload); docs/rl.md']
            : rl.placement === 'colocated'
              ? [
                  'weight sync = gather the trainer’s shards into whole tensors, handed to the engine on the same devices, which copies its shard into its parameters: bytes × (shards − 1) / shards / (link bandwidth × efficiency) + 2 × engine weights per GPU / (memory bandwidth × efficiency) + latency (nothing to gather where every trainer rank holds the weights whole)',
                  'verl’s hybrid engine and NeMo-RL’s colocated refit pass the gathered tensors to the engine on the same GPU; docs/rl.md',
                ]
              : [
                  'weight sync = gather the trainer’s shards into whole tensors + broadcast to every engine: bytes / (link bandwidth × efficiency) + latency (NVLink when every device is in one domain, else the network card)',
                  'OpenRLHF and verl broadcast every full parameter to the engines (vllm-project/vllm issue 5723); docs/rl.md',
                ];
      return {
        formula,
        inputs: [
          ['method', method],
          ['bytes (weights at the rollout precision)', f(rl.weight_sync.bytes, 'bytes')],
          ['effective rate', t > 0 ? f(rl.weight_sync.bytes / t, 'byte_rate') : '?'],
        ],
        source,
      };
    }),
  },
  {
    path: 'rl.phases_s.swap',
    label: 'Swap (engine sleeps, trainer wakes)',
    q: 'seconds',
    better: 'lower',
    hideZero: true,
    about: 'On one shared pool the engine’s weights go to host memory while the trainer runs, and come back.',
    explain: withRl((rl, c) => ({
      formula: 'swap = 2 × bytes moved per device / host link (vLLM sleep mode; the trainer’s state too when it does not fit beside the engine)',
      inputs: [
        ['bytes per device', f(rl.swap_bytes_per_device, 'bytes')],
        ['host link', `${c.scenario?.system?.host_link_GBps ?? '?'} GB/s`],
      ],
      source: 'docs.vllm.ai, features/sleep_mode; verl’s param / optimizer offload',
    })),
  },
  {
    path: 'rl.controller.seconds',
    label: 'Batch through the driver (inside the phases)',
    q: 'seconds',
    better: 'lower',
    hideZero: true,
    about: 'One Python process (verl, NeMo-RL, OpenRLHF) passes the padded batch to each phase, at a rate more GPUs do not raise. Counted inside the phases above.',
    explain: withRl((rl, c) => {
      // The engine's rate in effect (a calibration's host factor applied) and its passes.
      const { GBps, passes, bytes_per_pass } = rl.controller;
      const assumed = c.scenario?.rl?.controller_GBps === undefined;
      return {
        formula: 'controller time = phases that run × padded batch ÷ driver rate; padded batch = responses × 8 bytes × (3 × (longest prompt + longest response) + longest response)',
        inputs: [
          ['padded batch, one pass', f(bytes_per_pass, 'bytes')],
          ['phases that run', String(passes)],
          ['driver rate', `${GBps} GB/s${assumed ? ' (assumed: fitted on verl’s published phases)' : ''}`],
        ],
        source: 'docs/rl.md “The single controller’s data plane”',
      };
    }),
  },
  ...(['rollout', 'train'] as const).map(
    (pool): MetricDef => ({
      path: `rl.idle_s.${pool}`,
      label: pool === 'rollout' ? 'Rollout pool idle per step' : 'Training pool idle per step',
      q: 'seconds',
      better: 'lower',
      hideZero: true,
      about: `Time the ${pool === 'rollout' ? 'generating' : 'training'} devices wait for the other pool each step.`,
      explain: withRl((rl) => {
        const ph = rl.phases_s;
        return {
          formula:
            rl.staleness === 0
              ? pool === 'rollout'
                ? 'idle = the training side’s time (on-policy: the rollout pool waits while the trainer scores and trains)'
                : 'idle = the rollout’s time (on-policy: the trainer waits while the engines generate)'
              : pool === 'rollout'
                ? 'idle = max(0, training side − rollout) (asynchronous: the next rollout overlaps this update, and the faster pool waits)'
                : 'idle = max(0, rollout − training side) (asynchronous: the next rollout overlaps this update, and the faster pool waits)',
          inputs: [
            ['step', sec(rl.step_time_s)],
            ['rollout', sec(ph.rollout)],
            ['scoring (reward, reference, old log-probs)', `${sec(ph.reward)}, ${sec(ph.reference)}, ${sec(ph.old_logprob)}${rl.roles.mode === 'separate' ? ' (each on its own devices: the longest counts)' : ' (one after another)'}`],
            ['train', sec(ph.train)],
            ['weight sync (both pools stop)', sec(ph.weight_sync)],
          ],
          source: RL_SOURCE,
        };
      }),
    }),
  ),
  {
    path: 'rl.tokens_per_s_per_gpu',
    label: 'Trained tokens/s per GPU',
    q: 'tokens_rate',
    better: 'higher',
    about: 'Prompt and response tokens trained per second, per device of the job.',
    explain: withRl((rl, c) => ({
      formula: 'tokens/s per GPU = (prompt + response tokens of the step) / step time / devices',
      inputs: [
        ['tokens per step', f(rl.tokens_per_step, 'count')],
        ['step time', sec(rl.step_time_s)],
        ['devices', String(c.scenario?.num_devices ?? '?')],
      ],
      source: RL_SOURCE,
    })),
  },
  {
    path: 'rl.rollout.output_tokens_per_s',
    label: 'Rollout output tokens/s',
    q: 'tokens_rate',
    better: 'higher',
    about: 'Response tokens the engines write per second over the rollout.',
    explain: withRl((rl) => ({
      formula: 'output tokens/s = response tokens of the step / the rollout’s makespan',
      inputs: [
        ['output tokens', f(rl.rollout.output_tokens, 'count')],
        ['makespan', sec(rl.rollout.makespan_s)],
      ],
      source: SIM,
    })),
  },
  {
    path: 'rl.rollout.longest_response_s',
    label: 'Longest response',
    q: 'seconds',
    better: 'lower',
    about: 'First prompt to the last response: the straggler a synchronous step waits for.',
    explain: withRl((rl, c) => ({
      formula: 'longest = the time the last of the step’s responses finishes in the serving run (responses drawn from the length distribution, the longest at the limit)',
      inputs: [
        ['response length', lengthWords(c.scenario?.rl?.response_len)],
        ['mean running batch', f(rl.rollout.mean_batch, 'count')],
      ],
      source: SIM,
    })),
  },
  {
    path: 'rl.rollout.mean_response_s',
    label: 'Mean response time',
    q: 'seconds',
    better: 'lower',
    about: 'How long a response takes on average, from its prompt to its last token.',
    explain: withRl((rl) => ({
      formula: 'mean over the step’s responses of (finish − arrival), all arriving at the start',
      inputs: [
        ['responses', f(rl.rollout.responses, 'count')],
        ['longest', sec(rl.rollout.longest_response_s)],
      ],
      source: SIM,
    })),
  },
  {
    path: 'rl.rollout.mean_batch',
    label: 'Mean running batch',
    q: 'count',
    about: 'Sequences each engine decodes at once, averaged over time: it falls as the short responses finish and the long tail decodes nearly alone.',
    explain: withRl((rl, c) => {
      return {
        formula: 'mean batch = time-weighted mean of running sequences per engine',
        inputs: [
          ['engines', String(rl.rollout.parallel.dp)],
          ['max_batch', String(c.scenario?.rl?.rollout?.max_batch ?? '?')],
        ],
        source: SIM,
      };
    }),
  },
  {
    path: 'rl.train.iteration_time_s',
    label: 'Trainer: one optimizer step',
    q: 'seconds',
    better: 'lower',
    about: 'One mini-batch’s forward, backward and optimizer step on the trainer’s layout.',
    explain: withRl(({ train: t }) => {
      return {
        formula: 'one step = the training model’s iteration time for a mini-batch (sum of the exposed compute, communication, bubble and optimizer times)',
        inputs: [
          ['sequences × length (packed)', `${groupDigits(t.global_batch)} × ${groupDigits(t.seq_len)}`],
          ['trainer layout', layout(t.parallel)],
          ['recompute', String(t.parallel.recompute)],
          ['zero_stage', String(t.parallel.zero_stage)],
        ],
        source: 'Kundu et al. 2024, Sec. 3 (training time)',
      };
    }),
  },
  {
    path: 'rl.train.mfu',
    label: 'Trainer MFU',
    q: 'ratio',
    better: 'higher',
    about: 'The share of the trainer devices’ peak matmul rate that the update’s model FLOPs use.',
    explain: withRl(({ train: t }) => {
      return {
        formula: 'MFU = model FLOPs of one optimizer step / (step time × trainer devices × peak FLOP/s)',
        inputs: [
          ['one optimizer step', sec(t.iteration_time_s)],
          ['trainer devices', String(t.devices)],
        ],
        source: 'Kundu et al. 2024, Sec. 3; PaLM (Chowdhery et al. 2022), App. B (MFU)',
      };
    }),
  },
];

/** A whole RL run (output `rl.run`, present with rl.train_steps): the step times the steps. */
const RL_RUN_SOURCE = 'docs/rl.md “Whole run”: the step’s time and activity mix over rl.train_steps steps; device power from the preset’s board power and the activity model; cost from the economics preset';
/** One number of the whole RL run: its words, and its formula's inputs from the rl block. */
const rlRunMetric = (path: string, label: string, q: Quantity, about: string, formula: string, inputs: (rl: NonNullable<Prediction['rl']>, c: ExplainContext) => Array<[string, string]>): MetricDef => ({
  path,
  label,
  q,
  better: 'lower',
  about,
  explain: withRl((rl, c) => ({ formula, inputs: inputs(rl, c), source: RL_RUN_SOURCE })),
});
export const RL_RUN_METRICS: MetricDef[] = [
  rlRunMetric('rl.run.wall_days', 'Wall clock', 'days', 'Every step of the run at this step’s predicted time. Failures, restarts and evaluations between steps are not counted.', 'days = steps × step time / 86,400 s', (rl) => [
    ['steps', String(rl.run?.train_steps ?? '?')],
    ['step time', sec(rl.step_time_s)],
  ]),
  rlRunMetric('rl.run.gpu_hours', 'GPU-hours', 'count', 'Devices × elapsed hours: both pools, busy or waiting.', 'GPU-hours = devices × steps × step time / 3,600 s', (rl, c) => [
    ['devices', String(c.scenario?.num_devices ?? '?')],
    ['steps', String(rl.run?.train_steps ?? '?')],
    ['step time', sec(rl.step_time_s)],
  ]),
  rlRunMetric(
    'rl.run.energy_mwh',
    'Energy (at the meter)',
    'energy_mwh',
    'The devices’ draw at the step’s mix of work (memory-bound while generating, compute-bound while training, idle while waiting), the rest of each node, and the facility overhead (PUE).',
    'energy = (device power × devices + node overhead) × wall time × PUE, device power from the shares of the step spent generating, training and communicating',
    (rl) => [
      ['rollout (memory-bound)', sec(rl.phases_s.rollout)],
      ['training', sec(rl.phases_s.train)],
      ['weight sync and swap', sec(rl.phases_s.weight_sync + rl.phases_s.swap)],
      ['step time', sec(rl.step_time_s)],
    ],
  ),
  rlRunMetric(
    'rl.run.cost_usd',
    'Cost (USD)',
    'usd',
    'Money for the run at the scenario’s economics: a rental price per GPU-hour, or owned devices amortised over their years of use plus their electricity. Absent when the GPUs have no price: give a rental price.',
    'cost = GPU-hours × USD per GPU-hour (rental; or amortised price + energy × USD per kWh)',
    (rl) => [
      ['GPU-hours', f(rl.run?.gpu_hours, 'count')],
      ['energy', f(rl.run?.energy_mwh, 'energy_mwh')],
    ],
  ),
];

/** The RL pools' own memory (rl.memory): what runs on each pool's most loaded device. */
export const RL_POOL_MEMORY_METRICS: MetricDef[] = (['rollout', 'train'] as const).map((pool) => ({
  path: `rl.memory.${pool}.per_device_bytes`,
  label: pool === 'rollout' ? 'Rollout pool per device' : 'Training pool per device',
  q: 'bytes' as Quantity,
  better: 'lower' as const,
  explain: (c: ExplainContext): Explanation => ({
    formula:
      pool === 'rollout'
        ? 'rollout pool = the engine’s reservation: gpu_memory_utilization × device memory (weights, then KV cache in the rest), plus the trainer’s resident state when colocated and it fits beside it'
        : 'training pool = the trainer’s footprint (the training memory model: weights + gradients + optimizer state + activations)',
    inputs: [
      ['capacity', f(getPath(c.prediction, `rl.memory.${pool}.capacity_bytes`), 'bytes')],
      ['fits', String(getPath(c.prediction, `rl.memory.${pool}.fits`) ?? '?')],
    ],
    source: 'docs/rl.md “Memory”',
  }),
}));

export const ALL_METRICS: MetricDef[] = [...TRAINING_METRICS, ...MOE_METRICS, ...RUN_METRICS, ...INFERENCE_METRICS, ...PARAM_METRICS, ...TRAINING_MEMORY_METRICS, ...INFERENCE_MEMORY_METRICS, ...RL_METRICS, ...RL_POOL_MEMORY_METRICS];
