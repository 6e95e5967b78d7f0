// The lessons of the Learn view as data: each one a short text, the controls that change its
// scenario (widgets), the engine outputs it shows, a chart, and exercises whose answers are
// found by running the engine over the choices. Nothing here types in an engine number: every
// number a lesson shows comes from predict() at view time. Pure (no DOM), so the browser tests
// import it to compute what a lesson must show (e2e/page.e2e.ts).
import type { Prediction } from '../engine/types';
import { inferenceTimeSpec, memorySpec, rooflineSpec, runWaterfallSpec, servingStepTimeSpec, servingTimelineSpec, trainingTimeSpec, type LineChartSpec } from '../charts/specs';
import { bestChoice, choices, firstChoice, labelled, lastChoice, ROW, num, share, type LessonDef, type Predictor, type Values, type WidgetValue } from './lesson-kit';
import { rlLesson } from './rl-lesson';
import { STUDY_LESSONS } from './study-lessons';

export * from './lesson-kit';

// ---- 1. Where training time goes ---------------------------------------------------------------

const SYSTEMS = ['dgx-a100-80gb', 'dgx-h100', 'dgx-b200'];
const SYSTEM_LABELS: Record<string, string> = { 'dgx-a100-80gb': 'DGX A100 80GB', 'dgx-h100': 'DGX H100', 'dgx-b200': 'DGX B200' };

function trainingTimeScenario(v: Values): Record<string, unknown> {
  const tp = num(v.tp);
  return {
    schema_version: 1,
    name: `Llama 3 70B on 64 GPUs (${SYSTEM_LABELS[String(v.system)] ?? v.system}), tp${tp} pp2`,
    model: 'llama3-70b',
    system: String(v.system),
    num_devices: 64,
    parallel: { tp, pp: 2, dp: 32 / tp, sequence_parallel: true, micro_batch: 1, interleave: 1, recompute: 'selective', zero_stage: 1 },
    training: { global_batch: 512, seq_len: 8192, precision: 'bf16' },
  };
}

const trainingTime: LessonDef = {
  name: 'training-time',
  title: 'Where training time goes, and why MFU is not 100 %',
  summary: 'Compute, communication and the pipeline bubble in one training step; model FLOPs utilisation.',
  paragraphs: [
    'A training step is mostly matrix multiplications, but not only. Each GPU also waits: for the tensor-parallel partners to exchange partial results inside every layer, for the previous pipeline stage to hand over activations, for the data-parallel ranks to average gradients, and at the start and end of the step for the pipeline to fill and drain (the bubble). The engine times each of these and reports what stays exposed, that is, what is not hidden behind computation.',
    'Model FLOPs utilisation (MFU) divides the useful arithmetic of the step (the FLOPs the model needs, not counting recomputation) by what the GPUs could do at their peak in the same time. It stays below one for two reasons you can see here: the exposed waits add time without adding useful FLOPs, and even the matrix multiplications run below the data-sheet peak (memory-bound element-wise kernels and imperfect GEMM efficiency). Chowdhery et al. introduced MFU in the PaLM paper precisely because hardware utilisation counts recomputed work as useful.',
    'Move the tensor-parallel size: more tp splits each matrix over more GPUs, which shrinks the memory per GPU but exchanges activations twice per layer in each direction. Change the system to see how faster chips make the same communication a larger share of the step.',
  ],
  sources: [
    'Chowdhery et al., “PaLM: Scaling Language Modeling with Pathways”, 2022, Appendix B (model FLOPs utilisation).',
    'Narayanan et al., “Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM”, SC 2021.',
    'Kundu et al., “Performance Modeling and Workload Analysis of Distributed Large Language Model Training and Inference”, arXiv 2407.14645, 2024.',
  ],
  widgets: [
    { id: 'system', label: 'System', kind: 'select', choices: labelled(SYSTEMS, SYSTEM_LABELS), initial: 'dgx-h100' },
    { id: 'tp', label: 'Tensor-parallel size (tp; dp = 32 / tp)', kind: 'range', choices: choices([2, 4, 8]), initial: 8 },
  ],
  scenario: trainingTimeScenario,
  shown: [
    ROW.iterationTime,
    ROW.mfu,
    ROW.compute,
    ROW.tpComm,
    { path: 'training.breakdown_s.dp_comm', label: 'Exposed DP communication', q: 'seconds' },
    ROW.bubble,
    { path: 'memory.fits', label: 'Fits in GPU memory', q: 'bool' },
  ],
  derived: [
    { id: 'compute_share', label: 'Share of the step spent computing', q: 'ratio', of: (p) => share(p.training?.breakdown_s.compute, p.training?.iteration_time_s) },
    { id: 'waiting_share', label: 'Share spent waiting (communication, bubble, optimizer)', q: 'ratio', of: (p) => { const t = p.training; return t ? share(t.iteration_time_s - t.breakdown_s.compute - t.breakdown_s.recompute, t.iteration_time_s) : null; } },
  ],
  chart: (p) => trainingTimeSpec(p),
  exercises: [
    {
      id: 'best-tp-h100',
      question: 'On the DGX H100, which tensor-parallel size gives the highest MFU among the layouts that fit in GPU memory?',
      choices: choices([2, 4, 8]),
      answer: (predict) => bestChoice([2, 4, 8], (tp) => trainingTimeScenario({ system: 'dgx-h100', tp }), predict, (p) => (p.memory.fits ? -(p.training?.mfu ?? 0) : undefined)),
    },
    {
      id: 'most-tp-comm',
      question: 'At tensor-parallel size 8, on which system is the exposed TP communication the largest share of the step?',
      choices: labelled(SYSTEMS, SYSTEM_LABELS),
      answer: (predict) => bestChoice(SYSTEMS, (system) => trainingTimeScenario({ system, tp: 8 }), predict, (p) => -(share(p.training?.breakdown_s.tp_comm, p.training?.iteration_time_s) ?? 0)),
    },
  ],
};

// ---- 2. Pipeline bubble --------------------------------------------------------------------------

const PIPELINE_STAGES = 8;
const MICRO_BATCHES = [8, 12, 16, 24, 32, 48, 64, 96, 128];
/** Llama 3 70B has 80 layers: 10 per stage, so a stage can hold 1, 2 or 5 chunks. */
const INTERLEAVE = [1, 2, 5];

function pipelineScenario(v: Values): Record<string, unknown> {
  const m = num(v.micro_batches);
  const il = num(v.interleave);
  return {
    schema_version: 1,
    name: `Llama 3 70B on 64 H100, tp8 pp${PIPELINE_STAGES}, ${m} micro-batches, interleave ${il}`,
    model: 'llama3-70b',
    system: 'dgx-h100',
    num_devices: 64,
    parallel: { tp: 8, pp: PIPELINE_STAGES, dp: 64 / 8 / PIPELINE_STAGES, sequence_parallel: true, micro_batch: 1, interleave: il, recompute: 'selective', zero_stage: 1 },
    training: { global_batch: m, seq_len: 4096, precision: 'bf16' },
  };
}

const bubbleShare = (p: Prediction): number | null => share(p.training?.breakdown_s.bubble, p.training?.iteration_time_s);

