// The Learn view: the list of lessons (each a link with data-lesson="NAME") and one lesson at a
// time: its text, live widgets (data-widget) that change the lesson's scenario, the engine's
// numbers for it (data-metric / data-value, and data-derived / data-value for numbers worked out
// from them), a chart, "open this in the calculator" (a #v1= link of the same scenario) and
// exercises the engine checks. A lesson on one of the paper's studies also links that study
// (?study=NAME) and first loads the study's table from the engine. Lessons are described in
// lessons.ts and study-lessons.ts (their contract in lesson-kit.ts).
import type { Engine, EngineResult } from '../engine/client';
import type { Prediction, ResolvedScenario } from '../engine/types';
import { encodeFragment } from '../codec/url';
import { chartCard } from './chartcard';
import { h, uid } from '../base/dom';
import { formatValue } from '../base/format';
import { getPath } from './metrics';
import { initialValues, LESSONS, lessonByName, NO_DATA, type LessonData, type LessonDef, type Predictor, type Values, type WidgetValue } from './lessons';
import type { Route } from './router';

export interface LearnOptions {
  engine: Engine;
  /** Goes to another view (a history entry); with a fragment, loads that scenario. */
  navigate(route: Route, fragment?: string): void;
  /** The page's address for a route (keeps the current scenario fragment). */
  href(route: Route): string;
  notify(msg: string): void;
}

export interface LearnView {
  el: HTMLElement;
  /** Shows the list (no name) or a lesson; an unknown name shows the list with a message. */
  show(lesson: string | undefined): void;
  /** Empties the view (its numbers must not stay in the page while another view is shown). */
  leave(): void;
}

/** A link that navigates inside the page (history entry) on a plain click. */
function routeLink(o: LearnOptions, route: Route, attrs: Record<string, unknown>, ...children: Array<Node | string>): HTMLAnchorElement {
  const a = h('a', { ...attrs, href: o.href(route) }, ...children);
  a.addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    o.navigate(route);
  });
  return a;
}

