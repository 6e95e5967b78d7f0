// One lesson per study of the engine (core/study/study.cpp): the five of the paper (Kundu et al.
// 2024, arXiv 2407.14645): the recompute figure, the 35x across GPU generations, the technology
// walk, the boundedness of inference matrix multiplies, and DRAM generations against decode
// latency; and the cost of a whole training run on each accelerator at rental prices, which the
// paper's follow-up asks. Each lesson's widgets range over the study's own parameters, read from
// its description in presets/studies (the file the engine runs the study from), and each widget
// setting is a scenario the engine predicts like any other: test/ui/study-lessons.test.ts checks
// that these scenarios give exactly the study's rows. The second chart of each lesson is the
// study's table as the engine computes it when the lesson opens (engine.study), except for the
// matmul lesson, whose second chart sweeps the batch beyond the study's two, and the cost lesson,
// whose second chart sweeps the rental price. No engine number is typed in here; the numbers
// quoted are the paper's "about 35x" and the published rental prices the cost study cites.
import type { Prediction, StudyResult } from '../engine/types';
import { byBoundSpec, inferenceTimeSpec, memorySpec, rooflineSpec, runWaterfallSpec, type LineChartSpec } from '../charts/specs';
import { formatParams } from '../base/format';
import { bestChoice, choices, firstChoice, labelled, lastChoice, ROW, num, share, type LessonData, type LessonDef, type Values, type WidgetValue } from './lesson-kit';
import recomputeStudy from '../../../presets/studies/memory-recompute.json';
import generationsStudy from '../../../presets/studies/gpu-generations.json';
import nodesStudy from '../../../presets/studies/technology-nodes.json';
import matmulStudy from '../../../presets/studies/matmul-boundedness.json';
import dramStudy from '../../../presets/studies/memory-technology.json';
import costStudy from '../../../presets/studies/cheapest-accelerator.json';
import megatron22b from '../../../presets/models/megatron-22b.json';
import gpt3 from '../../../presets/models/gpt3-175b.json';
import megatron530b from '../../../presets/models/megatron-530b.json';
import megatron1t from '../../../presets/models/megatron-1t.json';
import llama3_70b from '../../../presets/models/llama3-70b.json';
import dgxA100 from '../../../presets/systems/dgx-a100-80gb.json';
import dgxH100 from '../../../presets/systems/dgx-h100.json';
import dgxH200 from '../../../presets/systems/dgx-h200.json';
import dgxB200 from '../../../presets/systems/dgx-b200.json';
import mi300x8 from '../../../presets/systems/mi300x-8.json';
import h100 from '../../../presets/devices/h100-sxm5-80gb.json';
import hbm2 from '../../../presets/dram/hbm2.json';
import hbm2e from '../../../presets/dram/hbm2e.json';
import hbm3 from '../../../presets/dram/hbm3.json';
import hbm3e from '../../../presets/dram/hbm3e.json';
import hbm4 from '../../../presets/dram/hbm4.json';
import hbm4e from '../../../presets/dram/hbm4e.json';
import node12 from '../../../presets/technology/12nm.json';
import node7 from '../../../presets/technology/7nm.json';
import node5 from '../../../presets/technology/5nm.json';
import node3 from '../../../presets/technology/3nm.json';
import node2 from '../../../presets/technology/2nm.json';
import node1 from '../../../presets/technology/1nm.json';

/** The presets the studies name, by id (the engine's preset ids are the file names). */
export const MODEL_PRESETS: Record<string, { name: string }> = { 'megatron-22b': megatron22b, 'gpt3-175b': gpt3, 'megatron-530b': megatron530b, 'megatron-1t': megatron1t, 'llama3-70b': llama3_70b };
export const SYSTEM_PRESETS: Record<string, { name: string }> = { 'dgx-a100-80gb': dgxA100, 'dgx-h100': dgxH100, 'dgx-h200': dgxH200, 'dgx-b200': dgxB200, 'mi300x-8': mi300x8 };
export const DRAM_PRESETS: Record<string, { name: string; stack_bandwidth_GBps: number; stack_capacity_GiB: number }> = { hbm2, hbm2e, hbm3, hbm3e, hbm4, hbm4e };
export const TECHNOLOGY_PRESETS: Record<string, { name: string; node_nm: number; dram: string }> = { '12nm': node12, '7nm': node7, '5nm': node5, '3nm': node3, '2nm': node2, '1nm': node1 };
/** The system of the DRAM study and its device, which the study re-equips with each DRAM generation. */
export const DRAM_STUDY_SYSTEM = { id: 'dgx-h100', system: dgxH100, deviceId: 'h100-sxm5-80gb', device: h100 };

/** The paper's headline for the GPU-generations study: "about 35x" from A100 to B200 (Kundu et al. 2024, Fig. 8). */
export const PAPER_SPEEDUP = 35;

const PAPER = 'Kundu et al., “Performance Modeling and Workload Analysis of Distributed Large Language Model Training and Inference”, arXiv 2407.14645, 2024';
const label = (table: Record<string, { name: string }>) => (v: WidgetValue): string => table[String(v)]?.name ?? String(v);

type Row = Record<string, unknown>;

/** A study's rows, or none before the table is loaded. */
const rowsOf = (data: LessonData): Row[] => data.study?.rows ?? [];

/**
 * Column `y` of a study's table against `x` of each row, one series per `series` of the row (a
 * row may stand in several series: `series` may return several names). Numeric x gives lines
 * (sorted by x), text x dots in row order. Null without the table.
 */
function studyChart(
  st: StudyResult | null,
  o: { x: (r: Row) => number | string; y: string; series: (r: Row) => string[]; xLabel: string; yLabel: string; seriesLabel?: string; rules?: LineChartSpec['rules'] },
): LineChartSpec | null {
  if (!st) return null;
  const points = st.rows.flatMap((r) => {
    const y = r[o.y];
    return typeof y === 'number' && Number.isFinite(y) ? o.series(r).map((series) => ({ x: o.x(r), y, series })) : [];
  });
  if (points.length === 0) return null;
  const xCategorical = points.some((p) => typeof p.x !== 'number');
  return {
    kind: 'lines',
    title: `${st.title} (the engine’s study, all rows)`,
    xLabel: o.xLabel,
    yLabel: o.yLabel,
    unit: (st.units ?? {})[o.y] ?? '',
    xUnit: '',
    xCategorical,
    logX: false,
    logY: false,
    seriesLabel: o.seriesLabel,
    points: xCategorical ? points : [...points].sort((a, b) => (a.x as number) - (b.x as number)),
    rules: o.rules,
  };
}

// ---- The recompute figure (memory-recompute) ---------------------------------------------------

const RC = recomputeStudy;
const RC_MODELS = RC.layouts.map((l) => l.model);

function recomputeScenario(v: Values): Record<string, unknown> {
  const layout = RC.layouts.find((l) => l.model === v.model) ?? RC.layouts[0]!;
  const name = MODEL_PRESETS[layout.model]?.name ?? layout.model;
  return {
    schema_version: 1,
    name: `${name} on ${layout.tp * layout.pp * RC.dp} A100 80GB, tp${layout.tp} pp${layout.pp} (Korthikanti et al. Table 3), recompute ${v.recompute}`,
    model: layout.model,
    system: RC.system,
    num_devices: layout.tp * layout.pp * RC.dp,
    parallel: { tp: layout.tp, pp: layout.pp, dp: RC.dp, sequence_parallel: RC.sequence_parallel, micro_batch: RC.micro_batch, interleave: layout.interleave, recompute: String(v.recompute) },
    training: { global_batch: layout.global_batch, seq_len: RC.seq_len, precision: RC.precision },
  };
}

