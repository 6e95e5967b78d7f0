// @vitest-environment happy-dom
// The 80% band under a headline number, on the real engine's answer (the wasm module): a whole
// run on H100s falls in the run/fp8-generation regime, whose published rows all took longer than
// predicted, so its band starts at the prediction and says so; an A100 run's band lies on both
// sides of the prediction and says nothing more.
import { beforeAll, describe, expect, it } from 'vitest';
import type { OptimusModule } from '../../src/engine/protocol';
import type { Prediction, ResolvedScenario } from '../../src/engine/types';
import { oneSided, renderResults } from '../../src/ui/results';
import { loadModule } from '../wasm';

let mod: OptimusModule;
const run = (s: unknown): { prediction: Prediction; resolved: ResolvedScenario } => {
  const text = JSON.stringify(s);
  return { prediction: JSON.parse(mod.predict(text)) as Prediction, resolved: (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario };
};
const wholeRun = (system: string) => ({
  model: 'llama3-8b',
  system,
  num_devices: 64,
  parallel: { tp: 1, micro_batch: 1 },
  training: { global_batch: 256, seq_len: 8192, train_tokens: 1e12 },
});

beforeAll(async () => {
  mod = await loadModule();
});

describe('one-sided bands', () => {
  it('an H100 run band starts at the prediction and says so; an A100 one does not', () => {
    const h100 = run(wholeRun('dgx-h100'));
    const band = h100.prediction.uncertainty!['run.wall_days']!;
    expect(band.regime).toBe('run/fp8-generation');
    expect(band.low).toBeCloseTo(h100.prediction.run!.wall_days, 9);
    expect(band.high).toBeGreaterThan(2 * band.low);
    const el = document.createElement('div');
    renderResults(el, h100, null);
    expect(el.querySelector('[data-one-sided="run.wall_days"]')?.textContent).toMatch(/at or above the prediction/);

    const a100 = run(wholeRun('dgx-a100-80gb'));
    expect(a100.prediction.uncertainty!['run.wall_days']!.regime).toBe('run/earlier');
    const el2 = document.createElement('div');
    renderResults(el2, a100, null);
    expect(el2.querySelector('[data-one-sided="run.wall_days"]')).toBeNull();
    expect(el2.querySelector('[data-band-metric="run.wall_days"]')).not.toBeNull();
  });
  it('says which side for either end and nothing for a two-sided band or a non-number', () => {
    expect(oneSided({ low: 10, high: 30 }, 10)).toMatch(/above/);
    expect(oneSided({ low: 5, high: 10 }, 10)).toMatch(/below/);
    expect(oneSided({ low: 5, high: 30 }, 10)).toBeNull();
    expect(oneSided({ low: 10, high: 10 }, 10)).toBeNull();
    expect(oneSided({ low: 10, high: 30 }, 'x')).toBeNull();
  });
});
