// The page: wires the engine (Web Worker), the share-URL codec, the scenario editor, the results,
// the charts, compare (pin), exports, the Hugging Face import, and the views (Estimate, Search,
// Studies, Learn), each with its own address (router.ts) and browser history entry. Loaded by the
// entry (main.ts) once the engine worker has been started (boot.ts).
import { engine } from './boot';
import type { EngineError, JsonSchema, PresetList, Prediction, ResolvedScenario } from './engine/types';
import { decodeFragment, encodeFragment } from './codec/url';
import { restoreScenario } from './codec/restore';
import { quickScenario } from './engine/client';
import { inferenceTimeSpec, memorySpec, rooflineSpec, rlTimelineSpec, runWaterfallSpec, servingTimelineSpec, trainingTimeSpec } from './charts/specs';
import { chartCard } from './ui/chartcard';
import { h } from './base/dom';
import { createEditor, type Scenario } from './ui/editor';
import { download, fileStem, toCsv, toJson } from './ui/export';
import { createHfImport } from './ui/hfimport';
import type { CalibratePanel } from './ui/calibrate';
import { renderResults, type Shown } from './ui/results';
import { rlTimeWords } from './ui/rl';
import { createServingSweep } from './ui/serving';
import { createStudiesView } from './ui/studies';
import type { LearnView } from './ui/learn';
import type { SearchDeps } from './ui/search';
import { parseRoute, routeHref, sameRoute, type Route, type View } from './ui/router';
import { formatValue, groupDigits, type Quantity } from './base/format';
import { getPath } from './ui/metrics';
import { clone } from './state/pointer';
import { atChosenLayout, HEADLINES, starter, starterName, taskOf, type Task } from './state/tasks';
import { JOB_STUDY, studyJobOf } from './state/study-job';
import { createTaskPanel } from './ui/taskform';
import { fieldMessage, followingGpus, plainError, type Fix } from './ui/words';

// This module's imports are evaluated: what follows builds the page (docs/performance.md).
performance.mark('optimus:app-start');

interface Current extends Shown {
  scenario: Scenario;
}

let presetList: PresetList = {};
const presetCache = new Map<string, Record<string, unknown> | null>();
/** The engine's scenario schema, asked for once (the editor reads its fields from it). */
let scenarioSchema: Promise<JsonSchema | null> | null = null;
let current: Current | null = null;
let pinned: Current | null = null;
let lastValid: unknown = undefined;
// The scenario the address held, from its restore until the editor is filled with it: what a
// search asked for in between searches (a link opened on the Search view). `restoring`, until the
// first restore is done: what such a search waits for.
let restored: unknown = undefined;
let settleRestoring: () => void = () => undefined;
let restoring: Promise<void> | undefined = new Promise<void>((resolve) => (settleRestoring = resolve));
let lastFragment = '';
let seq = 0;

async function getPreset(kind: string, id: string): Promise<Record<string, unknown> | null> {
  const key = `${kind}/${id}`;
  if (!presetCache.has(key)) {
    const r = await engine.preset(kind, id);
    presetCache.set(key, r.ok && r.value && typeof r.value === 'object' ? (r.value as Record<string, unknown>) : null);
  }
  return clone(presetCache.get(key) ?? null);
}

// ---- Shell --------------------------------------------------------------------------------------

const status = h('p', { class: 'status', 'data-testid': 'status', 'data-state': 'computing', role: 'status', 'aria-live': 'polite' }, 'Loading the engine…');
const bannerText = h('span');
// A link shown as written with its error (restore.ts) offers the error's one fix here too: on a
// phone the answer's fix box sits below the task strip, out of the first screen (main.css shows
// this button on narrow screens only).
const bannerFix = h('button', { type: 'button', class: 'small banner-fix', 'data-testid': 'banner-fix', hidden: true });
/** The error of the link's own scenario the banner speaks of: it goes once a scenario is estimated. */
let linkError: { code: string; path: string } | null = null;
const banner = h(
  'div',
  { class: 'banner', 'data-testid': 'banner', role: 'alert', hidden: true },
  bannerText,
  bannerFix,
  h('button', { type: 'button', class: 'small', 'aria-label': 'dismiss message', onclick: () => (banner.hidden = true) }, 'Dismiss'),
);
const toast = h('div', { class: 'toast', role: 'status', 'aria-live': 'polite' });
let toastTimer: number | undefined;
function notify(msg: string): void {
  toast.textContent = msg;
  toast.classList.add('show');
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => toast.classList.remove('show'), 2500);
}

function setStatus(state: 'computing' | 'ready' | 'error', text: string): void {
  status.dataset.state = state;
  status.textContent = text;
  status.title = text;
  if (state === 'computing') status.dataset.linked = 'false';
}

const stem = (): string => fileStem(current?.scenario.name);

// The examples arrive with the preset list, after the first estimate; until then the picker shows
// its first line alone, not an empty box.
const exampleSelect = h('select', { id: 'example', 'data-testid': 'scenario-preset' }, h('option', { value: '' }, 'Choose…'));
const copyBtn = h('button', { type: 'button', 'data-testid': 'copy-link' }, 'Copy link');
const pinBtn = h('button', { type: 'button', 'data-testid': 'pin', 'aria-pressed': 'false', disabled: true }, 'Pin result');
const jsonBtn = h('button', { type: 'button', 'data-testid': 'export-json', disabled: true }, 'JSON');
const csvBtn = h('button', { type: 'button', 'data-testid': 'export-csv', disabled: true }, 'CSV');
const linkOut = h('input', { type: 'text', readonly: true, class: 'link-out', 'aria-label': 'share link', hidden: true });

