// The browser tests that time the page against its goals (issue 39): the first result after
// navigation, a re-estimate after an edit, and every source of the accuracy view on screen after
// one click. vitest.e2e.config.ts runs this file first and alone (its own project, group 0): the
// other browser tests then run two files at a time, and a timing taken beside them would measure
// the other file. Each test also checks the page's numbers against the engine run here and ends
// with no page error, console error or request outside the site. Prints an E2E_METRICS line of
// the timings and the page's performance marks, and E2E_TASK lines for the accuracy view.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { decodeFragment, encodeFragment } from '../src/codec/url';
import type { OperatorPoint } from '../src/engine/schema-types';
import { starter } from '../src/state/tasks';
import { DATA_SETS } from '../src/ui/accuracy';
import { readJson } from '../test/wasm';
import { OUT, VIEWPORTS, editAndTime, expectMetricsOf, expectShownAre, landing, metrics, reportMetrics, setField, settled, siteWithEngine } from './harness';

/**
 * The goals (issue 39: the first result under 0.4 s after navigation, a re-estimate after an edit
 * under 20 ms); the tests fail past FIRST_RESULT_FACTOR and EDIT_FACTOR times them: on this 2-core
 * machine shared with other builds the median of three cold loads ranges 0.4-1.0 s and an edit's
 * median 10-26 ms (docs/performance.md), and a failing test there would measure the machine.
 * E2E_METRICS says whether each goal itself was met (first_result_goal_met, edit_goal_met).
 */
const GOALS = { firstResultMs: 400, editMs: 20 };
const FIRST_RESULT_FACTOR = 4;
const EDIT_FACTOR = 4;

const defaultScenario = readJson('presets/scenarios/default.json') as Record<string, any>;
/** What the page opens on without a link: the training task's starting scenario. */
const landingScenario = starter('train');
const measured: Record<string, number> = {};
const lines: string[] = [];
const { site, predict } = siteWithEngine(() => {
  reportMetrics('timing', measured);
  for (const l of lines) console.log(l);
});