const pipelineBubble: LessonDef = {
  name: 'pipeline-bubble',
  title: 'The pipeline bubble: micro-batches and interleaving',
  summary: 'Why a pipeline idles at the start and end of each step, and how more micro-batches or interleaved stages shrink that idle time.',
  paragraphs: [
    'Pipeline parallelism cuts the model’s layers into p consecutive stages, one per group of GPUs. A batch is split into m micro-batches that flow through the stages one after another. At the start of a step the last stages have nothing to do until the first micro-batch reaches them, and at the end the first stages sit idle while the last micro-batches drain: this idle time is the bubble.',
    'With the one-forward-one-backward schedule, the bubble lasts p − 1 micro-batch times while the useful work lasts m of them, so the bubble relative to the useful time is (p − 1) / m. Interleaving gives each GPU v smaller chunks of layers instead of one contiguous block; the pipeline then fills v times faster and the ratio becomes (p − 1) / (v · m), at the price of v times more point-to-point sends between stages.',
    'Here Llama 3 70B trains on 64 H100 GPUs with eight pipeline stages and one micro-batch of one sequence per step slot. Move the number of micro-batches and the interleave and compare the engine’s bubble with the textbook ratio.',
  ],
  sources: [
    'Huang et al., “GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism”, NeurIPS 2019.',
    'Narayanan et al., “Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM”, SC 2021, Section 2.2 (the bubble fraction (p − 1)/m and, interleaved, (p − 1)/(v·m)).',
  ],
  widgets: [
    { id: 'micro_batches', label: 'Micro-batches per step (m)', kind: 'range', choices: choices(MICRO_BATCHES), initial: 16 },
    { id: 'interleave', label: 'Model chunks per GPU (interleave v)', kind: 'select', choices: choices(INTERLEAVE), initial: 1 },
  ],
  scenario: pipelineScenario,
  shown: [
    ROW.iterationTime,
    ROW.bubble,
    { path: 'training.micro_batches', label: 'Micro-batches (engine)', q: 'count' },
    { path: 'training.breakdown_s.pp_comm', label: 'Exposed pipeline sends', q: 'seconds' },
    ROW.mfu,
  ],
  derived: [
    { id: 'bubble_share', label: 'Bubble share of the iteration', q: 'ratio', of: bubbleShare },
    { id: 'bubble_ratio', label: 'Bubble ÷ the rest of the iteration (engine)', q: 'ratio', of: (p) => { const t = p.training; return t ? share(t.breakdown_s.bubble, t.iteration_time_s - t.breakdown_s.bubble) : null; } },
    { id: 'textbook_ratio', label: 'Textbook (p − 1) / (v · m)', q: 'ratio', of: (_p, v) => (PIPELINE_STAGES - 1) / (num(v.interleave) * num(v.micro_batches)) },
  ],
  chart: (p) => trainingTimeSpec(p),
  sweep: async (predict) => {
    const points: LineChartSpec['points'] = [];
    for (const il of INTERLEAVE) {
      for (const m of MICRO_BATCHES) {
        const p = await predict(pipelineScenario({ micro_batches: m, interleave: il }));
        const b = p ? bubbleShare(p) : null;
        if (b !== null) points.push({ x: m, y: b * 100, series: `v = ${il}` });
      }
    }
    return {
      kind: 'lines',
      title: 'Bubble share of the iteration against micro-batches, per interleave (engine)',
      xLabel: 'micro-batches per step (m)',
      yLabel: 'bubble share of the iteration',
      xCategorical: false,
      unit: '%',
      xUnit: '',
      logX: true,
      logY: false,
      seriesLabel: 'interleave',
      points,
    };
  },
  exercises: [
    {
      id: 'smallest-m',
      question: 'Without interleaving (v = 1), what is the smallest number of micro-batches on the slider that keeps the bubble under 10 % of the iteration?',
      choices: choices(MICRO_BATCHES),
      answer: (predict) => firstChoice(MICRO_BATCHES, (m) => pipelineScenario({ micro_batches: m, interleave: 1 }), predict, (p) => (bubbleShare(p) ?? 1) < 0.1),
    },
    {
      id: 'fastest-interleave',
      question: `With the slider's fewest micro-batches (${MICRO_BATCHES[0]}), which interleave gives the shortest iteration?`,
      choices: choices(INTERLEAVE),
      answer: (predict) => bestChoice(INTERLEAVE, (il) => pipelineScenario({ micro_batches: MICRO_BATCHES[0]!, interleave: il }), predict, (p) => p.training?.iteration_time_s),
    },
  ],
};

// ---- 3. Activation memory and recomputation ---------------------------------------------------

const RECOMPUTE = ['none', 'selective', 'full'];

function activationScenario(v: Values): Record<string, unknown> {
  return {
    schema_version: 1,
    name: `Llama 3 70B on 64 H100, micro-batch ${v.micro_batch}, recompute ${v.recompute}, sequence parallel ${v.sequence_parallel}`,
    model: 'llama3-70b',
    system: 'dgx-h100',
    num_devices: 64,
    parallel: { tp: 8, pp: 2, dp: 4, sequence_parallel: v.sequence_parallel === 'on', micro_batch: num(v.micro_batch), interleave: 1, recompute: String(v.recompute), zero_stage: 1 },
    training: { global_batch: 512, seq_len: 8192, precision: 'bf16' },
  };
}

const activationMemory: LessonDef = {
  name: 'activation-memory',
  title: 'Activation memory and recomputation',
  summary: 'What the backward pass must keep, and what recomputing it costs: none, selective and full recomputation, with and without sequence parallelism.',
  paragraphs: [
    'The backward pass needs the inputs of every layer’s operations from the forward pass. Stored naively, these activations grow with the micro-batch, the sequence length and the hidden size, and for large models they outgrow the weights and optimizer state together.',
    'Recomputation trades arithmetic for memory. Full recomputation keeps only each layer’s input and runs the forward pass of the layer again during the backward pass: one more forward pass per step. Selective recomputation keeps everything except the attention scores and softmax, which are large but cheap to recompute; with a fused (flash) attention kernel those are never stored anyway, so selective then costs nothing and saves nothing more. Sequence parallelism splits the normalisation and dropout activations, which tensor parallelism leaves replicated, over the tensor-parallel GPUs.',
    'Change the policy, the micro-batch and sequence parallelism, and watch the activations, the total memory against the GPU’s capacity, and the recomputation time.',
  ],
  sources: [
    'Korthikanti et al., “Reducing Activation Recomputation in Large Transformer Models”, MLSys 2023, Table 2 (activation memory per layer for each combination).',
    'Chen et al., “Training Deep Nets with Sublinear Memory Cost”, 2016 (gradient checkpointing).',
    'Dao et al., “FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness”, NeurIPS 2022.',
  ],
  widgets: [
    { id: 'recompute', label: 'Recomputation', kind: 'select', choices: choices(RECOMPUTE), initial: 'selective' },
    { id: 'micro_batch', label: 'Sequences per micro-batch', kind: 'range', choices: choices([1, 2, 4]), initial: 1 },
    { id: 'sequence_parallel', label: 'Sequence parallelism', kind: 'select', choices: choices(['on', 'off']), initial: 'on' },
  ],
  scenario: activationScenario,
  shown: [
    ROW.activations,
    { path: 'memory.per_device_bytes.total', label: 'Total memory per GPU', q: 'bytes' },
    ROW.capacity,
    ROW.fits,
    ROW.recompute,
    ROW.iterationTime,
  ],
  derived: [
    { id: 'activation_share', label: 'Activations share of the memory used', q: 'ratio', of: (p) => share(p.memory.per_device_bytes.activations, p.memory.per_device_bytes.total) },
  ],
  chart: (p) => memorySpec(p),
  exercises: [
    {
      id: 'fastest-fitting',
      question: 'With sequence parallelism off and two sequences per micro-batch, which policy gives the shortest iteration among those that fit in GPU memory?',
      choices: choices(RECOMPUTE),
      answer: (predict) =>
        bestChoice(RECOMPUTE, (recompute) => activationScenario({ recompute, micro_batch: 2, sequence_parallel: 'off' }), predict, (p) => (p.memory.fits ? p.training?.iteration_time_s : undefined)),
    },
  ],
};

// ---- 6. Inference: prefill and decode ----------------------------------------------------------

const BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256];

function inferenceScenario(v: Values): Record<string, unknown> {
  return {
    schema_version: 1,
    name: `Llama 3.1 70B on 8 H100 (tp8), batch ${v.batch}, prompt ${v.prompt_len}`,
    model: 'llama3.1-70b',
    system: 'dgx-h100',
    num_devices: 8,
    parallel: { tp: 8 },
    inference: { batch: num(v.batch), prompt_len: num(v.prompt_len), output_len: 256, precision: 'bf16' },
  };
}

/** Share of a phase's operator time (count × time) spent in operators of one bound. */
function boundShare(p: Prediction, phase: string, bound: string): number | null {
  const ops = p.inference?.operators?.filter((o) => o.phase === phase) ?? [];
  let all = 0;
  let part = 0;
  for (const o of ops) {
    const t = o.time_s * (o.count ?? 1);
    all += t;
    if (o.bound === bound) part += t;
  }
  return all > 0 ? part / all : null;
}

