// What a lesson of the Learn view is (LessonDef) and the small helpers the lessons share: choices,
// and finding the exercise answer among the choices by running the engine over them. Pure (no
// DOM), so the browser tests import it to compute what a lesson must show. The lessons themselves
// are in lessons.ts and, for the paper's studies, study-lessons.ts.
import type { Prediction, ResolvedScenario, StudyResult } from '../engine/types';
import type { ChartSpec } from '../charts/specs';
import type { Quantity } from '../base/format';

export type WidgetValue = number | string;
export type Values = Record<string, WidgetValue>;

export interface Choice {
  value: WidgetValue;
  label: string;
}

/** A live control: a slider over its choices (in order) or a picker. DOM: data-widget="id". */
export interface WidgetDef {
  id: string;
  label: string;
  kind: 'range' | 'select';
  choices: Choice[];
  initial: WidgetValue;
}

/** An engine output shown by the lesson (DOM: data-metric="path" data-value="..."). */
export interface ShownDef {
  path: string;
  label: string;
  q: Quantity;
}

/**
 * The output rows more than one lesson shows, each written once (a lesson lists them by name,
 * ROW.mfu); rows only one lesson shows stay in that lesson.
 */
export const ROW = {
  iterationTime: { path: 'training.iteration_time_s', label: 'Time per iteration', q: 'seconds' },
  fits: { path: 'memory.fits', label: 'Fits', q: 'bool' },
  mfu: { path: 'training.mfu', label: 'MFU', q: 'ratio' },
  bubble: { path: 'training.breakdown_s.bubble', label: 'Pipeline bubble', q: 'seconds' },
  gpuHours: { path: 'run.gpu_hours', label: 'GPU-hours', q: 'count' },
  weights: { path: 'memory.per_device_bytes.weights', label: 'Weights per GPU', q: 'bytes' },
  gradients: { path: 'memory.per_device_bytes.gradients', label: 'Gradients per GPU', q: 'bytes' },
  optimizer: { path: 'memory.per_device_bytes.optimizer', label: 'Optimizer state per GPU', q: 'bytes' },
  activations: { path: 'memory.per_device_bytes.activations', label: 'Activations per GPU', q: 'bytes' },
  totalPerGpu: { path: 'memory.per_device_bytes.total', label: 'Total per GPU', q: 'bytes' },
  memoryPerGpu: { path: 'memory.per_device_bytes.total', label: 'Memory per GPU', q: 'bytes' },
  capacity: { path: 'memory.capacity_bytes', label: 'GPU memory', q: 'bytes' },
  recompute: { path: 'training.breakdown_s.recompute', label: 'Recomputation time', q: 'seconds' },
  compute: { path: 'training.breakdown_s.compute', label: 'Compute', q: 'seconds' },
  tpComm: { path: 'training.breakdown_s.tp_comm', label: 'Exposed TP communication', q: 'seconds' },
  computeBound: { path: 'training.by_bound_s.compute', label: 'Compute-bound kernels', q: 'seconds' },
  memoryBound: { path: 'training.by_bound_s.memory', label: 'Memory-bound kernels', q: 'seconds' },
  communicationBound: { path: 'training.by_bound_s.communication', label: 'Exposed communication', q: 'seconds' },
  otherBound: { path: 'training.by_bound_s.other', label: 'Other (bubble + optimizer)', q: 'seconds' },
  prefillTtft: { path: 'inference.ttft_s', label: 'Time to first token (prefill)', q: 'seconds' },
  tpot: { path: 'inference.tpot_s', label: 'Time per output token', q: 'seconds' },
  decodeStepTpot: { path: 'inference.tpot_s', label: 'Time per output token (decode step)', q: 'seconds' },
  inferenceFits: { path: 'inference.memory.fits', label: 'Fits', q: 'bool' },
  kvCache: { path: 'inference.memory.per_device_bytes.kv_cache', label: 'KV cache per GPU', q: 'bytes' },
  inferenceCapacity: { path: 'inference.memory.capacity_bytes', label: 'GPU memory', q: 'bytes' },
} as const satisfies Record<string, ShownDef>;

/**
 * What the engine tells a lesson besides its own scenario's prediction: the prediction of the
 * lesson's baseline scenario (LessonDef.baseline; null without one) and validate()'s resolved
 * scenario (with the device the engine used; null unless the lesson needsResolved).
 */
export interface DerivedContext {
  baseline: Prediction | null;
  resolved: ResolvedScenario | null;
}

