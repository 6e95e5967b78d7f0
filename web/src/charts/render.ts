// The thin layer from chart specs (charts/specs.ts) to SVG with Observable Plot. Legends are
// plain HTML (so the chart itself is a single <svg> that exports cleanly).
import * as Plot from '@observablehq/plot';
import { cutMiddle, formatBytes, formatSeconds, formatValue, groupDigits, sig, siPrefix, timeAxisUnit } from '../base/format';
import { h } from '../base/dom';
import type { Bar, BarChartSpec, ChartSpec, LineChartSpec, RooflineSpec, ScatterSpec } from './specs';

/** Tableau 10 (Plot's default categorical scheme), readable on light and dark backgrounds. */
export const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const CAPACITY_COLOR = '#e15759';

const GIB = 2 ** 30;
/** A label's halo: the card's colour around the letters, so that a line or a point under them does not hide them. */
const HALO = { stroke: 'var(--card, white)', strokeWidth: 3 };
/** Pixels a tick label rotated by −35° reaches left of its tick, per character (10 px sans-serif; Chromium: 4.6 to 4.9). */
const ROTATED_REACH = 5;

/**
 * A tick of a plain quantity in digits: 0.2, 1,500 (never Plot's SI default of a log axis, "200m"
 * or "1k", which reads as milli- or a unit: probe 61).
 */
export function plainTick(d: number): string {
  return Number.isInteger(d) && Math.abs(d) >= 1000 && Math.abs(d) < 1e15 ? groupDigits(d) : sig(d, 4);
}

/** Round steps (1, 2 or 5 × 10^k, the nearest to n ticks, as d3 picks them) from lo to hi; whole steps when `whole` (no 0.5 nm). */
export function linearTicks(lo: number, hi: number, n: number, whole = false): number[] {
  const raw = (hi - lo) / Math.max(1, n);
  if (!(raw > 0) || !Number.isFinite(raw)) return Number.isFinite(lo) ? [lo] : [];
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  const step = Math.max(whole ? 1 : 0, (m >= Math.sqrt(50) ? 10 : m >= Math.sqrt(10) ? 5 : m >= Math.SQRT2 ? 2 : 1) * p);
  const out: number[] = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) out.push(Number((i * step).toPrecision(12)));
  return out;
}

/**
 * Ticks of a log axis from lo to hi, about n at most: 1, 2 and 5 (or 1 and 2, 1 and 3) of each
 * decade where they fit, else the powers of ten (every few when there are many), and round linear
 * steps within a span under ten. Only ticks Plot labels: its log format (d3's) blanks each tick
 * whose leading digit is above 100 / (the 1-9 ticks of the span), which left a phone's time axis
 * without a label (probe 61).
 */
export function logTicks(lo: number, hi: number, n: number, whole = false): number[] {
  if (!(lo > 0) || hi < lo * 10) return linearTicks(lo, hi, n, whole);
  const decades = (mantissas: number[]): number[] => {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of mantissas) {
        const v = Number((m * 10 ** e).toPrecision(12));
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
      }
    }
    return out;
  };
  const labelled = hi >= lo * 1e10 ? 10 : 100 / decades([1, 2, 3, 4, 5, 6, 7, 8, 9]).length;
  for (const ms of [[1, 2, 5], [1, 2], [1, 3]]) {
    const t = decades(ms);
    if (ms.every((m) => m <= labelled) && t.length >= 2 && t.length <= n) return t;
  }
  const powers = decades([1]);
  const every = Math.ceil(powers.length / Math.max(1, n));
  return powers.filter((_, i) => i % every === 0);
}

/**
 * The ticks of a numeric axis `px` long, about one per `spacing` px, as Plot's `ticks` option: an
 * interval, whose range Plot takes over the scale's own domain (the axis and its grid alike).
 * Whole steps where every one of `values` is whole (probe 61: a process node axis by 0.5 nm).
 */
export function axisTicks(px: number, spacing: number, log: boolean, values: unknown[] = []): Plot.RangeInterval<number> {
  const n = Math.max(2, Math.floor(px / spacing));
  const whole = values.length > 0 && values.every((v) => Number.isInteger(v));
  return { floor: (x: number) => x, offset: (x: number) => x, range: (lo: number, hi: number) => (log ? logTicks(lo, hi, n, whole) : linearTicks(lo, hi, n, whole)) };
}

