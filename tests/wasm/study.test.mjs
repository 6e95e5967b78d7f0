// The paper's studies and the uArch engine through the WebAssembly module (studies(), study(),
// and a system given as technology node + budgets), as the web page calls them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const dir = process.env.OPTIMUS_WASM_DIR
  ? pathToFileURL(process.env.OPTIMUS_WASM_DIR.replace(/\/?$/, '/'))
  : new URL('../../build/wasm/wasm/', import.meta.url);

let engine;
before(async () => {
  const { default: createModule } = await import(new URL('optimus_wasm.js', dir).href);
  engine = await createModule({ wasmBinary: readFileSync(new URL('optimus_wasm.wasm', dir)) });
});

test('studies() lists the paper\'s five studies and the cost study', () => {
  const list = JSON.parse(engine.studies());
  assert.deepEqual(
    list.studies.map((s) => s.name),
    ['memory-recompute', 'gpu-generations', 'technology-nodes', 'matmul-boundedness', 'memory-technology',
     'cheapest-accelerator'],
  );
});

test('study(name) returns rows with every documented column', () => {
  for (const { name } of JSON.parse(engine.studies()).studies) {
    const t = JSON.parse(engine.study(name, ''));
    assert.equal(t.error, undefined, JSON.stringify(t.error));
    assert.equal(t.study, name);
    assert.ok(t.rows.length > 0);
    for (const row of t.rows) for (const c of t.columns) assert.ok(c in row, `${name}: ${c}`);
  }
});

test('study(name, job) runs the cheapest-accelerator study on a job of ones own, and a bad job is an in-band error', () => {
  const t = JSON.parse(engine.study('cheapest-accelerator', JSON.stringify({ model: 'llama3.1-8b', num_devices: 64, train_tokens: 1e12 })));
  assert.equal(t.error, undefined, JSON.stringify(t.error));
  assert.match(t.notes[0], /^Llama 3\.1 8B, 1T tokens/);
  for (const row of t.rows) assert.ok(Math.abs(row.gpu_hours - 64 * 24 * row.wall_days) < 1e-6 * row.gpu_hours);
  assert.equal(JSON.parse(engine.study('cheapest-accelerator', '{"num_devices": 0}')).error.path, '/num_devices');
});

test('study() on an unknown name is an in-band study.unknown error', () => {
  const r = JSON.parse(engine.study('no-such-study', ''));
  assert.equal(r.error.code, 'study.unknown');
  assert.equal(r.error.path, '');
});

test('a system given as technology node + budgets predicts', () => {
  const scenario = {
    model: 'gpt3-175b',
    system: { technology: '7nm', area_mm2: 826, power_W: 400 },
    num_devices: 64,
    parallel: { tp: 8, pp: 8 },
    training: { global_batch: 64, seq_len: 2048 },
  };
  const r = JSON.parse(engine.predict(JSON.stringify(scenario)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.ok(r.training.iteration_time_s > 0);
});
