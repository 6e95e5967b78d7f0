// The accuracy view's arithmetic (web/src/ui/accuracy.ts): metric paths, per-source errors, band
// coverage, and the bundled rows it predicts.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { accuracyIntro, DATA_SETS, distinctLabels, isIndependent, lastRowOfEachSource, metricValue, parseCases, setTitle, summarize, twoLines, type Scored } from '../../src/ui/accuracy';

describe('accuracy view', () => {
  it('reads a dotted metric, adding the keys of a last part joined by +', () => {
    const p = { memory: { per_device_bytes: { weights: 2, gradients: 3 } }, training: { tokens_per_s: 7 } };
    expect(metricValue(p, 'training.tokens_per_s')).toBe(7);
    expect(metricValue(p, 'memory.per_device_bytes.weights+gradients')).toBe(5);
    expect(metricValue(p, 'memory.per_device_bytes.activations')).toBeUndefined();
  });

  it('summarises per data set and source: mean and largest error, bias, band coverage; a failure counts 100%', () => {
    const c = (group: string, expected: number) => ({ id: group, set: 's', group, scenario: {}, metric: 'x', expected });
    const rows: Scored[] = [
      { c: c('a', 100), predicted: 110, band: { low: 90, high: 120 } },
      { c: c('a', 100), predicted: 80, band: { low: 90, high: 95 } },
      { c: c('b', 10), error: 'parallel.product_mismatch' },
    ];
    const [a, b] = summarize(rows);
    expect(a).toMatchObject({ group: 'a', cases: 2, failed: 0, banded: 2, inside: 1 });
    expect(a!.mean).toBeCloseTo(0.15, 12);
    expect(a!.max).toBeCloseTo(0.2, 12);
    expect(a!.bias).toBeCloseTo(-0.05, 12);
    expect(b).toMatchObject({ group: 'b', cases: 1, failed: 1, mean: 1, max: 1, banded: 0 });
  });

  it('bundles every public, held-out and whole-run row set with a measured value', () => {
    const cases = DATA_SETS.flatMap(([set, text]) => parseCases(text, set));
    // The validation suite's data sets (tests/validation/validation_test.cpp data_sets(), which
    // writes docs/accuracy.md and the README's table), every one: the page had left out two.
    const suite = readFileSync(new URL('../../../tests/validation/validation_test.cpp', import.meta.url), 'utf8');
    const body = suite.slice(suite.indexOf('const std::vector<DataSet>& data_sets() {'));
    const ids = [...body.slice(0, body.indexOf('return sets;')).matchAll(/\{"(\w+)\.jsonl"/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(15);
    expect(DATA_SETS.map(([s]) => s).sort()).toEqual(ids.sort());
    expect(cases.length).toBeGreaterThan(800);
    for (const c of cases) {
      expect(c.expected, c.id).toBeGreaterThan(0);
      expect(c.metric, c.id).toMatch(/\./);
    }
  });

  it('marks as not independent exactly the sources not_independent.json lists (243 rows), by data set and group prefix', () => {
    const cases = DATA_SETS.flatMap(([set, text]) => parseCases(text, set));
    const apart = cases.filter((c) => !isIndependent(c.set, c.group));
    expect(apart.length).toBe(243);
    expect(new Set(apart.map((c) => c.set))).toEqual(new Set(['train_dgxc', 'train_heldout', 'infer_heldout', 'serve_trtllm_perf']));
    expect(isIndependent('train_heldout', 'Megatron-Bridge perf summary (NeMo 25.11)')).toBe(false);
    expect(isIndependent('train_heldout', 'Nemotron-4 340B pretraining, NeMo on DGX H100 (1,536-6,144 GPUs)')).toBe(true);
    expect(isIndependent('infer_heldout', 'gpt-fast batch-1 decode (A100, 330 W)')).toBe(true);
    // A prefix counts in its own data set only: the public FasterTransformer rows stay independent.
    expect(isIndependent('infer_public', 'FasterTransformer GPT guide')).toBe(true);
  });

  it('counts a source as predicted again only at its last row, also where its rows are not next to each other', () => {
    const rows = [
      { set: 'x', group: 'a' },
      { set: 'x', group: 'b' },
      { set: 'x', group: 'a' },
      { set: 'y', group: 'a' },
    ];
    expect([...lastRowOfEachSource(rows)].sort()).toEqual([1, 2, 3]);
    // The bundled rows interleave sources (the held-out NeMo tables): a source whose first rows
    // were done is not yet checked.
    const cases = DATA_SETS.flatMap(([set, text]) => parseCases(text, set));
    const last = lastRowOfEachSource(cases);
    const firstEnd = cases.findIndex((c, i) => i + 1 < cases.length && (cases[i + 1]!.group !== c.group || cases[i + 1]!.set !== c.set) && !last.has(i));
    expect(firstEnd).toBeGreaterThan(0);
    expect(last.size).toBe(new Set(cases.map((c) => `${c.set}\u0000${c.group}`)).size);
  });
});

describe('the accuracy view in words (probe 61)', () => {
  it('names the data sets by their titles, with no file names or repository paths', () => {
    for (const [id, , title] of DATA_SETS) {
      expect(title, id).not.toMatch(/_|\.jsonl/);
      expect(setTitle(id)).toBe(title);
    }
    const intro = accuracyIntro();
    for (const [id] of DATA_SETS) expect(intro, id).not.toContain(id);
    expect(intro).not.toMatch(/docs\/|\.md\b|repository/);
    expect(intro).toContain('“Training, DGX Cloud recipes v25.05”');
  });

  it('cuts the chart’s source labels so that no two read alike: the bundled sources on a desktop and a phone, and a made-up clash', () => {
    const sources = [...new Set(DATA_SETS.flatMap(([set, text]) => parseCases(text, set)).map((c) => c.group))];
    for (const max of [44, 40, 22]) {
      const labels = distinctLabels(sources, max);
      expect(new Set(labels).size, String(max)).toBe(sources.length);
      for (const l of labels) expect(l.length, l).toBeLessThanOrEqual(max + 4);
    }
    // a phone's: two lines of about 22 characters, its beginning on the first
    const phone = distinctLabels(sources, 22, 2);
    expect(new Set(phone).size).toBe(sources.length);
    for (const l of phone) for (const line of l.split('\n')) expect(line.length, l).toBeLessThanOrEqual(25);
    expect(phone[sources.indexOf('NVIDIA Megatron-Bridge performance summary (26.02 NeMo container)')]).toBe('NVIDIA Megatron-Bridge\n…26.02 NeMo container)');
    // cutMiddle alone read "Llama 3 70B…(64 H100)" for both: the cut moves to where they differ
    const alike = ['Llama 3 70B training on 64 H100, Megatron (64 H100)', 'Llama 3 70B training on 64 H100, NeMo 25 (64 H100)'];
    const [a, b] = distinctLabels(alike, 20);
    expect(a).not.toBe(b);
    expect(a!.length).toBeLessThanOrEqual(20);
    // short labels stay whole; a phone's label runs to two lines at a space
    expect(distinctLabels(['AReaL v0.3 blog'], 22)).toEqual(['AReaL v0.3 blog']);
    expect(twoLines('InferenceX DSR1 B200 SGLang: median TPOT', 22)).toBe('InferenceX DSR1 B200\nSGLang: median TPOT');
  });
});
