// "Calibrate with your measurement": the number you measured for the scenario on screen (typed,
// or read from a benchmark tool's file by the engine's importers) goes to the engine's calibrate,
// which fits a few factors on the rates it models (docs/calibration.md). The panel shows the
// fitted factors with their 90% ranges, each headline number calibrated beside uncalibrated with
// the calibrated band, and applies the calibration to the scenario (its `calibration` key), so it
// travels in the share link and the JSON export. Errors in plain words, the code in a details line.
import type { Engine } from '../engine/client';
import type { CalibrateResult, Calibration, EngineError, ImportResult, Prediction } from '../engine/types';
import { h, uid } from '../base/dom';
import { countOf, formatRange, formatValue, sig, type Quantity } from '../base/format';
import { atChosenLayout } from '../state/tasks';
import { getPath, INFERENCE_METRICS, RL_METRICS, RUN_METRICS, SERVING_METRICS, TRAINING_METRICS } from './metrics';

type Scenario = Record<string, unknown>;

/** A metric a person can type, in the unit they measured it in (value x scale = engine units). */
export interface TypedMetric {
  path: string;
  label: string;
  unit: string;
  scale: number;
}

/** The headline metrics one can type, in plain words; only those the prediction has are offered. */
export const TYPED_METRICS: TypedMetric[] = [
  { path: 'training.iteration_time_s', label: 'Step time', unit: 's', scale: 1 },
  { path: 'training.tokens_per_s', label: 'Training tokens/s', unit: 'tokens/s', scale: 1 },
  { path: 'serving.output_tokens_per_s', label: 'Output tokens/s', unit: 'tokens/s', scale: 1 },
  { path: 'serving.ttft_s.p50', label: 'TTFT p50', unit: 'ms', scale: 1e-3 },
  { path: 'serving.tpot_s.p50', label: 'TPOT p50', unit: 'ms', scale: 1e-3 },
  { path: 'serving.output_tokens_per_s_per_gpu', label: 'Output tokens/s per GPU', unit: 'tokens/s', scale: 1 },
  { path: 'inference.ttft_s', label: 'TTFT (one batch)', unit: 'ms', scale: 1e-3 },
  { path: 'inference.tpot_s', label: 'TPOT (one batch)', unit: 'ms', scale: 1e-3 },
  { path: 'inference.throughput_tokens_per_s', label: 'Tokens/s (one batch)', unit: 'tokens/s', scale: 1 },
  { path: 'rl.step_time_s', label: 'RL step time', unit: 's', scale: 1 },
  { path: 'rl.phases_s.rollout', label: 'RL rollout phase', unit: 's', scale: 1 },
  { path: 'rl.phases_s.train', label: 'RL training phase', unit: 's', scale: 1 },
  { path: 'rl.tokens_per_s_per_gpu', label: 'RL tokens/s per GPU', unit: 'tokens/s', scale: 1 },
];

/** The importers' formats (core/import/importers.h), in the words of their tools. */
export const IMPORT_FORMATS: Array<[id: string, label: string]> = [
  ['vllm', 'vLLM bench serve JSON (--save-result)'],
  ['sglang', 'SGLang bench_serving JSON'],
  ['trtllm-bench', 'trtllm-bench throughput report'],
  ['megatron', 'Megatron-LM log'],
  ['nemo', 'NeMo log'],
  ['torchtitan', 'torchtitan log'],
  ['inferencex', 'InferenceX result rows (CSV)'],
  ['verl', 'verl console log (RL steps)'],
  ['nemo-rl', 'NeMo-RL console log (RL steps)'],
];

/** The fitted factors in plain words (docs/calibration.md, "What is fitted"). */
export const FACTOR_WORDS: Record<string, string> = {
  matmul: 'matmul rate',
  memory: 'memory bandwidth',
  scale_up: 'scale-up network (NVLink)',
  scale_out: 'scale-out network',
  host: 'host (CPU) speed',
};

/** The calibrate and import errors in plain words (docs/contract.md, "Calibration"). */
const ERROR_WORDS: Record<string, string> = {
  'calibrate.no_measurements': 'There is no measurement to fit.',
  'calibrate.measured_not_positive': 'The measured value must be a positive number.',
  'calibrate.measured_not_number': 'The measured value must be a number.',
  'calibrate.measured_absurd': 'The measured value is more than 10 times away from the prediction: check its unit, its metric and that the scenario on screen is the one measured.',
  'calibrate.metric_unknown': 'This scenario’s prediction has no such number.',
  'calibrate.metric_not_positive': 'The engine predicts 0 for this number, so it cannot be calibrated on it.',
  'calibrate.mixed_systems': 'The measurements are of two different systems; calibrate one system at a time.',
  'calibrate.mixed_software': 'The measurements are of two different software stacks; calibrate one at a time.',
  'import.unknown_format': 'The engine does not know this file format.',
  'import.malformed': 'The file is not what the chosen tool writes: check the format.',
  'import.nothing_measured': 'The file states no number the engine predicts.',
  'import.measured_not_positive': 'A time or rate in the file reads as zero or negative: the file is not a clean log of the run.',
  'import.scenario_invalid': 'The scenario on screen, with what the file states filled in, is not valid.',
};