const editor = createEditor({
  presets: () => presetList,
  preset: (kind, id) => getPreset(kind, id),
  schema: () => (scenarioSchema ??= engine.schema().then((r) => (r.ok ? r.value.scenario : null))),
  onEdit: () => {
    keptLink = null;
    // A short-form field still holding text that is not a number: the scenario is not the form's.
    const bad = taskPanel.invalid();
    if (bad) return invalidInput(bad.message);
    stage('edited');
    schedule();
  },
  onInvalid: (_path, message) => invalidInput(message),
  // The layout the search took, while the numbers on screen are the editor's scenario's.
  autoLayout: () => (current && !staleNow && JSON.stringify(current.scenario) === JSON.stringify(editor.scenario()) ? current.prediction.parallel_auto?.parallel : undefined),
});

/** A field's text is not a valid value: nothing is estimated, the numbers on screen are marked out of date and the status says why (the error of an earlier estimate, and its fix, go). */
function invalidInput(message: string): void {
  seq += 1; // drops a computation in flight
  dirty = false;
  setStatus('error', `Not estimated: ${message}`);
  markStale(true);
  fixBox.hidden = bannerFix.hidden = true;
  taskPanel.showError(null);
}

/** The task strip: what the person wants to do, its short form (writes through the editor). */
const taskPanel = createTaskPanel({
  presets: () => presetList,
  scenario: () => editor.scenario(),
  layoutFollows: () => editor.layoutFollows(),
  edit: (path, value, typed) => editor.edit(path, value, typed),
  followNotes: () => editor.followNotes(),
  effective: (path) => editor.effectiveValue(path),
  start: (t) => startTask(t),
  pin: () => {
    if (!pinned) pinBtn.click();
    notify('Pinned: change the GPUs or the layout, and every number shows its difference.');
    // The next step is to change the GPUs: keyboard focus goes there (probe 61: it stayed on the button).
    taskPanel.formEl.querySelector<HTMLElement>('[data-quick="/num_devices"]')?.focus();
  },
  // The task form's "Find the fastest placement" / "Rank every layout": the search view, started.
  searchLayouts: () => {
    searchStartOnShow = true;
    navigate({ view: 'search' });
  },
  // The cheapest-accelerator study on this scenario's own job (state/study-job.ts).
  compareGpus: () => navigate({ view: 'studies', study: JOB_STUDY, job: 'scenario' }),
  openEditor: () => {
    editorHeading.scrollIntoView({ block: 'start' });
    (editor.el.querySelector('input, select') as HTMLElement | null)?.focus({ preventScroll: true });
  },
  invalid: (_path, message) => invalidInput(message),
});
const editorHeading = h('h2', { id: 'editor-h', tabindex: '-1' }, 'Every setting');

/** Loads a task's starting scenario. */
function startTask(t: Task): void {
  keptLink = null;
  taskPanel.select(t);
  if (t === 'compare' && current) return void taskPanel.refresh();
  void editor.load(starter(t), { layoutFollows: true }).then(() => {
    taskPanel.refresh();
    schedule();
  });
}

/** An error's words, its fix as a button and a second way out where it has one; the code and path in a details line. */
const fixText = h('div', { class: 'fix-text' });
const fixBtn = h('button', { type: 'button', class: 'small', 'data-testid': 'fix', hidden: true });
const altBtn = h('button', { type: 'button', class: 'small', 'data-testid': 'fix-alt', hidden: true });
const fixDetails = h('div', { class: 'fix-details muted' });
const fixBox = h('div', { class: 'error-fix', 'data-testid': 'error-fix', role: 'alert', hidden: true }, fixText, fixBtn, altBtn, fixDetails);
let fixAction: (() => void) | null = null;
let altAction: (() => void) | null = null;
fixBtn.addEventListener('click', () => fixAction?.());
altBtn.addEventListener('click', () => altAction?.());
bannerFix.addEventListener('click', () => fixAction?.());

/** A fix's button shown with its label (hidden without one); what a click on it does. */
function showFixButton(btn: HTMLElement, fix: Fix | undefined): (() => void) | null {
  btn.hidden = fix === undefined;
  btn.textContent = fix?.label ?? '';
  if (!fix) return null;
  const { then } = fix;
  return () => void editor.edit(fix.path, fix.value).then(() => (then ? editor.edit(then.path, then.value) : undefined));
}

function markStale(stale: boolean): void {
  for (const el of [resultsEl, headline]) el.classList.toggle('stale', stale);
  for (const c of [chartRl, chartTime, chartTimeInf, chartMemory, chartRoofline, chartRun, chartServingCurve, chartServingUsers, chartServingUsersThroughput, chartServingTimeline]) c.el.classList.toggle('stale', stale);
  headline.dataset.stale = String(stale);
  // The calibrate panel would fit the last valid scenario, not the one on screen: out of reach
  // until the scenario is estimated again.
  staleNow = stale;
  if (calibratePanel) {
    calibratePanel.el.classList.toggle('stale', stale);
    calibratePanel.el.inert = stale;
  }
  if (!stale) {
    taskPanel.showError(null);
    fixBox.hidden = bannerFix.hidden = true;
    if (linkError) banner.hidden = true;
    linkError = null;
  }
}

