// restoreScenario: the engine decides whether a link's scenario is usable; a scenario it refuses
// for a value at a field opens as it is, with the error; otherwise the page gets a message for its
// banner and the last valid or the default scenario.
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { createEngine, type Engine } from '../src/engine/client';
import { decodeFragment, encodeFragment } from '../src/codec/url';
import { restoreScenario } from '../src/codec/restore';
import { InProcessWorker, loadModule, readJson } from './wasm';

const defaultScenario = readJson('presets/scenarios/default.json') as Record<string, any>;
let engine: Engine;

beforeAll(async () => {
  const mod = await loadModule();
  engine = createEngine({ createWorker: () => new InProcessWorker(mod) });
  await engine.ready;
});

const linkTo = async (s: unknown) => decodeFragment(await encodeFragment(s));

describe('restoreScenario', () => {
  test('a valid link gives its scenario as written (preset ids kept)', async () => {
    const s = { ...defaultScenario, num_devices: 128, parallel: { ...defaultScenario.parallel, dp: 8 } };
    expect(await restoreScenario(await linkTo(s), engine)).toEqual({ ok: true, source: 'link', scenario: s });
  });

  test('no link gives the default scenario preset without a message', async () => {
    const r = await restoreScenario(await decodeFragment(''), engine);
    expect(r).toEqual({ ok: true, source: 'fallback', scenario: defaultScenario });
  });

  test('a scenario refused for a value at a field: engine code, path, message, and the link\'s own scenario to correct', async () => {
    const bad = { ...defaultScenario, num_devices: 24, parallel: { ...defaultScenario.parallel, tp: 3, dp: 4 } };
    const r = await restoreScenario(await linkTo(bad), engine);
    expect(r).toMatchObject({ ok: false, source: 'link', path: '/parallel/tp', code: 'parallel.tp_not_divisor_of_heads', scenario: bad });
    if (r.ok) return;
    expect(r.message).toContain('not valid');
    expect(r.message).toContain('Shown as written');
    // an RL split that does not add up
    const rl = { schema_version: 1, model: 'llama3.1-8b', system: 'dgx-h100', num_devices: 16, rl: { prompts_per_step: 64, placement: 'split', rollout_devices: 4, train_devices: 8 } };
    expect(await restoreScenario(await linkTo(rl), engine)).toMatchObject({ ok: false, source: 'link', path: '/rl/rollout_devices', scenario: rl });
  });

  test('a number out of range in the link is said in words, with its range', async () => {
    const bad = { ...defaultScenario, training: { ...defaultScenario.training, global_batch: 0 } };
    const r = await restoreScenario(await linkTo(bad), engine);
    expect(r).toMatchObject({ ok: false, source: 'link', path: '/training/global_batch', code: 'scenario.out_of_range', scenario: bad });
    if (!r.ok) expect(r.message).toBe("The link's scenario is not valid: Global batch = 0 is below what the engine accepts (1 to 1,000,000,000). Shown as written, for you to correct below.");
  });

  test('a scenario refused for its shape or an unknown preset: the message and the default scenario', async () => {
    const shapes: Array<[unknown, string]> = [
      [{ ...defaultScenario, colour: 'red' }, 'scenario.unknown_key'],
      [{ ...defaultScenario, num_devices: 'many' }, 'scenario.wrong_type'],
      [{ ...defaultScenario, model: 'no-such-model' }, 'preset.unknown_model'],
      [{ ...defaultScenario, training: { ...defaultScenario.training, precision: 'fp9' } }, 'scenario.invalid_value'],
    ];
    for (const [bad, code] of shapes) {
      const r = await restoreScenario(await linkTo(bad), engine);
      expect(r, code).toMatchObject({ ok: false, code, scenario: defaultScenario });
      if (!r.ok) {
        expect(r.source).toBeUndefined();
        expect(r.message).toContain('default scenario');
      }
    }
  });

  test('a corrupt link falls back to the last valid scenario when there is one', async () => {
    const last = { ...defaultScenario, name: 'mine' };
    const r = await restoreScenario(await decodeFragment('#v1=@@@'), engine, { lastValid: last });
    expect(r).toMatchObject({ ok: false, code: 'link.corrupt', scenario: last });
    if (!r.ok) expect(r.message).toContain('last valid scenario');
  });

  test("a link that cannot be used, nothing valid shown before, opens the page's own start (what a visit without a link shows), not the engine's default preset", async () => {
    // The page passes the Train task's starting scenario (app.ts); a corrupt link opened "Plan a
    // run" with a 15T-token whole run, the engine's default preset, while saying "the default scenario".
    const start = { schema_version: 1, model: 'llama3-70b', system: 'dgx-h100', num_devices: 64, parallel: { tp: 8, pp: 2 }, training: { global_batch: 512, seq_len: 8192 } };
    for (const hash of ['#v1=@@@', '#v0=abc', '#v1=!!!@@@***', '#nonsense']) {
      const r = await restoreScenario(await decodeFragment(hash), engine, { start });
      expect(r.ok, hash).toBe(false);
      expect(r.scenario, hash).toEqual(start);
      if (!r.ok) expect(r.message).toContain('Showing the default scenario instead');
    }
    // refused for its shape: the same start
    expect((await restoreScenario(await linkTo({ ...defaultScenario, colour: 'red' }), engine, { start })).scenario).toEqual(start);
    // the last valid scenario still comes first
    const last = { ...defaultScenario, name: 'mine' };
    expect(await restoreScenario(await decodeFragment('#v1=@@@'), engine, { lastValid: last, start })).toMatchObject({ ok: false, scenario: last });
  });

  test('a future version link falls back with its message', async () => {
    const r = await restoreScenario(await decodeFragment('#v7=AAAA'), engine);
    expect(r).toMatchObject({ ok: false, code: 'link.unknown_version', scenario: defaultScenario });
  });

  test('a link whose JSON is not an object is rejected by the engine', async () => {
    for (const value of [null, 42, 'gpt3', [1, 2], {}]) {
      const r = await restoreScenario(await linkTo(value), engine);
      expect(r.ok, JSON.stringify(value)).toBe(false);
      if (!r.ok) expect(r.scenario).toEqual(defaultScenario);
    }
  });

  test('never throws, even when the engine does', async () => {
    const broken = {
      validate: () => Promise.reject(new Error('boom')),
      preset: () => Promise.reject(new Error('boom')),
    } as unknown as Engine;
    const r = await restoreScenario(await linkTo(defaultScenario), broken);
    expect(r.ok).toBe(false);
    const none = await restoreScenario(await decodeFragment(''), broken);
    expect(none).toMatchObject({ ok: false, scenario: null });
  });

  test('property: any fragment text gives a scenario the engine accepts, its own scenario refused at a field, or a message and the fallback', async () => {
    const good = (await encodeFragment(defaultScenario)).slice(4);
    const mutated = fc
      .tuple(fc.nat(good.length - 1), fc.string({ minLength: 0, maxLength: 3 }), fc.nat(good.length))
      .map(([at, text, cut]) => `#v1=${(good.slice(0, at) + text + good.slice(at + 1)).slice(0, cut)}`);
    // valid links to small edits of the default scenario, some of them invalid scenarios
    const edited = fc
      .record({ tp: fc.integer({ min: -1, max: 9 }), dp: fc.integer({ min: 0, max: 9 }), seq: fc.constantFrom(1, 2048, 8192, 1e9) })
      .map(({ tp, dp, seq }) => ({ ...defaultScenario, parallel: { ...defaultScenario.parallel, tp, dp }, training: { ...defaultScenario.training, seq_len: seq } }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), mutated, edited), async (input) => {
        const hash = typeof input === 'string' ? input : await encodeFragment(input);
        const r = await restoreScenario(await decodeFragment(hash), engine);
        if (r.ok) {
          expect((await engine.validate(r.scenario)).ok).toBe(true);
        } else if (r.source === 'link') {
          // the link's own scenario, refused at a field the form shows
          const checked = await engine.validate(r.scenario);
          expect(checked.ok).toBe(false);
          if (!checked.ok) expect(checked.error).toMatchObject({ code: r.code, path: r.path });
          expect(r.path).not.toBe('');
        } else {
          expect(r.message.length).toBeGreaterThan(10);
          expect(r.scenario).toEqual(defaultScenario);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('the banner’s words (probe 57)', () => {
  test('a link’s refusal is said in the page’s words: no engine codes, no list of every model', async () => {
    // parallel "auto" on 1e8 GPUs: the engine counts its layouts by code
    const auto = await restoreScenario(await linkTo({ ...defaultScenario, num_devices: 1e8, parallel: 'auto' }), engine);
    expect(auto).toMatchObject({ ok: false, code: 'parallel.auto_no_layout' });
    if (!auto.ok) {
      expect(auto.message).toMatch(/^The link's scenario is not valid: no layout divides this job over these GPUs/);
      expect(auto.message).not.toMatch(/parallel\.|training\.|\(at \//);
    }
    // an unknown model: the nearest ids and where the list is, not all of them
    const model = await restoreScenario(await linkTo({ ...defaultScenario, model: 'llama-99b' }), engine);
    expect(model).toMatchObject({ ok: false, code: 'preset.unknown_model' });
    if (!model.ok) {
      expect(model.message).toContain('there is no model called “llama-99b”: did you mean llama2-7b or llama3-8b?');
      expect(model.message).toContain('the Model list of the form');
      expect(model.message).not.toContain('deepseek');
      expect(model.message.length).toBeLessThan(260);
    }
  });
});

describe('the banner names the form’s fields (probe 57)', () => {
  test('keys said as the forms and the full editor label them, before those are drawn', async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...defaultScenario, num_devices: 64.5 }, 'GPUs = 64.5 must be a whole number.'],
      [
        { schema_version: 1, model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: 8, rl: { prompts_per_step: 128, placement: 'split', rollout_devices: 6, train_devices: 6 } },
        'Rollout GPUs + Training GPUs (split) = 6 + 6 is not GPUs = 8.',
      ],
    ];
    for (const [s, words] of cases) {
      const r = await restoreScenario(await linkTo(s), engine);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toBe(`The link's scenario is not valid: ${words} Shown as written, for you to correct below.`);
    }
  });
});

describe('a link’s refusal without JSON or a mixed vocabulary (probe 61)', () => {
  const refusal = async (s: unknown): Promise<string> => {
    const r = await restoreScenario(await linkTo(s), engine);
    expect(r.ok).toBe(false);
    return r.ok ? '' : r.message;
  };
  test('an RL mean response above the longest: the RL form’s fields by their labels', async () => {
    const rl = { schema_version: 1, model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: 8, rl: { prompts_per_step: 128, samples_per_prompt: 8, prompt_len: { mean: 256, max: 1024 }, response_len: { mean: 9000, max: 8192 } } };
    expect(await refusal(rl)).toBe("The link's scenario is not valid: Mean response (9,000 tokens) must be at most Longest response (8,192 tokens). Shown as written, for you to correct below.");
  });
  test('too many requests: the field’s name as the full editor and the status line say it', async () => {
    const serve = { schema_version: 1, model: 'llama3.1-8b', system: 'dgx-h100', num_devices: 1, inference: { prompt_len: 1000, output_len: 250, serving: { arrival: 'closed', concurrency: 32, num_requests: 1e9 } } };
    expect(await refusal(serve)).toMatch(/^The link's scenario is not valid: Number of requests = 1,000,000,000 is above what the engine accepts/);
  });
  test('an unknown key: every key it may have as the scenario writes it', async () => {
    const message = await refusal({ ...defaultScenario, foo: 1 });
    expect(message).toMatch(/^The link's scenario is not valid: the scenario has a key Optimus does not know, “foo” \(the keys it may have: [a-z_, ]*num_devices[a-z_, ]*\)\. Showing the default scenario instead\.$/);
  });
});
