// Plain words and one-click fixes of engine errors (src/ui/words.ts).
import { describe, expect, it } from 'vitest';
import { errorWords, fieldMessage, fieldWords, followingGpus, hostOptimizerLayout, plainError, rangeLabel, rejectedWords, warningWords } from '../../src/ui/words';

// A refusal of "auto" counts its layouts' rejections (`rejected`); these ran out of memory (more GPUs can help).
const err = (code: string, path = '/parallel') => ({ code, path, message: `engine says ${code}`, ...(code === 'parallel.auto_no_layout' ? { rejected: { 'memory.does_not_fit': 9 } } : {}) });
const s = (parallel: unknown) => ({ num_devices: 64, parallel });

describe('plainError', () => {
  it('a dp that no longer matches the devices: the fix lets dp be the rest', () => {
    const p = plainError(err('parallel.product_mismatch'), s({ tp: 8, pp: 2, dp: 2 }), new Set());
    expect(p.words).toMatch(/GPU count/);
    expect(p.fix).toEqual({ path: '/parallel/dp', value: undefined, label: 'Let data parallelism be the rest of the GPUs (4)' });
  });
  it('tp x pp that does not divide the devices: the fix is "auto"', () => {
    expect(plainError(err('parallel.product_mismatch'), s({ tp: 8, pp: 3 }), new Set()).fix?.path).toBe('/parallel');
  });
  it('sequence parallelism set against tp: the fix lets it follow', () => {
    for (const code of ['parallel.sequence_parallel_without_tp', 'parallel.moe_needs_sequence_parallel'])
      expect(plainError(err(code), s({ tp: 1, sequence_parallel: true }), new Set()).fix).toEqual({ path: '/parallel/sequence_parallel', value: undefined, label: 'Let sequence parallelism follow tensor parallelism' });
  });
  it('no layout fits: words that say what to do, and a fix that doubles the GPUs', () => {
    const p = plainError(err('parallel.auto_no_layout'), s('auto'), new Set());
    expect(p.words).toMatch(/add GPUs/);
    expect(p.fix).toEqual({ path: '/num_devices', value: 128, label: 'Double the GPUs (128)' });
    // a GPU count the field does not hold as a whole number: no button
    expect(plainError(err('parallel.auto_no_layout'), { num_devices: '64', parallel: 'auto' }, new Set()).fix).toBeUndefined();
  });
  it('no layout divides the job (none ran out of memory): words that say fewer GPUs, and no button for more', () => {
    // the counts decide, not the message's words
    const divides = { code: 'parallel.auto_no_layout', path: '/parallel', message: 'memory.does_not_fit', rejected: { 'parallel.tp_not_divisor_of_heads': 1960, 'training.batch_not_divisible': 123 } };
    const training = plainError(divides, { num_devices: 100000, parallel: 'auto', training: { global_batch: 64 } }, new Set());
    expect(training).toEqual({ words: expect.stringContaining('no layout divides this job over these GPUs') });
    expect(training.words).toMatch(/use fewer GPUs, or a larger global batch$/);
    expect(plainError(divides, { num_devices: 100000, parallel: 'auto', inference: {} }, new Set()).words).toMatch(/use fewer GPUs$/);
    // one layout too large for the GPUs (a KV cache too, in serving): more GPUs can help
    for (const code of ['memory.does_not_fit', 'serving.kv_insufficient']) {
      const some = { ...divides, rejected: { ...divides.rejected, [code]: 1 } };
      expect(plainError(some, { num_devices: 64, parallel: 'auto', training: { global_batch: 64 } }, new Set()).fix).toEqual({ path: '/num_devices', value: 128, label: 'Double the GPUs (128)' });
    }
  });
  it('no layout fits: the fewest GPUs the engine found a layout for, unless twice as many', () => {
    const job = { num_devices: 32, parallel: 'auto', training: { global_batch: 1024, seq_len: 4096 } };
    const refusal = (fewest: unknown) => ({ ...err('parallel.auto_no_layout'), fewest_devices: fewest as number });
    expect(plainError(refusal(192), job, new Set()).fix).toEqual({ path: '/num_devices', value: 192, label: 'Use 192 GPUs (the fewest that run it)' });
    // whole nodes between the GPUs and twice as many (the engine's look tries them too)
    expect(plainError(refusal(48), job, new Set()).fix).toEqual({ path: '/num_devices', value: 48, label: 'Use 48 GPUs (the fewest that run it)' });
    // twice as many said as such; a count the page cannot use (not past the GPUs, not a whole number): doubled
    const double64 = { path: '/num_devices', value: 64, label: 'Double the GPUs (64)' };
    for (const fewest of [64, 32, 16, 96.5, '256', undefined]) expect(plainError(refusal(fewest), job, new Set()).fix).toEqual(double64);
    // a served model: 8 bits first, the fewest GPUs the other way out
    const served = { num_devices: 8, parallel: 'auto', inference: { prompt_len: 1000, output_len: 250 } };
    expect(plainError(refusal(32), served, new Set()).alt).toEqual({ path: '/num_devices', value: 32, label: 'Use 32 GPUs (the fewest that run it)' });
  });
  it('training no layout fits but for a host-memory optimizer: both ways out, the second stating the layout the engine named in its fix', () => {
    const named = 'no layout of 8 devices runs this scenario (9720 layouts: memory.does_not_fit x8268); more devices, a smaller model or batch would; with the optimizer state in host memory (parallel.optimizer_offload) one would: tp 4, pp 2, dp 1, zero_stage 1, micro_batch 1, recompute none, interleave 4, sequence_parallel true';
    const fix = { tp: 4, pp: 2, dp: 1, zero_stage: 1, micro_batch: 1, recompute: 'none', interleave: 4, sequence_parallel: true, optimizer_offload: true };
    const job = { num_devices: 8, parallel: 'auto', training: { global_batch: 64, seq_len: 4096 } };
    const refusal = { code: 'parallel.auto_no_layout', path: '/parallel', message: named, fix, rejected: { 'memory.does_not_fit': 8268 } };
    const p = plainError(refusal, job, new Set());
    expect(p.fix).toEqual({ path: '/num_devices', value: 16, label: 'Double the GPUs (16)' });
    expect(p.words).toMatch(/or keep the optimizer state in host memory/);
    expect(p.alt).toEqual({ path: '/parallel', value: fix, label: 'Keep the optimizer in host memory (tp 4, pp 2, dp 1)' });
    // no fix from the engine (the words alone are not read), or one the page cannot state: the GPUs doubled alone
    expect(plainError(err('parallel.auto_no_layout'), job, new Set()).alt).toBeUndefined();
    expect(plainError({ ...refusal, fix: undefined }, job, new Set()).alt).toBeUndefined();
    expect(hostOptimizerLayout({ ...refusal, fix: { ...fix, pp: 'two' } })).toBeUndefined();
    expect(hostOptimizerLayout({ ...refusal, fix: { ...fix, tp: 0 } })).toBeUndefined();
    expect(hostOptimizerLayout({ ...refusal, fix: { ...fix, optimizer_offload: undefined } })).toBeUndefined();
  });
  it('served 16-bit weights no layout holds: the fix serves them in 8 bits; training and 8-bit serving double the GPUs', () => {
    const serve = (precision?: string) => ({ num_devices: 8, parallel: 'auto', inference: { prompt_len: 1000, output_len: 250, ...(precision ? { precision } : {}) } });
    for (const precision of ['bf16', 'fp16', undefined]) {
      const p = plainError(err('parallel.auto_no_layout'), serve(precision), new Set());
      expect(p.fix).toEqual({ path: '/inference/precision', value: 'fp8', label: 'Serve the weights in 8 bits (FP8)' });
      // the other way out: the same weights on twice the GPUs
      expect(p.alt).toEqual({ path: '/num_devices', value: 16, label: 'Double the GPUs (16)' });
      expect(p.words).toMatch(/fewer bits/);
    }
    const double16 = { path: '/num_devices', value: 16, label: 'Double the GPUs (16)' };
    expect(plainError(err('parallel.auto_no_layout'), serve('fp8'), new Set()).fix).toEqual(double16);
    const training = plainError(err('parallel.auto_no_layout'), { ...serve('bf16'), training: { global_batch: 8, seq_len: 1024 } }, new Set());
    expect(training.fix).toEqual(double16);
    expect(training.words).not.toMatch(/fewer bits/);
  });
  it('two RL pools that do not add up to the GPUs: the fix gives the training pool the rest', () => {
    const job = (rl: unknown) => ({ num_devices: 16, rl });
    const mismatch = err('rl.devices_mismatch', '/rl/rollout_devices');
    expect(plainError(mismatch, job({ placement: 'split', rollout_devices: 4, train_devices: 8 }), new Set()).fix).toEqual({ path: '/rl/train_devices', value: 12, label: 'Let the training pool be the rest of the GPUs (12)' });
    // a rollout pool of every GPU (or more) leaves none to train: no button
    expect(plainError(mismatch, job({ placement: 'split', rollout_devices: 16, train_devices: 8 }), new Set()).fix).toBeUndefined();
  });
  it('an RL trainer that no layout fits: plain words, and a fix that doubles its GPUs', () => {
    const noLayout = err('rl.train_no_layout', '/rl/train');
    const colocated = plainError(noLayout, { num_devices: 8, rl: { train: 'auto' } }, new Set());
    expect(colocated.words).toContain('add GPUs, or pick GPUs with more memory');
    expect(colocated.fix).toEqual({ path: '/num_devices', value: 16, label: 'Double the GPUs (16)' });
    // split: the GPU count grows by the training pool, which takes the rest (state/coupling.ts)
    const split = { num_devices: 24, rl: { placement: 'split', rollout_devices: 8, train_devices: 16 } };
    expect(plainError(noLayout, split, new Set()).fix).toEqual({ path: '/num_devices', value: 40, label: 'Give the trainer twice the GPUs (32, 40 in all)' });
    // the fewest GPUs the engine found a trainer layout for, past twice as many
    const fewest = (f: number) => ({ ...noLayout, fewest_devices: f });
    expect(plainError(fewest(32), { num_devices: 8, rl: { train: 'auto' } }, new Set()).fix).toEqual({ path: '/num_devices', value: 32, label: 'Use 32 GPUs (the fewest that run it)' });
    expect(plainError(fewest(16), { num_devices: 8, rl: { train: 'auto' } }, new Set()).fix).toEqual({ path: '/num_devices', value: 16, label: 'Double the GPUs (16)' });
    expect(plainError(fewest(88), split, new Set()).fix).toEqual({ path: '/num_devices', value: 88, label: 'Give the trainer 80 GPUs (88 in all)' });
    expect(plainError(fewest(40), split, new Set()).fix).toEqual({ path: '/num_devices', value: 40, label: 'Give the trainer twice the GPUs (32, 40 in all)' });
    // whole nodes between the pool and twice it (Qwen3-235B GRPO on 8 + 16 H100: a pool of 24, 32 in all)
    expect(plainError(fewest(32), split, new Set()).fix).toEqual({ path: '/num_devices', value: 32, label: 'Give the trainer 24 GPUs (32 in all)' });
    // pools that do not add up: that error comes first; no button here
    expect(plainError(noLayout, { ...split, num_devices: 30 }, new Set()).fix).toBeUndefined();
  });
  it('RL engines that hold no response: plain words, and the fewest GPUs the engine named', () => {
    const refusal = (f?: number) => ({ ...err('rl.rollout_does_not_fit', '/rl/rollout'), ...(f === undefined ? {} : { fewest_devices: f }) });
    const colocated = { num_devices: 8, rl: { train: 'auto' } };
    expect(plainError(refusal(64), colocated, new Set())).toEqual({
      words: expect.stringContaining('add GPUs, store the weights in fewer bits'),
      fix: { path: '/num_devices', value: 64, label: 'Use 64 GPUs (the fewest that run it)' },
    });
    expect(plainError(refusal(16), colocated, new Set()).fix).toEqual({ path: '/num_devices', value: 16, label: 'Double the GPUs (16)' });
    // no count (a stated rollout tp): more GPUs would not widen the engine, so no button
    expect(plainError(refusal(), colocated, new Set()).fix).toBeUndefined();
    // split: the GPUs grow (the training pool takes the rest), then the rollout pool takes them
    const split = { num_devices: 16, rl: { placement: 'split', rollout_devices: 8, train_devices: 8 } };
    expect(plainError(refusal(24), split, new Set()).fix).toEqual({ path: '/num_devices', value: 24, then: { path: '/rl/rollout_devices', value: 16 }, label: 'Give the rollout 16 GPUs (24 in all)' });
    expect(plainError(refusal(24), { ...split, num_devices: 30 }, new Set()).fix).toBeUndefined();
    // both pools too small (DeepSeek-V3 split 8 + 8 on H100: engines of 16, then a trainer of 56):
    // one edit grows both, whatever the count alone would say of the rollout
    const both = { ...refusal(72), fewest_pools: { rollout_devices: 16, train_devices: 56 } };
    expect(plainError(both, split, new Set()).fix).toEqual({ path: '/num_devices', value: 72, then: { path: '/rl/rollout_devices', value: 16 }, label: 'Give the rollout 16 GPUs and the trainer 56 (72 in all)' });
    // the training pool as stated: the rollout's fix as before; pools that do not add up to the count: not trusted
    expect(plainError({ ...refusal(24), fewest_pools: { rollout_devices: 16, train_devices: 8 } }, split, new Set()).fix).toEqual({ path: '/num_devices', value: 24, then: { path: '/rl/rollout_devices', value: 16 }, label: 'Give the rollout 16 GPUs (24 in all)' });
    expect(plainError({ ...refusal(72), fewest_pools: { rollout_devices: 16, train_devices: 50 } }, split, new Set()).fix?.label).toBe('Give the rollout 64 GPUs (72 in all)');
    // a stated engine tp: the engines choose theirs (the rest of the rollout block kept)
    const stated = { num_devices: 8, rl: { train: 'auto', rollout: { tp: 8, software: 'sglang' } } };
    expect(plainError(refusal(), stated, new Set())).toEqual({
      words: expect.stringContaining('at the tensor parallelism stated: let them choose theirs'),
      fix: { path: '/rl/rollout', value: { tp: undefined, dp: undefined, software: 'sglang' }, label: 'Let the rollout engines choose their tensor parallelism' },
    });
  });
  it('a key of the other kind of request stream: the fix makes the stream that kind', () => {
    const serving = { num_devices: 1, inference: { serving: { arrival: 'offline', concurrency: 16 } } };
    expect(plainError(err('serving.key_for_other_arrival', '/inference/serving/concurrency'), serving, new Set()).fix).toEqual({ path: '/inference/serving/arrival', value: 'closed', label: 'Serve them as concurrent users (a closed loop)' });
    expect(plainError(err('serving.key_for_other_arrival', '/inference/serving/requests_per_s'), serving, new Set()).fix?.value).toBe('poisson');
  });
  it('an error without plain words keeps the engine message and offers nothing', () => {
    const p = plainError(err('training.bad', '/training/seq_len'), s({ tp: 1 }), new Set());
    expect(p).toEqual({ words: 'engine says training.bad' });
  });
});

