// Start from a task: the landing strip asks what the person wants to do (train, serve, plan a
// run, RL post-training, compare) and shows that task's short form (state/tasks.ts): model, GPUs and how many, the
// few numbers that matter, the layout "auto" by default. Every field writes through the scenario
// editor (editor.edit), so the full editor below stays in sync and the fields that follow others
// follow. Inputs carry data-quick (not data-path: that is the full editor's contract).
import type { PresetList } from '../engine/types';
import { getPointer } from '../state/pointer';
import { TASK_DEFS, TASKS, quickEdit, quickFields, quickPlaceholder, quickValue, starterName, type QuickField, type Scenario, type Task } from '../state/tasks';
import { h, uid } from '../base/dom';

export interface TaskPanelDeps {
  presets: () => PresetList;
  scenario: () => Scenario;
  /** Whether the layout is the task's starting one (the search's pick), which follows changes. */
  layoutFollows: () => boolean;
  /** Sets one field through the editor (it re-estimates). */
  /** `typed`: the finer key the person typed, when the edit writes a whole object (a length's mean or max). */
  edit: (path: string, value: unknown, typed?: string) => Promise<void>;
  /** What followed the last edit on the person's behalf, in plain words (state/coupling.ts notes). */
  followNotes: () => string[];
  /** The value in effect at a path (the editor's: a preset's, or the engine's default, which may follow the model). */
  effective?: (path: string) => unknown;
  /** Loads the task's starting scenario. */
  start: (task: Task) => void;
  /** The compare task's tools: pin the result, rank layouts, the GPU study. */
  pin: () => void;
  searchLayouts: () => void;
  compareGpus: () => void;
  /** Shows the full editor (scrolls to it). */
  openEditor: () => void;
  /** A field's text is not a number (nothing is estimated): the results no longer reflect the form. */
  invalid?: (path: string, message: string) => void;
}

export interface TaskPanel {
  /** The task buttons and the task's question. */
  el: HTMLElement;
  /** The task's short form and its extra actions (placed after the answer). */
  formEl: HTMLElement;
  /** The task shown. */
  task(): Task;
  /** Shows `task`'s form for the current scenario (without loading anything). */
  select(task: Task): void;
  /** Re-reads the scenario's values into the form (after every estimate). */
  refresh(): void;
  /** Marks the field an engine error points at (its JSON Pointer) with `words`; null clears it. */
  showError(path: string | null, words?: string): void;
  /** Says what followed the last change made on the person's behalf (app.ts: GPUs that follow a model). */
  showFollowNotes(): void;
  /** The first field whose text is not a number, with its message; null when none is. */
  invalid(): { path: string; message: string } | null;
}

const PLACEMENTS: Array<[string, string]> = [
  ['colocated', 'Colocated (shared)'],
  ['split', 'Split (two pools)'],
];

