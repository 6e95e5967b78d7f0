// The studies view: the paper's studies as the engine reproduces them (engine.studies() /
// engine.study(name)), drawn as a chart of the rows and listed as a table.
import type { Engine } from '../engine/client';
import type { StudyResult } from '../engine/types';
import { studyAxes, studyBand, studyColumnWords, studyDefaults, studySpec } from '../charts/specs';
import { chartCard } from './chartcard';
import { h, uid } from '../base/dom';
import { formatBytes, formatMwh, formatPercent, formatSeconds, formatValue, sig } from '../base/format';
import { JOB_STUDY, type StudyJob } from '../state/study-job';

export interface StudiesView {
  el: HTMLElement;
  /** Loads the list once, then shows the named study (the first one when absent or unknown); `job` 'scenario': on the scenario's own job. */
  show(name: string | undefined, job?: 'scenario'): Promise<void>;
}

/** A study cell's number in its column's unit and kind: shares as percents, money in dollars, days, energy, hours. */
export function studyNumber(v: number, unit: string, column: string): string {
  if (column === 'mfu' || unit === 'ratio') return formatPercent(v);
  if (column === 'usd_per_gpu_hour') return `$${v.toFixed(2)}/h`;
  // A ratio to a baseline row: "2.74×", not 2.744.
  if (!unit && /^(speedup|normalized|relative_|perf_per)/.test(column)) return formatValue(v, 'factor');
  if (unit === 'USD') return formatValue(v, 'usd');
  if (unit === 'days') return formatValue(v, 'days');
  if (unit === 'MWh') return formatMwh(v);
  if (unit === 'h') return formatValue(v, 'count');
  if (unit === 'bytes') return formatBytes(v);
  if (unit === 's') return formatSeconds(v);
  return unit ? `${sig(v, 4)} ${unit}` : sig(v, 4);
}

/**
 * A column's description with the study's own columns in words and "x" as "×": "gpu_hours x
 * usd_per_gpu_hour" -> "GPU-hours × price per GPU-hour" (probe 61: the engine's keys on the page).
 */
export function studyDescription(text: string, units: Record<string, string>): string {
  return text.replace(/\b[a-z]\w*_\w+\b/gi, (k) => (k in units ? studyColumnWords(k, units[k]) : k)).replace(/ x /g, ' × ');
}

/**
 * `onPick` is told the study the reader chose in the picker (main.ts writes ?study=NAME into the
 * address, beside the scenario's #v1= fragment, so a study is a link of its own), and whether it
 * runs on the scenario's job (&job=scenario); `scenarioJob` is that job (state/study-job.ts).
 */