const inference: LessonDef = {
  name: 'inference-roofline',
  title: 'Inference: prefill is compute-bound, decode is memory-bound',
  summary: 'The roofline of one generation step, with the batch as a slider: what batching buys in decode.',
  paragraphs: [
    'Serving a request has two phases. Prefill runs the whole prompt through the model at once: every weight read from memory is used for all prompt tokens, so the matrix multiplications do many operations per byte and are limited by the GPU’s arithmetic. Decode then produces one token per step for each sequence of the batch: every weight must be read again for a single token per sequence, so the step is limited by memory bandwidth.',
    'The roofline model makes this precise: an operation with arithmetic intensity I (FLOPs per byte moved) can run at most at min(peak FLOP/s, I × memory bandwidth). Below the ridge point the memory roof binds. Batching raises decode’s intensity, because the same weights serve more sequences, so throughput grows almost for free until the operations approach the ridge or the KV cache fills the memory.',
    'Move the batch and watch the time per output token barely move while the throughput climbs; the roofline chart places each operator of prefill and decode against the H100’s roofs.',
  ],
  sources: [
    'Williams, Waterman and Patterson, “Roofline: An Insightful Visual Performance Model for Multicore Architectures”, CACM 2009.',
    'Pope et al., “Efficiently Scaling Transformer Inference”, MLSys 2023.',
    'Kundu et al., arXiv 2407.14645, 2024 (matmul boundedness of prefill and decode).',
  ],
  widgets: [
    { id: 'batch', label: 'Batch (sequences generated together)', kind: 'range', choices: choices(BATCHES), initial: 16 },
    { id: 'prompt_len', label: 'Prompt length (tokens)', kind: 'select', choices: choices([512, 2048, 8192]), initial: 2048 },
  ],
  scenario: inferenceScenario,
  shown: [
    ROW.prefillTtft,
    ROW.decodeStepTpot,
    { path: 'inference.throughput_tokens_per_s', label: 'Throughput', q: 'tokens_rate' },
    ROW.kvCache,
    ROW.inferenceFits,
  ],
  derived: [
    { id: 'prefill_compute_share', label: 'Prefill time in compute-bound operators', q: 'ratio', of: (p) => boundShare(p, 'prefill', 'compute') },
    { id: 'decode_memory_share', label: 'Decode time in memory-bound operators', q: 'ratio', of: (p) => boundShare(p, 'decode', 'memory') },
  ],
  needsResolved: true,
  chart: (p, resolved) => rooflineSpec(p, resolved) ?? inferenceTimeSpec(p, 256),
  exercises: [
    {
      id: 'largest-cheap-batch',
      question: 'With a prompt of 2048 tokens, what is the largest batch on the slider whose time per output token stays within 10 % of batch 1’s?',
      choices: choices(BATCHES),
      answer: async (predict) => {
        const one = (await predict(inferenceScenario({ batch: 1, prompt_len: 2048 })))?.inference?.tpot_s;
        if (one === undefined) return null;
        return lastChoice(BATCHES, (batch) => inferenceScenario({ batch, prompt_len: 2048 }), predict, (p) => (p.inference?.tpot_s ?? Infinity) <= 1.1 * one);
      },
    },
  ],
};

// ---- 7. KV cache at long context ----------------------------------------------------------------

const KV_MODELS = ['llama3.1-70b', 'llama3.1-405b', 'gpt3-175b', 'deepseek-v3'];
const KV_MODEL_LABELS: Record<string, string> = {
  'llama3.1-70b': 'Llama 3.1 70B (GQA)',
  'llama3.1-405b': 'Llama 3.1 405B (GQA)',
  'gpt3-175b': 'GPT-3 175B (multi-head)',
  'deepseek-v3': 'DeepSeek-V3 (MLA)',
};
const CONTEXTS = [2048, 8192, 32768, 131072];
const KV_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256];

function kvScenario(v: Values): Record<string, unknown> {
  return {
    schema_version: 1,
    name: `${KV_MODEL_LABELS[String(v.model)] ?? v.model} on 8 H200 (tp8, fp8), batch ${v.batch}, prompt ${v.prompt_len}`,
    model: String(v.model),
    system: 'dgx-h200',
    num_devices: 8,
    parallel: { tp: 8 },
    inference: { batch: num(v.batch), prompt_len: num(v.prompt_len), output_len: 256, precision: 'fp8' },
  };
}

/** KV cache bytes per token of context on one GPU (the cache over batch × (prompt + output)). */
const kvPerToken = (p: Prediction, v: Values): number | null => share(p.inference?.memory?.per_device_bytes.kv_cache, num(v.batch) * (num(v.prompt_len) + 256));

const kvCache: LessonDef = {
  name: 'kv-cache',
  title: 'The KV cache at long context: GQA, MLA and the largest batch',
  summary: 'Why long prompts fill GPU memory, how grouped-query and multi-head latent attention shrink the cache, and how large a batch still fits.',
  paragraphs: [
    'To produce each new token, attention looks back at the keys and values of every earlier token of the sequence. Recomputing them at each step would be wasteful, so they are kept: the KV cache. It grows with the number of layers, the number of key/value heads and their size, the context length and the batch, and unlike the weights it is paid once per sequence.',
    'Multi-head attention keeps one key and one value per head. Grouped-query attention (GQA) lets several query heads share one key/value head, dividing the cache by the group size. Multi-head latent attention (MLA, introduced with DeepSeek-V2) stores one small compressed latent vector per token and layer instead, from which the keys and values are re-expanded.',
    'The engine sizes the cache from each model’s attention variant. Move the context and the batch: the weights stay put while the cache grows until the GPUs run out of memory; the largest batch the engine finds for the chosen context is shown too.',
  ],
  sources: [
    'Ainslie et al., “GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints”, EMNLP 2023.',
    'DeepSeek-AI, “DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model”, 2024 (multi-head latent attention).',
    'Pope et al., “Efficiently Scaling Transformer Inference”, MLSys 2023.',
  ],
  widgets: [
    { id: 'model', label: 'Model', kind: 'select', choices: labelled(KV_MODELS, KV_MODEL_LABELS), initial: 'llama3.1-70b' },
    { id: 'prompt_len', label: 'Prompt length (tokens)', kind: 'range', choices: choices(CONTEXTS), initial: 8192 },
    { id: 'batch', label: 'Batch (sequences)', kind: 'range', choices: choices(KV_BATCHES), initial: 16 },
  ],
  scenario: kvScenario,
  shown: [
    ROW.kvCache,
    { path: 'inference.memory.per_device_bytes.weights', label: 'Weights per GPU', q: 'bytes' },
    { path: 'inference.memory.per_device_bytes.total', label: 'Total per GPU', q: 'bytes' },
    ROW.inferenceCapacity,
    ROW.inferenceFits,
    { path: 'inference.max_batch', label: 'Largest batch that fits (engine)', q: 'count' },
    ROW.tpot,
  ],
  derived: [{ id: 'kv_bytes_per_token', label: 'KV cache per token of context, per GPU', q: 'bytes', of: kvPerToken }],
  chart: (p) => memorySpec(p),
  exercises: [
    {
      id: 'smallest-kv',
      question: `At a context of ${CONTEXTS[2]} tokens, which model keeps the least KV cache per token on each GPU?`,
      choices: labelled(KV_MODELS, KV_MODEL_LABELS),
      answer: (predict) => {
        const at = { prompt_len: CONTEXTS[2]!, batch: 1 };
        return bestChoice(KV_MODELS, (model) => kvScenario({ ...at, model }), predict, (p) => kvPerToken(p, at) ?? undefined);
      },
    },
    {
      id: 'largest-batch',
      question: `Llama 3.1 70B at a context of ${CONTEXTS[2]} tokens: what is the largest batch on the slider that fits in the GPUs’ memory?`,
      choices: choices(KV_BATCHES),
      answer: (predict) => lastChoice(KV_BATCHES, (batch) => kvScenario({ model: 'llama3.1-70b', prompt_len: CONTEXTS[2]!, batch }), predict, (p) => p.inference?.memory?.fits === true),
    },
  ],
};

// ---- 8. Mixture of experts ------------------------------------------------------------------------

const MOE_MODELS = ['qwen3-30b-a3b', 'mixtral-8x7b'];
const MOE_LABELS: Record<string, string> = { 'qwen3-30b-a3b': 'Qwen3-30B-A3B', 'mixtral-8x7b': 'Mixtral 8x7B' };
const EP = [1, 2, 4, 8];

function moeScenario(v: Values): Record<string, unknown> {
  return {
    schema_version: 1,
    name: `${MOE_LABELS[String(v.model)] ?? v.model} on 64 H100, ep${v.ep} over dp64`,
    model: String(v.model),
    system: 'dgx-h100',
    num_devices: 64,
    parallel: { tp: 1, pp: 1, ep: num(v.ep), dp: 64, micro_batch: 1, zero_stage: 1 },
    training: { global_batch: 512, seq_len: 4096, precision: 'bf16' },
  };
}

