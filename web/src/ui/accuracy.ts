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
import serveInferenceMax from '../../../tests/validation/data/serve_inferencemax_public.jsonl?raw';
import serveLargeEp from '../../../tests/validation/data/serve_sglang_large_ep.jsonl?raw';
import serveLinearAttention from '../../../tests/validation/data/serve_linear_attention.jsonl?raw';
import trainZero3 from '../../../tests/validation/data/train_zero3.jsonl?raw';
import rlPublic from '../../../tests/validation/data/rl_public.jsonl?raw';
import notIndependentText from '../../../tests/validation/data/not_independent.json?raw';
import { h } from '../base/dom';
import { cutMiddle, groupDigits } from '../base/format';
import { metricBand, metricValue } from '../state/metric';

export interface Case {
  id: string;
  set: string;
  group: string;
  scenario: unknown;
  metric: string;
  expected: number;
  /** The row predicted when the page was built, by the engine it bundles (vite.config.ts). */
  cached?: { predicted?: number; band?: { low: number; high: number }; error?: string };
}

/**
 * The data sets shown, in order: the id (the file's name, kept in the rows' data-set attribute),
 * its rows, and the title the page says it by (docs/accuracy.md's "By data set", as
 * tests/validation/validation_test.cpp data_sets() names them; probe 61: the page said the ids).
 */
export const DATA_SETS: Array<[id: string, text: string, title: string]> = [
  ['train_public', trainPublic, 'Training step time, public'],
  ['train_moe_public', trainMoe, 'MoE and FP4 training, public'],
  ['train_dgxc', trainDgxc, 'Training, DGX Cloud recipes v25.05'],
  ['train_heldout', trainHeldout, 'Training, held out'],
  ['train_fsdp', trainFsdp, 'Training, PyTorch FSDP'],
  ['train_zero3', trainZero3, 'Training, DeepSpeed ZeRO-3'],
  ['train_megatron_deepspeed', trainMegatronDeepSpeed, 'Training, Megatron-DeepSpeed'],
  ['train_meta_llama3', trainMetaLlama3, 'Training, Meta’s Llama 3 stack'],
  ['infer_public', inferPublic, 'Inference latency, public'],
  ['infer_heldout', inferHeldout, 'Inference, held out'],
  ['memory_public', memoryPublic, 'Memory per GPU, public'],
  ['whole_run', wholeRun, 'Whole training runs'],
  ['serve_public', servePublic, 'Serving, TensorRT-LLM v0.14 and v0.17'],
  ['serve_trtllm_perf', serveTrtllmPerf, 'Serving, TensorRT-LLM 2025 perf overview'],
  ['serve_inferencemax_public', serveInferenceMax, 'Serving, InferenceX DeepSeek-R1 on SGLang'],
  ['serve_sglang_large_ep', serveLargeEp, 'Serving, wide expert parallelism on SGLang'],
  ['serve_linear_attention', serveLinearAttention, 'Serving, linear attention on SGLang'],
  ['rl_public', rlPublic, 'RL post-training steps and phases'],
];

/** A data set's title (DATA_SETS), else its id. */
export function setTitle(set: string): string {
  return DATA_SETS.find(([id]) => id === set)?.[2] ?? set;
}

/**
 * What the view says above its chart, naming the data sets by their titles: no file names or
 * repository paths (probe 61: "train_dgxc, serve_trtllm_perf ... (docs/accuracy.md ...)").
 */