export function createTaskPanel(deps: TaskPanelDeps): TaskPanel {
  let task: Task = 'train';
  const buttons = TASKS.map((t) =>
    h(
      'button',
      { type: 'button', class: 'task-button', 'data-task': t, 'aria-pressed': 'false', onclick: () => deps.start(t) },
      h('strong', null, TASK_DEFS[t].title),
    ),
  );
  const question = h('p', { class: 'task-question' });
  const form = h('form', { class: 'task-form', 'aria-label': 'task form', novalidate: true, onsubmit: (e: Event) => e.preventDefault() });
  const extras = h('div', { class: 'task-extras' });
  const el = h(
    'section',
    { class: 'tasks', 'data-testid': 'tasks', 'aria-labelledby': 'tasks-h' },
    h('h2', { id: 'tasks-h' }, 'What do you want to do?'),
    h('div', { class: 'task-buttons', role: 'group', 'aria-label': 'tasks' }, ...buttons),
    question,
  );
  // What the last edit of this form made follow (a layout set to "auto", a length's other end),
  // beside the fields that caused it; the full editor shows it too, further down.
  const followNote = h('p', { class: 'follow-note', 'data-testid': 'task-follow-note', 'aria-live': 'polite', hidden: true });
  const formEl = h('div', { class: 'task-form-box', 'data-testid': 'task-form' }, form, followNote, extras);
  /** Sets one field through the editor, then says what followed it. */
  const showFollowNotes = (): void => {
    const notes = deps.followNotes();
    followNote.textContent = notes.join(' ');
    followNote.hidden = notes.length === 0;
  };
  const edit = async (path: string, value: unknown, typed?: string): Promise<void> => {
    await deps.edit(path, value, typed);
    showFollowNotes();
  };
  const CUSTOM_RUNTIME = '\u0000custom';
  const inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
  /** Each number field's input and error line, by its path. */
  const errs = new Map<string, [HTMLInputElement, HTMLElement]>();
  const layoutNote = h('span', { class: 'unit', 'data-testid': 'layout-note' });

  /** The fields of the task for this scenario (state/tasks.ts quickFields). */
  const fieldsOf = (t: Task): QuickField[] => quickFields(t, deps.scenario());

  function options(f: QuickField): Array<[string, string]> {
    if (f.kind === 'precision') return (f.choices ?? []).map((v): [string, string] => [v, v.toUpperCase()]);
    if (f.kind === 'placement') return PLACEMENTS;
    if (f.kind === 'runtime') {
      // The preset's name without its parenthesis ("SGLang", not "SGLang (RadixAttention, ...)"): the picker is narrow.
      const named = (id: string): string => (deps.presets().software?.find((p) => p.id === id)?.name ?? id).replace(/ \(.*$/, '');
      // The empty choice: the system preset's own software block, in words short enough for the
      // narrow picker.
      const opts: Array<[string, string]> = [['', 'System default'], ...(f.choices ?? []).map((id): [string, string] => [id, named(id)])];
      const cur = getPointer(deps.scenario(), f.path);
      if (typeof cur === 'string' && !opts.some(([v]) => v === cur)) opts.push([cur, named(cur)]);
      else if (cur !== undefined && typeof cur !== 'string') opts.push([CUSTOM_RUNTIME, 'Custom (see the full editor)']);
      return opts;
    }
    const list = deps.presets()[f.kind === 'model' ? 'models' : 'systems'] ?? [];
    const opts = list.map((p): [string, string] => [p.id, p.name ?? p.id]);
    const cur = getPointer(deps.scenario(), f.path);
    if (typeof cur !== 'string') opts.push(['', 'Custom (see the full editor)']);
    // The preset list lands after the first numbers (app.ts): until then, or for an id it lacks,
    // the scenario's own id, not a blank picker.
    else if (!opts.some(([v]) => v === cur)) opts.push([cur, starterName(cur) ?? cur]);
    return opts;
  }

  function control(f: QuickField): HTMLElement {
    const id = uid('q');
    let input: HTMLInputElement | HTMLSelectElement;
    if (f.kind === 'model' || f.kind === 'system' || f.kind === 'precision' || f.kind === 'placement' || f.kind === 'runtime') {
      input = h('select', { id, 'data-quick': f.path });
      input.addEventListener('change', () => {
        // A runtime's empty choice is the system's own software (the key removed).
        if (f.kind === 'runtime' && input.value !== CUSTOM_RUNTIME) void edit(f.path, input.value === '' ? undefined : input.value);
        else if (input.value !== '') void edit(f.path, input.value);
      });
    } else if (f.kind === 'auto') {
      input = h('input', { id, type: 'checkbox', 'data-quick': f.path });
      input.addEventListener('change', () => void edit(f.path, (input as HTMLInputElement).checked));
    } else {
      input = h('input', { id, type: 'text', inputmode: f.kind === 'int' ? 'numeric' : 'decimal', autocomplete: 'off', spellcheck: 'false', 'data-quick': f.path });
      const err = h('span', { class: 'error', role: 'alert', hidden: true });
      errs.set(f.path, [input, err]);
      input.addEventListener('change', () => {
        const raw = input.value.trim().replace(/_/g, '').replace(/,/g, '');
        const x = raw === '' ? undefined : Number(raw);
        const bad = x !== undefined && (!Number.isFinite(x) || (f.kind === 'int' && !Number.isInteger(x)));
        err.hidden = !bad;
        err.textContent = bad ? `"${input.value}" is not ${f.kind === 'int' ? 'a whole number' : 'a number'}.` : '';
        err.dataset.engine = 'false'; // the field's own error now, not an engine error's (showError)
        err.dataset.message = `${f.label}: ${err.textContent}`;
        input.setAttribute('aria-invalid', String(bad));
        if (bad) return deps.invalid?.(f.path, err.dataset.message);
        const e = quickEdit(deps.scenario(), f.path, x);
        void edit(e.path, e.value, f.path);
      });
      inputs.set(f.path, input);
      return h('div', { class: 'field' }, h('label', { for: id }, f.label), input, f.hint ? h('span', { class: 'unit' }, f.hint) : null, err);
    }
    inputs.set(f.path, input);
    if (f.kind === 'auto') return h('div', { class: 'field check wide' }, input, h('label', { for: id }, f.label), layoutNote);
    return h('div', { class: `field${f.kind === 'model' || f.kind === 'system' ? ' wide' : ''}` }, h('label', { for: id }, f.label), input);
  }

  /**
   * What a picker shows for an absent key: the value the editor says is in effect (the engine's
   * default, which for the served precision is the model checkpoint's), else the field's own.
   */
  function absentValue(f: QuickField): string | undefined {
    const v = deps.effective?.(f.path);
    return typeof v === 'string' ? v : f.absent;
  }

  let shownFields = '';
  function build(): void {
    const fields = fieldsOf(task);
    const key = `${task}:${fields.map((f) => f.path).join(',')}`;
    if (key === shownFields) return;
    shownFields = key;
    inputs.clear();
    errs.clear();
    form.replaceChildren(h('div', { class: 'grid' }, ...fields.map(control)));
    question.textContent = TASK_DEFS[task].question;
    extras.replaceChildren(
      ...(task === 'compare'
        ? [
            h('button', { type: 'button', onclick: () => deps.pin() }, 'Pin this result, then change the GPUs'),
            h('button', { type: 'button', onclick: () => deps.searchLayouts() }, 'Rank every layout'),
            h('button', { type: 'button', onclick: () => deps.compareGpus() }, 'Cheapest GPU for a whole run'),
          ]
        : task === 'rl'
          ? [h('button', { type: 'button', 'data-testid': 'rl-search', onclick: () => deps.searchLayouts() }, 'Find the fastest placement')]
          : []),
      h('button', { type: 'button', class: 'link', 'data-testid': 'open-editor', onclick: () => deps.openEditor() }, 'Every setting (full editor)'),
    );
  }

  function refresh(): void {
    build();
    const s = deps.scenario();
    const byPath = new Map(fieldsOf(task).map((f) => [f.path, f]));
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.task === task));
    for (const [path, input] of inputs) {
      if (input instanceof HTMLSelectElement) {
        const f = byPath.get(path)!;
        const opts = options(f);
        // values and labels: an id shown as itself until the preset list names it
        const want = opts.map(([v, l]) => `${v}\u0001${l}`).join('\u0000');
        if (input.dataset.options !== want) {
          input.replaceChildren(...opts.map(([v, l]) => h('option', { value: v }, l)));
          input.dataset.options = want;
        }
        const v = getPointer(s, path);
        input.value = typeof v === 'string' ? v : f.kind === 'runtime' ? (v === undefined ? '' : CUSTOM_RUNTIME) : (absentValue(f) ?? '');
      } else if (input.type === 'checkbox') {
        input.checked = s.parallel === 'auto';
        layoutNote.textContent = deps.layoutFollows() ? 'Now: the search’s pick for this scenario, searched again when the model or GPUs change.' : '';
      } else if (document.activeElement !== input) {
        // The scenario's value replaces text that was not a number: its error goes with it.
        const err = errs.get(path)?.[1];
        if (err && err.dataset.engine === 'false' && !err.hidden) {
          err.hidden = true;
          err.textContent = '';
          input.setAttribute('aria-invalid', 'false');
        }
        const v = quickValue(s, path);
        // Token counts of a whole run read as 15e12, not 15000000000000.
        input.value = typeof v === 'number' ? (Math.abs(v) >= 1e9 ? v.toExponential().replace('e+', 'e') : String(v)) : '';
        input.placeholder = quickPlaceholder(s, path) || (byPath.get(path)?.absent ?? '');
      }
    }
  }

  return {
    el,
    formEl,
    task: () => task,
    select(t: Task): void {
      task = t;
      followNote.hidden = true;
      refresh();
    },
    refresh,
    showFollowNotes,
    invalid() {
      for (const [path, [, err]] of errs) if (err.dataset.engine === 'false' && !err.hidden) return { path, message: err.dataset.message ?? '' };
      return null;
    },
    showError(path: string | null, words?: string): void {
      for (const [p, [input, err]] of errs) {
        // The field of the path, or of a key in it or above it (/rl/response_len for its max).
        const at = path !== null && (p === path || p.startsWith(`${path}/`) || path.startsWith(`${p}/`));
        if (!at && err.dataset.engine !== 'true') continue;
        err.dataset.engine = String(at);
        err.hidden = !at;
        err.textContent = at ? (words ?? '') : '';
        input.setAttribute('aria-invalid', String(at));
      }
    },
  };
}
