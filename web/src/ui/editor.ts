// The scenario editor: preset pickers plus editable fields, each an <input>/<select> with
// data-path = its JSON Pointer into the scenario and a <label> (DOM contract). Editing a field of
// a preset model or system turns it into an inline copy of that preset (fetched with
// engine.preset) with the edit applied. Errors from the engine are shown next to the field whose
// path is the error's path or its longest prefix; others go to the general area.
import type { EngineError, PresetList } from '../engine/types';
import { clone, fieldForError, getPointer, setPointer } from '../state/pointer';
import { h, uid } from './dom';

type Kind = 'int' | 'number' | 'select' | 'check' | 'text';

interface FieldDef {
  path: string;
  label: string;
  kind: Kind;
  options?: () => Array<[value: string, label: string]>;
  /** Empty input removes the key (the engine's default applies). */
  optional?: boolean;
  placeholder?: string;
  /** Select values that are numbers in the scenario. */
  numeric?: boolean;
  title?: string;
  /** Two grid columns wide (preset pickers with long names). */
  wide?: boolean;
}

export type Scenario = Record<string, unknown>;

export interface EditorDeps {
  presets: () => PresetList;
  /** A preset object (cached by the caller), or null when the engine does not know it. */
  preset: (kind: 'models' | 'systems' | 'devices', id: string) => Promise<Record<string, unknown> | null>;
  /** Called after every user edit that produced a complete scenario. */
  onEdit: () => void;
  /** Called when a field's text is not a valid value (nothing is computed then). */
  onInvalid: (path: string, message: string) => void;
}

const CUSTOM = '__inline';
const TRAIN_PRECISIONS = ['fp32', 'tf32', 'fp16', 'bf16', 'fp8'];
const INFER_PRECISIONS = ['fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4'];

/** Documented defaults (shared/spec/scenario.md) shown when a key is absent. */
function parallelDefault(s: Scenario, key: string): unknown {
  const tp = getPointer(s, '/parallel/tp');
  switch (key) {
    case 'cp':
    case 'ep':
    case 'micro_batch':
    case 'interleave':
      return 1;
    case 'sequence_parallel':
      return typeof tp === 'number' && tp > 1;
    case 'recompute':
      return 'none';
    case 'zero_stage':
      return 0;
    default:
      return undefined;
  }
}

const opts = (xs: string[]): (() => Array<[string, string]>) => () => xs.map((x) => [x, x]);

export interface Editor {
  el: HTMLElement;
  load(s: Scenario): Promise<void>;
  scenario(): Scenario;
  showError(e: EngineError | null): void;
  /** Re-fills the inputs (after presets arrived). */
  refresh(): void;
}

