// @vitest-environment happy-dom
// The Learn view in a DOM (happy-dom) over the engine client and the wasm module: the list groups
// the study lessons, a study lesson shows the engine's numbers for its study's table and links the
// study, and when the engine cannot run the study the lesson says so instead of computing.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/client';
import type { OptimusModule } from '../../src/engine/protocol';
import { createLearnView, type LearnView } from '../../src/ui/learn';
import { initialValues, LESSONS, lessonByName } from '../../src/ui/lessons';
import type { Route } from '../../src/ui/router';
import { lessonEngine } from '../lesson-engine';
import { InProcessWorker, loadModule } from '../wasm';

let mod: OptimusModule;
let engine: Engine | null = null;
beforeAll(async () => {
  mod = await loadModule();
});
afterEach(() => {
  engine?.dispose();
  engine = null;
});

function view(make: () => Engine): { el: HTMLElement; learn: LearnView; navigated: Route[] } {
  engine = make();
  const el = document.createElement('section');
  document.body.replaceChildren(el);
  const navigated: Route[] = [];
  const learn = createLearnView({ engine, navigate: (r) => navigated.push(r), href: (r) => `/?${r.view}${r.lesson ? `=${r.lesson}` : ''}${r.study ? `&study=${r.study}` : ''}`, notify: () => {} }, el);
  return { el, learn, navigated };
}

/** Resolves when the lesson status leaves "computing" (or fails after a while). */
async function settledStatus(el: HTMLElement): Promise<HTMLElement> {
  for (let i = 0; i < 400; i++) {
    const s = el.querySelector<HTMLElement>('[data-testid="lesson-status"]');
    if (s && s.dataset.state !== 'computing') return s;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the lesson never settled');
}

describe('Learn view', () => {
  it('lists the study lessons in a group of their own', () => {
    const { el, learn } = view(() => createEngine({ createWorker: () => new InProcessWorker(mod) }));
    learn.show(undefined);
    const all = Array.from(el.querySelectorAll('[data-lesson]'), (a) => a.getAttribute('data-lesson'));
    expect(all).toEqual(LESSONS.map((l) => l.name));
    const grouped = Array.from(el.querySelectorAll('[data-testid="study-lesson-list"] [data-lesson]'), (a) => a.getAttribute('data-lesson'));
    expect(grouped).toEqual(LESSONS.filter((l) => l.study).map((l) => l.name));
    expect(el.querySelector('[data-testid="lesson-list"] [data-lesson^="study-"]')).toBeNull();
  });

  it('a study lesson shows the engine’s numbers for the study’s table and links the study', async () => {
    const l = lessonByName('study-gpu-generations')!;
    const { el, learn, navigated } = view(() => createEngine({ createWorker: () => new InProcessWorker(mod) }));
    learn.show(l.name);
    const status = await settledStatus(el);
    expect(status.dataset.state).toBe('ready');
    const values = initialValues(l);
    const node = lessonEngine(mod);
    const p = node.predict(l.scenario(values, node.dataFor(l)));
    for (const d of l.shown) expect(el.querySelector(`[data-metric="${d.path}"]`)?.getAttribute('data-value'), d.path).toBe(String(d.path.split('.').reduce((o: any, k) => o?.[k], p)));
    expect(el.querySelector('[data-derived="speedup"]')?.getAttribute('data-value')).toBe('1');
    expect(el.querySelector('[data-testid="lesson-scenario"]')?.textContent).toContain(String(node.dataFor(l).study!.rows[0]!.layout));
    const link = el.querySelector<HTMLAnchorElement>('[data-testid="open-study"]')!;
    link.click();
    expect(navigated).toEqual([{ view: 'studies', study: 'gpu-generations' }]);
  });

  it('when the engine cannot run the study, the lesson says so and computes nothing', async () => {
    const l = lessonByName('study-gpu-generations')!;
    // The same engine, but its study() answers an in-band error.
    const broken = { ...mod, study: () => JSON.stringify({ error: { code: 'study.broken', path: '', message: 'no study today' } }) } as OptimusModule;
    const { el, learn } = view(() => createEngine({ createWorker: () => new InProcessWorker(broken) }));
    learn.show(l.name);
    const status = await settledStatus(el);
    expect(status.dataset.state).toBe('error');
    expect(status.textContent).toContain('no study today');
    expect(el.querySelectorAll('[data-metric][data-value]')).toHaveLength(0);
    // An exercise asked anyway is answered with the engine's refusal, not a made-up answer.
    el.querySelector<HTMLButtonElement>(`[data-reveal="${l.exercises[0]!.id}"]`)!.click();
    const verdict = el.querySelector<HTMLElement>(`[data-verdict-for="${l.exercises[0]!.id}"]`)!;
    for (let i = 0; i < 100 && verdict.dataset.state !== 'error'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(verdict.dataset.state).toBe('error');
    expect(verdict.dataset.answer).toBeUndefined();
  });
});
