// @vitest-environment happy-dom
// The Search view in a DOM with the real engine (the wasm module in process): the training
// ranking and the whole-run budget reach the engine as search options, and the table shows the
// step cost and the whole-run cost of every layout, each within the budget.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src/engine/client';
import type { OptimusModule } from '../../src/engine/protocol';
import type { EngineError } from '../../src/engine/types';
import type { SearchOptions, SearchResult } from '../../src/engine/page-types';
import { createSearchView, narrowedWords } from '../../src/ui/search';
import { loadModule } from '../wasm';

let mod: OptimusModule;
beforeAll(async () => {
  mod = await loadModule();
});

const scenario = {
  model: { layers: 24, hidden: 2048, heads: 16, ffn_hidden: 8192, vocab: 51200 },
  system: 'dgx-a100-40gb',
  num_devices: 8,
  training: { global_batch: 32, seq_len: 2048, precision: 'bf16', train_tokens: 1e10 },
  economics: { usd_per_gpu_hour: 2 },
};

/** The wasm engine's search, answering at once and recording the options it was asked with. */
function recordingEngine(asked: SearchOptions[]): Engine {
  return {
    search: (s: unknown, o: SearchOptions) => {
      asked.push(o);
      const r = JSON.parse(mod.search!(JSON.stringify(s), JSON.stringify(o), null)) as SearchResult | { error: EngineError };
      // An engine error comes back as the client hands it over: not ok, with the engine's error.
      const result = 'error' in r ? { ok: false as const, error: r.error } : { ok: true as const, value: r };
      return { result: Promise.resolve(result), cancel: () => undefined };
    },
  } as unknown as Engine;
}

