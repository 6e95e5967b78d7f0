import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { countOf, cutMiddle, formatBytes, formatDelta, formatMwh, formatParams, formatPercent, formatRange, formatSeconds, formatValue, groupDigits, regimeWords, sig, siPrefix } from '../../src/base/format';

describe('number formatting', () => {
  it.each([
    [0, '0'],
    [65.26991174562218, '65.3'],
    [0.016684, '0.0167'],
    [1234.5, '1235'],
    [100, '100'],
    [1.5e-9, '1.5e-9'],
    [-2.5, '-2.5'],
    [999.95, '1000'],
    [1e15, '1e+15'],
    [2.5e18, '2.5e+18'],
  ])('sig(%s) = %s', (x, want) => expect(sig(x)).toBe(want));

  it.each([
    [65.26991174562218, '65.3 s'],
    [0.016684464427883763, '16.7 ms'],
    [4.3e-6, '4.3 µs'],
    [3e-8, '30 ns'],
    [600, '10 min'],
    [36000, '10 h'],
    [86400 * 3, '3 days'],
    [233423394.2471344, '7.4 years'],
    [0, '0 s'],
    [0.99995, '1 s'],
    [0.9994, '999 ms'],
  ])('formatSeconds(%s) = %s', (x, want) => expect(formatSeconds(x)).toBe(want));

  it('binary capacities, decimal rates (docs/contract.md conventions)', () => {
    expect(formatBytes(85899345920)).toBe('80 GiB');
    expect(formatBytes(62194057216)).toBe('57.9 GiB');
    expect(formatBytes(754974720)).toBe('720 MiB');
    expect(formatBytes(512)).toBe('512 B');
    expect(siPrefix(989e12, 'FLOP/s')).toBe('989 TFLOP/s');
    expect(siPrefix(3.35e12, 'B/s')).toBe('3.35 TB/s');
    expect(formatValue(64260.91, 'tokens_rate')).toBe('64.3 k tokens/s');
    expect(formatValue(741.19, 'tokens_rate')).toBe('741 tokens/s');
    expect(formatPercent(0.48877399292782736)).toBe('48.9 %');
    expect(formatValue(true, 'bool')).toBe('yes');
    expect(formatValue(undefined, 'seconds')).toBe('—');
    expect(formatValue(1536, 'count')).toBe('1,536');
    expect(formatValue(3594261.4, 'count')).toBe('3.59 million');
    expect(formatValue(12345.6, 'count')).toBe('12,300');
    expect(formatValue(2340.2, 'count')).toBe('2340');
    expect(formatValue(4526496.1, 'usd')).toBe('$4.53 M');
    expect(formatValue(17.551855009383576, 'factor')).toBe('17.6×');
    expect(formatValue(1, 'factor')).toBe('1×');
    expect(formatValue(1.28e12, 'byte_rate')).toBe('1.28 TB/s');
    expect(formatValue(5616887.978291676, 'usd')).toBe('$5.62 M');
    expect(formatValue(0.4303, 'usd')).toBe('$0.43');
    expect(formatValue(-1500, 'usd')).toBe('−$1.5 k');
  });

  it('differences against a pinned value: absolute in the unit and relative', () => {
    expect(formatDelta(11, 10, 'seconds')).toEqual({ text: '+1 s (+10 %)', sign: 1 });
    expect(formatDelta(0.45, 0.5, 'ratio')).toEqual({ text: '−5 pp (−10 %)', sign: -1 });
    expect(formatDelta(3, 3, 'seconds')).toEqual({ text: '±0', sign: 0 });
    expect(formatDelta(2 ** 30, 0, 'bytes')).toEqual({ text: '+1 GiB', sign: 1 });
  });

  it('parameter counts in words, never with a "B" that reads as bytes', () => {
    expect(formatParams(671026404352)).toBe('671 billion');
    expect(formatParams(37552282624)).toBe('37.6 billion');
    expect(formatParams(1.04e12)).toBe('1.04 trillion');
    expect(formatParams(125e6)).toBe('125 million');
    expect(formatParams(4096)).toBe('4,096');
    expect(formatValue(9512681472, 'params')).toBe('9.51 billion');
  });
});

describe('countOf', () => {
  it('writes the count and its noun, plural unless one, the count as given or grouped', () => {
    expect(countOf(1, 'replica')).toBe('1 replica');
    expect(countOf(0, 'preemption')).toBe('0 preemptions');
    expect(countOf(2, 'GPU')).toBe('2 GPUs');
    expect(countOf(1536, 'step', groupDigits)).toBe('1,536 steps');
  });
});

describe('groupDigits', () => {
  it('writes integers as toLocaleString("en-US") does', () => {
    for (const n of [0, -0, 1, -1, 999, 1000, -1000, 1536, 123456, 1234567, -9876543210, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, -1e22]) {
      expect(groupDigits(n), String(n)).toBe(n.toLocaleString('en-US'));
    }
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => groupDigits(n) === n.toLocaleString('en-US')));
  });
});

describe('timeAxisUnit: one unit per time axis', () => {
  it.each([
    [0, 's'],
    [5e-4, 'µs'],
    [0.5, 'ms'],
    [56, 's'],
    [600, 'min'],
    [20_000, 'h'],
    [213 * 86400, 'days'],
    [3.2 * 365.25 * 86400, 'years'],
  ])('%f s -> %s', async (max, unit) => {
    const { timeAxisUnit } = await import('../../src/base/format');
    expect(timeAxisUnit(max).unit).toBe(unit);
  });
});