const studyRecompute: LessonDef = {
  name: 'study-recompute',
  study: 'memory-recompute',
  title: 'The recompute figure: does the model fit in 80 GB?',
  summary: 'The paper’s memory study: weights, gradients, optimizer state and activations of GPT 22B to 1T on A100 GPUs under no, selective and full recomputation.',
  paragraphs: [
    'The first study of the paper revisits a figure of Korthikanti et al.: four GPT models, from 22 billion to one trillion parameters, each trained on A100 GPUs of 80 GB with the layout those authors used (their Table 3): tensor parallelism across the eight GPUs of a DGX node, a pipeline as deep as the model needs, sequence parallelism, one sequence per micro-batch and no data parallelism. The question is whether the most loaded GPU fits. That is the first pipeline stage: besides its share of the layers it holds the embedding, and the one-forward-one-backward schedule makes it keep the activations of the most micro-batches in flight.',
    'Weights, gradients and the Adam optimizer state depend only on how many parameters each GPU holds. The recomputation policy changes the fourth part, the activations kept for the backward pass. With none, every intermediate tensor of every layer in flight is kept. Selective recomputation drops the attention scores and softmax output, which grow with the square of the sequence length but are cheap to compute again. Full recomputation keeps only each layer’s input and runs the layer’s forward pass a second time during the backward pass.',
    'Pick a model and move the policy: the memory chart shows the four parts against the GPU’s capacity, and the recomputation time shows what the memory saving costs. The second chart is the whole study as the engine computes it, every model under every policy.',
  ],
  sources: [
    'Korthikanti et al., “Reducing Activation Recomputation in Large Transformer Models”, MLSys 2023 (arXiv 2205.05198), Table 3 (layouts) and Figure 1.',
    `${PAPER}, Fig. 6.`,
    'Chen et al., “Training Deep Nets with Sublinear Memory Cost”, 2016 (gradient checkpointing).',
  ],
  widgets: [
    { id: 'model', label: 'Model (with its Table 3 layout)', kind: 'select', choices: choices(RC_MODELS, label(MODEL_PRESETS)), initial: 'gpt3-175b' },
    { id: 'recompute', label: 'Recomputation', kind: 'range', choices: choices(RC.recompute), initial: RC.recompute[0]! },
  ],
  scenario: recomputeScenario,
  shown: [
    ROW.weights,
    ROW.gradients,
    ROW.optimizer,
    ROW.activations,
    ROW.totalPerGpu,
    ROW.capacity,
    ROW.fits,
    ROW.recompute,
    ROW.iterationTime,
  ],
  derived: [
    { id: 'memory_share', label: 'Memory used, share of the GPU’s', q: 'ratio', of: (p) => share(p.memory.per_device_bytes.total, p.memory.capacity_bytes) },
    { id: 'recompute_share', label: 'Recomputation share of the iteration', q: 'ratio', of: (p) => share(p.training?.breakdown_s.recompute, p.training?.iteration_time_s) },
  ],
  chart: (p) => memorySpec(p),
  sweepTitle: 'The whole study',
  sweep: async (_predict, data) => {
    const capacity = rowsOf(data)[0]?.capacity_bytes;
    return studyChart(data.study, {
      x: (r) => label(MODEL_PRESETS)(String(r.model)),
      y: 'total_bytes',
      series: (r) => [String(r.recompute)],
      xLabel: 'model',
      yLabel: 'memory of the most loaded GPU',
      seriesLabel: 'recomputation',
      rules: typeof capacity === 'number' ? [{ value: capacity, label: 'A100 memory' }] : undefined,
    });
  },
  exercises: [
    {
      id: 'largest-without',
      question: 'Without recomputation, which is the largest of the four models whose layout fits in the A100’s memory?',
      choices: choices(RC_MODELS, label(MODEL_PRESETS)),
      answer: (predict) => lastChoice(RC_MODELS, (model) => recomputeScenario({ model, recompute: 'none' }), predict, (p) => p.memory.fits),
    },
    {
      id: 'fastest-fitting-175b',
      question: 'For GPT-3 175B, which policy gives the shortest iteration among those that fit?',
      choices: choices(RC.recompute),
      answer: (predict) => bestChoice(RC.recompute, (recompute) => recomputeScenario({ model: 'gpt3-175b', recompute }), predict, (p) => (p.memory.fits ? p.training?.iteration_time_s : undefined)),
    },
  ],
};

// ---- The 35x (gpu-generations) -----------------------------------------------------------------

const GEN = generationsStudy;
const GEN_ROWS = GEN.rows.map((_, i) => i);
const LAYOUTS = ['fastest', 'a100'];
const LAYOUT_LABELS: Record<string, string> = { fastest: 'this row’s fastest', a100: 'the A100 row’s' };

/**
 * A layout as a study writes it (core/study/study.cpp layout_name: "tp4 pp8 dp32 mb1 v2
 * selective") as a scenario's parallel block, with the studies' rules for the rest: sequence
 * parallelism wherever tp > 1 and the grid's ZeRO stage (the GPU-generations grid's unless
 * given). Null when the text does not parse.
 */
export function parseStudyLayout(text: string, zeroStage: number = GEN.grid.zero_stage): Record<string, unknown> | null {
  const keys: Record<string, string> = { tp: 'tp', pp: 'pp', dp: 'dp', mb: 'micro_batch', v: 'interleave' };
  const par: Record<string, number | string> = { interleave: 1 };
  for (const token of text.trim().split(/\s+/)) {
    const m = /^(tp|pp|dp|mb|v)(\d+)$/.exec(token);
    if (m) par[keys[m[1]!]!] = Number(m[2]);
    else if (['none', 'selective', 'full'].includes(token) && par.recompute === undefined) par.recompute = token;
    else return null;
  }
  if (typeof par.tp !== 'number' || typeof par.pp !== 'number' || typeof par.dp !== 'number' || typeof par.micro_batch !== 'number' || par.recompute === undefined) return null;
  return { tp: par.tp, pp: par.pp, dp: par.dp, sequence_parallel: par.tp > 1, micro_batch: par.micro_batch, interleave: par.interleave, recompute: par.recompute, zero_stage: zeroStage };
}

/**
 * The layout the engine's study found for the row labelled `want` (its table, matched by the
 * row's label), as written and parsed with the study grid's ZeRO stage.
 */
function tableLayout(data: LessonData, want: string | undefined, zeroStage: number): { text: string; parallel: Record<string, unknown> } {
  const row = rowsOf(data).find((r) => r.label === want);
  const text = typeof row?.layout === 'string' ? row.layout : '';
  const parallel = parseStudyLayout(text, zeroStage);
  if (!parallel) throw new Error(`the engine's ${data.study?.study ?? 'study'} table has no layout for “${want}”`);
  return { text, parallel };
}

