// The engine's JSON Schemas (core/io/schema.h, taken from the wasm module itself) checked with a
// real validator (Ajv, draft 2020-12): every preset scenario and preset model, device and system
// is valid input, every golden prediction and every live predict/validate answer is valid output,
// and invalid scenarios the engine rejects are rejected by the schema too.
import { readdirSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, test } from 'vitest';
import type { OptimusModule } from '../src/engine/protocol';
import { ROOT, loadModule, readJson } from './wasm';

let mod: OptimusModule;
let scenario: ValidateFunction;
let prediction: ValidateFunction;
let ajv: Ajv2020;

beforeAll(async () => {
  mod = await loadModule();
  const schemas = JSON.parse(mod.schema!()) as { scenario: Record<string, unknown>; prediction: Record<string, unknown> };
  // Strict: an unknown keyword is an error, so the engine's annotations are declared here. Only
  // strictRequired is off: "at least one of training and inference" is an anyOf of `required`
  // whose keys are defined beside it, not inside it.
  ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  ajv.addKeyword({ keyword: 'x-unit', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-default-by-norm', schemaType: 'object' });
  scenario = ajv.compile(schemas.scenario);
  prediction = ajv.compile(schemas.prediction);
});

const files = (dir: string): string[] =>
  readdirSync(`${ROOT}${dir}`)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .sort();
const scenarios = files('presets/scenarios');
const goldens = files('tests/golden');

/** The validator's verdict with its errors, so that a failure says what and where. */
function check(validate: ValidateFunction, doc: unknown): { valid: boolean; errors: string[] } {
  const valid = validate(doc) as boolean;
  return { valid, errors: (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`) };
}

test('there are scenarios and golden predictions to check', () => {
  expect(scenarios.length).toBeGreaterThanOrEqual(4);
  expect(goldens.length).toBeGreaterThanOrEqual(4);
});

describe('valid documents', () => {
  test.each(scenarios)('preset scenario %s is valid input', (name) => {
    expect(check(scenario, readJson(`presets/scenarios/${name}.json`))).toEqual({ valid: true, errors: [] });
  });

  test.each(scenarios)("the engine's resolved scenario (validate) of %s is valid input", (name) => {
    const out = JSON.parse(mod.validate(JSON.stringify(readJson(`presets/scenarios/${name}.json`))));
    expect(out.ok).toBe(true);
    expect(check(scenario, out.scenario)).toEqual({ valid: true, errors: [] });
  });

  test.each(goldens)('golden prediction %s is valid output', (name) => {
    expect(check(prediction, readJson(`tests/golden/${name}.json`))).toEqual({ valid: true, errors: [] });
  });

  test.each(scenarios)('the live prediction of %s is valid output', (name) => {
    const out = JSON.parse(mod.predict(JSON.stringify(readJson(`presets/scenarios/${name}.json`))));
    expect(check(prediction, out)).toEqual({ valid: true, errors: [] });
  });

  test.each([
    ['models', 'model'],
    ['devices', 'device'],
    ['systems', 'system'],
    ['economics', 'economics'],
  ])('every %s preset is a valid inline %s', (kind, def) => {
    const validate = ajv.getSchema(`urn:optimus:scenario#/$defs/${def}`)!;
    for (const id of files(`presets/${kind}`)) {
      expect({ id, ...check(validate, readJson(`presets/${kind}/${id}.json`)) }).toEqual({ id, valid: true, errors: [] });
    }
  });

  test('a system derived from a technology node is valid input', () => {
    const doc = { ...(readJson('presets/scenarios/default.json') as object), system: { technology: '7nm', area_mm2: 826, power_W: 400 } };
    expect(check(scenario, doc)).toEqual({ valid: true, errors: [] });
    expect(JSON.parse(mod.validate(JSON.stringify(doc))).ok).toBe(true);
  });
});

describe('invalid scenarios: rejected by the engine and by the schema', () => {
  const base = readJson('presets/scenarios/default.json') as Record<string, any>;
  const edit = (f: (s: Record<string, any>) => void): Record<string, any> => {
    const s = structuredClone(base);
    f(s);
    return s;
  };
  const cases: Array<[string, () => Record<string, any>, string, string, string]> = [
    ['an unknown key', () => edit((s) => (s.parallel.tpp = 8)), 'scenario.unknown_key', '/parallel/tpp', 'additionalProperties'],
    ['a value outside an enum', () => edit((s) => (s.training.precision = 'fp64')), 'scenario.invalid_value', '/training/precision', 'enum'],
    ['an out-of-range number', () => edit((s) => (s.parallel.zero_stage = 4)), 'scenario.out_of_range', '/parallel/zero_stage', 'maximum'],
    ['zero devices', () => edit((s) => (s.num_devices = 0)), 'scenario.out_of_range', '/num_devices', 'minimum'],
    ['a fraction of a layer', () => edit((s) => (s.model = { ...JSON.parse(mod.preset('models', 'llama3-70b')), layers: 79.5 })), 'scenario.not_integer', '/model/layers', 'type'],
    ['a wrong all_to_all', () => edit((s) => (s.system = { ...JSON.parse(mod.preset('systems', 'dgx-h100')), scale_up: { bandwidth_GBps: 450, latency_us: 2, domain_size: 8, all_to_all: 'mesh' } })), 'scenario.invalid_value', '/system/scale_up/all_to_all', 'enum'],
    ['a mixture-of-experts model without its expert width', () => edit((s) => (s.model = { ...JSON.parse(mod.preset('models', 'llama3-70b')), moe: { experts: 8, top_k: 2 } })), 'scenario.missing_key', '/model/moe/expert_ffn_hidden', 'required'],
    ['no workload', () => edit((s) => { delete s.training; delete s.inference; }), 'scenario.no_workload', '', 'required'],
  ];

  test.each(cases)('%s', (_what, make, code, path, keyword) => {
    const doc = make();
    const engine = JSON.parse(mod.validate(JSON.stringify(doc)));
    expect(engine.error).toMatchObject({ code, path });
    expect(scenario(doc)).toBe(false);
    expect(scenario.errors!.map((e) => e.keyword)).toContain(keyword);
  });
});
