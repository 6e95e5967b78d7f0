// @vitest-environment happy-dom
// The chart renderer (src/charts/render.ts) in a DOM: a reference line of a bytes chart sits where
// its value is, in the same GiB scale as the points.
import { describe, expect, it } from 'vitest';
import type { BarChartSpec, LineChartSpec, ScatterSpec } from '../../src/charts/specs';
import { renderChart } from '../../src/charts/render';

const GIB = 2 ** 30;

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
    const spec: BarChartSpec = {
      kind: 'bars',
      title: 'time',
      unit: 'seconds',
      xLabel: 's',
      stacked: false,
      bars: [
        { row: 'Compute', category: 'Compute', value: 6 },
        { row: 'Bubble', category: 'Bubble', value: 4 },
      ],
      band: { row: 'Iteration time (80% band)', value: 10, low: 8, high: 14, fitted: '50 published rows' },
    };
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
    const spec: BarChartSpec = {
      kind: 'bars',
      title: 'memory',
      unit: 'bytes',
      xLabel: 'bytes per device (GiB)',
      stacked: true,
      bars: [{ row: 'Training', category: 'Weights', value: 60 * GIB }],
      rule: { value: 79.6 * GIB, label: 'capacity' },
    };
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
