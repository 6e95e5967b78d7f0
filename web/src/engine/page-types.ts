// The page's own types around the engine's JSON contract: the in-band error and the result
// wrapper, the resolved scenario validate() returns, presets, search, studies and the JSON Schema
// documents themselves. The contract types (Scenario, ModelSpec, Prediction, ...) are generated
// from the engine's schema into schema-types.ts; types.ts re-exports both.
import type {
  Calibration,
  DeviceSpec,
  InferenceResult,
  InferenceSpec,
  MemoryResult,
  ModelSpec,
  ParallelSpec,
  Scenario,
  Serving,
  SystemSpec,
  TrainingResult,
  TrainingSpec,
  Warning,
} from './schema-types';

/** The layout keys the engine writes back only when they are set: zero_shard (hybrid sharding),
 * recompute_fraction (partial full recompute), recompute_modules (selective recompute beyond the
 * attention core), offload_layers (activation offloading), optimizer_offload (the optimizer in
 * host memory), expert_slots (redundant experts). */
type SetOnly =
  | 'zero_shard'
  | 'recompute_fraction'
  | 'recompute_modules'
  | 'offload_layers'
  | 'optimizer_offload'
  | 'expert_slots';
/** A layout with every key the engine fills in, and the set-only keys where they are set. */
export type FullLayout = Required<Omit<ParallelSpec, SetOnly>> & Pick<ParallelSpec, SetOnly>;

/** A JSON Pointer (RFC 6901) into the scenario, e.g. "/parallel/tp"; "" is the whole document. */
export type JsonPointer = string;

/** The in-band error every engine call may return: stable dotted code, JSON Pointer, message. */
export interface EngineError {
  code: string;
  path: JsonPointer;
  message: string;
  /** A way out the engine names exactly: the object to set at `path` (docs/contract.md, Errors). */
  fix?: Record<string, unknown>;
  /** parallel.auto_no_layout, rl.train_no_layout, rl.rollout_does_not_fit: the job's devices in all at the fewest count the engine found (up to 32 times the scenario's; an RL split job: the refusing pool grown, and the other where it refuses too, fewest_pools) with a layout that runs it. */
  fewest_devices?: number;
  /** parallel.auto_no_layout: the layouts tried, counted by the code that refused each (as a search's `rejected`). */
  rejected?: Record<string, number>;
  /** rl.train_no_layout, rl.rollout_does_not_fit of a split job with `fewest_devices`: its two pools there (they add up to it). */
  fewest_pools?: { rollout_devices: number; train_devices: number };
}

/** A result: the value, or an engine error (never an exception). */
export type EngineResult<T> = { ok: true; value: T } | { ok: false; error: EngineError };

/** What validate() returns: presets resolved into objects, every default filled in. */
export interface ResolvedScenario extends Scenario {
  model: ModelSpec & Required<Pick<ModelSpec, 'kv_heads' | 'head_dim' | 'ffn_type' | 'norm' | 'bias' | 'dropout' | 'position' | 'attention' | 'tied_embeddings'>>;
  system: SystemSpec & { device: DeviceSpec };
  parallel: FullLayout;
  training?: TrainingSpec & Required<Pick<TrainingSpec, 'precision'>>;
  inference?: InferenceSpec & Required<Pick<InferenceSpec, 'batch' | 'precision' | 'kv_precision'>>;
}

// ---- JSON Schema (the engine's own, core/io/schema.h) -----------------------------------------

/** One JSON Schema (draft 2020-12) node as the engine writes it; loose on purpose. */
export interface JsonSchema {
  title?: string;
  type?: string;
  description?: string;
  /** The unit of a number (annotation). */
  'x-unit'?: string;
  /** A model key's default per norm (annotation), e.g. {"layernorm": true, "rmsnorm": false}. */
  'x-default-by-norm'?: Record<string, unknown>;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | boolean;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  examples?: unknown[];
  [keyword: string]: unknown;
}

/** What schema() returns. */
export interface EngineSchemas {
  scenario: JsonSchema;
  prediction: JsonSchema;
}

// ---- Presets ----------------------------------------------------------------------------------

/** The preset kinds of presets() (core/io/api.h). */
export type PresetKind = 'models' | 'devices' | 'systems' | 'scenarios' | 'technology' | 'dram' | 'studies' | 'software' | 'economics';

export interface PresetInfo {
  id: string;
  name: string;
  source: string;
}

/** presets(""): every kind; presets(kind): only that kind's key is present. */
export type PresetList = Partial<Record<PresetKind, PresetInfo[]>>;

// ---- Search (design-space exploration, core/io/api.h) -------------------------------------------