const moe: LessonDef = {
  name: 'mixture-of-experts',
  title: 'Mixture of experts: active and total parameters, expert parallelism and the all-to-all',
  summary: 'Why an MoE model computes like a small model but stores like a large one, and what spreading its experts over GPUs costs.',
  paragraphs: [
    'A mixture-of-experts (MoE) layer replaces the one feed-forward block of a transformer layer with many smaller ones, the experts, and a router that sends each token to only a few of them. The model therefore holds many parameters (all experts) but each token uses only the active ones, so its arithmetic per token is that of a much smaller dense model.',
    'Holding all experts on every GPU costs memory, and each expert then sees only the few tokens of that GPU’s micro-batch, which makes its matrix multiplications small and inefficient. Expert parallelism (ep) spreads the experts over ep GPUs of the data-parallel group: each GPU keeps 1/ep of them and receives the tokens routed to its experts from the other GPUs. That exchange is two all-to-all collectives per MoE layer (dispatch and combine), in the forward and again in the backward pass.',
    'Move the expert-parallel size and watch the memory per GPU fall, the tokens per expert rise, and the all-to-all appear in the breakdown.',
  ],
  sources: [
    'Shazeer et al., “Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer”, ICLR 2017.',
    'Lepikhin et al., “GShard: Scaling Giant Models with Conditional Computation and Automatic Sharding”, ICLR 2021 (expert parallelism and the all-to-all).',
    'Fedus, Zoph and Shazeer, “Switch Transformers”, JMLR 2022.',
  ],
  widgets: [
    { id: 'model', label: 'Model', kind: 'select', choices: labelled(MOE_MODELS, MOE_LABELS), initial: 'qwen3-30b-a3b' },
    { id: 'ep', label: 'Expert-parallel size (ep)', kind: 'range', choices: choices(EP), initial: 1 },
  ],
  scenario: moeScenario,
  shown: [
    { path: 'params.total', label: 'Parameters (total)', q: 'params' },
    { path: 'params.active', label: 'Parameters used per token', q: 'params' },
    { path: 'training.moe.tokens_per_expert', label: 'Tokens per expert (per micro-batch)', q: 'count' },
    { path: 'training.moe.expert_params_per_device', label: 'Expert parameters per GPU', q: 'params' },
    { path: 'training.breakdown_s.ep_comm', label: 'Exposed expert all-to-all', q: 'seconds' },
    ROW.iterationTime,
    ROW.mfu,
    ROW.memoryPerGpu,
    ROW.fits,
  ],
  derived: [{ id: 'active_share', label: 'Active share of the parameters', q: 'ratio', of: (p) => share(p.params?.active, p.params?.total) }],
  chart: (p) => trainingTimeSpec(p),
  exercises: [
    {
      id: 'fastest-ep',
      question: 'For Qwen3-30B-A3B, which expert-parallel size gives the shortest iteration?',
      choices: choices(EP),
      answer: (predict) => bestChoice(EP, (ep) => moeScenario({ model: 'qwen3-30b-a3b', ep }), predict, (p) => p.training?.iteration_time_s),
    },
    {
      id: 'smallest-fitting-ep',
      question: 'For Mixtral 8x7B, what is the smallest expert-parallel size that fits in GPU memory?',
      choices: choices(EP),
      answer: (predict) => firstChoice(EP, (ep) => moeScenario({ model: 'mixtral-8x7b', ep }), predict, (p) => p.memory.fits),
    },
  ],
};

// ---- 9. Serving a large MoE model: tensor or attention data parallelism ---------------------------

const DEP_MODELS = ['deepseek-v3', 'qwen3-235b-a22b'];
const DEP_MODEL_LABELS: Record<string, string> = { 'deepseek-v3': 'DeepSeek-V3 (MLA)', 'qwen3-235b-a22b': 'Qwen3-235B-A22B (GQA)' };
const DEP_LAYOUTS = ['tp8', 'tp8-ep8', 'dp4-tp2-ep8', 'dp8-ep8'];
const DEP_LAYOUT_LABELS: Record<string, string> = {
  tp8: 'TP8: every expert split over 8 GPUs',
  'tp8-ep8': 'TP8 EP8: attention split, experts whole, 1/8 per GPU',
  'dp4-tp2-ep8': 'DP4 × TP2 EP8: four replicas of 2 GPUs attend to their own requests, 1/8 of the experts per GPU',
  'dp8-ep8': 'DP8 EP8: attention data parallel, 1/8 of the experts per GPU',
};

const DEP_LAYOUT_CHOICES = labelled(DEP_LAYOUTS, DEP_LAYOUT_LABELS);

function depParallel(layout: string): Record<string, number> {
  if (layout === 'dp8-ep8') return { tp: 1, pp: 1, dp: 8, ep: 8 };
  if (layout === 'dp4-tp2-ep8') return { tp: 2, pp: 1, dp: 4, ep: 8 };
  if (layout === 'tp8-ep8') return { tp: 8, pp: 1, dp: 1, ep: 8 };
  return { tp: 8, pp: 1, dp: 1 };
}

function depScenario(v: Values): Record<string, unknown> {
  return {
    schema_version: 1,
    name: `${DEP_MODEL_LABELS[String(v.model)] ?? v.model} served on 8 H200 (fp8), ${DEP_LAYOUT_LABELS[String(v.layout)] ?? v.layout}; 800 requests of 1024 tokens in and out, all at once`,
    model: String(v.model),
    system: 'dgx-h200',
    num_devices: 8,
    parallel: depParallel(String(v.layout)),
    inference: {
      prompt_len: 1024,
      output_len: 1024,
      precision: 'fp8',
      kv_precision: 'fp8',
      serving: { arrival: 'offline', num_requests: 800, input_len: 1024, output_len: 1024 },
    },
  };
}

/** Tokens of KV cache the whole deployment holds: a replica's budget times the replicas. */
const depKvTokens = (p: Prediction): number | null => {
  const sv = p.serving;
  return sv ? sv.kv_capacity_tokens * sv.replicas : null;
};

const attentionDataParallel: LessonDef = {
  name: 'moe-serving-layouts',
  title: 'Serving a large MoE model: tensor parallelism or attention data parallelism',
  summary: 'Why DeepSeek-style models are served with each GPU attending to its own requests while the experts are spread over all of them.',
  paragraphs: [
    'A large mixture-of-experts model does not fit on one GPU, so its weights are spread over several. Tensor parallelism (tp) splits every matrix, attention included, over the GPUs of a replica; all of them work on the same requests and add up their partial results after each layer.',
    'The experts can instead stay whole and be spread over the GPUs (expert parallelism, ep): each GPU holds 1/ep of them and receives, from the others, the tokens routed to its experts. With attention data parallelism every GPU also runs attention and the dense layers on its own requests with the whole (small) attention weights, so there is no tensor-parallel all-reduce and, above all, each GPU keeps the KV cache of its own requests only.',
    'That matters most for multi-head latent attention (MLA): its cache is one compressed vector per token and layer that every attention head needs, so under tensor parallelism each GPU must keep the whole of it for every request, and eight GPUs hold the cache of only as many requests as one. DeepSeek decodes this way (its V3 report), and TensorRT-LLM, SGLang and vLLM call it attention DP or DEP. Between the two sit replicas of a few GPUs each, with tensor-parallel attention inside and the experts spread over all of them (vLLM: --data-parallel-size 4 --tensor-parallel-size 2 --enable-expert-parallel). Compare the layouts for both models: the KV tokens the deployment holds, the requests running at once, and the tokens served per second.',
  ],
  sources: [
    'DeepSeek-AI, “DeepSeek-V3 Technical Report”, 2024, Sec. 3.4 (inference and deployment).',
    'Lepikhin et al., “GShard: Scaling Giant Models with Conditional Computation and Automatic Sharding”, ICLR 2021 (expert parallelism).',
    'NVIDIA TensorRT-LLM performance overview (attention data parallelism, “DEP” layouts).',
  ],
  widgets: [
    { id: 'model', label: 'Model', kind: 'select', choices: labelled(DEP_MODELS, DEP_MODEL_LABELS), initial: 'deepseek-v3' },
    { id: 'layout', label: 'Layout on 8 GPUs', kind: 'select', choices: DEP_LAYOUT_CHOICES, initial: 'tp8-ep8' },
  ],
  scenario: depScenario,
  shown: [
    { path: 'serving.output_tokens_per_s_per_gpu', label: 'Output tokens per second per GPU', q: 'tokens_rate' },
    { path: 'serving.mean_batch', label: 'Requests running at once (per replica, mean)', q: 'count' },
    { path: 'serving.replicas', label: 'Replicas (independent attention groups)', q: 'count' },
    { path: 'serving.kv_capacity_tokens', label: 'KV cache per replica', q: 'count' },
    { path: 'serving.tpot_s.mean', label: 'Time per output token (mean)', q: 'seconds' },
    ROW.weights,
  ],
  derived: [{ id: 'deployment_kv_tokens', label: 'Tokens of KV cache the 8 GPUs hold', q: 'count', of: depKvTokens }],
  chart: (p) => servingTimelineSpec(p),
  exercises: [
    {
      id: 'fastest-deepseek-layout',
      question: 'For DeepSeek-V3, which layout serves the most output tokens per second?',
      choices: DEP_LAYOUT_CHOICES,
      answer: (predict) =>
        bestChoice(DEP_LAYOUTS, (layout) => depScenario({ model: 'deepseek-v3', layout }), predict, (p) => {
          const t = p.serving?.output_tokens_per_s_per_gpu;
          return t ? -t : undefined;
        }),
    },
    {
      id: 'most-kv-qwen',
      question: 'For Qwen3-235B-A22B, which layout holds the most tokens of KV cache across the 8 GPUs?',
      choices: DEP_LAYOUT_CHOICES,
      answer: (predict) =>
        bestChoice(DEP_LAYOUTS, (layout) => depScenario({ model: 'qwen3-235b-a22b', layout }), predict, (p) => {
          const k = depKvTokens(p);
          return k ? -k : undefined;
        }),
    },
  ],
};