describe('the page against its time goals', () => {
  test('the landing page shows the training task\'s starting scenario with the engine numbers, in time', async () => {
    const page = await site.page();
    const response = await page.goto(`${site.origin}/`);
    expect(response?.status()).toBe(200);
    await settled(page);
    expectShownAre(await metrics(page), predict(landingScenario));
    expect(Object.keys(await metrics(page))).toEqual(expect.arrayContaining(['training.iteration_time_s', 'training.mfu', 'memory.per_device_bytes.total', 'memory.fits']));
    // First result after navigation: this (first) load and two more, each with an empty HTTP
    // cache; the median is what is checked (one sample on a busy 2-core machine is noise).
    const firstResult = (p: Page): Promise<number> => p.evaluate(() => (window as unknown as { __firstResultMs: number }).__firstResultMs);
    const samples = [await firstResult(page)];
    for (let i = 0; i < 2; i++) {
      const again = await site.page(true);
      await again.goto(`${site.origin}/`);
      await settled(again);
      samples.push(await firstResult(again));
      await again.close();
    }
    // Where the first load's time went (main.ts performance marks, ms since navigation start).
    const marks = await page.evaluate(() =>
      Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('optimus:')).map((m) => [m.name.slice(8), Math.round(m.startTime)])),
    );
    for (const [name, t] of Object.entries(marks)) measured[`mark_${name.replace(/-/g, '_')}_ms`] = t as number;
    measured.first_result_first_load_ms = samples[0]!;
    measured.first_result_ms = samples.slice().sort((a, b) => a - b)[1]!;
    expect(measured.first_result_ms).toBeGreaterThan(0);
    measured.first_result_goal_met = measured.first_result_ms < GOALS.firstResultMs ? 1 : 0;
    expect(measured.first_result_ms).toBeLessThan(GOALS.firstResultMs * FIRST_RESULT_FACTOR);
    await page.screenshot({ path: `${OUT}default.png`, fullPage: true });
    await page.screenshot({ path: `${OUT}default-viewport.png` });
    // The default scenario trains only: the roofline places its training operators (the slowest
    // stage's kernels, training.operators) under the device's roofs.
    const roofline = page.locator('[data-testid="chart-roofline"]');
    await roofline.locator('svg').first().waitFor();
    expect(await roofline.textContent()).toContain('training operators');
    await roofline.screenshot({ path: `${OUT}roofline-training.png` });
    // The address holds the current scenario.
    const hash = await page.evaluate(() => location.hash);
    const decoded = await decodeFragment(hash);
    expect(decoded.ok && decoded.scenario).toEqual(landingScenario);
    await page.close();
    site.expectNoProblems();
  });

  /** A scenario opened as a share link, its roofline drawn: the page, the chart and its points' titles. */
  const openRoofline = async (scenario: Record<string, unknown>) => {
    const page = await site.page();
    await page.goto(`${site.origin}/${await encodeFragment(scenario)}`);
    await settled(page);
    const roofline = page.locator('[data-testid="chart-roofline"]');
    await roofline.locator('svg').first().waitFor();
    return { page, roofline, titles: await roofline.locator('svg title').allTextContents() };
  };

  test('the roofline tells an operator\'s layer kinds apart: gpt-oss-120b\'s windowed and global attention', async () => {
    const scenario = { schema_version: 1, model: 'gpt-oss-120b', system: 'dgx-b200', num_devices: 1, inference: { batch: 64, prompt_len: 4096, output_len: 256 } };
    const { page, roofline, titles } = await openRoofline(scenario);
    // Each layer kind's attention is its own point, named by its window, with the engine's numbers.
    const operators: OperatorPoint[] = predict(scenario).inference.operators;
    const attention = operators.filter((o) => o.name === 'attention' && o.phase === 'decode');
    expect(attention.map((o) => o.layer_kind).sort()).toEqual(['moe', 'moe_windowed']);
    for (const kind of ['global', 'windowed']) expect(titles.some((t) => t.startsWith(`attention (${kind}) (decode`)), `attention (${kind}) in ${titles.join(' | ')}`).toBe(true);
    expect(titles.some((t) => t.startsWith('attention (decode')), 'an attention point without its kind').toBe(false);
    await roofline.screenshot({ path: `${OUT}roofline-layer-kinds.png` });
    await page.close();
    site.expectNoProblems();
  });

  test('DeepSeek Sparse Attention on the page: the indexer beside the attention, a long context decoded at the index keys\' rate', async () => {
    const scenario = { schema_version: 1, model: 'deepseek-v3.2-exp', system: 'dgx-h200', num_devices: 8, parallel: { tp: 8 }, software: 'sglang', inference: { batch: 8, prompt_len: 120000, output_len: 256, precision: 'fp8', kv_precision: 'fp8', fp8_block_scaled: true } };
    const { page, roofline, titles } = await openRoofline(scenario);
    // (A model of dense and MoE layers names each point's layer kind before its phase.)
    for (const [name, phase] of [['indexer', 'decode'], ['attention', 'decode'], ['indexer', 'prefill']])
      expect(titles.some((t) => t.startsWith(`${name} (`) && t.includes(`(${phase},`)), `${name} ${phase} in ${titles.join(' | ')}`).toBe(true);
    // Decoding 120,000 tokens of context, the indexer reads every token's 132-byte key, the
    // attention 2,048 latent entries: the indexer's decode point moves more bytes.
    const operators: OperatorPoint[] = predict(scenario).inference.operators;
    const decode = (name: string) => operators.find((o) => o.name === name && o.phase === 'decode')!;
    expect(decode('indexer').time_s).toBeGreaterThan(decode('attention').time_s);
    await roofline.screenshot({ path: `${OUT}roofline-sparse-attention.png` });
    await page.screenshot({ path: `${OUT}sparse-attention.png`, fullPage: true });
    await page.close();
    site.expectNoProblems();
  });

  test('linear attention on the page: Qwen3-Next\'s Gated DeltaNet layers beside its global ones, a state per sequence', async () => {
    const scenario = { schema_version: 1, model: 'qwen3-next-80b-a3b', system: 'dgx-h100', num_devices: 4, parallel: { tp: 4 }, software: 'vllm', inference: { batch: 32, prompt_len: 32000, output_len: 1024 } };
    const { page, roofline, titles } = await openRoofline(scenario);
    for (const [name, phase] of [['linear_attention (linear)', 'decode'], ['linear_attention (linear)', 'prefill'], ['attention (global)', 'decode']])
      expect(titles.some((t) => t.startsWith(`${name} (${phase},`)), `${name} ${phase} in ${titles.join(' | ')}`).toBe(true);
    // At 32,000 tokens of context a decode step's 12 global layers read their KV cache, and the
    // 36 linear layers their states, which do not grow with the context: one global layer's
    // attention takes longer than one linear layer's recurrence.
    const operators: OperatorPoint[] = predict(scenario).inference.operators;
    const decode = (name: string) => operators.find((o) => o.name === name && o.phase === 'decode')!;
    expect(decode('linear_attention').layer_kind).toBe('moe_linear');
    expect(decode('attention').time_s).toBeGreaterThan(decode('linear_attention').time_s);
    await roofline.screenshot({ path: `${OUT}roofline-linear-attention.png` });
    await page.screenshot({ path: `${OUT}linear-attention.png`, fullPage: true });
    await page.close();
    site.expectNoProblems();
  });

  test('a hybrid layer pattern on the page: Nemotron 3 Nano\'s Mamba-2 layers with and without their MoE FFN', async () => {
    const scenario = { schema_version: 1, model: 'nemotron-3-nano-30b-a3b', system: 'dgx-h100', num_devices: 1, software: 'vllm', inference: { batch: 32, prompt_len: 8000, output_len: 512 } };
    const { page, roofline, titles } = await openRoofline(scenario);
    for (const name of ['linear_attention (linear)', 'linear_attention (linear, no FFN)', 'attention (global)'])
      expect(titles.some((t) => t.startsWith(`${name} (decode,`)), `${name} in ${titles.join(' | ')}`).toBe(true);
    const operators: OperatorPoint[] = predict(scenario).inference.operators;
    expect(new Set(operators.map((o) => o.layer_kind))).toEqual(new Set(['moe_linear', 'linear_only', 'moe', undefined]));
    await roofline.screenshot({ path: `${OUT}roofline-layer-pattern.png` });
    await page.screenshot({ path: `${OUT}layer-pattern.png`, fullPage: true });
    // A pattern typed into the form: the layer count follows it and the estimate is the engine's.
    await setField(page, '/model/layer_pattern', 'MEME*E');
    await settled(page);
    expect(await page.locator('[data-path="/model/layers"]').first().inputValue()).toBe('3');
    const decoded = await decodeFragment(await page.evaluate(() => location.hash));
    const edited = (decoded.ok && decoded.scenario) as Record<string, any>;
    expect([edited.model.layer_pattern, edited.model.layers]).toEqual(['MEME*E', 3]);
    expectShownAre(await metrics(page), predict(edited));
    await page.screenshot({ path: `${OUT}layer-pattern-edited.png`, fullPage: true });
    await page.close();
    site.expectNoProblems();
  });

  test('LatentMoE on the page: Nemotron 3 Super\'s experts in a 1,024-wide latent, and the field that sets it', async () => {
    const scenario = { schema_version: 1, model: 'nemotron-3-super-120b-a12b', system: 'dgx-b200', num_devices: 8, software: 'vllm', parallel: { tp: 8 }, inference: { batch: 64, prompt_len: 4000, output_len: 1000, precision: 'fp8' } };
    const { page, roofline } = await openRoofline(scenario);
    const operators: OperatorPoint[] = predict(scenario).inference.operators;
    expect(operators.some((o) => o.name === 'moe_latent_in')).toBe(true);
    await roofline.screenshot({ path: `${OUT}roofline-latent-moe.png` });
    // The latent typed into the form: the estimate is the engine's for the edited scenario, and a
    // wider latent reads more expert weights in every decode step.
    await setField(page, '/model/moe/latent_size', '2048');
    await settled(page);
    const decoded = await decodeFragment(await page.evaluate(() => location.hash));
    const edited = (decoded.ok && decoded.scenario) as Record<string, any>;
    expect(edited.model.moe.latent_size).toBe(2048);
    const wider = predict(edited);
    expectShownAre(await metrics(page), wider);
    expect(wider.inference.tpot_s).toBeGreaterThan(predict(scenario).inference.tpot_s);
    await page.screenshot({ path: `${OUT}latent-moe-edited.png`, fullPage: true });
    await page.close();
    site.expectNoProblems();
  });

  test('a serving run past the largest captured CUDA graph says how many steps ran eager, and why', async () => {
    // Llama 3.2 1B on one H100 under vLLM with graphs captured up to 8 tokens and 32 clients: its
    // small steps issue kernels longer than the GPU works on them, so the eager steps cost time.
    const scenario = { schema_version: 1, model: 'llama3.2-1b', system: 'dgx-h100', num_devices: 1, software: 'vllm', inference: { prompt_len: 64, output_len: 128, serving: { arrival: 'closed', concurrency: 32, num_requests: 256, cuda_graph_max_batch: 8 } } };
    const expected = predict(scenario);
    expect(expected.serving.eager_steps).toBeGreaterThan(0);
    expect(expected.warnings.map((w: { code: string }) => w.code)).toContain('serving.steps_beyond_cuda_graphs');
    const page = await site.page();
    await page.goto(`${site.origin}/${await encodeFragment(scenario)}`);
    await settled(page);
    expectShownAre(await metrics(page), expected);
    const warning = page.locator('[data-warning="serving.steps_beyond_cuda_graphs"]');
    expect(await warning.textContent()).toContain(`${expected.serving.eager_steps} of ${expected.serving.steps} steps`);
    expect(await warning.textContent()).toContain('the GPU waited on it for');
    const serving = page.locator('section.results-section', { has: page.locator('h3', { hasText: 'Serving' }) });
    expect(await serving.textContent()).toContain('of the steps ran without CUDA graphs (more sequences, or tokens under vLLM, than the largest graph the runtime captured');
    await page.locator('[data-testid="warnings"]').screenshot({ path: `${OUT}serving-eager-warning.png` });
    await serving.screenshot({ path: `${OUT}serving-eager-intro.png` });
    await page.close();
    site.expectNoProblems();
  });

  test('an RL rollout past the largest captured CUDA graph counts its eager steps in the rollout\'s formula', async () => {
    // verl's 7B colocated job on 32 H20 (1,024 responses an engine, vLLM capturing up to 512).
    const job = { schema_version: 1, model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: 32, rl: { prompts_per_step: 512, samples_per_prompt: 16, prompt_len: 1024, response_len: 4096, rollout: { tp: 4 } } };
    const expected = predict(job);
    expect(expected.rl.rollout.eager_steps).toBeGreaterThan(0);
    const page = await site.page();
    await page.goto(`${site.origin}/${await encodeFragment(job)}`);
    await settled(page);
    const rl = page.locator('[data-testid="rl"]');
    const rollout = rl.locator('.metric', { has: page.locator('[data-metric="rl.phases_s.rollout"]') });
    await rollout.locator('summary').click();
    const shown = (await rollout.textContent())!;
    expect(shown).toContain('steps without CUDA graphs (past the largest captured graph, or an eager prefill)');
    expect(shown).toContain(expected.rl.rollout.eager_steps.toLocaleString('en-US'));
    await rollout.screenshot({ path: `${OUT}rl-rollout-eager-steps.png` });
    await page.close();
    site.expectNoProblems();
  });

  test('an edit re-estimates, fast, and updates the address', async () => {
    const page = await site.page();
    await page.goto(`${site.origin}/${await encodeFragment(defaultScenario)}`);
    await settled(page);
    const times: number[] = [];
    for (const batch of [1024, 256, 2048, 768, 512, 1536]) {
      const ms = await editAndTime(page, '/training/global_batch', String(batch), 'training.iteration_time_s');
      expect(ms, `global_batch=${batch} changed the iteration time`).toBeGreaterThanOrEqual(0);
      times.push(ms);
      await settled(page);
      const expected = predict({ ...defaultScenario, training: { ...defaultScenario.training, global_batch: batch } });
      expectMetricsOf(await metrics(page), expected);
      const decoded = await decodeFragment(await page.evaluate(() => location.hash));
      expect(decoded.ok && (decoded.scenario as any).training.global_batch).toBe(batch);
    }
    times.sort((a, b) => a - b);
    measured.edit_median_ms = times[Math.floor(times.length / 2)]!;
    measured.edit_max_ms = times.at(-1)!;
    measured.edit_goal_met = measured.edit_median_ms < GOALS.editMs ? 1 : 0;
    expect(measured.edit_median_ms).toBeLessThan(GOALS.editMs * EDIT_FACTOR);
    await page.close();
    site.expectNoProblems();
  });

  test('accuracy: from the landing page, one click shows every source in under 2 s (desktop and phone)', async () => {
    // The sources: every data set and group of the rows the view holds.
    const sources = new Set<string>();
    for (const [set] of DATA_SETS) {
      for (const line of readFileSync(`../tests/validation/data/${set}.jsonl`, 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const c = JSON.parse(line) as { group?: string };
        sources.add(`${set}\u0000${c.group ?? set}`);
      }
    }
    for (const [vpName, vp] of Object.entries(VIEWPORTS)) {
      const { page } = await landing(site, vp);
      // One interaction: the click on the view's link.
      const t0 = Date.now();
      await page.click('nav.views a[data-view="accuracy"]');
      await page.waitForFunction((want) => document.querySelectorAll('[data-testid="accuracy-table"] tbody tr[data-source]').length === want, sources.size, { timeout: 30_000 });
      await page.locator('[data-testid="accuracy-chart"] svg').waitFor();
      const ms = Date.now() - t0;
      lines.push(`E2E_TASK accuracy ${vpName} interactions=1 ms=${ms} sources=${sources.size}`);
      expect(ms, 'every source on screen').toBeLessThan(2000);
      await page.screenshot({ path: `${OUT}task-accuracy-${vpName}.png` });
      // Each source predicted again in this browser, agreeing with what was shown, and axe-core
      // on the view once it has: page.e2e.ts's accuracy view test (it takes the serving
      // simulations' time, which runs beside the other browser tests).
      await page.close();
    }
    site.expectNoProblems();
  });
});
