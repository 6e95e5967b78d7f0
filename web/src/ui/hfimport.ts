// "Import a Hugging Face config.json": paste or pick a file; the mapping (hf/import.ts) becomes
// the scenario's inline model. The mapping is fetched on first use, not with the page's first load
// (docs/web.md, Weight).
import type { ModelSpec } from '../engine/types';
import { h, uid } from '../base/dom';

export function createHfImport(onModel: (m: ModelSpec) => void): HTMLElement {
  const taId = uid('hf');
  const fileId = uid('hf');
  const nameId = uid('hf');
  const name = h('input', { id: nameId, type: 'text', placeholder: 'e.g. Mistral 7B (default: from the config)', autocomplete: 'off' });
  const ta = h('textarea', { id: taId, rows: '6', spellcheck: 'false', placeholder: '{ "model_type": "llama", "hidden_size": 4096, ... }', 'data-testid': 'hf-config' });
  const file = h('input', { id: fileId, type: 'file', accept: '.json,application/json' });
  const msg = h('div', { class: 'error', role: 'alert', 'data-testid': 'hf-error', hidden: true });
  const ok = h('div', { class: 'note', 'aria-live': 'polite', 'data-testid': 'hf-notes', hidden: true });
  const btn = h('button', { type: 'button', 'data-testid': 'hf-import' }, 'Use as model');

  const run = async (text: string): Promise<void> => {
    const { importHfConfig } = await import('../hf/import');
    const r = importHfConfig(text, name.value.trim() || undefined);
    msg.hidden = r.ok;
    ok.hidden = !r.ok;
    if (!r.ok) {
      msg.textContent = r.message;
      return;
    }
    ok.replaceChildren(h('strong', null, `Imported ${r.model.name}.`), ...r.notes.map((n) => h('div', null, n)));
    onModel(r.model);
  };
  btn.addEventListener('click', () => void run(ta.value));
  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (!f) return;
    void f.text().then((t) => {
      ta.value = t;
      return run(t);
    });
  });

  return h(
    'details',
    { class: 'card hf' },
    h('summary', null, 'Import a Hugging Face config.json'),
    h('div', { class: 'field' }, h('label', { for: taId }, 'Paste config.json'), ta),
    h('div', { class: 'field' }, h('label', { for: fileId }, 'or choose the file'), file),
    h('div', { class: 'field' }, h('label', { for: nameId }, 'Model name (optional)'), name),
    h('div', { class: 'buttons' }, btn),
    msg,
    ok,
  );
}