// ---- Software stacks: one run on two of them ---------------------------------------------------

const STACKS = ['nvidia', 'meta-llama3'];
const STACK_LABELS: Record<string, string> = { nvidia: 'NVIDIA’s (Megatron-Core / NeMo, the DGX H100 default)', 'meta-llama3': 'Meta’s Llama 3 stack (fitted on its Table 4)' };
const STACK_GPUS = [8192, 16384];
const STACK_INTERLEAVE = [1, 2, 4, 8];
const STACK_SLOWDOWNS = [1.05, 1.25, 1.5, 2];

function stackScenario(v: Values): Record<string, unknown> {
  const gpus = num(v.gpus);
  const s: Record<string, unknown> = {
    schema_version: 1,
    name: `Llama 3 405B on ${gpus} H100, tp8 pp16 (interleave ${v.interleave}), ${String(v.stack) === 'nvidia' ? 'NVIDIA' : 'Meta'} stack`,
    model: 'llama3.1-405b',
    system: 'dgx-h100',
    num_devices: gpus,
    parallel: { tp: 8, pp: 16, dp: gpus / 128, interleave: num(v.interleave), micro_batch: 1, recompute: 'none', zero_stage: 1 },
    training: { global_batch: 2048, seq_len: 8192, precision: 'bf16', train_tokens: 15.6e12 },
  };
  if (String(v.stack) !== 'nvidia') s.software = String(v.stack);
  return s;
}

/** MFU at 8,192 GPUs over MFU at 16,384 for one stack and interleave: what doubling the GPUs costs. */
async function scalingLoss(predict: Predictor, stack: WidgetValue, interleave: WidgetValue): Promise<number | undefined> {
  const small = await predict(stackScenario({ stack, gpus: STACK_GPUS[0]!, interleave }));
  const large = await predict(stackScenario({ stack, gpus: STACK_GPUS[1]!, interleave }));
  const a = small?.training?.mfu, b = large?.training?.mfu;
  return typeof a === 'number' && typeof b === 'number' && b > 0 ? a / b : undefined;
}

const softwareStacks: LessonDef = {
  name: 'software-stacks',
  title: 'One run, two software stacks: Llama 3 405B on 16,384 H100',
  summary: 'The same layout on the same GPUs at 50% MFU on one stack and 41% on another, and what that does to the days and GPU-hours of a run.',
  paragraphs: [
    'Meta trained Llama 3 405B on up to 16,384 H100 with tensor parallelism 8 inside a server and 16 pipeline stages, and published what each configuration reached: 430 BF16 TFLOP/s per GPU on 8,192 GPUs, 400 on 16,384 (41% MFU), 380 with 128K-token sequences. NVIDIA’s own stack (Megatron-Core, NeMo) runs the same kind of layout at about 50% MFU in the engine, and the engine is within 2% of NVIDIA’s published runs at that scale (Nemotron-4 340B on 6,144 H100). The difference is the software stack and the cluster it runs on: kernels, fabric, how the pieces overlap.',
    'A calculator cannot see inside Meta’s stack, but it can be told how fast that stack’s matrix multiplications run compared with NVIDIA’s: the software profile meta-llama3 carries one number, the share of the device’s matmul rate its kernels reach (0.75), fitted on exactly those three published configurations. Everything else (the pipeline bubble, the communication, the memory) stays the engine’s physics. At that rate the profile predicts the 405B model card’s 30.84 million GPU-hours within 1%, a number it was not fitted on. The whole run shown here also carries the H100 systems’ production efficiency (0.69: the share of the modelled rate other makers’ published runs sustained), which puts it about 45% above the card: Table 4 was measured on this very run, so its MFU already holds most of what that share takes away. Set the share to 1 (system, operations) to see the card’s figure.',
    'Switch the stack and watch the step time, the MFU and the whole run (15.6T tokens) move. Then change the interleave (the virtual pipeline stages per GPU): with a 16M-token batch, 16,384 GPUs give each pipeline only 16 micro-batches, and the bubble grows unless the schedule is interleaved.',
  ],
  sources: [
    'Llama Team, AI @ Meta, “The Llama 3 Herd of Models”, arXiv 2407.21783, 2024, Sec. 3.3 and Table 4.',
    'Narayanan et al., “Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM”, SC 2021 (the interleaved schedule).',
    'NVIDIA, “Nemotron-4 340B Technical Report”, arXiv 2406.11704, 2024, Table 2.',
  ],
  widgets: [
    { id: 'stack', label: 'Software stack', kind: 'select', choices: labelled(STACKS, STACK_LABELS), initial: 'meta-llama3' },
    { id: 'gpus', label: 'GPUs (tp8 pp16; the 16M-token batch fixed)', kind: 'select', choices: choices(STACK_GPUS), initial: 16384 },
    { id: 'interleave', label: 'Interleave (model chunks per GPU)', kind: 'range', choices: choices(STACK_INTERLEAVE), initial: 8 },
  ],
  scenario: stackScenario,
  baseline: (v) => stackScenario({ ...v, stack: 'nvidia' }),
  shown: [
    ROW.iterationTime,
    ROW.mfu,
    ROW.compute,
    ROW.bubble,
    { path: 'run.wall_time_s', label: 'Whole run, 15.6T tokens (with failures and checkpoints)', q: 'seconds' },
    ROW.gpuHours,
  ],
  derived: [{ id: 'against_nvidia', label: 'Step time against NVIDIA’s stack', q: 'factor', of: (p, _v, ctx) => share(p.training?.iteration_time_s, ctx.baseline?.training?.iteration_time_s) }],
  chart: (p) => trainingTimeSpec(p),
  exercises: [
    {
      id: 'interleave-scaling',
      question: 'On Meta’s stack, which interleave loses the least MFU when the run grows from 8,192 to 16,384 GPUs?',
      choices: choices(STACK_INTERLEAVE),
      answer: async (predict) => {
        let best: WidgetValue | null = null;
        let lowest = Infinity;
        for (const v of STACK_INTERLEAVE) {
          const loss = await scalingLoss(predict, 'meta-llama3', v);
          if (loss !== undefined && loss < lowest) {
            lowest = loss;
            best = v;
          }
        }
        return best;
      },
    },
    {
      id: 'stack-slowdown',
      question: 'At 16,384 GPUs and interleave 8, how much longer is a step on Meta’s stack than on NVIDIA’s?',
      choices: choices(STACK_SLOWDOWNS, (f) => `about ${String(f)}×`),
      answer: async (predict) => {
        const meta = await predict(stackScenario({ stack: 'meta-llama3', gpus: STACK_GPUS[1]!, interleave: 8 }));
        const nvidia = await predict(stackScenario({ stack: 'nvidia', gpus: STACK_GPUS[1]!, interleave: 8 }));
        const ratio = share(meta?.training?.iteration_time_s, nvidia?.training?.iteration_time_s);
        if (ratio === null) return null;
        return STACK_SLOWDOWNS.reduce((a, b) => (Math.abs(b - ratio) < Math.abs(a - ratio) ? b : a));
      },
    },
  ],
};

// ---- 5. ZeRO --------------------------------------------------------------------------------------

const ZERO = [0, 1, 2, 3];
const ZERO_GPUS = [8, 64];

function zeroScenario(v: Values): Record<string, unknown> {
  const dp = num(v.dp);
  return {
    schema_version: 1,
    name: `Llama 3 8B on ${dp} H100, data parallel, ZeRO stage ${v.zero_stage}`,
    model: 'llama3-8b',
    system: 'dgx-h100',
    num_devices: dp,
    parallel: { tp: 1, pp: 1, dp, micro_batch: 1, zero_stage: num(v.zero_stage) },
    training: { global_batch: 512, seq_len: 4096, precision: 'bf16' },
  };
}