/**
 * A label in at most two lines of `max` characters, broken between words, its middle cut where
 * even two are too few (a phone's bar chart: "End-to-end latency / (80% band)", not "nd-to-end
 * latency (80% band)" clipped by the left edge).
 */
export function wrapLabel(label: string, max: number): string {
  if (label.length <= max) return label;
  // Before a bracket where both parts fit: "Iteration time / (80% band)", not "(80% / band)".
  const bracket = label.lastIndexOf(' (');
  if (bracket > 0 && bracket <= max && label.length - bracket - 1 <= max) return `${label.slice(0, bracket)}\n${label.slice(bracket + 1)}`;
  const words = label.split(' ');
  let first = words.shift()!;
  while (words.length > 0 && first.length + 1 + words[0]!.length <= max) first += ` ${words.shift()!}`;
  if (first.length > max || words.length === 0) return cutMiddle(label, max);
  return `${first}\n${cutMiddle(words.join(' '), max)}`;
}

function legend(domain: string[], range: string[]): HTMLElement {
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'legend' },
    ...domain.map((d, i) => h('li', null, h('span', { class: 'swatch', style: `background:${range[i % range.length]}` }), d)),
  );
}

function bars(input: BarChartSpec, width: number): { svg: Element; legend?: HTMLElement } {
  // Bytes are drawn in GiB so that the axis gets round binary ticks (docs/contract.md: GiB = 2^30 B);
  // times in one unit chosen by the largest value (round ticks of that unit, named on the axis).
  const rawMax = Math.max(input.rule?.value ?? 0, input.band?.high ?? 0, ...input.bars.map((b) => (b.start ?? 0) + b.value));
  const time = input.unit === 'seconds' ? timeAxisUnit(rawMax) : null;
  const scale = input.unit === 'bytes' ? GIB : (time?.seconds ?? 1);
  const spec: BarChartSpec =
    scale === 1
      ? input
      : {
          ...input,
          bars: input.bars.map((b) => ({ ...b, value: b.value / scale, ...(b.start !== undefined ? { start: b.start / scale } : {}) })),
          rule: input.rule ? { ...input.rule, value: input.rule.value / scale } : undefined,
          band: input.band ? { ...input.band, value: input.band.value / scale, low: input.band.low / scale, high: input.band.high / scale } : undefined,
        };
  const fmt = (v: number): string => (input.unit === 'bytes' ? formatBytes(v * scale) : formatSeconds(v * scale));
  const band = spec.band;
  const rows = [...new Set(spec.bars.map((b) => b.row)), ...(band ? [band.row] : [])];
  const cats = [...new Set(spec.bars.map((b) => b.category))];
  const range = cats.map((c, i) => spec.colors?.[c] ?? PALETTE[i % PALETTE.length]!);
  // A waterfall: every bar floats from its own start.
  const floating = spec.bars.some((b) => b.start !== undefined);
  const end = (b: Bar): number => (b.start ?? 0) + b.value;
  const maxX = floating
    ? Math.max(spec.rule?.value ?? 0, ...spec.bars.map(end))
    : Math.max(spec.rule?.value ?? 0, ...rows.map((r) => spec.bars.filter((b) => b.row === r).reduce((a, b) => a + b.value, 0)));
  const maxAll = Math.max(maxX, band?.high ?? 0);
  const title = (d: { row: string; category: string; value: number }): string => `${d.category}: ${fmt(d.value)}`;
  const marks: Plot.Markish[] = [
    floating
      ? Plot.barX(spec.bars, { x1: (d: Bar) => d.start ?? 0, x2: end, y: 'row', fill: 'category', title })
      : Plot.barX(spec.bars, { x: 'value', y: 'row', fill: 'category', title }),
    Plot.ruleX([0]),
  ];
  if (!spec.stacked) {
    marks.push(Plot.text(spec.bars, { x: floating ? end : 'value', y: 'row', text: (d: { value: number }) => fmt(d.value), textAnchor: 'start', dx: 4, fill: 'currentColor' }));
  }
  if (band) {
    // The 80% band of the total: a whisker from low to high with end ticks, a dot at the prediction.
    const tip = `${band.row}: ${fmt(band.low)} to ${fmt(band.high)} around ${fmt(band.value)}; 80% of ${band.fitted} fell in this range around the prediction`;
    marks.push(Plot.ruleY([band], { y: 'row', x1: 'low', x2: 'high', stroke: 'currentColor', strokeWidth: 2, title: () => tip }));
    marks.push(Plot.tickX([band.low, band.high], { x: (d: number) => d, y: () => band.row, stroke: 'currentColor', strokeWidth: 2, inset: 6 }));
    marks.push(Plot.dot([band], { x: 'value', y: 'row', fill: 'currentColor', r: 3.5, title: () => tip }));
    marks.push(Plot.text([band], { x: 'high', y: 'row', text: () => `${fmt(band.low)} – ${fmt(band.high)}`, textAnchor: 'start', dx: 6, fill: 'currentColor' }));
  }
  if (spec.rule) {
    marks.push(Plot.ruleX([spec.rule.value], { stroke: CAPACITY_COLOR, strokeWidth: 2, strokeDasharray: '4,3' }));
    // Above the frame (its bottom on the frame's top edge), so that the label never lies over the
    // first bar, which a narrow chart (a phone) draws right under it.
    marks.push(Plot.text([spec.rule.value], { x: (d: number) => d, frameAnchor: 'top', lineAnchor: 'bottom', text: () => `${spec.rule!.label} ${fmt(spec.rule!.value)}`, dy: -4, fill: CAPACITY_COLOR, textAnchor: 'end', dx: -4 }));
  }
  // Room for the row labels (about 6.5 px per character at 10 px) but at most 45 % of the width:
  // a longer one in two lines (probe 61: "nd-to-end latency (80% band)" on a phone).
  const rowLabel = new Map(rows.map((r) => [r, wrapLabel(r, Math.floor((width * 0.45 - 12) / 6.5))]));
  const marginLeft = Math.round(12 + 6.5 * Math.max(...[...rowLabel.values()].flatMap((l) => l.split('\n').map((x) => x.length))));
  const marginRight = spec.stacked && !band ? 20 : band ? 120 : 64;
  const svg = Plot.plot({
    width,
    height: Math.max(90, rows.length * (spec.stacked ? 44 : 28) + 60),
    marginLeft,
    marginRight,
    marginTop: spec.rule ? 24 : 10,
    x: { label: time ? `${spec.xLabel.replace(/\s*\([^)]*\)$/, '')} (${time.unit})` : spec.xLabel, tickFormat: (d: number) => sig(d), grid: true, domain: [0, maxAll * 1.04 || 1], ticks: Math.max(2, Math.floor((width - marginLeft - marginRight) / 70)) },
    y: { label: null, domain: rows, tickFormat: (r: string) => rowLabel.get(r) ?? r },
    color: { domain: cats, range },
    marks,
  });
  return { svg, legend: spec.stacked ? legend(cats, range) : undefined };
}

