// @vitest-environment happy-dom
// The Studies view (src/ui/studies.ts) in a DOM with the engine's own study and presets: its
// pickers, axis, ticks and table say columns and models in words (probe 57: "↑ total_bytes (GiB)",
// options weights_bytes..., ticks megatron-22b), and its chart draws the capacity line its
// description names ("against the 80 GB line").
import { expect, it } from 'vitest';
import type { Engine } from '../../src/engine/client';
import { createStudiesView, studyDescription, studyNumber } from '../../src/ui/studies';
import { studyJobOf } from '../../src/state/study-job';
import { loadModule } from '../wasm';

it('the memory study in words: pickers, axis, model names in ticks and table, the 80 GiB line', async () => {
  const mod = await loadModule();
  const engine = {
    studies: async () => JSON.parse(mod.studies!()),
    study: async (name: string) => ({ ok: true, value: JSON.parse(mod.study!(name, '')) }),
    presets: async () => JSON.parse(mod.presets('')),
  } as unknown as Engine;
  const view = createStudiesView(engine, () => {}, () => {}, () => ({ ok: false, reason: 'none' }));
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

it('the cheapest accelerator on the scenario’s own job: the job picked, its words, money, days, energy and MFU in units', async () => {
  const mod = await loadModule();
  const asked: string[] = [];
  const engine = {
    studies: async () => JSON.parse(mod.studies!()),
    study: async (name: string, job?: Record<string, unknown>) => {
      asked.push(job ? JSON.stringify(job) : '');
      return { ok: true, value: JSON.parse(mod.study!(name, job ? JSON.stringify(job) : '')) };
    },
    presets: async () => JSON.parse(mod.presets('')),
  } as unknown as Engine;
  const scenario = { model: 'llama3.1-8b', system: 'dgx-h100', num_devices: 64, training: { global_batch: 512, seq_len: 8192, train_tokens: 1e12 } };
  const picked: Array<string | undefined> = [];
  const view = createStudiesView(engine, () => {}, (_n, job) => picked.push(job), () => studyJobOf(scenario, () => 'Llama 3.1 8B'));
  document.body.replaceChildren(view.el);
  await view.show('cheapest-accelerator', 'scenario');
  expect(asked).toEqual(['{"model":"llama3.1-8b","num_devices":64,"seq_len":8192,"global_batch":512,"train_tokens":1000000000000}']);
  const job = document.querySelector<HTMLSelectElement>('[data-testid="study-job"]')!;
  expect(job.value).toBe('scenario');
  expect(job.selectedOptions[0]!.text).toBe('Your scenario’s: Llama 3.1 8B on 64 GPUs, 1T tokens');
  expect(document.querySelector('.notes li')!.textContent).toMatch(/^Llama 3\.1 8B, 1T tokens, seq 8192/);
  const row = Array.from(document.querySelectorAll('[data-testid="study-table"] tbody tr:first-child td'), (td) => td.firstChild?.textContent ?? '');
  expect(row.some((c) => /^\$1\.30\/h$/.test(c))).toBe(true);
  expect(row.some((c) => /^\d+(\.\d+)? %$/.test(c))).toBe(true);
  expect(row.some((c) => /^\$\d/.test(c) && !c.endsWith('/h'))).toBe(true);
  expect(row.some((c) => /kWh|MWh|GWh/.test(c))).toBe(true);
  expect(row.some((c) => /^\d+(\.\d+)?×$/.test(c))).toBe(true);
  // Headers and the columns' help in words, no key of the engine's (probe 61: "cost_usd", "usd_per_gpu_hour").
  const heads = Array.from(document.querySelectorAll('[data-testid="study-table"] th'), (th) => th.textContent);
  expect(heads).toContain('time to train');
  const help = document.querySelector('.columns-help')!.textContent ?? '';
  expect(help).toContain('GPU-hours × price per GPU-hour');
  expect(`${heads.join(' ')} ${help}`).not.toMatch(/\b(label|cost_usd|usd_per_gpu_hour|gpu_hours|wall_days)\b/);
  // Back to the study's own job: asked with none, and the address told.
  job.value = '';
  job.dispatchEvent(new Event('change'));
  for (let i = 0; i < 50 && asked.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  expect(asked[1]).toBe('');
  expect(picked).toEqual([undefined]);
});

it('study numbers: shares as percents, prices per hour, money, days, energy', () => {
  expect(studyNumber(0.5009, '', 'mfu')).toBe('50.1 %');
  expect(studyNumber(1.3, 'USD', 'usd_per_gpu_hour')).toBe('$1.30/h');
  expect(studyNumber(16974891, 'USD', 'cost_usd')).toBe('$17 M');
  expect(studyNumber(64.93, 'days', 'wall_days')).toBe('64.9 days');
  expect(studyNumber(0.0403, 'MWh', 'energy_mwh')).toBe('40.3 kWh');
  expect(studyNumber(99740.2, 'h', 'gpu_hours')).toBe('99,700');
  // ratios to a baseline row as factors (probe 61: "2.744")
  expect(studyNumber(2.744101, '', 'relative_cost')).toBe('2.74×');
  expect(studyNumber(2.931, '', 'speedup')).toBe('2.93×');
  expect(studyNumber(0.3412, '', 'normalized')).toBe('0.341×');
  expect(studyNumber(2.19, '', 'perf_per_dollar')).toBe('2.19×');
  expect(studyNumber(5, '', 'dram_stacks')).toBe('5');
});

it('column descriptions name the study’s columns in words, not its keys', () => {
  const units = { gpu_hours: 'h', usd_per_gpu_hour: 'USD', node_nm: 'nm', cost_usd: 'USD' };
  expect(studyDescription('gpu_hours x usd_per_gpu_hour', units)).toBe('GPU-hours × price per GPU-hour');
  expect(studyDescription('what moves to node_nm: logic', units)).toBe('what moves to process node: logic');
  // a word with an underscore that is no column of the study stays
  expect(studyDescription('TrainingPrediction::by_bound', units)).toBe('TrainingPrediction::by_bound');
});
