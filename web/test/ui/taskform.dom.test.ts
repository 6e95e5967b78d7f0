// @vitest-environment happy-dom
// The task strip's short form (ui/taskform.ts): its pickers before and after the engine's preset
// list arrives, which the page asks for only after the first numbers (app.ts).
import { describe, expect, it } from 'vitest';
import type { PresetList } from '../../src/engine/types';
import type { Scenario } from '../../src/state/tasks';
import { createTaskPanel } from '../../src/ui/taskform';
import { createEditor } from '../../src/ui/editor';
import type { JsonSchema } from '../../src/engine/types';
import { loadModule } from '../wasm';

type PanelDeps = Parameters<typeof createTaskPanel>[0];
function panel(scenario: Scenario, presets: () => PresetList, notes: () => string[] = () => [], effective: (path: string) => unknown = () => undefined, task: 'train' | 'serve' = 'train', over: Partial<PanelDeps> = {}) {
  const p = createTaskPanel({
    presets,
    scenario: () => scenario,
    layoutFollows: () => false,
    edit: async () => undefined,
    followNotes: notes,
    effective,
    start: () => undefined,
    pin: () => undefined,
    searchLayouts: () => undefined,
    compareGpus: () => undefined,
    openEditor: () => undefined,
    ...over,
  });
  p.select(task);
  return p;
}

const picked = (root: HTMLElement, path: string): string => {
  const sel = root.querySelector(`[data-quick="${path}"]`) as HTMLSelectElement;
  return sel.selectedOptions[0]?.textContent ?? '';
};

describe('the short form pickers', () => {
  const scenario = { schema_version: 1, model: 'llama3-8b', system: 'dgx-h100', num_devices: 8, parallel: { tp: 1 }, training: { global_batch: 64, seq_len: 4096, precision: 'bf16' } } as unknown as Scenario;

  it("show a starter's preset names before the preset list arrives, another scenario's own ids, and the presets' names after", () => {
    let list: PresetList = {};
    const p = panel(scenario, () => list);
    expect(picked(p.formEl, '/model')).toBe('Llama 3 8B');
    expect(picked(p.formEl, '/system')).toBe('NVIDIA DGX H100');
    expect(picked(panel({ ...scenario, model: 'qwen3-235b-a22b' } as Scenario, () => ({})).formEl, '/model')).toBe('qwen3-235b-a22b');
    list = { models: [{ id: 'llama3-8b', name: 'Llama 3 8B' }], systems: [{ id: 'dgx-h100', name: 'NVIDIA DGX H100' }] } as unknown as PresetList;
    p.refresh();
    expect(picked(p.formEl, '/model')).toBe('Llama 3 8B');
    expect(picked(p.formEl, '/system')).toBe('NVIDIA DGX H100');
    expect((p.formEl.querySelector('[data-quick="/model"]') as HTMLSelectElement).options.length).toBe(1);
  });
});

describe('the short form says what followed an edit', () => {
  const scenario = { schema_version: 1, model: 'llama3-8b', system: 'dgx-h100', num_devices: 8, parallel: { tp: 8 }, training: { global_batch: 64, seq_len: 4096, precision: 'bf16' } } as unknown as Scenario;

  it('beside its own fields, and not after the next edit made nothing follow or another task was chosen', async () => {
    let notes = ['The layout was set to "auto" (the fastest layout that fits is searched): tp 8 does not divide 6 GPUs.'];
    const p = panel(scenario, () => ({}), () => notes);
    const note = p.formEl.querySelector<HTMLElement>('[data-testid="task-follow-note"]')!;
    expect(note.hidden).toBe(true);
    const gpus = p.formEl.querySelector<HTMLInputElement>('[data-quick="/num_devices"]')!;
    gpus.value = '6';
    gpus.dispatchEvent(new Event('change'));
    await new Promise((r) => setTimeout(r, 0));
    expect(note.hidden).toBe(false);
    expect(note.textContent).toBe(notes[0]);
    notes = [];
    gpus.value = '8';
    gpus.dispatchEvent(new Event('change'));
    await new Promise((r) => setTimeout(r, 0));
    expect(note.hidden).toBe(true);
    notes = ['x'];
    gpus.dispatchEvent(new Event('change'));
    await new Promise((r) => setTimeout(r, 0));
    expect(note.hidden).toBe(false);
    p.select('serve');
    expect(note.hidden).toBe(true);
  });
});

describe('the serve form’s precision picker with no precision in the scenario', () => {
  const scenario = { schema_version: 1, model: 'deepseek-r1', system: 'dgx-h200', num_devices: 8, parallel: 'auto', inference: { prompt_len: 1000, output_len: 250, serving: { arrival: 'closed', concurrency: 16 } } } as unknown as Scenario;
  /** The picker's value with the full editor (the app's wiring) holding `model` as the scenario's model preset. */
  const show = async (model: Record<string, unknown> | null): Promise<string> => {
    const schema = (JSON.parse((await loadModule()).schema!()) as { scenario: JsonSchema }).scenario;
    const editor = createEditor({ presets: () => ({}), preset: async () => model, schema: async () => schema, onEdit: () => undefined, onInvalid: () => undefined });
    await editor.load(JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>);
    return (panel(scenario, () => ({}), () => [], (path) => editor.effectiveValue(path), 'serve').formEl.querySelector('[data-quick="/inference/precision"]') as HTMLSelectElement).value;
  };
  it('shows what the engine serves: the checkpoint’s precision for a model published in FP8, else 16 bits', async () => {
    expect(await show({ name: 'DeepSeek-R1', layers: 2, hidden: 64, heads: 4, ffn_hidden: 256, vocab: 100, checkpoint_precision: 'fp8', checkpoint_block_scaled: true })).toBe('fp8');
    expect(await show({ name: 'Llama 3 70B', layers: 2, hidden: 64, heads: 4, ffn_hidden: 256, vocab: 100 })).toBe('fp16');
    expect(await show(null)).toBe('fp16');
  });
});

