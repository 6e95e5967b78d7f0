// The results panel: headline numbers with units, each with data-metric/data-value (DOM
// contract) and a <details> saying how it was obtained; the pinned result and the difference
// when one is pinned; the "does not fit" verdict; warnings. Mixture-of-experts models get a block
// of their own (what the MoE layers do on one device), and every model its parameter counts.
import type { Prediction, ResolvedScenario } from '../engine/types';
import { h } from '../base/dom';
import { formatBytes, formatDelta, formatRange, formatValue, regimeWords } from '../base/format';
import { explain, getPath, INFERENCE_MEMORY_METRICS, INFERENCE_METRICS, INFERENCE_ONLY_MEMORY_METRICS, MOE_METRICS, PARAM_METRICS, RL_METRICS, RL_POOL_MEMORY_METRICS, RL_RUN_METRICS, RL_TRAINER_MEMORY_METRICS, RUN_METRICS, SERVING_METRICS, TRAINING_MEMORY_METRICS, TRAINING_METRICS, type MetricDef } from './metrics';
import { servingIntro } from './serving';
import { warningWords } from './words';
import { layoutLabel } from '../charts/specs';

export interface Shown {
  prediction: Prediction;
  resolved: ResolvedScenario | null;
}

const openDetails = new Set<string>();

// A band that starts or ends at the prediction: every published row of its regime landed on one
// side (as the H100-generation whole runs do: every one took longer than its modelled plan),
// so say which.
export function oneSided(band: { low: number; high: number }, v: unknown): string | null {
  if (typeof v !== 'number' || !(v > 0)) return null;
  const at = (x: number) => Math.abs(x - v) <= 1e-9 * v;
  if (at(band.low) && band.high > v) return 'the published rows of this regime all came out at or above the prediction';
  if (at(band.high) && band.low < v) return 'the published rows of this regime all came out at or below the prediction';
  return null;
}

function metricCard(def: MetricDef, cur: Shown, pinned: Shown | null): HTMLElement | null {
  const v = getPath(cur.prediction, def.path);
  if (v === undefined || v === null || (def.hideZero && v === 0)) return null;
  const value = h('span', { class: v === false ? 'value bad' : 'value', 'data-metric': def.path, 'data-value': String(v) }, formatValue(v, def.q));
  const band = cur.prediction.uncertainty?.[def.path];
  const range = band
    ? h(
        'div',
        { class: 'band', 'data-band-metric': def.path, 'data-low': String(band.low), 'data-high': String(band.high), title: `80% of ${band.cases} published ${regimeWords(band.regime)} fell in this range around the prediction` },
        `80% range ${formatRange(band.low, band.high, def.q, typeof v === 'number' ? v : undefined)}`,
        oneSided(band, v) ? h('span', { class: 'one-sided', 'data-one-sided': def.path }, ` (${oneSided(band, v)})`) : null,
      )
    : null;
  const about = typeof def.about === 'function' ? def.about(cur.prediction) : def.about;
  const card = h('div', { class: 'metric' }, h('div', { class: 'label' }, def.label), value, range, about ? h('p', { class: 'about' }, about) : null);
  if (pinned) {
    const pv = getPath(pinned.prediction, def.path);
    if (typeof pv === 'number' && typeof v === 'number') {
      const d = formatDelta(v, pv, def.q);
      const good = def.better === undefined || d.sign === 0 ? '' : (d.sign > 0) === (def.better === 'higher') ? 'better' : 'worse';
      card.append(h('div', { class: 'compare' }, h('span', { class: 'pinned', 'data-pinned-metric': def.path, 'data-value': String(pv) }, `pinned ${formatValue(pv, def.q)}`), ' ', h('span', { class: `delta ${good}`, 'data-delta-metric': def.path }, d.text)));
    } else if (pv !== undefined) {
      card.append(h('div', { class: 'compare' }, h('span', { class: 'pinned', 'data-pinned-metric': def.path, 'data-value': String(pv) }, `pinned ${formatValue(pv, def.q)}`)));
    } else {
      card.append(h('div', { class: 'compare' }, h('span', { class: 'pinned' }, 'not in pinned result')));
    }
  }
  const ex = explain(def, { prediction: cur.prediction, scenario: cur.resolved });
  if (ex) {
    const det = h(
      'details',
      { class: 'how', open: openDetails.has(def.path) || undefined },
      h('summary', null, 'Show formula'),
      h('p', { class: 'formula' }, ex.formula),
      ex.inputs.length > 0 ? h('dl', null, ...ex.inputs.flatMap(([k, val]) => [h('dt', null, k), h('dd', null, val)])) : null,
      ex.source ? h('p', { class: 'source' }, ex.source) : null,
    );
    det.addEventListener('toggle', () => (det.open ? openDetails.add(def.path) : openDetails.delete(def.path)));
    card.append(det);
  }
  return card;
}

