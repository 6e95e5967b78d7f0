// TypeScript view of the engine's JSON contract (shared/spec/scenario.md "v1" plus the fields the
// engine emits beyond the spec). The engine is the authority: these types describe what it accepts
// and returns, they do not validate anything (validation happens in the engine, see client.ts).

/** A JSON Pointer (RFC 6901) into the scenario, e.g. "/parallel/tp"; "" is the whole document. */
export type JsonPointer = string;

/** The in-band error every engine call may return: stable dotted code, JSON Pointer, message. */
export interface EngineError {
  code: string;
  path: JsonPointer;
  message: string;
}

/** A result: the value, or an engine error (never an exception). */
export type EngineResult<T> = { ok: true; value: T } | { ok: false; error: EngineError };

export type TrainingPrecision = 'fp32' | 'tf32' | 'fp16' | 'bf16' | 'fp8';
export type InferencePrecision = 'fp32' | 'fp16' | 'bf16' | 'fp8' | 'int8' | 'int4';
export type Recompute = 'none' | 'selective' | 'full';

// ---- Input: the scenario --------------------------------------------------------------------

export interface MoeSpec {
  experts: number;
  top_k: number;
  expert_ffn_hidden?: number;
  shared_experts?: number;
}

/** An inline model (the alternative to a preset id string). */
export interface ModelSpec {
  layers: number;
  hidden: number;
  heads: number;
  ffn_hidden: number;
  vocab: number;
  kv_heads?: number;
  head_dim?: number;
  ffn_type?: 'gelu' | 'swiglu' | 'relu2';
  norm?: 'layernorm' | 'rmsnorm';
  tied_embeddings?: boolean;
  max_seq_len?: number;
  moe?: MoeSpec;
  name?: string;
  source?: string;
}

/** An inline device. Its fields are the engine's design (see presets/devices/*.json). */
export interface DeviceSpec {
  name?: string;
  peak_tflops?: Partial<Record<InferencePrecision | TrainingPrecision, number>>;
  vector_tflops?: number;
  exp_tops?: number;
  memory?: { capacity_GiB: number; bandwidth_GBps: number };
  l2?: { capacity_MiB: number; bandwidth_GBps: number };
  compute_units?: number;
  calibration?: Record<string, number>;
  source?: string;
  [key: string]: unknown;
}

export interface LinkSpec {
  bandwidth_GBps: number;
  latency_us: number;
  domain_size?: number;
  [key: string]: unknown;
}

/** An inline system (the alternative to a preset id string). */
export interface SystemSpec {
  name?: string;
  device: string | DeviceSpec;
  devices_per_node: number;
  scale_up: LinkSpec;
  scale_out: LinkSpec;
  source?: string;
  [key: string]: unknown;
}

export interface ParallelSpec {
  tp: number;
  pp: number;
  dp: number;
  cp?: number;
  ep?: number;
  sequence_parallel?: boolean;
  micro_batch?: number;
  interleave?: number;
  recompute?: Recompute;
  zero_stage?: 0 | 1 | 2 | 3;
}

export interface TrainingSpec {
  global_batch: number;
  seq_len: number;
  precision: TrainingPrecision;
  train_tokens?: number;
}

export interface InferenceSpec {
  batch: number;
  prompt_len: number;
  output_len: number;
  precision: InferencePrecision;
  kv_precision?: InferencePrecision;
  /** The runtime replays captured CUDA graphs: no host launch interval per kernel. */
  cuda_graphs?: boolean;
}

/** The scenario document, schema_version 1 (the share URL and the presets hold this). */
export interface Scenario {
  schema_version: 1;
  name?: string;
  model: string | ModelSpec;
  system: string | SystemSpec;
  num_devices: number;
  parallel: ParallelSpec;
  training?: TrainingSpec;
  inference?: InferenceSpec;
}

/** What validate() returns: presets resolved into objects, defaults filled in. */
export interface ResolvedScenario extends Scenario {
  model: ModelSpec;
  system: SystemSpec & { device: DeviceSpec };
  parallel: Required<ParallelSpec>;
}

// ---- Output: the prediction -----------------------------------------------------------------

export interface Warning {
  code: string;
  message: string;
}

export interface MemoryBytes {
  weights: number;
  gradients: number;
  optimizer: number;
  activations: number;
  kv_cache: number;
  total: number;
}

export interface MemoryResult {
  per_device_bytes: MemoryBytes;
  capacity_bytes: number;
  fits: boolean;
}