/** The layout the engine's GPU-generations study found for row i. */
const studyLayout = (data: LessonData, i: number): { text: string; parallel: Record<string, unknown> } => tableLayout(data, GEN.rows[i]?.label, GEN.grid.zero_stage);

function generationScenario(v: Values, data: LessonData): Record<string, unknown> {
  const i = num(v.row);
  const row = GEN.rows[i] ?? GEN.rows[0]!;
  const layout = studyLayout(data, v.layout === 'a100' ? 0 : i);
  return {
    schema_version: 1,
    name: `GPT-3 175B on ${GEN.num_devices} GPUs: ${row.label}; layout ${layout.text} (${v.layout === 'a100' ? 'the A100 row’s' : 'the fastest for this row'})`,
    model: GEN.model,
    system: row.system,
    num_devices: GEN.num_devices,
    parallel: layout.parallel,
    training: { global_batch: row.global_batch, seq_len: GEN.seq_len, precision: row.precision },
  };
}

/** Training throughput over the baseline's (the first row's): the study's speedup column. */
const speedupOver = (p: Prediction | null, base: Prediction | null): number | null => share(p?.training?.tokens_per_s, base?.training?.tokens_per_s);

const studyGenerations: LessonDef = {
  name: 'study-gpu-generations',
  study: 'gpu-generations',
  title: 'The 35×: GPT-3 175B training from A100 to B200',
  summary: 'The paper’s GPU-generations study: which part of the speedup comes from the chip, the precision, the network, the batch and the layout.',
  paragraphs: [
    `The paper’s second study trains GPT-3 175B on ${GEN.num_devices} GPUs of three generations and reports about 35 times the A100’s training speed for the B200 (Kundu et al., Fig. 8). That factor stacks several changes: a faster chip at the same precision; lower-precision arithmetic (fp8, and fp4 on the B200), each step of which doubles the dense tensor rate; a faster network (NDR instead of HDR InfiniBand, or the NVLink switch of the GB200 NVL72, which joins 72 GPUs in one domain); and a larger global batch, which shortens the pipeline bubble relative to the work and hides more communication.`,
    'Each configuration also deserves its own layout. A faster chip makes communication a larger share of the step, so the best split into tensor, pipeline and data parallelism moves. For every row the engine’s study searches a grid of Megatron layouts and keeps the fastest one that fits in memory; this lesson loads those layouts from the study and runs them. The breakdown is the paper’s: time in compute-bound kernels, in memory-bound kernels, in exposed communication, and the rest (pipeline bubble and optimizer step).',
    'Walk the slider through the study’s rows and watch the speedup over the first (A100) row; then keep the A100 row’s layout to see how much of the gain needs a re-tuned layout. The second chart puts every row against the paper’s figure; where they differ, the study view’s notes give the assumptions behind each row.',
  ],
  sources: [
    `${PAPER}, Fig. 8.`,
    'Narayanan et al., “Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM”, SC 2021 (the layouts).',
    'NVIDIA, A100, H100 and B200 data sheets; NVIDIA GB200 NVL72 product page (the systems of presets/systems).',
  ],
  widgets: [
    { id: 'row', label: 'Row of the study', kind: 'range', choices: choices(GEN_ROWS, (i) => GEN.rows[num(i)]?.label ?? String(i)), initial: 0 },
    { id: 'layout', label: 'Layout', kind: 'select', choices: labelled(LAYOUTS, LAYOUT_LABELS), initial: 'fastest' },
  ],
  scenario: generationScenario,
  baseline: (_v, data) => generationScenario({ row: 0, layout: 'fastest' }, data),
  shown: [
    ROW.iterationTime,
    { path: 'training.tokens_per_s', label: 'Training throughput', q: 'tokens_rate' },
    ROW.mfu,
    ROW.computeBound,
    ROW.memoryBound,
    ROW.communicationBound,
    ROW.otherBound,
    ROW.fits,
  ],
  derived: [{ id: 'speedup', label: 'Speedup over the A100 row', q: 'factor', of: (p, _v, ctx) => speedupOver(p, ctx.baseline) }],
  chart: (p) => byBoundSpec(p),
  sweepTitle: 'The whole study',
  sweep: async (_predict, data) =>
    studyChart(data.study, {
      // The row's own label ("H100, DGX H100 (NDR InfiniBand), fp8, batch 1536"), not its system's preset id.
      x: (r) => String(r.label),
      y: 'speedup',
      series: () => ['speedup over the A100 row'],
      xLabel: 'row of the study',
      yLabel: 'speedup over the A100 row (×)',
      rules: [{ value: PAPER_SPEEDUP, label: 'the paper: about' }],
    }),
  exercises: [
    {
      id: 'closest-to-paper',
      question: 'Which row of the study comes closest to the paper’s “about 35×” over the A100?',
      choices: choices(GEN_ROWS, (i) => GEN.rows[num(i)]?.label ?? String(i)),
      answer: async (predict, data) => {
        const base = await predict(generationScenario({ row: 0, layout: 'fastest' }, data));
        return bestChoice(GEN_ROWS, (row) => generationScenario({ row, layout: 'fastest' }, data), predict, (p) => {
          const s = speedupOver(p, base);
          return s === null ? undefined : Math.abs(s - PAPER_SPEEDUP);
        });
      },
    },
    {
      id: 'nvl72-layout',
      question: 'At fp8 and the smaller batch, is the GB200 NVL72 still faster than the DGX B200 (each row’s own fastest layout) when it keeps the A100 row’s layout?',
      choices: choices(['yes', 'no']),
      answer: async (predict, data) => {
        const at = (system: string): number => GEN.rows.findIndex((r) => r.system === system && r.precision === 'fp8' && r.global_batch === GEN.rows[0]!.global_batch);
        const [nvlRow, dgxRow] = [at('gb200-nvl72'), at('dgx-b200')];
        if (nvlRow < 0 || dgxRow < 0) return null;
        const nvl = await predict(generationScenario({ row: nvlRow, layout: 'a100' }, data));
        const dgx = await predict(generationScenario({ row: dgxRow, layout: 'fastest' }, data));
        const a = nvl?.training?.iteration_time_s;
        const b = dgx?.training?.iteration_time_s;
        return a === undefined || b === undefined ? null : a < b ? 'yes' : 'no';
      },
    },
  ],
};

// ---- The technology walk (technology-nodes) ----------------------------------------------------

const TN = nodesStudy;
const NODES = TN.nodes;
const OWN = 'own';
const NODE_DRAMS = [...new Set(NODES.map((n) => TECHNOLOGY_PRESETS[n]?.dram ?? ''))].filter((d) => d !== '');
const DRAM_CHOICES = [OWN, ...NODE_DRAMS];
const dramLabel = (v: WidgetValue): string => (v === OWN ? 'the node’s own' : (DRAM_PRESETS[String(v)]?.name ?? String(v)));
const nm = (node: string | undefined): string => `${TECHNOLOGY_PRESETS[node ?? '']?.node_nm ?? node} nm`;
const SCALINGS = ['logic', 'memory', 'network', 'all'];