describe('cutMiddle: labels cut in the middle', () => {
  it('keeps short labels, cuts long ones to the limit keeping both ends', () => {
    expect(cutMiddle('short', 10)).toBe('short');
    // The accuracy chart's source labels at its 44-character margin.
    const label = (v: string) => `train_moe_public: NVIDIA Megatron-Bridge performance summary (${v} NeMo container)`;
    const cut = ['25.09', '25.11', '26.02', '26.02.01'].map((v) => cutMiddle(label(v), 44));
    expect(new Set(cut).size).toBe(4);
    for (const c of cut) expect(c).toHaveLength(44);
    expect(cut[0]!.startsWith('train_moe_public:')).toBe(true);
    expect(cut[0]!.endsWith('(25.09 NeMo container)')).toBe(true);
  });
  it('never exceeds the limit', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 3, max: 80 }), (s, n) => cutMiddle(s, n).length <= Math.max(n, 0)));
  });
});

describe('regimeWords', () => {
  // Every regime the shipped bands are fitted on (presets/uncertainty/bands.json) reads as words,
  // never as the engine's regime id.
  const bands = JSON.parse(readFileSync(new URL('../../../presets/uncertainty/bands.json', import.meta.url), 'utf8')) as { regimes: Record<string, unknown> };
  it.each(Object.keys(bands.regimes))('%s', (regime) => {
    const words = regimeWords(regime);
    expect(words).not.toMatch(/[/_]|regime|undefined/);
    expect(words.length).toBeGreaterThan(8);
  });
  it('names the model kind, the device generation, the metric and the placement', () => {
    expect(regimeWords('training/moe/fp4-generation')).toBe('training steps of mixture-of-experts models on GPUs with FP4 (B200, GB200, MI355X and later)');
    expect(regimeWords('serving/dense/ttft')).toBe('served streams of dense models (time to first token)');
    expect(regimeWords('run/earlier')).toBe('whole training runs on GPUs without FP8 (A100 and earlier)');
    expect(regimeWords('memory/inference')).toBe('inference memory footprints');
    expect(regimeWords('rl/step/split')).toBe('RL step times of jobs on two pools');
    expect(regimeWords('someday/new')).toBe('measurements of the regime someday/new');
  });
});

describe('durations in days, energies in MWh, ranges in one unit', () => {
  it.each([
    [0.0958, '2.3 h'],
    [30, '30 days'],
    [2442, '6.69 years'],
  ])('%s days = %s', (x, want) => expect(formatValue(x, 'days')).toBe(want));
  it.each([
    [0.0403, '40.3 kWh'],
    [12.5, '12.5 MWh'],
    [21400, '21.4 GWh'],
    [0, '0 kWh'],
  ])('%s MWh = %s', (x, want) => expect(formatMwh(x)).toBe(want));
  it('a range takes its high end’s unit, whatever the low end’s', () => {
    expect(formatRange(0.8 * 86400, 1.5 * 86400, 'seconds')).toBe('19.2 – 36 h');
    expect(formatRange(0.4, 1.2, 'days')).toBe('9.6 – 28.8 h');
    expect(formatRange(900 * 2 ** 20, 2 * 2 ** 30, 'bytes')).toBe('0.879 – 2 GiB');
    expect(formatRange(0.5, 0.7, 'ratio')).toBe('50 – 70 %');
    // Other quantities say their unit once where both ends share it, and keep both where not.
    expect(formatRange(65400, 80700, 'tokens_rate')).toBe('65.4 – 80.7 k tokens/s');
    expect(formatRange(980, 1200, 'tokens_rate')).toBe('980 tokens/s – 1.2 k tokens/s');
    expect(formatRange(8.59e6, 10.1e6, 'usd')).toBe('$8.59 M – $10.1 M');
    expect(formatRange(6812345.5, 8031234.5, 'count')).toBe('6.81 – 8.03 million');
  });
  it('a range beside a value takes the value’s unit while its high end stays under a thousand of it', () => {
    // An RL step of 104 s with its band: the same unit as the value, not "0.935 – 5.65 min".
    expect(formatRange(56.1, 339, 'seconds', 104)).toBe('56.1 – 339 s');
    expect(formatRange(0.8 * 86400, 1.5 * 86400, 'seconds', 86400)).toBe('19.2 – 36 h');
    // 1.1 days is written 26.4 h (the seconds' ladder), and so is its range.
    expect(formatValue(1.1, 'days')).toBe('26.4 h');
    expect(formatRange(0.9, 1.4, 'days', 1.1)).toBe('21.6 – 33.6 h');
    expect(formatRange(50 * 2 ** 30, 1100 * 2 ** 30, 'bytes', 63 * 2 ** 30)).toBe('0.0488 – 1.07 TiB');
    expect(formatRange(50 * 2 ** 30, 70 * 2 ** 30, 'bytes', 63 * 2 ** 30)).toBe('50 – 70 GiB');
    // A high end of a thousand or more of the value's unit climbs the ladder until it is under a thousand.
    expect(formatRange(30, 7200, 'seconds', 60)).toBe('0.5 – 120 min');
    expect(formatRange(1, 2, 'seconds', 0)).toBe('1 – 2 s');
  });
});