/**
 * "matmul rate ×0.621 (0.551–0.704)": three digits, so a factor held at a bound reads as the bound
 * the engine's warning names (×1.25, not ×1.2) and never outside its own range ("×1.25 (0.98–1.2)").
 */
export function factorText(f: { factor: string; value: number; low: number; high: number }): string {
  return `${FACTOR_WORDS[f.factor] ?? f.factor} ×${sig(f.value, 3)} (${sig(f.low, 3)}–${sig(f.high, 3)})`;
}

/** Label and quantity of a headline output path, from the result cards' definitions. */
const DEFS = new Map([...TRAINING_METRICS, ...SERVING_METRICS, ...INFERENCE_METRICS, ...RUN_METRICS, ...RL_METRICS].map((d) => [d.path, d] as const));
/** Serving latencies the result cards do not show, which the importers measure (ITL, E2E). */
const LATENCY_WORDS: Record<string, string> = { itl_s: 'Inter-token latency', e2e_latency_s: 'End-to-end latency', ttft_s: 'TTFT', tpot_s: 'TPOT' };
export function labelOf(path: string): { label: string; q: Quantity } {
  // A sum of fields (the importers' "rl.phases_s.rollout+weight_sync+swap"): their words joined.
  const sum = /^(.*\.)([^.]*\+[^.]*)$/.exec(path);
  if (sum) {
    const parts = sum[2]!.split('+').map((f) => labelOf(sum[1]! + f));
    // "RL rollout phase + weight sync + swap": the later parts in lower case, without their asides.
    const rest = parts.slice(1).map((p) => p.label.replace(/\s*\(.*\)$/, '').toLowerCase());
    return { label: [parts[0]!.label, ...rest].join(' + '), q: parts[0]!.q };
  }
  const typed = TYPED_METRICS.find((m) => m.path === path);
  const def = DEFS.get(path);
  if (def) return { label: typed?.label ?? def.label, q: def.q };
  const stat = /^serving\.(\w+)\.(mean|p\d+)$/.exec(path);
  if (stat && LATENCY_WORDS[stat[1]!]) return { label: `${LATENCY_WORDS[stat[1]!]} ${stat[2]}`, q: 'seconds' };
  return { label: typed?.label ?? path, q: /_s(\.|$)/.test(path) ? 'seconds' : /tokens_per_s/.test(path) ? 'tokens_rate' : 'count' };
}

/** A value in the unit one types it in ("85.1 ms", "2070 tokens/s"). */
function inUnit(m: TypedMetric, v: number): string {
  return `${sig(v / m.scale, 4)} ${m.unit}`;
}

/** The scenario without its calibration: the fit is always against the uncalibrated engine. */
export function uncalibrated(s: Scenario): Scenario {
  const { calibration: _dropped, ...rest } = s;
  return rest;
}

/** The scenario a measurement was taken on: uncalibrated, at the layout "auto" chose (atChosenLayout). */
export function measuredOn(s: Scenario, p: Prediction | null): Scenario {
  return atChosenLayout(uncalibrated(s), p);
}

export interface CalibrateDeps {
  engine: Pick<Engine, 'calibrate' | 'importMeasurements' | 'predict'>;
  /**
   * Sets (or with null removes) the scenario's calibration; the page re-estimates. With `run`, the
   * scenario the measurements were read against (the one on screen with what the file stated filled
   * in) replaces the one on screen, calibrated.
   */
  apply(calibration: Calibration | null, run?: Scenario): void;
}

export interface CalibratePanel {
  el: HTMLElement;
  /** The scenario on screen and its prediction, after each estimate. */
  update(scenario: Scenario, prediction: Prediction): void;
}

