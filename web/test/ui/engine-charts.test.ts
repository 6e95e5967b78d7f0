// The chart specs on the engine's real output (the wasm module, as the page runs it), for every
// preset scenario: the charts show what the numbers say. Breakdown bars add up to the iteration
// time (spec: within 1%) and to the end-to-end latency; memory stacks add up to the total; every
// inference or training operator lies on or under the roofline drawn from its device's peak and HBM
// bandwidth.
// A mixture-of-experts scenario (DeepSeek-V3 on GB300) joins them for the MoE numbers.
import { beforeAll, describe, expect, it } from 'vitest';
import { inferenceTimeSpec, memorySpec, rooflineSpec, runWaterfallSpec, servingStepTimeSpec, servingTimelineSpec, trainingTimeSpec } from '../../src/charts/specs';
import type { OptimusModule } from '../../src/engine/protocol';
import type { Prediction, ResolvedScenario } from '../../src/engine/types';
import { ALL_METRICS, explain, getPath, INFERENCE_ONLY_MEMORY_METRICS } from '../../src/ui/metrics';
import { TASK_DEFS } from '../../src/state/tasks';
import { DEEPSEEK_V3_GB300 } from '../scenarios';
import { loadModule } from '../wasm';

let mod: OptimusModule;
let cases: Array<{ id: string; prediction: Prediction; resolved: ResolvedScenario }> = [];

