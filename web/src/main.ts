// The page: wires the engine (Web Worker), the share-URL codec, the scenario editor, the results,
// the charts, compare (pin), exports, the Hugging Face import, and the search and studies views.
import './styles/main.css';
import { createEngine } from './engine/client';
import type { EngineError, JsonSchema, PresetList, Prediction, ResolvedScenario } from './engine/types';
import { decodeFragment, encodeFragment } from './codec/url';
import { restoreScenario } from './codec/restore';
import { inferenceTimeSpec, memorySpec, rooflineSpec, servingTimelineSpec, trainingTimeSpec } from './charts/specs';
import { chartCard } from './ui/chartcard';
import { h } from './ui/dom';
import { createEditor, type Scenario } from './ui/editor';
import { download, fileStem, toCsv, toJson } from './ui/export';
import { createHfImport } from './ui/hfimport';
import { renderResults, type Shown } from './ui/results';
import { createServingSweep } from './ui/serving';
import { createSearchView } from './ui/search';
import { createStudiesView } from './ui/studies';
import { clone } from './state/pointer';

interface Current extends Shown {
  scenario: Scenario;
}

const engine = createEngine();
let presetList: PresetList = {};
const presetCache = new Map<string, Record<string, unknown> | null>();
/** The engine's scenario schema, asked for once (the editor reads its fields from it). */
let scenarioSchema: Promise<JsonSchema | null> | null = null;
let current: Current | null = null;
let pinned: Current | null = null;
let lastValid: unknown = undefined;
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
const banner = h(
  'div',
  { class: 'banner', 'data-testid': 'banner', role: 'alert', hidden: true },
  bannerText,
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
}

const stem = (): string => fileStem(current?.scenario.name);

const exampleSelect = h('select', { id: 'example', 'data-testid': 'scenario-preset' });
const copyBtn = h('button', { type: 'button', 'data-testid': 'copy-link' }, 'Copy link');
const pinBtn = h('button', { type: 'button', 'data-testid': 'pin', 'aria-pressed': 'false', disabled: true }, 'Pin result');
const jsonBtn = h('button', { type: 'button', 'data-testid': 'export-json', disabled: true }, 'JSON');
const csvBtn = h('button', { type: 'button', 'data-testid': 'export-csv', disabled: true }, 'CSV');
const linkOut = h('input', { type: 'text', readonly: true, class: 'link-out', 'aria-label': 'share link', hidden: true });

const editor = createEditor({
  presets: () => presetList,
  preset: (kind, id) => getPreset(kind, id),
  schema: () => (scenarioSchema ??= engine.schema().then((r) => (r.ok ? r.value.scenario : null))),
  onEdit: () => schedule(),
  onInvalid: (path, message) => {
    seq += 1; // drops a computation in flight
    dirty = false;
    setStatus('error', `Not estimated: ${path}: ${message}`);
    resultsEl.classList.add('stale');
  },
});

const resultsEl = h('div', { class: 'results', 'data-testid': 'results' });
const compareNote = h('p', { class: 'compare-note', hidden: true });
const chartTime = chartCard('chart-time', 'Time breakdown', stem, notify);
const chartTimeInf = chartCard('chart-time-inference', 'Inference time breakdown', stem, notify);
const chartMemory = chartCard('chart-memory', 'Memory per device', stem, notify);
const chartRoofline = chartCard('chart-roofline', 'Roofline', stem, notify);
const chartServingCurve = chartCard('chart-serving-curve', 'Serving: latency against throughput', stem, notify);
const chartServingTimeline = chartCard('chart-serving-timeline', 'Serving: requests over time', stem, notify);
chartServingCurve.el.hidden = chartServingTimeline.el.hidden = true;
const servingSweep = createServingSweep(engine, chartServingCurve);
/** The scenario whose rate sweep is drawn (a sweep runs again only when the scenario changes). */
let sweptFragment = '';

const hf = createHfImport((model) => {
  const s = clone(editor.scenario());
  s.model = model;
  void editor.load(s).then(() => schedule());
});

const searchView = createSearchView({
  engine,
  scenario: () => clone(lastValid as Record<string, unknown>) ?? editor.scenario(),
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
      document.getElementById('estimate')?.scrollIntoView({ behavior: 'smooth' });
      notify('Layout loaded into the editor.');
    });
  },
  stem,
  notify,
});
const studiesView = createStudiesView(engine, notify);

const jump = (id: string, label: string): HTMLButtonElement =>
  h('button', { type: 'button', class: 'link', onclick: () => document.getElementById(id)?.scrollIntoView({ behavior: 'smooth' }) }, label);