describe('followingGpus', () => {
  const refused = (code: string, fewest?: number) => ({ ...err(code), ...(fewest === undefined ? {} : { fewest_devices: fewest }) });
  const serve = { model: 'deepseek-r1', system: 'dgx-h100', num_devices: 1, parallel: 'auto', inference: { precision: 'fp8' } };
  it('a model or system picked that the starting GPUs cannot hold: the fewest the engine found', () => {
    expect(followingGpus(refused('parallel.auto_no_layout', 16), serve, '/model', new Set(['/model']))).toBe(16);
    expect(followingGpus(refused('parallel.auto_no_layout', 16), serve, '/system', new Set(['/system']))).toBe(16);
    const rl = { num_devices: 8, rl: { placement: 'colocated' } };
    expect(followingGpus(refused('rl.rollout_does_not_fit', 24), rl, '/model', new Set())).toBe(24);
    expect(followingGpus(refused('rl.train_no_layout', 16), rl, '/model', new Set())).toBe(16);
  });
  it('GPUs the person set, another edit, no count past theirs, another error, a split RL job: nothing follows', () => {
    expect(followingGpus(refused('parallel.auto_no_layout', 16), serve, '/model', new Set(['/num_devices', '/model']))).toBeUndefined();
    expect(followingGpus(refused('parallel.auto_no_layout', 16), serve, '/inference/prompt_len', new Set())).toBeUndefined();
    expect(followingGpus(refused('parallel.auto_no_layout', 16), serve, undefined, new Set())).toBeUndefined();
    expect(followingGpus(refused('parallel.auto_no_layout'), serve, '/model', new Set())).toBeUndefined();
    expect(followingGpus(refused('parallel.auto_no_layout', 1), serve, '/model', new Set())).toBeUndefined();
    expect(followingGpus(refused('memory.does_not_fit', 16), serve, '/model', new Set())).toBeUndefined();
    expect(followingGpus(refused('rl.rollout_does_not_fit', 24), { num_devices: 8, rl: { placement: 'split' } }, '/model', new Set())).toBeUndefined();
  });
});