export function accuracyIntro(): string {
  const t = (set: string): string => `“${setTitle(set)}”`;
  return [
    'Every published measurement Optimus holds, predicted now by the engine in this browser. A point at 1 is exact, at 2× the engine predicts twice the measured value; the table says, per source, how far off the engine is on average and at worst, which way (bias: + predicts a larger value than measured), and how often the measurement falls inside the engine’s 80% band. Nothing is fitted on the held-out sets.',
    `Some rows are not independent evidence: ${t('train_dgxc')}, ${t('serve_trtllm_perf')}, the Megatron-Bridge dense rows of ${t('train_heldout')} and the FasterTransformer and TensorRT-LLM v0.6.1 / v0.9.0 rows of ${t('infer_heldout')} come from later versions or other tables of the documents the public rows come from, and some engine changes were chosen with them in view: they are marked “not independent” and counted apart.`,
    `${t('whole_run')} compare a run’s predicted GPU-hours, days or energy with what its maker published; nothing is fitted on their times: the run adds failures, restarts and checkpoints to the modelled steps, so it predicts the H100-generation runs too fast (they took 1.0 to 2.4 times the plan), and their band says so.`,
    `Serving rows are simulated request by request (in ${t('serve_trtllm_perf')}, MoE models on Hopper come out far too fast).`,
  ].join(' ');
}

/**
 * Sources that are not independent evidence (tests/validation/data/not_independent.json: later
 * versions or other tables of documents whose rows are in the shared public data): marked in the
 * table and left out of the summary line, as docs/accuracy.md reports them apart.
 */
const NOT_INDEPENDENT = (JSON.parse(notIndependentText) as { groups: Array<{ file: string; group_prefix: string }> }).groups;
export function isIndependent(set: string, group: string): boolean {
  return !NOT_INDEPENDENT.some((g) => g.file === `${set}.jsonl` && group.startsWith(g.group_prefix));
}

/** A row's build-time answer as vite.config.ts packs it: an error code, or [metric, band low, band high]. */
function unpackCached(c: unknown): Case['cached'] {
  if (typeof c === 'string') return { error: c };
  if (!Array.isArray(c)) return undefined;
  const [p, low, high] = c as Array<number | null>;
  return { predicted: typeof p === 'number' ? p : undefined, band: typeof low === 'number' && typeof high === 'number' ? { low, high } : undefined };
}

/** The cases of one JSON-lines file (blank lines skipped). */
export function parseCases(text: string, set: string): Case[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const c = JSON.parse(l) as Partial<Case>;
      return { id: String(c.id), set, group: String(c.group ?? set), scenario: c.scenario, metric: String(c.metric), expected: Number(c.expected), cached: unpackCached((c as { cached?: unknown }).cached) };
    });
}

export { metricValue } from '../state/metric';

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

/**
 * The index of each source's last row in `cases`. A source's rows need not be next to each other
 * (the held-out NeMo tables alternate A100 and H100 rows), so a source counts as predicted again
 * only once this row is.
 */
