// Smoke test of the WebAssembly module as the web page loads it (ES module factory), run with
// `node --test tests/wasm/`. Build it first: cmake --preset wasm && cmake --build --preset wasm.
// OPTIMUS_WASM_DIR overrides where optimus_wasm.js / optimus_wasm.wasm are looked up.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const dir = process.env.OPTIMUS_WASM_DIR
  ? pathToFileURL(process.env.OPTIMUS_WASM_DIR.replace(/\/?$/, '/'))
  : new URL('../../build/wasm/wasm/', import.meta.url);

// A small dense model inline, on a preset system, asking for both training and inference.
const scenario = {
  schema_version: 1,
  model: { layers: 4, hidden: 1024, heads: 16, ffn_hidden: 4096, vocab: 32000 },
  system: 'dgx-a100-80gb',
  num_devices: 8,
  parallel: { tp: 2, pp: 1, dp: 4 },
  training: { global_batch: 32, seq_len: 1024, precision: 'bf16' },
  inference: { batch: 1, prompt_len: 128, output_len: 16, precision: 'fp16' },
};

let engine;
before(async () => {
  const { default: createModule } = await import(new URL('optimus_wasm.js', dir).href);
  engine = await createModule({ wasmBinary: readFileSync(new URL('optimus_wasm.wasm', dir)) });
});

const isPositive = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;

function assertError(result) {
  assert.equal(typeof result.error, 'object', JSON.stringify(result));
  assert.match(result.error.code, /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/);
  assert.equal(typeof result.error.path, 'string');
  assert.ok(result.error.message.length > 0);
}

test('presets("") lists every kind with ids', () => {
  const list = JSON.parse(engine.presets(''));
  for (const kind of ['models', 'devices', 'systems', 'scenarios']) {
    assert.ok(Array.isArray(list[kind]) && list[kind].length > 0, `no ${kind}`);
    for (const entry of list[kind]) assert.equal(typeof entry.id, 'string');
  }
});

test('predict() on a small inline scenario returns training, inference and memory', () => {
  const result = JSON.parse(engine.predict(JSON.stringify(scenario)));
  assert.equal(result.error, undefined, JSON.stringify(result.error));
  assert.ok(isPositive(result.training.iteration_time_s));
  assert.ok(isPositive(result.training.tokens_per_s));
  assert.ok(isPositive(result.inference.ttft_s));
  assert.ok(isPositive(result.inference.tpot_s));
  assert.ok(isPositive(result.memory.per_device_bytes.total));
  assert.equal(typeof result.memory.fits, 'boolean');
  assert.ok(Array.isArray(result.warnings));
});

test('predict() on malformed JSON returns an error object, and the module keeps working', () => {
  assertError(JSON.parse(engine.predict('{"model": "gpt3-175b",')));
  assert.equal(JSON.parse(engine.predict(JSON.stringify(scenario))).error, undefined);
});

test('preset() with an unknown id returns preset.unknown', () => {
  const result = JSON.parse(engine.preset('models', 'no-such-model'));
  assertError(result);
  assert.equal(result.error.code, 'preset.unknown');
});

test('schema() returns the JSON Schemas of the scenario and the prediction', () => {
  const s = JSON.parse(engine.schema());
  assert.equal(s.scenario.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.deepEqual(s.scenario.$defs.model.properties.position.enum, ['learned', 'rotary', 'none']);
  assert.equal(s.prediction.properties.warnings.type, 'array');
});