const resultsEl = h('div', { class: 'results', 'data-testid': 'results' });
const compareNote = h('p', { class: 'compare-note', hidden: true });
const chartRl = chartCard('chart-rl-timeline', 'One RL step per pool', stem, notify);
const chartTime = chartCard('chart-time', 'Time breakdown', stem, notify);
const chartTimeInf = chartCard('chart-time-inference', 'Inference time breakdown', stem, notify);
const chartMemory = chartCard('chart-memory', 'Memory per device', stem, notify);
const chartRoofline = chartCard('chart-roofline', 'Roofline', stem, notify);
const chartRun = chartCard('chart-run', 'The whole run', stem, notify);
chartRun.el.hidden = true;
const chartServingCurve = chartCard('chart-serving-curve', 'Serving: latency against throughput', stem, notify);
const chartServingUsers = chartCard('chart-serving-concurrency', 'Serving: latency against concurrent users', stem, notify);
const chartServingUsersThroughput = chartCard('chart-serving-concurrency-throughput', 'Serving: throughput per GPU against concurrent users', stem, notify);
const chartServingTimeline = chartCard('chart-serving-timeline', 'Serving: requests over time', stem, notify);
chartServingCurve.el.hidden = chartServingUsers.el.hidden = chartServingUsersThroughput.el.hidden = chartServingTimeline.el.hidden = true;
const servingSweep = createServingSweep(engine, { rate: chartServingCurve, latency: chartServingUsers, throughput: chartServingUsersThroughput });
/** The scenario whose rate sweep is drawn (a sweep runs again only when the scenario changes). */
let sweptFragment = '';

const hf = createHfImport((model) => {
  const s = clone(editor.scenario());
  s.model = model;
  loadWhole('the model', Promise.resolve(s));
});

/** What a part of the page fetched on demand shows in `el` when its chunk cannot be loaded. */
const loadFailed =
  (el: HTMLElement, what: string) =>
  (e: unknown): void =>
    el.replaceChildren(h('p', { class: 'error general', role: 'alert' }, `${what} could not be loaded: ${e instanceof Error ? e.message : String(e)}`));

/** What the search view does when shown (its controls follow the scenario's kind). */
const searchShown: Array<() => void> = [];
/** Set by a button that asks for a search: the view starts it once shown (and loaded). */
let searchStartOnShow = false;
let searchStart: (() => void) | null = null;
// The Search view (its controls, ranking table and scatter) loads on demand, as the Learn view
// below: the first numbers do not wait for it. Its section exists from the start.
const searchEl = h('section', { class: 'view', id: 'search', 'aria-labelledby': 'search-h' });
let searchLoading: Promise<unknown> | null = null;
const searchDeps = (): SearchDeps => ({
  engine,
  scenario: () => clone((lastValid ?? restored) as Record<string, unknown>) ?? editor.scenario(),
  ready: () => restoring,
  apply: (parallel, batch, deployment) => {
    const s = clone(editor.scenario());
    s.parallel = clone(parallel);
    if (batch !== undefined && s.inference && typeof s.inference === 'object') (s.inference as Record<string, unknown>).batch = batch;
    const serving = (s.inference as Record<string, unknown> | undefined)?.serving as Record<string, unknown> | undefined;
    if (deployment && serving) {
      serving.max_batch = deployment.max_batch;
      if (deployment.disaggregated) serving.disaggregated = clone(deployment.disaggregated);
      else delete serving.disaggregated;
    }
    void editor.load(s).then(() => {
      schedule();
      navigate({ view: 'estimate' });
      notify('Layout loaded into the editor.');
    });
  },
  applyRl: (rl) => {
    const s = clone(editor.scenario());
    s.rl = clone(rl);
    void editor.load(s).then(() => {
      schedule();
      navigate({ view: 'estimate' });
      notify('Placement loaded into the editor.');
    });
  },
  onShow: (fn) => searchShown.push(fn),
  onStart: (fn) => (searchStart = fn),
  stem,
  notify,
});
const showSearch = (): void => {
  if (!searchEl.firstChild) searchEl.replaceChildren(h('p', { class: 'muted' }, 'Loading the search…'));
  (searchLoading ??= import('./ui/search').then((m) => searchEl.replaceChildren(...m.createSearchView(searchDeps()).childNodes))).then(
    () => {
      for (const fn of searchShown) fn();
      if (searchStartOnShow) searchStart?.();
      searchStartOnShow = false;
    },
    loadFailed(searchEl, 'The search'),
  );
};
// "Calibrate with your measurement" (ui/calibrate.ts): applying writes the scenario's calibration.
// It loads after the first result, as the editor's schema does (docs/web.md "Weight"), into the
// place its slot keeps under the results.
let staleNow = false;
const calibrateSlot = h('div', { class: 'calibrate-slot' });
let calibratePanel: CalibratePanel | null = null;
let calibrateLoading: Promise<unknown> | null = null;
const loadCalibrate = (): Promise<unknown> =>
  (calibrateLoading ??= import('./ui/calibrate').then(
    (m) => {
      const panel = m.createCalibratePanel(calibrateDeps);
      calibrateSlot.replaceWith(panel.el);
      calibratePanel = panel;
      markStale(staleNow);
      if (current) panel.update(current.scenario, current.prediction);
    },
    loadFailed(calibrateSlot, 'The calibration panel'),
  ));