/** A number worked out from the engine's outputs (or the lesson's inputs). DOM: data-derived. */
export interface DerivedDef {
  id: string;
  label: string;
  q: Quantity;
  of(p: Prediction, v: Values, ctx: DerivedContext): number | null;
}

/**
 * What the engine gives a lesson once, when it opens: for a lesson on one of the paper's studies
 * (LessonDef.study), that study's table as the engine computes it (engine.study(name)); null for
 * the other lessons.
 */
export interface LessonData {
  study: StudyResult | null;
}

export const NO_DATA: LessonData = { study: null };

/** The engine as the exercises use it: a prediction, or null when the engine refuses. */
export type Predictor = (scenario: Record<string, unknown>) => Promise<Prediction | null>;

export interface ExerciseDef {
  id: string;
  question: string;
  choices: Choice[];
  /** The right choice's value, found with the engine; null when none qualifies. */
  answer(predict: Predictor, data: LessonData): Promise<WidgetValue | null>;
}

export interface LessonDef {
  name: string;
  title: string;
  /** One line for the list. */
  summary: string;
  paragraphs: string[];
  sources: string[];
  /**
   * The paper's study this lesson walks through (a name of engine.studies()): the Learn view
   * lists the lesson under the studies, links the study view, and loads the study's table
   * (LessonData) before the first computation.
   */
  study?: string;
  widgets: WidgetDef[];
  scenario(v: Values, data: LessonData): Record<string, unknown>;
  /** A scenario the derived numbers compare against (a speedup's reference), if any. */
  baseline?: (v: Values, data: LessonData) => Record<string, unknown>;
  shown: ShownDef[];
  derived: DerivedDef[];
  /** Whether chart() or a derived number needs validate()'s resolved scenario. */
  needsResolved?: boolean;
  chart(p: Prediction, resolved: ResolvedScenario | null, v: Values): ChartSpec | null;
  /** A second chart over many scenarios (a sweep) or over the study's table, drawn once when the lesson opens. */
  sweep?: (predict: Predictor, data: LessonData) => Promise<ChartSpec | null>;
  /** The second chart's heading (default "Sweep"). */
  sweepTitle?: string;
  exercises: ExerciseDef[];
}

export const initialValues = (l: LessonDef): Values => Object.fromEntries(l.widgets.map((w) => [w.id, w.initial]));

export const choices = (values: WidgetValue[], label: (v: WidgetValue) => string = String): Choice[] => values.map((value) => ({ value, label: label(value) }));
/** Choices labelled from a table of labels (a value without one is its own label). */
export const labelled = (values: WidgetValue[], labels: Record<string, string>): Choice[] => choices(values, (v) => labels[String(v)] ?? String(v));
export const num = (v: WidgetValue): number => (typeof v === 'number' ? v : Number(v));
export const share = (part: number | undefined, whole: number | undefined): number | null =>
  typeof part === 'number' && typeof whole === 'number' && whole > 0 ? part / whole : null;

/** The first choice (in order) whose prediction passes `ok`, or null. */
export async function firstChoice(values: WidgetValue[], make: (v: WidgetValue) => Record<string, unknown>, predict: Predictor, ok: (p: Prediction) => boolean): Promise<WidgetValue | null> {
  for (const v of values) {
    const p = await predict(make(v));
    if (p && ok(p)) return v;
  }
  return null;
}

/** The last choice (in order) whose prediction passes `ok`, or null. */
export async function lastChoice(values: WidgetValue[], make: (v: WidgetValue) => Record<string, unknown>, predict: Predictor, ok: (p: Prediction) => boolean): Promise<WidgetValue | null> {
  let last: WidgetValue | null = null;
  for (const v of values) {
    const p = await predict(make(v));
    if (p && ok(p)) last = v;
  }
  return last;
}

/** The choice with the lowest score (undefined scores are skipped), or null. */
export async function bestChoice(values: WidgetValue[], make: (v: WidgetValue) => Record<string, unknown>, predict: Predictor, score: (p: Prediction) => number | undefined): Promise<WidgetValue | null> {
  let best: WidgetValue | null = null;
  let bestScore = Infinity;
  for (const v of values) {
    const p = await predict(make(v));
    const s = p ? score(p) : undefined;
    if (s !== undefined && Number.isFinite(s) && s < bestScore) {
      bestScore = s;
      best = v;
    }
  }
  return best;
}
