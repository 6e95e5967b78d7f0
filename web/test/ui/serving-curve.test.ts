// The serving curve marks the scenario's own operating point (src/charts/specs.ts servingCurveSpec).
import { describe, expect, it } from 'vitest';
import { servingCurveSpec } from '../../src/charts/specs';

const point = (rate: number) => ({ rate, throughput: rate * 100, ttft_p90: 0.1 * rate, tpot_p90: 0.01 * rate, itl_p99: 0, goodput: rate });

describe('servingCurveSpec', () => {
  it('rings the current point at its throughput, p90 TTFT and p90 TPOT', () => {
    const s = servingCurveSpec([point(1), point(2)], undefined, 5, { throughput: 150, ttft_p90: 0.2, tpot_p90: 0.02 })!;
    expect(s.marked).toEqual([
      { x: 150, y: 0.2, label: 'this scenario' },
      { x: 150, y: 0.02, label: '' },
    ]);
    expect(s.note).toMatch(/^Rings: this scenario/);
  });
  it('marks nothing without a current point', () => {
    expect(servingCurveSpec([point(1)], undefined)!.marked).toBeUndefined();
  });
});
