// @vitest-environment happy-dom
// The chart renderer (src/charts/render.ts) in a DOM: a reference line of a bytes chart sits where
// its value is, in the same GiB scale as the points.
import { describe, expect, it } from 'vitest';
import type { BarChartSpec, LineChartSpec } from '../../src/charts/specs';
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