const calibrateDeps = {
  engine,
  apply: (cal, run) => {
    // A calibration belongs to the layout measured: under parallel "auto", the one the search chose.
    const base = clone(run ?? editor.scenario());
    const s = cal ? atChosenLayout(base, current?.prediction) : base;
    if (cal) s.calibration = clone(cal);
    else delete s.calibration;
    void editor.load(s, { layoutFollows: editor.layoutFollows() }).then(() => {
      schedule();
      notify(run ? 'The measured run loaded, calibrated: the link and the JSON export carry it.' : cal ? 'Calibration applied: the link and the JSON export carry it.' : 'Calibration removed.');
    });
  },
} satisfies Parameters<typeof import('./ui/calibrate').createCalibratePanel>[0];
const studiesView = createStudiesView(
  engine,
  notify,
  (name, job) => {
    route = job ? { view: 'studies', study: name, job } : { view: 'studies', study: name };
    history.replaceState(history.state, '', routeHref(route, location.pathname, location.hash));
  },
  () => studyJobOf(editor.scenario(), (id) => presetList.models?.find((p) => p.id === id)?.name ?? starterName(id)),
);
// The Learn view (lessons, their text and exercises) loads on demand: the first numbers of the
// calculator do not wait for it. Its section exists from the start, so a route can show it.
const learnEl = h('section', { class: 'view learn', id: 'learn', 'aria-labelledby': 'learn-h' });
let learnLoading: Promise<LearnView> | null = null;
const loadLearn = (): Promise<LearnView> =>
  (learnLoading ??= import('./ui/learn').then((m) =>
    m.createLearnView({ engine, navigate: (r, fragment) => navigate(r, fragment), href: (r) => routeHref(r, location.pathname, location.hash), notify }, learnEl),
  ));
const learnView = {
  el: learnEl,
  show(lesson: string | undefined): void {
    if (!learnEl.firstChild) learnEl.replaceChildren(h('p', { class: 'muted' }, 'Loading the lessons…'));
    loadLearn().then(
      (v) => {
        if (sameRoute(route, { view: 'learn', lesson })) v.show(lesson);
      },
      loadFailed(learnEl, 'The lessons'),
    );
  },
  leave(): void {
    if (learnLoading) void learnLoading.then((v) => (route.view === 'learn' ? undefined : v.leave()));
    learnEl.replaceChildren();
  },
};

// The accuracy view (every validation row predicted live) also loads on demand, with its rows.
const accuracyEl = h('section', { class: 'view accuracy', id: 'accuracy', 'aria-labelledby': 'accuracy-h' });
let accuracyLoading: Promise<{ show(): void }> | null = null;
const showAccuracy = (): void => {
  if (!accuracyEl.firstChild) accuracyEl.replaceChildren(h('p', { class: 'muted' }, 'Loading the validation rows…'));
  (accuracyLoading ??= import('./ui/accuracy').then((m) => m.createAccuracyView(engine, accuracyEl))).then(
    (v) => v.show(),
    loadFailed(accuracyEl, 'The validation rows'),
  );
};

// ---- Views and their addresses ------------------------------------------------------------------

let route: Route = parseRoute(location.search);
const VIEW_LABELS: Record<View, string> = { estimate: 'Estimate', search: 'Search', studies: 'Studies', learn: 'Learn', accuracy: 'Accuracy' };
const navLinks = (Object.keys(VIEW_LABELS) as View[]).map((v) => {
  const a = h('a', { href: routeHref({ view: v }, location.pathname, location.hash), 'data-view': v }, VIEW_LABELS[v]);
  a.addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate({ view: v });
  });
  return a;
});

const headline = h('div', { class: 'headline', 'data-testid': 'headline', 'aria-label': 'headline numbers', role: 'group' });
// The answer (headline and any error with its fix) stays in view on a phone while the page
// scrolls (main.css). Once it is stuck at the top it shrinks to its numbers, one line for the
// words on where the time goes, so that it does not take a quarter of the screen; the mark just
// above it says when it has left its place. The height it gives up stays in the flow as a margin:
// nothing below moves (a shift there would make the browser's scroll anchoring move the page,
// and the mark with it, back and forth across the edge).
const answer = h('div', { class: 'answer', 'data-testid': 'answer' }, headline, fixBox);
const answerMark = h('div', { class: 'answer-mark', 'aria-hidden': 'true' });
new IntersectionObserver(([e]) => {
  const stuck = !e.isIntersecting && e.boundingClientRect.top < 0;
  if (stuck === answer.classList.contains('stuck')) return;
  const before = answer.getBoundingClientRect().height;
  answer.classList.toggle('stuck', stuck);
  answer.style.marginBottom = stuck ? `${Math.max(0, before - answer.getBoundingClientRect().height)}px` : '';
}).observe(answerMark);
const orientation = h(
  'p',
  { class: 'orientation', 'data-testid': 'orientation' },
  'Pick a task and change what you like: every number updates at once, with its 80 % range from published measurements and the formula behind it. New to the ideas? ',
  h('a', { href: routeHref({ view: 'learn' }, location.pathname, ''), onclick: (e: MouseEvent) => { e.preventDefault(); navigate({ view: 'learn' }); } }, 'Start with the lessons'),
  '; how close the engine comes to published runs: ',
  h('a', { href: routeHref({ view: 'accuracy' }, location.pathname, ''), onclick: (e: MouseEvent) => { e.preventDefault(); navigate({ view: 'accuracy' }); } }, 'accuracy'),
  '.',
);

