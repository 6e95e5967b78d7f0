// The scenario's training job as the cheapest-accelerator study runs it (docs/contract.md "Search
// and studies": study(name, job)): its model, GPUs, sequence, batch and tokens in place of the
// study's own Llama 3 70B on 1024 GPUs. Pure; test/ui/study-job.test.ts.
import { getPointer } from './pointer';
import { tokensShort } from './tasks';

export type Scenario = Record<string, unknown>;

/** The study a job of one's own can run (the others are the paper's, with their own rows). */
export const JOB_STUDY = 'cheapest-accelerator';

export type StudyJob = { ok: true; job: Record<string, unknown>; words: string } | { ok: false; reason: string };


/**
 * The study's job from `s`: the model (preset id or inline), num_devices, training.seq_len,
 * global_batch and train_tokens where the scenario states them (the study's own otherwise, said
 * in `words`); not ok for a scenario that trains nothing (serving, RL).
 */
export function studyJobOf(s: Scenario, modelName: (id: string) => string | undefined): StudyJob {
  if (s.rl !== undefined || getPointer(s, '/training') === undefined) return { ok: false, reason: 'this scenario trains nothing (the study prices a training run)' };
  const job: Record<string, unknown> = { model: s.model };
  const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const set = (key: string, v: unknown): void => {
    if (n(v) !== undefined) job[key] = v;
  };
  set('num_devices', s.num_devices);
  set('seq_len', getPointer(s, '/training/seq_len'));
  set('global_batch', getPointer(s, '/training/global_batch'));
  set('train_tokens', getPointer(s, '/training/train_tokens'));
  const m = s.model;
  const model = typeof m === 'string' ? (modelName(m) ?? m) : String((m as Record<string, unknown> | null)?.name ?? 'your model');
  const tokens = n(job.train_tokens);
  const words = `${model} on ${String(job.num_devices ?? 1024)} GPUs, ${tokens !== undefined ? tokensShort(tokens) : 'the study’s 15T'} tokens`;
  return { ok: true, job, words };
}