describe('WARNING_WORDS', () => {
  it('words only warning codes the contract lists', async () => {
    const { WARNING_WORDS } = await import('../../src/ui/words');
    const { readFileSync } = await import('node:fs');
    const { ROOT } = await import('../wasm');
    const contract = readFileSync(`${ROOT}docs/contract.md`, 'utf8');
    const warnings = contract.slice(contract.indexOf('## Warnings'), contract.indexOf('## Share URL'));
    for (const code of Object.keys(WARNING_WORDS)) expect(warnings, code).toContain(`| \`${code}\` |`);
  });
});

describe('reasonWords', () => {
  it('says why layouts were set aside in words', async () => {
    const { reasonWords } = await import('../../src/ui/words');
    expect(reasonWords('memory.does_not_fit')).toBe('that do not fit in GPU memory');
    expect(reasonWords('parallel.offload_in_inference')).toBe('for offload in inference');
  });
});

describe('a value out of range', () => {
  // The reader's message (core/io/reader.h) as the engine writes it.
  const range = (message: string, path = '/num_devices') => ({ code: 'scenario.out_of_range', path, message });
  it('says the field by its label, which way, and the range with readable numbers', () => {
    const e = range("'num_devices' = 1000000000000 is outside the accepted range [1, 100000000]");
    expect(plainError(e, s('auto'), new Set(), () => 'GPUs').words).toBe('GPUs = 1,000,000,000,000 is above what the engine accepts (1 to 100,000,000)');
    expect(plainError(range("'bandwidth_GBps' = 1e-09 is outside the accepted range [1e-06, 100000000]", '/system/scale_up/bandwidth_GBps'), s('auto'), new Set()).words).toBe(
      'bandwidth GBps = 1e-9 is below what the engine accepts (0.000001 to 100,000,000)',
    );
  });
  it('finds the reader\'s words inside a message a caller prefixed', () => {
    const e = range("study gpus: 'num_devices' = 0 is outside the accepted range [1, 100000000]");
    expect(plainError(e, s('auto'), new Set(), () => 'GPUs').words).toBe('GPUs = 0 is below what the engine accepts (1 to 100,000,000)');
  });
  it('keeps the engine message for any other form, its key said as its field says it', () => {
    const e = range("'x' = 0.5 is outside the accepted range: 0 (not modelled) or [1, 2]");
    expect(plainError(e, s('auto'), new Set()).words).toBe(e.message);
    expect(plainError(e, s('auto'), new Set(), () => 'X').words).toBe('X = 0.5 is outside the accepted range: 0 (not modelled) or [1, 2]');
  });
});

