// Fields that fix themselves (src/state/coupling.ts): every rule in both directions, derived when
// the person did not set the key, kept when they did.
import { describe, expect, it } from 'vitest';
import { couple, derivedDp, derivedSequenceParallel, isDerived, layoutProblem } from '../../src/state/coupling';

const llama70b = { layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn_hidden: 28672 };
const deepseek = { layers: 61, hidden: 7168, heads: 128, kv_heads: 128, ffn_hidden: 18432, moe: { experts: 256, top_k: 8 } };
const none = new Set<string>();

function base(parallel: Record<string, unknown> = { tp: 8, pp: 2, dp: 4, sequence_parallel: true }): Record<string, unknown> {
  return { model: 'llama3-70b', system: 'dgx-h100', num_devices: 64, parallel, training: { global_batch: 512, seq_len: 8192 } };
}

describe('dp is the rest of the devices unless set', () => {
  for (const [changed, edit] of [
    ['/num_devices', (s: any) => (s.num_devices = 128)],
    ['/parallel/tp', (s: any) => (s.parallel.tp = 4)],
    ['/parallel/pp', (s: any) => (s.parallel.pp = 4)],
    ['/parallel/cp', (s: any) => (s.parallel.cp = 2)],
  ] as const) {
    it(`${changed}: a dp the person did not set follows (the key goes, the engine derives it)`, () => {
      const before = base();
      const after = structuredClone(before);
      edit(after);
      const r = couple(before, after, changed, none);
      expect((r.scenario.parallel as any).dp).toBeUndefined();
      expect(r.followed).toContain('/parallel/dp');
      expect(isDerived(r.scenario, '/parallel/dp')).toBe(true);
    });
    it(`${changed}: a dp the person set is kept`, () => {
      const before = base();
      const after = structuredClone(before);
      edit(after);
      const r = couple(before, after, changed, new Set(['/parallel/dp']));
      expect((r.scenario.parallel as any).dp).toBe(4);
      expect(r.followed).not.toContain('/parallel/dp');
      expect(isDerived(r.scenario, '/parallel/dp')).toBe(false);
    });
  }
  it('other edits leave dp alone', () => {
    const s = base();
    const after = structuredClone(s);
    (after.training as any).global_batch = 1024;
    expect((couple(s, after, '/training/global_batch', none).scenario.parallel as any).dp).toBe(4);
  });
  it('derivedDp is num_devices / (tp pp cp), or nothing when that does not divide', () => {
    expect(derivedDp({ num_devices: 64, parallel: { tp: 8, pp: 2 } })).toBe(4);
    expect(derivedDp({ num_devices: 64, parallel: { tp: 8, pp: 2, cp: 2 } })).toBe(2);
    expect(derivedDp({ num_devices: 48, parallel: { tp: 8, pp: 4 } })).toBeUndefined();
    expect(derivedDp({ num_devices: 8, parallel: 'auto' })).toBeUndefined();
  });
});

describe('sequence parallelism follows tp (and MoE) unless set', () => {
  for (const changed of ['/parallel/tp', '/model', '/model/moe', '/model/moe/experts']) {
    it(`${changed}: an unset one follows`, () => {
      const s = base();
      const after = structuredClone(s);
      (after.parallel as any).tp = 1;
      const r = couple(s, after, changed, none);
      expect((r.scenario.parallel as any).sequence_parallel).toBeUndefined();
      expect(derivedSequenceParallel(r.scenario)).toBe(false);
    });
    it(`${changed}: a set one is kept`, () => {
      const s = base();
      const after = structuredClone(s);
      const r = couple(s, after, changed, new Set(['/parallel/sequence_parallel']));
      expect((r.scenario.parallel as any).sequence_parallel).toBe(true);
    });
  }
  it('derivedSequenceParallel is tp > 1', () => {
    expect(derivedSequenceParallel({ parallel: { tp: 2 } })).toBe(true);
    expect(derivedSequenceParallel({ parallel: { tp: 1 } })).toBe(false);
    expect(derivedSequenceParallel({ parallel: {} })).toBe(false);
  });
});

