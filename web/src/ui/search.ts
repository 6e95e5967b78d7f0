// The search view: runs the engine's design-space search (core/search) in its own worker with a
// progress bar and cancel, shows the top layouts (a row loads its layout into the editor) and a
// scatter plot of the evaluated layouts (time vs memory per device, infeasible ones grey).
// The engine keeps the parallel keys the scenario gives fixed and searches the absent ones, so
// the view sends the scenario with only the keys the user chose to keep.
import type { Engine } from '../engine/client';
import type { ChosenLayout, RlResult, SearchBest, SearchOptions, SearchResult, ServingDeployment } from '../engine/types';
import { layoutLabel, searchScatterSpec } from '../charts/specs';
import { chartCard } from './chartcard';
import { errorWords, rejectedWords } from './words';
import { h, uid } from '../base/dom';
import { asObject, getPointer } from '../state/pointer';
import { countOf, formatBytes, formatPercent, formatSeconds, formatValue, groupDigits, sig } from '../base/format';

export interface SearchDeps {
  engine: Engine;
  scenario: () => Record<string, unknown>;
  /** Loads a layout (and an inference batch, or a serving deployment's max_batch and pools). */
  apply: (parallel: Record<string, unknown>, inferenceBatch?: number, deployment?: ServingDeployment) => void;
  /** Loads an RL placement (the scenario's `rl` block with the candidate's placement and layouts). */
  applyRl?: (rl: Record<string, unknown>) => void;
  /** Registers what the view does when it is shown (its controls follow the scenario: RL or not). */
  onShow?: (fn: () => void) => void;
  /** Registers how the page starts a search (a button elsewhere that promises one: "Find the fastest placement"). */
  onStart?: (fn: () => void) => void;
  /**
   * While the page is still restoring its scenario (a link opened on this view): settles once it
   * has one, and a search asked for meanwhile waits for it rather than search an empty scenario.
   */
  ready?: () => Promise<void> | undefined;
  stem: () => string;
  notify: (msg: string) => void;
}

/**
 * A search that found nothing feasible (`none` says what), with the fewest GPUs the engine found
 * one for (core/search/auto_layout.h; an RL job's, core/rl/rl.h rl_fewest_devices).
 */
export function noLayoutWords(fewest: number | undefined, none = 'No feasible layout.'): string {
  return typeof fewest === 'number' ? `${none} ${groupDigits(fewest)} GPUs would have one (the fewest found, up to 32 times as many): set the GPUs to ${groupDigits(fewest)} and search again.` : none;
}

const FIXABLE: Array<[key: string, label: string]> = [
  ['tp', 'tp'],
  ['pp', 'pp'],
  ['dp', 'dp'],
  ['cp', 'cp'],
  ['micro_batch', 'micro-batch'],
  ['interleave', 'interleave'],
  ['sequence_parallel', 'sequence parallel'],
  ['recompute', 'recompute'],
  ['zero_stage', 'ZeRO stage'],
];
/**
 * The keys each mode's search reads from the fixed ones (core/search/search.cpp): a serving
 * search tp and pp (its replicas are the rest), an inference search also dp and cp (the batch is
 * searched, the training keys taken as written), a training search every key.
 */
const FIXED_BY_MODE: Record<'training' | 'inference' | 'serving', readonly string[]> = { training: FIXABLE.map(([k]) => k), inference: ['tp', 'pp', 'dp', 'cp'], serving: ['tp', 'pp'] };
/** What each kind of search ranks: the view's heading and the noun its button and summary count. */
const RANKED: Record<'rl' | 'training' | 'inference' | 'serving', { heading: string; noun: string }> = {
  rl: { heading: 'RL placements', noun: 'placement' },
  serving: { heading: 'serving deployments', noun: 'deployment' },
  training: { heading: 'parallel layouts', noun: 'layout' },
  inference: { heading: 'parallel layouts', noun: 'layout' },
};