const app = document.getElementById('app')!;
app.replaceChildren(
  h(
    'header',
    { class: 'top' },
    h('div', { class: 'brand' }, h('h1', null, 'Optimus'), h('p', { class: 'tagline' }, 'LLM training, serving and RL post-training: time, memory and cost, estimated in your browser (Kundu et al., arXiv 2407.14645)')),
    h('nav', { 'aria-label': 'views', class: 'views' }, ...navLinks),
  ),
  h(
    'div',
    { class: 'bar', role: 'region', 'aria-label': 'scenario actions' },
    status,
    h('div', { class: 'field inline scenario-only' }, h('label', { for: 'example' }, 'Example'), exampleSelect),
    h('div', { class: 'buttons scenario-only' }, copyBtn, pinBtn, h('span', { class: 'sep', 'aria-hidden': 'true' }), h('span', { class: 'muted small-label' }, 'Export'), jsonBtn, csvBtn),
    linkOut,
  ),
  h(
    'main',
    { id: 'main' },
    banner,
    h(
      'section',
      { id: 'estimate', class: 'view estimate', 'aria-label': 'Estimate' },
      orientation,
      taskPanel.el,
      answerMark,
      answer,
      taskPanel.formEl,
      h(
        'div',
        { class: 'layout' },
        h('div', { class: 'left' }, editorHeading, editor.el, hf),
        h('div', { class: 'right' }, h('h2', null, 'Results'), compareNote, resultsEl, calibrateSlot, chartRl.el, chartServingCurve.el, chartServingUsers.el, chartServingUsersThroughput.el, chartServingTimeline.el, chartTime.el, chartTimeInf.el, chartRun.el, chartMemory.el, chartRoofline.el),
      ),
    ),
    searchEl,
    studiesView.el,
    learnView.el,
    accuracyEl,
  ),
  h('footer', null, h('p', { class: 'muted' }, 'Everything runs in your browser (the C++ engine compiled to WebAssembly); nothing is sent anywhere. The link holds the whole scenario.'), toast),
);

performance.mark('optimus:shell-built');

// ---- Computing ----------------------------------------------------------------------------------

// Edits re-estimate at once (an estimate takes a few ms in the worker); edits that arrive while
// one is computing are coalesced into one more run with the latest scenario.
let running = false;
let dirty = false;

/**
 * Loads a whole scenario into the form and estimates it, busy from the start: the scenario and the
 * form arrive asynchronously, and nothing may read the previous result as this one's meanwhile.
 * Without a scenario (`failed` says why) the current one is estimated again.
 */
function loadWhole(what: string, next: Promise<Scenario | null>, loaded?: (s: Scenario) => void, failed?: string): void {
  keptLink = null;
  setStatus('computing', `Loading ${what}…`);
  void next.then(async (s) => {
    if (!s) {
      if (failed) notify(failed);
      return schedule();
    }
    await editor.load(s);
    loaded?.(s);
    schedule();
  });
}

function schedule(): void {
  setStatus('computing', 'Computing…');
  if (running) {
    dirty = true;
    return;
  }
  void (async () => {
    running = true;
    try {
      do {
        dirty = false;
        await compute();
      } while (dirty);
    } finally {
      running = false;
    }
  })();
}

/** The label the field of `path` shows (the short form's, else the full editor's), for error words. */
function fieldLabel(path: string): string | undefined {
  for (const sel of [`[data-quick="${path}"]`, `[data-path="${path}"]`]) {
    const id = document.querySelector(sel)?.id;
    const text = id ? document.querySelector(`label[for="${id}"]`)?.textContent?.trim() : undefined;
    if (text) return text;
  }
  return undefined;
}

function showFailure(e: EngineError): void {
  // A model or system the task's starting GPUs cannot hold: the GPUs follow it, said in a note,
  // and the page estimates again instead of showing the refusal (ui/words.ts followingGpus).
  const n = editor.scenario().num_devices;
  const gpus = followingGpus(e, editor.scenario(), editor.takeLastEdit(), editor.userSet());
  if (gpus !== undefined) {
    const note = `The GPUs followed to ${groupDigits(gpus)}: no layout of ${String(n)} GPU${n === 1 ? '' : 's'} holds this job, and ${groupDigits(gpus)} is the fewest the engine found that runs it (type a GPU count to choose another).`;
    void editor.follow('/num_devices', gpus, note).then(() => taskPanel.showFollowNotes());
    return;
  }
  const plain = plainError(e, editor.scenario(), editor.userSet(), fieldLabel);
  setStatus('error', `Not estimated: ${plain.words}`);
  editor.showError(e, fieldMessage(e, plain.words, fieldLabel));
  markStale(true);
  taskPanel.refresh(); // the short form shows the values that failed, not the last estimated ones
  taskPanel.showError(e.path, plain.words);
  fixText.textContent = `Not estimated: ${plain.words}`;
  fixDetails.textContent = `Details: ${e.code}${e.path ? ` at ${e.path}` : ''}: ${e.message}`;
  fixBox.hidden = false;
  fixAction = showFixButton(fixBtn, plain.fix);
  altAction = showFixButton(altBtn, plain.alt);
  // Only for the error the banner names (an edit may have led to another one).
  const named = linkError !== null && linkError.code === e.code && linkError.path === e.path;
  bannerFix.hidden = !named || banner.hidden || plain.fix === undefined;
  bannerFix.textContent = fixBtn.textContent;
}

/**
 * A step of the latest re-estimate as a performance mark (optimus:edit-NAME, replacing the last
 * one of that name), so that scripts/profile-edit.mjs can say where an edit's time goes.
 */
function stage(name: string): void {
  performance.clearMarks(`optimus:edit-${name}`);
  performance.mark(`optimus:edit-${name}`);
}