/** The roofline's margins: its HBM label is turned to the slope its size and domains give the roof. */
const ROOF_MARGIN = { marginLeft: 70, marginRight: 20, marginTop: 20, marginBottom: 30 };

/**
 * The roofs and their labels: the peak above the flat roof's right end, the bandwidth along the
 * sloped roof, at its middle and turned to its slope, so that it lies over no point (every point is
 * under the roof) and over neither axis (probe 61: "HBM 3.35 TB/s" over a point and the "1 T" tick).
 */
function roofMarks(spec: RooflineSpec, width: number, height: number): Plot.Markish[] {
  if (!spec.roofs || spec.roofLine.length < 2) return [];
  const { peak_flops_per_s: peak, bandwidth_Bps: bw, precision } = spec.roofs;
  const last = spec.roofLine[spec.roofLine.length - 1]!;
  const first = spec.roofLine[0]!;
  const decades = ([lo, hi]: [number, number]): number => Math.log10(hi / lo) || 1;
  const perDecadeX = (width - ROOF_MARGIN.marginLeft - ROOF_MARGIN.marginRight) / decades(spec.domain.x);
  const perDecadeY = (height - ROOF_MARGIN.marginTop - ROOF_MARGIN.marginBottom) / decades(spec.domain.y);
  const mid = Math.sqrt(first.intensity * Math.max(first.intensity, Math.min(last.intensity, peak / bw)));
  return [
    Plot.line(spec.roofLine, { x: 'intensity', y: 'rate', stroke: 'currentColor', strokeWidth: 1.5 }),
    Plot.text([last], { x: 'intensity', y: 'rate', text: () => `peak ${precision} ${siPrefix(peak, 'FLOP/s')}`, textAnchor: 'end', dy: -8, fill: 'currentColor', ...HALO }),
    Plot.text([{ intensity: mid, rate: mid * bw }], {
      x: 'intensity',
      y: 'rate',
      text: () => `HBM ${siPrefix(bw, 'B/s')}`,
      rotate: (-Math.atan2(perDecadeY, perDecadeX) * 180) / Math.PI,
      textAnchor: 'middle',
      lineAnchor: 'bottom',
      dy: -5,
      fill: 'currentColor',
      ...HALO,
    }),
  ];
}