const app = document.getElementById('app')!;
app.replaceChildren(
  h(
    'header',
    { class: 'top' },
    h('div', { class: 'brand' }, h('h1', null, 'Optimus'), h('p', { class: 'tagline' }, 'LLM training and inference time and memory, estimated in your browser (Kundu et al., arXiv 2407.14645)')),
    h('nav', { 'aria-label': 'sections' }, jump('estimate', 'Estimate'), jump('search', 'Search'), jump('studies', 'Studies')),
  ),
  banner,
  h(
    'div',
    { class: 'bar', role: 'group', 'aria-label': 'scenario actions' },
    status,
    h('div', { class: 'field inline' }, h('label', { for: 'example' }, 'Example'), exampleSelect),
    h('div', { class: 'buttons' }, copyBtn, pinBtn, h('span', { class: 'sep', 'aria-hidden': 'true' }), h('span', { class: 'muted small-label' }, 'Export'), jsonBtn, csvBtn),
    linkOut,
  ),
  h(
    'main',
    { id: 'estimate', class: 'layout' },
    h('div', { class: 'left' }, h('h2', null, 'Scenario'), editor.el, hf),
    h('div', { class: 'right' }, h('h2', null, 'Results'), compareNote, resultsEl, chartServingCurve.el, chartServingTimeline.el, chartTime.el, chartTimeInf.el, chartMemory.el, chartRoofline.el),
  ),
  searchView,
  studiesView.el,
  h('footer', null, h('p', { class: 'muted' }, 'Everything runs locally in a Web Worker (C++ engine compiled to WebAssembly); nothing is sent anywhere. The link holds the whole scenario.')),
  toast,
);

// ---- Computing ----------------------------------------------------------------------------------

// Edits re-estimate at once (an estimate takes a few ms in the worker); edits that arrive while
// one is computing are coalesced into one more run with the latest scenario.
let running = false;
let dirty = false;

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

function showFailure(e: EngineError): void {
  setStatus('error', `Not estimated: ${e.message}`);
  editor.showError(e);
  resultsEl.classList.add('stale');
}

async function compute(): Promise<void> {
  const my = ++seq;
  setStatus('computing', 'Computing…');
  const s = clone(editor.scenario());
  const t0 = performance.now();
  const [p, v] = await Promise.all([engine.predict(s), engine.validate(s)]);
  performance.mark('optimus:predicted');
  if (my !== seq || dirty) return; // superseded by a newer edit
  if (!p.ok) return showFailure(p.error);
  if (!v.ok) return showFailure(v.error);
  editor.showError(null);
  resultsEl.classList.remove('stale');
  current = { scenario: s, prediction: p.value, resolved: v.value.scenario };
  lastValid = s;
  render();
  setStatus('ready', `Estimated in ${Math.max(1, Math.round(performance.now() - t0))} ms`);
  // For the browser tests: when the first result was on screen (ms since navigation start).
  const w = window as unknown as { __firstResultMs?: number };
  if (w.__firstResultMs === undefined) w.__firstResultMs = performance.now();
  const frag = await encodeFragment(s);
  if (my === seq && location.hash !== frag) {
    lastFragment = frag;
    history.replaceState(history.state, '', frag);
  } else if (my === seq) lastFragment = frag;
}

let chartTimer: number | undefined;

function render(): void {
  if (!current) return;
  renderResults(resultsEl, current, pinned);
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
  chartTime.set(tt ?? it, 'No time breakdown.');
  chartTimeInf.el.hidden = !(tt && it);
  if (tt && it) chartTimeInf.set(it);
  chartMemory.set(memorySpec(p));
  chartRoofline.set(rooflineSpec(p, resolved), 'The roofline shows the inference operators: switch on an inference workload.');
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
      servingSweep.run(current.scenario, p.serving.slo);
    }
  }
}

// ---- Actions ------------------------------------------------------------------------------------

copyBtn.addEventListener('click', () => {
  const url = location.href;
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

exampleSelect.addEventListener('change', () => {
  const id = exampleSelect.value;
  if (!id) return;
  void getPreset('scenarios', id).then(async (s) => {
    if (!s) return notify(`The example "${id}" could not be loaded.`);
    await editor.load(s);
    schedule();
  });
});

// ---- Loading and links --------------------------------------------------------------------------

async function loadFromHash(): Promise<void> {
  setStatus('computing', 'Loading…');
  const decoded = await decodeFragment(location.hash);
  const r = await restoreScenario(decoded, engine, { lastValid });
  performance.mark('optimus:restored');
  if (!r.ok) {
    bannerText.textContent = r.message;
    banner.hidden = false;
  } else if (r.source === 'link') banner.hidden = true;
  if (r.scenario === null || typeof r.scenario !== 'object') {
    setStatus('error', r.ok ? 'No scenario.' : r.message);
    return;
  }
  await editor.load(r.scenario as Scenario);
  performance.mark('optimus:editor-loaded');
  await compute();
}

window.addEventListener('hashchange', () => {
  if (location.hash === lastFragment) return;
  void loadFromHash();
});

void (async () => {
  try {
    await engine.ready;
  } catch (e) {
    setStatus('error', `The engine could not be loaded: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  performance.mark('optimus:engine-ready');
  // The scenario of the address first (the engine answers in order), then the preset lists for
  // the pickers, which the first numbers do not need.
  const first = loadFromHash();
  const lists = first.then(() => engine.presets()).then((list) => {
    presetList = list;
    exampleSelect.replaceChildren(h('option', { value: '' }, 'Choose…'), ...(presetList.scenarios ?? []).map((p) => h('option', { value: p.id }, p.name ?? p.id)));
    editor.refresh();
  });
  await first;
  performance.mark('optimus:first-result');
  await lists;
  void studiesView.load();
})();