/** Numbers of the scenario before an edit, shown while a slow answer (a layout search, an RL step) is computed. */
function markUpdating(on: boolean): void {
  headline.classList.toggle('updating', on);
  resultsEl.classList.toggle('updating', on);
  headline.dataset.updating = String(on);
}

/** Predicts the editor's scenario (or `given`) and shows it; false when the engine refused it. */
async function compute(given?: Scenario): Promise<boolean> {
  const my = ++seq;
  setStatus('computing', 'Computing…');
  // An answer that takes longer than a glance (parallel "auto" searches, RL steps, long serving
  // runs) leaves the previous numbers on screen: after 150 ms they say they are being updated.
  const slow = window.setTimeout(() => {
    if (my === seq && current !== null) markUpdating(true);
  }, 150);
  try {
    return await computeNow(my, given);
  } finally {
    window.clearTimeout(slow);
    if (my === seq) markUpdating(false);
  }
}

async function computeNow(my: number, given?: Scenario): Promise<boolean> {
  stage('compute');
  const s = clone(given ?? editor.scenario());
  const t0 = performance.now();
  // An edit's answer is waited for: a quick scenario is answered on this thread (client.ts).
  const predicted = engine.predict(s, { interactive: true });
  if (current === null) {
    // The page's first numbers go on screen as soon as predict answers; validate (the resolved
    // scenario, which the formulas and charts read) comes after, then everything is drawn again
    // with it. The first-load engine answers on this thread (boot.ts), so asking for both at once
    // would put validate's first call before the first number.
    const first = await predicted;
    performance.mark('optimus:predicted');
    if (my === seq && !dirty && first.ok) {
      current = { scenario: s, prediction: first.value, resolved: null };
      lastValid = s;
      render();
    }
  }
  // parallel: "auto": predict searches the layouts; validate then checks the layout it took
  // rather than searching a second time (the formulas and charts read that layout).
  const [p, v] =
    s.parallel === 'auto'
      ? await predicted.then(async (r) => {
          const chosen = r.ok ? r.value.parallel_auto?.parallel : undefined;
          return [r, await engine.validate(chosen ? { ...s, parallel: chosen } : s, { interactive: true })] as const;
        })
      : await Promise.all([predicted, engine.validate(s, { interactive: true })]);
  performance.mark('optimus:validated');
  stage('answered');
  if (my !== seq || dirty) return true; // superseded by a newer edit
  if (!p.ok || !v.ok) {
    showFailure(!p.ok ? p.error : (v as { ok: false; error: EngineError }).error);
    return false;
  }
  editor.showError(null);
  markStale(false);
  current = { scenario: s, prediction: p.value, resolved: v.value.scenario };
  lastValid = s;
  render();
  stage('rendered');
  setStatus('ready', `Estimated in ${Math.max(1, Math.round(performance.now() - t0))} ms`);
  // For the browser tests: when the first result was on screen (ms since navigation start).
  const w = window as unknown as { __firstResultMs?: number };
  if (w.__firstResultMs === undefined) w.__firstResultMs = performance.now();
  // The address follows a few milliseconds later (the link is compressed off the first result's
  // path); data-linked says when it holds this result's scenario, for whoever reads it (the
  // browser tests) the moment the result is shown.
  const frag = await encodeFragment(s);
  // A link that could not be used stays in the address until the person edits (probe 61: the
  // default's link replaced the one they pasted, so they could not look at it or send it back).
  if (my === seq && keptLink !== null && location.hash === keptLink) {
    lastFragment = keptLink;
    status.dataset.linked = 'kept';
    return true;
  }
  if (my === seq && location.hash !== frag) {
    lastFragment = frag;
    history.replaceState(history.state, '', frag);
    refreshLinks();
  } else if (my === seq) lastFragment = frag;
  if (my === seq) status.dataset.linked = 'true';
  return true;
}

let chartTimer: number | undefined;

/** The headline of the scenario's task (state/tasks.ts), the same numbers as the result cards. */
function renderHeadline(p: Prediction, s: Scenario): void {
  const items = HEADLINES[taskOf(s)].flatMap(([path, label, q]) => {
    const v = getPath(p, path);
    if (v === undefined || v === null) return [];
    const text = formatValue(v, q as Quantity);
    const shown = path === 'memory.fits' && v === false ? 'does not fit' : path === 'memory.fits' ? 'yes' : text;
    return [h('span', { class: 'item' }, h('span', { class: 'label' }, path === 'memory.fits' ? 'Fits in GPU memory' : label), ' ', h('strong', { class: v === false ? 'bad' : undefined, 'data-metric': path, 'data-value': String(v) }, shown))];
  });
  if (p.rl && taskOf(s) === 'rl') items.push(h('span', { class: 'item where', 'data-testid': 'rl-where' }, h('span', { class: 'label' }, 'Where the time goes'), ' ', rlTimeWords(p.rl)));
  if (p.run && getPath(p, 'run.cost_usd') === undefined && taskOf(s) === 'plan')
    items.push(h('span', { class: 'item muted' }, 'No price set for this system: enter one to see costs.'));
  headline.replaceChildren(...items);
}