function roofline(spec: RooflineSpec, width: number): { svg: Element; legend?: HTMLElement } {
  const phases = [...new Set(spec.points.map((p) => p.phase))];
  const range = phases.map((_, i) => PALETTE[i % PALETTE.length]!);
  const height = Math.round(Math.min(420, Math.max(260, width * 0.6)));
  const marks: Plot.Markish[] = roofMarks(spec, width, height);
  marks.push(
    Plot.dot(spec.points, {
      x: 'intensity',
      y: 'rate',
      fill: 'phase',
      symbol: (d: { bound: string }) => (d.bound === 'compute' ? 'circle' : d.bound === 'memory' ? 'square' : 'triangle'),
      r: 4.5,
      stroke: 'var(--bg, white)',
      title: (d: RooflineSpec['points'][number]) =>
        `${d.name} (${d.phase}, ${d.bound}-bound)\n${sig(d.intensity)} FLOP/B, ${siPrefix(d.rate, 'FLOP/s')}\n${formatSeconds(d.time_s)} per instance`,
    }),
  );
  const svg = Plot.plot({
    width,
    height,
    ...ROOF_MARGIN,
    // Plain numbers (0.2, not Plot's SI "200m": probe 61); FLOP/s with their prefixes.
    x: { type: 'log', label: 'arithmetic intensity (FLOP/B) →', domain: spec.domain.x, tickFormat: plainTick, ticks: axisTicks(width - 90, 80, true) },
    y: { type: 'log', label: '↑ achieved FLOP/s', domain: spec.domain.y, tickFormat: (d: number) => siPrefix(d, '').trim(), ticks: axisTicks(height - 50, 35, true) },
    color: { domain: phases, range },
    symbol: { domain: ['circle', 'square', 'triangle'], range: ['circle', 'square', 'triangle'] },
    marks,
  });
  const lg = legend(phases, range);
  lg.append(h('li', null, '● compute-bound'), h('li', null, '■ memory-bound'), h('li', null, '▲ latency/host-bound/other'));
  return { svg, legend: lg };
}

