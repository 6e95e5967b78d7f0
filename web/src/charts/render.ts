// The thin layer from chart specs (charts/specs.ts) to SVG with Observable Plot. Legends are
// plain HTML (so the chart itself is a single <svg> that exports cleanly).
import * as Plot from '@observablehq/plot';
import { cutMiddle, formatBytes, formatSeconds, formatValue, sig, siPrefix, timeAxisUnit } from '../base/format';
import { h } from '../base/dom';
import type { Bar, BarChartSpec, ChartSpec, LineChartSpec, RooflineSpec, ScatterSpec } from './specs';

/** Tableau 10 (Plot's default categorical scheme), readable on light and dark backgrounds. */
export const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const CAPACITY_COLOR = '#e15759';

const GIB = 2 ** 30;

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
  // Room for the row labels (about 6.5 px per character at 10 px) but at most 45 % of the width.
  const marginLeft = Math.min(Math.round(width * 0.45), 12 + 6.5 * Math.max(...rows.map((r) => r.length)));
  const marginRight = spec.stacked && !band ? 20 : band ? 120 : 64;
  const svg = Plot.plot({
    width,
    height: Math.max(90, rows.length * (spec.stacked ? 44 : 28) + 60),
    marginLeft,
    marginRight,
    marginTop: spec.rule ? 24 : 10,
    x: { label: time ? `${spec.xLabel.replace(/\s*\([^)]*\)$/, '')} (${time.unit})` : spec.xLabel, tickFormat: (d: number) => sig(d), grid: true, domain: [0, maxAll * 1.04 || 1], ticks: Math.max(2, Math.floor((width - marginLeft - marginRight) / 70)) },
    y: { label: null, domain: rows },
    color: { domain: cats, range },
    marks,
  });
  return { svg, legend: spec.stacked ? legend(cats, range) : undefined };
}

function roofline(spec: RooflineSpec, width: number): { svg: Element; legend?: HTMLElement } {
  const phases = [...new Set(spec.points.map((p) => p.phase))];
  const range = phases.map((_, i) => PALETTE[i % PALETTE.length]!);
  const marks: Plot.Markish[] = [];
  if (spec.roofs && spec.roofLine.length > 1) {
    const { peak_flops_per_s: peak, bandwidth_Bps: bw, precision } = spec.roofs;
    marks.push(Plot.line(spec.roofLine, { x: 'intensity', y: 'rate', stroke: 'currentColor', strokeWidth: 1.5 }));
    const last = spec.roofLine[spec.roofLine.length - 1]!;
    marks.push(Plot.text([last], { x: 'intensity', y: 'rate', text: () => `peak ${precision} ${siPrefix(peak, 'FLOP/s')}`, textAnchor: 'end', dy: -8, fill: 'currentColor' }));
    const first = spec.roofLine[0]!;
    marks.push(Plot.text([first], { x: 'intensity', y: 'rate', text: () => `HBM ${siPrefix(bw, 'B/s')}`, textAnchor: 'start', dy: -8, fill: 'currentColor' }));
  }
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
    height: Math.round(Math.min(420, Math.max(260, width * 0.6))),
    marginLeft: 70,
    marginTop: 20,
    // Plain numbers (0.2, not Plot's SI "200m": probe 61).
    x: { type: 'log', label: 'arithmetic intensity (FLOP/B) →', domain: spec.domain.x, tickFormat: (d: number) => sig(d) },
    y: { type: 'log', label: '↑ achieved FLOP/s', domain: spec.domain.y, tickFormat: (d: number) => siPrefix(d, '').trim() },
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
    x: { type: wideSpan ? 'log' : 'linear', label: `${spec.xLabel} →`, labelOffset: 40, grid: true, tickFormat: (d: number) => formatSeconds(d), ticks: Math.max(2, Math.floor((width - 80) / 80)) },
    y: { label: `↑ ${spec.yLabel}`, grid: true, tickFormat: (d: number) => sig(d) },
    color: { domain, range },
    marks,
  });
  const lg = legend(domain, range);
  if (input.rule) lg.append(h('li', { class: 'rule' }, h('span', { class: 'swatch dashed', style: `border-color:${CAPACITY_COLOR}` }), `${input.rule.label} ${formatBytes(input.rule.value)}`));
  if (spec.untimed.length > 0) lg.append(h('li', null, `× at the left edge: ${spec.untimed.length} rejected before timing (memory only)`));
  return { svg, legend: lg };
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
  const yFmt = bytes ? (d: number) => sig(d) : input.unit === 's' ? (d: number) => formatSeconds(d) : input.unit === 'USD' ? (d: number) => formatValue(d, 'usd') : (d: number) => sig(d);
  // The unit after an axis label, unless the label names it already ("output tokens/s per GPU");
  // seconds on the y axis are in its ticks (formatSeconds), on the x axis they are named.
  const unitLabel = (u: string, label: string, ticksSayIt: boolean): string =>
    u === 'bytes' ? ' (GiB)' : !u || ((u === 's' || u === 'USD') && ticksSayIt) || label.toLowerCase().split(/[\s()]+/).includes(u.toLowerCase()) ? '' : ` (${u})`;
  const series = [...new Set(spec.points.map((p) => p.series))];
  const range = series.map((name, i) => spec.colors?.[name] ?? PALETTE[i % PALETTE.length]!);
  // Category labels are cut shorter on a phone; rotated, the first one reaches left of its tick by
  // about 4.5 px a character, so the left margin makes room for it (probe: "…00 80GB, DGX A100").
  const cut = width < 500 ? 28 : 48;
  const categories = spec.xCategorical ? [...new Set(spec.points.map((p) => String(p.x)))] : [];
  const longest = spec.xCategorical ? Math.min(cut, Math.max(...categories.map((c) => c.length))) : 0;
  const firstReach = spec.xCategorical ? Math.round(Math.min(cut, categories[0]!.length) * 4.5) : 0;
  const marginLeft = Math.min(Math.round(width * 0.4), Math.max(64, firstReach - Math.round((width - 84) / Math.max(1, categories.length) / 2)));
  // Quantities over categories (a cost per system) are drawn from zero, so their heights compare.
  const fromZero = !spec.logY && (bytes || spec.yFromZero === true || (spec.xCategorical && spec.points.every((p) => p.y >= 0)));
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
  for (const r of spec.rules ?? []) {
    marks.push(Plot.ruleY([r.value], { stroke: CAPACITY_COLOR, strokeDasharray: '4,3' }));
    marks.push(Plot.text([r.value], { y: (d: number) => d, frameAnchor: 'left', text: () => `${r.label} ${bytes ? formatBytes(r.value * GIB) : yFmt(r.value)}`, dy: -6, dx: 4, fill: CAPACITY_COLOR, textAnchor: 'start' }));
  }
  const svg = Plot.plot({
    width,
    height: Math.round(Math.min(400, Math.max(240, width * 0.5))) + Math.round(longest * 4.5),
    marginLeft,
    marginBottom: spec.xCategorical ? 30 + Math.round(longest * 4.5) : 36,
    x: spec.xCategorical
      ? { type: 'point', label: null, tickRotate: -35, padding: 0.5, domain: categories, tickFormat: (d: string) => cutMiddle(d, cut) }
      : { type: spec.logX ? 'log' : 'linear', label: `${spec.xLabel}${unitLabel(spec.xUnit, spec.xLabel, false)} →`, grid: true },
    y: { type: spec.logY ? 'log' : 'linear', label: `↑ ${spec.yLabel}${unitLabel(input.unit, spec.yLabel, true)}`, grid: true, tickFormat: yFmt, zero: fromZero },
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