function render(): void {
  if (!current) return;
  renderResults(resultsEl, current, pinned);
  calibratePanel?.update(current.scenario, current.prediction);
  renderHeadline(current.prediction, current.scenario);
  taskPanel.refresh();
  if (route.view === 'search') for (const fn of searchShown) fn(); // a link opened on the search view
  compareNote.hidden = pinned === null;
  if (pinned) compareNote.textContent = `Comparing with the pinned result: ${String(pinned.scenario.name ?? 'unnamed scenario')} (differences are current − pinned).`;
  for (const b of [pinBtn, jsonBtn, csvBtn]) b.disabled = false;
  // Charts take longer than the numbers: draw them in the next task so the numbers show first.
  window.clearTimeout(chartTimer);
  chartTimer = window.setTimeout(renderCharts, 0);
}

function renderCharts(): void {
  if (!current) return;
  const p: Prediction = current.prediction;
  const resolved: ResolvedScenario | null = current.resolved;
  const tt = trainingTimeSpec(p);
  const it = inferenceTimeSpec(p, resolved?.inference?.output_len ?? (current.scenario.inference as { output_len?: number } | undefined)?.output_len);
  const rl = rlTimelineSpec(p);
  chartRl.el.hidden = rl === null;
  if (rl) chartRl.set(rl);
  chartTime.set(tt ?? it, 'No time breakdown.');
  chartTime.el.hidden = rl !== null && !tt && !it; // an RL step's time is its timeline
  chartTimeInf.el.hidden = !(tt && it);
  if (tt && it) chartTimeInf.set(it);
  chartMemory.set(memorySpec(p));
  const run = runWaterfallSpec(p);
  chartRun.el.hidden = run === null;
  if (run) chartRun.set(run);
  // An RL step has no static inference operators (its rollout is a served stream): no roofline
  // card offering to switch one on.
  chartRoofline.el.hidden = rl !== null;
  if (!rl) chartRoofline.set(rooflineSpec(p, resolved), 'The roofline places the operators of a training or inference workload: this scenario has neither.');
  const timeline = servingTimelineSpec(p);
  chartServingTimeline.el.hidden = timeline === null;
  if (timeline) chartServingTimeline.set(timeline);
  if (!p.serving) {
    sweptFragment = '';
    servingSweep.clear();
  } else {
    const key = JSON.stringify(current.scenario);
    if (key !== sweptFragment) {
      sweptFragment = key;
      servingSweep.run(current.scenario, p.serving.slo, p.serving);
    }
  }
}

// ---- Actions ------------------------------------------------------------------------------------

copyBtn.addEventListener('click', async () => {
  // The link of the scenario on screen: an edit committed by this very click (the field's change
  // event comes first) reaches the address only when its answer is computed, so a link read from
  // the address bar had carried the value before it.
  const url = `${location.origin}${location.pathname}${location.search}${await encodeFragment(editor.scenario())}`;
  const fallback = (): void => {
    linkOut.hidden = false;
    linkOut.value = url;
    linkOut.focus();
    linkOut.select();
    notify('Copy the selected link.');
  };
  if (navigator.clipboard?.writeText) {
    navigator.clipboard.writeText(url).then(() => notify('Link copied.'), fallback);
  } else fallback();
});

pinBtn.addEventListener('click', () => {
  if (pinned) pinned = null;
  else if (current) pinned = clone(current);
  pinBtn.textContent = pinned ? 'Unpin' : 'Pin result';
  pinBtn.setAttribute('aria-pressed', String(pinned !== null));
  render();
});

jsonBtn.addEventListener('click', () => {
  if (current) download(`${stem()}.json`, new Blob([toJson(current.scenario, current.prediction)], { type: 'application/json' }));
});
csvBtn.addEventListener('click', () => {
  if (current) download(`${stem()}.csv`, new Blob([toCsv(current.prediction)], { type: 'text/csv' }));
});

/**
 * Selects the task of a scenario loaded whole (a served stream opens the Serve task, an RL job the
 * RL one; static inference is shown under Serve); a comparison in progress stays one unless
 * `overCompare` (a link asks for its own task).
 */
function selectTaskOf(s: Scenario, overCompare: boolean): void {
  const task = taskOf(s);
  if (overCompare || taskPanel.task() !== 'compare') taskPanel.select(task === 'infer' ? 'serve' : task);
}

exampleSelect.addEventListener('change', () => {
  const id = exampleSelect.value;
  if (!id) return;
  // The example's task, as a link's scenario opens its own; a comparison in progress stays one.
  loadWhole('the example', getPreset('scenarios', id) as Promise<Scenario | null>, (s) => selectTaskOf(s, false), `The example "${id}" could not be loaded.`);
});

// ---- Views ----------------------------------------------------------------------------------------

const viewEls: Record<View, HTMLElement> = { estimate: document.getElementById('estimate')!, search: searchEl, studies: studiesView.el, learn: learnView.el, accuracy: accuracyEl };

