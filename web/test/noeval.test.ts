// The first-load engine, which the page's own thread runs under the document's policy
// (src/boot.ts), is linked with Emscripten's -sDYNAMIC_EXECUTION=0 (wasm/CMakeLists.txt): its glue
// builds no function from text, it loads and answers where code generation from strings is
// disallowed, and its answers equal the full engine's.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import type { OptimusModule } from '../src/engine/protocol';
import { ROOT, readJson } from './wasm';
import { starter } from '../src/state/tasks';

const DIR = `${ROOT}build/wasm/wasm`;
const FIRST_JS = `${DIR}/optimus_wasm_first.js`;
const glue = readFileSync(FIRST_JS, 'utf8');
let first: OptimusModule;
let full: OptimusModule;

type Factory = (o: { wasmBinary: Uint8Array }) => Promise<OptimusModule>;
beforeAll(async () => {
  const { default: f } = (await import('optimus-wasm-first')) as { default: Factory };
  const { default: g } = (await import('optimus-wasm')) as { default: Factory };
  [first, full] = await Promise.all([f({ wasmBinary: readFileSync(`${DIR}/optimus_wasm_first.wasm`) }), g({ wasmBinary: readFileSync(`${DIR}/optimus_wasm.wasm`) })]);
});

test('the first engine builds no function from text; the full one does (it runs in the worker only)', () => {
  expect(glue).not.toMatch(/new Function|new_\(Function|\beval\(/);
  expect(readFileSync(`${DIR}/optimus_wasm.js`, 'utf8')).toMatch(/new Function/);
});

test('every first-load call answers as the full engine does', () => {
  const scenarios = [starter('train'), starter('serve'), starter('plan'), starter('rl'), readJson('presets/scenarios/default.json'), { schema_version: 1, model: 'nope' }];
  for (const s of scenarios) {
    const json = JSON.stringify(s);
    expect(first.predict(json)).toBe(full.predict(json));
    expect(first.validate(json)).toBe(full.validate(json));
  }
  expect(first.validate('{')).toBe(full.validate('{'));
  expect(first.preset('models', 'llama3-70b')).toBe(full.preset('models', 'llama3-70b'));
  expect(first.preset('models', 'no-such-model')).toBe(full.preset('models', 'no-such-model'));
  // A wrong argument count is refused, as the generated wrappers refuse it.
  expect(() => (first.predict as unknown as () => string)()).toThrow(/called with 0 arguments, expected 1/);
});

test('it loads and predicts where eval is refused (node --disallow-code-generation-from-strings)', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    const { default: f } = await import(${JSON.stringify(pathToFileURL(FIRST_JS).href)});
    const m = await f({ wasmBinary: readFileSync(${JSON.stringify(`${DIR}/optimus_wasm_first.wasm`)}) });
    let refused = false;
    try { new Function('return 1'); } catch { refused = true; }
    console.log(JSON.stringify({ refused, p: m.predict(${JSON.stringify(JSON.stringify(starter('train')))}) }));`;
  const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const r = JSON.parse(out) as { refused: boolean; p: string };
  expect(r.refused).toBe(true);
  expect(r.p).toBe(full.predict(JSON.stringify(starter('train'))));
});