export function createEditor(deps: EditorDeps): Editor {
  let scenario: Scenario = {};
  let modelPreset: Record<string, unknown> | null = null;
  let systemPreset: Record<string, unknown> | null = null;
  /** Workload blocks switched off, kept to switch them back on as they were. */
  const parked: Record<string, unknown> = {
    training: { global_batch: 512, seq_len: 4096, precision: 'bf16' },
    inference: { batch: 1, prompt_len: 1024, output_len: 256, precision: 'bf16' },
  };
  const inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
  const errorSlots = new Map<string, HTMLElement>();
  const defs = new Map<string, FieldDef>();

  const presetOptions = (kind: 'models' | 'systems' | 'devices', customLabel: string) => (): Array<[string, string]> => [
    ...(deps.presets()[kind] ?? []).map((p) => [p.id, p.name ? `${p.name}` : p.id] as [string, string]),
    [CUSTOM, customLabel],
  ];

  const general = h('div', { class: 'error general', 'data-testid': 'scenario-error', role: 'alert', hidden: true });

  function effective(path: string): unknown {
    const v = getPointer(scenario, path);
    if (v !== undefined) return v;
    if (path.startsWith('/model/') && typeof scenario.model === 'string') return getPointer(modelPreset, path.slice('/model'.length));
    if (path.startsWith('/system/') && typeof scenario.system === 'string') return getPointer(systemPreset, path.slice('/system'.length));
    if (path.startsWith('/parallel/')) return parallelDefault(scenario, path.slice('/parallel/'.length));
    if (path === '/model/kv_heads') return getPointer(scenario, '/model/heads');
    return undefined;
  }

  /** Makes the model (or system) inline before one of its fields is edited. */
  function inlineFor(path: string): void {
    if (path.startsWith('/model/') && typeof scenario.model === 'string') {
      const base = clone(modelPreset ?? {});
      delete base.notes;
      base.name = `${String(base.name ?? scenario.model)} (edited)`;
      base.source = `edited copy of preset ${scenario.model}`;
      scenario.model = base;
    }
    if (path.startsWith('/system/') && typeof scenario.system === 'string') {
      const base = clone(systemPreset ?? {});
      base.name = `${String(base.name ?? scenario.system)} (edited)`;
      scenario.system = base;
    }
  }

  function fieldEl(def: FieldDef): HTMLElement {
    defs.set(def.path, def);
    const id = uid('f');
    let input: HTMLInputElement | HTMLSelectElement;
    if (def.kind === 'select') {
      input = h('select', { id, 'data-path': def.path });
    } else if (def.kind === 'check') {
      input = h('input', { id, type: 'checkbox', 'data-path': def.path });
    } else {
      input = h('input', {
        id,
        'data-path': def.path,
        // Numbers are text inputs with a numeric keyboard: they accept 1.5e13 and keep what was
        // typed while it is not a number yet, which a type=number input would blank.
        type: 'text',
        inputmode: def.kind === 'int' ? 'numeric' : def.kind === 'number' ? 'decimal' : undefined,
        placeholder: def.placeholder,
        autocomplete: 'off',
        spellcheck: 'false',
      });
    }
    if (def.title) input.title = def.title;
    inputs.set(def.path, input);
    const err = h('div', { class: 'error', 'data-error-for': def.path, role: 'alert', id: `${id}-err`, hidden: true });
    errorSlots.set(def.path, err);
    input.setAttribute('aria-describedby', `${id}-err`);
    input.addEventListener(def.kind === 'select' || def.kind === 'check' ? 'change' : 'input', () => onInput(def, input));
    const label = h('label', { for: id }, def.label);
    return h('div', { class: `field${def.kind === 'check' ? ' check' : ''}${def.wide ? ' wide' : ''}` }, def.kind === 'check' ? input : label, def.kind === 'check' ? label : input, err);
  }

  function parse(def: FieldDef, input: HTMLInputElement | HTMLSelectElement): { ok: true; value: unknown } | { ok: false; message: string } {
    if (def.kind === 'check') return { ok: true, value: (input as HTMLInputElement).checked };
    const raw = input.value.trim();
    if (def.kind === 'select') {
      if (raw === '' && def.optional) return { ok: true, value: undefined };
      return { ok: true, value: def.numeric ? Number(raw) : raw };
    }
    if (def.kind === 'text') return { ok: true, value: raw === '' && def.optional ? undefined : raw };
    if (raw === '') return def.optional ? { ok: true, value: undefined } : { ok: false, message: 'Enter a number.' };
    const x = Number(raw.replace(/_/g, ''));
    if (!Number.isFinite(x)) return { ok: false, message: `"${raw}" is not a number.` };
    if (def.kind === 'int' && !Number.isInteger(x)) return { ok: false, message: `"${raw}" is not a whole number.` };
    return { ok: true, value: x };
  }

  function setLocalError(path: string, message: string | null): void {
    const slot = errorSlots.get(path);
    const input = inputs.get(path);
    if (slot) {
      slot.textContent = message ?? '';
      slot.hidden = message === null;
    }
    input?.setAttribute('aria-invalid', message === null ? 'false' : 'true');
  }

  let localErrors = new Set<string>();

  function clearEngineErrors(): void {
    for (const p of errorSlots.keys()) if (!localErrors.has(p)) setLocalError(p, null);
    general.hidden = true;
    general.textContent = '';
  }

  function onInput(def: FieldDef, input: HTMLInputElement | HTMLSelectElement): void {
    const p = parse(def, input);
    if (!p.ok) {
      localErrors.add(def.path);
      clearEngineErrors();
      setLocalError(def.path, p.message);
      deps.onInvalid(def.path, p.message);
      return;
    }
    localErrors.delete(def.path);
    setLocalError(def.path, null);
    void apply(def.path, p.value).then(() => {
      if (localErrors.size === 0) deps.onEdit();
    });
  }

  /** Forgets unparsed text in the fields under a path whose values are being replaced. */
  function dropLocalErrors(prefix: string): void {
    for (const p of [...localErrors]) {
      if (p.startsWith(`${prefix}/`)) {
        localErrors.delete(p);
        setLocalError(p, null);
      }
    }
  }

  async function apply(path: string, value: unknown): Promise<void> {
    if (path === '/model' || path === '/system') dropLocalErrors(path);
    if (path === '/training' || path === '/inference') dropLocalErrors(path);
    if (path === '/model') {
      if (value === CUSTOM) {
        if (typeof scenario.model === 'string') inlineFor('/model/x');
      } else {
        scenario.model = value;
        modelPreset = await deps.preset('models', String(value));
      }
      refresh();
      return;
    }
    if (path === '/system') {
      if (value === CUSTOM) {
        if (typeof scenario.system === 'string') inlineFor('/system/x');
      } else {
        scenario.system = value;
        systemPreset = await deps.preset('systems', String(value));
      }
      refresh();
      return;
    }
    if (path === '/system/device') {
      inlineFor(path);
      if (value !== CUSTOM) setPointer(scenario, path, value);
      refresh();
      return;
    }
    if (path === '/training' || path === '/inference') {
      const key = path.slice(1);
      if (value === true && scenario[key] === undefined) scenario[key] = clone(parked[key]);
      if (value === false && scenario[key] !== undefined) {
        parked[key] = scenario[key];
        delete scenario[key];
      }
      refresh();
      return;
    }
    inlineFor(path);
    setPointer(scenario, path, value);
    if (path.startsWith('/model/') || path.startsWith('/system/')) refreshSelects();
    updateHints();
  }

  function setInput(path: string, input: HTMLInputElement | HTMLSelectElement): void {
    const def = defs.get(path)!;
    if (def.kind === 'select') {
      const select = input as HTMLSelectElement;
      const options = def.options ? def.options() : [];
      const want = options.map(([v]) => v).join('\u0000');
      if (select.dataset.options !== want) {
        select.replaceChildren(...options.map(([v, l]) => h('option', { value: v }, l)));
        select.dataset.options = want;
      }
    }
    if (document.activeElement === input && def.kind !== 'select' && def.kind !== 'check') return;
    if (localErrors.has(path)) return;
    let v: unknown;
    if (path === '/model') v = typeof scenario.model === 'string' ? scenario.model : CUSTOM;
    else if (path === '/system') v = typeof scenario.system === 'string' ? scenario.system : CUSTOM;
    else if (path === '/system/device') {
      const d = effective(path);
      v = typeof d === 'string' ? d : CUSTOM;
    } else if (path === '/training' || path === '/inference') v = scenario[path.slice(1)] !== undefined;
    else v = effective(path);
    if (def.kind === 'check') (input as HTMLInputElement).checked = v === true;
    else input.value = v === undefined || v === null ? '' : String(v);
  }

  function refreshSelects(): void {
    for (const p of ['/model', '/system', '/system/device']) setInput(p, inputs.get(p)!);
  }

  const hint = h('p', { class: 'hint', 'aria-live': 'polite' });
  const fixBtn = h('button', { type: 'button', class: 'small', hidden: true }, 'Set devices');
  fixBtn.addEventListener('click', () => {
    const prod = product();
    if (prod) {
      scenario.num_devices = prod;
      refresh();
      deps.onEdit();
    }
  });
  function product(): number | null {
    const g = (k: string): number => {
      const v = effective(`/parallel/${k}`);
      return typeof v === 'number' ? v : NaN;
    };
    const p = g('tp') * g('pp') * g('dp') * g('cp');
    return Number.isFinite(p) ? p : null;
  }
  function updateHints(): void {
    const p = product();
    const n = scenario.num_devices;
    if (p === null) {
      hint.textContent = '';
      fixBtn.hidden = true;
      return;
    }
    hint.textContent = `tp × pp × dp × cp = ${p}${typeof n === 'number' && n !== p ? ` ≠ ${n} devices` : ' devices'}`;
    hint.classList.toggle('warn', typeof n === 'number' && n !== p);
    fixBtn.hidden = !(typeof n === 'number' && n !== p);
    fixBtn.textContent = `Set devices to ${p}`;
  }

  function refresh(): void {
    for (const [path, input] of inputs) setInput(path, input);
    const hasT = scenario.training !== undefined;
    const hasI = scenario.inference !== undefined;
    trainingBox.classList.toggle('off', !hasT);
    inferenceBox.classList.toggle('off', !hasI);
    for (const [path, input] of inputs) {
      if (path.startsWith('/training/')) input.disabled = !hasT;
      if (path.startsWith('/inference/')) input.disabled = !hasI;
    }
    updateHints();
  }

  const group = (title: string, errPath: string | null, ...children: HTMLElement[]): HTMLFieldSetElement => {
    const fs = h('fieldset', null, h('legend', null, title), h('div', { class: 'grid' }, ...children));
    if (errPath) {
      const slot = h('div', { class: 'error', 'data-error-for': errPath, role: 'alert', hidden: true });
      errorSlots.set(errPath, slot);
      fs.append(slot);
    }
    return fs;
  };

  const F = (d: FieldDef): HTMLElement => fieldEl(d);

  const modelBox = group(
    'Model',
    null,
    F({ path: '/model', label: 'Model', kind: 'select', wide: true, options: presetOptions('models', 'Custom (inline model)') }),
    F({ path: '/model/layers', label: 'Layers', kind: 'int' }),
    F({ path: '/model/hidden', label: 'Hidden size', kind: 'int' }),
    F({ path: '/model/heads', label: 'Attention heads', kind: 'int' }),
    F({ path: '/model/kv_heads', label: 'KV heads', kind: 'int', optional: true, placeholder: '= heads', title: 'fewer than heads = GQA, 1 = MQA' }),
    F({ path: '/model/head_dim', label: 'Head dim', kind: 'int', optional: true, placeholder: 'hidden / heads' }),
    F({ path: '/model/ffn_hidden', label: 'FFN hidden', kind: 'int' }),
    F({ path: '/model/vocab', label: 'Vocabulary', kind: 'int' }),
    F({ path: '/model/ffn_type', label: 'FFN type', kind: 'select', options: opts(['gelu', 'swiglu', 'relu2']) }),
    F({ path: '/model/norm', label: 'Norm', kind: 'select', options: opts(['layernorm', 'rmsnorm']) }),
    F({ path: '/model/max_seq_len', label: 'Max sequence', kind: 'int', optional: true }),
    F({ path: '/model/tied_embeddings', label: 'Tied embeddings', kind: 'check' }),
  );
  modelBox.classList.add('model');

  const systemBox = group(
    'System',
    null,
    F({ path: '/system', label: 'System', kind: 'select', wide: true, options: presetOptions('systems', 'Custom (inline system)') }),
    F({ path: '/num_devices', label: 'Devices in the job', kind: 'int' }),
    F({ path: '/system/device', label: 'Device', kind: 'select', wide: true, options: presetOptions('devices', 'Custom (inline device)') }),
    F({ path: '/system/devices_per_node', label: 'Devices per node', kind: 'int' }),
    F({ path: '/system/scale_up/domain_size', label: 'NVLink domain', kind: 'int', title: 'devices sharing the scale-up (NVLink/NVSwitch) domain' }),
    F({ path: '/system/scale_up/bandwidth_GBps', label: 'Scale-up GB/s', kind: 'number', title: 'per device, per direction' }),
    F({ path: '/system/scale_out/bandwidth_GBps', label: 'Scale-out GB/s', kind: 'number', title: 'per device, per direction' }),
  );

  const parallelBox = group(
    'Parallel layout',
    '/parallel',
    F({ path: '/parallel/tp', label: 'Tensor (tp)', kind: 'int' }),
    F({ path: '/parallel/pp', label: 'Pipeline (pp)', kind: 'int' }),
    F({ path: '/parallel/dp', label: 'Data (dp)', kind: 'int' }),
    F({ path: '/parallel/cp', label: 'Context (cp)', kind: 'int', optional: true, placeholder: '1' }),
    F({ path: '/parallel/ep', label: 'Expert (ep)', kind: 'int', optional: true, placeholder: '1' }),
    F({ path: '/parallel/micro_batch', label: 'Micro-batch', kind: 'int', optional: true, placeholder: '1' }),
    F({ path: '/parallel/interleave', label: 'Interleave', kind: 'int', optional: true, placeholder: '1' }),
    F({ path: '/parallel/recompute', label: 'Recompute', kind: 'select', options: opts(['none', 'selective', 'full']) }),
    F({ path: '/parallel/zero_stage', label: 'ZeRO stage', kind: 'select', numeric: true, options: () => [['0', '0: replicated'], ['1', '1: optimizer'], ['2', '2: + gradients'], ['3', '3: + weights']] }),
    F({ path: '/parallel/sequence_parallel', label: 'Sequence parallel', kind: 'check' }),
  );
  parallelBox.append(h('div', { class: 'hint-row' }, hint, fixBtn));

  const trainingBox = group(
    'Training',
    null,
    F({ path: '/training', label: 'Estimate training', kind: 'check' }),
    F({ path: '/training/global_batch', label: 'Global batch (seq)', kind: 'int' }),
    F({ path: '/training/seq_len', label: 'Sequence length', kind: 'int' }),
    F({ path: '/training/precision', label: 'Precision', kind: 'select', options: opts(TRAIN_PRECISIONS) }),
    F({ path: '/training/train_tokens', label: 'Tokens to train', kind: 'number', optional: true, placeholder: 'e.g. 1e12' }),
  );
  const inferenceBox = group(
    'Inference',
    null,
    F({ path: '/inference', label: 'Estimate inference', kind: 'check' }),
    F({ path: '/inference/batch', label: 'Batch', kind: 'int' }),
    F({ path: '/inference/prompt_len', label: 'Prompt tokens', kind: 'int' }),
    F({ path: '/inference/output_len', label: 'Output tokens', kind: 'int' }),
    F({ path: '/inference/precision', label: 'Precision', kind: 'select', options: opts(INFER_PRECISIONS) }),
    F({ path: '/inference/kv_precision', label: 'KV precision', kind: 'select', optional: true, options: () => [['', 'same'], ...INFER_PRECISIONS.map((p) => [p, p] as [string, string])] }),
    F({ path: '/inference/cuda_graphs', label: 'CUDA graphs (no host launch bound)', kind: 'check' }),
  );

  const nameField = F({ path: '/name', label: 'Scenario name', kind: 'text', optional: true });
  const el = h('form', { class: 'editor', 'aria-label': 'scenario editor', novalidate: true, onsubmit: (e: Event) => e.preventDefault() }, nameField, general, modelBox, systemBox, parallelBox, trainingBox, inferenceBox);

  return {
    el,
    async load(s) {
      scenario = clone(s);
      localErrors = new Set();
      for (const p of errorSlots.keys()) setLocalError(p, null);
      [modelPreset, systemPreset] = await Promise.all([
        typeof scenario.model === 'string' ? deps.preset('models', scenario.model) : null,
        typeof scenario.system === 'string' ? deps.preset('systems', scenario.system) : null,
      ]);
      refresh();
    },
    scenario: () => scenario,
    refresh,
    showError(e) {
      clearEngineErrors();
      if (!e) return;
      const field = fieldForError(e.path, errorSlots.keys());
      if (field) setLocalError(field, e.message);
      else {
        general.hidden = false;
        general.textContent = e.message;
      }
    },
  };
}