/** `el` is the view's section, made by the page before this module loads (on demand). */
export function createLearnView(o: LearnOptions, el: HTMLElement): LearnView {
  let generation = 0;

  const predictor: Predictor = async (s) => {
    const r = await o.engine.predict(s);
    return r.ok ? r.value : null;
  };

  function showList(message?: string): void {
    generation += 1;
    el.replaceChildren(h('h2', { id: 'learn-h' }, 'Learn'));
    if (message) el.append(h('p', { class: 'error general', role: 'alert' }, message));
    const item = (l: LessonDef): HTMLElement => h('li', null, routeLink(o, { view: 'learn', lesson: l.name }, { 'data-lesson': l.name }, l.title), h('p', { class: 'muted' }, l.summary));
    const topics = LESSONS.filter((l) => !l.study);
    const studies = LESSONS.filter((l) => l.study);
    el.append(
      h(
        'p',
        { class: 'intro' },
        'Short lessons on where the time and memory of LLM training and inference go. Each one runs the real engine: move the controls and the numbers and chart follow; every lesson opens in the full calculator and ends with exercises the engine checks.',
      ),
      h('ol', { class: 'lesson-list', 'data-testid': 'lesson-list' }, ...topics.map(item)),
    );
    if (studies.length > 0) {
      el.append(
        h('h3', { id: 'learn-studies-h' }, 'The studies'),
        h(
          'p',
          { class: 'intro' },
          'One lesson per study: the five of Kundu et al. (arXiv 2407.14645), the paper this calculator rebuilds, and one of ours on what a whole training run costs. Each has the study’s parameters as controls, its table as the engine computes it, and a link to the study itself.',
        ),
        h('ol', { class: 'lesson-list', 'data-testid': 'study-lesson-list', 'aria-labelledby': 'learn-studies-h' }, ...studies.map(item)),
      );
    }
  }

  function showLesson(l: LessonDef): void {
    const my = ++generation;
    const values: Values = initialValues(l);
    // A study lesson computes from its study's table: loaded once, before anything else.
    const dataReady: Promise<{ ok: true; data: LessonData } | { ok: false; message: string }> = l.study
      ? o.engine.study(l.study).then((r) => (r.ok ? { ok: true as const, data: { study: r.value } } : { ok: false as const, message: r.error.message }))
      : Promise.resolve({ ok: true as const, data: NO_DATA });
    const dataOrThrow = async (): Promise<LessonData> => {
      const d = await dataReady;
      if (!d.ok) throw new Error(d.message);
      return d.data;
    };
    // The baseline's prediction per scenario (the same one for most widget values).
    const baselines = new Map<string, Promise<EngineResult<Prediction>>>();
    const baselineOf = (s: Record<string, unknown>): Promise<EngineResult<Prediction>> => {
      const key = JSON.stringify(s);
      let r = baselines.get(key);
      if (!r) baselines.set(key, (r = o.engine.predict(s)));
      return r;
    };
    const status = h('p', { class: 'status', 'data-testid': 'lesson-status', 'data-state': 'computing', role: 'status', 'aria-live': 'polite' }, 'Computing…');
    const scenarioName = h('p', { class: 'muted scenario-name', 'data-testid': 'lesson-scenario' });
    const numbers = h('div', { class: 'metrics', 'data-testid': 'lesson-numbers' });
    const chart = chartCard('lesson-chart', 'Chart', () => `lesson-${l.name}`, o.notify);
    const sweep = l.sweep ? chartCard('lesson-sweep', l.sweepTitle ?? 'Sweep', () => `lesson-${l.name}-sweep`, o.notify) : null;
    const calcLink = h('a', { href: o.href({ view: 'estimate' }), 'data-testid': 'open-in-calculator', class: 'calc-link' }, 'Open this in the calculator');
    let calcFragment = '';
    calcLink.addEventListener('click', (e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || !calcFragment) return;
      e.preventDefault();
      o.navigate({ view: 'estimate' }, calcFragment);
    });
    const studyLink = l.study ? routeLink(o, { view: 'studies', study: l.study }, { 'data-testid': 'open-study', class: 'calc-link' }, 'See the whole study') : null;

    const widgets = l.widgets.map((w) => {
      const id = uid(`w-${w.id}`);
      const shown = h('output', { for: id, class: 'widget-value' });
      const label = (v: WidgetValue): string => w.choices.find((c) => c.value === v)?.label ?? String(v);
      let control: HTMLInputElement | HTMLSelectElement;
      if (w.kind === 'range') {
        const index = Math.max(0, w.choices.findIndex((c) => c.value === w.initial));
        const input = h('input', { id, type: 'range', min: '0', max: String(w.choices.length - 1), step: '1', 'data-widget': w.id, 'aria-valuetext': label(w.initial) });
        input.value = String(index);
        input.addEventListener('input', () => {
          const c = w.choices[Number(input.value)];
          if (!c) return;
          values[w.id] = c.value;
          input.setAttribute('aria-valuetext', c.label);
          shown.textContent = c.label;
          run();
        });
        control = input;
      } else {
        const sel = h('select', { id, 'data-widget': w.id }, ...w.choices.map((c) => h('option', { value: String(c.value) }, c.label)));
        sel.value = String(w.initial);
        sel.addEventListener('change', () => {
          const c = w.choices.find((x) => String(x.value) === sel.value);
          if (!c) return;
          values[w.id] = c.value;
          shown.textContent = c.label;
          run();
        });
        control = sel;
      }
      shown.textContent = label(w.initial);
      return h('div', { class: `field widget ${w.kind}` }, h('label', { for: id }, w.label, ' ', shown), control);
    });

    const exercises = l.exercises.map((ex) => {
      const id = uid(`ex-${ex.id}`);
      const pick = h('select', { id, 'data-answer-for': ex.id }, h('option', { value: '' }, 'Choose…'), ...ex.choices.map((c) => h('option', { value: String(c.value) }, c.label)));
      const verdict = h('p', { class: 'verdict', 'data-verdict-for': ex.id, 'aria-live': 'polite' });
      const check = h('button', { type: 'button', 'data-check': ex.id }, 'Check with the engine');
      const reveal = h('button', { type: 'button', class: 'link', 'data-reveal': ex.id }, 'Show the answer');
      const answer = async (): Promise<WidgetValue | null> => ex.answer(predictor, await dataOrThrow());
      const labelOf = (v: WidgetValue | null): string => (v === null ? 'none of the choices' : (ex.choices.find((c) => c.value === v)?.label ?? String(v)));
      const failed = (e: unknown): void => {
        verdict.dataset.state = 'error';
        verdict.textContent = `The engine could not answer: ${e instanceof Error ? e.message : String(e)}`;
      };
      check.addEventListener('click', () => {
        const chosen = ex.choices.find((c) => String(c.value) === pick.value);
        if (!chosen) {
          verdict.dataset.state = 'empty';
          verdict.textContent = 'Choose an answer first.';
          return;
        }
        verdict.dataset.state = 'checking';
        verdict.textContent = 'Asking the engine…';
        answer().then(
          (right) => {
            const ok = right !== null && right === chosen.value;
            verdict.dataset.state = ok ? 'right' : 'wrong';
            verdict.textContent = ok ? `Right: the engine agrees (${labelOf(right)}).` : `Not quite: try the widgets above and look again.`;
          },
          (e: unknown) => failed(e),
        );
      });
      reveal.addEventListener('click', () => {
        answer().then(
          (right) => {
            verdict.dataset.state = 'revealed';
            verdict.dataset.answer = right === null ? '' : String(right);
            verdict.textContent = `The engine’s answer: ${labelOf(right)}.`;
          },
          (e: unknown) => failed(e),
        );
      });
      return h(
        'li',
        { class: 'exercise', 'data-exercise': ex.id },
        h('label', { for: id }, ex.question),
        h('div', { class: 'exercise-row' }, pick, check, reveal),
        verdict,
      );
    });

    let running = false;
    let dirty = false;
    async function computeOnce(): Promise<void> {
      const asked = JSON.stringify(values);
      const loaded = await dataReady;
      if (my !== generation) return;
      if (!loaded.ok) {
        status.dataset.state = 'error';
        status.textContent = `The engine could not run the study ${l.study}: ${loaded.message}`;
        numbers.classList.add('stale');
        return;
      }
      let s: Record<string, unknown>;
      let base: Record<string, unknown> | undefined;
      try {
        s = l.scenario({ ...values }, loaded.data);
        base = l.baseline?.({ ...values }, loaded.data);
      } catch (e) {
        status.dataset.state = 'error';
        status.textContent = `This lesson could not make its scenario: ${e instanceof Error ? e.message : String(e)}`;
        numbers.classList.add('stale');
        return;
      }
      const [p, v, b] = await Promise.all([o.engine.predict(s), l.needsResolved ? o.engine.validate(s) : Promise.resolve(null), base ? baselineOf(base) : Promise.resolve(null)]);
      if (my !== generation) return;
      if (!p.ok) {
        status.dataset.state = 'error';
        status.textContent = `The engine refused this combination: ${p.error.message}`;
        numbers.classList.add('stale');
        return;
      }
      scenarioName.textContent = typeof s.name === 'string' ? `Scenario: ${s.name}` : '';
      render(p.value, v && v.ok ? v.value.scenario : null, b && b.ok ? b.value : null);
      calcFragment = await encodeFragment(s);
      if (my !== generation) return;
      calcLink.href = o.href({ view: 'estimate' }).replace(/#.*$/, '') + calcFragment;
      if (!dirty) {
        status.dataset.state = 'ready';
        status.dataset.values = asked;
        status.textContent = 'Computed by the engine.';
      }
    }
    function run(): void {
      status.dataset.state = 'computing';
      status.textContent = 'Computing…';
      if (running) {
        dirty = true;
        return;
      }
      running = true;
      void (async () => {
        try {
          do {
            dirty = false;
            await computeOnce();
          } while (dirty && my === generation);
        } finally {
          running = false;
        }
      })();
    }

    function render(p: Prediction, resolved: ResolvedScenario | null, baseline: Prediction | null): void {
      numbers.classList.remove('stale');
      const cards: HTMLElement[] = [];
      for (const d of l.shown) {
        const v = getPath(p, d.path);
        if (v === undefined || v === null) continue;
        cards.push(h('div', { class: 'metric' }, h('div', { class: 'label' }, d.label), h('span', { class: v === false ? 'value bad' : 'value', 'data-metric': d.path, 'data-value': String(v) }, formatValue(v, d.q))));
      }
      for (const d of l.derived) {
        const v = d.of(p, values, { baseline, resolved });
        if (v === null || !Number.isFinite(v)) continue;
        cards.push(h('div', { class: 'metric derived' }, h('div', { class: 'label' }, d.label), h('span', { class: 'value', 'data-derived': d.id, 'data-value': String(v) }, formatValue(v, d.q))));
      }
      numbers.replaceChildren(...cards);
      chart.set(l.chart(p, resolved, values), 'Nothing to draw for this combination.');
    }

    el.replaceChildren(
      h('nav', { class: 'crumbs', 'aria-label': 'lessons' }, routeLink(o, { view: 'learn' }, { 'data-testid': 'lesson-back' }, '← All lessons')),
      h(
        'article',
        { class: 'lesson', 'data-testid': 'lesson', 'data-lesson-name': l.name },
        h('h2', { id: 'learn-h' }, l.title),
        ...l.paragraphs.map((t) => h('p', { class: 'lesson-text' }, t)),
        h(
          'section',
          { class: 'card try', 'aria-labelledby': `${l.name}-try` },
          h('div', { class: 'card-head' }, h('h3', { id: `${l.name}-try` }, 'Try it'), h('div', { class: 'lesson-links' }, calcLink, studyLink)),
          h('div', { class: 'widgets', role: 'group', 'aria-label': 'lesson controls' }, ...widgets),
          scenarioName,
          status,
          numbers,
        ),
        chart.el,
        sweep?.el ?? null,
        h('section', { class: 'card exercises', 'aria-labelledby': `${l.name}-ex` }, h('h3', { id: `${l.name}-ex` }, 'Exercises'), h('ol', null, ...exercises)),
        h('section', { class: 'sources', 'aria-labelledby': `${l.name}-src` }, h('h3', { id: `${l.name}-src` }, 'Sources'), h('ul', null, ...l.sources.map((s) => h('li', null, s)))),
      ),
    );
    run();
    if (sweep && l.sweep) {
      const draw = l.sweep;
      sweep.set(null, 'Sweeping with the engine…');
      dataOrThrow()
        .then((data) => draw(predictor, data))
        .then(
          (spec) => {
            if (my === generation) sweep.set(spec, 'The engine refused every point of the sweep.');
          },
          (e: unknown) => {
            if (my === generation) sweep.set(null, `The engine could not draw this: ${e instanceof Error ? e.message : String(e)}`);
          },
        );
    }
  }

  return {
    el,
    show(name) {
      if (name === undefined) return showList();
      const l = lessonByName(name);
      if (l) showLesson(l);
      else showList(`There is no lesson called “${name}”; here are the lessons there are.`);
    },
    leave() {
      generation += 1;
      el.replaceChildren();
    },
  };
}
