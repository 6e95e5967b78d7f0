// The serving curves: latency against throughput over request rates marks the scenario's own
// operating point (src/charts/specs.ts servingCurveSpec); latency and throughput per GPU against
// the users of a closed loop (servingConcurrency*Spec, ui/serving.ts's ladder and mark).
import { describe, expect, it } from 'vitest';
import { servingConcurrencyLatencySpec, servingConcurrencyThroughputSpec, servingCurveSpec } from '../../src/charts/specs';
import { concurrencyLadder, concurrencyMark } from '../../src/ui/serving';

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

describe('the concurrency sweep', () => {
  const at = (clients: number) => ({ clients, ttft_p50: 0.05 * clients, ttft_p90: 0.08 * clients, tpot_p50: 0.01, tpot_p90: 0.012, per_gpu: 100 * Math.sqrt(clients) });

  it('climbs powers of two to twice what the schedulers hold, between 64 and 1,024 users', () => {
    expect(concurrencyLadder(8, 1)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(concurrencyLadder(256, 1)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
    expect(concurrencyLadder(48, 1)).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
    expect(concurrencyLadder(1024, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    // A closed loop of 200 users is inside the sweep.
    expect(concurrencyLadder(8, 1, 200).at(-1)).toBe(512);
  });

  it('draws p50 and p90 TTFT and TPOT on log axes of users and seconds, the objectives as lines', () => {
    const s = servingConcurrencyLatencySpec([at(1), at(2), at(4)], { ttft_s: 0.5, tpot_s: 0, percentile: 90 }, 12)!;
    expect(s.logX && s.logY).toBe(true);
    expect(s.unit).toBe('s');
    expect([...new Set(s.points.map((p) => p.series))]).toEqual(['time to first token, p50', 'time to first token, p90', 'time per output token, p50', 'time per output token, p90']);
    expect(s.points.filter((p) => p.series === 'time to first token, p90').map((p) => [p.x, p.y])).toEqual([[1, 0.08], [2, 0.16], [4, 0.32]]);
    expect(s.rules).toEqual([{ value: 0.5, label: 'TTFT objective' }]);
    expect(s.note).toContain('A closed loop of 1 to 4 users');
    expect(s.marked).toBeUndefined();
    // A latency keeps its colour in the rate curve and here.
    const rate = servingCurveSpec([point(1)], undefined)!;
    expect(s.colors!['time to first token, p90']).toBe(rate.colors!['time to first token, p90']);
  });

  it('draws tokens/s per GPU on a linear axis from zero', () => {
    const s = servingConcurrencyThroughputSpec([at(1), at(4)])!;
    expect(s.logY).toBe(false);
    expect(s.yFromZero).toBe(true);
    expect(s.points.map((p) => p.y)).toEqual([100, 200]);
    expect(servingConcurrencyThroughputSpec([])).toBeNull();
  });

  it('marks a closed loop at its users and a Poisson stream at its mean requests in flight', () => {
    const serving = {
      ttft_s: { mean: 0.2, p50: 0.1, p90: 0.3, p99: 0.5 },
      tpot_s: { mean: 0.02, p50: 0.02, p90: 0.03, p99: 0.04 },
      e2e_latency_s: { mean: 4, p50: 4, p90: 5, p99: 6 },
      requests_per_s: 2.5,
      output_tokens_per_s_per_gpu: 321,
    } as unknown as Parameters<typeof concurrencyMark>[1];
    const closed = concurrencyMark({ inference: { serving: { arrival: 'closed', concurrency: 32 } } }, serving)!;
    expect(closed).toMatchObject({ clients: 32, exact: true, ttft_p90: 0.3, per_gpu: 321 });
    const poisson = concurrencyMark({ inference: { serving: { arrival: 'poisson', requests_per_s: 2.5 } } }, serving)!;
    expect(poisson).toMatchObject({ clients: 10, exact: false });
    expect(servingConcurrencyLatencySpec([at(1)], undefined, undefined, poisson)!.marked![0]!.label).toBe('this scenario (≈10 in flight)');
    expect(servingConcurrencyThroughputSpec([at(1)], undefined, closed)!.marked).toEqual([{ x: 32, y: 321, label: 'this scenario' }]);
    expect(concurrencyMark({ inference: { serving: { arrival: 'offline' } } }, serving)).toBeUndefined();
  });
});

describe('the concurrency latency chart on log axes', () => {
  it('leaves out a latency at or below zero and says which', () => {
    const s = servingConcurrencyLatencySpec(
      [
        { clients: 1, ttft_p50: -0.49, ttft_p90: 0.08, tpot_p50: 0.007, tpot_p90: 0.014, per_gpu: 18 },
        { clients: 2, ttft_p50: 0.05, ttft_p90: 0.09, tpot_p50: 0.007, tpot_p90: 0.014, per_gpu: 30 },
      ],
      undefined,
    )!;
    expect(s.points.every((p) => p.y > 0)).toBe(true);
    expect(s.points).toHaveLength(7);
    expect(s.note).toContain('Not drawn, at or below zero on a log axis: time to first token, p50 at 1 user (-490 ms).');
  });
});