function nodeScenario(v: Values): Record<string, unknown> {
  const node = String(v.node);
  const dram = v.dram === OWN ? (TECHNOLOGY_PRESETS[node]?.dram ?? '') : String(v.dram);
  return {
    schema_version: 1,
    name: `GPT-3 175B on ${TN.num_devices} devices derived at ${TECHNOLOGY_PRESETS[node]?.name ?? node} with ${DRAM_PRESETS[dram]?.name ?? dram}`,
    model: TN.model,
    system: { technology: node, dram, ...TN.budget },
    num_devices: TN.num_devices,
    parallel: TN.parallel,
    training: TN.training,
  };
}

const BOUNDS = ['compute', 'memory', 'communication', 'other'] as const;
const BOUND_LABELS: Record<string, string> = { compute: 'compute-bound kernels', memory: 'memory-bound kernels', communication: 'exposed communication', other: 'other (bubble + optimizer)' };
const boundShare = (p: Prediction | null, b: string): number | null => share((p?.training?.by_bound_s as Record<string, number> | undefined)?.[b], p?.training?.iteration_time_s);

/** The resolved device's figures: dense bf16 peak (FLOP/s), DRAM bandwidth and scale-up link (B/s). */
const device = (ctx: { resolved: { system?: unknown } | null }): { peak?: number; dram?: number; link?: number } => {
  const sys = ctx.resolved?.system as { device?: { peak_tflops?: Record<string, number>; memory?: { bandwidth_GBps?: number } }; scale_up?: { bandwidth_GBps?: number } } | undefined;
  const peak = sys?.device?.peak_tflops?.bf16;
  const dram = sys?.device?.memory?.bandwidth_GBps;
  const link = sys?.scale_up?.bandwidth_GBps;
  return { peak: peak === undefined ? undefined : peak * 1e12, dram: dram === undefined ? undefined : dram * 1e9, link: link === undefined ? undefined : link * 1e9 };
};
const orNull = (x: number | undefined): number | null => (x === undefined ? null : x);

const studyTechnology: LessonDef = {
  name: 'study-technology-nodes',
  study: 'technology-nodes',
  title: 'The technology walk: one chip budget from 12 nm to 1 nm',
  summary: 'The paper’s design-space study: devices derived at each technology node under the same area and power, and where GPT-3 175B training then spends its time.',
  paragraphs: [
    `The paper’s design-space study fixes a chip budget, the die area and power of an A100/H100-class GPU, and lets its microarchitecture engine derive a device at each technology node from 12 nm to 1 nm. Denser logic buys more tensor units and cache on the same area, the power budget sets the clock the units can run at, and the die’s edge holds the DRAM stacks and the network SerDes, whose speed per lane also rises with the node. Each node comes with the DRAM generation of its era. The same GPT-3 175B training layout then runs on ${TN.num_devices} derived devices, so the rows differ only in hardware.`,
    'The paper scales logic, memory and network separately and together, and finds the bottleneck moving from compute to memory to the interconnect as the nodes shrink (Kundu et al., Sec. IV-C). The slider here moves the whole chip, logic and SerDes and, unless you pick another, the node’s own DRAM; the picker swaps the DRAM generation alone. The breakdown is the paper’s: compute-bound kernels, memory-bound kernels, exposed communication and the rest.',
    'The second chart is the engine’s whole study, which also scales logic alone and the network alone, two cases a scenario cannot express because a node’s logic and SerDes come together. Compare its curves: whose progress buys the most speed, and where does each stop paying?',
  ],
  sources: [
    `${PAPER}, Sec. IV-C.`,
    'Ardalani, Pal and Gupta, “DeepFlow: A Cross-Stack Pathfinding Framework for Distributed AI Systems”, arXiv 2211.03309 (the microarchitecture engine’s lineage).',
    'The per-node sources in presets/technology (TSMC, WikiChip, imec) and presets/dram (JEDEC).',
  ],
  widgets: [
    { id: 'node', label: 'Technology node', kind: 'range', choices: choices(NODES, label(TECHNOLOGY_PRESETS)), initial: NODES[0]! },
    { id: 'dram', label: 'DRAM', kind: 'select', choices: choices(DRAM_CHOICES, dramLabel), initial: OWN },
  ],
  scenario: nodeScenario,
  baseline: () => nodeScenario({ node: NODES[0]!, dram: OWN }),
  shown: [
    ROW.iterationTime,
    ROW.computeBound,
    ROW.memoryBound,
    ROW.communicationBound,
    ROW.otherBound,
    ROW.fits,
  ],
  derived: [
    { id: 'speedup', label: `Speedup over the ${nm(NODES[0])} chip`, q: 'factor', of: (p, _v, ctx) => share(ctx.baseline?.training?.iteration_time_s, p.training?.iteration_time_s) },
    { id: 'peak', label: 'Derived device: dense bf16 peak', q: 'flop_rate', of: (_p, _v, ctx) => orNull(device(ctx).peak) },
    { id: 'dram_bandwidth', label: 'Derived device: DRAM bandwidth', q: 'byte_rate', of: (_p, _v, ctx) => orNull(device(ctx).dram) },
    { id: 'link_bandwidth', label: 'Derived device: scale-up link per direction', q: 'byte_rate', of: (_p, _v, ctx) => orNull(device(ctx).link) },
    { id: 'communication_share', label: 'Exposed communication share of the iteration', q: 'ratio', of: (p) => boundShare(p, 'communication') },
  ],
  needsResolved: true,
  chart: (p) => byBoundSpec(p),
  sweepTitle: 'The whole study',
  // The baseline row (every component at the first node, the same chip whatever is scaled) starts every curve.
  sweep: async (_predict, data) =>
    studyChart(data.study, {
      x: (r) => r.node_nm as number,
      y: 'speedup',
      series: (r) => (r.node_nm === TECHNOLOGY_PRESETS[NODES[0]!]?.node_nm ? SCALINGS : [String(r.scaling)]),
      xLabel: 'technology node (nm)',
      yLabel: `speedup over the ${nm(NODES[0])} chip (×)`,
      seriesLabel: 'what moves to the node',
    }),
  exercises: [
    {
      id: 'growing-share',
      question: `With the node’s own DRAM, which part of the paper’s breakdown gains the most share of the iteration from ${nm(NODES[0])} to ${nm(NODES[NODES.length - 1])}?`,
      choices: choices([...BOUNDS], (b) => BOUND_LABELS[String(b)] ?? String(b)),
      answer: async (predict) => {
        const first = await predict(nodeScenario({ node: NODES[0]!, dram: OWN }));
        const last = await predict(nodeScenario({ node: NODES[NODES.length - 1]!, dram: OWN }));
        let best: string | null = null;
        let gain = -Infinity;
        for (const b of BOUNDS) {
          const a = boundShare(first, b);
          const z = boundShare(last, b);
          if (a !== null && z !== null && z - a > gain) {
            gain = z - a;
            best = b;
          }
        }
        return best;
      },
    },
    {
      id: 'memory-alone',
      question: `Keeping the ${nm(NODES[0])} logic and network, how much faster does the best DRAM generation on the list make the iteration than the node’s own?`,
      choices: [
        { value: 'under-5', label: 'less than 5 %' },
        { value: '5-25', label: 'between 5 % and 25 %' },
        { value: 'over-25', label: 'more than 25 %' },
      ],
      answer: async (predict) => {
        const own = (await predict(nodeScenario({ node: NODES[0]!, dram: OWN })))?.training?.iteration_time_s;
        let best = Infinity;
        for (const dram of NODE_DRAMS) best = Math.min(best, (await predict(nodeScenario({ node: NODES[0]!, dram })))?.training?.iteration_time_s ?? Infinity);
        if (own === undefined || !Number.isFinite(best)) return null;
        const gain = own / best - 1;
        return gain < 0.05 ? 'under-5' : gain <= 0.25 ? '5-25' : 'over-25';
      },
    },
  ],
};

