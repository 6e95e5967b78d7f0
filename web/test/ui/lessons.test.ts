// The lessons against the real engine: every widget choice gives a scenario the engine predicts
// (no error), every shown path is an engine output, every derived number is worked out, and every
// exercise has an answer among its choices that the engine works out. A study lesson names a
// study the engine has, and computes from that study's table.
import { beforeAll, describe, expect, test } from 'vitest';
import type { OptimusModule } from '../../src/engine/protocol';
import { initialValues, LESSONS, lessonByName } from '../../src/ui/lessons';
import { getPath } from '../../src/ui/metrics';
import { lessonEngine, type LessonEngine } from '../lesson-engine';
import { loadModule } from '../wasm';

let mod: OptimusModule;
let engine: LessonEngine;

beforeAll(async () => {
  mod = await loadModule();
  engine = lessonEngine(mod);
});

describe('lessons', () => {
  test('names are unique and found by name', () => {
    expect(new Set(LESSONS.map((l) => l.name)).size).toBe(LESSONS.length);
    for (const l of LESSONS) expect(lessonByName(l.name)).toBe(l);
    expect(lessonByName('nope')).toBeUndefined();
  });

  test('a study lesson names a study of the engine, each study at most once, after the topic lessons', () => {
    const studies = (JSON.parse(mod.studies!()) as { studies: { name: string }[] }).studies.map((s) => s.name);
    const named = LESSONS.filter((l) => l.study).map((l) => l.study!);
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named).size).toBe(named.length);
    for (const n of named) expect(studies, n).toContain(n);
    const first = LESSONS.findIndex((l) => l.study);
    expect(LESSONS.slice(first).every((l) => l.study)).toBe(true);
  });

  for (const l of LESSONS) {
    test(`${l.name}: every widget choice is a valid scenario showing every number`, () => {
      const data = engine.dataFor(l);
      const base = initialValues(l);
      for (const w of l.widgets) {
        expect(w.choices.some((c) => c.value === w.initial), `${w.id} initial is a choice`).toBe(true);
        for (const c of w.choices) {
          const values = { ...base, [w.id]: c.value };
          const p = engine.predict(l.scenario(values, data));
          expect(p.error, `${l.name} ${JSON.stringify(values)}`).toBeUndefined();
          for (const d of l.shown) expect(getPath(p, d.path), `${l.name} ${d.path}`).not.toBeUndefined();
          const ctx = engine.contextFor(l, values);
          if (l.baseline) expect(ctx.baseline, `${l.name} baseline`).not.toBeNull();
          if (l.needsResolved) expect(ctx.resolved, `${l.name} resolved`).not.toBeNull();
          for (const d of l.derived) expect(d.of(p, values, ctx), `${l.name} ${d.id}`).not.toBeNull();
          expect(l.chart(p, ctx.resolved, values), `${l.name} chart`).not.toBeNull();
        }
      }
    });

    if (l.sweep) {
      test(`${l.name}: the sweep chart is drawn from the engine`, async () => {
        const spec = await l.sweep!(engine.predictor, engine.dataFor(l));
        expect(spec).not.toBeNull();
        expect(spec!.kind).toBe('lines');
        if (spec!.kind === 'lines') {
          expect(spec!.points.length).toBeGreaterThan(3);
          for (const pt of spec!.points) expect(Number.isFinite(pt.y)).toBe(true);
        }
      });
    }

    test(`${l.name}: every exercise has an engine answer among its choices`, async () => {
      expect(l.exercises.length).toBeGreaterThan(0);
      for (const ex of l.exercises) {
        const a = await ex.answer(engine.predictor, engine.dataFor(l));
        expect(a, ex.id).not.toBeNull();
        expect(ex.choices.map((c) => c.value)).toContain(a);
      }
    });
  }
});
