// The accuracy view (?view=accuracy): every validation row the repository holds with a published
// measurement (tests/validation/data: training, MoE and fp4 training, optimised inference, memory,
// whole training runs, and the held-out sets) predicted live by the engine in this browser,
// against the measured value: a log-log scatter coloured by source with the y = x line, and a
// table per source of cases, mean and largest error, bias and the share inside the engine's 80%
// band. Loaded on demand (its own chunk with the rows). The serving rows are simulated request by
// request; rows of one scenario (a serving table gives TTFT, TPOT and throughput of one run) share
// one prediction.
import * as Plot from '@observablehq/plot';
import type { Engine } from '../engine/client';
import trainPublic from '../../../tests/validation/data/train_public.jsonl?raw';
import trainMoe from '../../../tests/validation/data/train_moe_public.jsonl?raw';
import trainDgxc from '../../../tests/validation/data/train_dgxc.jsonl?raw';
import trainHeldout from '../../../tests/validation/data/train_heldout.jsonl?raw';
import trainFsdp from '../../../tests/validation/data/train_fsdp.jsonl?raw';
import trainMegatronDeepSpeed from '../../../tests/validation/data/train_megatron_deepspeed.jsonl?raw';
import trainMetaLlama3 from '../../../tests/validation/data/train_meta_llama3.jsonl?raw';
import inferPublic from '../../../tests/validation/data/infer_public.jsonl?raw';
import inferHeldout from '../../../tests/validation/data/infer_heldout.jsonl?raw';
import memoryPublic from '../../../tests/validation/data/memory_public.jsonl?raw';
import wholeRun from '../../../tests/validation/data/whole_run.jsonl?raw';
import servePublic from '../../../tests/validation/data/serve_public.jsonl?raw';
import serveTrtllmPerf from '../../../tests/validation/data/serve_trtllm_perf.jsonl?raw';
import { h } from './dom';
import { getPath } from './metrics';

export interface Case {
  id: string;
  set: string;
  group: string;
  scenario: unknown;
  metric: string;
  expected: number;
}

/** The data sets shown, in order, with the name the table gives each. */
export const DATA_SETS: Array<[string, string]> = [
  ['train_public', trainPublic],
  ['train_moe_public', trainMoe],
  ['train_dgxc', trainDgxc],
  ['train_heldout', trainHeldout],
  ['train_fsdp', trainFsdp],
  ['train_megatron_deepspeed', trainMegatronDeepSpeed],
  ['train_meta_llama3', trainMetaLlama3],
  ['infer_public', inferPublic],
  ['infer_heldout', inferHeldout],
  ['memory_public', memoryPublic],
  ['whole_run', wholeRun],
  ['serve_public', servePublic],
  ['serve_trtllm_perf', serveTrtllmPerf],
];

/** The cases of one JSON-lines file (blank lines skipped). */
export function parseCases(text: string, set: string): Case[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const c = JSON.parse(l) as Partial<Case>;
      return { id: String(c.id), set, group: String(c.group ?? set), scenario: c.scenario, metric: String(c.metric), expected: Number(c.expected) };
    });
}

/** A case's metric in a prediction: a dotted path whose last part may add keys ("a.b+c"). */
export function metricValue(prediction: unknown, metric: string): number | undefined {
  const dot = metric.lastIndexOf('.');
  const parent = dot < 0 ? prediction : getPath(prediction, metric.slice(0, dot));
  let sum = 0;
  for (const k of metric.slice(dot + 1).split('+')) {
    const v = getPath(parent, k);
    if (typeof v !== 'number') return undefined;
    sum += v;
  }
  return sum;
}

export interface Scored {
  c: Case;
  predicted?: number;
  /** The engine's 80% band of the metric, when it gives one. */
  band?: { low: number; high: number };
  error?: string;
}

export interface SourceRow {
  set: string;
  group: string;
  cases: number;
  failed: number;
  mean: number;
  max: number;
  bias: number;
  banded: number;
  inside: number;
}