describe('search view: ranking and budget', () => {
  it('passes rank_by and max_cost_usd and shows the costs, every run within the budget', async () => {
    const asked: SearchOptions[] = [];
    const engine = recordingEngine(asked);
    const view = createSearchView({ engine, scenario: () => JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    const rank = view.querySelector<HTMLSelectElement>('[data-testid="search-rank-by"]')!;
    rank.value = 'cost';
    const budget = view.querySelector<HTMLInputElement>('[data-testid="search-budget"]')!;
    // A budget between the cheapest and the dearest layout's whole run.
    const all = JSON.parse(mod.search!(JSON.stringify(scenario), JSON.stringify({ top: 1000, max_cost_usd: 1e15 }), null)) as SearchResult;
    const costs = all.best.map((b) => b.run_cost_usd!);
    const limit = (Math.min(...costs) + Math.max(...costs)) / 2;
    budget.value = String(limit);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(asked[0]).toMatchObject({ rank_by: 'cost', max_cost_usd: limit });
    const heads = [...view.querySelectorAll('[data-testid="search-table"] th')].map((th) => th.textContent);
    expect(heads).toEqual(['#', 'Layout', 'Iteration', 'Tokens/s', 'MFU', 'Step cost', 'Step energy', 'Whole-run cost', 'Memory/device']);
    const rows = [...view.querySelectorAll('[data-testid="search-table"] tbody tr')];
    expect(rows.length).toBeGreaterThan(0);
    for (const tr of rows) expect(Number(tr.querySelectorAll('td')[7]!.getAttribute('data-value'))).toBeLessThanOrEqual(limit);
    // The reason in words on the page, the engine's code in the summary's title (its details).
    expect(view.querySelector('[data-testid="search-summary"]')!.textContent).toMatch(/\b[\d,]+ (layouts? )?whose whole run costs more than the budget/);
    expect(view.querySelector('[data-testid="search-summary"]')!.getAttribute('title')).toContain('search.cost_above_budget');
  });

  it('ranked by energy on GPUs without a price: the step energy, and no cost column', async () => {
    const unpriced = { ...scenario, system: 'dgx-h200', economics: undefined };
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(unpriced)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLSelectElement>('[data-testid="search-rank-by"]')!.value = 'energy';
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    const heads = [...view.querySelectorAll('[data-testid="search-table"] th')].map((th) => th.textContent);
    expect(heads).toEqual(['#', 'Layout', 'Iteration', 'Tokens/s', 'MFU', 'Step energy', 'Memory/device']);
  });
});

describe('search view: what it searches', () => {
  it('names the scenario it searches, and says nothing where the scenario has no name', () => {
    const named = { ...scenario, name: 'GPT 1.3B on 8 A100' };
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => named, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    const what = view.querySelector<HTMLElement>('[data-testid="search-what"]')!;
    expect(what.hidden).toBe(false);
    expect(what.textContent).toBe('Searching “GPT 1.3B on 8 A100”: change it under Estimate.');
    const unnamed = createSearchView({ engine: recordingEngine([]), scenario: () => ({ ...scenario }), apply: () => undefined, stem: () => 'x', notify: () => undefined });
    expect(unnamed.querySelector<HTMLElement>('[data-testid="search-what"]')!.hidden).toBe(true);
  });
});

describe('search view: a link opened on it', () => {
  it('a search asked for while the page restores its scenario waits for it, then searches that scenario', async () => {
    const asked: SearchOptions[] = [];
    const searched: unknown[] = [];
    const base = recordingEngine(asked);
    const engine = { search: (s: unknown, o: SearchOptions) => (searched.push(s), base.search(s, o, () => undefined)) } as unknown as Engine;
    let current: Record<string, unknown> = {}; // what the page holds before the link's scenario is restored
    let settle: () => void = () => undefined;
    let restoring: Promise<void> | undefined = new Promise<void>((r) => (settle = r));
    const view = createSearchView({ engine, scenario: () => JSON.parse(JSON.stringify(current)) as Record<string, unknown>, ready: () => restoring, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    const run = view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!;
    run.click();
    run.click(); // a second click while waiting starts nothing more
    await new Promise((r) => setTimeout(r, 0));
    expect(asked).toHaveLength(0);
    expect(run.disabled).toBe(true);
    expect(view.querySelector('[data-testid="search-summary"]')!.textContent).toBe('Waiting for the scenario…');
    current = scenario;
    restoring = undefined;
    settle();
    await new Promise((r) => setTimeout(r, 0));
    expect(asked).toHaveLength(1);
    expect((searched[0] as { model: unknown }).model).toEqual(scenario.model);
    expect(view.querySelectorAll('[data-testid="search-table"] tbody tr').length).toBeGreaterThan(0);
    expect(view.querySelector<HTMLElement>('[data-testid="search-error"]')!.hidden).toBe(true);
    expect(run.disabled).toBe(false);
  });
});

describe('search view: the controls follow what is searched', () => {
  const fieldOf = (view: HTMLElement, label: string) => [...view.querySelectorAll<HTMLElement>('.field')].find((f) => f.querySelector('label')?.textContent === label)!;
  const shown = (view: HTMLElement) =>
    ['Inference objective', 'Serving objective', 'Rank training by', 'Whole-run budget (USD, training)'].filter((l) => !fieldOf(view, l).hidden);
  it('training: its ranking and budget; the mode switched to inference: its objective alone', () => {
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    expect(shown(view)).toEqual(['Rank training by', 'Whole-run budget (USD, training)']);
    const mode = fieldOf(view, 'Mode').querySelector('select')!;
    mode.value = 'inference';
    mode.dispatchEvent(new Event('change'));
    expect(shown(view)).toEqual(['Inference objective']);
    mode.value = 'serving';
    mode.dispatchEvent(new Event('change'));
    expect(shown(view)).toEqual(['Serving objective']);
  });
  it('a serving scenario: the serving objective alone', () => {
    const serving = { model: 'llama3-8b', system: 'dgx-h100', num_devices: 1, inference: { prompt_len: 512, output_len: 128, serving: { num_requests: 50 } } };
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(serving)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    expect(shown(view)).toEqual(['Serving objective']);
  });
  it('keep fixed offers the keys the mode searches: training all, inference tp pp dp cp, serving tp pp', () => {
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    const offered = () => [...view.querySelectorAll<HTMLInputElement>('[data-fix]')].filter((b) => !b.closest<HTMLElement>('.fix')!.hidden).map((b) => b.value);
    expect(offered()).toEqual(['tp', 'pp', 'dp', 'cp', 'micro_batch', 'interleave', 'sequence_parallel', 'recompute', 'zero_stage']);
    const mode = fieldOf(view, 'Mode').querySelector('select')!;
    mode.value = 'inference';
    mode.dispatchEvent(new Event('change'));
    expect(offered()).toEqual(['tp', 'pp', 'dp', 'cp']);
    mode.value = 'serving';
    mode.dispatchEvent(new Event('change'));
    expect(offered()).toEqual(['tp', 'pp']);
    // The heading and the button name what a serving search ranks.
    expect(view.querySelector('#search-h')!.textContent).toBe('Search serving deployments');
    expect(view.querySelector('[data-testid="search-run"]')!.textContent).toBe('Search deployments');
    mode.value = 'training';
    mode.dispatchEvent(new Event('change'));
    expect(view.querySelector('#search-h')!.textContent).toBe('Search parallel layouts');
    expect(view.querySelector('[data-testid="search-run"]')!.textContent).toBe('Search layouts');
  });
  it('a box checked in training and hidden in serving keeps nothing fixed there', async () => {
    const asked: Array<Record<string, unknown>> = [];
    const engine = { search: (s: Record<string, unknown>) => (asked.push(s), { result: new Promise(() => undefined), cancel: () => undefined }) } as unknown as Engine;
    const stream = { model: 'llama3-8b', system: 'dgx-h100', num_devices: 2, parallel: { tp: 1, pp: 1, zero_stage: 1 }, inference: { prompt_len: 512, output_len: 128, serving: { num_requests: 50 } } };
    const view = createSearchView({ engine, scenario: () => JSON.parse(JSON.stringify(stream)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLInputElement>('[data-fix="zero_stage"]')!.checked = true;
    view.querySelector<HTMLInputElement>('[data-fix="tp"]')!.checked = true;
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    expect(asked[0]!.parallel).toEqual({ tp: 1 });
  });
});

describe('search view: a serving capacity search', () => {
  const stream = (ttft: number) => ({
    model: 'llama3.1-8b', system: 'dgx-h100', num_devices: 1,
    inference: { batch: 1, prompt_len: 512, output_len: 64, serving: { arrival: 'poisson', requests_per_s: 20, num_requests: 200, input_len: 512, output_len: 64, slo: { ttft_s: ttft, tpot_s: 10 } } },
  });
  const run = async (ttft: number): Promise<HTMLElement> => {
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => stream(ttft) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    const objective = view.querySelector<HTMLSelectElement>('[data-testid="search-serving-objective"]')!;
    objective.value = 'capacity';
    objective.dispatchEvent(new Event('change'));
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    return view;
  };
  it('objectives met at the highest rate tried: the capacity is marked as a lower bound and the note says why', async () => {
    const view = await run(1000);
    const cell = view.querySelector('[data-testid="search-table"] tbody tr td:nth-child(5)')!;
    expect(cell.textContent).toMatch(/^≥ /);
    expect(view.querySelector('[data-testid="search-table"] tfoot')!.textContent).toContain('at least');
  });
  it('the capacity objective is offered only where it can run: objectives and a stream at a rate', () => {
    const shows: Array<() => void> = [];
    let s: Record<string, any> = stream(1);
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(s)) as Record<string, unknown>, apply: () => undefined, onShow: (fn) => shows.push(fn), stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    const objective = view.querySelector<HTMLSelectElement>('[data-testid="search-serving-objective"]')!;
    const capacity = objective.querySelector<HTMLOptionElement>('option[value="capacity"]')!;
    expect(capacity.disabled).toBe(false);
    expect(capacity.textContent).toBe('capacity: top rate meeting objectives');
    objective.value = 'capacity';
    // The same stream without objectives (what the Serve task starts from): not offered, and said why.
    s = { ...s, inference: { ...s.inference, serving: { ...s.inference.serving, slo: undefined } } };
    for (const fn of shows) fn();
    expect(capacity.disabled).toBe(true);
    expect(capacity.textContent).toBe('capacity (needs service-level objectives)');
    expect(objective.value).toBe('goodput');
    // A closed loop of users with objectives: a rate is what capacity raises, so not offered either.
    s = { ...s, inference: { ...s.inference, serving: { arrival: 'closed', concurrency: 8, num_requests: 80, slo: { ttft_s: 1 } } } };
    for (const fn of shows) fn();
    expect(capacity.textContent).toBe('capacity (needs a request rate, not a closed loop)');
    s = stream(1);
    for (const fn of shows) fn();
    expect(capacity.disabled).toBe(false);
  });
  it('a list shorter than asked for and than ran says what it leaves out: deployments differing only in max batch', async () => {
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => stream(1) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    const rows = view.querySelectorAll('[data-testid="search-table"] tbody tr').length;
    const summary = view.querySelector('[data-testid="search-summary"]')!.textContent!;
    const ran = Number(/(\d+) ran/.exec(summary)![1]);
    expect(rows).toBeLessThan(ran);
    expect(summary).toContain(`Not listed: ${ran - rows} that differ from a row only in max batch and predict the same.`);
  });
  it('a closed loop of 16 clients on one GPU simulates one deployment, and says so in the singular', async () => {
    const closed = { model: 'llama3.1-8b', system: 'dgx-h100', num_devices: 1, inference: { prompt_len: 512, output_len: 64, serving: { arrival: 'closed', concurrency: 16, num_requests: 64 } } };
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(closed)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(view.querySelector('[data-testid="search-summary"]')!.textContent).toMatch(/^1 deployment simulated, 1 ran, in /);
    expect(view.querySelectorAll('[data-testid="search-table"] tbody tr').length).toBe(1);
  });
  it('objectives that bound the rate: no mark, no note', async () => {
    const view = await run(0.3);
    const cell = view.querySelector('[data-testid="search-table"] tbody tr td:nth-child(5)')!;
    expect(cell.textContent).not.toMatch(/≥/);
    expect(view.querySelector('[data-testid="search-table"] tfoot')).toBeNull();
  });
});

describe('search view: nothing feasible', () => {
  it('says how many GPUs would have a layout, the fewest the engine found', async () => {
    const tooFew = { model: 'llama3-70b', system: 'dgx-h100', num_devices: 4, training: { global_batch: 64, seq_len: 8192 } };
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(tooFew)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    // 8 H100 hold no layout of Llama 3 70B's training either (the engine: 16 is the fewest)
    expect(view.querySelector('[data-testid="search-table"] caption')!.textContent).toBe(
      'No feasible layout. 16 GPUs would have one (the fewest found, up to 32 times as many): set the GPUs to 16 and search again.',
    );
    expect(view.querySelectorAll('[data-testid="search-table"] tbody tr')).toHaveLength(0);
  });
  it('a space past the cap: searched narrowed, as the automatic layout does, and said so', async () => {
    const moe = { model: 'qwen3-235b-a22b', system: 'dgx-h100', num_devices: 1024, training: { global_batch: 4096, seq_len: 4096 } };
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(moe)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await vi.waitFor(() => expect(view.querySelectorAll('[data-testid="search-table"] tbody tr').length).toBeGreaterThan(0), { timeout: 20000 });
    expect(view.querySelector('[data-testid="search-summary"]')!.textContent).toContain('There were too many layouts to search them all, so ZeRO stage 1 was fixed, as the automatic layout does.');
  }, 30000);
  it('an RL job no placement runs: the fewest GPUs the engine found the job running on', async () => {
    // DeepSeek-V3 at 8 bits (671 GB) fits no rollout engine of 8 H100; colocated, the engines
    // fit from 16 GPUs and the trainer's search first at 64 (core/rl/rl.h rl_fewest_devices)
    const tooFew = { schema_version: 1, model: 'deepseek-v3', system: 'dgx-h100', num_devices: 8, rl: { prompts_per_step: 128, samples_per_prompt: 8, train: 'auto' } };
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => JSON.parse(JSON.stringify(tooFew)) as Record<string, unknown>, apply: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await vi.waitFor(() => expect(view.querySelector('[data-testid="search-table"] caption')?.textContent).toBe(
      'No placement runs this job. 64 GPUs would have one (the fewest found, up to 32 times as many): set the GPUs to 64 and search again.',
    ), { timeout: 20_000 });
    expect(view.querySelectorAll('[data-testid="search-table"] tbody tr')).toHaveLength(0);
  });
});

describe('search view: an RL job searches its placements', () => {
  const job = {
    schema_version: 1,
    model: 'qwen2.5-7b',
    system: 'dgx-h100',
    num_devices: 8,
    rl: { prompts_per_step: 32, samples_per_prompt: 4, prompt_len: { mean: 128, max: 512 }, response_len: { mean: 512, max: 2048 }, placement: 'colocated', train: 'auto' },
  };
  it('sends only the RL options, ranks the placements and loads one into the editor', async () => {
    const asked: SearchOptions[] = [];
    const engine = recordingEngine(asked);
    const loaded: Record<string, unknown>[] = [];
    const view = createSearchView({ engine, scenario: () => JSON.parse(JSON.stringify(job)) as Record<string, unknown>, apply: () => undefined, applyRl: (rl) => loaded.push(rl), stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    // The training and serving controls are hidden, energy is not a ranking an RL search has.
    expect(view.querySelector('h2')!.textContent).toBe('Search RL placements');
    expect(view.querySelector<HTMLElement>('[data-testid="search-serving-objective"]')!.closest<HTMLElement>('.field')!.hidden).toBe(true);
    expect(view.querySelector<HTMLOptionElement>('[data-testid="search-rank-by"] option[value="energy"]')!.disabled).toBe(true);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(asked[0]).toEqual({ top: 10 });
    const error = view.querySelector<HTMLElement>('[data-testid="search-error"]')!;
    expect(error.hidden, error.textContent ?? '').toBe(true);
    const heads = [...view.querySelectorAll('[data-testid="search-table"] th')].map((th) => th.textContent);
    expect(heads).toEqual(['#', 'Placement', 'Step', 'Trained tokens/s per GPU', 'Rollout engines', 'Trainer layout']);
    const rows = [...view.querySelectorAll<HTMLTableRowElement>('[data-testid="search-table"] tbody tr')];
    expect(rows.length).toBeGreaterThan(1);
    // Ranked by the step, fastest first.
    const steps = rows.map((tr) => Number(tr.querySelectorAll('td')[2]!.getAttribute('data-value')));
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    // The first row loads its placement: the engine predicts it at the row's step time.
    rows[0]!.click();
    expect(loaded).toHaveLength(1);
    const rl = loaded[0]!;
    const again = JSON.parse(mod.predict(JSON.stringify({ ...job, rl }))) as { rl: { step_time_s: number } };
    expect(again.rl.step_time_s).toBeCloseTo(steps[0]!, 6);
    if (rl.placement === 'colocated') expect(rl.rollout_devices).toBeUndefined();
    else expect(Number(rl.rollout_devices) + Number(rl.train_devices)).toBe(8);
  });

  it('ranked by cost on GPUs without a price: the engine refuses, the view says so in words with the code', async () => {
    const view = createSearchView({ engine: recordingEngine([]), scenario: () => ({ ...JSON.parse(JSON.stringify(job)), system: 'dgx-h200' }) as Record<string, unknown>, apply: () => undefined, applyRl: () => undefined, stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLSelectElement>('[data-testid="search-rank-by"]')!.value = 'cost';
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    const error = view.querySelector<HTMLElement>('[data-testid="search-error"]')!;
    expect(error.hidden).toBe(false);
    expect(error.textContent).toContain('needs a price per GPU-hour');
    expect(error.textContent).toContain('search.rank_without_price at /rank_by');
  });

  it('a row loads the job as it was searched, not an edit made while the search ran', async () => {
    const engine = recordingEngine([]);
    const loaded: Record<string, unknown>[] = [];
    const current = JSON.parse(JSON.stringify(job)) as { rl: Record<string, unknown> };
    const view = createSearchView({ engine, scenario: () => JSON.parse(JSON.stringify(current)) as Record<string, unknown>, apply: () => undefined, applyRl: (rl) => loaded.push(rl), stem: () => 'x', notify: () => undefined });
    document.body.replaceChildren(view);
    view.querySelector<HTMLButtonElement>('[data-testid="search-run"]')!.click();
    current.rl.prompts_per_step = 999; // typed while the search runs
    await new Promise((r) => setTimeout(r, 0));
    view.querySelector<HTMLTableRowElement>('[data-testid="search-table"] tbody tr')!.click();
    expect(loaded).toHaveLength(1);
    expect(loaded[0]!.prompts_per_step).toBe(32);
  });
});

describe('search view: the summary in words (probe 61)', () => {
  it('names the keys a narrowed search fixed as the "Keep fixed" boxes do, not by their JSON keys', () => {
    expect(narrowedWords({ zero_stage: 1, micro_batch: 1 })).toBe('There were too many layouts to search them all, so ZeRO stage 1 and micro-batch 1 were fixed, as the automatic layout does.');
    expect(narrowedWords({})).toBe('');
  });
});