function scatter(input: ScatterSpec, width: number): { svg: Element; legend?: HTMLElement } {
  // Memory in GiB on the axis (round binary ticks).
  const spec: ScatterSpec = {
    ...input,
    points: input.points.map((p) => ({ ...p, y: p.y / GIB })),
    untimed: input.untimed.map((p) => ({ ...p, y: p.y / GIB })),
    rule: input.rule ? { ...input.rule, value: input.rule.value / GIB } : undefined,
  };
  // The legend names only the kinds drawn (probe 61: "infeasible" listed with no such point).
  const kinds: Array<[string, string]> = [
    ['feasible', PALETTE[0]!],
    ['infeasible', '#9a9a9a'],
  ];
  const drawn = kinds.filter(([k]) => spec.points.some((p) => (p.feasible ? 'feasible' : 'infeasible') === k));
  const domain = drawn.map(([k]) => k);
  const range = drawn.map(([, c]) => c);
  const marks: Plot.Markish[] = [
    Plot.dot(spec.points, {
      x: 'x',
      y: 'y',
      fill: (d: { feasible: boolean }) => (d.feasible ? 'feasible' : 'infeasible'),
      fillOpacity: (d: { feasible: boolean }) => (d.feasible ? 0.85 : 0.35),
      r: 3.5,
      title: (d: ScatterSpec['points'][number]) => `${d.label}\n${formatSeconds(d.x)}, ${formatBytes(d.y * GIB)}${d.reason ? `\nrejected: ${d.reason}` : ''}`,
    }),
  ];
  if (spec.untimed.length > 0) {
    marks.push(
      Plot.dot(spec.untimed, {
        y: 'y',
        frameAnchor: 'left',
        symbol: 'times',
        stroke: '#9a9a9a',
        r: 3,
        title: (d: ScatterSpec['untimed'][number]) => `${d.label}\n${formatBytes(d.y * GIB)}, not timed\nrejected: ${d.reason}`,
      }),
    );
  }
  // The capacity line is named in the legend, not over the points it would cover (probe 61).
  if (spec.rule) marks.push(Plot.ruleY([spec.rule.value], { stroke: CAPACITY_COLOR, strokeDasharray: '4,3' }));
  const xs = spec.points.map((p) => p.x).filter((x) => x > 0);
  const wideSpan = xs.length > 1 && Math.max(...xs) >= 10 * Math.min(...xs);
  const svg = Plot.plot({
    width,
    height: Math.round(Math.min(380, Math.max(240, width * 0.55))),
    marginLeft: 60,
    // The axis label below the tick labels, so that it hides none of them.
    marginBottom: 44,
    // Log time only over a span of ten times or more; a narrower span on a log axis got no tick
    // label at all on a phone (probe 61).
    x: { type: wideSpan ? 'log' : 'linear', label: `${spec.xLabel} →`, labelOffset: 40, grid: true, tickFormat: (d: number) => formatSeconds(d), ticks: axisTicks(width - 80, 80, wideSpan) },
    y: { label: `↑ ${spec.yLabel}`, grid: true, tickFormat: (d: number) => sig(d) },
    color: { domain, range },
    marks,
  });
  const lg = legend(domain, range);
  if (input.rule) lg.append(h('li', { class: 'rule' }, h('span', { class: 'swatch dashed', style: `border-color:${CAPACITY_COLOR}` }), `${input.rule.label} ${formatBytes(input.rule.value)}`));
  if (spec.untimed.length > 0) lg.append(h('li', null, `× at the left edge: ${spec.untimed.length} rejected before timing (memory only)`));
  return { svg, legend: lg };
}

/**
 * Room for the rotated labels of a point x axis: cut shorter on a phone, the left margin wide
 * enough for the first one, which reaches left of its tick by ROTATED_REACH px a character
 * (probe 61: the baseline row's label clipped, "…100 80GB, DGX A10…"), at most 40 % of the
 * width (the labels cut to fit there).
 */
function categoryRoom(categories: string[], width: number): { categories: string[]; cut: number; longest: number; marginLeft: number } {
  if (categories.length === 0) return { categories, cut: 0, longest: 0, marginLeft: 64 };
  // The first tick lies half a step (of the width less the margins, 20 px on the right) right of
  // the margin: at m + (width − 20 − m) / 2n.
  const half = 1 / (2 * categories.length);
  const firstTick = (m: number): number => m + (width - 20 - m) * half;
  const cap = Math.round(width * 0.4);
  const cut = Math.min(width < 500 ? 28 : 48, Math.floor((firstTick(cap) - 8) / ROTATED_REACH));
  const longest = Math.min(cut, Math.max(...categories.map((c) => c.length)));
  const reach = Math.min(cut, categories[0]!.length) * ROTATED_REACH + 8;
  return { categories, cut, longest, marginLeft: Math.min(cap, Math.max(64, Math.ceil((reach - (width - 20) * half) / (1 - half)))) };
}

/**
 * Reference lines, each labelled at its right end, above it, haloed: clear of the lines' starts on
 * the left (probe 61: "the study's cheapest run" over the cheap GPUs' lines).
 */