export interface SearchOptions {
  /** How many best layouts to return (engine default 10). */
  top?: number;
  /** Default: training when the scenario has `training`, serving when it has inference.serving, else inference. */
  mode?: 'training' | 'inference' | 'serving';
  /** Inference: throughput (default) or latency; serving: goodput (default) or capacity. */
  objective?: 'throughput' | 'latency' | 'goodput' | 'capacity';
  max_tpot_s?: number;
  max_ttft_s?: number;
  /** Inference only: the largest batch tried (default 1024). */
  max_batch?: number;
  /** Also return one compact entry per evaluated layout (capped by the engine). */
  points?: boolean;
  /** Training: rank by the step's time (default), energy or cost; an RL job: time or cost. */
  rank_by?: 'time' | 'energy' | 'cost';
  /** Training with train_tokens: keep layouts whose whole run stays within these budgets. */
  max_cost_usd?: number;
  max_energy_mwh?: number;
}

export interface SearchPoint {
  parallel: FullLayout;
  /** Inference searches: the batch of this point. */
  batch?: number;
  /** null when the layout was rejected before it was timed. */
  time_s: number | null;
  throughput_tokens_per_s?: number | null;
  memory_bytes: number;
  feasible: boolean;
  /** Error code of why the layout was rejected, "" when feasible. */
  reason: string;
}

/** An inference search's best layout: predict's inference result plus the batch and replicas. */
export type SearchInferenceResult = Omit<InferenceResult, 'operators' | 'memory'> & {
  batch: number;
  replicas: number;
  throughput_all_replicas_tokens_per_s: number;
};

/** A serving search's deployment (search/serving_search.h). */
export interface ServingDeployment {
  tp?: number;
  pp?: number;
  ep?: number;
  replicas?: number;
  /** The experts span the replicas (tp 1 with ep dividing them, or ep / tp whole replicas of tp ranks): attention data parallelism. */
  attention_data_parallel?: boolean;
  max_batch: number;
  disaggregated?: { prefill: { tp: number; pp: number; replicas: number }; decode: { tp: number; pp: number; replicas: number } };
}

export interface SearchBest {
  parallel: FullLayout;
  /** Serving searches: the deployment, its score and its serving block (no timeline). */
  deployment?: ServingDeployment;
  score_requests_per_s_per_device?: number;
  capacity_requests_per_s?: number;
  /** The objectives still held at the highest rate the capacity search tries: the capacity is at least this. */
  capacity_at_least?: boolean;
  serving?: Omit<Serving, 'timeline'>;
  training?: TrainingResult;
  inference?: SearchInferenceResult;
  /** Training ranked by energy or cost: one step of the whole job, at the meter / in USD. */
  step_energy_j?: number;
  step_cost_usd?: number;
  /** Training within a budget: the whole run's cost and energy at this layout. */
  run_cost_usd?: number;
  run_energy_mwh?: number;
  memory?: MemoryResult;
  warnings?: Warning[];
}

export interface SearchResult {
  /** The mode searched ("rl": an RL job's placements, `best` holding core/io/api.cpp's rl candidates). */
  mode: 'training' | 'inference' | 'serving' | 'rl';
  objective?: 'throughput' | 'latency' | 'goodput' | 'capacity';
  /** Training: what the layouts are ranked by (search option rank_by). */
  rank_by?: 'time' | 'energy' | 'cost';
  evaluated: number;
  feasible: number;
  rejected: Record<string, number>;
  elapsed_s: number;
  layouts_per_s: number;
  cancelled: boolean;
  best: SearchBest[];
  points?: SearchPoint[];
  /** True when more layouts were evaluated than `points` holds (the engine caps it). */
  points_truncated?: boolean;
  /** None feasible: the fewest devices, up to 32 times the scenario's, with a feasible layout. */
  fewest_devices?: number;
  /** Training: keys fixed (to 1) because the whole space was past the search's cap, as parallel "auto" fixes them. */
  narrowed?: Record<string, number>;
  /** With points: the device memory (a prediction's memory.capacity_bytes). */
  capacity_bytes?: number;
  /** With points: what each point's memory_bytes is held against, the capacity less the runtime's reserve. */
  usable_bytes?: number;
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

/** One fitted factor of calibrate's answer: its value and 90% band within its bounds. */
export interface CalibrateFactor {
  factor: 'matmul' | 'memory' | 'scale_up' | 'scale_out' | 'host';
  value: number;
  low: number;
  high: number;
  /** false: the measurements do not move it (it stays 1). */
  fitted?: boolean;
  bounds?: [number, number];
}

/** One measurement of calibrate's answer: the prediction before and after the calibration. */
export interface CalibrateCase {
  line: number;
  metric: string;
  measured: number;
  before: number;
  after: number;
  sensitivity?: Record<string, number>;
}

/** calibrate(jsonl): docs/contract.md, "Calibration". */
export interface CalibrateResult {
  calibration: Calibration;
  fitted: CalibrateFactor[];
  cases: CalibrateCase[];
  warnings?: Warning[];
}

/** One measurement line: {"scenario", "metric", "measured"}. */
export interface Measurement {
  scenario: Scenario;
  metric: string;
  measured: number;
}

/** import_measurements(format, file, scenario): the lines, what the file filled and left unread. */
export interface ImportResult {
  format: string;
  measurements: Measurement[];
  filled: string[];
  unread: string[];
}