const zero: LessonDef = {
  name: 'zero',
  title: 'ZeRO and the distributed optimizer: memory per GPU against communication',
  summary: 'Sharding the optimizer state, the gradients and the weights over the data-parallel GPUs, stage by stage.',
  paragraphs: [
    'Plain data parallelism keeps a full copy of everything on every GPU: the weights, one gradient per weight, and the optimizer state, which for Adam in mixed precision is a full-precision master copy of the weights plus two moments. The optimizer state is the largest of the three, yet each GPU only needs its own share of it to update its share of the weights.',
    'ZeRO removes the redundancy in stages. Stage 1 shards the optimizer state over the data-parallel GPUs (the “distributed optimizer” of Megatron-LM): gradients are reduce-scattered instead of all-reduced and the updated weights all-gathered, which moves about as many bytes as the all-reduce it replaces. Stage 2 also shards the gradients. Stage 3 shards the weights themselves, which must then be all-gathered before each layer’s forward and backward pass: extra communication, hidden only when the network keeps up with the computation, and even then the computation beside it runs about 19% slower (the collectives’ kernels hold SMs and memory bandwidth; Lee et al. 2025), which the exposed time includes.',
    'Move the stage and the number of GPUs: the shards shrink as the data-parallel group grows.',
  ],
  sources: [
    'Rajbhandari et al., “ZeRO: Memory Optimizations Toward Training Trillion Parameter Models”, SC 2020.',
    'Kingma and Ba, “Adam: A Method for Stochastic Optimization”, ICLR 2015.',
    'Micikevicius et al., “Mixed Precision Training”, ICLR 2018.',
  ],
  widgets: [
    { id: 'zero_stage', label: 'ZeRO stage', kind: 'range', choices: choices(ZERO), initial: 0 },
    { id: 'dp', label: 'Data-parallel GPUs', kind: 'select', choices: choices(ZERO_GPUS), initial: 8 },
  ],
  scenario: zeroScenario,
  shown: [
    ROW.weights,
    ROW.gradients,
    ROW.optimizer,
    ROW.totalPerGpu,
    ROW.fits,
    { path: 'training.breakdown_s.dp_comm', label: 'Exposed data-parallel communication', q: 'seconds' },
    ROW.iterationTime,
  ],
  derived: [{ id: 'optimizer_share', label: 'Optimizer state share of the memory', q: 'ratio', of: (p) => share(p.memory.per_device_bytes.optimizer, p.memory.per_device_bytes.total) }],
  chart: (p) => memorySpec(p),
  exercises: [
    {
      id: 'lowest-stage',
      question: `On ${ZERO_GPUS[0]} GPUs, what is the lowest ZeRO stage at which training fits in GPU memory?`,
      choices: choices(ZERO),
      answer: (predict) => firstChoice(ZERO, (zero_stage) => zeroScenario({ zero_stage, dp: ZERO_GPUS[0]! }), predict, (p) => p.memory.fits),
    },
  ],
};

// ---- 4. Tensor, sequence and context parallelism ------------------------------------------------

const TP_SYSTEMS = ['dgx-h100', 'gb200-nvl72'];
const TP_SYSTEM_LABELS: Record<string, string> = { 'dgx-h100': 'DGX H100 (NVLink domain of 8)', 'gb200-nvl72': 'GB200 NVL72 (NVLink domain of 72)' };
const TP_SIZES = [2, 4, 8, 16];

function tpScenario(v: Values): Record<string, unknown> {
  const tp = num(v.tp);
  const cp = num(v.cp);
  return {
    schema_version: 1,
    name: `Llama 3.1 70B, 32k-token sequences on 128 GPUs (${v.system}), tp${tp} cp${cp} pp4, sequence parallel ${v.sequence_parallel}`,
    model: 'llama3.1-70b',
    system: String(v.system),
    num_devices: 128,
    parallel: { tp, cp, pp: 4, dp: 32 / (tp * cp), sequence_parallel: v.sequence_parallel === 'on', micro_batch: 1, interleave: 1, recompute: 'selective', zero_stage: 1 },
    training: { global_batch: 64, seq_len: 32768, precision: 'bf16' },
  };
}

const tensorParallel: LessonDef = {
  name: 'tp-sp-cp',
  title: 'Tensor, sequence and context parallelism: what each splits and what it sends',
  summary: 'Splitting one layer over several GPUs: the weight matrices (tp), the activations along the sequence (sp, cp), and why the network they run on matters.',
  paragraphs: [
    'Tensor parallelism (tp) splits each weight matrix of a layer over tp GPUs: each computes a slice of every matrix multiplication, and the partial results are combined with collectives twice per layer in the forward pass and twice in the backward pass. It divides the weights and most activations by tp, but the collectives carry full activations, so tp is only fast inside a high-bandwidth NVLink domain; across nodes it rides the much slower InfiniBand network.',
    'Sequence parallelism (sp) is the companion of tensor parallelism: the normalisation and dropout parts of a layer, which tp leaves replicated, are split along the sequence instead, and the all-reduces become reduce-scatters and all-gathers of the same total size. Context parallelism (cp) splits the whole sequence over cp GPUs for every operation; attention then needs the keys and values of the other chunks, which are passed around the cp ring while the local chunk computes.',
    'Long sequences are where these matter: here Llama 3.1 70B (trained to 128k tokens) trains on sequences of 32k tokens. Compare a system whose NVLink domain holds 8 GPUs with one whose domain holds 72, and watch what happens when tp grows past the domain.',
  ],
  sources: [
    'Shoeybi et al., “Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism”, 2019.',
    'Korthikanti et al., “Reducing Activation Recomputation in Large Transformer Models”, MLSys 2023 (sequence parallelism).',
    'Liu, Zaharia and Abbeel, “Ring Attention with Blockwise Transformers for Near-Infinite Context”, ICLR 2024; NVIDIA Megatron Core documentation, context parallelism.',
  ],
  widgets: [
    { id: 'system', label: 'System', kind: 'select', choices: labelled(TP_SYSTEMS, TP_SYSTEM_LABELS), initial: 'dgx-h100' },
    { id: 'tp', label: 'Tensor-parallel size (tp)', kind: 'range', choices: choices(TP_SIZES), initial: 8 },
    { id: 'cp', label: 'Context-parallel size (cp)', kind: 'select', choices: choices([1, 2]), initial: 1 },
    { id: 'sequence_parallel', label: 'Sequence parallelism', kind: 'select', choices: choices(['on', 'off']), initial: 'on' },
  ],
  scenario: tpScenario,
  shown: [
    ROW.iterationTime,
    ROW.tpComm,
    { path: 'training.breakdown_s.cp_comm', label: 'Exposed CP communication', q: 'seconds' },
    ROW.activations,
    ROW.memoryPerGpu,
    ROW.fits,
    ROW.mfu,
  ],
  derived: [{ id: 'tp_comm_share', label: 'Exposed TP communication share of the step', q: 'ratio', of: (p) => share(p.training?.breakdown_s.tp_comm, p.training?.iteration_time_s) }],
  chart: (p) => trainingTimeSpec(p),
  exercises: [
    {
      id: 'fastest-fitting-tp',
      question: 'On the DGX H100 with cp 1 and sequence parallelism on, which tensor-parallel size gives the shortest iteration among the layouts that fit in GPU memory?',
      choices: choices(TP_SIZES),
      answer: (predict) => bestChoice(TP_SIZES, (tp) => tpScenario({ system: 'dgx-h100', tp, cp: 1, sequence_parallel: 'on' }), predict, (p) => (p.memory.fits ? p.training?.iteration_time_s : undefined)),
    },
    {
      id: 'tp16-system',
      question: `At tensor-parallel size ${TP_SIZES[3]} (cp 1, sequence parallelism on), on which system is the exposed TP communication the smaller share of the step?`,
      choices: labelled(TP_SYSTEMS, TP_SYSTEM_LABELS),
      answer: (predict) => bestChoice(TP_SYSTEMS, (system) => tpScenario({ system, tp: TP_SIZES[3]!, cp: 1, sequence_parallel: 'on' }), predict, (p) => share(p.training?.breakdown_s.tp_comm, p.training?.iteration_time_s) ?? undefined),
    },
  ],
};

// ---- Chunked prefill: long prompts and everyone else's next token ---------------------------------

const BUDGETS = [512, 1024, 2048, 4096, 8192];
const RATES = [2, 4, 6];

