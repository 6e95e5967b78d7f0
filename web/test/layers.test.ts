// The page's layers (docs/web.md "How it is built"): charts/ draws from specs and the shared
// base/ (formatting, the element builder) and never reaches into ui/; base/ imports nothing of
// the page.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { ROOT } from './wasm';

const importsOf = (dir: string): Array<[file: string, from: string]> =>
  readdirSync(`${ROOT}web/src/${dir}`)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [...readFileSync(`${ROOT}web/src/${dir}/${f}`, 'utf8').matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m): [string, string] => [`${dir}/${f}`, m[1]!]));

test('charts/ does not import ui/', () => {
  const charts = importsOf('charts');
  expect(charts.length).toBeGreaterThan(0);
  expect(charts.filter(([, from]) => from.includes('/ui/') || from.startsWith('../ui'))).toEqual([]);
});

test('base/ imports nothing of the page', () => {
  expect(importsOf('base').filter(([, from]) => from.startsWith('.'))).toEqual([]);
});
