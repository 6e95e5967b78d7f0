// The Learn view's lesson on RL post-training (issue 40): why the longest response sets a
// synchronous step, what asynchrony buys, colocated against split. Every number is the engine's
// (core/rl, docs/rl.md), computed at view time; the exercises' answers are worked out by it.
import { rlTimelineSpec } from '../charts/specs';
import type { Prediction } from '../engine/types';
import { bestChoice, choices, firstChoice, labelled, num, share, type LessonDef, type Values } from './lesson-kit';

const PLACEMENTS = ['colocated', 'split', 'split-async'];
const PLACEMENT_LABELS: Record<string, string> = {
  colocated: 'Colocated (8 GPUs)',
  split: 'Split 4 + 4, on-policy',
  'split-async': 'Split 4 + 4, async',
};
const LONGEST = [4096, 8192, 16384, 24576];

/** Qwen2.5 7B GRPO on one DGX H100: 128 prompts x 8 samples, responses of mean 2,048 tokens. */
function rlScenario(v: Values): Record<string, unknown> {
  const placement = String(v.placement);
  const max = num(v.longest);
  const pools = placement === 'colocated' ? { placement: 'colocated' } : { placement: 'split', rollout_devices: 4, train_devices: 4, ...(placement === 'split-async' ? { async: { staleness: 1 } } : {}) };
  return {
    schema_version: 1,
    name: `Qwen2.5 7B GRPO on 8 H100, ${PLACEMENT_LABELS[placement] ?? placement}, responses of mean 2048 and at most ${max} tokens`,
    model: 'qwen2.5-7b',
    system: 'dgx-h100',
    num_devices: 8,
    rl: { algorithm: 'grpo', prompts_per_step: 128, samples_per_prompt: 8, prompt_len: { mean: 256, max: 1024 }, response_len: { mean: 2048, max }, train: 'auto', ...pools },
  };
}

const step = (p: Prediction): number | undefined => p.rl?.step_time_s;

export const rlLesson: LessonDef = {
  name: 'rl-post-training',
  title: 'RL post-training: the longest response, asynchrony, and where the GPUs sit',
  summary: 'One GRPO step: rollout, scoring, training and weight sync; the straggler, the idle pool, colocated against split.',
  paragraphs: [
    'A GRPO step has four parts. The rollout engine (vLLM here) generates several responses to each prompt; the trainer scores them (a reference forward for the KL term and a forward for the old log-probabilities; the reward here is a rule, which costs no GPU time); the trainer takes its optimizer steps; and the new weights go back to the engine. The engine times the rollout with its serving simulator and the rest with its training model.',
    'Responses differ in length, and a synchronous step cannot train until the last one is done. With a mean of 2,048 tokens and a long tail, most responses finish early and the engine runs a thinning batch until the longest one ends: compare the longest response with the mean one below, and watch the light-blue tail of the rollout grow as you raise the longest response.',
    'Colocated, all eight GPUs generate and then train, swapping the engine\u2019s weights to host memory in between. Split, four GPUs generate and four train: on-policy, each pool waits for the other (the grey idle bars), so the step is longer than colocated. One step off-policy, the next step\u2019s rollout runs while this step trains: the step is the slower of the two pools plus the sync, and the faster pool idles for the difference. Which pool idles depends on the tail.',
  ],
  sources: [
    'Shao et al., \u201cDeepSeekMath\u201d, arXiv 2402.03300, 2024 (GRPO).',
    'Sheng et al., \u201cHybridFlow: A Flexible and Efficient RLHF Framework\u201d (verl), arXiv 2409.19256, 2024.',
    'Fu et al., \u201cAReaL: A Large-Scale Asynchronous Reinforcement Learning System for Language Reasoning\u201d, arXiv 2505.24298, 2025.',
    'docs/rl.md of this repository: how each phase and the step are computed.',
  ],
  widgets: [
    { id: 'placement', label: 'Placement', kind: 'select', choices: labelled(PLACEMENTS, PLACEMENT_LABELS), initial: 'colocated' },
    { id: 'longest', label: 'Longest response (tokens; the mean stays 2,048)', kind: 'range', choices: choices(LONGEST, (n) => Number(n).toLocaleString('en-US')), initial: 8192 },
  ],
  scenario: rlScenario,
  shown: [
    { path: 'rl.step_time_s', label: 'Step time', q: 'seconds' },
    { path: 'rl.phases_s.rollout', label: 'Rollout (first prompt to the last response)', q: 'seconds' },
    { path: 'rl.rollout.longest_response_s', label: 'Longest response', q: 'seconds' },
    { path: 'rl.rollout.mean_response_s', label: 'Mean response', q: 'seconds' },
    { path: 'rl.phases_s.train', label: 'Training (optimizer steps)', q: 'seconds' },
    { path: 'rl.idle_s.rollout', label: 'Rollout pool idle', q: 'seconds' },
    { path: 'rl.idle_s.train', label: 'Training pool idle', q: 'seconds' },
    { path: 'rl.tokens_per_s_per_gpu', label: 'Trained tokens/s per GPU', q: 'tokens_rate' },
  ],
  derived: [
    { id: 'rollout_share', label: 'Share of the step spent generating', q: 'ratio', of: (p) => share(p.rl?.phases_s.rollout, step(p)) },
    {
      id: 'tail_share',
      label: 'Share of the rollout after the mean response is done (the long tail)',
      q: 'ratio',
      of: (p) => (p.rl ? share(p.rl.rollout.longest_response_s - Math.min(p.rl.rollout.mean_response_s, p.rl.rollout.longest_response_s), p.rl.rollout.longest_response_s) : null),
    },
  ],
  chart: (p) => rlTimelineSpec(p),
  exercises: [
    {
      id: 'fastest-placement-16k',
      question: 'With responses of at most 16,384 tokens, which placement gives the shortest step?',
      choices: labelled(PLACEMENTS, PLACEMENT_LABELS),
      answer: (predict) => bestChoice(PLACEMENTS, (placement) => rlScenario({ placement, longest: 16384 }), predict, step),
    },
    {
      id: 'trainer-idles',
      question: 'One step off-policy, from which longest response on does the training pool (not the rollout pool) wait?',
      choices: choices(LONGEST, (n) => Number(n).toLocaleString('en-US')),
      answer: (predict) => firstChoice(LONGEST, (longest) => rlScenario({ placement: 'split-async', longest }), predict, (p) => (p.rl?.idle_s.train ?? 0) > 0),
    },
  ],
};