export function createCalibratePanel(deps: CalibrateDeps): CalibratePanel {
  let scenario: Scenario | null = null;
  let prediction: Prediction | null = null;
  let fit: CalibrateResult | null = null;
  /** The uncalibrated scenario the fit shown was made on (another scenario clears it). */
  let fittedOn = '';
  let seq = 0;

  const metricId = uid('cal-metric');
  const valueId = uid('cal-value');
  const formatId = uid('cal-format');
  const fileId = uid('cal-file');
  const textId = uid('cal-text');

  const metric = h('select', { id: metricId, 'data-testid': 'calibrate-metric' });
  const unit = h('span', { class: 'muted', 'data-testid': 'calibrate-unit' });
  const value = h('input', { id: valueId, type: 'number', min: '0', step: 'any', inputmode: 'decimal', 'data-testid': 'calibrate-value' });
  const predictedNote = h('p', { class: 'muted', 'data-testid': 'calibrate-predicted' });
  const fitBtn = h('button', { type: 'button', class: 'primary', 'data-testid': 'calibrate-fit' }, 'Fit');

  const format = h('select', { id: formatId, 'data-testid': 'calibrate-format' }, ...IMPORT_FORMATS.map(([id, label]) => h('option', { value: id }, label)));
  const file = h('input', { id: fileId, type: 'file', 'data-testid': 'calibrate-file' });
  const text = h('textarea', { id: textId, rows: 5, spellcheck: 'false', 'data-testid': 'calibrate-text', placeholder: 'Paste the tool’s output here, or choose the file above.' });
  const importBtn = h('button', { type: 'button', 'data-testid': 'calibrate-import' }, 'Read and fit');

  const errorText = h('p', { class: 'fix-text' });
  const errorDetails = h('p', { class: 'fix-details muted' });
  const errorBox = h('div', { class: 'error-fix', role: 'alert', 'data-testid': 'calibrate-error', hidden: true }, errorText, errorDetails);
  const out = h('div', { 'data-testid': 'calibrate-result', 'aria-live': 'polite' });
  const applied = h('div', { 'data-testid': 'calibrate-applied' });

  const showError = (e: EngineError | null): void => {
    errorBox.hidden = e === null;
    if (!e) return;
    errorText.textContent = ERROR_WORDS[e.code] ?? e.message;
    errorDetails.textContent = `Details: ${e.code}${e.path ? ` at ${e.path}` : ''}: ${e.message}`;
  };

  const chosen = (): TypedMetric | undefined => TYPED_METRICS.find((m) => m.path === metric.value);

  function refreshPredicted(): void {
    const m = chosen();
    unit.textContent = m ? m.unit : '';
    const v = m && prediction ? getPath(prediction, m.path) : undefined;
    predictedNote.textContent = m && typeof v === 'number' ? `The engine predicts ${inUnit(m, v)} for this scenario${scenario?.calibration ? ' (calibrated)' : ''}.` : '';
  }
  // Another metric makes the last fit's error (worded in the old metric's unit) stale: it goes.
  metric.addEventListener('change', () => {
    showError(null);
    refreshPredicted();
  });

  /** Fits the measurement lines and shows the factors and the numbers calibrated. */
  async function fitLines(jsonl: string, from: string, imported: ImportResult | null): Promise<void> {
    if (!scenario) return;
    const my = ++seq;
    const base = measuredOn(scenario, prediction);
    out.replaceChildren(h('p', { class: 'muted' }, 'Fitting…'));
    const r = await deps.engine.calibrate(jsonl);
    if (my !== seq) return;
    if (!r.ok) {
      fit = null;
      out.replaceChildren();
      return showError(r.error);
    }
    // The scenario on screen with the calibration: its headline numbers calibrated, and the
    // engine's own uncalibrated numbers beside them (prediction.calibration.uncalibrated).
    const p = await deps.engine.predict({ ...base, calibration: r.value.calibration });
    if (my !== seq) return;
    if (!p.ok) {
      fit = null;
      out.replaceChildren();
      return showError(p.error);
    }
    showError(null);
    fit = r.value;
    fittedOn = JSON.stringify(base);
    out.replaceChildren(...renderFit(r.value, p.value, from, imported));
  }

  function renderFit(r: CalibrateResult, p: Prediction, from: string, imported: ImportResult | null): HTMLElement[] {
    const moved = r.fitted.filter((f) => f.fitted !== false && f.value !== 1);
    const still = r.fitted.filter((f) => !moved.includes(f)).map((f) => FACTOR_WORDS[f.factor] ?? f.factor);
    const parts: HTMLElement[] = [h('h4', null, `Fitted on ${from}`)];
    parts.push(
      moved.length === 0
        ? h('p', { 'data-testid': 'calibrate-factors' }, 'Nothing moved: the measurement agrees with the prediction, or no modelled rate changes this number.')
        : h('ul', { 'data-testid': 'calibrate-factors' }, ...moved.map((f) => h('li', { 'data-factor': f.factor, 'data-value': String(f.value) }, factorText(f)))),
    );
    const these = r.cases.length === 1 ? 'this measurement does' : 'these measurements do';
    if (still.length > 0 && moved.length > 0) parts.push(h('p', { class: 'muted' }, `Left at ×1 (${these} not tell them apart): ${still.join(', ')}. Ranges are 90%.`));
    for (const w of r.warnings ?? []) parts.push(h('p', { class: 'muted', 'data-warning': w.code }, w.message, ' ', h('small', { class: 'code' }, `(${w.code})`)));
    if (imported) {
      if (imported.filled.length > 0) parts.push(h('details', null, h('summary', null, `Read from the file (${imported.filled.length})`), h('ul', null, ...imported.filled.map((f) => h('li', null, f)))));
      if (imported.unread.length > 0) parts.push(h('details', null, h('summary', null, `Not read (${imported.unread.length})`), h('p', { class: 'muted' }, imported.unread.join(', '))));
    }
    // The measurements against the prediction before and after.
    const cases = h(
      'table',
      { class: 'data', 'data-testid': 'calibrate-cases' },
      h('caption', null, 'Each measurement against the prediction'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Number'), h('th', { scope: 'col' }, 'Measured'), h('th', { scope: 'col' }, 'Uncalibrated'), h('th', { scope: 'col' }, 'Calibrated'))),
      h(
        'tbody',
        null,
        ...r.cases.map((c) => {
          const { label, q } = labelOf(c.metric);
          return h('tr', { 'data-case-metric': c.metric }, h('th', { scope: 'row' }, label), h('td', null, formatValue(c.measured, q)), h('td', null, formatValue(c.before, q)), h('td', { 'data-after': String(c.after) }, formatValue(c.after, q)));
        }),
      ),
    );
    parts.push(cases);
    parts.push(...compareTable(p));
    const buttons = [h('button', { type: 'button', class: 'primary', 'data-testid': 'calibrate-apply', onclick: () => fit && deps.apply(fit.calibration) }, 'Apply to this scenario')];
    // The file stated settings of the run (lengths, concurrency, layout): the fit was made with
    // them, and the run itself can be loaded, calibrated. One scenario for every line only (an
    // InferenceX file holds one per row).
    const runs = new Set((imported?.measurements ?? []).map((m) => JSON.stringify(m.scenario)));
    if (imported && imported.filled.length > 0 && runs.size === 1) {
      const run = imported.measurements[0]!.scenario as unknown as Scenario;
      buttons.push(
        h('button', { type: 'button', 'data-testid': 'calibrate-apply-run', title: imported.filled.join('\n'), onclick: () => fit && deps.apply(fit.calibration, run) }, `Load the measured run, calibrated (${countOf(imported.filled.length, 'setting')} from the file)`),
      );
    }
    parts.push(h('div', { class: 'buttons' }, ...buttons));
    return parts;
  }

  /** The headline numbers calibrated beside uncalibrated, with the calibrated 90% band. */
  function compareTable(p: Prediction): HTMLElement[] {
    const c = p.calibration;
    if (!c) return [];
    if (!c.applied) return [h('p', { class: 'muted' }, `The calibration does not apply to this scenario: ${c.reason ?? ''}`)];
    const before = c.uncalibrated ?? {};
    const band = c.band;
    const rows = Object.entries(before).flatMap(([path, u]) => {
      const v = getPath(p, path);
      if (typeof v !== 'number') return [];
      const { label, q } = labelOf(path);
      const range = band ? formatRange(v * band.low, v * band.high, q, v) : '—';
      return [h('tr', { 'data-calibrated-metric': path, 'data-value': String(v), 'data-uncalibrated': String(u) }, h('th', { scope: 'row' }, label), h('td', null, formatValue(u, q)), h('td', null, h('strong', null, formatValue(v, q))), h('td', null, range))];
    });
    if (rows.length === 0) return [];
    return [
      h(
        'table',
        { class: 'data', 'data-testid': 'calibrate-compare' },
        h('caption', null, 'This scenario’s numbers, calibrated'),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Number'), h('th', { scope: 'col' }, 'Uncalibrated'), h('th', { scope: 'col' }, 'Calibrated'), h('th', { scope: 'col' }, '90% range'))),
        h('tbody', null, ...rows),
      ),
    ];
  }

  fitBtn.addEventListener('click', () => {
    const m = chosen();
    const typed = Number(value.value);
    if (!scenario || !m) return;
    if (value.value.trim() === '' || !Number.isFinite(typed) || typed <= 0) {
      out.replaceChildren();
      return showError({ code: 'calibrate.measured_not_positive', path: '/1/measured', message: `measured ${value.value.trim() === '' ? '(empty)' : value.value} ${m.unit}: type the positive number you measured` });
    }
    const line = JSON.stringify({ scenario: measuredOn(scenario, prediction), metric: m.path, measured: typed * m.scale });
    void fitLines(line, `what you measured: ${m.label} ${sig(typed, 6)} ${m.unit}`, null);
  });

  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (f) void f.text().then((t) => (text.value = t));
  });

  importBtn.addEventListener('click', () => {
    if (!scenario) return;
    const my = ++seq;
    const label = IMPORT_FORMATS.find(([id]) => id === format.value)?.[1] ?? format.value;
    void deps.engine.importMeasurements(format.value, text.value, measuredOn(scenario, prediction)).then((r) => {
      if (my !== seq) return;
      if (!r.ok) {
        out.replaceChildren();
        return showError(r.error);
      }
      const lines = r.value.measurements.map((m) => JSON.stringify(m)).join('\n');
      void fitLines(lines, `${countOf(r.value.measurements.length, 'measurement')} from the ${label}`, r.value);
    });
  });

  const el = h(
    'section',
    { class: 'card results-section calibrate', 'data-testid': 'calibrate', 'aria-labelledby': 'calibrate-h' },
    h('h3', { id: 'calibrate-h' }, 'Calibrate with your measurement'),
    h('p', { class: 'intro' }, 'Measured this scenario on your own cluster? Give the number, and the engine fits the few rates it models (matmul rate, memory bandwidth, networks, host speed) to it; every number of this system and software stack can then be shown calibrated.'),
    applied,
    h(
      'div',
      { class: 'calibrate-typed' },
      h('div', { class: 'field' }, h('label', { for: metricId }, 'What you measured'), metric),
      h('div', { class: 'field' }, h('label', { for: valueId }, 'Your number'), h('span', { class: 'field inline' }, value, unit)),
      fitBtn,
    ),
    predictedNote,
    h(
      'details',
      { class: 'calibrate-file', 'data-testid': 'calibrate-paste' },
      h('summary', null, 'Or read a benchmark file'),
      h('div', { class: 'field' }, h('label', { for: formatId }, 'Its format'), format),
      h('div', { class: 'field' }, h('label', { for: fileId }, 'File'), file),
      h('div', { class: 'field' }, h('label', { for: textId }, 'Its text'), text),
      importBtn,
    ),
    errorBox,
    out,
  );

  function renderApplied(): void {
    const c = prediction?.calibration;
    const cal = scenario?.calibration as Calibration | undefined;
    if (!cal || !c) return applied.replaceChildren();
    const factors = Object.entries(c.factors ?? {}).filter(([, v]) => typeof v === 'number' && v !== 1);
    const words = factors.map(([k, v]) => `${FACTOR_WORDS[k] ?? k} ×${sig(v as number, 3)}`).join(', ') || 'every factor ×1';
    applied.replaceChildren(
      h(
        'div',
        { class: c.applied ? 'fit ok' : 'fit bad', 'data-applied': String(c.applied) },
        h('strong', null, c.applied ? 'This scenario is calibrated: ' : 'This scenario’s calibration does not apply: '),
        c.applied ? `${words}; the numbers above use it.` : `${c.reason ?? ''} The numbers above are uncalibrated.`,
        ' ',
        h('button', { type: 'button', class: 'small', 'data-testid': 'calibrate-remove', onclick: () => deps.apply(null) }, 'Remove calibration'),
      ),
    );
  }

  return {
    el,
    update(s, p) {
      scenario = s;
      prediction = p;
      if (fittedOn !== '' && fittedOn !== JSON.stringify(measuredOn(s, p))) {
        // The scenario changed since the fit: its numbers are no longer this scenario's.
        seq += 1;
        fit = null;
        fittedOn = '';
        out.replaceChildren();
        showError(null);
      }
      const offered = TYPED_METRICS.filter((m) => typeof getPath(p, m.path) === 'number');
      const keep = metric.value;
      const ids = offered.map((m) => m.path).join();
      if (metric.dataset.offered !== ids) {
        metric.dataset.offered = ids;
        metric.replaceChildren(...offered.map((m) => h('option', { value: m.path }, m.label)));
        if (offered.some((m) => m.path === keep)) metric.value = keep;
      }
      fitBtn.disabled = offered.length === 0;
      refreshPredicted();
      renderApplied();
    },
  };
}