export function lastRowOfEachSource(cases: ReadonlyArray<Pick<Case, 'set' | 'group'>>): Set<number> {
  const last = new Map<string, number>();
  cases.forEach((c, i) => last.set(`${c.set}\u0000${c.group}`, i));
  return new Set(last.values());
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

/**
 * Labels cut to `width` characters (or `lines` = 2 lines of about that) that still tell every one
 * apart (probe 61: on a phone four whole-run sources read "whole_ru…arallel auto)"): each cut in
 * the middle (distinctCut; on two lines, its beginning on the first and its end on the second),
 * any still alike numbered.
 */
export function distinctLabels(labels: readonly string[], width: number, lines: 1 | 2 = 1): string[] {
  const seen = new Map<string, number>();
  return labels.map((l) => {
    const x = lines === 1 ? distinctCut(l, labels, width) : twoLineCut(l, labels, width);
    const n = (seen.get(x) ?? 0) + 1;
    seen.set(x, n);
    return n === 1 ? x : `${x} (${n})`;
  });
}

/**
 * `label` cut to `max` characters by dropping its middle, as cutMiddle does (the end the larger
 * share: where a source names its version or subject), the cut moved where that would leave the
 * beginning and end of another of `all` (which could then read the same); where no cut of one
 * middle (of those `fits` allows: head and tail lengths; the nearest to a `preferred` tail
 * first) tells it apart, the part where it first parts from the most like it, between ellipses.
 */
export function distinctCut(label: string, all: readonly string[], max: number, fits: (head: number, tail: number) => boolean = () => true, preferred = Math.ceil((max - 1) * 0.6)): string {
  if (label.length <= max) return label;
  const others = all.filter((o) => o !== label);
  const tails = Array.from({ length: max }, (_, i) => i)
    .filter((t) => fits(max - 1 - t, t))
    .sort((a, b) => Math.abs(a - preferred) - Math.abs(b - preferred));
  for (const tail of tails) {
    const head = label.slice(0, max - 1 - tail);
    const end = label.slice(label.length - tail);
    if (!others.some((o) => o.startsWith(head) && o.endsWith(end))) return `${head}…${end}`;
  }
  const differs = Math.max(0, ...others.map((o) => commonPrefix(label, o)));
  const start = Math.max(1, Math.min(differs - Math.floor(max / 3), label.length - (max - 1)));
  const stop = Math.min(label.length, start + max - 2);
  return `…${label.slice(start, stop)}${stop < label.length ? '…' : ''}`;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** A label on two lines of about `width` characters: whole where it fits, else its beginning, then "…" and its end. */
function twoLineCut(label: string, all: readonly string[], width: number): string {
  if (label.length <= 2 * width) return twoLines(label, width);
  // The first line ends at a word where one ends near the width.
  const space = label.lastIndexOf(' ', width + 2);
  const head = space >= width - 6 ? space : width;
  const cut = distinctCut(label, all, 2 * width, (h, tail) => h <= width + 2 && tail <= width + 2, 2 * width - 1 - head);
  const at = cut.indexOf('…');
  return at > 0 ? `${cut.slice(0, at)}\n${cut.slice(at)}` : twoLines(cut, width);
}

/** A label in two lines of about `width` characters, broken at the space that evens them most, else at `width`. */
export function twoLines(label: string, width: number): string {
  if (label.length <= width) return label;
  const longer = (i: number): number => Math.max(i, label.length - i - 1);
  const at = [...label.matchAll(/ /g)].map((m) => m.index).sort((a, b) => longer(a) - longer(b))[0];
  if (at !== undefined && longer(at) <= width + 3) return `${label.slice(0, at)}\n${label.slice(at + 1)}`;
  return `${label.slice(0, width)}\n${label.slice(width)}`;
}

/** A chart point: one row's predicted / measured, its source and the row's 80% band as ratios. */
interface Point {
  ratio: number;
  source: string;
  name: string;
  lo?: number;
  hi?: number;
}

/** The ruled scatter's points: rows with a positive prediction and measurement. */
function chartPoints(scored: Scored[]): Point[] {
  return scored
    .filter((s) => s.predicted !== undefined && s.predicted > 0 && s.c.expected > 0)
    .map((s) => {
      const name = (s.c.scenario as { name?: unknown } | null)?.name;
      return {
        ratio: s.predicted! / s.c.expected,
        source: `${setTitle(s.c.set)}: ${s.c.group}`,
        name: typeof name === 'string' ? name : s.c.id,
        lo: s.band && s.band.high > 0 ? s.predicted! / s.band.high : undefined,
        hi: s.band && s.band.low > 0 ? s.predicted! / s.band.low : undefined,
      };
    });
}

/**
 * Predicted / measured per row (a ratio, log scale: a 2x miss either way is as far from 1), one
 * line per source, with the band of the row's 80% range where the engine gives one (the
 * measurement inside the band <=> 1 between predicted/high and predicted/low). A line is labelled
 * by its source, cut to fit the margin so that no two read alike (distinctLabels); the whole name
 * (data set and source) is the label's tooltip.
 */
function accuracyChart(scored: Scored[], width: number): SVGElement {
  const points = chartPoints(scored);
  const sources = [...new Set(points.map((p) => p.source))];
  const narrow = width < 600;
  const groups = sources.map((x) => x.slice(x.indexOf(': ') + 2));
  // A phone's margin holds about 23 characters: its labels run to two lines of that.
  const short = new Map(distinctLabels(groups, narrow ? 21 : 44, narrow ? 2 : 1).map((l, i) => [sources[i]!, l]));
  const clamp = (x: number): number => Math.min(8, Math.max(1 / 8, x));
  const svg = Plot.plot({
    width,
    height: 70 + sources.length * (narrow ? 26 : 18),
    marginLeft: narrow ? 150 : 270,
    // Base 2: the ticks are powers of 2, and d3's log tick format (which Plot applies around
    // tickFormat) leaves base-10 mantissas above 5 unlabelled, so the 8x tick had no label.
    x: { type: 'log', base: 2, label: 'predicted / measured (1 = exact; beyond 8x clipped)', domain: [1 / 8, 8], ticks: [0.125, 0.25, 0.5, 1, 2, 4, 8], tickFormat: (v: number) => (v < 1 ? `1/${Math.round(1 / v)}` : `${v}×`), grid: true, axis: 'both' },
    y: { label: null, domain: sources, tickFormat: (v: string) => short.get(v) ?? v },
    marks: [
      Plot.ruleY(points.filter((p) => p.lo !== undefined && p.hi !== undefined), { y: 'source', x1: (p: Point) => clamp(p.lo!), x2: (p: Point) => clamp(p.hi!), stroke: 'currentColor', strokeOpacity: 0.07, strokeWidth: 7 }),
      Plot.ruleX([1], { stroke: 'currentColor' }),
      Plot.dot(points, { x: (p: Point) => clamp(p.ratio), y: 'source', r: 2.5, fill: 'currentColor', fillOpacity: 0.6, title: (p: Point) => `${p.name} (${p.source}): predicted / measured ${p.ratio.toPrecision(3)}` }),
    ],
  }) as SVGElement;
  // Each source's label says its whole name on hover (an SVG text's title is a <title> child).
  const whole = new Map([...short].map(([full, l]) => [l.replace('\n', ''), full]));
  for (const t of svg.querySelectorAll('[aria-label="y-axis tick label"] text')) {
    const full = whole.get(t.textContent ?? '');
    if (full === undefined) continue;
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = full;
    t.append(title);
  }
  // Plot labels its mark groups; inside an image ARIA forbids a label on an element without a
  // role (axe: aria-prohibited-attr), and they are not read there anyway.
  for (const g of svg.querySelectorAll('[aria-label]')) g.removeAttribute('aria-label');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'Predicted over measured per validation row, log scale, one line per source, with each row\u2019s 80% band; the table below gives the same per source.');
  return svg;
}

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
    h('p', null, accuracyIntro()),
    status,
    plot,
    h('div', { class: 'card table-wrap', tabindex: '0', role: 'region', 'aria-label': 'error per source' }, table),
  );
  let started = false;

  /** A row scored from a prediction (or its failure). */
  const score = (c: Case, r: Awaited<ReturnType<Engine['predict']>>): Scored =>
    r.ok ? { c, predicted: metricValue(r.value, c.metric), band: metricBand(r.value, c.metric) } : { c, error: r.error.code };

  /** Sources whose rows were predicted again here, and rows whose live answer differs from the build's. */
  const checked = new Set<string>();
  let differing = 0;
  /** The first row that differs, named for the reader: its id and what this browser answered. */
  let firstDiffering = '';

  async function run(): Promise<void> {
    const cases = DATA_SETS.flatMap(([set, text]) => parseCases(text, set));
    // The rows as the build's engine predicted them (the same wasm this page runs): every source
    // at once. Each is then predicted again here, in the background, source by source.
    const cachedAll = cases.every((c) => c.cached !== undefined);
    let scored: Scored[] = cachedAll ? cases.map((c) => ({ c, predicted: c.cached!.predicted, band: c.cached!.band, error: c.cached!.error })) : [];
    if (cachedAll) draw(scored, true);
    const live: Scored[] = [];
    const runs = new Map<string, Awaited<ReturnType<Engine['predict']>>>();
    const lastRows = lastRowOfEachSource(cases);
    for (const c of cases) {
      const key = JSON.stringify(c.scenario);
      let r = runs.get(key);
      if (!r) {
        r = await engine.predict(c.scenario);
        runs.set(key, r);
      }
      const row = score(c, r);
      live.push(row);
      if (c.cached && (row.predicted !== c.cached.predicted || row.error !== c.cached.error)) {
        differing += 1;
        firstDiffering ||= `${c.id}: ${r.ok ? `${row.predicted} here, ${c.cached.error ?? c.cached.predicted} in the build` : `refused here (${r.error.code}: ${cutMiddle(r.error.message, 160)})`}`;
      }
      const next = cases[live.length];
      if (lastRows.has(live.length - 1)) checked.add(`${c.set}\u0000${c.group}`);
      if (cachedAll && (!next || next.group !== c.group || next.set !== c.set)) {
        scored = [...live, ...scored.slice(live.length)];
        draw(scored, true);
      }
      if (!cachedAll) {
        if (live.length % 25 === 0) status.textContent = `Predicting every validation row… ${live.length} of ${cases.length}`;
        // Without the build's answers: draw what is known before the slow serving sets.
        if (next && next.set.startsWith('serve') && !c.set.startsWith('serve')) draw(live, false);
      }
    }
    draw(live, true);
  }

  function draw(scored: Scored[], done: boolean): void {
    const rows = summarize(scored);
    const independent = scored.filter((s) => isIndependent(s.c.set, s.c.group));
    const all = summarize(independent.map((s) => ({ ...s, c: { ...s.c, set: 'all', group: 'all' } })))[0];
    if (done && all) {
      const total = new Set(scored.map((r) => `${r.c.set}\u0000${r.c.group}`)).size;
      const live = checked.size === total ? ` Every source predicted again in this browser${differing ? `: ${differing} ${differing === 1 ? 'row differs' : 'rows differ'} from the build's answers (the first: ${firstDiffering})` : ', the same numbers'}.` : ` Predicting them again in this browser: ${checked.size} of ${total} sources checked…`;
      const apart = scored.length - independent.length;
      status.textContent = `${groupDigits(independent.length)} independent rows: mean error ${pct(all.mean)}, ${all.failed} could not be predicted, ${groupDigits(all.inside)} of ${groupDigits(all.banded)} measurements inside the 80% band (${apart} more rows, marked “not independent”, are counted apart).${live}`;
      status.dataset.value = String(all.mean);
      status.dataset.checked = String(checked.size === total);
    }
    table.replaceChildren(
      h('caption', null, 'Error of the engine against the published value, per data set and source'),
      h('thead', null, h('tr', null, ...['Data set', 'Source', 'Cases', 'Mean error', 'Largest', 'Bias', 'Inside the 80% band', 'Predicted again here'].map((x) => h('th', { scope: 'col' }, x)))),
      h(
        'tbody',
        null,
        ...rows.map((r) =>
          h(
            'tr',
            { 'data-source': r.group, 'data-set': r.set },
            h('td', { class: 'wrap' }, setTitle(r.set)),
            h('td', { class: 'wrap' }, r.group, isIndependent(r.set, r.group) ? null : h('span', { title: 'A later version or another table of a document whose rows are in the public data: not independent evidence, counted apart' }, ' (not independent)')),
            h('td', { class: 'num', 'data-value': String(r.cases) }, String(r.cases)),
            h('td', { class: 'num', 'data-value': String(r.mean) }, pct(r.mean)),
            h('td', { class: 'num', 'data-value': String(r.max) }, pct(r.max)),
            h('td', { class: 'num', 'data-value': String(r.bias) }, `${r.bias >= 0 ? '+' : ''}${pct(r.bias)}`),
            h('td', { class: 'num', 'data-value': r.banded ? String(r.inside / r.banded) : '' }, r.banded ? `${pct(r.inside / r.banded)} of ${r.banded}` : '—'),
            h('td', { 'data-checked': String(checked.has(`${r.set}\u0000${r.group}`)) }, checked.has(`${r.set}\u0000${r.group}`) ? 'yes' : '…'),
          ),
        ),
      ),
    );
    const svg = accuracyChart(scored, Math.max(320, Math.min(900, el.clientWidth || 720)));
    plot.replaceChildren(h('h3', null, 'Predicted / measured, per source'), svg);
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
