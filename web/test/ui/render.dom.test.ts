// @vitest-environment happy-dom
// The chart renderer (src/charts/render.ts) in a DOM: a reference line of a bytes chart sits where
// its value is, in the same GiB scale as the points.
import { describe, expect, it } from 'vitest';
import type { LineChartSpec } from '../../src/charts/specs';
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