/** Per data set and source: |predicted / measured - 1| mean and max (a failure counts 100%), bias, band coverage. */
export function summarize(rows: Scored[]): SourceRow[] {
  const by = new Map<string, SourceRow & { sum: number; signed: number }>();
  for (const r of rows) {
    const key = `${r.c.set}\u0000${r.c.group}`;
    const s = by.get(key) ?? { set: r.c.set, group: r.c.group, cases: 0, failed: 0, mean: 0, max: 0, bias: 0, banded: 0, inside: 0, sum: 0, signed: 0 };
    s.cases += 1;
    const e = r.predicted === undefined ? 1 : r.predicted / r.c.expected - 1;
    if (r.predicted === undefined) s.failed += 1;
    s.sum += Math.abs(e);
    s.signed += e;
    s.max = Math.max(s.max, Math.abs(e));
    if (r.band) {
      s.banded += 1;
      if (r.c.expected >= r.band.low && r.c.expected <= r.band.high) s.inside += 1;
    }
    by.set(key, s);
  }
  return [...by.values()].map(({ sum, signed, ...s }) => ({ ...s, mean: sum / s.cases, bias: signed / s.cases }));
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

export interface AccuracyView {
  el: HTMLElement;
  /** Predicts every row (once) and draws the result. */
  show(): void;
}

export function createAccuracyView(engine: Engine, el: HTMLElement): AccuracyView {
  const status = h('p', { class: 'muted', 'aria-live': 'polite', 'data-testid': 'accuracy-status' }, 'Predicting every validation row…');
  const table = h('table', { class: 'data', 'data-testid': 'accuracy-table' });
  const plot = h('figure', { class: 'card chart', 'data-testid': 'accuracy-chart' });
  el.replaceChildren(
    h('h2', { id: 'accuracy-h' }, 'How accurate is this?'),
    h(
      'p',
      null,
      'Every published measurement the repository holds, predicted now by the engine in this browser. A point on the line is exact; the table says, per source, how far off the engine is on average and at worst, which way (bias: + predicts a larger value than measured), and how often the measurement falls inside the engine’s 80% band. Held-out sets were never used to fit anything. Whole runs (whole_run) compare a run’s predicted GPU-hours, days or energy with what its maker published; the H100-generation systems’ production efficiency (the share of the modelled step rate those runs sustained) is fitted on them, and the engine still predicts them a little too fast on average. Serving rows are simulated request by request (serve_public: TensorRT-LLM v0.14 and v0.17 tables; serve_trtllm_perf: its 2025 table, where MoE models on Hopper come out far too fast).',
    ),
    status,
    plot,
    h('div', { class: 'card table-wrap', tabindex: '0', role: 'region', 'aria-label': 'error per source' }, table),
  );
  let started = false;

  async function run(): Promise<void> {
    const cases = DATA_SETS.flatMap(([set, text]) => parseCases(text, set));
    const scored: Scored[] = [];
    const runs = new Map<string, Awaited<ReturnType<Engine['predict']>>>();
    for (const c of cases) {
      const key = JSON.stringify(c.scenario);
      let r = runs.get(key);
      if (!r) {
        r = await engine.predict(c.scenario);
        runs.set(key, r);
      }
      if (!r.ok) {
        scored.push({ c, error: r.error.code });
      } else {
        const predicted = metricValue(r.value, c.metric);
        const band = (r.value as { uncertainty?: Record<string, { low: number; high: number }> }).uncertainty?.[c.metric];
        scored.push({ c, predicted, band });
      }
      if (scored.length % 25 === 0) status.textContent = `Predicting every validation row… ${scored.length} of ${cases.length}`;
      // The sets before the serving ones take a few seconds, the serving simulations several times
      // that: draw what is known once those are done, then everything at the end.
      const next = cases[scored.length];
      if (next && next.set.startsWith('serve') && !c.set.startsWith('serve')) draw(scored, false);
    }
    draw(scored, true);
  }

  function draw(scored: Scored[], done: boolean): void {
    const rows = summarize(scored);
    const all = summarize(scored.map((s) => ({ ...s, c: { ...s.c, set: 'all', group: 'all' } })))[0];
    if (done) {
      status.textContent = `${scored.length} rows predicted: mean error ${pct(all.mean)}, ${all.failed} could not be predicted, ${all.inside} of ${all.banded} measurements inside the 80% band.`;
      status.dataset.value = String(all.mean);
    }
    table.replaceChildren(
      h('caption', null, 'Error of the engine against the published value, per data set and source'),
      h('thead', null, h('tr', null, ...['Data set', 'Source', 'Cases', 'Mean error', 'Largest', 'Bias', 'Inside the 80% band'].map((x) => h('th', { scope: 'col' }, x)))),
      h(
        'tbody',
        null,
        ...rows.map((r) =>
          h(
            'tr',
            { 'data-source': r.group, 'data-set': r.set },
            h('td', null, r.set),
            h('td', null, r.group),
            h('td', { class: 'num', 'data-value': String(r.cases) }, String(r.cases)),
            h('td', { class: 'num', 'data-value': String(r.mean) }, pct(r.mean)),
            h('td', { class: 'num', 'data-value': String(r.max) }, pct(r.max)),
            h('td', { class: 'num', 'data-value': String(r.bias) }, `${r.bias >= 0 ? '+' : ''}${pct(r.bias)}`),
            h('td', { class: 'num', 'data-value': r.banded ? String(r.inside / r.banded) : '' }, r.banded ? `${pct(r.inside / r.banded)} of ${r.banded}` : '—'),
          ),
        ),
      ),
    );
    // Each metric's values normalised by its measurement would hide the spread; a log-log plot of
    // measured against predicted keeps both, one panel for all units (values span many decades).
    const points = scored
      .filter((s) => s.predicted !== undefined && s.predicted > 0 && s.c.expected > 0)
      .map((s) => ({ measured: s.c.expected, predicted: s.predicted!, source: `${s.c.set}: ${s.c.group}`, id: s.c.id }));
    const lo = Math.min(...points.map((p) => Math.min(p.measured, p.predicted)));
    const hi = Math.max(...points.map((p) => Math.max(p.measured, p.predicted)));
    const width = Math.max(320, Math.min(900, el.clientWidth || 720));
    // One tick per decade (every other one on a narrow plot): the default log ticks label every
    // 2 and 5 as well, which crowd the shorter axis once the values span 15 decades.
    const step = width < 600 ? 2 : 1;
    const decades: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e += step) decades.push(10 ** e);
    const svg = Plot.plot({
      width,
      height: Math.round(width * 0.7),
      x: { type: 'log', label: 'measured (published)', domain: [lo, hi], ticks: decades, tickFormat: '~s' },
      y: { type: 'log', label: 'predicted by the engine', domain: [lo, hi], ticks: decades, tickFormat: '~s' },
      color: { legend: false },
      marks: [
        Plot.line([
          [lo, lo],
          [hi, hi],
        ]),
        Plot.dot(points, { x: 'measured', y: 'predicted', fill: 'source', r: 2.5, title: (p: { id: string; source: string }) => `${p.id} (${p.source})` }),
      ],
    });
    // Plot labels its mark groups; inside an image ARIA forbids a label on an element without a
    // role (axe: aria-prohibited-attr), and they are not read there anyway.
    for (const g of svg.querySelectorAll('[aria-label]')) g.removeAttribute('aria-label');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Predicted against measured, log-log, one dot per validation row; the table below gives the same per source.');
    plot.replaceChildren(h('h3', null, 'Predicted against measured'), svg);
  }

  return {
    el,
    show() {
      if (started) return;
      started = true;
      run().catch((e: unknown) => {
        status.textContent = `The rows could not be predicted: ${e instanceof Error ? e.message : String(e)}`;
        status.classList.add('error');
      });
    },
  };
}