// Probe 57: messages the page showed in the engine's own text, on the engine's own messages (the
// wasm module), so that a change of its wording that the words no longer read shows here.
describe('engine messages in the page’s words (probe 57)', () => {
  // The labels the page shows beside the form and in "Every setting" (app.ts fieldLabel reads them from the DOM).
  const LABELS: Record<string, string> = {
    '/num_devices': 'GPUs',
    '/training/global_batch': 'Global batch',
    '/parallel/dp': 'Data (dp)',
    '/parallel/micro_batch': 'Micro-batch',
    '/parallel/tp': 'Tensor (tp)',
    '/rl/rollout_devices': 'Rollout GPUs',
    '/rl/train_devices': 'Training GPUs (split)',
  };
  const label = (p: string): string | undefined => LABELS[p];
  const base = { schema_version: 1, model: 'llama3-70b', system: 'dgx-h100', num_devices: 64, parallel: { tp: 8, pp: 2, micro_batch: 1, recompute: 'none', zero_stage: 1 }, training: { global_batch: 512, seq_len: 8192, precision: 'bf16' } };
  const rlJob = { schema_version: 1, model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: 8, rl: { algorithm: 'grpo', prompts_per_step: 128, samples_per_prompt: 8, prompt_len: 256, response_len: 8192, train: 'auto' } };
  const refusal = async (s: unknown) => {
    const { loadModule } = await import('../wasm');
    const r = JSON.parse((await loadModule()).validate(JSON.stringify(s))) as { error?: { code: string; path: string; message: string } };
    expect(r.error).toBeDefined();
    return r.error!;
  };

  it('names the form’s fields in words where the message names their keys', async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...base, num_devices: 64.5 }, 'GPUs = 64.5 must be a whole number'],
      [{ ...base, num_devices: undefined }, 'GPUs is empty: it needs a value'],
      [{ ...base, num_devices: undefined, num_device: 64 }, 'GPUs is empty: it needs a value (“num_device” is written beside it: a typo?)'],
      [{ ...base, parallel: { ...base.parallel, micro_batch: 8 }, training: { ...base.training, global_batch: 100 } }, 'Global batch = 100 is not divisible by Data (dp) × Micro-batch = 32 (96 or 128 would, or a Micro-batch that divides Global batch / Data (dp))'],
      [{ ...rlJob, rl: { ...rlJob.rl, placement: 'split', rollout_devices: 6, train_devices: 6 } }, 'Rollout GPUs + Training GPUs (split) = 6 + 6 is not GPUs = 8'],
    ];
    for (const [s, words] of cases) {
      const e = await refusal(s);
      const p = plainError(e, s as Record<string, unknown>, new Set(), label);
      expect(p.words, e.message).toBe(words);
      expect(p.words).not.toMatch(/num_devices|global_batch|micro_batch|rollout_devices|'/);
    }
    // no label for a key (its field not on the page): the engine's key stays, the message unchanged
    const e = await refusal({ ...base, num_devices: 64.5 });
    expect(plainError(e, {}, new Set(), () => undefined).words).toBe(e.message);
    // words of English are not keys: "is", "by", "not" stay whatever a label function answers
    expect(fieldWords({ path: '/x', message: 'x is not divisible by tp=3' }, (p) => (p === '/parallel/tp' ? 'Tensor (tp)' : p === '/is' ? 'IS' : undefined))).toBe('x is not divisible by Tensor (tp) = 3');
  });

  it('an unknown model: the nearest few ids and the list that holds them all, not every id the engine knows', async () => {
    const e = await refusal({ ...base, model: 'llama-99b' });
    expect(e.code).toBe('preset.unknown_model');
    expect(e.message.split(',').length).toBeGreaterThan(40); // the engine lists them all
    const words = plainError(e, {}, new Set()).words;
    expect(words).toMatch(/^there is no model called “llama-99b”: did you mean llama2-7b or llama3-8b\? Every model the engine knows \(\d+\) is in the Model list of the form$/);
    expect(words.length).toBeLessThan(160);
    // without the engine's guess: the ids sharing the longest beginning
    const unguessed = plainError(await refusal({ ...base, model: 'mixtral-9x9b-instruct' }), {}, new Set()).words;
    expect(unguessed).toMatch(/did you mean mixtral-8x22b or mixtral-8x7b\?/);
    expect(unguessed).not.toContain('deepseek');
    const system = plainError(await refusal({ ...base, system: 'dgx-h1000' }), {}, new Set()).words;
    expect(system).toMatch(/^there is no system called “dgx-h1000”.*the GPU system list of the form$/);
  });

  it('a refusal of "auto" whose message counts layouts by code shows none of the codes', async () => {
    const s = { ...base, num_devices: 1e8, parallel: 'auto' };
    const e = await refusal(s);
    expect(e.message).toContain('parallel.pp_exceeds_layers x');
    const words = plainError(e, s, new Set(), label).words;
    expect(words).not.toMatch(/parallel\.|training\.| x\d/);
    expect(words).toMatch(/^no layout divides this job over these GPUs/);
  });

  it('the RL length warnings point to the form’s “Mean response” and “Mean prompt”, not to JSON and keys', async () => {
    const { loadModule } = await import('../wasm');
    const p = JSON.parse((await loadModule()).predict(JSON.stringify(rlJob))) as { warnings: Array<{ code: string; message: string }> };
    const response = p.warnings.find((w) => w.code === 'rl.response_len_assumed')!;
    const prompt = p.warnings.find((w) => w.code === 'rl.prompt_len_assumed')!;
    expect(response.message).toContain('{"mean", "max"}');
    const r = warningWords(response);
    expect(r).toMatch(/^Only the longest response is given \(8,192 tokens\): the responses’ mean is assumed at 1,024 tokens, as for a base or instruct model \(/);
    expect(r).toContain('read from the model’s name (“Response style” in “Every setting” states it)');
    expect(r).toContain('Type the mean in “Mean response”');
    expect(warningWords(prompt)).toMatch(/^Only the longest prompt is given \(256 tokens\): the prompts’ mean is assumed at 51 tokens \(a fifth of it.*Type the mean in “Mean prompt”/);
    for (const w of [r, warningWords(prompt)]) expect(w).not.toMatch(/\{"mean"|max_response_length|max_prompt_length|rl\.response_style|response_len|prompt_len/);
    // a message the words do not read stays the engine's
    expect(warningWords({ code: 'rl.response_len_assumed', message: 'something else' })).toBe('something else');
    // a stated style is said as stated
    const styled = JSON.parse((await loadModule()).predict(JSON.stringify({ ...rlJob, rl: { ...rlJob.rl, response_style: 'long_cot' } }))) as typeof p;
    expect(warningWords(styled.warnings.find((w) => w.code === 'rl.response_len_assumed')!)).toContain('as for a long chain-of-thought reasoning model (half the limit, at most 5,500: DeepScaleR’s R1-Distill-Qwen-1.5B wrote 3,500-5,500 under 8,192), as “Response style” in “Every setting” states.');
  });

  it('the full editor’s field keeps the engine’s numbers and remedy, its keys in words; a count of layouts by code gives way to the plain words', async () => {
    const tp3 = { ...base, parallel: { ...base.parallel, tp: 3, dp: 4 }, num_devices: 24 };
    const e = await refusal(tp3);
    expect(e.code).toBe('parallel.tp_not_divisor_of_heads');
    const atField = fieldMessage(e, plainError(e, tp3, new Set(), label).words, label);
    expect(atField).toMatch(/^Tensor \(tp\) = 3 does not divide heads = 64; .*\(Tensor \(tp\) 1, 2, 4 or 8 would\)$/);
    const auto = { ...base, num_devices: 1e8, parallel: 'auto' };
    const refused = await refusal(auto);
    const plain = plainError(refused, auto, new Set(), label).words;
    expect(fieldMessage(refused, plain, label)).toBe(plain);
    const unknown = await refusal({ ...base, model: 'llama-99b' });
    expect(fieldMessage(unknown, 'words', label)).toBe('words');
  });

  it('a search’s rejections read as phrases after their count', async () => {
    const { reasonWords } = await import('../../src/ui/words');
    expect(reasonWords('parallel.interleave_microbatches')).toBe('interleaved with a micro-batch count that is not a multiple of the pipeline stages');
    expect(reasonWords('parallel.pp_exceeds_layers')).toBe('with more pipeline stages than layers');
    expect(reasonWords('training.batch_not_divisible')).toBe('where dp × micro-batch does not divide the global batch');
    // "4 layers do not split over the stages" read as four layers, not four layouts (probe 61).
    expect(reasonWords('parallel.layers_not_divisible')).toBe('where the layers do not split evenly over the stages');
    expect(reasonWords('parallel.tp_not_divisor_of_heads')).toBe('where tp does not divide the heads');
  });
  it('an RL search says which placements it stopped early, and why they cannot rank', () => {
    expect(rejectedWords({ 'rl.rollout_does_not_fit': 56, 'rl.slower_than_listed': 19 }, 'placement')).toBe(
      '56 placements whose rollout engines hold no response, 19 whose rollout alone took longer than the steps listed (stopped there)',
    );
  });
});

describe('error texts without JSON, codes or mixed vocabularies (probe 61)', () => {
  const rlLabels: Record<string, string> = { '/rl/response_len/mean': 'Mean response', '/rl/response_len/max': 'Longest response', '/num_devices': 'GPUs' };
  const label = (p: string): string | undefined => rlLabels[p];
  const meanAboveMax = { code: 'serving.length_mean_out_of_range', path: '/rl/response_len/mean', message: "'response_len' needs min <= mean <= max (got min 1, mean 9000, max 8192)" };

  it('an RL mean above its longest: the form’s two fields by their labels, with the values', () => {
    const words = 'Mean response (9,000 tokens) must be at most Longest response (8,192 tokens)';
    expect(plainError(meanAboveMax, {}, new Set(), label).words).toBe(words);
    expect(fieldMessage(meanAboveMax, words, label)).toBe(words);
    // below the shortest; and a served stream's prompts, which the form has no field of: in words
    const below = { ...meanAboveMax, message: "'response_len' needs min <= mean <= max (got min 100, mean 50, max 8192)" };
    expect(plainError(below, {}, new Set(), label).words).toBe('Mean response (50 tokens) must be at least the shortest response (100 tokens)');
    const served = { code: 'serving.length_mean_out_of_range', path: '/inference/serving/input_len/mean', message: "'input_len' needs min <= mean <= max (got min 1, mean 3000, max 2048)" };
    const plain = plainError(served, {}, new Set(), label).words;
    expect(plain).toBe('the mean prompt length (3,000 tokens) must be at most the longest prompt (2,048 tokens)');
    for (const w of [plain, plainError(meanAboveMax, {}, new Set(), label).words]) expect(w).not.toMatch(/[{}"]|_len|min </);
  });

  it('an unknown key: the keys it may have all as the scenario writes them, none by a field’s label', () => {
    const e = { code: 'scenario.unknown_key', path: '/foo', message: "unknown key 'foo' (known keys here: calibration, economics, inference, model, name, num_devices, parallel, rl, schema_version, software, system, training)" };
    const words = plainError(e, {}, new Set(), label).words;
    expect(words).toBe(
      'the scenario has a key Optimus does not know, “foo” (the keys it may have: calibration, economics, inference, model, name, num_devices, parallel, rl, schema_version, software, system, training)',
    );
    expect(words).not.toContain('GPUs');
    const nested = { code: 'scenario.unknown_key', path: '/training/seqlen', message: "unknown key 'seqlen' (known keys here: global_batch, seq_len)" };
    expect(errorWords(nested, label)).toBe('“training” has a key Optimus does not know, “seqlen” (the keys it may have: global_batch, seq_len)');
    const typo = { code: 'scenario.unknown_key', path: '/trainig', message: "unknown key 'trainig'; did you mean 'training'? (known keys here: inference, model, training)" };
    expect(errorWords(typo, label)).toBe('the scenario has a key Optimus does not know, “trainig”; did you mean “training”? (the keys it may have: inference, model, training)');
  });

  it('a value out of range of a field the editor names by its key: that name, capitalised as the editor has it', () => {
    const e = { code: 'scenario.out_of_range', path: '/inference/serving/num_requests', message: "'num_requests' = 1000000000 is outside the accepted range [1, 1000000]" };
    const words = 'Number of requests = 1,000,000,000 is above what the engine accepts (1 to 1,000,000)';
    expect(plainError(e, {}, new Set(), label).words).toBe(words);
    expect(fieldMessage(e, words, label)).toBe(words);
    expect(rangeLabel('/inference/serving/num_requests', label)).toBe('Number of requests');
    expect(rangeLabel('/num_devices', label)).toBe('GPUs');
  });

  it('a search’s rejections: the first count with its noun, each reason after it, one in the singular', () => {
    expect(rejectedWords({ 'memory.does_not_fit': 41810, 'parallel.interleave_microbatches': 8616, 'parallel.layers_not_divisible': 4 }, 'layout')).toBe(
      '41,810 layouts that do not fit in GPU memory, 8,616 interleaved with a micro-batch count that is not a multiple of the pipeline stages, 4 where the layers do not split evenly over the stages',
    );
    expect(rejectedWords({ 'serving.kv_insufficient': 1 }, 'deployment')).toBe('1 deployment that leaves too little memory for the KV cache');
    expect(rejectedWords({ 'rl.rollout_layout_invalid': 2 }, 'placement')).toBe('2 placements whose rollout layout does not divide the model');
    expect(rejectedWords({ 'memory.does_not_fit': 1 }, 'layout')).toBe('1 layout that does not fit in GPU memory');
    expect(rejectedWords(undefined, 'layout')).toBe('');
  });
});