// The Serve form's runtime (probe finding: vLLM and SGLang were reachable only in the full editor).
describe('the serve form’s runtime picker', () => {
  const serve = (software?: unknown): Scenario =>
    ({ schema_version: 1, model: 'llama3-8b', system: 'dgx-h100', num_devices: 1, ...(software === undefined ? {} : { software }), inference: { prompt_len: 1000, output_len: 250, serving: { arrival: 'closed', concurrency: 16 } } }) as unknown as Scenario;
  const presets = (): PresetList => ({ software: [{ id: 'vllm', name: 'vLLM (PagedAttention)' }, { id: 'sglang', name: 'SGLang' }] }) as unknown as PresetList;
  const picker = (s: Scenario, edits: Array<[string, unknown]> = []): HTMLSelectElement =>
    panel(s, presets, undefined, undefined, 'serve', { edit: async (path, value) => void edits.push([path, value]) }).formEl.querySelector('[data-quick="/software"]') as HTMLSelectElement;
  it('offers the serving runtimes by name, shows the scenario’s, and the system’s own when absent', () => {
    const sel = picker(serve('sglang'));
    expect([...sel.options].map((o) => o.value)).toEqual(['', 'vllm', 'sglang', 'sglang-deepep', 'tensorrt-llm', 'tensorrt-llm-pytorch', 'gpt-fast', 'pytorch-eager']);
    expect(sel.selectedOptions[0]?.textContent).toBe('SGLang');
    expect(sel.options[1]?.textContent).toBe('vLLM'); // the preset's name without its parenthesis
    expect(picker(serve()).value).toBe('');
    // a training stack or an inline profile is shown, not replaced by a blank
    expect(picker(serve('nemo-2025')).value).toBe('nemo-2025');
    expect(picker(serve({ name: 'mine', software: {} })).selectedOptions[0]?.textContent).toBe('Custom (see the full editor)');
  });
  it('sets the runtime, and the empty choice removes the key', () => {
    const edits: Array<[string, unknown]> = [];
    const sel = picker(serve('vllm'), edits);
    sel.value = 'sglang';
    sel.dispatchEvent(new Event('change'));
    sel.value = '';
    sel.dispatchEvent(new Event('change'));
    expect(edits).toEqual([['/software', 'sglang'], ['/software', undefined]]);
  });
});

describe('a short-form field whose text is not a number', () => {
  const scenario = { schema_version: 1, model: 'llama3-8b', system: 'dgx-h100', num_devices: 8, parallel: { tp: 1 }, training: { global_batch: 64, seq_len: 4096, precision: 'bf16' } } as unknown as Scenario;

  it('tells the page (which marks the results out of date), stays the current error over an engine error, and goes when the scenario is shown again', async () => {
    // Typing "abc" in GPUs showed the field's error while the status stayed "Estimated" and the
    // numbers looked current; after an engine error at the field (price -1), "abc" left the status
    // on the engine's words.
    const told: Array<[string, string]> = [];
    const edits: string[] = [];
    const p = panel(scenario, () => ({}), undefined, undefined, 'train', {
      edit: async (path) => void edits.push(path),
      invalid: (path, message) => void told.push([path, message]),
    });
    document.body.append(p.formEl);
    const gpus = p.formEl.querySelector<HTMLInputElement>('[data-quick="/num_devices"]')!;
    const errorOf = (input: HTMLInputElement): HTMLElement => input.parentElement!.querySelector<HTMLElement>('.error')!;
    expect(p.invalid()).toBeNull();
    // an engine error at the field first, then text that is not a number
    p.showError('/num_devices', 'GPUs = -1 is below what the engine accepts');
    gpus.value = 'abc';
    gpus.dispatchEvent(new Event('change'));
    expect(told).toEqual([['/num_devices', 'GPUs: "abc" is not a whole number.']]);
    expect(edits).toEqual([]);
    expect(p.invalid()).toEqual({ path: '/num_devices', message: 'GPUs: "abc" is not a whole number.' });
    // the page clears the engine's errors: the field keeps its own
    p.showError(null);
    expect(errorOf(gpus).hidden).toBe(false);
    expect(errorOf(gpus).textContent).toBe('"abc" is not a whole number.');
    // a number again: estimated, no error left
    gpus.value = '16';
    gpus.dispatchEvent(new Event('change'));
    await new Promise((r) => setTimeout(r, 0));
    expect(edits).toEqual(['/num_devices']);
    expect(p.invalid()).toBeNull();
    // "abc" again, then a scenario shown (a load: the field shows its value): the error goes
    gpus.value = 'abc';
    gpus.dispatchEvent(new Event('change'));
    expect(p.invalid()).not.toBeNull();
    p.refresh();
    expect(gpus.value).toBe('8');
    expect(p.invalid()).toBeNull();
    expect(errorOf(gpus).hidden).toBe(true);
    p.formEl.remove();
  });
});
