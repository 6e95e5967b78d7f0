// @vitest-environment happy-dom
// The chart renderer (src/charts/render.ts) in a DOM: a reference line of a bytes chart sits where
// its value is, in the same GiB scale as the points.
import { describe, expect, it } from 'vitest';
import type { BarChartSpec, LineChartSpec, RooflineSpec, ScatterSpec } from '../../src/charts/specs';
import { linearTicks, logTicks, renderChart, wrapLabel } from '../../src/charts/render';

const GIB = 2 ** 30;

/** A bar chart spec: the given bars, unstacked in seconds unless `more` says otherwise. */
const barChart = (bars: BarChartSpec['bars'], more: Partial<BarChartSpec> = {}): BarChartSpec => ({
  kind: 'bars',
  title: 'time',
  unit: 'seconds',
  xLabel: 's',
  stacked: false,
  bars,
  ...more,
});

describe('line charts', () => {
  it('draw a bytes reference line in GiB, like the points', () => {
    const spec: LineChartSpec = {
      kind: 'lines',
      title: 'memory',
      xLabel: 'model',
      yLabel: 'total',
      xCategorical: true,
      unit: 'bytes',
      xUnit: '',
      logX: false,
      logY: false,
      points: [
        { x: 'a', y: 40 * GIB, series: 's' },
        { x: 'b', y: 120 * GIB, series: 's' },
      ],
      rules: [{ value: 80 * GIB, label: 'capacity' }],
    };
    const { svg } = renderChart(spec, 600);
    expect(svg.textContent).toContain('capacity 80');
    // The line lies between the two points (40 and 120 GiB), not far above the plot.
    const dots = Array.from(svg.querySelectorAll('circle'), (c) => Number(c.getAttribute('cy')));
    const rule = svg.querySelector('line[stroke-dasharray], g[stroke-dasharray] line');
    const y = Number(rule?.getAttribute('y1') ?? rule?.getAttribute('y'));
    expect(dots).toHaveLength(2);
    expect(y).toBeGreaterThan(Math.min(...dots));
    expect(y).toBeLessThan(Math.max(...dots));
  });
});

describe('bands', () => {
  it('a bar chart draws the band as a whisker on its own row, from low to high around the dot', () => {
    const spec = barChart(
      [
        { row: 'Compute', category: 'Compute', value: 6 },
        { row: 'Bubble', category: 'Bubble', value: 4 },
      ],
      { band: { row: 'Iteration time (80% band)', value: 10, low: 8, high: 14, fitted: '50 published rows' } },
    );
    const { svg } = renderChart(spec, 600);
    expect(svg.textContent).toContain('Iteration time (80% band)');
    const dot = svg.querySelector('circle')!;
    // Plot puts the whisker's stroke on its group; the line itself runs from x1 to x2 at one y.
    const whisker = Array.from(svg.querySelectorAll('line')).find((l) => l.getAttribute('y1') === l.getAttribute('y2') && Number(l.getAttribute('x2')) > Number(l.getAttribute('x1')) && l.querySelector('title')?.textContent?.includes('80%'));
    expect(whisker).toBeDefined();
    const [x1, x2, cx] = [Number(whisker!.getAttribute('x1')), Number(whisker!.getAttribute('x2')), Number(dot.getAttribute('cx'))];
    // The dot (10) lies inside the whisker (8 to 14), a third of the way from the low end.
    expect(cx).toBeGreaterThan(x1);
    expect(cx).toBeLessThan(x2);
    expect((cx - x1) / (x2 - x1)).toBeCloseTo(2 / 6, 1);
    expect(whisker!.querySelector('title')!.textContent).toContain('8 s to 14 s around 10 s');
  });
  it('a line chart shades the band behind its line', () => {
    const spec: LineChartSpec = {
      kind: 'lines',
      title: 'latency',
      xLabel: 'tokens/s',
      yLabel: 'latency',
      xCategorical: false,
      unit: 's',
      xUnit: 'tokens/s',
      logX: false,
      logY: false,
      points: [
        { x: 1, y: 1, series: 'ttft', low: 0.5, high: 2 },
        { x: 2, y: 2, series: 'ttft', low: 1, high: 4 },
      ],
    };
    const { svg } = renderChart(spec, 600);
    const area = svg.querySelector('path[fill-opacity], g[fill-opacity] path');
    expect(area).not.toBeNull();
  });
});

