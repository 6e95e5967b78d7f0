// The lessons against the real engine: every widget choice gives a scenario the engine predicts
// (no error), every shown path is an engine output, and every exercise has an answer among its
// choices that the engine works out.
import { beforeAll, describe, expect, test } from 'vitest';
import type { OptimusModule } from '../../src/engine/protocol';
import type { Prediction } from '../../src/engine/types';
import { initialValues, LESSONS, lessonByName } from '../../src/ui/lessons';
import { getPath } from '../../src/ui/metrics';
import { loadModule } from '../wasm';

let mod: OptimusModule;
const predict = (s: unknown): any => JSON.parse(mod.predict(JSON.stringify(s)));
const predictor = async (s: Record<string, unknown>): Promise<Prediction | null> => {
  const p = predict(s);
  return 'error' in p ? null : (p as Prediction);
};

beforeAll(async () => {
  mod = await loadModule();
});

describe('lessons', () => {
  test('names are unique and found by name', () => {
    expect(new Set(LESSONS.map((l) => l.name)).size).toBe(LESSONS.length);
    for (const l of LESSONS) expect(lessonByName(l.name)).toBe(l);
    expect(lessonByName('nope')).toBeUndefined();
  });

  for (const l of LESSONS) {
    test(`${l.name}: every widget choice is a valid scenario showing every number`, () => {
      const base = initialValues(l);
      for (const w of l.widgets) {
        expect(w.choices.some((c) => c.value === w.initial), `${w.id} initial is a choice`).toBe(true);
        for (const c of w.choices) {
          const values = { ...base, [w.id]: c.value };
          const p = predict(l.scenario(values));
          expect(p.error, `${l.name} ${JSON.stringify(values)}`).toBeUndefined();
          for (const d of l.shown) expect(getPath(p, d.path), `${l.name} ${d.path}`).not.toBeUndefined();
          for (const d of l.derived) expect(d.of(p, values), `${l.name} ${d.id}`).not.toBeNull();
          expect(l.chart(p, null, values), `${l.name} chart`).not.toBeNull();
        }
      }
    });

    if (l.sweep) {
      test(`${l.name}: the sweep chart is drawn from the engine`, async () => {
        const spec = await l.sweep!(predictor);
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
        const a = await ex.answer(predictor);
        expect(a, ex.id).not.toBeNull();
        expect(ex.choices.map((c) => c.value)).toContain(a);
      }
    });
  }
});
