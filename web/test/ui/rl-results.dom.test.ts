// @vitest-environment happy-dom
// The RL results section on the real engine's answer (the wasm module): a card per number of the
// step with the engine's value, its 80% range where the engine gives one and a formula with the
// scenario's numbers; only the phases the job has; the idle time of each pool for a split job;
// the memory titled for the trainer (no KV cache) and each pool's own.
import { beforeAll, describe, expect, it } from 'vitest';
import type { OptimusModule } from '../../src/engine/protocol';
import type { Prediction, ResolvedScenario } from '../../src/engine/types';
import { getPath } from '../../src/ui/metrics';
import { renderResults, rlBandWords } from '../../src/ui/results';
import { loadModule } from '../wasm';

let mod: OptimusModule;
const run = (s: unknown): { prediction: Prediction; resolved: ResolvedScenario } => {
  const text = JSON.stringify(s);
  return { prediction: JSON.parse(mod.predict(text)) as Prediction, resolved: (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario };
};
// The RL task's starter job (state/tasks.ts), colocated or split 4 + 4 one step off-policy.
const job = (placement: 'colocated' | 'split') => ({
  schema_version: 1,
  model: 'qwen2.5-7b',
  system: 'dgx-h100',
  num_devices: 8,
  rl: {
    algorithm: 'grpo',
    prompts_per_step: 128,
    samples_per_prompt: 8,
    prompt_len: { mean: 256, max: 1024 },
    response_len: { mean: 2048, max: 8192 },
    placement,
    train: 'auto',
    ...(placement === 'split' ? { rollout_devices: 4, train_devices: 4, async: { staleness: 1 } } : {}),
  },
});

beforeAll(async () => {
  mod = await loadModule();
});

const BANDED = ['rl.step_time_s', 'rl.phases_s.rollout', 'rl.phases_s.reference', 'rl.phases_s.old_logprob', 'rl.phases_s.train', 'rl.phases_s.weight_sync', 'rl.tokens_per_s_per_gpu', 'rl.rollout.output_tokens_per_s', 'rl.rollout.longest_response_s', 'rl.train.iteration_time_s', 'rl.train.mfu'];
const UNBANDED = ['rl.rollout.mean_response_s', 'rl.rollout.mean_batch'];

describe('RL results section', () => {
  for (const placement of ['colocated', 'split'] as const) {
    it(`${placement}: every card shows the engine's value, its range and a formula`, () => {
      const cur = run(job(placement));
      const p = cur.prediction;
      expect(p.rl).toBeDefined();
      expect(p.regime?.rl).toBe(`rl/${placement}`);
      const el = document.createElement('div');
      renderResults(el, cur, null);
      const sec = el.querySelector('[data-testid="rl"]')!;
      expect(sec).not.toBeNull();
      expect(sec.querySelector('h3')!.textContent).toBe('RL post-training: one step');
      for (const path of [...BANDED, ...UNBANDED]) {
        const v = sec.querySelector(`[data-metric="${path}"]`);
        expect(v, path).not.toBeNull();
        expect(v!.getAttribute('data-value')).toBe(String(getPath(p, path)));
        const card = v!.closest('.metric')!;
        expect(card.querySelector('details.how summary')!.textContent).toBe('Show formula');
        expect(card.querySelector('.formula')!.textContent!.length, path).toBeGreaterThan(20);
        const band = card.querySelector(`[data-band-metric="${path}"]`);
        if (BANDED.includes(path)) {
          const u = p.uncertainty![path]!;
          expect(band, path).not.toBeNull();
          expect(Number(band!.getAttribute('data-low'))).toBe(u.low);
          expect(Number(band!.getAttribute('data-high'))).toBe(u.high);
          expect(u.low).toBeLessThanOrEqual(Number(getPath(p, path)));
          expect(u.high).toBeGreaterThanOrEqual(Number(getPath(p, path)));
        } else expect(band, path).toBeNull();
      }
      // The step's formula states the scenario's phases, in the placement's composition.
      const step = sec.querySelector('[data-metric="rl.step_time_s"]')!.closest('.metric')!;
      const formula = step.querySelector('.formula')!.textContent!;
      expect(formula).toContain(placement === 'colocated' ? 'rollout + reward + reference + old log-probs + train + weight sync + swap' : 'max(rollout, reward + reference + old log-probs + train) + weight sync');
      expect(step.querySelector('dl')!.textContent).toContain('rollout');
      // Only the phases the job has: a rule-based reward has none; the swap only colocated.
      expect(p.rl!.phases_s.reward).toBe(0);
      expect(sec.querySelector('[data-metric="rl.phases_s.reward"]')).toBeNull();
      expect(sec.querySelector('[data-metric="rl.phases_s.swap"]') !== null).toBe(placement === 'colocated');
      // A split job's idle pool has a card (the faster pool waits); colocated has none.
      const idle = [p.rl!.idle_s.rollout, p.rl!.idle_s.train].filter((x) => x > 0).length;
      expect(sec.querySelectorAll('[data-metric^="rl.idle_s."]').length).toBe(idle);
      if (placement === 'split') expect(idle).toBeGreaterThan(0);
      // The intro says plainly how far to trust the step, with the band's own numbers.
      const trust = sec.querySelector('[data-testid="rl-trust"]')!.textContent!;
      const b = p.uncertainty!['rl.step_time_s']!;
      expect(trust).toContain('least accurate');
      const hi = b.high / p.rl!.step_time_s;
      expect(trust).toContain(`${hi.toFixed(hi < 2 ? 2 : 1)}×`);
      expect(trust).toContain(`${b.cases} published measurements`);
      // The note under the cards says what the ranges come from in words, the codes in its title.
      const note = sec.querySelector('[data-testid="band-note"]')!;
      expect(note.textContent).toContain(`${b.cases} published RL step times${placement === 'split' ? ' of jobs on two pools' : ''}`);
      expect(note.textContent).not.toMatch(/rl\//);
      expect(note.getAttribute('title')).toContain(b.regime);
      // No internal code on the card faces (codes only in the details).
      expect([...sec.querySelectorAll('.label')].map((x) => x.textContent).join(' ')).not.toMatch(/rl\.|_s\b|old_logprob/);
      // Memory: the trainer's footprint, no KV cache card, and each pool's own number.
      const titles = [...el.querySelectorAll('section h3')].map((x) => x.textContent);
      expect(titles).toContain('Memory per device: the trainer');
      expect(titles).not.toContain('Memory per device: inference');
      expect(el.querySelector('[data-metric="memory.per_device_bytes.kv_cache"]')).toBeNull();
      expect(el.querySelector('[data-metric="memory.per_device_bytes.total"]')!.getAttribute('data-value')).toBe(String(p.memory.per_device_bytes.total));
      expect(el.querySelector('[data-band-metric="memory.per_device_bytes.total"]')).not.toBeNull();
      for (const pool of ['rollout', 'train'])
        expect(el.querySelector(`[data-metric="rl.memory.${pool}.per_device_bytes"]`)!.getAttribute('data-value')).toBe(String(getPath(p, `rl.memory.${pool}.per_device_bytes`)));
    });
  }
});

describe('the RL band in words', () => {
  it('says which way the published steps leaned only where they did', () => {
    expect(rlBandWords(0.95, 13.7, 19)).toContain('between 0.95× and 13.7× this estimate (80% of 19 published measurements), mostly longer');
    expect(rlBandWords(0.73, 1.36, 10)).toContain('between 0.73× and 1.36×');
    expect(rlBandWords(0.73, 1.36, 10)).toContain('on both sides');
    expect(rlBandWords(0.73, 1.36, 10)).not.toContain('mostly');
    expect(rlBandWords(0.3, 1.1, 12)).toContain('mostly shorter');
    expect(rlBandWords(1.0, 2.16, 16)).toContain('mostly longer');
  });
  it('credits a raised upper end to the phase that raised it, not to the step rows', () => {
    const words = rlBandWords(0.73, 3.6, 10, { fittedHigh: 1.36, by: 'rl.phases_s.rollout' });
    expect(words).toContain('between 0.73× and 1.36× this estimate (80% of 10 published measurements)');
    expect(words).toContain('reaches 3.6× because the rollout’s own range does');
    expect(words).not.toContain('and 3.6× this estimate');
    expect(words).toContain('mostly longer');
  });
});

describe('the whole RL run (rl.train_steps)', () => {
  it('a section with the engine’s days, GPU-hours, energy and cost, each with its formula; none without train_steps', () => {
    const planned = job('colocated');
    const cur = run({ ...planned, rl: { ...planned.rl, train_steps: 200 } });
    const el = document.createElement('div');
    renderResults(el, cur, null);
    const sec = el.querySelector('[data-testid="rl-run"]')!;
    expect(sec).not.toBeNull();
    expect(sec.querySelector('h3')!.textContent).toBe('The whole RL run');
    for (const path of ['rl.run.wall_days', 'rl.run.gpu_hours', 'rl.run.energy_mwh', 'rl.run.cost_usd']) {
      const v = sec.querySelector(`[data-metric="${path}"]`);
      expect(v, path).not.toBeNull();
      expect(v!.getAttribute('data-value')).toBe(String(getPath(cur.prediction, path)));
      expect(v!.closest('.metric')!.querySelector('details.how .formula')!.textContent).not.toBe('');
    }
    expect(Number(sec.querySelector('[data-metric="rl.run.wall_days"]')!.getAttribute('data-value'))).toBeCloseTo((200 * cur.prediction.rl!.step_time_s) / 86400, 9);
    // GPUs without a price: no cost card (the engine gives none), the rest as before.
    const unpriced = run({ ...planned, system: 'dgx-h200', rl: { ...planned.rl, train_steps: 200 } });
    const el2 = document.createElement('div');
    renderResults(el2, unpriced, null);
    expect(el2.querySelector('[data-testid="rl-run"] [data-metric="rl.run.gpu_hours"]')).not.toBeNull();
    expect(el2.querySelector('[data-metric="rl.run.cost_usd"]')).toBeNull();
    const none = document.createElement('div');
    renderResults(none, run(planned), null);
    expect(none.querySelector('[data-testid="rl-run"]')).toBeNull();
  });
});