// ---- Compute- or memory-bound matmuls (matmul-boundedness) -------------------------------------

const MM = matmulStudy;
const MM_GPUS = MM.gpus.map((g) => g.system);
const MM_GPU_LABELS: Record<string, string> = Object.fromEntries(MM.gpus.map((g) => [g.system, g.label]));
/** The GPU the exercises ask about: the study's H100. */
export const MM_FOCUS = 'dgx-h100';
/** The study's batches and the powers of two between and beyond them. */
const MM_BATCHES = [...new Set([...MM.batches, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512])].sort((a, b) => a - b);
/** The matrix multiplies of a layer (and the LM head), as the engine names its operators (study.cpp is_matmul). */
export const MATMULS: Record<string, string> = {
  qkv_proj: 'QKV projection',
  attention: 'attention core (QKᵀ and PV)',
  attn_out_proj: 'attention output projection',
  mlp_up: 'MLP up-projection',
  mlp_down: 'MLP down-projection',
  lm_head: 'LM head (logits)',
};

function matmulScenario(v: Values): Record<string, unknown> {
  return {
    schema_version: 1,
    name: `Llama 2 70B on ${MM.num_devices} ${MM_GPU_LABELS[String(v.gpu)] ?? v.gpu} (tp${MM.parallel.tp}), batch ${v.batch}`,
    model: MM.model,
    system: String(v.gpu),
    num_devices: MM.num_devices,
    parallel: MM.parallel,
    inference: { ...MM.inference, batch: num(v.batch) },
  };
}

const matmulsOf = (p: Prediction | null, phase: string) => (p?.inference?.operators ?? []).filter((o) => o.phase === phase && o.name in MATMULS);
const operator = (p: Prediction | null, phase: string, name: string) => matmulsOf(p, phase).find((o) => o.name === name);

/** Share of a phase's matrix-multiply time (count × time) in compute-bound kernels. */
function computeBoundShare(p: Prediction | null, phase: string): number | null {
  let all = 0;
  let part = 0;
  for (const o of matmulsOf(p, phase)) {
    const t = o.time_s * (o.count ?? 1);
    all += t;
    if (o.bound === 'compute') part += t;
  }
  return all > 0 ? part / all : null;
}

/** The data-sheet ridge point of the resolved device: peak FLOP/s at the study's precision / DRAM bandwidth. */
function ridge(resolved: { system?: unknown } | null): number | null {
  const dev = (resolved?.system as { device?: { peak_tflops?: Record<string, number>; memory?: { bandwidth_GBps?: number } } } | undefined)?.device;
  const peak = dev?.peak_tflops?.[MM.inference.precision];
  const bw = dev?.memory?.bandwidth_GBps;
  return peak !== undefined && bw !== undefined && bw > 0 ? (peak * 1e12) / (bw * 1e9) : null;
}

const studyMatmul: LessonDef = {
  name: 'study-matmul-boundedness',
  study: 'matmul-boundedness',
  title: 'Compute- or memory-bound: the matrix multiplies of inference',
  summary: 'The paper’s boundedness study: each prefill and decode matrix multiply of Llama 2 70B against the GPU’s ridge point, and the batch at which decode crosses it.',
  paragraphs: [
    'In its inference study the paper takes each matrix multiply of a Llama 2 70B layer, split over eight GPUs with tensor parallelism, and asks whether it is limited by the GPU’s arithmetic or by its memory (Kundu et al., Sec. V). The roofline model answers with two numbers: the operation’s arithmetic intensity, the FLOPs it performs per byte it moves, and the GPU’s ridge point, its peak FLOP/s divided by its memory bandwidth. Above the ridge the arithmetic binds; below it, the memory.',
    'In prefill a weight matrix multiplies all the prompt’s tokens at once, so every weight byte read serves many tokens and the intensity is high. In decode it multiplies a single new token per sequence: each weight is read to perform one multiply-add per sequence of the batch. Batching decode therefore raises its intensity roughly in proportion to the batch, until the matrix multiplies cross the ridge. The attention core is different: each sequence attends over its own keys and values, so a larger batch brings more bytes along with the FLOPs.',
    'Pick a GPU and move the batch: the roofline places every operator of prefill and decode against the GPU’s data-sheet roofs, and the numbers count how many of decode’s matrix multiplies have crossed. An operator can turn compute-bound a little before the data-sheet ridge, because the engine caps both roofs at the efficiencies measured on each GPU; and its roofline has a third roof between the two, the L2 cache, which binds some operators at some batches. The second chart follows, on each GPU, the share of decode’s matrix-multiply time that has turned compute-bound as the batch grows.',
  ],
  sources: [
    `${PAPER}, Sec. V.`,
    'Williams, Waterman and Patterson, “Roofline: An Insightful Visual Performance Model for Multicore Architectures”, CACM 2009.',
    'Touvron et al., “Llama 2: Open Foundation and Fine-Tuned Chat Models”, 2023 (the model’s shape).',
  ],
  widgets: [
    { id: 'gpu', label: 'GPU (DGX system)', kind: 'select', choices: labelled(MM_GPUS, MM_GPU_LABELS), initial: MM_FOCUS },
    { id: 'batch', label: 'Batch (sequences decoded together)', kind: 'range', choices: choices(MM_BATCHES), initial: MM_BATCHES[0]! },
  ],
  scenario: matmulScenario,
  shown: [
    ROW.prefillTtft,
    ROW.decodeStepTpot,
    { path: 'inference.throughput_tokens_per_s', label: 'Decode throughput', q: 'tokens_rate' },
    ROW.inferenceFits,
  ],
  derived: [
    { id: 'ridge', label: 'Ridge point of the GPU (data sheet)', q: 'intensity', of: (_p, _v, ctx) => ridge(ctx.resolved) },
    { id: 'decode_mlp_up_intensity', label: 'Decode MLP up-projection: arithmetic intensity', q: 'intensity', of: (p) => operator(p, 'decode', 'mlp_up')?.arithmetic_intensity ?? null },
    { id: 'decode_compute_bound', label: 'Decode matrix multiplies bound by compute', q: 'count', of: (p) => matmulsOf(p, 'decode').filter((o) => o.bound === 'compute').length },
    { id: 'prefill_compute_bound', label: 'Prefill matrix multiplies bound by compute', q: 'count', of: (p) => matmulsOf(p, 'prefill').filter((o) => o.bound === 'compute').length },
    { id: 'decode_compute_share', label: 'Decode matrix-multiply time in compute-bound kernels', q: 'ratio', of: (p) => computeBoundShare(p, 'decode') },
  ],
  needsResolved: true,
  chart: (p, resolved) => rooflineSpec(p, resolved),
  sweepTitle: 'Decode over the batch',
  sweep: async (predict) => {
    const points: LineChartSpec['points'] = [];
    for (const gpu of MM_GPUS) {
      for (const batch of MM_BATCHES) {
        const y = computeBoundShare(await predict(matmulScenario({ gpu, batch })), 'decode');
        if (y !== null) points.push({ x: batch, y: y * 100, series: MM_GPU_LABELS[gpu] ?? gpu });
      }
    }
    return {
      kind: 'lines',
      title: 'Share of decode’s matrix-multiply time in compute-bound kernels, against the batch, per GPU (engine)',
      xLabel: 'batch (sequences)',
      yLabel: 'compute-bound share of decode matmul time',
      xCategorical: false,
      unit: '%',
      xUnit: '',
      logX: true,
      logY: false,
      seriesLabel: 'GPU',
      points,
    };
  },
  exercises: [
    {
      id: 'prefill-memory-bound',
      question: `At batch ${MM_BATCHES[0]} on the ${MM_GPU_LABELS[MM_FOCUS]}, which of prefill’s matrix multiplies is not compute-bound?`,
      choices: choices(Object.keys(MATMULS), (m) => MATMULS[String(m)] ?? String(m)),
      answer: async (predict) => {
        const p = await predict(matmulScenario({ gpu: MM_FOCUS, batch: MM_BATCHES[0]! }));
        const odd = matmulsOf(p, 'prefill').filter((o) => o.bound !== 'compute');
        return odd.length === 1 ? odd[0]!.name : null;
      },
    },
    {
      id: 'decode-crosses',
      question: `On the ${MM_GPU_LABELS[MM_FOCUS]}, what is the smallest batch on the slider at which the decode MLP up-projection becomes compute-bound?`,
      choices: choices(MM_BATCHES),
      answer: (predict) => firstChoice(MM_BATCHES, (batch) => matmulScenario({ gpu: MM_FOCUS, batch }), predict, (p) => operator(p, 'decode', 'mlp_up')?.bound === 'compute'),
    },
  ],
};