function chunkScenario(v: Values): Record<string, unknown> {
  const budget = num(v.budget);
  const rate = num(v.rate);
  return {
    schema_version: 1,
    name: `Llama 3.1 8B served on one H100 (fp8), ${rate} requests/s of ~3,000-token prompts and 200-token answers, steps of at most ${budget} tokens`,
    model: 'llama3.1-8b',
    system: 'dgx-h100',
    num_devices: 1,
    inference: {
      prompt_len: 3000,
      output_len: 200,
      precision: 'fp8',
      serving: { arrival: 'poisson', requests_per_s: rate, num_requests: 300, max_num_tokens: budget, input_len: { mean: 3000, max: 8000 }, output_len: 200 },
    },
  };
}

const chunkedPrefill: LessonDef = {
  name: 'chunked-prefill',
  title: 'Chunked prefill: long prompts and everyone else’s next token',
  summary: 'Why a serving engine cuts prompts into chunks, and the trade between the slowest gaps between tokens and the time to the first one.',
  paragraphs: [
    'A server with continuous batching runs one step after another: in each, every running request gets its next token, and new requests have their prompt read (prefilled) in the same step. Reading a prompt of thousands of tokens is a large matrix multiplication; the step that carries it takes many times longer than a step of decode tokens alone, and every request that is decoding waits for it. Users see that as a stall in the stream of words.',
    'Chunked prefill bounds the stall: the scheduler gives each step a budget of tokens (max_num_tokens in vLLM and TensorRT-LLM), and a prompt longer than what is left of it is read in chunks over several steps. Smaller chunks keep every step short, so the slowest gaps between tokens shrink; but a prompt then needs more steps, each also carrying the decode tokens, so its first token comes later. The median gap hardly moves: most steps carry no prompt at all.',
    'The gaps here are every gap between two tokens of every request (the engine’s serving.itl_s); the 99th percentile is what a latency objective on the stream, as Sarathi-Serve sets, holds. Move the budget and the request rate, and compare the p99 gap with the median and with the time to first token.',
    'A percentile sees a stall only when enough gaps fall in it. At 2 requests per second with 8192-token steps, each prompt is read in a single step, so only about one step in a hundred reads a prompt (two prompts a second against some 150 steps), the 99th percentile lands among the shortest of those steps, and the p99 gap drops back although the long stalls are as long as ever: the chart still shows them. That is why serving objectives are set at a percentile and a request rate together.',
  ],
  sources: [
    'Agrawal et al., “Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve”, OSDI 2024 (chunked prefills, stall-free batching, P99 time between tokens).',
    'Yu et al., “Orca: A Distributed Serving System for Transformer-Based Generative Models”, OSDI 2022 (iteration-level scheduling).',
    'Kwon et al., “Efficient Memory Management for Large Language Model Serving with PagedAttention”, SOSP 2023.',
  ],
  widgets: [
    { id: 'budget', label: 'Token budget per step (max_num_tokens)', kind: 'range', choices: choices(BUDGETS), initial: 8192 },
    { id: 'rate', label: 'Requests per second', kind: 'select', choices: choices(RATES), initial: 4 },
  ],
  scenario: chunkScenario,
  shown: [
    { path: 'serving.itl_s.p50', label: 'Gap between tokens, median', q: 'seconds' },
    { path: 'serving.itl_s.p99', label: 'Gap between tokens, p99', q: 'seconds' },
    { path: 'serving.ttft_s.p90', label: 'Time to first token, p90', q: 'seconds' },
    { path: 'serving.tpot_s.mean', label: 'Time per output token (mean per request)', q: 'seconds' },
    { path: 'serving.output_tokens_per_s', label: 'Output tokens per second', q: 'tokens_rate' },
  ],
  derived: [{ id: 'stall_ratio', label: 'p99 gap ÷ median gap', q: 'factor', of: (p) => share(p.serving?.itl_s.p99, p.serving?.itl_s.p50) }],
  chart: (p) => servingStepTimeSpec(p),
  exercises: [
    {
      id: 'smoothest-budget',
      question: 'At 4 requests per second, which token budget per step gives the smallest p99 gap between tokens?',
      choices: choices(BUDGETS),
      answer: (predict) => bestChoice(BUDGETS, (budget) => chunkScenario({ budget, rate: 4 }), predict, (p) => p.serving?.itl_s.p99),
    },
    {
      id: 'fastest-first-token',
      question: 'At 4 requests per second, which token budget per step gives the shortest p90 time to first token?',
      choices: choices(BUDGETS),
      answer: (predict) => bestChoice(BUDGETS, (budget) => chunkScenario({ budget, rate: 4 }), predict, (p) => p.serving?.ttft_s.p90),
    },
  ],
};

// ---- Continuous batching: why a finished answer's place is refilled at once ---------------------

const SERVED_BATCHES = [8, 16, 32, 64];
const BATCHINGS = ['static', 'continuous'];
const ANSWERS = ['equal', 'long-tailed'];
const BATCHING_LABELS: Record<string, string> = { static: 'static (to the longest)', continuous: 'continuous (refilled)' };
const ANSWER_LABELS: Record<string, string> = { equal: 'all 256 tokens', 'long-tailed': 'mean 256, up to 2,048 tokens' };
const SPEEDUPS = [1, 1.5, 2, 3, 5];

function batchingScenario(v: Values): Record<string, unknown> {
  const batch = num(v.batch);
  const output = v.answers === 'equal' ? 256 : { mean: 256, max: 2048 };
  return {
    schema_version: 1,
    name: `Llama 3.1 8B on one H100: 256 requests of ~512-token prompts, answers ${ANSWER_LABELS[String(v.answers)] ?? ''}, batches of ${batch}, ${v.batching} batching`,
    model: 'llama3.1-8b',
    system: 'dgx-h100',
    num_devices: 1,
    inference: {
      prompt_len: 512,
      output_len: 256,
      serving: { arrival: 'offline', num_requests: 256, max_batch: batch, static_batching: v.batching === 'static', input_len: { mean: 512, max: 1024 }, output_len: output },
    },
  };
}

/** Continuous batching's throughput over static batching's at batches of 32, as the nearest of SPEEDUPS. */
async function continuousGain(answers: string, predict: Predictor): Promise<number | null> {
  const c = await predict(batchingScenario({ batch: 32, answers, batching: 'continuous' }));
  const s = await predict(batchingScenario({ batch: 32, answers, batching: 'static' }));
  const gain = share(c?.serving?.output_tokens_per_s, s?.serving?.output_tokens_per_s);
  return gain === null ? null : SPEEDUPS.reduce((a, b) => (Math.abs(b - gain) < Math.abs(a - gain) ? b : a));
}

const continuousBatching: LessonDef = {
  name: 'continuous-batching',
  title: 'Continuous batching: why a finished answer’s place is refilled at once',
  summary: 'A batch that waits for its longest answer leaves the GPU half idle; refilling each finished place at the next step is most of what modern servers gain.',
  paragraphs: [
    'A decode step reads every weight of the model once whatever the batch, so serving many requests together is what makes a GPU efficient. The old way to batch was to take a batch of requests, run them until every one has finished, and only then take the next batch (Hugging Face generate, the first serving systems). Answers have different lengths: when most are short and a few long, the batch shrinks to a handful of long answers while the waiting requests cannot join, and the GPU reads all its weights for very few tokens per step.',
    'Continuous batching (Orca’s iteration-level scheduling, then vLLM, TensorRT-LLM and SGLang) decides at every step: a request that has finished leaves and a waiting one takes its place at the next step. The batch stays full, so the same weight reads produce more tokens. With answers all of one length the two are the same: every request of a batch finishes at the same step and the next batch starts at the next one.',
    'Here 256 requests are served offline on one H100. Switch between the two ways of batching, change the batch size and the spread of answer lengths, and watch the output tokens per second, the mean number of requests in the batch, and the chart of the batch and the queue over time: static batches drain to a few long answers before the next batch starts.',
  ],
  sources: [
    'Yu et al., “Orca: A Distributed Serving System for Transformer-Based Generative Models”, OSDI 2022 (Sec. 2.2: request-level scheduling; Sec. 3: iteration-level scheduling).',
    'Kwon et al., “Efficient Memory Management for Large Language Model Serving with PagedAttention”, SOSP 2023.',
  ],
  widgets: [
    { id: 'batching', label: 'Batching', kind: 'select', choices: labelled(BATCHINGS, BATCHING_LABELS), initial: 'static' },
    { id: 'batch', label: 'Requests per batch (max_batch)', kind: 'range', choices: choices(SERVED_BATCHES), initial: 32 },
    { id: 'answers', label: 'Answer lengths', kind: 'select', choices: labelled(ANSWERS, ANSWER_LABELS), initial: 'long-tailed' },
  ],
  scenario: batchingScenario,
  shown: [
    { path: 'serving.output_tokens_per_s', label: 'Output tokens per second', q: 'tokens_rate' },
    { path: 'serving.mean_batch', label: 'Requests in the batch, on average', q: 'count' },
    { path: 'serving.duration_s', label: 'Time to serve all 256', q: 'seconds' },
    { path: 'serving.ttft_s.p90', label: 'Time to first token, p90', q: 'seconds' },
  ],
  derived: [{ id: 'batch_fill', label: 'Mean batch ÷ requests per batch', q: 'ratio', of: (p) => share(p.serving?.mean_batch, p.serving?.max_batch) }],
  chart: (p) => servingTimelineSpec(p),
  exercises: [
    {
      id: 'gain-long-tailed',
      question: 'With long-tailed answers and batches of 32, about how many times static batching’s output tokens per second does continuous batching give?',
      choices: choices(SPEEDUPS, (x) => `${x}×`),
      answer: (predict) => continuousGain('long-tailed', predict),
    },
    {
      id: 'gain-equal',
      question: 'With every answer 256 tokens long and batches of 32, about how many times static batching’s output tokens per second does continuous batching give?',
      choices: choices(SPEEDUPS, (x) => `${x}×`),
      answer: (predict) => continuousGain('equal', predict),
    },
  ],
};

