// @vitest-environment happy-dom
// The "Calibrate with your measurement" panel in a DOM with the real engine (the wasm module in
// process): the metrics offered are those the prediction has, a typed number goes to calibrate in
// engine units (ms -> s), the fitted factor is said in words with its range, applying hands the
// engine's calibration to the page, and an error is said in words with its code in a details line.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/client';
import type { OptimusModule } from '../../src/engine/protocol';
import type { Calibration, Prediction } from '../../src/engine/types';
import { createCalibratePanel, factorText, labelOf, measuredOn, uncalibrated } from '../../src/ui/calibrate';
import { readFileSync } from 'node:fs';
import { loadModule, readJson, ROOT } from '../wasm';
import { LLAMA3_8B_H100_OFFLINE } from '../scenarios';

let mod: OptimusModule;
beforeAll(async () => {
  mod = await loadModule();
});

const ok = <T>(json: string): { ok: true; value: T } | { ok: false; error: { code: string; path: string; message: string } } => {
  const v = JSON.parse(json);
  return v.error ? { ok: false, error: v.error } : { ok: true, value: v };
};

function setup(): { engine: Engine; lines: string[] } {
  const lines: string[] = [];
  const engine = {
    calibrate: async (jsonl: string) => {
      lines.push(jsonl);
      return ok(mod.calibrate!(jsonl));
    },
    importMeasurements: async (f: string, file: string, s: unknown) => ok(mod.import_measurements!(f, file, JSON.stringify(s))),
    predict: async (s: unknown) => ok(mod.predict(JSON.stringify(s))),
  } as unknown as Engine;
  return { engine, lines };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

describe('calibrate panel', () => {
  it('words: factors with ranges, labels of measured latencies, the scenario without its calibration', () => {
    expect(factorText({ factor: 'matmul', value: 0.6213, low: 0.551, high: 0.704 })).toBe('matmul rate ×0.621 (0.551–0.704)');
    // Held at its bound: the factor is its range's end, written alike.
    expect(factorText({ factor: 'matmul', value: 1.25, low: 0.98, high: 1.25 })).toBe('matmul rate ×1.25 (0.98–1.25)');
    expect(labelOf('serving.itl_s.p50')).toEqual({ label: 'Inter-token latency p50', q: 'seconds' });
    expect(labelOf('serving.tpot_s.p50').label).toBe('TPOT p50');
    expect(uncalibrated({ model: 'x', calibration: { device: 'd', factors: {} } })).toEqual({ model: 'x' });
  });

  it('a typed TPOT in ms is fitted in seconds; the factor and the calibrated numbers are shown; apply hands over the calibration', async () => {
    const { engine, lines } = setup();
    const applied: Array<Calibration | null> = [];
    const panel = createCalibratePanel({ engine, apply: (c) => applied.push(c) });
    document.body.replaceChildren(panel.el);
    const s = LLAMA3_8B_H100_OFFLINE as unknown as Record<string, unknown>;
    const p = JSON.parse(mod.predict(JSON.stringify(s))) as Prediction;
    panel.update(s, p);
    const metric = panel.el.querySelector<HTMLSelectElement>('[data-testid="calibrate-metric"]')!;
    const offered = [...metric.options].map((o) => o.value);
    expect(offered).toContain('serving.tpot_s.p50');
    expect(offered).not.toContain('training.iteration_time_s');
    metric.value = 'serving.tpot_s.p50';
    metric.dispatchEvent(new Event('change'));
    expect(panel.el.querySelector('[data-testid="calibrate-unit"]')!.textContent).toBe('ms');
    const tpot = (p.serving as unknown as { tpot_s: { p50: number } }).tpot_s.p50;
    panel.el.querySelector<HTMLInputElement>('[data-testid="calibrate-value"]')!.value = String(tpot * 1.3 * 1000);
    panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-fit"]')!.click();
    await settle();
    expect(lines.length).toBe(1);
    const line = JSON.parse(lines[0]!);
    expect(line.metric).toBe('serving.tpot_s.p50');
    expect(line.measured).toBeCloseTo(tpot * 1.3, 12);
    const factors = [...panel.el.querySelectorAll('[data-factor]')];
    expect(factors.length).toBeGreaterThan(0);
    expect(factors.every((f) => Number(f.getAttribute('data-value')) < 1)).toBe(true);
    const row = panel.el.querySelector('[data-calibrated-metric="serving.tpot_s.p50"]')!;
    expect(Number(row.getAttribute('data-uncalibrated'))).toBe(tpot);
    expect(Number(row.getAttribute('data-value'))).toBeGreaterThan(tpot);
    panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-apply"]')!.click();
    expect(applied).toEqual([JSON.parse(mod.calibrate!(lines[0]!)).calibration]);
    // Another scenario on screen clears the fit shown.
    panel.update({ ...s, num_devices: 2, parallel: { tp: 2 } }, p);
    expect(panel.el.querySelector('[data-testid="calibrate-apply"]')).toBeNull();
  });

  it('an RL step: its step time and phases are offered, a typed step time is fitted and shown calibrated', async () => {
    const { engine, lines } = setup();
    const panel = createCalibratePanel({ engine, apply: () => undefined });
    document.body.replaceChildren(panel.el);
    const s = { model: 'llama3.1-8b', system: 'dgx-h100', num_devices: 8, rl: { prompts_per_step: 32, samples_per_prompt: 4, prompt_len: 256, response_len: { mean: 512, max: 2048 } } };
    const p = JSON.parse(mod.predict(JSON.stringify(s))) as Prediction;
    panel.update(s, p);
    const metric = panel.el.querySelector<HTMLSelectElement>('[data-testid="calibrate-metric"]')!;
    const offered = [...metric.options].map((o) => o.value);
    expect(offered).toEqual(['rl.step_time_s', 'rl.phases_s.rollout', 'rl.phases_s.train', 'rl.tokens_per_s_per_gpu']);
    expect(panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-fit"]')!.disabled).toBe(false);
    const step = (p.rl as unknown as { step_time_s: number }).step_time_s;
    panel.el.querySelector<HTMLInputElement>('[data-testid="calibrate-value"]')!.value = String(step * 1.4);
    panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-fit"]')!.click();
    for (let i = 0; i < 50 && !panel.el.querySelector('[data-calibrated-metric="rl.step_time_s"]'); i++) await settle();
    expect(JSON.parse(lines[0]!).metric).toBe('rl.step_time_s');
    const row = panel.el.querySelector('[data-calibrated-metric="rl.step_time_s"]')!;
    expect(Number(row.getAttribute('data-uncalibrated'))).toBe(step);
    expect(Number(row.getAttribute('data-value')) / (step * 1.4)).toBeCloseTo(1, 1);
    // The 90% range is written in one unit, the calibrated value's ("106 – 145 s", not "106 s – 2.41 min").
    const range = row.querySelectorAll('td')[2]!.textContent!;
    expect(range).toMatch(/^[\d.]+ – [\d.]+ (s|min)$/);
    expect(range.endsWith(row.querySelectorAll('td')[1]!.textContent!.split(' ').pop()!)).toBe(true);
    expect(labelOf('rl.tokens_per_s_per_gpu')).toEqual({ label: 'RL tokens/s per GPU', q: 'tokens_rate' });
  });

  it('a verl log read against the RL job on screen: the run with its own lengths can be loaded, calibrated', async () => {
    const { engine, lines } = setup();
    const applied: Array<[Calibration | null, Record<string, unknown> | undefined]> = [];
    const panel = createCalibratePanel({ engine, apply: (c, run) => applied.push([c, run]) });
    document.body.replaceChildren(panel.el);
    const s = {
      model: 'qwen2.5-7b',
      system: 'dgx-h100',
      num_devices: 8,
      rl: { placement: 'colocated', prompts_per_step: 128, samples_per_prompt: 16, prompt_len: 1024, response_len: 8192, reference: false, train: { tp: 1, dp: 8, zero_stage: 3 } },
    };
    panel.update(s, JSON.parse(mod.predict(JSON.stringify(s))) as Prediction);
    panel.el.querySelector<HTMLSelectElement>('[data-testid="calibrate-format"]')!.value = 'verl';
    panel.el.querySelector<HTMLTextAreaElement>('[data-testid="calibrate-text"]')!.value = readFileSync(`${ROOT}tests/data/import/verl_console.log`, 'utf8');
    panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-import"]')!.click();
    for (let i = 0; i < 200 && !panel.el.querySelector('[data-testid="calibrate-apply-run"]'); i++) await settle();
    expect(lines.length).toBe(1);
    const metrics = lines[0]!.split('\n').map((l) => JSON.parse(l).metric);
    expect(metrics).toEqual(['rl.step_time_s', 'rl.phases_s.rollout+weight_sync+swap', 'rl.phases_s.old_logprob', 'rl.phases_s.train', 'rl.tokens_per_s_per_gpu']);
    expect(panel.el.querySelector('[data-case-metric="rl.phases_s.rollout+weight_sync+swap"] th')!.textContent).toBe('RL rollout phase + weight sync + swap');
    // Apply keeps the scenario on screen; the other button loads the run as the file states it.
    panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-apply"]')!.click();
    const run = panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-apply-run"]')!;
    expect(run.textContent).toBe('Load the measured run, calibrated (3 settings from the file)');
    run.click();
    expect(applied.length).toBe(2);
    expect(applied[0]![1]).toBeUndefined();
    const loaded = applied[1]![1] as { rl: Record<string, unknown> };
    expect(applied[1]![0]).toEqual(applied[0]![0]);
    expect(loaded.rl.response_len).toEqual({ mean: 1731, max: 8192 });
    expect(loaded.rl.prompt_len).toEqual({ mean: 237.3, max: 1024 });
    // The rule-based reward's logged time (median 0.81 s) over its 128 x 16 responses.
    expect(loaded.rl.reward_cpu_ms).toBeCloseTo((0.81 * 1e3) / 2048, 12);
    expect(loaded.rl.train).toEqual(s.rl.train);
  });

  it('a calibrated scenario says so and offers to remove it; an error is said in words with its code', async () => {
    const { engine } = setup();
    const applied: Array<Calibration | null> = [];
    const panel = createCalibratePanel({ engine, apply: (c) => applied.push(c) });
    document.body.replaceChildren(panel.el);
    const s = readJson('presets/scenarios/default.json') as Record<string, unknown>;
    const t = JSON.parse(mod.predict(JSON.stringify(s))).training.iteration_time_s as number;
    const fit = JSON.parse(mod.calibrate!(JSON.stringify({ scenario: s, metric: 'training.iteration_time_s', measured: t * 1.25 })));
    const cs = { ...s, calibration: fit.calibration };
    panel.update(cs, JSON.parse(mod.predict(JSON.stringify(cs))) as Prediction);
    expect(panel.el.querySelector('[data-applied="true"]')!.textContent).toMatch(/calibrated: matmul rate ×0\.\d+/);
    panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-remove"]')!.click();
    expect(applied).toEqual([null]);
    // Ten times the prediction and more is refused by the engine, with how far it is.
    panel.el.querySelector<HTMLInputElement>('[data-testid="calibrate-value"]')!.value = String(t * 50);
    panel.el.querySelector<HTMLButtonElement>('[data-testid="calibrate-fit"]')!.click();
    await settle();
    const box = panel.el.querySelector<HTMLElement>('[data-testid="calibrate-error"]')!;
    expect(box.hidden).toBe(false);
    expect(box.textContent).toContain('more than 10 times away');
    expect(box.textContent).toContain('Details: calibrate.measured_absurd at /1/measured');
    // Another metric: the error, worded in the old metric's unit, goes.
    const metric = panel.el.querySelector<HTMLSelectElement>('[data-testid="calibrate-metric"]')!;
    metric.dispatchEvent(new Event('change'));
    expect(box.hidden).toBe(true);
  });
});

// A measurement belongs to the layout it was taken on: under parallel "auto" the one the search
// chose (the prediction's parallel_auto), so that the fit and the calibrated scenario keep it; a
// stated layout is kept as stated.
describe('measuredOn', () => {
  it('pins a searched layout and drops the calibration', () => {
    const chosen = { tp: 8, pp: 1, dp: 1 };
    const s = { model: 'llama3-70b', parallel: 'auto', calibration: { device: 'x' } } as unknown as Parameters<typeof measuredOn>[0];
    const p = { parallel_auto: { parallel: chosen } } as unknown as Prediction;
    expect(measuredOn(s, p)).toEqual({ model: 'llama3-70b', parallel: chosen });
    const stated = { model: 'llama3-70b', parallel: { tp: 4 } } as unknown as Parameters<typeof measuredOn>[0];
    expect(measuredOn(stated, p)).toEqual(uncalibrated(stated));
  });
});