// ---- DRAM generations and decode latency (memory-technology) -----------------------------------

const MT = dramStudy;
const MT_DRAMS = MT.drams;

/**
 * The study's system with its device re-equipped with `dram`: dram_stacks stacks at the
 * generation's rated bandwidth and capacity per stack, everything else as the presets say
 * (core/study/study.cpp, memory-technology).
 */
export function withDram(dram: string): Record<string, unknown> {
  const d = DRAM_PRESETS[dram];
  if (!d) throw new Error(`no DRAM preset ${dram}`);
  const { system, device: dev } = DRAM_STUDY_SYSTEM;
  return {
    ...system,
    device: { ...dev, name: `${dev.name} with ${d.name}`, memory: { capacity_GiB: d.stack_capacity_GiB * MT.dram_stacks, bandwidth_GBps: d.stack_bandwidth_GBps * MT.dram_stacks } },
  };
}

function dramScenario(v: Values): Record<string, unknown> {
  return {
    schema_version: 1,
    name: `Llama 2 70B on ${MT.num_devices} H100-class GPUs with ${DRAM_PRESETS[String(v.dram)]?.name ?? v.dram} (tp${MT.parallel.tp}), batch ${v.batch}`,
    model: MT.model,
    system: withDram(String(v.dram)),
    num_devices: MT.num_devices,
    parallel: MT.parallel,
    inference: { ...MT.inference, batch: num(v.batch) },
  };
}

const tpot = (p: Prediction | null): number | undefined => p?.inference?.tpot_s;

const studyDram: LessonDef = {
  name: 'study-memory-technology',
  study: 'memory-technology',
  title: 'DRAM generations and decode latency',
  summary: 'The paper’s memory-technology study: an H100 re-equipped with each HBM generation, and how much faster decode gets with each.',
  paragraphs: [
    'Decode reads every weight of the model, and the KV cache of every sequence, for each new token, so its speed follows the memory bandwidth. The paper’s last study keeps an H100’s compute, cache and links and changes only its DRAM, from HBM2 to HBM4E, each generation with the same number of stacks at its rated speed per stack (Kundu et al., Sec. V); Llama 2 70B is served on eight such GPUs with tensor parallelism.',
    'A decode step is not only weight streaming. Every layer also waits for the tensor-parallel all-reduces across the eight GPUs, which at a small batch cost mostly latency, and every kernel adds a fixed overhead. Those parts do not shrink with faster DRAM, so each new generation buys less than its bandwidth promises: Amdahl’s law applied to memory.',
    'Move the generation and watch the decode step’s two parts, compute (which includes waiting for memory) and communication, and the time per output token against HBM2’s. Prefill, mostly compute-bound, moves much less. The second chart is the engine’s whole study.',
  ],
  sources: [
    `${PAPER}, Sec. V.`,
    'JEDEC JESD235 (HBM2), JESD238 (HBM3) and the HBM4 standard; the per-stack rates of presets/dram.',
    'Pope et al., “Efficiently Scaling Transformer Inference”, MLSys 2023.',
    'Amdahl, “Validity of the single processor approach to achieving large scale computing capabilities”, AFIPS 1967.',
  ],
  widgets: [
    { id: 'dram', label: 'DRAM generation', kind: 'range', choices: choices(MT_DRAMS, label(DRAM_PRESETS)), initial: MT_DRAMS[0]! },
    { id: 'batch', label: 'Batch (sequences)', kind: 'select', choices: choices(MT.batches), initial: MT.batches[0]! },
  ],
  scenario: dramScenario,
  baseline: (v) => dramScenario({ dram: MT_DRAMS[0]!, batch: v.batch! }),
  shown: [
    ROW.tpot,
    { path: 'inference.decode_step_s.compute', label: 'Decode step: compute and memory', q: 'seconds' },
    { path: 'inference.decode_step_s.communication', label: 'Decode step: communication', q: 'seconds' },
    ROW.prefillTtft,
    ROW.inferenceCapacity,
    { path: 'inference.max_batch', label: 'Largest batch that fits', q: 'count' },
  ],
  derived: [
    { id: 'bandwidth', label: 'DRAM bandwidth per GPU', q: 'byte_rate', of: (_p, _v, ctx) => orNull(device(ctx).dram) },
    { id: 'speedup_tpot', label: 'Decode speedup over HBM2', q: 'factor', of: (p, _v, ctx) => share(tpot(ctx.baseline), tpot(p)) },
    { id: 'communication_share', label: 'Communication share of the decode step', q: 'ratio', of: (p) => { const d = p.inference?.decode_step_s; return d ? share(d.communication, d.compute + d.communication) : null; } },
  ],
  needsResolved: true,
  chart: (p) => inferenceTimeSpec(p, MT.inference.output_len),
  sweepTitle: 'The whole study',
  sweep: async (_predict, data) =>
    studyChart(data.study, {
      x: (r) => label(DRAM_PRESETS)(String(r.dram)),
      y: 'tpot_s',
      series: (r) => [`batch ${String(r.batch)}`],
      xLabel: 'DRAM generation',
      yLabel: 'time per output token',
      seriesLabel: 'batch',
    }),
  exercises: [
    {
      id: 'half-again',
      question: `At batch ${MT.batches[0]}, which is the first generation on the slider that decodes at least one and a half times as fast as ${DRAM_PRESETS[MT_DRAMS[0]!]?.name ?? MT_DRAMS[0]}?`,
      choices: choices(MT_DRAMS, label(DRAM_PRESETS)),
      answer: async (predict) => {
        const base = tpot(await predict(dramScenario({ dram: MT_DRAMS[0]!, batch: MT.batches[0]! })));
        if (base === undefined) return null;
        return firstChoice(MT_DRAMS, (dram) => dramScenario({ dram, batch: MT.batches[0]! }), predict, (p) => (tpot(p) ?? Infinity) * 1.5 <= base);
      },
    },
    {
      id: 'last-step',
      question: `At batch ${MT.batches[0]}, how much faster is decode with ${DRAM_PRESETS[MT_DRAMS[MT_DRAMS.length - 1]!]?.name ?? ''} than with ${DRAM_PRESETS[MT_DRAMS[MT_DRAMS.length - 2]!]?.name ?? ''}, the generation before it?`,
      choices: [
        { value: 'under-5', label: 'less than 5 %' },
        { value: '5-20', label: 'between 5 % and 20 %' },
        { value: 'over-20', label: 'more than 20 %' },
      ],
      answer: async (predict) => {
        const b = MT.batches[0]!;
        const before = tpot(await predict(dramScenario({ dram: MT_DRAMS[MT_DRAMS.length - 2]!, batch: b })));
        const after = tpot(await predict(dramScenario({ dram: MT_DRAMS[MT_DRAMS.length - 1]!, batch: b })));
        if (before === undefined || after === undefined) return null;
        const gain = before / after - 1;
        return gain < 0.05 ? 'under-5' : gain <= 0.2 ? '5-20' : 'over-20';
      },
    },
  ],
};

