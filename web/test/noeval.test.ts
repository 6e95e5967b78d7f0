// The first-load engine's glue without eval (wasm-noeval.ts), which the page's own thread runs
// under the document's policy (src/boot.ts): it loads and answers where code generation from
// strings is disallowed, and every answer equals the original glue's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { withoutEval } from '../wasm-noeval';
import type { OptimusModule } from '../src/engine/protocol';
import { ROOT, readJson } from './wasm';
import { starter } from '../src/state/tasks';

const DIR = `${ROOT}build/wasm/wasm`;
const glue = readFileSync(`${DIR}/optimus_wasm_first.js`, 'utf8');
const bytes = readFileSync(`${DIR}/optimus_wasm_first.wasm`);
const patchedFile = `${mkdtempSync(`${tmpdir()}/optimus-noeval-`)}/optimus_wasm_first.mjs`;
let original: OptimusModule;
let patched: OptimusModule;

type Factory = (o: { wasmBinary: Uint8Array }) => Promise<OptimusModule>;
beforeAll(async () => {
  writeFileSync(patchedFile, withoutEval(glue));
  const { default: first } = (await import('optimus-wasm-first')) as { default: Factory };
  const { default: noEval } = (await import(pathToFileURL(patchedFile).href)) as { default: Factory };
  [original, patched] = await Promise.all([first({ wasmBinary: bytes }), noEval({ wasmBinary: bytes })]);
});

test('the patched glue builds no function from text, and says so when it cannot patch', () => {
  expect(glue).toMatch(/new Function/);
  const out = withoutEval(glue);
  expect(out).not.toMatch(/new Function|new_\(Function/);
  expect(() => withoutEval('var x = 1;')).toThrow(/createNamedFunction was found 0 times/);
  expect(() => withoutEval(glue + glue)).toThrow(/found 2 times/);
});

test('every first-load call answers the same through the patched glue', () => {
  const scenarios = [starter('train'), starter('serve'), starter('plan'), starter('rl'), readJson('presets/scenarios/default.json'), { schema_version: 1, model: 'nope' }];
  for (const s of scenarios) {
    const json = JSON.stringify(s);
    expect(patched.predict(json)).toBe(original.predict(json));
    expect(patched.validate(json)).toBe(original.validate(json));
  }
  expect(patched.validate('{')).toBe(original.validate('{'));
  expect(patched.presets('')).toBe(original.presets(''));
  expect(patched.preset('models', 'llama3-70b')).toBe(original.preset('models', 'llama3-70b'));
  expect(patched.preset('models', 'no-such-model')).toBe(original.preset('models', 'no-such-model'));
  // Wrong argument counts are refused as the generated invoker refuses them.
  expect(() => (patched.predict as unknown as () => string)()).toThrow(/called with 0 arguments, expected 1/);
});

test('it loads and predicts where eval is refused (node --disallow-code-generation-from-strings)', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    const { default: f } = await import(${JSON.stringify(pathToFileURL(patchedFile).href)});
    const m = await f({ wasmBinary: readFileSync(${JSON.stringify(`${DIR}/optimus_wasm_first.wasm`)}) });
    let refused = false;
    try { new Function('return 1'); } catch { refused = true; }
    console.log(JSON.stringify({ refused, p: m.predict(${JSON.stringify(JSON.stringify(starter('train')))}) }));`;
  const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const r = JSON.parse(out) as { refused: boolean; p: string };
  expect(r.refused).toBe(true);
  expect(r.p).toBe(original.predict(JSON.stringify(starter('train'))));
});