function ruleMarks(rules: Array<{ value: number; label: string }>, fmt: (v: number) => string): Plot.Markish[] {
  return rules.flatMap((r) => [
    Plot.ruleY([r.value], { stroke: CAPACITY_COLOR, strokeDasharray: '4,3' }),
    Plot.text([r.value], { y: (d: number) => d, frameAnchor: 'right', text: () => `${r.label} ${fmt(r.value)}`, lineAnchor: 'bottom', dy: -3, dx: -4, fill: CAPACITY_COLOR, textAnchor: 'end', ...HALO }),
  ]);
}

/**
 * A speedup axis says what it is relative to: the x of its points at 1, where they share one
 * ("speedup over A100 80GB", a label's first part; "speedup over 12 nm"), not "speedup" alone
 * (probe 61).
 */
export function speedupLabel(spec: LineChartSpec): string {
  if (!spec.yLabel.startsWith('speedup') || spec.yLabel.includes(' over ')) return spec.yLabel;
  const at1 = new Set(spec.points.filter((p) => p.y === 1).map((p) => (typeof p.x === 'number' ? `${p.x} ${spec.xUnit}`.trim() : p.x.split(', ')[0])));
  return at1.size === 1 ? `${spec.yLabel} over ${[...at1][0]}` : spec.yLabel;
}

