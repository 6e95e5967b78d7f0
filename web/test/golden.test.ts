// Golden scenarios: for every presets/scenarios/*.json the wasm engine's prediction equals the
// native golden file tests/golden/<name>.json exactly (same numbers to the last bit, as parsed by
// JSON.parse from the shortest round-trip text both sides print).
import { readdirSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import type { OptimusModule } from '../src/engine/protocol';
import { ROOT, loadModule, readJson } from './wasm';

let mod: OptimusModule;
beforeAll(async () => {
  mod = await loadModule();
});

const names = readdirSync(`${ROOT}presets/scenarios`)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();

test('there are golden scenarios to check', () => {
  expect(names.length).toBeGreaterThanOrEqual(4);
});

test.each(names)('wasm predict(%s) equals its native golden file (tests/golden/)', (name) => {
  const scenario = readJson(`presets/scenarios/${name}.json`);
  const got = JSON.parse(mod.predict(JSON.stringify(scenario)));
  expect(got.error).toBeUndefined();
  // A difference after a change to core/ usually means build/wasm is older than the golden
  // files: rebuild it (cmake --build --preset wasm; scripts/test does so first).
  expect(got, `${name}: wasm prediction differs from the native golden file`).toStrictEqual(readJson(`tests/golden/${name}.json`));
});
