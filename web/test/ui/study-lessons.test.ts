// The study lessons are the studies: each lesson's widgets range over its study's parameters, and
// the scenario of each setting gives exactly the study's row for it (the engine's study table,
// core/study/study.cpp, against predictions of the lesson's scenarios). Also the layout parser of
// the GPU-generations lesson and the presets the lessons import.
import { beforeAll, describe, expect, test } from 'vitest';
import type { StudyResult } from '../../src/engine/types';
import { lessonByName } from '../../src/ui/lessons';
import type { LessonDef, Values } from '../../src/ui/lesson-kit';
import { CA_NEW, CA_OLD, DRAM_STUDY_SYSTEM, MATMULS, MM_FOCUS, MODEL_PRESETS, parseStudyLayout, PRICES, STUDY_LESSONS, SYSTEM_PRESETS, TECHNOLOGY_PRESETS } from '../../src/ui/study-lessons';
import { lessonEngine, type LessonEngine } from '../lesson-engine';
import { loadModule, readJson } from '../wasm';

let engine: LessonEngine;
beforeAll(async () => {
  engine = lessonEngine(await loadModule());
});

const lesson = (name: string): LessonDef => {
  const l = lessonByName(name);
  if (!l) throw new Error(`no lesson ${name}`);
  return l;
};
const table = (l: LessonDef): StudyResult => engine.dataFor(l).study!;
/** The engine's prediction and derived numbers for a lesson at these values. */
function run(l: LessonDef, values: Values): { p: any; derived: Record<string, number | null> } {
  const p = engine.predict(l.scenario(values, engine.dataFor(l)));
  expect(p.error, `${l.name} ${JSON.stringify(values)}`).toBeUndefined();
  const ctx = engine.contextFor(l, values);
  return { p, derived: Object.fromEntries(l.derived.map((d) => [d.id, d.of(p, values, ctx)])) };
}
const widget = (l: LessonDef, id: string): unknown[] => l.widgets.find((w) => w.id === id)!.choices.map((c) => c.value);