// ---- What a training run costs (cheapest-accelerator) ------------------------------------------

const CA = costStudy;
const CA_ROWS = CA.rows.map((_, i) => i);
/** A row of the cost study by its system and precision (-1 when the study has no such row). */
const costRow = (system: string, precision: string): number => CA.rows.findIndex((r) => r.system === system && r.precision === precision);
/** The rows of the break-even exercise: the A100, and the H100 at the same precision. */
export const CA_OLD = costRow('dgx-a100-80gb', 'bf16');
export const CA_NEW = costRow('dgx-h100', 'bf16');
/** A row without its price: "NVIDIA DGX H100 at fp8". */
const costRowName = (i: WidgetValue): string => {
  const r = CA.rows[num(i)];
  return r ? `${SYSTEM_PRESETS[r.system]?.name ?? r.system} at ${r.precision}` : String(i);
};
/**
 * How far another offer's price may sit from the study's, either way: the study's notes say that
 * prices "differ 2-4x between providers". The slider reaches twice the dearest study price, and
 * the second chart draws each row from half to twice its own.
 */
const PRICE_SPAN = 2;
const STUDY_PRICES = CA.rows.map((r) => r.usd_per_gpu_hour);
/** The rental prices of the slider (USD per GPU-hour): every quarter dollar up to the span, and the study's own prices. */
export const PRICES = [...new Set([...Array.from({ length: Math.floor(PRICE_SPAN * Math.max(...STUDY_PRICES) * 4) }, (_, i) => (i + 1) / 4), ...STUDY_PRICES])].sort((a, b) => a - b);
/** The slider's prices within the span around row i's study price. */
const pricesAround = (i: number): number[] => {
  const own = STUDY_PRICES[i] ?? NaN;
  return PRICES.filter((x) => x >= own / PRICE_SPAN && x <= own * PRICE_SPAN);
};
const priceLabel = (v: WidgetValue): string => `$${num(v).toFixed(2)} per GPU-hour`;

function costScenario(v: Values, data: LessonData): Record<string, unknown> {
  const row = CA.rows[num(v.row)];
  if (!row) throw new Error(`the cost study has no row ${String(v.row)}`);
  const layout = tableLayout(data, row.label, CA.grid.zero_stage);
  return {
    schema_version: 1,
    name: `${MODEL_PRESETS[CA.model]?.name ?? CA.model} on ${formatParams(CA.train_tokens)} tokens, ${CA.num_devices} GPUs: ${costRowName(v.row!)}, layout ${layout.text}, rented at ${priceLabel(v.price!)}`,
    model: CA.model,
    system: row.system,
    num_devices: CA.num_devices,
    parallel: layout.parallel,
    training: { global_batch: CA.global_batch, seq_len: CA.seq_len, precision: row.precision, train_tokens: CA.train_tokens },
    economics: { usd_per_gpu_hour: num(v.price) },
  };
}

/** Row i rented at the study's price for it. */
const atStudyPrice = (i: WidgetValue, data: LessonData): Record<string, unknown> => costScenario({ row: i, price: CA.rows[num(i)]?.usd_per_gpu_hour ?? NaN }, data);

/** The row the engine's study found cheapest (the `cheapest` column of its table). */
function cheapestRow(data: LessonData): number {
  const label = rowsOf(data).find((r) => r.cheapest === true)?.label;
  const i = CA.rows.findIndex((r) => r.label === label);
  if (i < 0) throw new Error('the engine’s cheapest-accelerator table names no cheapest row');
  return i;
}

const runCost = (p: Prediction | null): number | undefined => p?.run?.cost_usd;

