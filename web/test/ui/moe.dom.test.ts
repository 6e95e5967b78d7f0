// @vitest-environment happy-dom
// The results of a mixture-of-experts model as the page shows them, on the real engine's answer
// (the wasm module) for DeepSeek-V3 on 256 GB300: parameter counts, the "Mixture of experts"
// block (each number with data-metric/data-value, a plain-words line and its formula, whose
// inputs reproduce the number), and the expert all-to-all as its own cause in the time chart.
// A dense model shows its parameter counts and no MoE block.
import { beforeAll, describe, expect, it } from 'vitest';
import { trainingTimeSpec } from '../../src/charts/specs';
import type { OptimusModule } from '../../src/engine/protocol';
import type { Prediction, ResolvedScenario } from '../../src/engine/types';
import { explain, MOE_METRICS, moeLayers, PARAM_METRICS, routedTokens, TRAINING_METRICS } from '../../src/ui/metrics';
import { renderResults } from '../../src/ui/results';
import { DEEPSEEK_V3_GB300 } from '../scenarios';
import { loadModule, readJson } from '../wasm';

let mod: OptimusModule;
const run = (s: unknown): { prediction: Prediction; resolved: ResolvedScenario } => {
  const text = JSON.stringify(s);
  return { prediction: JSON.parse(mod.predict(text)) as Prediction, resolved: (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario };
};
let moe: ReturnType<typeof run>;
let dense: ReturnType<typeof run>;

beforeAll(async () => {
  mod = await loadModule();
  moe = run(DEEPSEEK_V3_GB300);
  dense = run(readJson('presets/scenarios/default.json'));
});

const shownValues = (el: HTMLElement): Record<string, string> => Object.fromEntries([...el.querySelectorAll<HTMLElement>('[data-metric]')].map((e) => [e.dataset.metric!, e.dataset.value!]));
const inputsOf = (path: string, c: ReturnType<typeof run>): Record<string, string> =>
  Object.fromEntries(explain([...MOE_METRICS, ...PARAM_METRICS, ...TRAINING_METRICS].find((m) => m.path === path)!, { prediction: c.prediction, scenario: c.resolved })!.inputs);

// DeepSeek-V3 (config.json): hidden 7168, 256 routed experts of width 2048 (SwiGLU: 3 matrices),
// top 8, 61 layers of which the first 3 are dense; measured routing with imbalance 1.2.
const EXPERT = 3 * 7168 * 2048;

describe('DeepSeek-V3 on 256 GB300: the engine numbers behind the MoE block', () => {
  it('is a valid scenario with a MoE report', () => {
    expect(moe.prediction).not.toHaveProperty('error');
    expect(moe.prediction.training?.moe).toBeDefined();
    expect(moeLayers(moe.prediction)).toBe(58);
    expect(moe.prediction.training?.moe?.layers_first_stage).toBe(27);
    expect(moe.prediction.training?.moe?.layers_per_device).toBe(31);
  });

  it('params: 671.0 billion total, 37.6 billion active = total − 58 × (256 − 8) experts', () => {
    const { total, active } = moe.prediction.params;
    expect(total / 1e9).toBeCloseTo(671.0, 1);
    expect(active).toBe(total - 58 * (256 - 8) * EXPERT);
  });

  it('tokens per expert = ⌈tokens routed to this rank × ep / experts × imbalance⌉', () => {
    const r = routedTokens(moe.resolved)!;
    expect(r).toEqual({ tokens: 4096, local: true }); // micro_batch 1 × seq_len 4096, tp 1
    expect(moe.prediction.training!.moe!.tokens_per_expert).toBe(Math.ceil(((4096 * 8 * 32) / 256) * 1.2));
    expect(inputsOf('training.moe.tokens_per_expert', moe)).toMatchObject({ 'tokens routed to this rank': '32,768', ep: '32', experts: '256', top_k: '8', imbalance: '1.2' });
  });

  it('all-to-all bytes = tokens × top_k × hidden × 2 bytes × imbalance (the busiest rank); expert-dp = dp / ep; expert parameters per device', () => {
    const m = moe.prediction.training!.moe!;
    expect(m.dispatch_bytes / (4096 * 8 * 7168 * 2)).toBeCloseTo(1.2, 12);
    expect(inputsOf('training.moe.dispatch_bytes', moe)).toMatchObject({ top_k: '8', imbalance: '1.2', 'bytes per activation element': '2' });
    expect(m.expert_dp).toBe(128 / 32);
    // The stage with the most experts: of the two pipeline stages (61 layers, 3 dense, the
    // longer one last), the second, 31 MoE layers to the first's 3 dense + 27; 256 / 32 experts each.
    expect(m.expert_params_per_device).toBe(31 * (256 / 32) * EXPERT);
    expect(inputsOf('training.moe.expert_params_per_device', moe)['MoE layers on its stage']).toBe('31');
    expect(inputsOf('training.moe.all_to_all_layer_s', moe)).toMatchObject({ 'ep ranks in one scale-up domain': 'yes (domain of 72)', dispatcher: 'deepep' });
    expect(m.all_to_all_layer_s).toBeGreaterThan(0);
    expect(moe.prediction.training!.breakdown_s.ep_comm).toBeGreaterThan(m.all_to_all_layer_s);
  });

  it('MFU of an mxfp8 step is taken against the device fp8 peak', () => {
    const t = moe.prediction.training!;
    const peak = (moe.resolved.system.device.peak_tflops as Record<string, number>).fp8! * 1e12;
    expect(t.mfu).toBeCloseTo(t.model_flops / (t.iteration_time_s * 256 * peak), 12);
    expect(inputsOf('training.mfu', moe)['peak (mxfp8)']).not.toBe('?');
  });
});

describe('results panel of a MoE model', () => {
  it('shows total and active parameters and the Mixture of experts block, each number as the engine gave it', () => {
    const el = document.createElement('div');
    renderResults(el, moe, null);
    const shown = shownValues(el);
    expect(shown['params.total']).toBe(String(moe.prediction.params.total));
    expect(shown['params.active']).toBe(String(moe.prediction.params.active));
    expect(el.querySelector('[data-metric="params.total"]')!.textContent).toBe('671 billion');
    expect(el.querySelector('[data-metric="params.active"]')!.textContent).toBe('37.6 billion');
    const block = el.querySelector<HTMLElement>('[data-testid="moe"]')!;
    expect(block.querySelector('h3')!.textContent).toBe('Mixture of experts');
    expect(block.querySelector('.intro')!.textContent).toContain('8 of 256 experts (plus 1 shared)');
    expect(block.querySelector('.intro')!.textContent).toContain('32 expert-parallel ranks holds 8');
    const m = moe.prediction.training!.moe!;
    const inBlock = shownValues(block);
    expect(inBlock).toEqual({
      'training.moe.tokens_per_expert': String(m.tokens_per_expert),
      'training.moe.dispatch_bytes': String(m.dispatch_bytes),
      'training.moe.all_to_all_layer_s': String(m.all_to_all_layer_s),
      'training.breakdown_s.ep_comm': String(moe.prediction.training!.breakdown_s.ep_comm),
      'training.breakdown_s.host': String(moe.prediction.training!.breakdown_s.host),
      'training.moe.expert_params_per_device': String(m.expert_params_per_device),
      'training.moe.expert_dp': String(m.expert_dp),
    });
    // Every number of the block says what it is and how it is obtained, with known inputs.
    for (const card of block.querySelectorAll('.metric')) {
      expect(card.querySelector('.about')!.textContent!.length).toBeGreaterThan(40);
      expect(card.querySelector('details.how .formula')!.textContent).toMatch(/=/);
      for (const dd of card.querySelectorAll('details.how dd')) expect(dd.textContent).not.toBe('?');
    }
    expect(block.querySelector('[data-metric="training.moe.tokens_per_expert"]')!.textContent).toBe('4,916');
    expect(block.querySelector('[data-metric="training.moe.dispatch_bytes"]')!.textContent).toBe('538 MiB');
    // One element per metric in the whole panel (DOM contract).
    const all = [...el.querySelectorAll<HTMLElement>('[data-metric]')].map((e) => e.dataset.metric);
    expect(new Set(all).size).toBe(all.length);
  });

  it('a dense model shows its parameters (active = total) and no MoE block', () => {
    const el = document.createElement('div');
    renderResults(el, dense, null);
    expect(el.querySelector('[data-testid="moe"]')).toBeNull();
    expect(dense.prediction.params.active).toBe(dense.prediction.params.total);
    expect(shownValues(el)['params.active']).toBe(String(dense.prediction.params.total));
    expect(el.querySelector('[data-metric="params.active"]')!.closest('.metric')!.querySelector('details .formula')!.textContent).toContain('dense model');
  });
});

describe('time chart', () => {
  it('draws the expert all-to-all as its own cause; the bars still add up to the iteration time', () => {
    const spec = trainingTimeSpec(moe.prediction)!;
    const bar = spec.bars.find((b) => b.category === 'Expert all-to-all (MoE)');
    expect(bar?.value).toBe(moe.prediction.training!.breakdown_s.ep_comm);
    const sum = spec.bars.reduce((a, b) => a + b.value, 0);
    expect(sum / moe.prediction.training!.iteration_time_s).toBeCloseTo(1, 9);
    // After the data-parallel communication, before the bubble (the label table's order).
    const order = spec.bars.map((b) => b.category);
    expect(order.indexOf('Expert all-to-all (MoE)')).toBe(order.indexOf('DP communication') + 1);
  });

  it('leaves the always-zero expert all-to-all out for a dense model', () => {
    const spec = trainingTimeSpec(dense.prediction)!;
    expect(dense.prediction.training!.breakdown_s.ep_comm).toBe(0);
    expect(spec.bars.map((b) => b.category)).not.toContain('Expert all-to-all (MoE)');
  });
});