/**
 * The keys a search too large to run whole fixed (the engine's `narrowed`: zero_stage, then
 * micro_batch, then interleave), in the words of the "Keep fixed" boxes: "There were too many
 * layouts to search them all, so ZeRO stage 1 and micro-batch 1 were fixed, as the automatic
 * layout does."; empty when none was.
 */
export function narrowedWords(narrowed: Record<string, unknown> | undefined): string {
  const said = Object.entries(narrowed ?? {}).map(([k, v]) => `${FIXABLE.find(([key]) => key === k)?.[1] ?? k.replace(/_/g, ' ')} ${String(v)}`);
  if (said.length === 0) return '';
  const list = said.length > 1 ? `${said.slice(0, -1).join(', ')} and ${said[said.length - 1]}` : said[0];
  return `There were too many layouts to search them all, so ${list} ${said.length > 1 ? 'were' : 'was'} fixed, as the automatic layout does.`;
}

/** The scenario to search: its `parallel` reduced to the keys to keep fixed (pure). */
export function searchScenario(s: Record<string, unknown>, fixed: string[]): Record<string, unknown> {
  const par = (s.parallel ?? {}) as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const k of fixed) if (par[k] !== undefined) kept[k] = par[k];
  return { ...s, parallel: kept };
}

/** One candidate of the RL placement search (core/io/api.cpp rl_search_json): its rl block as predict writes it. */
export interface RlCandidate {
  placement: 'colocated' | 'split';
  rollout_devices: number;
  train_devices: number;
  step_time_s: number;
  cost_per_step_usd?: number;
  rl: RlResult;
}

/** The expert parallelism of an engine whose experts the search spread over replicas (ep above tp), else none. */
function spreadEp(p: { tp: number; ep?: number }): number | undefined {
  return (p.ep ?? 1) > p.tp ? p.ep : undefined;
}

/** What the RL search table says under a trainer that fits only with its optimizer state in host memory (the CLI's footnote). */
export const CAPACITY_AT_LEAST_NOTE = '≥ The objectives still held at the highest rate the search tries (10 × the offline rate): the capacity is at least this.';
export const HOSTED_OPTIMIZER_NOTE = '* This trainer fits only if its optimizer state lives in host memory and the CPU steps it. That is assumed, not stated: loading the row shows the warning.';

/** A candidate's trainer layout as the RL search table shows it: marked * where its optimizer state was assumed in host memory. */
export function rlTrainerLabel(train: ChosenLayout): string {
  return layoutLabel(train as unknown as Record<string, unknown>) + (train.optimizer_offload === true ? ' *' : '');
}

/**
 * The scenario's rl block with a searched candidate's placement, rollout tp (and ep where the search spread the experts) and trainer layout (pure):
 * split pools stated, colocated ones and staleness dropped; the trainer's tp, pp, cp, ep, etp, ZeRO
 * stage and recomputation stated (the engine recomputes where rl.train does not say, and a searched
 * layout may not), its dp (the rest of its pool) and micro-batches (packed) left to the engine as
 * the search left them.
 */
export function rlWithCandidate(rl: Record<string, unknown>, c: RlCandidate): Record<string, unknown> {
  const out: Record<string, unknown> = JSON.parse(JSON.stringify(rl)) as Record<string, unknown>;
  out.placement = c.placement;
  if (c.placement === 'split') {
    out.rollout_devices = c.rollout_devices;
    out.train_devices = c.train_devices;
  } else {
    delete out.rollout_devices;
    delete out.train_devices;
    delete out.async;
  }
  const rollout: Record<string, unknown> = { ...((out.rollout as Record<string, unknown> | undefined) ?? {}), tp: c.rl.rollout.parallel.tp };
  // Experts spread over replicas by the search (an engine its tp alone cannot hold) are stated.
  const spread = spreadEp(c.rl.rollout.parallel);
  if (spread !== undefined) rollout.ep = spread;
  delete rollout.dp;
  out.rollout = rollout;
  const { tp, pp, cp, ep, etp, zero_stage, recompute } = c.rl.train.parallel;
  const train: Record<string, unknown> = { tp, pp, cp, ep, etp, zero_stage, recompute };
  const given = out.train;
  if (given && typeof given === 'object' && (given as Record<string, unknown>).precision !== undefined) train.precision = (given as Record<string, unknown>).precision;
  out.train = train;
  return out;
}