function section(title: string, defs: MetricDef[], cur: Shown, pinned: Shown | null, extra?: HTMLElement | null, testid?: string): HTMLElement | null {
  const cards = defs.map((d) => metricCard(d, cur, pinned)).filter((c): c is HTMLElement => c !== null);
  if (cards.length === 0) return null;
  return h('section', { class: 'card results-section', 'data-testid': testid }, h('h3', null, title), extra ?? null, h('div', { class: 'metrics' }, ...cards), bandNote(defs, cur));
}

/** One line under a section: what its 80% ranges are fitted on (the bands' regimes and rows). */
function bandNote(defs: MetricDef[], cur: Shown): HTMLElement | null {
  const fitted = new Map<string, number>();
  for (const d of defs) {
    const b = cur.prediction.uncertainty?.[d.path];
    if (b && getPath(cur.prediction, d.path) !== undefined) fitted.set(b.regime, b.cases);
  }
  if (fitted.size === 0) return null;
  const what = [...fitted].map(([regime, cases]) => `${cases} published ${regimeWords(regime)}`).join('; ');
  return h('p', { class: 'muted band-note', 'data-testid': 'band-note', title: [...fitted.keys()].join(', ') }, `80% ranges: where 80% of ${what} fell around the engine’s prediction.`);
}

/** What a phase is called where a step's range is raised to it (the engine's band `raised_by`). */
const RAISING_PHASE: Record<string, string> = {
  'rl.phases_s.rollout': 'rollout',
  'rl.phases_s.train': 'policy update',
  'rl.phases_s.reference': 'reference forward',
  'rl.phases_s.old_logprob': 'old log-probs forward',
  'rl.phases_s.reward': 'reward scoring',
  'rl.phases_s.weight_sync': 'weight sync',
};

const times = (x: number): string => `${x.toFixed(x < 2 ? 2 : 1)}×`;

/**
 * The step's band in words: its range as factors of the estimate, and which way the published
 * steps leaned, said only where they did (the upper factor's log at least twice the lower's).
 * `raised`: the engine raised the range's upper end from the step rows' own (fittedHigh, as a
 * multiple of the estimate) to a phase's range (a step is never shorter than any of its phases),
 * and the words say so rather than credit the step rows with it.
 */
export function rlBandWords(low: number, high: number, cases: number, raised?: { fittedHigh: number; by: string }): string {
  const range = raised
    ? `Published RL steps of this kind came out between ${low.toFixed(2)}× and ${times(raised.fittedHigh)} this estimate (80% of ${cases} published measurements); the range reaches ${times(high)} because the ${RAISING_PHASE[raised.by] ?? raised.by}’s own range does, and a step is never shorter than its ${RAISING_PHASE[raised.by] ?? 'phases'}`
    : `Published RL steps came out between ${low.toFixed(2)}× and ${times(high)} this estimate (80% of ${cases} published measurements)`;
  const up = Math.log(Math.max(high, 1)), down = -Math.log(Math.min(low, 1));
  if (up >= 2 * down && up > 0)
    return `${range}, mostly longer: real jobs run settings the scenario does not state (longer responses, recomputation, slower training stacks). Read the numbers as a plan’s lower bound and compare layouts with them, not as a promise.`;
  if (down >= 2 * up && down > 0) return `${range}, mostly shorter. Compare layouts with the numbers rather than take them as a promise.`;
  return `${range}, on both sides. Compare layouts with the numbers rather than take them as a promise.`;
}

/**
 * The RL section's opening: what one step is, and how far to trust the numbers (the engine's
 * least accurate prediction: its 80% ranges are wide, and the page says so).
 */
function rlIntro(cur: Shown): HTMLElement {
  const rl = cur.prediction.rl!;
  const how =
    rl.placement === 'colocated'
      ? 'All devices take turns: the inference engine generates the responses, then sleeps while the trainer scores them and updates the policy.'
      : `Two pools: ${rl.rollout.devices} devices generate while ${rl.train.devices} train${rl.staleness > 0 ? ', and the next step’s responses are generated during this step’s update' : ', each waiting for the other'}.`;
  const band = cur.prediction.uncertainty?.['rl.step_time_s'];
  const raised = band?.raised_by && band.fitted_high ? { fittedHigh: band.fitted_high / rl.step_time_s, by: band.raised_by } : undefined;
  const trust = band ? ` How far to trust it: RL is the engine’s least accurate prediction. ${rlBandWords(band.low / rl.step_time_s, band.high / rl.step_time_s, band.cases, raised)}` : '';
  return h('p', { class: 'intro', 'data-testid': 'rl-trust' }, `One step of RL post-training: generate responses to the step’s prompts, score them, train the policy on them, and send the new weights to the inference engine. ${how}${trust}`);
}

