// The page's two engines (wasm/CMakeLists.txt, docs/web.md "Weight"): the first-load module
// (optimus_wasm_first: predict, validate, presets, search) and the full one (optimus_wasm) answer
// every call they share with the same JSON text, and their predictions of every preset scenario
// equal the native CLI's golden files (tests/golden/, written by the native build) number for
// number. Run with `node --test tests/wasm/` after building both targets of the wasm preset.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const dir = process.env.OPTIMUS_WASM_DIR
  ? pathToFileURL(process.env.OPTIMUS_WASM_DIR.replace(/\/?$/, '/'))
  : new URL('../../build/wasm/wasm/', import.meta.url);
const root = new URL('../../', import.meta.url);
const readJson = (path) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

async function load(name) {
  const { default: createModule } = await import(new URL(`${name}.js`, dir).href);
  return createModule({ wasmBinary: readFileSync(new URL(`${name}.wasm`, dir)) });
}

let first;
let full;
before(async () => {
  [first, full] = await Promise.all([load('optimus_wasm_first'), load('optimus_wasm')]);
});

const scenarios = readdirSync(new URL('presets/scenarios/', root))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();

test('there are preset scenarios with native golden files', () => {
  assert.ok(scenarios.length >= 4, scenarios.join(', '));
});

for (const name of scenarios) {
  test(`predict(${name}): the first-load engine, the full engine and the native golden file agree`, () => {
    const json = JSON.stringify(readJson(`presets/scenarios/${name}.json`));
    const a = first.predict(json);
    assert.equal(a, full.predict(json), 'the two wasm modules print the same text');
    const got = JSON.parse(a);
    assert.equal(got.error, undefined, a.slice(0, 300));
    assert.deepStrictEqual(got, readJson(`tests/golden/${name}.json`));
  });
}

test('validate, presets, preset and search print the same text in both modules', () => {
  const scenario = JSON.stringify(readJson('presets/scenarios/default.json'));
  assert.equal(first.validate(scenario), full.validate(scenario));
  assert.equal(first.presets(''), full.presets(''));
  for (const kind of ['models', 'systems', 'software']) {
    for (const { id } of JSON.parse(full.presets(kind))[kind]) assert.equal(first.preset(kind, id), full.preset(kind, id), `${kind}/${id}`);
  }
  const options = JSON.stringify({ top: 3 });
  const found = first.search(scenario, options);
  assert.equal(JSON.parse(found).error, undefined, found.slice(0, 300));
  // Everything but the clock: the seconds the search took and its rate.
  const untimed = (text) => text.replace(/"(elapsed_s|layouts_per_s)":[^,}]*/g, '');
  assert.equal(untimed(found), untimed(full.search(scenario, options)));
});

test('errors are the same in both modules', () => {
  for (const bad of ['{', '{"schema_version": 1}', JSON.stringify({ ...readJson('presets/scenarios/default.json'), num_devices: -3 })]) {
    const a = first.predict(bad);
    assert.ok(JSON.parse(a).error, a);
    assert.equal(a, full.predict(bad));
  }
});

test('the first-load module leaves out the calls the page makes after its first result', () => {
  for (const call of ['schema', 'studies', 'study', 'calibrate', 'import_measurements']) {
    assert.equal(typeof first[call], 'undefined', call);
    assert.equal(typeof full[call], 'function', call);
  }
});
