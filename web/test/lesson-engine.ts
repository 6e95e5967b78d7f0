// What a lesson computes from, worked out in Node with the engine's wasm module as the Learn view
// works it out in the page (ui/learn.ts): the study's table (LessonData), the prediction of the
// lesson's scenario, its baseline's, and the resolved scenario. The unit tests (test/ui) and the
// browser tests (e2e/views.e2e.ts) compare the page against these.
import type { OptimusModule } from '../src/engine/protocol';
import type { Prediction, ResolvedScenario, StudyResult } from '../src/engine/types';
import { NO_DATA, type DerivedContext, type LessonData, type LessonDef, type Predictor, type Values } from '../src/ui/lesson-kit';

export interface LessonEngine {
  /** The engine's JSON answer, parsed (an {error} object when it refuses). */
  predict(s: unknown): any;
  predictor: Predictor;
  /** The study's table for a study lesson (engine.study), NO_DATA otherwise; cached per study. */
  dataFor(l: LessonDef): LessonData;
  /** The baseline prediction and resolved scenario a lesson's derived numbers see. */
  contextFor(l: LessonDef, values: Values): DerivedContext;
}

export function lessonEngine(mod: OptimusModule): LessonEngine {
  const predict = (s: unknown): any => JSON.parse(mod.predict(JSON.stringify(s)));
  const predictor: Predictor = async (s) => {
    const p = predict(s);
    return p && typeof p === 'object' && 'error' in p ? null : (p as Prediction);
  };
  const tables = new Map<string, LessonData>();
  const dataFor = (l: LessonDef): LessonData => {
    if (!l.study) return NO_DATA;
    let d = tables.get(l.study);
    if (!d) {
      if (typeof mod.study !== 'function') throw new Error('this build of the engine has no studies');
      const st = JSON.parse(mod.study(l.study, '')) as StudyResult | { error: unknown };
      if ('error' in st) throw new Error(`study ${l.study}: ${JSON.stringify(st.error)}`);
      tables.set(l.study, (d = { study: st as StudyResult }));
    }
    return d;
  };
  const contextFor = (l: LessonDef, values: Values): DerivedContext => {
    const data = dataFor(l);
    const b = l.baseline ? predict(l.baseline(values, data)) : null;
    const v = l.needsResolved ? JSON.parse(mod.validate(JSON.stringify(l.scenario(values, data)))) : null;
    return { baseline: b && !('error' in b) ? (b as Prediction) : null, resolved: v && v.scenario ? (v.scenario as ResolvedScenario) : null };
  };
  return { predict, predictor, dataFor, contextFor };
}