/** The MoE block's opening: what the layers do, with the model's routing (resolved scenario). */
function moeIntro(cur: Shown): HTMLElement {
  const moe = cur.resolved?.model.moe;
  const p = cur.resolved?.parallel;
  const routing = moe && p && typeof p === 'object' ? ` Here each token goes to ${moe.top_k} of ${moe.experts} experts${moe.shared_experts ? ` (plus ${moe.shared_experts} shared)` : ''}, and each of the ${p.ep} expert-parallel ranks holds ${moe.experts / p.ep} of them.` : '';
  return h(
    'p',
    { class: 'intro' },
    `In a mixture-of-experts layer a router sends each token to a few of the layer’s experts. The experts are spread over the expert-parallel (ep) ranks, so every MoE layer moves the tokens to their experts and back with two all-to-all exchanges (dispatch and combine).${routing} Numbers are for one device of a training step.`,
  );
}

/**
 * The engine's memory.little_headroom warning for the footprint a memory section shows (its
 * message names the workload: the training footprint, or an RL trainer's, is the headline one).
 */
function littleHeadroom(prefix: string, p: Prediction): Prediction['warnings'][number] | undefined {
  const workload = prefix === 'inference.memory' || (!p.training && !p.rl) ? 'inference' : 'training';
  return (p.warnings ?? []).find((w) => w.code === 'memory.little_headroom' && w.message.startsWith(workload));
}

/** A served stream's memory in words: weights beside the KV pool the engine sets aside, then the static batch's verdict. */
function servingMemoryNote(p: Prediction, resolved: ResolvedScenario | null): HTMLElement | null {
  const sv = p.serving;
  if (!sv || p.training || !p.memory) return null;
  // Disaggregated, the pool is the decode pool's, whose layout is not the one the rows describe.
  const split = resolved?.inference?.serving?.disaggregated !== undefined;
  const where = split ? 'per device of the decode pool' : `per device beside ${formatBytes(p.memory.per_device_bytes.weights)} of weights`;
  return h(
    'div',
    null,
    fitBanner('memory', p),
    h('p', { class: 'note', 'data-testid': 'serving-memory-note' }, `Serving sets the KV cache pool aside whole at start: ${formatBytes(sv.kv_pool_bytes_per_device)} ${where}, of which the stream used ${(sv.kv_utilisation * 100).toFixed(0)} % on average and ${(sv.kv_peak_utilisation * 100).toFixed(0)} % at its peak. The rows below are one static batch’s${split ? ', on the scenario’s own layout' : ''}.`),
  );
}