describe('axes and steps (probe 57)', () => {
  const timeline = (step: boolean): LineChartSpec => ({
    kind: 'lines',
    title: 'queue',
    xLabel: 'time since the first arrival',
    yLabel: 'requests',
    xCategorical: false,
    unit: '',
    xUnit: 's',
    logX: false,
    logY: false,
    step,
    points: [
      { x: 0, y: 0, series: 'waiting (queued)' },
      { x: 2.5, y: 8, series: 'waiting (queued)' },
      { x: 2.9, y: 0, series: 'waiting (queued)' },
      { x: 5.4, y: 8, series: 'waiting (queued)' },
    ],
  });
  /** The vertices of the chart's first line path ("M x,y L x,y ..."). */
  const vertices = (svg: Element): Array<[number, number]> => {
    const d = svg.querySelector('path[stroke]')?.getAttribute('d') ?? '';
    return [...d.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  };
  it('a count sampled over time is drawn as steps: every segment level or upright, each value held until the next sample', () => {
    const pts = vertices(renderChart(timeline(true), 600).svg);
    expect(pts.length).toBeGreaterThan(4);
    for (let i = 1; i < pts.length; i++) {
      const [[x0, y0], [x1, y1]] = [pts[i - 1]!, pts[i]!];
      expect(Math.abs(x1 - x0) < 1e-6 || Math.abs(y1 - y0) < 1e-6, `segment ${i}: ${x0},${y0} -> ${x1},${y1}`).toBe(true);
    }
    // held until the next sample: the value 8 of t = 2.5 s runs level to t = 2.9 s before it drops
    const [, y8] = pts[2]!;
    expect(pts[3]![1]).toBeCloseTo(y8, 6);
    expect(pts[3]![0]).toBeGreaterThan(pts[2]![0]);
    // without step, a slope (the probe's zig-zag)
    const sloped = vertices(renderChart(timeline(false), 600).svg);
    expect(sloped.slice(1).some(([x, y], i) => x !== sloped[i]![0] && y !== sloped[i]![1])).toBe(true);
  });
  it('names seconds on a time x axis, and a unit only where the label does not already say it', () => {
    const time = renderChart(timeline(true), 600).svg.textContent ?? '';
    expect(time).toContain('time since the first arrival (s) →');
    const perGpu: LineChartSpec = { ...timeline(false), xLabel: 'output tokens/s (deployment)', xUnit: 'tokens/s', yLabel: 'output tokens/s per GPU', unit: 'tokens/s' };
    const text = renderChart(perGpu, 600).svg.textContent ?? '';
    expect(text).toContain('output tokens/s (deployment) →');
    expect(text).toContain('↑ output tokens/s per GPU');
    expect(text).not.toContain('(tokens/s)');
    // a unit the label does not name is still added
    expect(renderChart({ ...perGpu, yLabel: 'rate' }, 600).svg.textContent).toContain('↑ rate (tokens/s)');
  });
  it('a bar chart writes its capacity label above the frame, clear of the first bar, even on a phone', () => {
    const spec = barChart([{ row: 'Training', category: 'Weights', value: 60 * GIB }], {
      title: 'memory',
      unit: 'bytes',
      xLabel: 'bytes per device (GiB)',
      stacked: true,
      rule: { value: 79.6 * GIB, label: 'capacity' },
    });
    for (const width of [320, 900]) {
      const { svg } = renderChart(spec, width);
      const label = Array.from(svg.querySelectorAll('text')).find((t) => t.textContent?.startsWith('capacity'))!;
      const translateY = (el: Element | null): number => Number(/translate\([^,]+,\s*([-\d.]+)\)/.exec(el?.getAttribute('transform') ?? '')?.[1] ?? 0);
      // Its baseline (with any shift Plot gives it in em of the chart's 10 px font: 0.32em down
      // for a label centred on the frame's edge) lies above the first bar's top.
      const em = Number.parseFloat(label.getAttribute('y') ?? '0') || 0;
      const baseline = translateY(label) + translateY(label.parentElement) + em * 10;
      const barTop = Math.min(...Array.from(svg.querySelectorAll('rect'), (r) => Number(r.getAttribute('y'))).filter(Number.isFinite));
      expect(baseline).toBeLessThan(barTop - 3);
    }
  });
});

describe('a study drawn (probe 57)', () => {
  it('the memory study says its axis and models in words and draws the 80 GiB line its description names', async () => {
    const { loadModule } = await import('../wasm');
    const { studySpec } = await import('../../src/charts/specs');
    const mod = await loadModule();
    const st = JSON.parse(mod.study!('memory-recompute', '')) as import('../../src/engine/types').StudyResult;
    const names = new Map((JSON.parse(mod.presets('models')) as { models: Array<{ id: string; name: string }> }).models.map((m) => [m.id, m.name]));
    const { svg } = renderChart(studySpec(st, undefined, (v) => names.get(v))!, 900);
    const text = svg.textContent ?? '';
    expect(text).toContain('↑ memory per GPU (GiB)');
    expect(text).toContain('capacity 80 GiB');
    expect(text).toContain('GPT-3 175B');
    expect(text).not.toMatch(/total_bytes|megatron-22b|gpt3-175b/);
    expect(svg.querySelectorAll('line[stroke-dasharray], g[stroke-dasharray] line').length).toBeGreaterThan(0);
  });
});

describe('money over categories (probe 61: the cheapest-accelerator chart)', () => {
  const costs = (): LineChartSpec => ({
    kind: 'lines',
    title: 'cost',
    xLabel: 'configuration',
    yLabel: 'cost of the run',
    xCategorical: true,
    unit: 'USD',
    xUnit: '',
    logX: false,
    logY: false,
    points: [
      { x: 'A100 80GB, DGX A100, bf16, $1.30/h', y: 1.97e6, series: 'cost' },
      { x: 'H100, DGX H100, bf16, $3.00/h', y: 1.3e6, series: 'cost' },
      { x: 'B200, DGX B200, fp8, $5.25/h', y: 0.8e6, series: 'cost' },
    ],
  });
  it('ticks in dollars from zero, the unit not repeated in the label', () => {
    const { svg } = renderChart(costs(), 1000);
    const ticks = Array.from(svg.querySelectorAll('[aria-label="y-axis tick label"] text, g text'), (t) => t.textContent ?? '');
    expect(ticks).toContain('$0');
    expect(ticks.some((t) => /^\$\d(\.\d+)? M$/.test(t))).toBe(true);
    expect(ticks.some((t) => /^\d{5,}$/.test(t))).toBe(false);
    expect(svg.textContent).toContain('↑ cost of the run');
    expect(svg.textContent).not.toContain('(USD)');
  });
  it('leaves room on the left for the first rotated label, and cuts labels shorter on a phone', () => {
    const wide = renderChart(costs(), 1000).svg;
    const eight = costs();
    eight.points = Array.from({ length: 8 }, (_, i) => ({ ...eight.points[i % 3]!, x: `${String(eight.points[i % 3]!.x)} #${i}` }));
    const phone = renderChart(eight, 390).svg;
    const firstTickX = (svg: Element): number => {
      const rotated = Array.from(svg.querySelectorAll('text'), (t) => t.getAttribute('transform') ?? '').filter((t) => t.includes('rotate'));
      return Number(/translate\(([\d.]+)/.exec(rotated[0] ?? '')?.[1] ?? NaN);
    };
    expect(Array.from(phone.querySelectorAll('text'), (t) => t.textContent).some((t) => t === 'A100 80GB, DGX A100, bf16, $1.30/h')).toBe(false);
    for (const svg of [wide, phone]) {
      expect(firstTickX(svg)).toBeGreaterThan(28 * 4.5 * 0.8);
    }
  });
});

describe('the search scatter (probe 61)', () => {
  const GiB = 2 ** 30;
  const spec = (infeasible: boolean): ScatterSpec => ({
    kind: 'scatter',
    title: 'layouts',
    xLabel: 'iteration time (s)',
    yLabel: 'memory per device (GiB)',
    points: [
      { x: 9.2, y: 60 * GiB, feasible: true, label: 'a', reason: '' },
      { x: 11.5, y: 70 * GiB, feasible: true, label: 'b', reason: '' },
      { x: 14, y: 76 * GiB, feasible: !infeasible, label: 'c', reason: infeasible ? 'memory' : '' },
    ],
    untimed: [],
    rule: { value: 77.7 * GiB, label: 'usable' },
  });
  it('names in its legend only the kinds it draws, and the usable line there, not over the points', () => {
    const only = renderChart(spec(false), 390);
    expect(Array.from(only.legend!.querySelectorAll('li'), (li) => li.textContent)).toEqual(['feasible', 'usable 77.7 GiB']);
    expect(only.svg.textContent).not.toContain('usable');
    const both = renderChart(spec(true), 390);
    expect(Array.from(both.legend!.querySelectorAll('li'), (li) => li.textContent)).toEqual(['feasible', 'infeasible', 'usable 77.7 GiB']);
  });
});

describe('the roofline (probe 61)', () => {
  it('writes intensities below one as plain numbers, not SI ("200m")', () => {
    const { svg } = renderChart(
      {
        kind: 'roofline',
        title: 'r',
        points: [{ name: 'a', phase: 'decode', bound: 'memory', intensity: 0.2, rate: 1e12, time_s: 1e-3 } as never],
        roofLine: [
          { intensity: 0.1, rate: 3.35e11 },
          { intensity: 1000, rate: 9.9e14 },
        ],
        domain: { x: [0.1, 1000], y: [1e10, 1e15] },
      },
      390,
    );
    const labels = Array.from(svg.querySelectorAll('text'), (t) => t.textContent ?? '');
    expect(labels).toContain('0.1');
    expect(labels.some((t) => /^\d+m$/.test(t))).toBe(false);
  });
});

/** Every text of a chart with the translate Plot gives it (the axes' tick labels sit in a row or a column). */
const texts = (svg: Element): Array<{ text: string; x: number; y: number; el: Element }> =>
  Array.from(svg.querySelectorAll('text'), (el) => {
    const m = /translate\(([-\d.e]+),\s*([-\d.e]+)\)/.exec(el.getAttribute('transform') ?? '');
    return { text: el.textContent ?? '', x: Number(m?.[1]), y: Number(m?.[2]), el };
  });
/** The tick labels of an axis: the texts of Plot's tick label group (tabular digits), y's anchored at their end. */
const axisTicks = (svg: Element, axis: 'x' | 'y'): string[] =>
  Array.from(svg.querySelectorAll('g[font-variant="tabular-nums"]'))
    .filter((g) => (g.getAttribute('text-anchor') === 'end') === (axis === 'y'))
    .flatMap((g) => Array.from(g.querySelectorAll('text'), (t) => t.textContent ?? ''));
const xTicks = (svg: Element): string[] => axisTicks(svg, 'x');
const yTicks = (svg: Element): string[] => axisTicks(svg, 'y');

describe('ticks (probe 61)', () => {
  const nodes = (): LineChartSpec => ({
    kind: 'lines',
    title: 'nodes',
    xLabel: 'process node',
    yLabel: 'speedup',
    xCategorical: false,
    unit: '',
    xUnit: 'nm',
    logX: false,
    logY: false,
    points: [12, 7, 5, 3, 2, 1].map((x, i) => ({ x, y: [1, 2.85, 4.96, 7.23, 8.92, 11.7][i]!, series: 'all' })),
  });
  it('a whole-number axis (process nodes) steps by whole numbers at any width, not by 0.5 nm', () => {
    for (const width of [390, 1440, 2400]) {
      const ticks = xTicks(renderChart(nodes(), width).svg);
      expect(ticks.length, `${width}`).toBeGreaterThan(1);
      for (const t of ticks) expect(t, `${width}: ${ticks.join(' ')}`).toMatch(/^\d+$/);
    }
    // y is not whole: its ticks may step by less than one
    expect(yTicks(renderChart(nodes(), 1440).svg).length).toBeGreaterThan(4);
  });
  it('a log axis labels every tick it draws, in plain digits, on a phone too', () => {
    const users: LineChartSpec = { ...nodes(), xLabel: 'concurrent users', xUnit: '', logX: true, points: [1, 2, 4, 16, 64, 256, 1024].map((x) => ({ x, y: 1 + Math.log2(x), series: 's' })) };
    for (const width of [390, 1280]) {
      const ticks = xTicks(renderChart(users, width).svg);
      expect(ticks.length, `${width}`).toBeGreaterThan(1);
      expect(ticks.every((t) => /^[\d,]+$/.test(t)), `${width}: ${ticks.join(' | ')}`).toBe(true);
    }
    expect(xTicks(renderChart(users, 1280).svg)).toContain('1,000');
    // a scatter's time over a wide span: every drawn tick has its label
    const wide: ScatterSpec = {
      kind: 'scatter',
      title: 'layouts',
      xLabel: 'iteration time (s)',
      yLabel: 'memory per device (GiB)',
      points: [9, 14, 30, 55, 120, 260].map((x, i) => ({ x, y: (30 + 8 * i) * GIB, feasible: true, label: `l${i}`, reason: '' })),
      untimed: [],
    };
    for (const width of [390, 1280]) {
      const ticks = xTicks(renderChart(wide, width).svg);
      expect(ticks.length, `${width}`).toBeGreaterThan(1);
      expect(ticks.every((t) => t !== ''), `${width}: ${ticks.join(' | ')}`).toBe(true);
    }
  });
});

describe('tick values', () => {
  it('log ticks: as many as fit, and only those whose labels Plot’s log format keeps', () => {
    // 8 ms to 30 s on a desktop: 1 and 2 of each decade (Plot would blank the 5s: 36 ticks 1-9 in the span)
    expect(logTicks(0.008, 30, 9)).toEqual([0.01, 0.02, 0.1, 0.2, 1, 2, 10, 20]);
    expect(logTicks(1, 100, 8)).toEqual([1, 2, 5, 10, 20, 50, 100]);
    // a phone: the powers, every other one where all do not fit
    expect(logTicks(0.15, 1500, 3)).toEqual([1, 100]);
    // within a span of ten: round linear steps
    expect(logTicks(45, 95, 3)).toEqual([60, 80]);
    for (const [lo, hi] of [
      [0.003, 7],
      [2, 900],
      [1e9, 3e15],
      [0.15, 1500],
      [1, 1024],
    ] as const) {
      const mantissaTicks = Array.from({ length: 40 }, (_, e) => Array.from({ length: 9 }, (_, m) => (m + 1) * 10 ** (e - 20))).flat().filter((v) => v >= lo && v <= hi).length;
      for (const n of [2, 3, 5, 9, 14]) {
        const t = logTicks(lo, hi, n);
        expect(t.length, `${lo}..${hi} n=${n}: ${t.join(' ')}`).toBeLessThanOrEqual(Math.max(n, 2));
        for (const v of t) {
          expect(v).toBeGreaterThanOrEqual(lo);
          expect(v).toBeLessThanOrEqual(hi);
          const lead = Number(v.toExponential().split('e')[0]);
          expect(lead, `${lo}..${hi} n=${n}: ${v}`).toBeLessThanOrEqual(Math.max(1, 100 / mantissaTicks));
        }
      }
    }
  });
  it('linear ticks: round steps, whole ones over whole numbers', () => {
    expect(linearTicks(1, 12, 14)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(linearTicks(1, 12, 25)).toContain(1.5);
    expect(linearTicks(1, 12, 25, true)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(linearTicks(0, 0.3, 3)).toEqual([0, 0.1, 0.2, 0.3]);
  });
  it('a label in two lines between words, cut in its middle where two are too few', () => {
    expect(wrapLabel('End-to-end latency (80% band)', 22)).toBe('End-to-end latency\n(80% band)');
    expect(wrapLabel('Prefill compute', 22)).toBe('Prefill compute');
    expect(wrapLabel('Iteration time (80% band)', 22)).toBe('Iteration time\n(80% band)');
    expect(wrapLabel('Training: waiting for the heaviest data-parallel rank', 22).split('\n').every((l) => l.length <= 22)).toBe(true);
  });
});

/** A study's speedup chart: one point per configuration, categorical x. */
const speedupChart = (points: LineChartSpec['points']): LineChartSpec => ({
  kind: 'lines',
  title: 'generations',
  xLabel: 'configuration',
  yLabel: 'speedup',
  xCategorical: true,
  unit: '',
  xUnit: '',
  logX: false,
  logY: false,
  points,
});

describe('margins and labels (probe 61)', () => {
  it('a long bar row label goes on two lines on a phone, each within the left margin, not cut at the edge', () => {
    const spec = barChart(
      [
        { row: 'Prefill compute', category: 'Prefill compute', value: 0.0275 },
        { row: 'Decode compute ×249', category: 'Decode compute', value: 2.35 },
      ],
      {
        title: 'latency',
        xLabel: 'time per request (s)',
        band: { row: 'End-to-end latency (80% band)', value: 2.4, low: 2.28, high: 2.92, fitted: '40 published rows' },
      },
    );
    const { svg } = renderChart(spec, 344);
    const label = texts(svg).find((t) => t.text.includes('End-to-end'))!;
    const lines = Array.from(label.el.querySelectorAll('tspan'), (t) => t.textContent ?? '');
    expect(lines).toEqual(['End-to-end latency', '(80% band)']);
    // Each line (about 6.5 px a character at 10 px) fits left of the tick it ends at.
    for (const l of lines) expect(l.length * 6.5).toBeLessThan(label.x);
  });
  it('the first rotated category label (a study’s baseline row) reaches no further left than the chart', () => {
    const rows = [
      'A100 80GB, DGX A100 (HDR InfiniBand), bf16, batch 1536',
      'H100, DGX H100 (NDR InfiniBand), bf16, batch 1536',
      'H100, DGX H100 (NDR InfiniBand), fp8, batch 1536',
      'B200, DGX B200 (NDR InfiniBand), bf16, batch 1536',
      'B200, DGX B200 (NDR InfiniBand), fp8, batch 1536',
      'B200, GB200 NVL72 (NVLink switch), fp8, batch 1536',
      'H100, DGX H100 (NDR InfiniBand), fp8, batch 4608',
      'B200, DGX B200 (NDR InfiniBand), fp8, batch 4608',
      'B200, GB200 NVL72 (NVLink switch), fp8, batch 4608',
      'B200, DGX B200 (NDR InfiniBand), nvfp4, batch 4608',
      'B200, GB200 NVL72 (NVLink switch), nvfp4, batch 4608',
    ];
    const spec = speedupChart(rows.map((x, i) => ({ x, y: 1 + i * 1.5, series: 'speedup' })));
    for (const width of [344, 1248]) {
      const first = texts(renderChart(spec, width).svg).find((t) => t.el.getAttribute('transform')?.includes('rotate'))!;
      // Chromium draws such a label 4.6 to 4.9 px left of its tick a character (cos 35° of its width).
      expect(first.x, `${width}: ${first.text}`).toBeGreaterThan(first.text.length * 4.9);
    }
  });
  it('a speedup axis says over which row it is one', () => {
    const gen = speedupChart([
      { x: 'A100 80GB, DGX A100 (HDR InfiniBand), bf16, batch 1536', y: 1, series: 'speedup' },
      { x: 'H100, DGX H100 (NDR InfiniBand), bf16, batch 1536', y: 2.93, series: 'speedup' },
    ]);
    expect(renderChart(gen, 900).svg.textContent).toContain('↑ speedup over A100 80GB');
    const nodes: LineChartSpec = { ...gen, xCategorical: false, xUnit: 'nm', points: [12, 7].flatMap((x, i) => [{ x, y: i === 0 ? 1 : 2.3, series: 'logic' }]) };
    expect(renderChart(nodes, 900).svg.textContent).toContain('↑ speedup over 12 nm');
    // one that says it already, or has no single row at 1, is left as it is
    expect(renderChart({ ...gen, yLabel: 'speedup over the A100 row (×)' }, 900).svg.textContent).toContain('↑ speedup over the A100 row (×)');
    expect(renderChart({ ...gen, points: gen.points.map((p) => ({ ...p, y: p.y + 1 })) }, 900).svg.textContent).toContain('↑ speedup');
    expect(renderChart({ ...gen, points: gen.points.map((p) => ({ ...p, y: p.y + 1 })) }, 900).svg.textContent).not.toContain('over');
  });
  it('a line chart writes its reference line’s label at the right end, haloed, clear of the lines’ starts', () => {
    const spec: LineChartSpec = {
      kind: 'lines',
      title: 'cost',
      xLabel: 'rental price',
      yLabel: 'cost of the run',
      xCategorical: false,
      unit: 'USD',
      xUnit: 'USD per GPU-hour',
      logX: false,
      logY: false,
      yFromZero: true,
      points: [0.65, 1.3, 2.6].map((x) => ({ x, y: x * 13e6, series: 'A100' })),
      rules: [{ value: 6.19e6, label: 'the study’s cheapest run:' }],
    };
    for (const width of [390, 1280]) {
      const { svg } = renderChart(spec, width);
      const label = texts(svg).find((t) => t.text.startsWith('the study’s cheapest run'))!;
      expect(label.text).toBe('the study’s cheapest run: $6.19 M');
      expect(label.x).toBeGreaterThan(width * 0.7);
      expect(label.el.closest('[text-anchor]')?.getAttribute('text-anchor')).toBe('end');
      expect(label.el.closest('[stroke]')?.getAttribute('stroke')).toContain('--card');
      expect(yTicks(svg)).toContain('$0');
    }
    // money from zero over a numeric x too, without being asked (a study's cost against its price)
    expect(yTicks(renderChart({ ...spec, yFromZero: undefined, rules: [] }, 900).svg)).toContain('$0');
  });
  it('the roofline writes its bandwidth along the sloped roof, turned to it, and labels every y tick', () => {
    const spec: RooflineSpec = {
      kind: 'roofline',
      title: 'r',
      points: [{ name: 'a', phase: 'decode', bound: 'memory', intensity: 0.3, rate: 1e11, time_s: 1e-3 }],
      roofs: { peak_flops_per_s: 9.89e14, bandwidth_Bps: 3.35e12, precision: 'bf16' },
      roofLine: [0.15, 1, 10, 100, 295, 1500].map((x) => ({ intensity: x, rate: Math.min(9.89e14, x * 3.35e12) })),
      domain: { x: [0.15, 1500], y: [1e9, 2e15] },
    };
    for (const width of [390, 800]) {
      const { svg } = renderChart(spec, width);
      const hbm = texts(svg).find((t) => t.text.startsWith('HBM'))!;
      const angle = Number(/rotate\(([-\d.e]+)\)/.exec(hbm.el.getAttribute('transform') ?? '')?.[1]);
      expect(angle).toBeLessThan(-10);
      expect(angle).toBeGreaterThan(-80);
      // Not at the roof's left end, by the axis (the probe's "HBM" over the "1 T" tick): at its middle.
      expect(hbm.x).toBeGreaterThan(70 + 0.15 * (width - 90));
      expect(yTicks(svg).every((t) => t !== ''), yTicks(svg).join(' | ')).toBe(true);
    }
  });
});