describe('a closed loop’s requests follow its users', () => {
  const serving = (sv: Record<string, unknown>) => ({ ...base(), inference: { prompt_len: 100, output_len: 10, serving: sv } });
  const edit = (sv: Record<string, unknown>, typed: string[] = []) =>
    (couple(serving({ arrival: 'closed', concurrency: 16, num_requests: 500 }), serving(sv), '/inference/serving/concurrency', new Set(typed)).scenario.inference as any).serving;
  it('ten requests a user, up and down', () => {
    expect(edit({ arrival: 'closed', concurrency: 200, num_requests: 500 }).num_requests).toBe(2000);
    expect(edit({ arrival: 'closed', concurrency: 4, num_requests: 500 }).num_requests).toBe(40);
  });
  it('at most the engine’s million', () => {
    expect(edit({ arrival: 'closed', concurrency: 500000, num_requests: 500 }).num_requests).toBe(1_000_000);
  });
  it('requests the person set stay', () => {
    expect(edit({ arrival: 'closed', concurrency: 200, num_requests: 500 }, ['/inference/serving/num_requests']).num_requests).toBe(500);
  });
});

describe('switching the serving arrival drops the other arrival’s keys', () => {
  const serving = (sv: Record<string, unknown>) => ({ ...base(), inference: { prompt_len: 100, output_len: 10, serving: sv } });
  it('poisson -> closed: requests_per_s goes, concurrency starts at 32', () => {
    const before = serving({ arrival: 'poisson', requests_per_s: 6, num_requests: 100 });
    const after = serving({ arrival: 'closed', requests_per_s: 6, num_requests: 100 });
    const sv = (couple(before, after, '/inference/serving/arrival', none).scenario.inference as any).serving;
    expect(sv).toEqual({ arrival: 'closed', concurrency: 32, num_requests: 100 });
  });
  it('closed -> poisson: concurrency goes, requests_per_s starts at 4', () => {
    const before = serving({ arrival: 'closed', concurrency: 8 });
    const after = serving({ arrival: 'poisson', concurrency: 8 });
    expect((couple(before, after, '/inference/serving/arrival', none).scenario.inference as any).serving).toEqual({ arrival: 'poisson', requests_per_s: 4 });
  });
  it('a value the arrival already had is kept', () => {
    const before = serving({ arrival: 'closed', concurrency: 8, requests_per_s: 2 });
    const after = serving({ arrival: 'poisson', concurrency: 8, requests_per_s: 2 });
    expect((couple(before, after, '/inference/serving/arrival', none).scenario.inference as any).serving).toEqual({ arrival: 'poisson', requests_per_s: 2 });
  });
  it('offline with a concurrency (the engine refuses it) -> closed, the one-click fix: the concurrency is kept', () => {
    const before = serving({ arrival: 'offline', concurrency: 16 });
    const after = serving({ arrival: 'closed', concurrency: 16 });
    expect((couple(before, after, '/inference/serving/arrival', none).scenario.inference as any).serving).toEqual({ arrival: 'closed', concurrency: 16 });
  });
  it('offline drops both', () => {
    const after = serving({ arrival: 'offline', concurrency: 8, requests_per_s: 2 });
    expect((couple(after, after, '/inference/serving/arrival', none).scenario.inference as any).serving).toEqual({ arrival: 'offline' });
  });
});

