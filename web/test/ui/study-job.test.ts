import { describe, expect, it } from 'vitest';
import { studyJobOf } from '../../src/state/study-job';

const names = (id: string): string | undefined => ({ 'llama3-8b': 'Llama 3 8B' })[id];

describe('the scenario’s job for the cheapest-accelerator study', () => {
  it('takes the model, GPUs, sequence, batch and tokens the scenario states', () => {
    const s = { model: 'llama3-8b', system: 'dgx-h100', num_devices: 256, training: { global_batch: 512, seq_len: 8192, train_tokens: 1e12 } };
    expect(studyJobOf(s, names)).toEqual({
      ok: true,
      job: { model: 'llama3-8b', num_devices: 256, seq_len: 8192, global_batch: 512, train_tokens: 1e12 },
      words: 'Llama 3 8B on 256 GPUs, 1T tokens',
    });
  });
  it('an inline model goes whole, named by its name; tokens not stated are the study’s', () => {
    const model = { name: 'My 3B', layers: 24, hidden: 3072, heads: 24, ffn_hidden: 8192, vocab: 32000 };
    const r = studyJobOf({ model, num_devices: 16, training: { global_batch: 64, seq_len: 4096 } }, names);
    expect(r).toMatchObject({ ok: true, job: { model, num_devices: 16 }, words: 'My 3B on 16 GPUs, the study’s 15T tokens' });
    expect(r.ok && 'train_tokens' in r.job).toBe(false);
  });
  it('a scenario that trains nothing has no job', () => {
    expect(studyJobOf({ model: 'llama3-8b', num_devices: 8, inference: { prompt_len: 10, output_len: 10 } }, names).ok).toBe(false);
    expect(studyJobOf({ model: 'llama3-8b', num_devices: 8, training: {}, rl: {} }, names).ok).toBe(false);
  });
});