beforeAll(async () => {
  mod = await loadModule();
  const ids = (JSON.parse(mod.presets('scenarios')) as { scenarios: Array<{ id: string }> }).scenarios.map((s) => s.id);
  const scenarios = ids.map((id) => [id, JSON.parse(mod.preset('scenarios', id)) as unknown] as const);
  if (!ids.some((id) => id.includes('deepseek'))) scenarios.push(['deepseek-v3 on 256 gb300', DEEPSEEK_V3_GB300]);
  // RL steps (no preset scenario has one): the RL task's starter, colocated and split 4 + 4.
  const rl = TASK_DEFS.rl.starter as { rl: Record<string, unknown> };
  // and colocated with the engines reserving 0.95 of each device, more than the trainer holds
  const rollout = (rl.rl.rollout ?? {}) as Record<string, unknown>;
  scenarios.push(
    ['rl starter, colocated', rl],
    ['rl starter, split', { ...rl, rl: { ...rl.rl, placement: 'split', rollout_devices: 4, train_devices: 4, async: { staleness: 1 } } }],
    ['rl starter, engines at 0.95', { ...rl, rl: { ...rl.rl, rollout: { ...rollout, gpu_memory_utilization: 0.95 } } }],
  );
  cases = scenarios.map(([id, scenario]) => {
    const text = JSON.stringify(scenario);
    return { id, prediction: JSON.parse(mod.predict(text)) as Prediction, resolved: (JSON.parse(mod.validate(text)) as { scenario: ResolvedScenario }).scenario };
  });
});

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe('chart specs on the engine output of every preset scenario', () => {
  it('the serving step chart draws each sampled step at its duration, the ones that read prompt chunks apart', () => {
    const serving = cases.filter((c) => c.prediction.serving);
    expect(serving.length).toBeGreaterThan(0);
    for (const { id, prediction: p } of serving) {
      const spec = servingStepTimeSpec(p);
      const tl = p.serving!.timeline;
      expect(spec, id).not.toBeNull();
      expect(spec!.points.length, id).toBe(tl.length);
      spec!.points.forEach((q, i) => {
        expect(q.y, id).toBe(tl[i]!.step_s);
        expect(q.series === 'steps that also read prompt chunks', id).toBe(tl[i]!.prefill_tokens > 0);
      });
      // A step that also reads a prompt chunk takes longer than the decode-only steps around it do.
      const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
      const with_ = tl.filter((x) => x.prefill_tokens > 0).map((x) => x.step_s);
      const without = tl.filter((x) => x.prefill_tokens === 0).map((x) => x.step_s);
      if (with_.length > 0 && without.length > 0) expect(mean(with_), id).toBeGreaterThan(mean(without));
    }
  });

  it('has preset scenarios to check', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
    for (const c of cases) expect(c.prediction, c.id).not.toHaveProperty('error');
  });

  it('the time and memory charts carry the engine’s band, and the band holds the prediction', () => {
    for (const { id, prediction: p, resolved } of cases) {
      const specs = [trainingTimeSpec(p), inferenceTimeSpec(p, resolved.inference?.output_len), runWaterfallSpec(p), memorySpec(p)].filter((s) => s !== null);
      expect(specs.length, id).toBeGreaterThan(0);
      for (const s of specs) {
        expect(s!.band, `${id}: ${s!.title}`).toBeDefined();
        expect(s!.band!.low, id).toBeLessThanOrEqual(s!.band!.value);
        expect(s!.band!.high, id).toBeGreaterThanOrEqual(s!.band!.value);
      }
    }
  });

  it('time bars add up to the iteration time and to the end-to-end latency', () => {
    for (const { id, prediction: p, resolved } of cases) {
      const t = trainingTimeSpec(p);
      if (p.training) expect(Math.abs(sum(t!.bars.map((b) => b.value)) / p.training.iteration_time_s - 1), id).toBeLessThan(0.01);
      const i = inferenceTimeSpec(p, resolved.inference?.output_len);
      if (p.inference) expect(sum(i!.bars.map((b) => b.value)), id).toBeCloseTo(p.inference.e2e_latency_s, 9);
    }
  });

  it('the whole run steps from the ideal time to the elapsed time, each step where the last ended', () => {
    const scenario = { model: 'llama3-70b', system: 'dgx-h100', num_devices: 1024, parallel: { tp: 8, pp: 4 }, training: { global_batch: 1024, seq_len: 8192, train_tokens: 15e12 } };
    const p = JSON.parse(mod.predict(JSON.stringify(scenario))) as Prediction;
    const w = runWaterfallSpec(p)!;
    // No preset states a share of the modelled rate (issue 37): no step below it.
    expect(w.bars.map((b) => b.category)).toEqual(['Ideal', 'Checkpoint writes', 'Work lost to failures', 'Restarts', 'Elapsed']);
    expect(w.bars[0]!.value).toBe(p.run!.ideal_time_s);
    for (let i = 1; i < 4; i++) expect(w.bars[i]!.start).toBeCloseTo(w.bars[i - 1]!.start! + w.bars[i - 1]!.value, 6);
    // The last step ends where the elapsed bar does (run/run.h: elapsed = ideal + lost).
    expect((w.bars[3]!.start! + w.bars[3]!.value) / p.run!.wall_time_s).toBeCloseTo(1, 9);
    expect(w.bars.slice(1, 4).every((b) => b.value > 0)).toBe(true);
    // A share the user states still applies: the first step is ideal x (1 / share - 1).
    const resolved = (JSON.parse(mod.validate(JSON.stringify(scenario))) as { scenario: ResolvedScenario }).scenario;
    expect(resolved.system.operations!.production_efficiency).toBeUndefined();
    const shared = { ...scenario, system: { ...resolved.system, operations: { ...resolved.system.operations, production_efficiency: 0.8 } } };
    const ws = runWaterfallSpec(JSON.parse(mod.predict(JSON.stringify(shared))) as Prediction)!;
    expect(ws.bars[1]!.category).toBe('Below the modelled rate');
    expect(ws.bars[1]!.value / ws.bars[0]!.value).toBeCloseTo(1 / 0.8 - 1, 9);
    for (const { prediction } of cases) if (!prediction.run) expect(runWaterfallSpec(prediction)).toBeNull();
    // A later stage (training.stages) floats on the first part's ideal time; together they are the ideal.
    const staged = { ...scenario, training: { ...scenario.training, stages: [{ tokens: 8e11, seq_len: 32768, global_batch: 256, parallel: { cp: 4 } }] } };
    const q = JSON.parse(mod.predict(JSON.stringify(staged))) as Prediction;
    const s = runWaterfallSpec(q)!;
    expect(s.bars.map((b) => b.category).slice(0, 3)).toEqual(['Ideal', 'Ideal, later stages', 'Checkpoint writes']);
    expect(s.bars[1]!.value).toBe(q.run!.stages![0]!.ideal_time_s);
    expect((s.bars[1]!.start! + s.bars[1]!.value) / q.run!.ideal_time_s).toBeCloseTo(1, 9);
    expect((s.bars[4]!.start! + s.bars[4]!.value) / q.run!.wall_time_s).toBeCloseTo(1, 9);
  });

  it('memory stacks add up to the total per device, against the capacity', () => {
    for (const { id, prediction: p } of cases) {
      const m = memorySpec(p);
      const training = m.bars.filter((b) => b.row === 'Training');
      if (p.training) expect(sum(training.map((b) => b.value)) / p.memory.per_device_bytes.total, id).toBeCloseTo(1, 12);
      expect(m.rule?.value, id).toBe(p.memory.capacity_bytes);
    }
  });

  it('an RL step’s memory chart shows the most loaded device of the job: the trainer’s and the rollout engines’ rows, as the pool cards say (probe 57)', () => {
    const rl = cases.filter((c) => c.prediction.rl);
    expect(rl.length).toBeGreaterThanOrEqual(2); // the starter colocated and split, and any RL preset
    for (const { id, prediction: p } of rl) {
      const m = memorySpec(p);
      const total = (row: string): number => sum(m.bars.filter((b) => b.row === row).map((b) => b.value));
      expect(total('Trainer') / p.memory.per_device_bytes.total, id).toBeCloseTo(1, 12);
      expect(total('Rollout engines'), id).toBe(p.rl!.memory.rollout.per_device_bytes);
      // the largest row is the larger of the two pools' per-device numbers (the "each pool" cards)
      const rows = [...new Set(m.bars.map((b) => b.row))];
      expect(Math.max(...rows.map(total)), id).toBe(Math.max(p.rl!.memory.rollout.per_device_bytes, p.rl!.memory.train.per_device_bytes));
      expect(m.title, id).toMatch(/the trainer and the rollout engines/);
      expect(m.band?.row, id).toBe('Trainer total (80% band)');
    }
    // rollout engines that reserve more than their trainer holds (at 0.95): the chart must show them
    expect(rl.some(({ prediction: p }) => p.rl!.memory.rollout.per_device_bytes > p.memory.per_device_bytes.total)).toBe(true);
  });

  it('the serving timeline draws its counts as steps (each sample held until the next), the time axis in seconds (probe 57)', () => {
    for (const { id, prediction: p } of cases.filter((c) => c.prediction.serving)) {
      const spec = servingTimelineSpec(p)!;
      expect(spec.step, id).toBe(true);
      expect(spec.xUnit, id).toBe('s');
    }
  });

  it('a study’s chart says its columns and models in words, and draws the capacity line its description names (probe 57)', async () => {
    const { studySpec, studyColumnWords } = await import('../../src/charts/specs');
    const st = JSON.parse(mod.study!('memory-recompute', '')) as import('../../src/engine/types').StudyResult;
    expect(st.description).toContain('against the 80 GB line');
    const models = (JSON.parse(mod.presets('models')) as { models: Array<{ id: string; name: string }> }).models;
    const names = new Map(models.map((m) => [m.id, m.name]));
    const spec = studySpec(st, undefined, (v) => names.get(v))!;
    expect(spec.yLabel).toBe('memory per GPU');
    expect(spec.xLabel).toBe('model');
    expect(spec.seriesLabel).toBe('recomputation');
    expect(spec.points.map((p) => p.x)).toContain('GPT 22B (Megatron)');
    expect(spec.points.map((p) => p.x)).toContain('GPT-3 175B');
    expect(spec.points.some((p) => String(p.x).includes('megatron-22b'))).toBe(false);
    // the line the description speaks of: the A100's 80 GiB, the capacity_bytes of every row
    expect(spec.rules).toEqual([{ value: 80 * 2 ** 30, label: 'capacity' }]);
    // not against itself, nor on a chart of another unit
    expect(studySpec(st, { y: 'capacity_bytes' })!.rules).toBeUndefined();
    // each bytes column in words, its unit left to the axis
    expect(['weights_bytes', 'gradients_bytes', 'optimizer_bytes', 'activations_bytes', 'total_bytes'].map((c) => studyColumnWords(c, 'bytes'))).toEqual(['weights', 'gradients', 'optimizer state', 'activations', 'memory per GPU']);
    expect(studyColumnWords('iteration_time_s', 's')).toBe('iteration time');
    expect(studyColumnWords('tokens_per_s', 'tokens/s')).toBe('tokens/s');
    // drawn: test/ui/render.dom.test.ts
  });

  it('every operator lies on or under its device roofline (peak of the math precision, HBM bandwidth)', () => {
    let checked = 0;
    let training = 0;
    for (const { id, prediction: p, resolved } of cases) {
      if (!p.inference && !p.training) continue;
      const r = rooflineSpec(p, resolved)!;
      // A scenario without inference places its training operators (its slowest stage's kernels).
      if (!p.inference) training++, expect(r.title, id).toContain('training');
      expect(r.roofs, `${id}: the device's peak and bandwidth are known`).toBeDefined();
      for (const pt of r.points) {
        const roof = Math.min(r.roofs!.peak_flops_per_s, pt.intensity * r.roofs!.bandwidth_Bps);
        expect(pt.rate, `${id} ${pt.phase} ${pt.name}`).toBeLessThanOrEqual(roof * (1 + 1e-9));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(training).toBeGreaterThan(0);
  });

  it('every displayed metric path exists in the output of at least one preset, and explains itself', () => {
    const defs = [...ALL_METRICS, ...INFERENCE_ONLY_MEMORY_METRICS];
    for (const def of defs) {
      const shown = cases.filter((c) => getPath(c.prediction, def.path) !== undefined);
      expect(shown.length, def.path).toBeGreaterThan(0);
      for (const c of shown) {
        const ex = explain(def, { prediction: c.prediction, scenario: c.resolved });
        if (def.explain) expect(ex?.formula.length, `${def.path} (${c.id})`).toBeGreaterThan(10);
        // No input of an explanation is unknown when the resolved scenario is there.
        for (const [name, value] of ex?.inputs ?? []) expect(value, `${def.path} ${name} (${c.id})`).not.toBe('?');
      }
    }
  });
});