describe('study lessons', () => {
  test('the five studies of the paper and the cost study have a lesson each', () => {
    expect(STUDY_LESSONS.map((l) => [l.name, l.study])).toEqual([
      ['study-recompute', 'memory-recompute'],
      ['study-gpu-generations', 'gpu-generations'],
      ['study-technology-nodes', 'technology-nodes'],
      ['study-matmul-boundedness', 'matmul-boundedness'],
      ['study-memory-technology', 'memory-technology'],
      ['study-cheapest-accelerator', 'cheapest-accelerator'],
    ]);
  });

  test('the widgets range over the study descriptions of presets/studies', () => {
    const rc = readJson('presets/studies/memory-recompute.json') as any;
    expect(widget(lesson('study-recompute'), 'model')).toEqual(rc.layouts.map((x: any) => x.model));
    expect(widget(lesson('study-recompute'), 'recompute')).toEqual(rc.recompute);
    const gen = readJson('presets/studies/gpu-generations.json') as any;
    expect(lesson('study-gpu-generations').widgets[0]!.choices.map((c) => c.label)).toEqual(gen.rows.map((r: any) => r.label));
    const tn = readJson('presets/studies/technology-nodes.json') as any;
    expect(widget(lesson('study-technology-nodes'), 'node')).toEqual(tn.nodes);
    const mm = readJson('presets/studies/matmul-boundedness.json') as any;
    expect(widget(lesson('study-matmul-boundedness'), 'gpu')).toEqual(mm.gpus.map((g: any) => g.system));
    expect(widget(lesson('study-matmul-boundedness'), 'batch')).toEqual(expect.arrayContaining(mm.batches));
    expect(mm.gpus.map((g: any) => g.system)).toContain(MM_FOCUS);
    const mt = readJson('presets/studies/memory-technology.json') as any;
    expect(widget(lesson('study-memory-technology'), 'dram')).toEqual(mt.drams);
    expect(widget(lesson('study-memory-technology'), 'batch')).toEqual(mt.batches);
    // The DRAM study's system (and its device) is the one the lesson re-equips.
    expect(mt.system).toBe(DRAM_STUDY_SYSTEM.id);
    expect(readJson(`presets/systems/${mt.system}.json`)).toEqual(DRAM_STUDY_SYSTEM.system);
    expect(DRAM_STUDY_SYSTEM.system.device).toBe(DRAM_STUDY_SYSTEM.deviceId);
    expect(readJson(`presets/devices/${DRAM_STUDY_SYSTEM.deviceId}.json`)).toEqual(DRAM_STUDY_SYSTEM.device);
    // The cost study: its rows, every row's price on the slider, the presets it names.
    const ca = readJson('presets/studies/cheapest-accelerator.json') as any;
    const cost = lesson('study-cheapest-accelerator');
    expect(cost.widgets[0]!.choices.map((c) => c.label)).toEqual(ca.rows.map((r: any) => r.label));
    expect(widget(cost, 'price')).toEqual(expect.arrayContaining(ca.rows.map((r: any) => r.usd_per_gpu_hour)));
    expect(widget(cost, 'price')).toEqual(PRICES);
    expect([...PRICES].sort((a, b) => a - b)).toEqual(PRICES);
    expect(cost.widgets[1]!.initial).toBe(ca.rows[0].usd_per_gpu_hour);
    expect(readJson(`presets/models/${ca.model}.json`)).toEqual(MODEL_PRESETS[ca.model]);
    for (const r of ca.rows) expect(readJson(`presets/systems/${r.system}.json`), r.system).toEqual(SYSTEM_PRESETS[r.system]);
    expect([CA_OLD, CA_NEW].every((i) => i >= 0)).toBe(true);
  });

  test('recompute: every model under every policy gives the study row', () => {
    const l = lesson('study-recompute');
    const rows = table(l).rows;
    expect(rows.length).toBe(widget(l, 'model').length * widget(l, 'recompute').length);
    for (const r of rows) {
      const { p } = run(l, { model: r.model as string, recompute: r.recompute as string });
      const m = p.memory.per_device_bytes;
      expect([m.weights, m.gradients, m.optimizer, m.activations, m.total, p.memory.capacity_bytes, p.memory.fits], `${r.model} ${r.recompute}`).toEqual([
        r.weights_bytes,
        r.gradients_bytes,
        r.optimizer_bytes,
        r.activations_bytes,
        r.total_bytes,
        r.capacity_bytes,
        r.fits,
      ]);
    }
  });

  test('gpu-generations: each row at its fastest layout gives the study row and its speedup', () => {
    const l = lesson('study-gpu-generations');
    const rows = table(l).rows;
    expect(rows.length).toBe(widget(l, 'row').length);
    rows.forEach((r, i) => {
      const { p, derived } = run(l, { row: i, layout: 'fastest' });
      expect(p.training.iteration_time_s, r.label as string).toBe(r.iteration_time_s);
      expect(p.training.mfu).toBe(r.mfu);
      expect(p.training.by_bound_s).toEqual(r.breakdown_s);
      expect(derived.speedup).toBeCloseTo(r.speedup as number, 12);
    });
    // Keeping the A100 row's layout elsewhere changes the numbers (the widget does something).
    const last = rows.length - 1;
    expect(run(l, { row: last, layout: 'a100' }).p.training.iteration_time_s).not.toBe(rows[last]!.iteration_time_s);
  });

  test('gpu-generations: the layout text of the study parses back into the layout it names', () => {
    expect(parseStudyLayout('tp4 pp8 dp32 mb1 v2 selective')).toEqual({ tp: 4, pp: 8, dp: 32, sequence_parallel: true, micro_batch: 1, interleave: 2, recompute: 'selective', zero_stage: 1 });
    expect(parseStudyLayout('tp8 pp1 dp128 mb4 none')).toEqual({ tp: 8, pp: 1, dp: 128, sequence_parallel: true, micro_batch: 4, interleave: 1, recompute: 'none', zero_stage: 1 });
    expect(parseStudyLayout('tp1 pp2 dp4 mb1 full')?.sequence_parallel).toBe(false);
    for (const bad of ['', 'tp4 pp8 dp32 mb1', 'tp4 pp8 dp32 mb1 v2 selective extra', 'tp4 pp8 mb1 none', 'tpx pp8 dp32 mb1 none', 'tp4 pp8 dp32 mb1 none none']) expect(parseStudyLayout(bad), bad).toBeNull();
  });

  test('technology-nodes: the whole chip at each node and the DRAM alone give the study rows and speedups', () => {
    const l = lesson('study-technology-nodes');
    const rows = table(l).rows;
    const nodes = widget(l, 'node') as string[];
    const idOf = (nm: unknown): string => nodes.find((n) => TECHNOLOGY_PRESETS[n]!.node_nm === nm)!;
    let checked = 0;
    for (const r of rows) {
      const id = idOf(r.node_nm);
      let values: Values | null = null;
      if (r.scaling === 'all') values = { node: id, dram: 'own' };
      if (r.scaling === 'memory') values = { node: nodes[0]!, dram: TECHNOLOGY_PRESETS[id]!.dram };
      if (!values) continue; // logic or network alone: not a scenario (the sweep draws them from the table)
      const { p, derived } = run(l, values);
      expect(p.training.iteration_time_s, `${r.node_nm} ${r.scaling}`).toBe(r.iteration_time_s);
      expect(p.training.by_bound_s).toEqual(r.breakdown_s);
      expect(p.memory.fits).toBe(r.fits);
      expect(derived.speedup).toBeCloseTo(r.speedup as number, 12);
      expect(derived.peak! / 1e12).toBeCloseTo(r.peak_tflops as number, 9);
      expect(derived.dram_bandwidth! / 1e9).toBeCloseTo(r.hbm_bandwidth_GBps as number, 6);
      expect(derived.link_bandwidth! / 1e9).toBeCloseTo(r.scale_up_GBps as number, 6);
      checked += 1;
    }
    expect(checked).toBe(2 * nodes.length - 1);
  });

  test('matmul-boundedness: every matrix multiply of the study, per GPU and batch, is the lesson’s', () => {
    const l = lesson('study-matmul-boundedness');
    const rows = table(l).rows;
    expect(new Set(rows.map((r) => r.operator))).toEqual(new Set(Object.keys(MATMULS)));
    const mm = readJson('presets/studies/matmul-boundedness.json') as any;
    for (const g of mm.gpus) {
      for (const batch of mm.batches) {
        const { p, derived } = run(l, { gpu: g.system, batch });
        const mine = p.inference.operators.filter((o: any) => o.name in MATMULS).map((o: any) => [o.phase, o.name, o.flops, o.bytes, o.arithmetic_intensity, o.time_s, o.bound]);
        const theirs = rows.filter((r) => r.gpu === g.label && r.batch === batch).map((r) => [r.phase, r.operator, r.flops, r.bytes, r.arithmetic_intensity, r.time_s, r.bound]);
        expect(mine, `${g.label} batch ${batch}`).toEqual(theirs);
        const ridge = rows.find((r) => r.gpu === g.label)!.ridge_intensity as number;
        expect(derived.ridge).toBeCloseTo(ridge, 9);
        expect(derived.decode_compute_bound).toBe(theirs.filter((t) => t[0] === 'decode' && t[6] === 'compute').length);
      }
    }
  });

  test('memory-technology: every DRAM generation at every batch gives the study row and its speedup', () => {
    const l = lesson('study-memory-technology');
    const rows = table(l).rows;
    expect(rows.length).toBe(widget(l, 'dram').length * widget(l, 'batch').length);
    for (const r of rows) {
      const { p, derived } = run(l, { dram: r.dram as string, batch: r.batch as number });
      expect([p.inference.tpot_s, p.inference.ttft_s], `${r.dram} batch ${r.batch}`).toEqual([r.tpot_s, r.ttft_s]);
      expect(derived.speedup_tpot).toBeCloseTo(r.speedup_tpot as number, 12);
      expect(derived.bandwidth! / 1e9).toBeCloseTo(r.bandwidth_GBps as number, 6);
      expect(p.inference.memory?.capacity_bytes ?? p.memory.capacity_bytes).toBeCloseTo((r.capacity_GiB as number) * 2 ** 30, 0);
    }
  });

  test('cheapest-accelerator: each row at its layout and the study’s price gives the study row, its relative cost and the cheapest', () => {
    const l = lesson('study-cheapest-accelerator');
    const st = table(l);
    const rows = st.rows;
    expect(rows.length).toBe(widget(l, 'row').length);
    const cheapest = rows.filter((r) => r.cheapest === true);
    expect(cheapest).toHaveLength(1);
    rows.forEach((r, i) => {
      const { p, derived } = run(l, { row: i, price: r.usd_per_gpu_hour as number });
      expect(p.training.iteration_time_s, r.label as string).toBe(r.iteration_time_s);
      expect(p.training.mfu).toBe(r.mfu);
      expect([p.run.wall_days, p.run.gpu_hours, p.run.energy_mwh, p.run.cost_usd, p.run.usd_per_gpu_hour]).toEqual([r.wall_days, r.gpu_hours, r.energy_mwh, r.cost_usd, r.usd_per_gpu_hour]);
      expect(p.memory.fits).toBe(true);
      expect(derived.relative_cost).toBeCloseTo(r.relative_cost as number, 12);
      expect(derived.throughput_per_gpu).toBeCloseTo(p.training.tokens_per_s / (readJson('presets/studies/cheapest-accelerator.json') as any).num_devices, 9);
      // At the break-even price the run costs what the cheapest row's does.
      expect(derived.break_even! * (r.gpu_hours as number)).toBeCloseTo(cheapest[0]!.cost_usd as number, 3);
    });
    // The price moves the money and nothing else: the cost in proportion, the days and energy not at all.
    const at = (price: number): any => run(l, { row: 0, price }).p.run;
    const [lo, hi] = [at(PRICES[0]!), at(PRICES[PRICES.length - 1]!)];
    expect([hi.wall_days, hi.gpu_hours, hi.energy_mwh]).toEqual([lo.wall_days, lo.gpu_hours, lo.energy_mwh]);
    expect(hi.cost_usd / lo.cost_usd).toBeCloseTo(PRICES[PRICES.length - 1]! / PRICES[0]!, 9);
  });

  test('cheapest-accelerator: the exercises agree with the study’s table', async () => {
    const l = lesson('study-cheapest-accelerator');
    const rows = table(l).rows;
    const [cheapest, breakEven] = l.exercises;
    expect(await cheapest!.answer(engine.predictor, engine.dataFor(l))).toBe(rows.findIndex((r) => r.cheapest === true));
    // The older GPU at the answer costs less than the newer at its study price; one step dearer, it does not.
    const price = (await breakEven!.answer(engine.predictor, engine.dataFor(l))) as number;
    const next = PRICES[PRICES.indexOf(price) + 1]!;
    const costAt = (p: number): number => run(l, { row: CA_OLD, price: p }).p.run.cost_usd;
    expect(costAt(price)).toBeLessThan(rows[CA_NEW]!.cost_usd as number);
    expect(costAt(next)).toBeGreaterThanOrEqual(rows[CA_NEW]!.cost_usd as number);
  });

  test('the sweeps of the studies draw the engine’s table', async () => {
    const drawn: Array<[string, string]> = [
      ['study-recompute', 'total_bytes'],
      ['study-gpu-generations', 'speedup'],
      ['study-technology-nodes', 'speedup'],
      ['study-memory-technology', 'tpot_s'],
    ];
    for (const [name, column] of drawn) {
      const l = lesson(name);
      const spec = await l.sweep!(engine.predictor, engine.dataFor(l));
      expect(spec?.kind, name).toBe('lines');
      if (spec?.kind !== 'lines') continue;
      const ys = spec.points.map((pt) => pt.y);
      for (const r of table(l).rows) expect(ys, `${name} ${column}`).toContain(r[column]);
      expect(spec.points.length, name).toBeLessThanOrEqual(table(l).rows.length + 3);
    }
    // The technology walk: the baseline chip starts every curve.
    const tech = await lesson('study-technology-nodes').sweep!(engine.predictor, engine.dataFor(lesson('study-technology-nodes')));
    if (tech?.kind === 'lines') expect(new Set(tech.points.filter((pt) => pt.x === 12).map((pt) => pt.series))).toEqual(new Set(['logic', 'memory', 'network', 'all']));
    // The paper's figure is the one number quoted: a reference line, not a point.
    const gen = await lesson('study-gpu-generations').sweep!(engine.predictor, engine.dataFor(lesson('study-gpu-generations')));
    expect(gen?.kind === 'lines' && gen.rules).toEqual([{ value: 35, label: 'the paper: about' }]);
    // Each row by its own label, not its system's preset id (probe 61: "dgx-h100, fp8, batch 1536").
    expect(gen?.kind === 'lines' && gen.points.map((pt) => pt.x)).toEqual(table(lesson('study-gpu-generations')).rows.map((r) => r.label));
    // The cost lesson sweeps the price: every row of the study lies on its line, at its own price.
    const costLesson = lesson('study-cheapest-accelerator');
    const cost = await costLesson.sweep!(engine.predictor, engine.dataFor(costLesson));
    expect(cost?.kind).toBe('lines');
    if (cost?.kind === 'lines') {
      const series = [...new Set(cost.points.map((pt) => pt.series))];
      expect(series).toHaveLength(table(costLesson).rows.length);
      table(costLesson).rows.forEach((r, i) => expect(cost.points.some((pt) => pt.series === series[i] && pt.x === r.usd_per_gpu_hour && pt.y === r.cost_usd), r.label as string).toBe(true));
      expect(cost.rules).toEqual([{ value: table(costLesson).rows.find((r) => r.cheapest === true)!.cost_usd, label: expect.any(String) }]);
      // In dollars from zero (probe 61: "million USD" ticks from 4, the line's "6.19" without a unit).
      expect([cost.unit, cost.yFromZero]).toEqual(['USD', true]);
    }
    // Without the table there is nothing to draw (no numbers from elsewhere).
    expect(await lesson('study-recompute').sweep!(engine.predictor, { study: null })).toBeNull();
  });

  test('a study lesson without its table refuses to make a layout up', () => {
    expect(() => lesson('study-gpu-generations').scenario({ row: 0, layout: 'fastest' }, { study: null })).toThrow(/no layout/);
    expect(() => lesson('study-cheapest-accelerator').scenario({ row: 0, price: PRICES[0]! }, { study: null })).toThrow(/no layout/);
    expect(() => lesson('study-cheapest-accelerator').baseline!({ row: 0, price: PRICES[0]! }, { study: null })).toThrow(/no cheapest row/);
  });
});