export function createStudiesView(engine: Engine, notify: (msg: string) => void, onPick: (name: string, job?: 'scenario') => void, scenarioJob: () => StudyJob): StudiesView {
  const id = uid('study');
  const select = h('select', { id, 'data-testid': 'study-select' });
  // Whose job the cheapest-accelerator study prices: its own, or the scenario's.
  const jobId = uid('job');
  const jobSel = h('select', { id: jobId, 'data-testid': 'study-job' });
  const jobField = h('div', { class: 'field', hidden: true }, h('label', { for: jobId }, 'Job'), jobSel);
  const jobNote = h('p', { class: 'muted', 'data-testid': 'study-job-note', hidden: true });
  const description = h('p', { class: 'muted', 'aria-live': 'polite' });
  const notes = h('ul', { class: 'notes' });
  const table = h('table', { 'data-testid': 'study-table', class: 'data' });
  const error = h('div', { class: 'error', role: 'alert', hidden: true });
  const chart = chartCard('study-chart', 'Study', () => `study-${select.value || 'none'}`, notify);
  const axis = (label: string, testid: string): { el: HTMLElement; select: HTMLSelectElement } => {
    const aid = uid('axis');
    const sel = h('select', { id: aid, 'data-testid': testid });
    return { el: h('div', { class: 'field' }, h('label', { for: aid }, label), sel), select: sel };
  };
  const xSel = axis('Chart x', 'study-x');
  const ySel = axis('Chart y', 'study-y');
  const colorSel = axis('Colour by', 'study-color');
  let shown: StudyResult | null = null;
  // The model and system presets' names, so that the chart says "Megatron 22B", not its id.
  const presetNames = new Map<string, string>();
  const named = (v: string): string | undefined => presetNames.get(v);
  const redraw = (): void => {
    if (shown) chart.set(studySpec(shown, { x: xSel.select.value, y: ySel.select.value, color: colorSel.select.value }, named), 'Nothing to draw for these columns.');
  };
  for (const a of [xSel, ySel, colorSel]) a.select.addEventListener('change', redraw);
  /** A picker of columns: each said in words (its key in the option's title), the key its value. */
  const fill = (sel: HTMLSelectElement, values: string[], chosen: string, units: Record<string, string>, none?: string): void => {
    sel.replaceChildren(...(none !== undefined ? [h('option', { value: '' }, none)] : []), ...values.map((v) => h('option', { value: v, title: v }, studyColumnWords(v, units[v]))));
    sel.value = chosen;
  };
  const columnHelp = h('details', { class: 'columns-help', hidden: true });
  const tableWrap = h('div', { class: 'card table-wrap', hidden: true }, table, columnHelp, notes);

  /** A cell in its column's unit (the study's "units" map: "s", "bytes", ...). */
  const cell = (v: unknown, unit: string, column = ''): string => {
    if (typeof v === 'number') return studyNumber(v, unit, column);
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (v === null || v === undefined) return '';
    if (typeof v === 'object') return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k} ${cell(x, unit)}`).join(', ');
    return presetNames.get(String(v)) ?? String(v);
  };

  function show(st: StudyResult): void {
    description.textContent = st.description;
    tableWrap.hidden = false;
    // The band_80 cell is shown beside the numbers it bands, not as a column of its own.
    const cols = (st.columns.length > 0 ? st.columns : Object.keys(st.rows[0] ?? {})).filter((c) => c !== 'band_80');
    const units = (st.units ?? {}) as Record<string, string>;
    const descriptions = (st.column_descriptions ?? {}) as Record<string, string>;
    table.replaceChildren(
      h('caption', null, st.title),
      h('thead', null, h('tr', null, ...cols.map((c) => h('th', { scope: 'col', title: descriptions[c] ? `${c}: ${descriptions[c]}` : c }, studyColumnWords(c, units[c]))))),
      h(
        'tbody',
        null,
        ...st.rows.map((r) =>
          h(
            'tr',
            null,
            ...cols.map((c) => {
              const band = studyBand(r, c);
              const u = units[c] ?? '';
              return h(
                'td',
                { class: typeof r[c] === 'number' ? 'num' : undefined, 'data-value': typeof r[c] === 'number' ? String(r[c]) : undefined },
                cell(r[c], u, c),
                ...(band ? [h('span', { class: 'band', 'data-testid': 'study-band', title: '80% band: the range that held 80% of the published measurements of this regime around the prediction' }, ` ${cell(band.low, u, c)} – ${cell(band.high, u, c)}`)] : []),
              );
            }),
          ),
        ),
      ),
    );
    notes.replaceChildren(...(st.notes ?? []).map((n) => h('li', null, n)));
    const described = cols.filter((c) => descriptions[c]);
    columnHelp.replaceChildren(
      ...(described.length > 0
        ? [h('summary', null, 'What the columns mean'), h('dl', null, ...described.flatMap((c) => [h('dt', { title: c }, units[c] ? `${studyColumnWords(c, units[c])} (${units[c]})` : studyColumnWords(c, units[c])), h('dd', null, studyDescription(descriptions[c]!, units))]))]
        : []),
    );
    columnHelp.hidden = described.length === 0;
    shown = st;
    const axes = studyAxes(st);
    const d = studyDefaults(st);
    fill(xSel.select, axes.x, d?.x ?? '', units);
    fill(ySel.select, axes.y, d?.y ?? '', units);
    fill(colorSel.select, axes.color, d?.color ?? '', units, 'none');
    chart.set(d ? studySpec(st, d, named) : null, 'This study has no numeric column to draw.');
  }

  /** The job picker for `name` (shown for the study that takes one), set to `mine` where it can be. */
  function offerJob(name: string, mine: boolean): boolean {
    jobField.hidden = jobNote.hidden = name !== JOB_STUDY;
    if (name !== JOB_STUDY) return false;
    const own = scenarioJob();
    jobSel.replaceChildren(
      h('option', { value: '' }, 'The study’s: Llama 3 70B on 1024 GPUs, 15T tokens'),
      h('option', { value: 'scenario', disabled: !own.ok }, own.ok ? `Your scenario’s: ${own.words}` : 'Your scenario’s (it trains nothing)'),
    );
    const use = mine && own.ok;
    jobSel.value = use ? 'scenario' : '';
    jobNote.textContent = own.ok
      ? use
        ? `Priced on your scenario’s job (${own.words}), each system at the fastest layout of the study’s grid that fits.`
        : 'Pick “Your scenario’s” to price the model, GPUs and tokens of the scenario in the calculator.'
      : `Your scenario cannot be priced here: ${own.reason}.`;
    return use;
  }

  let picks = 0;
  async function pick(name: string, mine = false): Promise<void> {
    error.hidden = true;
    const own = offerJob(name, mine) ? scenarioJob() : null;
    const my = ++picks;
    const r = await engine.study(name, own?.ok ? own.job : undefined);
    if (my !== picks) return; // a newer pick is on its way
    if (r.ok) show(r.value);
    else {
      error.hidden = false;
      error.textContent = `${r.error.message} (${r.error.code})`;
      chart.set(null, 'No study loaded.');
      table.replaceChildren();
    }
  }
  /** The study on screen ('' before the first). */
  let shownName = '';
  let shownJob: 'scenario' | undefined;
  select.addEventListener('change', () => {
    shownName = select.value;
    shownJob = undefined;
    onPick(select.value);
    void pick(select.value);
  });
  jobSel.addEventListener('change', () => {
    shownJob = jobSel.value === 'scenario' ? 'scenario' : undefined;
    onPick(shownName, shownJob);
    void pick(shownName, shownJob === 'scenario');
  });

  const el = h(
    'section',
    { class: 'view', id: 'studies', 'aria-labelledby': 'studies-h' },
    h('h2', { id: 'studies-h' }, 'Studies from the paper'),
    h('div', { class: 'card controls' }, h('div', { class: 'field' }, h('label', { for: id }, 'Study'), select), jobField, xSel.el, ySel.el, colorSel.el, description, jobNote, error),
    chart.el,
    tableWrap,
  );

  let names: string[] | null = null;
  let loading: Promise<string[]> | null = null;
  async function list(): Promise<string[]> {
    loading ??= Promise.all([
      engine.studies(),
      engine.presets().then((p) => {
        for (const x of [...(p.models ?? []), ...(p.systems ?? [])]) if (x.name) presetNames.set(x.id, x.name);
      }),
    ]).then(([r]) => {
      const studies = r.studies ?? [];
      if (studies.length === 0) {
        select.replaceChildren(h('option', { value: '' }, 'none available'));
        select.disabled = true;
        description.textContent = 'This build of the engine has no studies.';
        chart.set(null, 'No study available.');
      } else {
        select.disabled = false;
        select.replaceChildren(...studies.map((s) => h('option', { value: s.name }, s.title || s.name)));
      }
      names = studies.map((s) => s.name);
      return names;
    });
    return loading;
  }

  return {
    el,
    async show(name, job) {
      const all = names ?? (await list());
      if (all.length === 0) return;
      const chosen = name !== undefined && all.includes(name) ? name : shownName || all[0]!;
      if (name !== undefined && !all.includes(name)) notify(`There is no study called "${name}"; showing ${chosen}.`);
      // The scenario's job is run again each time it is asked for: the scenario may have changed.
      if (chosen === shownName && job === shownJob && job === undefined) return;
      shownName = chosen;
      shownJob = job;
      select.value = chosen;
      await pick(chosen, job === 'scenario');
    },
  };
}