const studyCost: LessonDef = {
  name: 'study-cheapest-accelerator',
  study: 'cheapest-accelerator',
  title: 'What a training run costs: the fastest GPU can be the cheapest',
  summary: `A whole training run of ${MODEL_PRESETS[CA.model]?.name ?? CA.model} on A100, H100, H200, B200 and MI300X GPUs at rental prices: days, GPU-hours, energy and money, and the price at which the ranking flips.`,
  paragraphs: [
    `This study is not one of the paper’s; it takes up the question its follow-up (arXiv 2507.02456) puts first: what does a whole training run cost on each accelerator? The run is ${MODEL_PRESETS[CA.model]?.name ?? CA.model} on ${formatParams(CA.train_tokens)} tokens over ${CA.num_devices} GPUs. Each GPU and precision gets the fastest layout of a grid that fits in its memory, as the engine’s study finds it; this lesson loads those layouts from the study and runs them, with the engine’s whole-run model on top of the steady-state step: checkpoint writes at the Young/Daly interval, the system’s failure rate, the work lost at each failure and the restart after it.`,
    'Rented by the hour, a run costs its GPU-hours times the price of one GPU-hour. The GPU-hours are the GPUs times the elapsed hours, and the elapsed time is the tokens to train over the throughput of the whole job, which is the throughput per GPU times the GPUs, stretched by checkpoints and failures (no discount for what the makers’ runs spent beyond that: on H100 and later they took 1.0 to 2.4 times the modelled plan, which the band shows rather than the number, so the newer GPUs look cheaper here than their makers’ runs were). To first order the number of GPUs cancels out: twice the GPUs finish in half the time for the same GPU-hours. What sets the bill is the price of an hour against the tokens one GPU trains in that hour, and how much of its speed that GPU loses to communication at scale. Energy follows the same hours (the devices’ draw at the run’s mix of work, the rest of each node, the cooling); a rental price includes it, so it is reported beside the cost, not added to it.',
    'A newer GPU rents for more per hour, but it also trains more tokens in that hour. When its throughput per GPU grows faster than its price, every token costs less on it, and the fastest GPU is also the cheapest. Lower precision pushes the same way: fp8 doubles the dense tensor rate of a Hopper or Blackwell GPU at an unchanged hourly price, so whatever it gains in speed comes straight off the bill. Memory matters indirectly: a GPU that fits a layout with less recomputation or less tensor parallelism wastes fewer of the hours paid for. The other way to a cheap token is a cheap hour: an AMD MI300X, slower per GPU than a B200 in fp8 but rented for a third of its price, ends within a few percent of it. Its row is the least certain of the table: its chip and links are calibrated on measurements, but no published MI300X training run checks the whole, and it runs NVIDIA’s software terms.',
    'The ranking holds only for the prices it was computed at. The study takes the middle of ranges published for on-demand rental at specialised GPU clouds: “$1.10-1.50” an hour for an A100 80GB, “$2.50-3.50” for an H100 SXM and “$3.50-4.50” for an H200 SXM (Mercatus, May 2026), “$4.50-6.00” for a B200 (Lyceum Technologies, March 2026), and $1.50 to $2.00 for an AMD MI300X at the specialised clouds that list it (a research note of May 2026 quotes TensorWave at $1.50, Vultr at $1.85 and a median of $1.99 over providers, with Azure and Oracle near $6). Its notes add that prices move month to month and “differ 2-4x between providers”: a reserved contract, a spot market or owned hardware can reorder the table. Walk the rows of the study and move the price: the cost follows it in proportion while the days and the energy stay put, and the break-even price says what an hour would have to cost to tie with the study’s cheapest run. The second chart draws every row’s cost against the price; where two lines cross, the ranking flips.',
  ],
  sources: [
    'arXiv 2507.02456, the follow-up of Kundu et al. 2024 (arXiv 2407.14645): the choice of accelerator as total cost.',
    'Mercatus, cloud GPU pricing guide, May 2026, “specialty” tier (mercatus-ai.com/blog/cloud-gpu-pricing): the A100 80GB, H100 SXM and H200 SXM rental ranges.',
    'Lyceum Technologies, “NVIDIA B200 GPU Cloud Pricing 2026”, March 2026: the B200 rental range.',
    'cliffcenter.com, research note “AMD inference economics”, 18 May 2026: MI300X rental prices (TensorWave $1.50, Vultr $1.85, median $1.99).',
    'Llama Team, “The Llama 3 Herd of Models”, arXiv 2407.21783, 2024: the model, and the interruption rate the system presets take for failures.',
    'Young, “A first order approximation to the optimum checkpoint interval”, CACM 1974; Daly, “A higher order estimate of the optimum checkpoint interval for restart dumps”, FGCS 2006.',
  ],
  widgets: [
    { id: 'row', label: 'Row of the study (GPU, system, precision, the study’s price)', kind: 'range', choices: choices(CA_ROWS, (i) => CA.rows[num(i)]?.label ?? String(i)), initial: 0 },
    { id: 'price', label: 'Rental price', kind: 'range', choices: choices(PRICES, priceLabel), initial: CA.rows[0]!.usd_per_gpu_hour },
  ],
  scenario: costScenario,
  baseline: (_v, data) => atStudyPrice(cheapestRow(data), data),
  shown: [
    { path: 'run.wall_days', label: 'Time to train (days, with checkpoints and failures)', q: 'count' },
    ROW.gpuHours,
    { path: 'run.energy_mwh', label: 'Energy at the meter (MWh)', q: 'count' },
    { path: 'run.cost_usd', label: 'Cost of the run', q: 'usd' },
    { path: 'run.usd_per_million_tokens', label: 'Cost per million tokens trained', q: 'usd' },
    { path: 'training.tokens_per_s', label: 'Training throughput (all GPUs)', q: 'tokens_rate' },
    ROW.mfu,
    { path: 'run.goodput', label: 'Goodput (useful share of the elapsed time)', q: 'ratio' },
    ROW.fits,
  ],
  derived: [
    { id: 'throughput_per_gpu', label: 'Training throughput per GPU', q: 'tokens_rate', of: (p) => share(p.training?.tokens_per_s, CA.num_devices) },
    { id: 'relative_cost', label: 'Cost over the study’s cheapest run', q: 'factor', of: (p, _v, ctx) => share(runCost(p), runCost(ctx.baseline)) },
    { id: 'break_even', label: 'Price per GPU-hour at which this run costs as much as the study’s cheapest', q: 'usd', of: (p, _v, ctx) => share(runCost(ctx.baseline), p.run?.gpu_hours) },
  ],
  chart: (p) => runWaterfallSpec(p),
  sweepTitle: 'Cost against the rental price',
  sweep: async (predict, data) => {
    const points: LineChartSpec['points'] = [];
    for (const row of CA_ROWS) {
      for (const price of pricesAround(row)) {
        const y = runCost(await predict(costScenario({ row, price }, data)));
        if (y !== undefined) points.push({ x: price, y, series: costRowName(row) });
      }
    }
    const cheapest = rowsOf(data).find((r) => r.cheapest === true)?.cost_usd;
    return {
      kind: 'lines',
      title: 'Cost of the whole run against the rental price per GPU-hour, per GPU and precision (engine)',
      xLabel: 'rental price',
      xUnit: 'USD per GPU-hour',
      yLabel: 'cost of the run',
      // Dollars on the ticks ("$10 M"), from zero: a cost compared by its height (probe 61).
      unit: 'USD',
      yFromZero: true,
      xCategorical: false,
      logX: false,
      logY: false,
      seriesLabel: 'GPU and precision',
      points,
      rules: typeof cheapest === 'number' ? [{ value: cheapest, label: 'the study’s cheapest run:' }] : undefined,
      note: 'Each line runs from half to twice the study’s price for its GPU. Below the dashed line, a run costs less than the study’s cheapest at the study’s prices.',
    };
  },
  exercises: [
    {
      id: 'cheapest-at-study-prices',
      question: 'At the study’s prices, which GPU and precision trains the model on all its tokens for the least money?',
      choices: choices(CA_ROWS, (i) => CA.rows[num(i)]?.label ?? String(i)),
      answer: (predict, data) => bestChoice(CA_ROWS, (i) => atStudyPrice(i, data), predict, runCost),
    },
    {
      id: 'old-gpu-break-even',
      question: `How cheap would the older GPU’s hour have to be? Give the highest price on the slider at which the run on the ${costRowName(CA_OLD)} costs less than on the ${costRowName(CA_NEW)}, rented at the study’s price.`,
      choices: choices(PRICES, priceLabel),
      answer: async (predict, data) => {
        if (CA_OLD < 0 || CA_NEW < 0) return null;
        const target = runCost(await predict(atStudyPrice(CA_NEW, data)));
        if (target === undefined) return null;
        return lastChoice(PRICES, (price) => costScenario({ row: CA_OLD, price }, data), predict, (p) => (runCost(p) ?? Infinity) < target);
      },
    },
  ],
};

/** The study lessons, in the order of the engine's studies (core/study study_list): the paper's, then the cost study. */
export const STUDY_LESSONS: LessonDef[] = [studyRecompute, studyGenerations, studyTechnology, studyMatmul, studyDram, studyCost];