describe('choosing a model or a system keeps a valid layout or takes "auto"', () => {
  it('a layout the new model divides is kept (dp follows unless set)', () => {
    const s = base();
    const after = { ...structuredClone(s), model: 'llama3-8b' };
    const r = couple(s, after, '/model', none, { model: { layers: 32, heads: 32, kv_heads: 8, ffn_hidden: 14336 } });
    expect(r.scenario.parallel).toEqual({ tp: 8, pp: 2 });
    expect(r.notes).toEqual([]);
  });
  it('a layout the new model cannot take becomes "auto" with a note', () => {
    const s = base({ tp: 8, pp: 2, dp: 4 });
    const after = { ...structuredClone(s), model: 'small' };
    const r = couple(s, after, '/model', none, { model: { layers: 1, heads: 12, kv_heads: 12, ffn_hidden: 3072 } });
    expect(r.scenario.parallel).toBe('auto');
    expect(r.notes[0]).toMatch(/does not divide the model's 12 attention heads/);
  });
  it('expert parallelism goes with a dense model', () => {
    const s = { ...base({ tp: 1, ep: 8, etp: 1 }), model: 'deepseek-v3' };
    const after = { ...structuredClone(s), model: 'llama3-70b' };
    expect(couple(s, after, '/model', none, { model: llama70b }).scenario.parallel).toEqual({ tp: 1 });
  });
  it('expert parallelism stays with an MoE model it divides', () => {
    const s = { ...base({ tp: 1, ep: 8 }), model: 'deepseek-v3' };
    expect(couple(s, structuredClone(s), '/system', none, { model: deepseek }).scenario.parallel).toEqual({ tp: 1, ep: 8 });
  });
  it('"auto" stays "auto"', () => {
    const s = base();
    s.parallel = 'auto';
    expect(couple(s, { ...s, model: 'x' }, '/model', none, { model: llama70b }).scenario.parallel).toBe('auto');
  });
  it('layoutProblem names the rule broken, in words', () => {
    expect(layoutProblem(base({ tp: 3 }), { model: llama70b })).toMatch(/3 does not divide the model's 64 attention heads/);
    expect(layoutProblem(base({ pp: 81 }), { model: llama70b })).toMatch(/81 pipeline stages/);
    expect(layoutProblem(base({ ep: 3 }), { model: deepseek })).toMatch(/256 experts/);
    expect(layoutProblem(base({ ep: 2 }), { model: llama70b })).toMatch(/mixture-of-experts/);
    expect(layoutProblem(base({ tp: 8 }), { model: llama70b })).toBeNull();
  });
});

describe('a task\'s starting layout follows as "auto" until the person sets a layout key', () => {
  for (const changed of ['/model', '/system', '/num_devices']) {
    it(`${changed}: follows when the layout came with the task`, () => {
      const s = base({ tp: 8, pp: 2, micro_batch: 2 });
      const r = couple(s, { ...structuredClone(s), num_devices: 256 }, changed, none, { model: llama70b, layoutFollows: true });
      expect(r.scenario.parallel).toBe('auto');
      expect(r.followed).toContain('/parallel');
    });
    it(`${changed}: kept once the person set a layout key`, () => {
      const s = base({ tp: 8, pp: 2, micro_batch: 2 });
      const r = couple(s, structuredClone(s), changed, new Set(['/parallel/micro_batch']), { model: llama70b, layoutFollows: true });
      expect(r.scenario.parallel).toMatchObject({ tp: 8, pp: 2, micro_batch: 2 });
    });
    it(`${changed}: kept when the layout did not come with a task (a link)`, () => {
      const s = base({ tp: 8, pp: 2, micro_batch: 2 });
      const r = couple(s, structuredClone(s), changed, none, { model: llama70b });
      expect(r.scenario.parallel).toMatchObject({ tp: 8, pp: 2, micro_batch: 2 });
    });
  }
  it('other edits keep the starting layout', () => {
    const s = base({ tp: 8, pp: 2 });
    expect(couple(s, structuredClone(s), '/training/seq_len', none, { layoutFollows: true }).scenario.parallel).toEqual({ tp: 8, pp: 2 });
  });
});

describe('isDerived', () => {
  it('an absent key is derived, a present one is set', () => {
    expect(isDerived({ parallel: { tp: 1 } }, '/parallel/dp')).toBe(true);
    expect(isDerived({ parallel: { dp: 2 } }, '/parallel/dp')).toBe(false);
    expect(isDerived({ parallel: 'auto' }, '/parallel/dp')).toBe(true);
  });
});

describe('a length’s mean and longest follow each other when an edit crosses them', () => {
  const rl = (response_len: Record<string, number>) => ({ model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: 8, rl: { prompts_per_step: 128, samples_per_prompt: 8, prompt_len: { mean: 256, max: 1024 }, response_len } });
  const edit = (before: any, patch: Record<string, number>) => {
    const after = structuredClone(before);
    Object.assign(after.rl.response_len, patch);
    return after;
  };
  it('the longest lowered below the mean: the mean follows at the ratio it had', () => {
    const before = rl({ mean: 2048, max: 8192 });
    const r = couple(before, edit(before, { max: 1000 }), '/rl/response_len/max', new Set(['/rl/response_len/max']));
    expect((r.scenario.rl as any).response_len).toEqual({ mean: 250, max: 1000 });
    expect(r.followed).toEqual(['/rl/response_len/mean']);
    expect(r.notes.join(' ')).toContain('mean followed to 250 tokens');
  });
  it('the mean raised past the longest: the longest follows', () => {
    const before = rl({ mean: 2048, max: 8192 });
    const r = couple(before, edit(before, { mean: 10000 }), '/rl/response_len/mean', new Set(['/rl/response_len/mean']));
    expect((r.scenario.rl as any).response_len).toEqual({ mean: 10000, max: 40000 });
    expect(r.followed).toEqual(['/rl/response_len/max']);
  });
  it('an end the person set does not move, nor does anything when the edit keeps mean < longest', () => {
    const before = rl({ mean: 2048, max: 8192 });
    const typed = new Set(['/rl/response_len/mean', '/rl/response_len/max']);
    expect((couple(before, edit(before, { max: 1000 }), '/rl/response_len/max', typed).scenario.rl as any).response_len).toEqual({ mean: 2048, max: 1000 });
    const fine = couple(before, edit(before, { max: 4096 }), '/rl/response_len/max', new Set());
    expect((fine.scenario.rl as any).response_len).toEqual({ mean: 2048, max: 4096 });
    expect(fine.followed).toEqual([]);
  });
  it('a limit too short for any mean above the shortest is left for the engine to refuse', () => {
    const before = rl({ mean: 2048, max: 8192 });
    const r = couple(before, edit(before, { max: 2 }), '/rl/response_len/max', new Set());
    expect((r.scenario.rl as any).response_len).toEqual({ mean: 2048, max: 2 });
    expect(r.followed).toEqual([]);
  });
});

describe('a length written whole (the short form writes {mean, max} at once)', () => {
  const before = { rl: { response_len: { mean: 2048, max: 8192 } } };
  it('the end that changed moves the other unless the person typed it', () => {
    const after = { rl: { response_len: { mean: 2048, max: 1000 } } };
    expect((couple(before, after, '/rl/response_len', new Set(['/rl/response_len', '/rl/response_len/max'])).scenario.rl as any).response_len).toEqual({ mean: 250, max: 1000 });
    const typedMean = new Set(['/rl/response_len', '/rl/response_len/max', '/rl/response_len/mean']);
    expect((couple(before, after, '/rl/response_len', typedMean).scenario.rl as any).response_len).toEqual({ mean: 2048, max: 1000 });
  });
  it('both ends changed at once (a JSON edit): nothing follows', () => {
    const after = { rl: { response_len: { mean: 3000, max: 1000 } } };
    expect(couple(before, after, '/rl/response_len', new Set()).followed).toEqual([]);
  });
});

describe('the served precision follows the model’s published checkpoint unless set', () => {
  const r1 = { ...deepseek, name: 'DeepSeek-R1', checkpoint_precision: 'fp8', checkpoint_block_scaled: true };
  const serve = (model: string, inference: Record<string, unknown>) => ({ model, system: 'dgx-h200', num_devices: 8, parallel: { tp: 8 }, inference: { prompt_len: 1000, output_len: 250, ...inference } });
  it('a 16-bit serve moved to an FP8 checkpoint: fp8 with its block scales, and a note', () => {
    const before = serve('llama3-70b', { precision: 'bf16' });
    const after = { ...structuredClone(before), model: 'deepseek-r1' };
    const r = couple(before, after, '/model', none, { model: r1, modelBefore: { ...llama70b, name: 'Llama 3 70B' } });
    expect((r.scenario.inference as any).precision).toBe('fp8');
    expect((r.scenario.inference as any).fp8_block_scaled).toBe(true);
    expect(r.followed).toContain('/inference/precision');
    expect(r.notes.join(' ')).toContain('DeepSeek-R1 is published with fp8 block-scaled weights');
  });
  it('back to a 16-bit model: bf16 again, the block scales go (the engine refuses them beside bf16)', () => {
    const before = serve('deepseek-r1', { precision: 'fp8', fp8_block_scaled: true });
    const after = { ...structuredClone(before), model: 'llama3-70b' };
    const r = couple(before, after, '/model', none, { model: { ...llama70b, name: 'Llama 3 70B' }, modelBefore: r1 });
    expect((r.scenario.inference as any).precision).toBe('bf16');
    expect((r.scenario.inference as any).fp8_block_scaled).toBeUndefined();
  });
  it('a precision the person set, or one away from the previous model’s own, stays', () => {
    const before = serve('llama3-70b', { precision: 'bf16' });
    const after = { ...structuredClone(before), model: 'deepseek-r1' };
    expect((couple(before, after, '/model', new Set(['/inference/precision']), { model: r1, modelBefore: llama70b }).scenario.inference as any).precision).toBe('bf16');
    const int4 = serve('llama3-70b', { precision: 'int4' });
    const moved = { ...structuredClone(int4), model: 'deepseek-r1' };
    expect((couple(int4, moved, '/model', none, { model: r1, modelBefore: llama70b }).scenario.inference as any).precision).toBe('int4');
  });
  it('an absent precision stays absent (the engine serves the checkpoint), and the RL rollout’s follows too', () => {
    const before = serve('llama3-70b', {});
    const after = { ...structuredClone(before), model: 'deepseek-r1' };
    expect((couple(before, after, '/model', none, { model: r1, modelBefore: llama70b }).scenario.inference as any).precision).toBeUndefined();
    const rl = { model: 'llama3-70b', system: 'dgx-h200', num_devices: 64, rl: { prompts_per_step: 64, rollout: { precision: 'bf16' } } };
    const rlAfter = { ...structuredClone(rl), model: 'deepseek-r1' };
    const r = couple(rl, rlAfter, '/model', none, { model: r1, modelBefore: llama70b });
    expect((r.scenario.rl as any).rollout.precision).toBe('fp8');
    expect((r.scenario.rl as any).rollout.fp8_block_scaled).toBeUndefined();
  });
});

describe('the layer count follows a layer pattern', () => {
  const edit = (pattern: string) => {
    const before = { model: { ...llama70b, layers: 4 } };
    const after = structuredClone(before) as { model: Record<string, unknown> };
    after.model.layer_pattern = pattern;
    return couple(before, after, '/model/layer_pattern', none);
  };
  it('a mixer and the FFN after it are one layer; a mixer or an FFN alone one', () => {
    // Nemotron 3 Nano: 52 sublayers, 29 layers.
    const r = edit('MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME');
    expect((r.scenario.model as Record<string, unknown>).layers).toBe(29);
    expect(r.followed).toEqual(['/model/layers']);
    expect(r.notes[0]).toContain('29');
    expect((edit('M-M*--E').scenario.model as Record<string, unknown>).layers).toBe(5);
  });
  it('a pattern the engine will refuse, or the same count, leaves layers alone', () => {
    expect((edit('*-x').scenario.model as Record<string, unknown>).layers).toBe(4);
    expect(edit('*-*-*-*-').followed).toEqual([]);
  });
});