/** Shows the route's view (and its study or lesson); the address is the caller's business. */
function applyRoute(r: Route): void {
  route = r;
  app.dataset.view = r.view;
  for (const [v, el] of Object.entries(viewEls)) el.hidden = v !== r.view;
  for (const a of navLinks) {
    const v = a.dataset.view as View;
    if (v === r.view) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (r.view === 'learn') learnView.show(r.lesson);
  else learnView.leave();
  if (r.view === 'studies') void studiesView.show(r.study, r.job);
  if (r.view === 'accuracy') showAccuracy();
  if (r.view === 'search') showSearch();
  document.title = r.view === 'estimate' ? 'Optimus: LLM performance calculator' : `${VIEW_LABELS[r.view]} · Optimus`;
}

/** Keeps the view links' addresses on the current scenario (middle-click, copy link address). */
function refreshLinks(): void {
  for (const a of navLinks) a.href = routeHref({ view: a.dataset.view as View }, location.pathname, location.hash);
}

/** Goes to a view with a history entry; a fragment given loads that scenario into the calculator. */
function navigate(r: Route, fragment?: string): void {
  const hash = fragment ?? location.hash;
  if (sameRoute(r, route) && hash === location.hash) return;
  history.pushState(null, '', routeHref(r, location.pathname, hash));
  applyRoute(r);
  refreshLinks();
  window.scrollTo(0, 0);
  if (hash !== lastFragment) void loadFromHash();
}

window.addEventListener('popstate', () => {
  applyRoute(parseRoute(location.search));
  refreshLinks();
  if (location.hash !== lastFragment) void loadFromHash();
});

// ---- Loading and links --------------------------------------------------------------------------

/** The link that could not be used, kept in the address until the person edits (computeNow). */
let keptLink: string | null = null;

/** The preset lists for the pickers, asked for once. */
let presetsLoading: Promise<void> | null = null;
const loadPresetList = (): Promise<void> =>
  (presetsLoading ??= engine.presets().then((list) => {
    presetList = list;
    exampleSelect.replaceChildren(h('option', { value: '' }, 'Choose…'), ...(presetList.scenarios ?? []).map((p) => h('option', { value: p.id }, p.name ?? p.id)));
    editor.refresh();
    taskPanel.refresh();
  }));

async function loadFromHash(): Promise<void> {
  // Marks this fragment as handled (popstate and hashchange may both announce it).
  lastFragment = location.hash;
  setStatus('computing', 'Loading…');
  const decoded = await decodeFragment(location.hash);
  // No link and nothing shown yet: the page opens on the training task's starting scenario, and so
  // does a link that cannot be used (nothing valid shown before it): what a visit without one shows.
  const landing = lastValid === undefined;
  const landingStart = !decoded.ok && decoded.code === 'link.none' && landing;
  const r =
    landingStart
      ? ({ ok: true, source: 'fallback', scenario: starter('train') } as const)
      : await restoreScenario(decoded, engine, { lastValid, start: starter('train') });
  performance.mark('optimus:restored');
  if (r.scenario !== null && typeof r.scenario === 'object') restored = r.scenario;
  settleRestoring();
  restoring = undefined;
  linkError = !r.ok && r.source === 'link' ? { code: r.code, path: r.path } : null;
  keptLink = !r.ok && r.source !== 'link' && !landingStart ? location.hash : null;
  bannerFix.hidden = true;
  if (!r.ok) {
    bannerText.textContent = keptLink ? `${r.message} Your link stays in the address bar until you change something.` : r.message;
    banner.hidden = false;
  } else if (r.source === 'link') banner.hidden = true;
  if (r.scenario === null || typeof r.scenario !== 'object') {
    setStatus('error', r.ok ? 'No scenario.' : r.message);
    return;
  }
  // Without a link the page shows the training task's start, whose layout follows like a task's.
  const loadForm = async (): Promise<void> => {
    await editor.load(r.scenario as Scenario, { layoutFollows: landingStart || (landing && !r.ok && r.source === undefined) });
    restored = undefined;
    taskPanel.refresh();
    performance.mark('optimus:editor-loaded');
  };
  // A scenario that is not quick (a layout search, a serving simulation, an RL step: seconds to
  // minutes) is estimated as an edit of it is, in the worker (client.ts), once the form is built
  // and filled: the worker answers one call at a time, and the form's schema and presets would
  // otherwise wait behind that estimate.
  if (!quickScenario(r.scenario)) {
    selectTaskOf(r.scenario as Scenario, r.source === 'link');
    await Promise.all([loadForm(), loadPresetList()]);
    await compute();
    void loadCalibrate(); // after the result, as below: loaded, it shows the page's state (markStale)
    return;
  }
  // The numbers first (the editor is not needed for them), then the form: its schema comes from
  // the full engine, which the worker fetches only when asked for it, so asking after the first
  // result keeps that download out of the page's first load (docs/web.md "Weight").
  const first = compute(r.scenario as Scenario);
  editor.preview(r.scenario as Scenario);
  selectTaskOf(r.scenario as Scenario, r.source === 'link');
  const estimated = await first;
  void loadCalibrate();
  await loadForm();
  // An engine error found before the form existed is shown again, now at its field.
  if (!estimated) await compute();
}

window.addEventListener('hashchange', () => {
  if (location.hash === lastFragment) return;
  void loadFromHash();
});

applyRoute(route);

void (async () => {
  // The scenario of the address is asked for at once, not after the engine has said it is ready:
  // the worker keeps what arrives while it loads the wasm module and answers it, in order, as soon
  // as the module is there (no round trip through this thread, which is busy building the page).
  const loaded = engine.ready.then(
    () => {
      performance.mark('optimus:engine-ready');
      return null;
    },
    (e: unknown) => e,
  );
  const first = loadFromHash();
  const failure = await loaded;
  if (failure !== null) {
    await first;
    setStatus('error', `The engine could not be loaded: ${failure instanceof Error ? failure.message : String(failure)}`);
    return;
  }
  // Then the preset lists for the pickers, which the first numbers do not need.
  const lists = first.then(loadPresetList);
  await first;
  // A link to the study on the scenario's job: priced again now that the scenario is loaded.
  if (route.view === 'studies' && route.job) void studiesView.show(route.study, route.job);
  performance.mark('optimus:first-result');
  await lists;
})();
