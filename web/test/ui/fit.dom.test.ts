// @vitest-environment happy-dom
// The memory verdict as the page shows it, on the real engine's answer (the wasm module): a
// footprint with room to spare fits; one that fits the capacity but not beside the runtime's own
// memory (the engine's memory.little_headroom warning) says so in the verdict, with the warning
// kept in the list; one over the capacity does not fit.
import { beforeAll, describe, expect, it } from 'vitest';
import type { OptimusModule } from '../../src/engine/protocol';
import type { Prediction, ResolvedScenario } from '../../src/engine/types';
import { renderResults } from '../../src/ui/results';
import { loadModule } from '../wasm';

let mod: OptimusModule;
const run = (parallel: Record<string, unknown>): { prediction: Prediction; resolved: ResolvedScenario } => {
  const text = JSON.stringify({
    schema_version: 1,
    model: 'llama3-70b',
    system: 'dgx-h100',
    num_devices: 64,
    parallel,
    training: { global_batch: 512, seq_len: 8192, precision: 'bf16' },
  });
  return { prediction: JSON.parse(mod.predict(text)) as Prediction, resolved: (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario };
};
const verdict = (parallel: Record<string, unknown>): { fit: HTMLElement; warnings: string[] } => {
  const el = document.createElement('div');
  renderResults(el, run(parallel), null);
  return { fit: el.querySelector<HTMLElement>('.fit')!, warnings: [...el.querySelectorAll<HTMLElement>('[data-warning]')].map((w) => w.dataset.warning!) };
};

beforeAll(async () => {
  mod = await loadModule();
});

describe('the memory verdict', () => {
  it('fits with room: the search’s pick for Llama 3 70B on 64 H100', () => {
    const v = verdict({ tp: 8, pp: 2, micro_batch: 1, interleave: 2, recompute: 'none', zero_stage: 1 });
    expect(v.fit.className).toBe('fit ok');
    expect(v.fit.textContent).toMatch(/^Fits in GPU memory — /);
    expect(v.warnings).not.toContain('memory.little_headroom');
  });
  it('fits with little room: micro-batch 2 leaves less than the runtime holds', () => {
    const v = verdict({ tp: 8, pp: 2, micro_batch: 2, recompute: 'none', zero_stage: 1 });
    expect(v.fit.className).toBe('fit tight');
    expect(v.fit.textContent).toContain('Fits in GPU memory, with little room');
    expect(v.fit.textContent).toContain('may run out of memory');
    expect(v.warnings).toContain('memory.little_headroom');
  });
  it('an RL trainer with little room (its layout and token budget stated) says so in the trainer’s verdict', () => {
    const rl = { schema_version: 1, model: 'llama3.1-8b', system: 'dgx-h100', num_devices: 8, rl: { prompts_per_step: 32, samples_per_prompt: 8, train: { zero_stage: 3, micro_batch_tokens: 4096, offload: 'none' } } };
    const resolved = (JSON.parse(mod.validate(JSON.stringify(rl))) as { scenario: ResolvedScenario }).scenario;
    const first = JSON.parse(mod.predict(JSON.stringify(rl))) as Prediction;
    const system = structuredClone(resolved.system) as unknown as { device: { memory: { capacity_GiB: number } } };
    system.device.memory.capacity_GiB = first.rl!.memory.train.per_device_bytes / 2 ** 30 + 1;
    const text = JSON.stringify({ ...rl, system });
    const el = document.createElement('div');
    renderResults(el, { prediction: JSON.parse(mod.predict(text)) as Prediction, resolved: (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario }, null);
    expect(el.querySelector<HTMLElement>('.fit')!.className).toBe('fit tight');
  });
  it('does not fit: no layout parallelism at all', () => {
    const v = verdict({ tp: 1, pp: 1, micro_batch: 1, recompute: 'none', zero_stage: 0 });
    expect(v.fit.className).toBe('fit bad');
    expect(v.warnings).not.toContain('memory.little_headroom');
  });
});

// A served stream's engine sets its whole KV pool aside at start: the memory section says so with
// the pool's bytes beside the weights, and calls its rows one static batch's (probe finding: the
// card showed one request's 99.5 MiB of KV where the pool held tens of GiB a device).
describe('the memory of a served stream', () => {
  it('names the KV pool the engine sets aside, with the bytes, and the static batch below', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(`${process.cwd()}/../presets/scenarios/llama3-70b-8xh100-serving.json`, 'utf8');
    const prediction = JSON.parse(mod.predict(text)) as Prediction;
    const resolved = (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario;
    const el = document.createElement('div');
    renderResults(el, { prediction, resolved }, null);
    const note = el.querySelector<HTMLElement>('[data-testid="serving-memory-note"]');
    expect(note).not.toBeNull();
    const pool = prediction.serving!.kv_pool_bytes_per_device;
    expect(pool).toBeGreaterThan(40 * 2 ** 30); // most of an H100 beside 17 GiB of fp8 weights
    expect(note!.textContent).toContain(`${(pool / 2 ** 30).toFixed(1)} GiB per device beside`);
    expect(el.textContent).toContain('Memory per device: one static batch');
    expect(el.querySelector('.fit')).not.toBeNull(); // the verdict stays
  });
  it('disaggregated: the decode pool’s KV, not set beside the scenario layout’s weights', async () => {
    const { readFileSync } = await import('node:fs');
    const s = JSON.parse(readFileSync(`${process.cwd()}/../presets/scenarios/llama3-70b-8xh100-serving.json`, 'utf8')) as Record<string, any>;
    s.inference.serving.disaggregated = { prefill: { tp: 4, replicas: 1 }, decode: { tp: 4, replicas: 1 } };
    const text = JSON.stringify(s);
    const prediction = JSON.parse(mod.predict(text)) as Prediction;
    expect(prediction.serving).toBeDefined();
    const resolved = (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario;
    const el = document.createElement('div');
    renderResults(el, { prediction, resolved }, null);
    const note = el.querySelector<HTMLElement>('[data-testid="serving-memory-note"]')!.textContent ?? '';
    expect(note).toContain('per device of the decode pool');
    expect(note).not.toContain('of weights');
  });
});