/** Exposed (non-overlapped) seconds per cause on the critical path; sums to iteration_time_s. */
export interface TrainingBreakdown {
  compute: number;
  recompute: number;
  tp_comm: number;
  cp_comm: number;
  pp_comm: number;
  dp_comm: number;
  bubble: number;
  optimizer: number;
  [cause: string]: number;
}

export interface TrainingResult {
  iteration_time_s: number;
  tokens_per_s: number;
  mfu: number;
  hfu: number;
  time_to_train_s?: number;
  breakdown_s: TrainingBreakdown;
  /** Engine extras (not in the spec's required list). */
  by_bound_s?: { compute: number; memory: number; communication: number; other: number };
  micro_batches?: number;
  layer_s?: { forward: number; backward: number; recompute: number };
  model_flops?: number;
  hardware_flops?: number;
  assumed?: Record<string, unknown>;
  [key: string]: unknown;
}

/** One operator of the inference graph (per device, one layer's instance), for the roofline. */
export interface OperatorPoint {
  name: string;
  phase: 'prefill' | 'decode' | string;
  flops: number;
  bytes: number;
  arithmetic_intensity: number;
  time_s: number;
  achieved_flops_per_s: number;
  bound: 'compute' | 'memory' | 'communication' | string;
  count: number;
}

export interface InferenceResult {
  ttft_s: number;
  tpot_s: number;
  e2e_latency_s: number;
  throughput_tokens_per_s: number;
  /** Engine extras (not in the spec's required list). */
  max_batch?: number;
  prefill_s?: { compute: number; communication: number };
  decode_step_s?: { compute: number; communication: number };
  math_precision?: string;
  /** Host launch interval per kernel in effect (0 with CUDA graphs). */
  assumed?: { launch_interval_us: number };
  operators?: OperatorPoint[];
  /** Memory of the inference deployment (the top-level memory is training's when both exist). */
  memory?: MemoryResult;
  [key: string]: unknown;
}

export interface Prediction {
  training?: TrainingResult;
  inference?: InferenceResult;
  memory: MemoryResult;
  warnings: Warning[];
}

// ---- Presets ----------------------------------------------------------------------------------

export type PresetKind = 'models' | 'devices' | 'systems' | 'scenarios';

export interface PresetInfo {
  id: string;
  name?: string;
  source?: string;
  [key: string]: unknown;
}

/** presets(""): every kind; presets(kind): only that kind's key is present. */
export type PresetList = Partial<Record<PresetKind, PresetInfo[]>> & Record<string, PresetInfo[] | undefined>;

// ---- Search (design-space exploration) ------------------------------------------------------

export interface SearchOptions {
  /** How many best layouts to return (engine default 10). */
  top?: number;
  /** Default: training when the scenario has `training`, else inference. */
  mode?: 'training' | 'inference';
  /** Inference only (default "throughput"). */
  objective?: 'throughput' | 'latency';
  max_tpot_s?: number;
  max_ttft_s?: number;
  /** Also return one compact entry per evaluated layout (capped by the engine). */
  points?: boolean;
}

export interface SearchPoint {
  parallel: Partial<ParallelSpec> & Record<string, unknown>;
  time_s: number;
  memory_bytes: number;
  feasible: boolean;
  /** Error code of why the layout was rejected, "" when feasible. */
  reason: string;
}

export interface SearchBest {
  parallel: ParallelSpec & Record<string, unknown>;
  training?: TrainingResult;
  inference?: InferenceResult;
  memory: MemoryResult;
  [key: string]: unknown;
}

export interface SearchResult {
  /** The mode searched ("training" or "inference"). */
  mode?: 'training' | 'inference';
  evaluated: number;
  feasible: number;
  rejected: Record<string, number>;
  elapsed_s: number;
  best: SearchBest[];
  layouts_per_s?: number;
  cancelled?: boolean;
  points?: SearchPoint[];
  /** True when more layouts were evaluated than `points` holds (the engine caps it). */
  points_truncated?: boolean;
  [key: string]: unknown;
}

// ---- Studies (the paper's studies, reproduced) ----------------------------------------------

export interface StudyInfo {
  name: string;
  title: string;
  description: string;
}

export interface StudyList {
  studies: StudyInfo[];
}

export interface StudyResult {
  study: string;
  title: string;
  description: string;
  columns: string[];
  /** Unit per column ("s", "bytes", "ratio", ...), where the column has one. */
  units?: Record<string, string>;
  column_descriptions?: Record<string, string>;
  rows: Record<string, unknown>[];
  notes: string[];
  [key: string]: unknown;
}