// ---- Long context at the end of a run: what a context extension costs -------------------------

const CONTEXTS_EXT = [32768, 65536, 131072];
const CP_EXT = [1, 2, 4, 8];
const EXT_TOKENS = [2e11, 8e11];
const SHARES = [0.05, 0.1, 0.2, 0.4];
/** Tokens per step of the extension stage, as in the first part: 512 sequences of 8192. */
const EXT_STEP_TOKENS = 512 * 8192;

function contextScenario(v: Values): Record<string, unknown> {
  const context = num(v.context);
  const cp = num(v.cp);
  return {
    schema_version: 1,
    name: `Llama 3 8B on 64 H100 (tp2 dp32): 15T tokens at 8K, then ${num(v.tokens) / 1e9}B at ${context / 1024}K over cp${cp}`,
    model: 'llama3-8b',
    system: 'dgx-h100',
    num_devices: 64,
    parallel: { tp: 2, pp: 1, dp: 32, sequence_parallel: true, micro_batch: 1, interleave: 1, recompute: 'selective', zero_stage: 1 },
    training: {
      global_batch: 512,
      seq_len: 8192,
      precision: 'bf16',
      train_tokens: 15e12,
      stages: [{ tokens: num(v.tokens), seq_len: context, global_batch: EXT_STEP_TOKENS / context, parallel: { cp } }],
    },
  };
}

/** The extension stage's share of the run's ideal time. */
const extensionShare = (p: Prediction): number | null => share(p.run?.stages?.[0]?.ideal_time_s, p.run?.ideal_time_s);

const contextExtension: LessonDef = {
  name: 'context-extension',
  title: 'Long context at the end of a run: what a context extension costs',
  summary: 'A few per cent of the tokens at 128K can take a fifth of the training time, and context parallelism is what makes them fit.',
  paragraphs: [
    'Models are pre-trained on sequences of a few thousand tokens and taught long contexts only at the end: Llama 3 ran 800B of its 15.6T tokens in six stages from 8K up to 128K tokens, DeepSeek-V3 two stages at 32K and 128K. A token of a long sequence costs more than one of a short sequence: its attention looks at every earlier token of its sequence, so the attention arithmetic per token grows in proportion to the context, while the matrix multiplications of the weights stay the same per token.',
    'The memory grows as well: the activations a layer keeps for the backward pass are proportional to the tokens of the micro-batch, and one 128K sequence is sixteen 8K sequences. Context parallelism (cp) splits each sequence over cp GPUs: every GPU keeps and computes its chunk, and the keys and values of the other chunks go around a ring while the local one computes. It does not make the stage faster (the same arithmetic is spread over the same GPUs, taken from data parallelism here), but it is what lets a 128K sequence fit at all.',
    'Here Llama 3 8B trains its 15T tokens at 8K on 64 GPUs, then a context extension whose length, tokens and cp you choose (every step holds 4M tokens, so 128 sequences of 32K or 32 of 128K). The engine predicts each part on its own, and the run adds them up with its failures and checkpoints. Watch the extension’s share of the time against its share of the tokens, and the memory per GPU against the 80 GB of the H100.',
  ],
  sources: [
    'Grattafiori et al. (Llama team), “The Llama 3 Herd of Models”, arXiv 2407.21783, 2024, Sec. 3.4.2 (long-context pre-training) and Table 4 (the 128K layout: tp 8, cp 16).',
    'DeepSeek-AI, “DeepSeek-V3 Technical Report”, arXiv 2412.19437, 2024, Sec. 4.3 (long-context extension).',
    'Liu, Zaharia and Abbeel, “Ring Attention with Blockwise Transformers for Near-Infinite Context”, ICLR 2024; NVIDIA Megatron Core documentation, context parallelism.',
  ],
  widgets: [
    { id: 'context', label: 'Context of the extension (tokens)', kind: 'range', choices: choices(CONTEXTS_EXT), initial: 131072 },
    { id: 'cp', label: 'Context-parallel size (cp; dp = 32 / cp)', kind: 'range', choices: choices(CP_EXT), initial: 8 },
    { id: 'tokens', label: 'Tokens of the extension', kind: 'select', choices: choices(EXT_TOKENS, (t) => `${num(t) / 1e9}B`), initial: 8e11 },
  ],
  scenario: contextScenario,
  shown: [
    { path: 'run.wall_days', label: 'Whole run, wall clock', q: 'days' },
    ROW.gpuHours,
    { path: 'run.stages.0.ideal_time_s', label: 'Extension, ideal time', q: 'seconds' },
    { path: 'run.stages.0.mfu', label: 'Extension MFU', q: 'ratio' },
    { path: 'run.stages.0.memory_bytes', label: 'Extension memory per GPU', q: 'bytes' },
    { path: 'run.stages.0.fits', label: 'Extension fits', q: 'bool' },
    { path: 'memory.per_device_bytes.total', label: 'First part, memory per GPU', q: 'bytes' },
  ],
  derived: [
    { id: 'extension_time_share', label: 'Extension share of the ideal time', q: 'ratio', of: extensionShare },
    { id: 'extension_token_share', label: 'Extension share of the tokens', q: 'ratio', of: (_p, v) => share(num(v.tokens), num(v.tokens) + 15e12) },
    {
      id: 'time_per_token_ratio',
      label: 'Time per token, extension ÷ first part',
      q: 'factor',
      of: (p, v) => {
        const st = p.run?.stages?.[0];
        if (!st || !p.run) return null;
        return share(st.ideal_time_s / num(v.tokens), (p.run.ideal_time_s - st.ideal_time_s) / 15e12);
      },
    },
  ],
  chart: (p) => runWaterfallSpec(p),
  exercises: [
    {
      id: 'smallest-cp-128k',
      question: 'For 800B tokens at 128K, what is the smallest context-parallel size whose extension fits in GPU memory?',
      choices: choices(CP_EXT),
      answer: (predict) => firstChoice(CP_EXT, (cp) => contextScenario({ context: 131072, cp, tokens: 8e11 }), predict, (p) => p.run?.stages?.[0]?.fits === true),
    },
    {
      id: 'time-share-128k',
      question: 'With cp 8, 800B tokens at 128K are 5% of the run’s tokens. About what share of its ideal time do they take?',
      choices: choices(SHARES, (x) => `${num(x) * 100}%`),
      answer: async (predict) => {
        // The choice nearest the share the engine works out.
        const p = await predict(contextScenario({ context: 131072, cp: 8, tokens: 8e11 }));
        const x = p ? extensionShare(p) : null;
        if (x === null) return null;
        return SHARES.reduce((best, c) => (Math.abs(c - x) < Math.abs(best - x) ? c : best), SHARES[0]!);
      },
    },
  ],
};

/** The lessons in the order of the Learn view: the topics, then one per study of the paper. */
export const LESSONS: LessonDef[] = [pipelineBubble, trainingTime, inference, activationMemory, kvCache, moe, attentionDataParallel, continuousBatching, chunkedPrefill, tensorParallel, contextExtension, zero, softwareStacks, rlLesson, ...STUDY_LESSONS];

export const lessonByName = (name: string | undefined): LessonDef | undefined => LESSONS.find((l) => l.name === name);
