// @vitest-environment happy-dom
// The Studies view (src/ui/studies.ts) in a DOM with the engine's own study and presets: its
// pickers, axis, ticks and table say columns and models in words (probe 57: "↑ total_bytes (GiB)",
// options weights_bytes..., ticks megatron-22b), and its chart draws the capacity line its
// description names ("against the 80 GB line").
import { expect, it } from 'vitest';
import type { Engine } from '../../src/engine/client';
import { createStudiesView } from '../../src/ui/studies';
import { loadModule } from '../wasm';

it('the memory study in words: pickers, axis, model names in ticks and table, the 80 GiB line', async () => {
  const mod = await loadModule();
  const engine = {
    studies: async () => JSON.parse(mod.studies!()),
    study: async (name: string) => ({ ok: true, value: JSON.parse(mod.study!(name)) }),
    presets: async () => JSON.parse(mod.presets('')),
  } as unknown as Engine;
  const view = createStudiesView(engine, () => {}, () => {});
  document.body.replaceChildren(view.el);
  await view.show('memory-recompute');
  const y = document.querySelector<HTMLSelectElement>('[data-testid="study-y"]')!;
  expect(y.value).toBe('total_bytes');
  expect(Array.from(y.options, (o) => o.text)).toEqual(['weights', 'gradients', 'optimizer state', 'activations', 'memory per GPU', 'GPU memory']);
  expect(y.options[0]!.title).toBe('weights_bytes');
  const cells = Array.from(document.querySelectorAll('[data-testid="study-table"] tbody tr:first-child td'), (td) => td.textContent);
  expect(cells[0]).toBe('GPT 22B (Megatron)');
  expect(Array.from(document.querySelectorAll('[data-testid="study-table"] th'), (th) => th.textContent)).toContain('memory per GPU');
  // the chart loads its renderer, then draws
  for (let i = 0; i < 100 && !document.querySelector('[data-testid="study-chart"] svg'); i++) await new Promise((r) => setTimeout(r, 20));
  const text = document.querySelector('[data-testid="study-chart"] svg')?.textContent ?? '';
  expect(text).toContain('↑ memory per GPU (GiB)');
  expect(text).toContain('capacity 80 GiB');
  expect(text).toContain('GPT-3 175B');
  expect(text).not.toMatch(/total_bytes|megatron-22b|gpt3-175b/);
});