function fitBanner(prefix: string, p: Prediction): HTMLElement | null {
  const m = getPath(p, prefix) as Prediction['memory'] | undefined;
  if (!m) return null;
  const total = m.per_device_bytes.total;
  const cap = m.capacity_bytes;
  const share = cap > 0 ? total / cap : 0;
  const tight = m.fits && littleHeadroom(prefix, p) !== undefined;
  const bar = h('div', { class: 'meter', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': String(cap), 'aria-valuenow': String(total), 'aria-label': 'memory used of capacity' }, h('span', { style: `width:${Math.min(100, share * 100).toFixed(1)}%` }));
  return h(
    'div',
    { class: `fit ${tight ? 'tight' : m.fits ? 'ok' : 'bad'}`, 'data-testid': tight ? 'fit-tight' : null },
    h('strong', null, tight ? 'Fits in GPU memory, with little room' : m.fits ? 'Fits in GPU memory' : 'Does not fit in GPU memory'),
    ` — ${formatBytes(total)} of ${formatBytes(cap)} per device (${(share * 100).toFixed(0)} %)`,
    // The engine owns the reserve's size (core/memory/footprint.h runtime_reserve); its warning below
    // gives the numbers.
    tight ? h('div', null, 'The CUDA context and the communication library hold memory of their own before any of this, so it may run out of memory: the warning below gives how much and what would make room.') : null,
    bar,
  );
}

/** parallel: "auto": the layout the search took, how many it compared, and what it fixed. */
function autoLayout(p: Prediction): HTMLElement | null {
  const a = p.parallel_auto;
  if (!a) return null;
  const narrowed = Object.entries(a.narrowed ?? {}).map(([k, v]) => `${k} ${String(v)}`);
  return h(
    'section',
    { class: 'card results-section', 'data-testid': 'auto-layout' },
    h('h3', null, 'Layout the search chose'),
    h('p', null, h('strong', { 'data-auto-layout': JSON.stringify(a.parallel) }, layoutLabel(a.parallel as unknown as Record<string, unknown>, a.mode === 'training'))),
    h(
      'p',
      { class: 'muted' },
      (a.mode === 'serving' && a.simulated > 0
        ? `The layout that serves this request stream best (the most goodput per GPU) of ${a.simulated === a.feasible ? `all ${a.feasible.toLocaleString('en-US')}` : `the ${a.simulated.toLocaleString('en-US')} highest-throughput of ${a.feasible.toLocaleString('en-US')}`} layouts that fit, each run with the stream, out of ${a.evaluated.toLocaleString('en-US')} searched; every number below is its prediction.`
        : `The ${a.mode === 'training' ? 'fastest' : 'highest-throughput'} of ${a.feasible.toLocaleString('en-US')} layouts that fit, out of ${a.evaluated.toLocaleString('en-US')} searched; every number below is its prediction.`) +
        (narrowed.length > 0 ? ` The whole space was past the search’s limit, so it fixed ${narrowed.join(', ')} first (what production stacks run).` : '') +
        // docs/method.md (Layout search): the published training rows at their own layouts against this pick.
        (a.mode === 'training' ? ' A team’s own layout is usually slower: published training runs at theirs came out 4–17% slower than this search’s pick for them (the median of each set: 4% on NVIDIA’s dense recipes, 10% on the public dense rows, 17% on MoE recipes).' : ''),
    ),
  );
}

export function renderResults(container: HTMLElement, cur: Shown, pinned: Shown | null): void {
  const p = cur.prediction;
  const parts: Array<HTMLElement | null> = [autoLayout(p)];
  if (p.training) parts.push(section('Training', TRAINING_METRICS, cur, pinned));
  if (p.training?.moe) parts.push(section('Mixture of experts', MOE_METRICS, cur, pinned, moeIntro(cur), 'moe'));
  if (p.run) parts.push(section('The whole run', RUN_METRICS, cur, pinned, null, 'run'));
  if (p.rl) parts.push(section('RL post-training: one step', RL_METRICS, cur, pinned, rlIntro(cur), 'rl'));
  if (p.rl?.run) parts.push(section('The whole RL run', RL_RUN_METRICS, cur, pinned, null, 'rl-run'));
  if (p.serving) parts.push(section(`Serving (${p.serving.static_batching ? 'static' : 'continuous'} batching)`, SERVING_METRICS, cur, pinned, servingIntro(p.serving), 'serving'));
  if (p.inference) parts.push(section(p.serving ? 'Inference: one static batch' : 'Inference', INFERENCE_METRICS, cur, pinned));
  parts.push(section('Model size', PARAM_METRICS, cur, pinned, null, 'params'));
  if (p.rl) {
    // An RL prediction's memory is the trainer's footprint; the pools' own numbers beside it.
    parts.push(section('Memory per device: the trainer', RL_TRAINER_MEMORY_METRICS, cur, pinned, fitBanner('memory', p), 'rl-memory'));
    parts.push(section('Memory per device: each pool', RL_POOL_MEMORY_METRICS, cur, pinned, null, 'rl-pools'));
  } else {
    // A served stream's engine sets its whole KV pool aside at start: the memory block is one static
    // batch's, which the section's title and note say (probe finding: 99.5 MiB of KV shown where
    // the pool was tens of GiB).
    const title = p.training ? 'Memory per device: training' : p.serving ? 'Memory per device: one static batch' : 'Memory per device: inference';
    parts.push(section(title, p.training ? TRAINING_MEMORY_METRICS : INFERENCE_ONLY_MEMORY_METRICS, cur, pinned, servingMemoryNote(p, cur.resolved) ?? fitBanner('memory', p)));
  }
  if (p.training && p.inference?.memory) parts.push(section('Memory per device: inference', INFERENCE_MEMORY_METRICS, cur, pinned, fitBanner('inference.memory', p)));
  // "Does not fit" is said once, where it matters: in the memory section's verdict, with the
  // bytes (and in the headline); the warning that repeats it is left out of the list.
  const warnings = (p.warnings ?? []).filter((w) => w.code !== 'memory.does_not_fit');
  parts.push(
    h(
      'section',
      { class: 'card warnings', 'data-testid': 'warnings' },
      h('h3', null, `Warnings (${warnings.length})`),
      warnings.length === 0 ? h('p', { class: 'muted' }, 'None.') : h('ul', null, ...warnings.map((w) => h('li', { 'data-warning': w.code }, warningWords(w), ' ', h('small', { class: 'muted code' }, `(${w.code})`)))),
    ),
  );
  container.replaceChildren(...parts.filter((x): x is HTMLElement => x !== null));
}