function lines(input: LineChartSpec, width: number): { svg: Element; legend?: HTMLElement } {
  const bytes = input.unit === 'bytes';
  // Bytes are drawn in GiB: the points and the reference lines alike.
  const perGiB = (v: number | undefined): number | undefined => (v === undefined ? undefined : v / GIB);
  // Bytes on a numeric x axis (a study's column) are drawn in GiB too, as its label says.
  const xBytes = !input.xCategorical && input.xUnit === 'bytes';
  const spec =
    bytes || xBytes
      ? {
          ...input,
          points: input.points.map((p) => ({ ...p, ...(xBytes ? { x: (p.x as number) / GIB } : {}), ...(bytes ? { y: p.y / GIB, low: perGiB(p.low), high: perGiB(p.high) } : {}) })),
          rules: bytes ? input.rules?.map((r) => ({ ...r, value: r.value / GIB })) : input.rules,
          marked: xBytes ? input.marked?.map((m) => ({ ...m, x: m.x / GIB })) : input.marked,
        }
      : input;
  // Money and days in their own words on the ticks (a study's cost_usd: "$3.4 M", not 3400000).
  const yFmt = bytes ? (d: number) => sig(d) : input.unit === 's' ? (d: number) => formatSeconds(d) : input.unit === 'USD' ? (d: number) => formatValue(d, 'usd') : plainTick;
  // The unit after an axis label, unless the label names it already ("output tokens/s per GPU");
  // seconds on the y axis are in its ticks (formatSeconds), on the x axis they are named.
  const unitLabel = (u: string, label: string, ticksSayIt: boolean): string =>
    u === 'bytes' ? ' (GiB)' : !u || ((u === 's' || u === 'USD') && ticksSayIt) || label.toLowerCase().split(/[\s()]+/).includes(u.toLowerCase()) ? '' : ` (${u})`;
  const series = [...new Set(spec.points.map((p) => p.series))];
  const range = series.map((name, i) => spec.colors?.[name] ?? PALETTE[i % PALETTE.length]!);
  const { categories, cut, longest, marginLeft } = categoryRoom(spec.xCategorical ? [...new Set(spec.points.map((p) => String(p.x)))] : [], width);
  // Quantities over categories (a cost per system) and money on any axis are drawn from zero, so
  // that their heights compare (probe 61: a study's cost against its price, from $4 M).
  const fromZero = !spec.logY && (bytes || spec.yFromZero === true || ((spec.xCategorical || spec.unit === 'USD') && spec.points.every((p) => p.y >= 0)));
  const marks: Plot.Markish[] = [
    Plot.dot(spec.points, {
      x: 'x',
      y: 'y',
      fill: 'series',
      r: spec.xCategorical ? 4.5 : 3,
      title: (d: LineChartSpec['points'][number]) => `${d.series}\n${spec.yLabel} = ${bytes ? formatBytes(d.y * GIB) : yFmt(d.y)}\n${spec.xLabel} = ${xBytes ? formatBytes((d.x as number) * GIB) : d.x}`,
    }),
  ];
  if (!spec.xCategorical) marks.unshift(Plot.line(spec.points, { x: 'x', y: 'y', stroke: 'series', ...(spec.step ? { curve: 'step-after' as const } : {}) }));
  // 80% bands (prediction.uncertainty): a shaded area behind each line, or a whisker per point.
  const banded = spec.points.filter((p) => p.low !== undefined && p.high !== undefined);
  if (banded.length > 0) {
    marks.unshift(
      spec.xCategorical
        ? Plot.ruleX(banded, { x: 'x', y1: 'low', y2: 'high', stroke: 'series', strokeOpacity: 0.5, strokeWidth: 3 })
        : Plot.areaY(banded, { x: 'x', y1: 'low', y2: 'high', fill: 'series', fillOpacity: 0.15, z: 'series' }),
    );
  }
  if (spec.marked && !bytes) {
    marks.push(Plot.dot(spec.marked, { x: 'x', y: 'y', r: 7, stroke: 'currentColor', strokeWidth: 2, fill: 'none' }));
    marks.push(Plot.text(spec.marked, { x: 'x', y: 'y', text: 'label', dx: 10, textAnchor: 'start', fill: 'currentColor' }));
  }
  marks.push(...ruleMarks(spec.rules ?? [], (v) => (bytes ? formatBytes(v * GIB) : yFmt(v))));
  const height = Math.round(Math.min(400, Math.max(240, width * 0.5))) + Math.round(longest * 4.5);
  const marginBottom = spec.xCategorical ? 30 + Math.round(longest * 4.5) : 36;
  const svg = Plot.plot({
    width,
    height,
    marginLeft,
    marginBottom,
    x: spec.xCategorical
      ? { type: 'point', label: null, tickRotate: -35, padding: 0.5, domain: categories, tickFormat: (d: string) => cutMiddle(d, cut) }
      : { type: spec.logX ? 'log' : 'linear', label: `${spec.xLabel}${unitLabel(spec.xUnit, spec.xLabel, false)} →`, grid: true, tickFormat: plainTick, ticks: axisTicks(width - marginLeft - 20, 80, spec.logX, spec.points.map((p) => p.x)) },
    y: {
      type: spec.logY ? 'log' : 'linear',
      label: `↑ ${speedupLabel(spec)}${unitLabel(input.unit, spec.yLabel, true)}`,
      grid: true,
      tickFormat: yFmt,
      zero: fromZero,
      ticks: axisTicks(height - marginBottom - 20, 35, spec.logY, bytes ? [] : spec.points.map((p) => p.y)),
    },
    color: { domain: series, range },
    marks,
  });
  let lg = series.length > 1 ? legend(series, range) : undefined;
  if (lg && spec.seriesLabel) lg.prepend(h('li', null, `${spec.seriesLabel}:`));
  if (spec.note) {
    lg ??= legend([], []);
    lg.append(h('li', { class: 'note' }, spec.note));
  }
  return { svg, legend: lg };
}

/** Renders a spec at a width; the returned SVG carries class "chart-svg" and an aria-label. */
export function renderChart(spec: ChartSpec, width: number): { svg: Element; legend?: HTMLElement } {
  const w = Math.max(280, Math.floor(width));
  const out = spec.kind === 'bars' ? bars(spec, w) : spec.kind === 'roofline' ? roofline(spec, w) : spec.kind === 'scatter' ? scatter(spec, w) : lines(spec, w);
  out.svg.classList.add('chart-svg');
  out.svg.setAttribute('role', 'img');
  out.svg.setAttribute('aria-label', spec.title);
  // Plot labels its mark groups (<g aria-label="rule">); inside an image they are not read, and
  // ARIA forbids a label on an element without a role (axe: aria-prohibited-attr).
  for (const g of out.svg.querySelectorAll('[aria-label]')) g.removeAttribute('aria-label');
  return out;
}