/**
 * The ranked layouts without repeats: a layout whose label (layoutLabel) and numbers are those of
 * one ranked above it says nothing new (layouts differing only in keys the label leaves out and
 * predicting the same, e.g. an expert tensor degree with no effect), so only the first stays.
 */
export function uniqueLayouts(best: SearchBest[], training: boolean): SearchBest[] {
  const seen = new Set<string>();
  return best.filter((b) => {
    const inf = b.inference as { batch?: number; ttft_s?: number; tpot_s?: number } | undefined;
    const key = JSON.stringify([layoutLabel(b.parallel, training), training ? [b.training?.iteration_time_s, b.memory?.per_device_bytes?.total] : [inf?.batch, inf?.ttft_s, inf?.tpot_s, b.memory?.per_device_bytes?.total]]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function createSearchView(deps: SearchDeps): HTMLElement {
  const modeId = uid('s');
  const objId = uid('s');
  const topId = uid('s');
  const servId = uid('s');
  const mode = h(
    'select',
    { id: modeId },
    h('option', { value: '' }, 'auto: what the scenario describes'),
    h('option', { value: 'training' }, 'training'),
    h('option', { value: 'inference' }, 'inference (static batch)'),
    h('option', { value: 'serving' }, 'serving (deployments under the stream)'),
  );
  const objective = h('select', { id: objId }, h('option', { value: 'throughput' }, 'throughput'), h('option', { value: 'latency' }, 'latency'));
  const servingObjective = h(
    'select',
    { id: servId, 'data-testid': 'search-serving-objective' },
    h('option', { value: 'goodput' }, 'goodput at the stream as given'),
    h('option', { value: 'capacity' }, 'capacity: top rate meeting objectives'),
  );
  const top = h('input', { id: topId, type: 'number', min: '1', max: '100', value: '10', inputmode: 'numeric' });
  const rankId = uid('s');
  const budgetId = uid('s');
  const rankBy = h(
    'select',
    { id: rankId, 'data-testid': 'search-rank-by' },
    h('option', { value: 'time' }, 'time per step'),
    h('option', { value: 'energy' }, 'energy per step'),
    h('option', { value: 'cost' }, 'cost per step'),
  );
  const budget = h('input', { id: budgetId, type: 'number', min: '0', step: 'any', placeholder: 'none (needs tokens to train)', inputmode: 'decimal', 'data-testid': 'search-budget' });
  const fixedBoxes = FIXABLE.map(([k, label]) => {
    const id = uid('fix');
    const box = h('input', { id, type: 'checkbox', value: k, 'data-fix': k });
    return { k, box, el: h('span', { class: 'fix' }, box, h('label', { for: id }, label)) };
  });
  const run = h('button', { type: 'button', class: 'primary', 'data-testid': 'search-run' }, 'Search layouts');
  const cancel = h('button', { type: 'button', 'data-testid': 'search-cancel', disabled: true }, 'Cancel');
  const progress = h('progress', { 'data-testid': 'search-progress', max: '1', value: '0', 'aria-label': 'search progress' });
  const summary = h('p', { class: 'muted', 'aria-live': 'polite', 'data-testid': 'search-summary' }, 'Enumerates every layout of the scenario’s devices (tp × pp × cp × dp, micro-batch, interleave, sequence parallelism, recompute, ZeRO stage; for inference tp, pp and the batch), rejects the infeasible ones and ranks the rest.');
  const error = h('div', { class: 'error', role: 'alert', 'data-testid': 'search-error', hidden: true });
  const table = h('table', { 'data-testid': 'search-table', class: 'data' });
  const tableWrap = h('div', { class: 'card table-wrap', hidden: true }, table);
  const chart = chartCard('search-chart', 'Evaluated layouts', () => `${deps.stem()}-search`, deps.notify);
  chart.el.hidden = true;
  let handle: { cancel(): void } | null = null;

  /** A table cell ([raw number, its text]) for a number the engine may leave out: none when absent. */
  const cellIfGiven = (x: number | undefined, text: (x: number) => string): Array<[number | undefined, string]> => (x === undefined ? [] : [[x, text(x)]]);

  function rowFor(b: SearchBest, i: number, training: boolean): HTMLTableRowElement {
    const inf = b.inference as (SearchBest['inference'] & { batch?: number; throughput_all_replicas_tokens_per_s?: number }) | undefined;
    // [raw number (the cell's data-value), its display text]
    const cells: Array<[number | undefined, string]> = training
      ? [
          [b.training?.iteration_time_s, formatSeconds(b.training?.iteration_time_s ?? NaN)],
          [b.training?.tokens_per_s, formatValue(b.training?.tokens_per_s, 'tokens_rate')],
          [b.training?.mfu, formatPercent(b.training?.mfu ?? NaN)],
          // Without a price the engine gives the energy and no cost (search.rank_without_price).
          ...cellIfGiven(b.step_cost_usd, (x) => `$${sig(x)}`),
          ...cellIfGiven(b.step_energy_j, (x) => `${sig(x / 3.6e6)} kWh`),
          ...cellIfGiven(b.run_cost_usd, (x) => `$${sig(x)}`),
        ]
      : [
          [inf?.batch, String(inf?.batch ?? '')],
          [inf?.ttft_s, formatSeconds(inf?.ttft_s ?? NaN)],
          [inf?.tpot_s, formatSeconds(inf?.tpot_s ?? NaN)],
          [inf?.throughput_all_replicas_tokens_per_s ?? inf?.throughput_tokens_per_s, formatValue(inf?.throughput_all_replicas_tokens_per_s ?? inf?.throughput_tokens_per_s, 'tokens_rate')],
        ];
    const mem = b.memory?.per_device_bytes?.total;
    cells.push([mem, formatBytes(mem ?? NaN)]);
    return loadableRow(i, layoutLabel(b.parallel, training), cells, 'Load this layout into the editor', () => deps.apply(b.parallel, training ? undefined : inf?.batch));
  }

  /** A ranked result row: rank, label, numeric cells (data-value = the raw number); click or Enter runs `load`. */
  function loadableRow(i: number, label: string, cells: Array<[number | undefined, string]>, title: string, load: () => void): HTMLTableRowElement {
    const tr = h(
      'tr',
      { tabindex: '0', class: 'clickable', title, 'data-rank': String(i + 1) },
      h('td', null, String(i + 1)),
      h('td', null, label),
      ...cells.map(([raw, text]) => h('td', { class: 'num', 'data-value': raw === undefined ? undefined : String(raw) }, text)),
    );
    tr.addEventListener('click', load);
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        load();
      }
    });
    return tr;
  }

  /**
   * An RL placement search: one row per candidate (placement, engines, trainer, step). `rl`: the
   * job's rl block as it was searched, so that an edit made while the search ran is not merged
   * into the row's placement (the row loads the job it was predicted for).
   */
  function rlRow(c: RlCandidate, i: number, cost: boolean, rl: Record<string, unknown> | undefined): HTMLTableRowElement {
    const r = c.rl;
    const where = c.placement === 'split' ? `split: ${c.rollout_devices} generate, ${c.train_devices} train` : `colocated: ${c.rollout_devices} GPUs take turns`;
    // The answer first (a phone shows the first columns): the step, its rate and cost, then the layouts.
    const cells: Array<[number | undefined, string]> = [
      [c.step_time_s, formatSeconds(c.step_time_s)],
      [r.tokens_per_s_per_gpu, formatValue(r.tokens_per_s_per_gpu, 'tokens_rate')],
      ...(cost ? ([[c.cost_per_step_usd, c.cost_per_step_usd === undefined ? '' : `$${sig(c.cost_per_step_usd)}`]] as Array<[number | undefined, string]>) : []),
      [r.rollout.parallel.tp, `${r.rollout.parallel.dp} × TP${r.rollout.parallel.tp}${r.rollout.parallel.pp > 1 ? ` PP${r.rollout.parallel.pp}` : ''}${spreadEp(r.rollout.parallel) ? ` EP${spreadEp(r.rollout.parallel)}` : ''}`],
      [undefined, rlTrainerLabel(r.train.parallel)],
    ];
    return loadableRow(i, where, cells, 'Load this placement into the editor', () => {
      if (rl && deps.applyRl) deps.applyRl(rlWithCandidate(rl, c));
    });
  }

  function showRl(r: SearchResult, rl: Record<string, unknown> | undefined): void {
    const best = r.best as unknown as RlCandidate[];
    const cost = r.rank_by === 'cost';
    const rejected = rejectedWords(r.rejected, 'placement');
    summary.textContent = `${r.cancelled ? 'Cancelled — partial result: ' : ''}${countOf(r.evaluated, RANKED.rl.noun, groupDigits)} predicted, ${groupDigits(r.feasible)} ran, in ${formatSeconds(r.elapsed_s)}${rejected ? `. Rejected: ${rejected}` : ''}. Ranked by ${cost ? 'cost' : 'time'} per step.`;
    summary.title = Object.keys(r.rejected ?? {}).join(', ');
    const head = ['#', 'Placement', 'Step', 'Trained tokens/s per GPU', ...(cost ? ['Step cost'] : []), 'Rollout engines', 'Trainer layout'];
    tableWrap.hidden = false;
    table.replaceChildren(
      h('caption', null, best.length > 0 ? 'Best placements — select a row (click or Enter) to load it into the editor' : noLayoutWords(r.fewest_devices, 'No placement runs this job.')),
      h('thead', null, h('tr', null, ...head.map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', null, ...best.map((c, i) => rlRow(c, i, cost, rl))),
      ...(best.some((c) => c.rl.train.parallel.optimizer_offload === true)
        ? [h('tfoot', null, h('tr', null, h('td', { colspan: String(head.length), class: 'note' }, HOSTED_OPTIMIZER_NOTE)))]
        : []),
    );
    chart.el.hidden = true;
  }

  /** A serving search: one row per deployment (score, rate, latencies at p90). */
  function servingRow(b: SearchBest, i: number, capacity: boolean): HTMLTableRowElement {
    const d = b.deployment;
    const dep = d?.disaggregated
      ? `prefill ${d.disaggregated.prefill.replicas} × TP${d.disaggregated.prefill.tp} + decode ${d.disaggregated.decode.replicas} × TP${d.disaggregated.decode.tp}`
      : `${d?.replicas ?? '?'} × TP${d?.tp ?? '?'}${(d?.pp ?? 1) > 1 ? ` PP${d?.pp}` : ''}${(d?.ep ?? 1) > 1 ? ` EP${d?.ep}` : ''}${d?.attention_data_parallel ? ' (attention data parallel)' : ''}`;
    const sv = b.serving;
    const rate = capacity ? b.capacity_requests_per_s : sv?.requests_per_s;
    const atLeast = capacity && b.capacity_at_least === true ? '≥ ' : '';
    const cells: Array<[number | undefined, string]> = [
      [d?.max_batch, String(d?.max_batch ?? '')],
      [b.score_requests_per_s_per_device, formatValue(b.score_requests_per_s_per_device, 'requests_rate')],
      [rate, atLeast + formatValue(rate, 'requests_rate')],
      [sv?.ttft_s.p90, formatSeconds(sv?.ttft_s.p90 ?? NaN)],
      [sv?.tpot_s.p90, formatSeconds(sv?.tpot_s.p90 ?? NaN)],
      [sv?.itl_s.p99, formatSeconds(sv?.itl_s.p99 ?? NaN)],
    ];
    return loadableRow(i, dep, cells, 'Load this deployment into the editor', () => deps.apply(b.parallel, undefined, d));
  }

  function showServing(r: SearchResult, top: number): void {
    const capacity = r.objective === 'capacity';
    const rejected = rejectedWords(r.rejected, 'deployment');
    // Fewer rows than asked for and than ran: the engine lists no deployment that differs from a
    // better one only in max_batch and predicts the same (serving_search.cpp same_listing).
    const repeats = r.best.length < top ? r.feasible - r.best.length : 0;
    summary.textContent = `${r.cancelled ? 'Cancelled — partial result: ' : ''}${countOf(r.evaluated, RANKED.serving.noun, groupDigits)} simulated, ${groupDigits(r.feasible)} ran, in ${formatSeconds(r.elapsed_s)}${rejected ? `. Rejected: ${rejected}` : ''}. Score: ${capacity ? 'the largest Poisson rate meeting the objectives, each rate judged on a run long enough to fill the batch (the steady state, not the start-up of a short run)' : 'requests meeting the objectives per second'}, per device.${repeats > 0 ? ` Not listed: ${groupDigits(repeats)} that differ from a row only in max batch and predict the same.` : ''}`;
    summary.title = Object.keys(r.rejected ?? {}).join(', '); // the engine's codes, for those who file issues
    const head = ['#', 'Deployment', 'Max batch', 'Score (req/s per device)', capacity ? 'Capacity (req/s)' : 'Requests/s', 'TTFT p90', 'TPOT p90', 'Gap between tokens p99'];
    tableWrap.hidden = false;
    table.replaceChildren(
      h('caption', null, r.best.length > 0 ? 'Best deployments — select a row (click or Enter) to load it into the editor' : 'No deployment could serve the stream.'),
      h('thead', null, h('tr', null, ...head.map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', null, ...r.best.map((b, i) => servingRow(b, i, capacity))),
      ...(capacity && r.best.some((b) => b.capacity_at_least === true)
        ? [h('tfoot', null, h('tr', null, h('td', { colspan: String(head.length), class: 'note' }, CAPACITY_AT_LEAST_NOTE)))]
        : []),
    );
    chart.el.hidden = true;
  }

  function show(r: SearchResult, training: boolean, searched: Record<string, unknown>, top: number): void {
    if (r.mode === 'serving') return showServing(r, top);
    if (r.mode === 'rl') return showRl(r, searched.rl as Record<string, unknown> | undefined);
    const rejected = rejectedWords(r.rejected, 'layout');
    const plotted = r.points_truncated === true ? ` The plot shows the ${groupDigits((r.points ?? []).length)} layouts the engine kept (fastest feasible first, then those closest to fitting).` : '';
    const narrowed = narrowedWords(r.narrowed);
    summary.textContent = `${r.cancelled ? 'Cancelled — partial result: ' : ''}${countOf(r.evaluated, RANKED.training.noun, groupDigits)} evaluated, ${groupDigits(r.feasible)} feasible, in ${formatSeconds(r.elapsed_s)}${rejected ? `. Rejected: ${rejected}` : ''}.${narrowed ? ` ${narrowed}` : ''}${plotted}`;
    summary.title = Object.keys(r.rejected ?? {}).join(', '); // the engine's codes, for those who file issues
    const first = r.best[0];
    const extra = [...(first?.step_cost_usd !== undefined ? ['Step cost'] : []), ...(first?.step_energy_j !== undefined ? ['Step energy'] : []), ...(first?.run_cost_usd !== undefined ? ['Whole-run cost'] : [])];
    const head = training ? ['#', 'Layout', 'Iteration', 'Tokens/s', 'MFU', ...extra, 'Memory/device'] : ['#', 'Layout', 'Batch', 'TTFT', 'TPOT', 'Tokens/s (all replicas)', 'Memory/device'];
    tableWrap.hidden = false;
    table.replaceChildren(
      h('caption', null, r.best.length > 0 ? 'Best layouts — select a row (click or Enter) to load it into the editor' : noLayoutWords(r.fewest_devices)),
      h('thead', null, h('tr', null, ...head.map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', null, ...uniqueLayouts(r.best, training).map((b, i) => rowFor(b, i, training))),
    );
    const cap = r.best[0]?.memory?.capacity_bytes ?? r.capacity_bytes;
    chart.el.hidden = false;
    chart.set(searchScatterSpec(r, cap, r.usable_bytes), 'The engine returned no layouts to plot.');
  }

  let waiting = false;
  run.addEventListener('click', () => {
    if (handle || waiting) return;
    const ready = deps.ready?.();
    if (!ready) return start();
    waiting = true;
    run.disabled = true;
    summary.textContent = 'Waiting for the scenario…';
    void ready.then(() => {
      waiting = false;
      run.disabled = false;
      start();
    });
  });

  function start(): void {
    sync();
    const fixed = fixedBoxes.filter((f) => f.box.checked && !f.el.hidden).map((f) => f.k);
    const rlJob = deps.scenario().rl !== undefined;
    const s = rlJob ? deps.scenario() : searchScenario(deps.scenario(), fixed);
    const topN = Math.max(1, Math.min(100, Math.round(Number(top.value)) || 10));
    if (rlJob) return runSearch(s, rankBy.value === 'cost' ? { top: topN, rank_by: 'cost' } : { top: topN }, false);
    const o: SearchOptions & { top: number } = { top: topN, points: true };
    if (mode.value) o.mode = mode.value as 'training' | 'inference' | 'serving';
    const effective = effectiveMode(s);
    const training = effective === 'training';
    if (effective === 'inference') o.objective = objective.value as 'throughput' | 'latency';
    if (training) {
      if (rankBy.value !== 'time') o.rank_by = rankBy.value as 'energy' | 'cost';
      const usd = Number(budget.value);
      if (budget.value.trim() !== '' && Number.isFinite(usd) && usd > 0) o.max_cost_usd = usd;
    }
    if (effective === 'serving') {
      delete o.points;  // a serving search simulates dozens of deployments, no scatter
      o.objective = servingObjective.value as 'goodput' | 'capacity';
    }
    runSearch(s, o, training);
  }

  function runSearch(s: Record<string, unknown>, o: SearchOptions & { top: number }, training: boolean): void {
    error.hidden = true;
    progress.value = 0;
    run.disabled = true;
    cancel.disabled = false;
    summary.textContent = 'Searching…';
    const job = deps.engine.search(s, o, (f) => (progress.value = f));
    handle = job;
    void job.result.then((r) => {
      handle = null;
      run.disabled = false;
      cancel.disabled = true;
      if (r.ok) {
        progress.value = 1;
        show(r.value, training, s, o.top);
      } else {
        progress.value = 0;
        summary.textContent = r.error.code === 'engine.cancelled' ? 'Search cancelled.' : 'The search did not run.';
        if (r.error.code !== 'engine.cancelled') {
          error.hidden = false;
          error.textContent = `${errorWords(r.error)} (${r.error.code}${r.error.path ? ` at ${r.error.path}` : ''})`;
        }
      }
    });
  }
  cancel.addEventListener('click', () => handle?.cancel());

  /** What a layout search of `s` ranks: the mode chosen, else what the scenario describes. */
  function effectiveMode(s: Record<string, unknown>): 'training' | 'inference' | 'serving' {
    if (mode.value) return mode.value as 'training' | 'inference' | 'serving';
    const inf = s.inference as Record<string, unknown> | undefined;
    return s.training !== undefined ? 'training' : inf?.serving !== undefined ? 'serving' : 'inference';
  }
  mode.addEventListener('change', sync);

  const heading = h('h2', { id: 'search-h' }, 'Search parallel layouts');
  const what = h('p', { class: 'muted', 'data-testid': 'search-what' });
  // A control whose choice or placeholder is a phrase takes two columns, so that it reads whole
  // ("auto: what the scenario describes" was cut to "auto: what the scer" at 1440 px).
  const field = (id: string, label: string, el: HTMLElement, wide = false) => h('div', { class: wide ? 'field wide' : 'field' }, h('label', { for: id }, label), el);
  const modeField = field(modeId, 'Mode', mode, true);
  const objField = field(objId, 'Inference objective', objective);
  const servField = field(servId, 'Serving objective', servingObjective, true);
  const rankField = field(rankId, 'Rank training by', rankBy);
  const budgetField = field(budgetId, 'Whole-run budget (USD, training)', budget, true);
  const fixedSet = h('fieldset', { class: 'fixed' }, h('legend', null, 'Keep fixed (from the editor); the others are searched'), ...fixedBoxes.map((f) => f.el));
  const energy = rankBy.querySelector<HTMLOptionElement>('option[value="energy"]')!;
  const capacityOption = servingObjective.querySelector<HTMLOptionElement>('option[value="capacity"]')!;
  const capacityWords = capacityOption.textContent!;
  /**
   * The capacity objective raises a Poisson rate until the stream's latency objectives fail, so it
   * needs objectives and a stream that is not a closed loop (search.capacity_needs_objectives):
   * without them the option says what is missing and cannot be picked, rather than fail on Search.
   */
  function syncCapacity(): void {
    const serving = asObject(getPointer(deps.scenario(), '/inference/serving'));
    const missing = !asObject(serving?.slo) ? 'needs service-level objectives' : serving?.arrival === 'closed' ? 'needs a request rate, not a closed loop' : '';
    capacityOption.disabled = missing !== '';
    capacityOption.textContent = missing ? `capacity (${missing})` : capacityWords;
    if (missing && servingObjective.value === 'capacity') servingObjective.value = 'goodput';
  }
  const layoutsSummary = summary.textContent;
  let shownRl: boolean | null = null;
  let shownKind: string | null = null;
  /**
   * The controls of what is searched: an RL job's placements (ranked by time or cost); else the
   * mode chosen or the scenario's own (training: its ranking and budget; inference: its objective;
   * serving: its objective).
   */
  function sync(): void {
    syncCapacity();
    const s = deps.scenario();
    // Which scenario is searched: a link opened on this view shows no editor.
    what.hidden = typeof s.name !== 'string' || s.name === '';
    what.textContent = `Searching “${String(s.name)}”: change it under Estimate.`;
    const rl = s.rl !== undefined;
    const kind = rl ? 'rl' : effectiveMode(s);
    if (kind === shownKind) return;
    shownKind = kind;
    objField.hidden = kind !== 'inference';
    servField.hidden = kind !== 'serving';
    rankField.hidden = kind !== 'training' && !rl;
    budgetField.hidden = kind !== 'training';
    if (kind !== 'rl') for (const f of fixedBoxes) f.el.hidden = !FIXED_BY_MODE[kind].includes(f.k);
    heading.textContent = `Search ${RANKED[kind].heading}`;
    run.textContent = `Search ${RANKED[kind].noun}s`;
    if (rl === shownRl) return;
    shownRl = rl;
    for (const el of [modeField, fixedSet]) el.hidden = rl;
    energy.hidden = energy.disabled = rl;
    if (rl && rankBy.value === 'energy') rankBy.value = 'time';
    rankField.querySelector('label')!.textContent = rl ? 'Rank placements by' : 'Rank training by';
    summary.textContent = rl
      ? 'Predicts the job colocated and split in every way its GPUs allow, with each rollout tensor parallelism that fits and the trainer layouts the layout search ranks first, and ranks the steps.'
      : layoutsSummary;
    tableWrap.hidden = true;
    chart.el.hidden = true;
  }
  sync();
  deps.onShow?.(sync);
  deps.onStart?.(() => {
    if (!run.disabled) run.click();
  });

  return h(
    'section',
    { class: 'view', id: 'search', 'aria-labelledby': 'search-h' },
    heading,
    what,
    h('div', { class: 'card controls' }, modeField, objField, servField, rankField, budgetField, field(topId, 'Show best', top), fixedSet, h('div', { class: 'buttons' }, run, cancel), progress, summary, error),
    tableWrap,
    chart.el,
  );
}
