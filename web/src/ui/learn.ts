// The Learn view: the list of lessons (each a link with data-lesson="NAME") and one lesson at a
// time: its text, live widgets (data-widget) that change the lesson's scenario, the engine's
// numbers for it (data-metric / data-value, and data-derived / data-value for numbers worked out
// from them), a chart, "open this in the calculator" (a #v1= link of the same scenario) and
// exercises the engine checks. Lessons are described in lessons.ts.
import type { Engine } from '../engine/client';
import type { Prediction } from '../engine/types';
import { encodeFragment } from '../codec/url';
import { chartCard } from './chartcard';
import { h, uid } from './dom';
import { formatValue } from './format';
import { getPath } from './metrics';
import { initialValues, LESSONS, lessonByName, type LessonDef, type Predictor, type Values, type WidgetValue } from './lessons';
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
    el.append(
      h(
        'p',
        { class: 'intro' },
        'Short lessons on where the time and memory of LLM training and inference go. Each one runs the real engine: move the controls and the numbers and chart follow; every lesson opens in the full calculator and ends with exercises the engine checks.',
      ),
      h(
        'ol',
        { class: 'lesson-list', 'data-testid': 'lesson-list' },
        ...LESSONS.map((l) => h('li', null, routeLink(o, { view: 'learn', lesson: l.name }, { 'data-lesson': l.name }, l.title), h('p', { class: 'muted' }, l.summary))),
      ),
    );
  }

  function showLesson(l: LessonDef): void {
    const my = ++generation;
    const values: Values = initialValues(l);
    const status = h('p', { class: 'status', 'data-testid': 'lesson-status', 'data-state': 'computing', role: 'status', 'aria-live': 'polite' }, 'Computing…');
    const numbers = h('div', { class: 'metrics', 'data-testid': 'lesson-numbers' });
    const chart = chartCard('lesson-chart', 'Chart', () => `lesson-${l.name}`, o.notify);
    const sweep = l.sweep ? chartCard('lesson-sweep', 'Sweep', () => `lesson-${l.name}-sweep`, o.notify) : null;
    const calcLink = h('a', { href: o.href({ view: 'estimate' }), 'data-testid': 'open-in-calculator', class: 'calc-link' }, 'Open this in the calculator');
    let calcFragment = '';
    calcLink.addEventListener('click', (e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || !calcFragment) return;
      e.preventDefault();
      o.navigate({ view: 'estimate' }, calcFragment);
    });

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
      const answer = (): Promise<WidgetValue | null> => ex.answer(predictor);
      const labelOf = (v: WidgetValue | null): string => (v === null ? 'none of the choices' : (ex.choices.find((c) => c.value === v)?.label ?? String(v)));
      check.addEventListener('click', () => {
        const chosen = ex.choices.find((c) => String(c.value) === pick.value);
        if (!chosen) {
          verdict.dataset.state = 'empty';
          verdict.textContent = 'Choose an answer first.';
          return;
        }
        verdict.dataset.state = 'checking';
        verdict.textContent = 'Asking the engine…';
        void answer().then((right) => {
          const ok = right !== null && right === chosen.value;
          verdict.dataset.state = ok ? 'right' : 'wrong';
          verdict.textContent = ok ? `Right: the engine agrees (${labelOf(right)}).` : `Not quite: try the widgets above and look again.`;
        });
      });
      reveal.addEventListener('click', () => {
        void answer().then((right) => {
          verdict.dataset.state = 'revealed';
          verdict.dataset.answer = right === null ? '' : String(right);
          verdict.textContent = `The engine’s answer: ${labelOf(right)}.`;
        });
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
      const s = l.scenario({ ...values });
      const asked = JSON.stringify(values);
      const [p, v] = await Promise.all([o.engine.predict(s), l.needsResolved ? o.engine.validate(s) : Promise.resolve(null)]);
      if (my !== generation) return;
      if (!p.ok) {
        status.dataset.state = 'error';
        status.textContent = `The engine refused this combination: ${p.error.message}`;
        numbers.classList.add('stale');
        return;
      }
      render(p.value, v && v.ok ? v.value.scenario : null);
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

    function render(p: Prediction, resolved: Parameters<LessonDef['chart']>[1]): void {
      numbers.classList.remove('stale');
      const cards: HTMLElement[] = [];
      for (const d of l.shown) {
        const v = getPath(p, d.path);
        if (v === undefined || v === null) continue;
        cards.push(h('div', { class: 'metric' }, h('div', { class: 'label' }, d.label), h('span', { class: v === false ? 'value bad' : 'value', 'data-metric': d.path, 'data-value': String(v) }, formatValue(v, d.q))));
      }
      for (const d of l.derived) {
        const v = d.of(p, values);
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
          h('div', { class: 'card-head' }, h('h3', { id: `${l.name}-try` }, 'Try it'), calcLink),
          h('div', { class: 'widgets', role: 'group', 'aria-label': 'lesson controls' }, ...widgets),
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
      sweep.set(null, 'Sweeping with the engine…');
      void l.sweep(predictor).then((spec) => {
        if (my === generation) sweep.set(spec, 'The engine refused every point of the sweep.');
      });
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
