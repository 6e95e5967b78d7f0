// A newcomer's tasks, played from the landing page with no prior state (a fresh browser context
// each), counting every interaction (a click, a pick from a list, a number typed): the test fails
// on any error shown, any page error or console error, or a count above the task's bound. Each
// task's numbers are checked against the engine run here on the scenario the page put in its
// address. Prints one line per task (E2E_TASK name interactions=N ms=T) and saves a screenshot
// of each task at 1440x900 and at 390x844 into build/e2e/. Issue 39. The timed task (every source
// of the accuracy view in under 2 s) is in timing.e2e.ts, which runs alone.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { decodeFragment } from '../src/codec/url';
import { OUT, VIEWPORTS, at, axeClean, freshPage, landing, metrics, siteWithEngine } from './harness';

const lines: string[] = [];
const { site, predict } = siteWithEngine(() => {
  for (const l of lines) console.log(l);
});

/** Counts the person's interactions and waits, after each, for the page to have answered. */
class Newcomer {
  count = 0;
  constructor(readonly page: Page) {}

  private async answered(): Promise<void> {
    // Ready, and the address holds the shown result's scenario (data-linked: the page writes the
    // link a few milliseconds after the result; truth() reads it).
    await this.page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="status"]');
      const st = el?.getAttribute('data-state');
      const ed = document.querySelector('[data-testid="editor"]')?.getAttribute('data-state');
      return st !== 'computing' && ed === 'ready' && (st !== 'ready' || el?.getAttribute('data-linked') === 'true');
    }, null, { timeout: 30_000 });
  }

  async click(selector: string): Promise<void> {
    this.count += 1;
    await this.page.locator(selector).first().click();
    await this.answered();
  }

  async pick(selector: string, value: string): Promise<void> {
    this.count += 1;
    await this.page.locator(selector).first().selectOption(value);
    await this.answered();
  }

  async type(selector: string, value: string): Promise<void> {
    this.count += 1;
    const input = this.page.locator(selector).first();
    await input.fill(value);
    await input.press('Enter');
    await input.blur();
    await this.answered();
  }

  /**
   * No error on screen once the page has finished computing (a pick can start a second estimate
   * after the first answer: a run of the suite read "Computing…" between the two): the status is
   * ready, no field or general error, no fix box.
   */
  async noError(): Promise<void> {
    await this.answered();
    const state = await this.page.locator('[data-testid="status"]').getAttribute('data-state');
    const status = await this.page.locator('[data-testid="status"]').textContent();
    expect(state, `status: ${status}`).toBe('ready');
    const shown = await this.page.$$eval('[role="alert"]:not([hidden])', (els) => els.map((e) => e.textContent?.trim()).filter((t) => t));
    expect(shown, 'errors shown').toEqual([]);
  }

  /** The scenario the page shows (its address) and the engine's prediction of it. */
  async truth(): Promise<{ scenario: Record<string, any>; prediction: any }> {
    const decoded = await decodeFragment(await this.page.evaluate(() => location.hash));
    expect(decoded.ok).toBe(true);
    const scenario = (decoded as { scenario: Record<string, any> }).scenario;
    return { scenario, prediction: predict(scenario) };
  }
}

/** The headline's numbers equal the engine's. */
async function headlineOf(page: Page): Promise<Record<string, string>> {
  return page.$$eval('[data-testid="headline"] [data-metric]', (els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-metric')!, e.getAttribute('data-value')!])));
}

/**
 * An error of 8 GPUs that no layout fits, in plain words with its code, whose one-click fix is
 * "Double the GPUs (16)"; clicked, an estimate on 16 whose `metric` in the headline is the
 * engine's (a screenshot of the error under `shot`, when given).
 */
async function doublingFix(n: Newcomer, words: string, code: string, metric: string, shot?: string): Promise<void> {
  const page = n.page;
  await page.waitForSelector('[data-testid="status"][data-state="error"]');
  const text = (await page.locator('[data-testid="error-fix"]').textContent())!;
  expect(text).toContain(words);
  expect(text).toContain(`Details: ${code}`);
  expect(await page.locator('[data-testid="fix"]').textContent()).toBe('Double the GPUs (16)');
  if (shot) {
    await page.locator('[data-testid="error-fix"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}${shot}.png` });
  }
  await n.click('[data-testid="fix"]');
  await n.noError();
  const { scenario, prediction } = await n.truth();
  expect(scenario.num_devices).toBe(16);
  expect((await headlineOf(page))[metric]).toBe(String(at(prediction, metric)));
}

interface TaskPlay {
  name: string;
  bound: number;
  play(n: Newcomer): Promise<void>;
  check(n: Newcomer): Promise<void>;
}

const TASK_PLAYS: TaskPlay[] = [
  {
    name: 'train-deepseek-v3-256-h100-ep',
    bound: 6,
    async play(n) {
      await n.click('[data-task="train"]');
      await n.pick('[data-quick="/model"]', 'deepseek-v3');
      await n.type('[data-quick="/num_devices"]', '256');
    },
    async check(n) {
      const { scenario, prediction } = await n.truth();
      expect(scenario.model).toBe('deepseek-v3');
      expect(scenario.num_devices).toBe(256);
      const layout = JSON.parse((await n.page.locator('[data-auto-layout]').getAttribute('data-auto-layout'))!);
      expect(layout).toEqual(prediction.parallel_auto.parallel);
      expect(layout.ep, 'the layout uses expert parallelism').toBeGreaterThan(1);
      const head = await headlineOf(n.page);
      expect(head['training.iteration_time_s']).toBe(String(prediction.training.iteration_time_s));
      expect(head['memory.fits']).toBe('true');
    },
  },
  {
    name: 'serve-llama3.3-70b-8-h100-32-users',
    bound: 6,
    async play(n) {
      await n.click('[data-task="serve"]');
      await n.pick('[data-quick="/model"]', 'llama3.3-70b');
      await n.type('[data-quick="/num_devices"]', '8');
      await n.type('[data-quick="/inference/serving/concurrency"]', '32');
    },
    async check(n) {
      const { scenario, prediction } = await n.truth();
      expect(scenario.model).toBe('llama3.3-70b');
      expect(scenario.num_devices).toBe(8);
      expect(scenario.inference.serving.concurrency).toBe(32);
      const head = await headlineOf(n.page);
      expect(head['serving.ttft_s.p90'], 'p90 TTFT in the headline').toBe(String(prediction.serving.ttft_s.p90));
      expect(head['serving.tpot_s.p50']).toBe(String(prediction.serving.tpot_s.p50));
      // The result cards agree with the headline.
      const all = await metrics(n.page);
      for (const [k, v] of Object.entries(all)) expect(v, k).toBe(String(at(prediction, k)));
    },
  },
  {
    name: 'plan-llama3-70b-15t-1024-h100',
    bound: 6,
    async play(n) {
      await n.click('[data-task="plan"]');
      await n.pick('[data-quick="/model"]', 'llama3-70b');
      await n.type('[data-quick="/training/train_tokens"]', '15e12');
      await n.type('[data-quick="/num_devices"]', '1024');
    },
    async check(n) {
      const { scenario, prediction } = await n.truth();
      expect(scenario.training.train_tokens).toBe(15e12);
      expect(scenario.num_devices).toBe(1024);
      const head = await headlineOf(n.page);
      expect(head['run.wall_days']).toBe(String(prediction.run.wall_days));
      expect(head['run.cost_usd']).toBe(String(prediction.run.cost_usd));
      expect(prediction.run.wall_days).toBeGreaterThan(30);
      expect(prediction.run.wall_days).toBeLessThan(1000);
    },
  },
  {
    name: 'rl-qwen2.5-7b-split-async-8-h100',
    bound: 6,
    async play(n) {
      await n.click('[data-task="rl"]');
      await n.type('[data-quick="/rl/response_len/max"]', '16384');
      await n.pick('[data-quick="/rl/placement"]', 'split');
      await n.type('[data-quick="/rl/async/staleness"]', '1');
    },
    async check(n) {
      const { scenario, prediction } = await n.truth();
      expect(scenario.rl).toMatchObject({ placement: 'split', rollout_devices: 4, train_devices: 4, async: { staleness: 1 }, response_len: { mean: 2048, max: 16384 } });
      const head = await headlineOf(n.page);
      expect(head['rl.step_time_s']).toBe(String(prediction.rl.step_time_s));
      expect(head['rl.tokens_per_s_per_gpu']).toBe(String(prediction.rl.tokens_per_s_per_gpu));
      const where = (await n.page.locator('[data-testid="rl-where"]').textContent())!;
      expect(where).toContain('Rollout pool: generating');
      expect(where).toContain('the longest response takes');
      // The timeline: one row per pool, drawn.
      const chart = n.page.locator('[data-testid="chart-rl-timeline"]');
      await chart.locator('svg').first().waitFor();
      const text = (await chart.textContent())!;
      expect(text).toContain('Rollout pool (4 GPUs)');
      expect(text).toContain("the next step's rollout runs beside this step's training");
      // A phone may break the row label before its bracket (two tspans, no space between them).
      expect(text).toMatch(/Training pool ?\(4 GPUs\)/);
      expect(text).toContain('Idle (waiting for the other pool)');
      expect(await n.page.locator('[data-testid="chart-time"]').isVisible(), 'no empty time breakdown beside the timeline').toBe(false);
      expect(await n.page.locator('[data-testid="chart-roofline"]').isVisible(), 'no roofline card for an RL step').toBe(false);
      // The RL results: the step with its 80% range (the engine's band), a formula to open, the
      // trainer's memory titled as such.
      const rl = n.page.locator('[data-testid="rl"]');
      const band = prediction.uncertainty['rl.step_time_s'];
      expect(band.regime).toBe('rl/step/split');
      const range = rl.locator('[data-band-metric="rl.step_time_s"]');
      expect(await range.getAttribute('data-low')).toBe(String(band.low));
      expect(await range.getAttribute('data-high')).toBe(String(band.high));
      expect(await rl.locator('[data-metric="rl.phases_s.train"]').getAttribute('data-value')).toBe(String(prediction.rl.phases_s.train));
      const trust = (await rl.locator('[data-testid="rl-trust"]').textContent())!;
      expect(trust).toContain('least accurate');
      // The split step rows' own band ends below the rollout's (fitted mostly on colocated rows);
      // the step's range is raised to it, and the words credit the rollout, not the step rows.
      expect(band.raised_by).toBe('rl.phases_s.rollout');
      expect(trust).toContain('because the rollout’s own range does');
      const step = rl.locator('.metric', { has: n.page.locator('[data-metric="rl.step_time_s"]') });
      await step.locator('summary').click();
      expect(await step.locator('.formula').textContent()).toContain('step = max(rollout,');
      const memory = n.page.locator('section.results-section', { has: n.page.locator('h3', { hasText: 'Memory per device: the trainer' }) });
      expect(await memory.count()).toBe(1);
      expect(await memory.locator('[data-metric="memory.per_device_bytes.kv_cache"]').count()).toBe(0);
      await rl.screenshot({ path: `${OUT}task-rl-results-${n.page.viewportSize()!.width}.png` });
      await memory.screenshot({ path: `${OUT}task-rl-memory-${n.page.viewportSize()!.width}.png` });
      await n.page.evaluate(() => window.scrollTo(0, 0));
      await n.page.screenshot({ path: `${OUT}task-rl-form-${n.page.viewportSize()!.width}.png` });
      const width = n.page.viewportSize()!.width;
      const headline = n.page.locator('[data-testid="headline"]');
      const atTop = (await headline.boundingBox())!.height;
      const pageY = async () => n.page.evaluate(() => document.querySelector('[data-testid="chart-rl-timeline"]')!.getBoundingClientRect().top + window.scrollY);
      const chartAt = await pageY();
      await chart.scrollIntoViewIfNeeded();
      if (width < 900) {
        // On a phone the headline stays at the top while the page scrolls, shrunk to its numbers
        // and one line of where the time goes: it leaves the timeline most of the screen.
        await n.page.locator('[data-testid="answer"].stuck').waitFor();
        const stuck = (await headline.boundingBox())!;
        expect(stuck.y).toBeLessThan(2);
        expect(stuck.height, `the stuck headline is ${stuck.height} px high, ${atTop} px in place`).toBeLessThan(Math.min(120, atTop * 0.6));
        expect(await n.page.locator('[data-testid="rl-where"]').textContent()).toContain('the longest response takes');
        // and what follows it stays where it was in the page (the height given up is kept)
        expect(await pageY()).toBe(chartAt);
        await n.page.evaluate(() => window.scrollTo(0, 0));
        await n.page.locator('[data-testid="answer"]:not(.stuck)').waitFor();
        expect((await headline.boundingBox())!.height).toBe(atTop);
        // Scrolled just past the edge, it sticks once and stays: the page does not move under it.
        const edge = await n.page.evaluate(() => Math.round(document.querySelector('.answer-mark')!.getBoundingClientRect().top + window.scrollY) + 3);
        await n.page.evaluate((y) => window.scrollTo(0, y), edge);
        await n.page.locator('[data-testid="answer"].stuck').waitFor();
        await n.page.waitForTimeout(400);
        expect(await n.page.evaluate(() => [window.scrollY, document.querySelector('[data-testid="answer"]')!.classList.contains('stuck')])).toEqual([edge, true]);
        await chart.scrollIntoViewIfNeeded();
        await n.page.locator('[data-testid="answer"].stuck').waitFor();
      }
      await n.page.screenshot({ path: `${OUT}task-rl-timeline-${width}.png` });
    },
  },
  {
    // Shorter responses: the longest lowered below the starter's mean moves the mean with it (at the
    // quarter the starter had), and the step is estimated, not refused.
    name: 'rl-qwen2.5-7b-short-responses-8-h100',
    bound: 2,
    async play(n) {
      await n.click('[data-task="rl"]');
      await n.type('[data-quick="/rl/response_len/max"]', '1024');
    },
    async check(n) {
      const { scenario, prediction } = await n.truth();
      expect(scenario.rl).toMatchObject({ response_len: { mean: 256, max: 1024 } });
      expect(await n.page.locator('[data-quick="/rl/response_len/mean"]').inputValue()).toBe('256');
      const head = await headlineOf(n.page);
      expect(head['rl.step_time_s']).toBe(String(prediction.rl.step_time_s));
    },
  },
  {
    // Every response exactly as long as the limit: the mean typed equal to a typed longest stays
    // (the engine reads it as one exact length), where a mean left to follow would have moved.
    name: 'rl-qwen2.5-7b-exact-responses-8-h100',
    bound: 3,
    async play(n) {
      await n.click('[data-task="rl"]');
      await n.type('[data-quick="/rl/response_len/max"]', '1024');
      await n.type('[data-quick="/rl/response_len/mean"]', '1024');
    },
    async check(n) {
      await n.noError();
      const { scenario, prediction } = await n.truth();
      expect(scenario.rl).toMatchObject({ response_len: { mean: 1024, max: 1024 } });
      const exact = predict({ ...scenario, rl: { ...scenario.rl, response_len: [[1024, 1]] } });
      expect(prediction.rl.step_time_s).toBe(exact.rl.step_time_s);
      const head = await headlineOf(n.page);
      expect(head['rl.step_time_s']).toBe(String(prediction.rl.step_time_s));
    },
  },
  {
    name: 'rl-llama3.1-70b-8-h100',
    bound: 4,
    async play(n) {
      await n.click('[data-task="rl"]');
      await n.pick('[data-quick="/model"]', 'llama3.1-70b');
    },
    async check(n) {
      // 70B x 18 bytes of training state is 158 GB a device on 8 H100 even fully sharded: the
      // engine keeps the optimizer in host memory (assumed, and said in plain words) rather than
      // refusing the job.
      const { scenario, prediction } = await n.truth();
      expect(scenario.model).toBe('llama3.1-70b');
      expect(prediction.rl.train.parallel.optimizer_offload).toBe(true);
      const head = await headlineOf(n.page);
      expect(head['rl.step_time_s']).toBe(String(prediction.rl.step_time_s));
      const warning = n.page.locator('[data-warning="rl.train_optimizer_offload_assumed"]');
      expect(await warning.textContent()).toContain('optimizer state in host memory');
      const memory = n.page.locator('section.results-section', { has: n.page.locator('h3', { hasText: 'Memory per device: the trainer' }) });
      const host = memory.locator('[data-metric="memory.host_bytes"]');
      expect(await host.getAttribute('data-value')).toBe(String(prediction.memory.host_bytes));
      // Colocated, the weight sync is the trainer's gather handed over on the same devices and the
      // engine's copy into its parameters: its formula says so, and no broadcast.
      const rl = n.page.locator('[data-testid="rl"]');
      const sync = rl.locator('.metric', { has: n.page.locator('[data-metric="rl.phases_s.weight_sync"]') });
      await sync.locator('summary').click();
      const formula = (await sync.locator('.formula').textContent())!;
      expect(formula).toContain('handed to the engine on the same devices, which copies its shard into its parameters');
      expect(formula).not.toContain('broadcast');
      await sync.screenshot({ path: `${OUT}task-rl-weight-sync-${n.page.viewportSize()!.width}.png` });
      await n.page.locator('[data-testid="warnings"]').screenshot({ path: `${OUT}task-rl-offload-warning-${n.page.viewportSize()!.width}.png` });
      await memory.screenshot({ path: `${OUT}task-rl-offload-memory-${n.page.viewportSize()!.width}.png` });
    },
  },
  {
    // An example opens its own task: the RL example the RL form, with its numbers.
    name: 'example-rl-grpo',
    bound: 1,
    async play(n) {
      await n.pick('[data-testid="scenario-preset"]', 'qwen2.5-7b-grpo-8xh100');
    },
    async check(n) {
      const { scenario, prediction } = await n.truth();
      expect(scenario.rl.train_steps).toBe(500);
      expect(await n.page.locator('[data-task="rl"]').getAttribute('aria-pressed')).toBe('true');
      expect(await n.page.locator('[data-quick="/rl/prompts_per_step"]').first().inputValue()).toBe('128');
      const head = await headlineOf(n.page);
      expect(head['rl.step_time_s']).toBe(String(prediction.rl.step_time_s));
    },
  },
  {
    name: 'example-serving',
    bound: 1,
    async play(n) {
      await n.pick('[data-testid="scenario-preset"]', 'llama3-70b-8xh100-serving');
    },
    async check(n) {
      const { scenario } = await n.truth();
      expect(scenario.inference.serving.requests_per_s).toBe(6);
      expect(await n.page.locator('[data-task="serve"]').getAttribute('aria-pressed')).toBe('true');
      expect(await n.page.locator('[data-task="train"]').getAttribute('aria-pressed')).toBe('false');
    },
  },
];

describe('a newcomer masters the page in a minute', () => {
  for (const [vpName, vp] of Object.entries(VIEWPORTS)) {
    for (const t of TASK_PLAYS) {
      test(`${t.name} (${vpName}): at most ${t.bound} interactions, no error`, async () => {
        const { page, t0 } = await landing(site, vp);
        const n = new Newcomer(page);
        await t.play(n);
        await n.noError();
        await t.check(n);
        const ms = Date.now() - t0;
        lines.push(`E2E_TASK ${t.name} ${vpName} interactions=${n.count} ms=${ms}`);
        expect(n.count).toBeLessThanOrEqual(t.bound);
        await page.screenshot({ path: `${OUT}task-${t.name}-${vpName}.png` });
        if (vpName === 'desktop') expect(await axeClean(page)).toEqual([]);
        await page.close();
      });
    }
  }

  test('an error: every number stale (the phone\'s sticky strip too), plain words, the code in a details line, the fix in one click', async () => {
    for (const [vpName, vp] of Object.entries(VIEWPORTS)) {
      const { page } = await landing(site, vp);
      const n = new Newcomer(page);
      // A data-parallel degree typed by hand that no longer fits the GPUs.
      await n.type('[data-path="/parallel/dp"]', '2');
      await page.waitForSelector('[data-testid="status"][data-state="error"]');
      expect(await page.locator('[data-testid="headline"]').getAttribute('class')).toContain('stale');
      expect(await page.locator('[data-testid="results"]').getAttribute('class')).toContain('stale');
      // The calibrate panel would fit the last valid scenario: greyed and out of reach.
      expect(await page.locator('[data-testid="calibrate"]').evaluate((el) => (el as HTMLElement).inert)).toBe(true);
      const fix = page.locator('[data-testid="error-fix"]');
      expect(await fix.isVisible()).toBe(true);
      const text = (await fix.textContent())!;
      expect(text).toContain('GPU count');
      expect(text).toContain('Details: parallel.product_mismatch');
      if (vpName === 'phone') {
        // Scrolled down the form, the stale strip is still in view.
        await page.evaluate(() => window.scrollBy(0, 1500));
        const box = await page.locator('[data-testid="headline"]').boundingBox();
        expect(box!.y).toBeGreaterThanOrEqual(-1);
        expect(box!.y).toBeLessThan(vp.height);
      }
      await page.screenshot({ path: `${OUT}error-${vpName}.png` });
      await n.click('[data-testid="fix"]');
      await n.noError();
      // A GPU count typed in the full editor that no layout fits: the short form shows it too
      // (it showed the last estimated count, 64, beside the error about 7).
      await n.type('[data-path="/num_devices"]', '7');
      await page.waitForSelector('[data-testid="status"][data-state="error"]');
      expect(await page.locator('[data-quick="/num_devices"]').inputValue()).toBe('7');
      // A count past the engine's range: said with the field's label and readable numbers.
      await n.type('[data-quick="/num_devices"]', '1e12');
      await page.waitForSelector('[data-testid="status"][data-state="error"]');
      expect(await page.locator('[data-testid="error-fix"]').textContent()).toContain('GPUs = 1,000,000,000,000 is above what the engine accepts (1 to 100,000,000)');
      // ...and at the field it was typed in.
      const gpus = page.locator('[data-quick="/num_devices"]');
      expect(await gpus.getAttribute('aria-invalid')).toBe('true');
      expect(await gpus.locator('xpath=following-sibling::span[contains(@class, "error")]').textContent()).toContain('above what the engine accepts');
      await n.type('[data-quick="/num_devices"]', '64');
      await n.noError();
      expect(await gpus.getAttribute('aria-invalid')).toBe('false');
      expect(await page.locator('[data-testid="headline"]').getAttribute('class')).not.toContain('stale');
      expect(await page.locator('[data-testid="calibrate"]').evaluate((el) => (el as HTMLElement).inert)).toBe(false);
      const { scenario, prediction } = await n.truth();
      expect(scenario.parallel.dp).toBeUndefined();
      expect((await headlineOf(page))['training.iteration_time_s']).toBe(String(prediction.training.iteration_time_s));
      await page.close();
    }
  });

  /**
   * The landing's Llama 3 70B, its layout left to the search, on 8 H100: its weights, gradients
   * and Adam state (1.26 TB) fit no layout of 640 GB.
   */
  async function trainingNoLayout(): Promise<{ page: Page; n: Newcomer }> {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-path="/parallel"]');
    await n.noError();
    expect(await page.locator('[data-path="/parallel"]').isChecked()).toBe(true);
    await n.type('[data-quick="/num_devices"]', '8');
    return { page, n };
  }

  test('a training job that no layout of its GPUs fits: plain words, and the fix doubles the GPUs', async () => {
    const { page, n } = await trainingNoLayout();
    await doublingFix(n, 'no layout of these GPUs fits the model in memory', 'parallel.auto_no_layout', 'training.iteration_time_s', 'error-training-no-layout');
    await page.close();
  });

  test('a training job that no layout of its GPUs fits: the second way out keeps the optimizer in host memory, on the same GPUs', async () => {
    const { page, n } = await trainingNoLayout();
    await page.waitForSelector('[data-testid="status"][data-state="error"]');
    expect(await page.locator('[data-testid="error-fix"]').textContent()).toContain('or keep the optimizer state in host memory');
    const alt = page.locator('[data-testid="fix-alt"]');
    // the layout the engine's refusal named (core/search/auto_layout.cpp), e.g. "(tp 4, pp 2, dp 1)"
    expect(await alt.textContent()).toMatch(/^Keep the optimizer in host memory \(tp \d+, pp \d+, dp \d+\)$/);
    await page.locator('[data-testid="error-fix"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}error-training-no-layout-two-fixes.png` });
    await n.click('[data-testid="fix-alt"]');
    await n.noError();
    const { scenario, prediction } = await n.truth();
    expect(scenario.num_devices).toBe(8);
    const parallel = scenario.parallel as Record<string, unknown>;
    expect(parallel.optimizer_offload).toBe(true);
    expect(prediction.memory?.fits).toBe(true);
    expect((await headlineOf(page))['training.iteration_time_s']).toBe(String(at(prediction, 'training.iteration_time_s')));
    await page.screenshot({ path: `${OUT}training-host-optimizer-fix-applied.png` });
    await page.close();
  });

  test('a training job spread over more GPUs than any layout divides it into: words that say fewer, and no button for more', async () => {
    const { page, n } = await trainingNoLayout();
    await n.type('[data-quick="/num_devices"]', '100000');
    await page.waitForSelector('[data-testid="status"][data-state="error"]');
    const box = page.locator('[data-testid="error-fix"]');
    expect(await box.textContent()).toContain('no layout divides this job over these GPUs');
    expect(await box.textContent()).toContain('use fewer GPUs, or a larger global batch');
    expect(await box.textContent()).toContain('fewer devices or a larger global batch would');
    expect(await page.locator('[data-testid="fix"]').isHidden()).toBe(true);
    // The status says it on one line beside the Example picker (the box says it whole), the whole text in its title.
    const status = page.locator('[data-testid="status"]');
    expect(await status.getAttribute('title')).toContain('use fewer GPUs, or a larger global batch');
    const [st, ex] = [await status.boundingBox(), await page.locator('#example').boundingBox()];
    expect(st !== null && ex !== null && Math.abs(st.y + st.height / 2 - (ex.y + ex.height / 2))).toBeLessThan(12);
    expect(st!.height).toBeLessThan(40);
    await box.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}error-training-divides-nothing.png` });
    await n.type('[data-quick="/num_devices"]', '64');
    await n.noError();
    await page.close();
  });

  test('a training job far too large for its GPUs: the fix gives it the fewest the engine found a layout for, in one click', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="train"]');
    await n.pick('[data-quick="/model"]', 'deepseek-v3');
    await n.type('[data-quick="/num_devices"]', '32');
    await page.waitForSelector('[data-testid="status"][data-state="error"]');
    const fix = page.locator('[data-testid="fix"]');
    const label = (await fix.textContent())!;
    // e.g. "Use 168 GPUs (the fewest that run it)": past twice the 32, as the engine's refusal says
    const [, fewest] = /^Use (\d+) GPUs \(the fewest that run it\)$/.exec(label) ?? [];
    expect(Number(fewest), label).toBeGreaterThan(64);
    const said = /(\d+) devices would \(no layout of (\d+) does\)/.exec((await page.locator('[data-testid="error-fix"]').textContent())!);
    expect(said?.[1]).toBe(fewest);
    expect(Number(said?.[2]), 'the engine names a count refused below it').toBeLessThan(Number(fewest));
    await page.locator('[data-testid="error-fix"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}error-training-fewest-gpus.png` });
    await n.click('[data-testid="fix"]');
    await n.noError();
    const { scenario, prediction } = await n.truth();
    expect(scenario.num_devices).toBe(Number(fewest));
    expect(prediction.memory?.fits).toBe(true);
    expect((await headlineOf(page))['training.iteration_time_s']).toBe(String(at(prediction, 'training.iteration_time_s')));
    await page.close();
  });

  test('a model the starting GPUs cannot hold: the GPUs follow it to the fewest that run it, said in a note, no error', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="serve"]');
    const before = Number(await page.locator('[data-quick="/num_devices"]').inputValue());
    // DeepSeek-R1 at its published 8 bits is 671 GB: more than the serving task's starting GPUs hold.
    await n.pick('[data-quick="/model"]', 'deepseek-r1');
    await n.noError();
    const { scenario, prediction } = await n.truth();
    expect(scenario.model).toBe('deepseek-r1');
    expect(scenario.num_devices, 'the GPUs grew').toBeGreaterThan(before);
    // the count is the engine's: the fewest its refusal of the starting count named
    const refused = predict({ ...scenario, num_devices: before });
    expect(refused.error?.fewest_devices).toBe(scenario.num_devices);
    const note = (await page.locator('[data-testid="task-follow-note"]').textContent())!;
    expect(note).toContain(`The GPUs followed to ${scenario.num_devices}`);
    expect(note, 'what followed the pick itself is still said').toContain('The precision followed to fp8');
    expect(await page.locator('[data-quick="/num_devices"]').inputValue()).toBe(String(scenario.num_devices));
    expect((await headlineOf(page))['serving.tpot_s.p50']).toBe(String(prediction.serving.tpot_s.p50));
    await page.screenshot({ path: `${OUT}serve-gpus-follow-model.png` });
    // GPUs typed by the person are theirs: a model they cannot hold is refused, with its fix
    await n.type('[data-quick="/num_devices"]', String(before));
    await page.waitForSelector('[data-testid="status"][data-state="error"]');
    expect(await page.locator('[data-testid="fix"]').textContent()).toContain(`${scenario.num_devices} GPUs`);
    await page.close();
  });

  test('an RL trainer that no layout fits: plain words, and the fix doubles the GPUs until one does', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="rl"]');
    // GPUs the person typed stay theirs (the starting count would follow the model: the test
    // above); 8 is the starting count, so typed after another to count as the person's.
    await n.type('[data-quick="/num_devices"]', '16');
    await n.type('[data-quick="/num_devices"]', '8');
    // gpt-oss-120b's 117 B parameters with gradients and Adam state on 8 H100: no trainer layout.
    await n.pick('[data-quick="/model"]', 'gpt-oss-120b');
    await doublingFix(n, 'add GPUs, or pick GPUs with more memory', 'rl.train_no_layout', 'rl.step_time_s');
    await page.close();
  });

  test('RL engines that hold no response: the fix gives the job the fewest GPUs the engine named, colocated and split', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="rl"]');
    await n.type('[data-quick="/num_devices"]', '16');
    await n.type('[data-quick="/num_devices"]', '8');
    // DeepSeek-V3 at 8 bits is 671 GB, over 8 H100's 640 GB: no rollout engine holds it.
    await n.pick('[data-quick="/model"]', 'deepseek-v3');
    await page.waitForSelector('[data-testid="status"][data-state="error"]');
    const box = page.locator('[data-testid="error-fix"]');
    expect(await box.textContent()).toContain('the rollout engines cannot hold the model');
    expect(await box.textContent()).toContain('rl.rollout_does_not_fit');
    const fix = page.locator('[data-testid="fix"]');
    const label = (await fix.textContent())!;
    // colocated: the engines fit from 16 GPUs, the trainer's search first past that
    const [, fewest] = /^Use (\d+) GPUs \(the fewest that run it\)$/.exec(label) ?? [];
    expect(Number(fewest), label).toBeGreaterThan(16);
    expect(await box.textContent()).toMatch(new RegExp(`${fewest} devices would \\(no layout of \\d+ does\\)`));
    await box.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}error-rl-rollout-fewest-gpus.png` });
    await n.click('[data-testid="fix"]');
    await n.noError();
    let { scenario, prediction } = await n.truth();
    expect(scenario.num_devices).toBe(Number(fewest));
    expect((await headlineOf(page))['rl.step_time_s']).toBe(String(prediction.rl.step_time_s));
    // an engine tp stated that holds no response (671 GB over 8 GPUs of 80 GB): more GPUs would not
    // widen it; the fix lets the engines choose theirs again
    await page.locator('[data-path="/rl/rollout/tp"]').scrollIntoViewIfNeeded();
    await n.type('[data-path="/rl/rollout/tp"]', '8');
    await page.waitForSelector('[data-testid="status"][data-state="error"]');
    expect(await fix.textContent()).toBe('Let the rollout engines choose their tensor parallelism');
    expect(await box.textContent()).toContain('at the tensor parallelism stated');
    await n.click('[data-testid="fix"]');
    await n.noError();
    expect((await n.truth()).scenario.rl.rollout?.tp).toBeUndefined();
    expect(await page.locator('[data-path="/rl/rollout/tp"]').inputValue()).toBe('');
    // split on 8 GPUs (4 + 4): neither pool holds its part. The engine names both pools, and one
    // click grows both (the rollout's, then the trainer's beside it)
    await n.type('[data-quick="/num_devices"]', '8');
    await n.pick('[data-quick="/rl/placement"]', 'split');
    await page.waitForSelector('[data-testid="status"][data-state="error"]');
    const both = (await fix.textContent())!;
    const [, rollout, train, total] = /^Give the rollout (\d+) GPUs and the trainer (\d+) \((\d+) in all\)$/.exec(both) ?? [];
    expect(Number(rollout) + Number(train), both).toBe(Number(total));
    expect(Number(train), both).toBeGreaterThan(4);
    expect(await box.textContent()).toContain(`a rollout pool of ${rollout} devices and a training pool of ${train} would`);
    await box.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}error-rl-split-both-pools.png` });
    await n.click('[data-testid="fix"]');
    await n.noError();
    ({ scenario, prediction } = await n.truth());
    expect(scenario.num_devices).toBe(Number(total));
    expect(scenario.rl).toMatchObject({ placement: 'split', rollout_devices: Number(rollout), train_devices: Number(train) });
    expect((await headlineOf(page))['rl.step_time_s']).toBe(String(prediction.rl.step_time_s));
    await page.screenshot({ path: `${OUT}rl-split-fewest-gpus-applied.png` });
    await page.close();
  });

  test('serving with speculative decoding from the short form: tokens drafted a step, the engine\'s numbers, cleared again', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="serve"]');
    const field = '[data-quick="/inference/speculative/draft_tokens"]';
    expect(await page.locator(field).getAttribute('placeholder')).toBe('none');
    await n.type(field, '3');
    await n.noError();
    const { scenario, prediction } = await n.truth();
    expect(scenario.inference.speculative).toEqual({ draft_tokens: 3 });
    expect(prediction.inference.speculative.tokens_per_step).toBeGreaterThan(1);
    expect((await headlineOf(page))['serving.tpot_s.p50']).toBe(String(prediction.serving.tpot_s.p50));
    // The starter's Llama 3.1 8B ships no MTP module: the engine says so in a warning.
    expect(prediction.warnings.map((w: any) => w.code)).toContain('speculative.mtp_not_native');
    await page.screenshot({ path: `${OUT}serve-speculative.png` });
    await n.type(field, '');
    await n.noError();
    expect((await n.truth()).scenario.inference.speculative).toBeUndefined();
    await page.close();
  });

  test('serving with a shared system prompt: a value typed over the derived 0 stops looking derived, and the first token comes sooner', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="serve"]');
    const before = (await n.truth()).prediction.serving.ttft_s.p50;
    const field = '[data-path="/inference/serving/shared_prefix_len"]';
    expect(await page.locator(field).getAttribute('class')).toContain('derived');
    await n.type(field, '768');
    await n.noError();
    expect(await page.locator(field).getAttribute('class')).not.toContain('derived');
    const { scenario, prediction } = await n.truth();
    expect(scenario.inference.serving.shared_prefix_len).toBe(768);
    expect(prediction.serving.ttft_s.p50).toBeLessThan(before);
    await page.close();
  });

  test('serving more users than requests: the requests follow the users, ten each, and the numbers are of that load', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="serve"]');
    await n.type('[data-quick="/inference/serving/concurrency"]', '600');
    await n.noError();
    const { scenario, prediction } = await n.truth();
    expect(scenario.inference.serving).toMatchObject({ arrival: 'closed', concurrency: 600, num_requests: 6000 });
    expect(prediction.warnings.map((w: any) => w.code)).not.toContain('serving.clients_beyond_requests');
    await page.close();
  });

  test('the first numbers come with the task form filled, not blank, while the full engine still loads', async () => {
    const page = await freshPage(site, VIEWPORTS.desktop);
    // The form's schema comes from the full engine: held back, the first numbers arrive without it.
    let release = (): void => undefined;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/optimus_wasm-*.wasm', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${site.origin}/`);
    await page.waitForSelector('[data-testid="status"][data-state="ready"]', { timeout: 30_000 });
    expect(await page.locator('[data-testid="editor"]').getAttribute('data-state')).not.toBe('ready');
    const model = page.locator('[data-quick="/model"]');
    expect(await model.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe('Llama 3 70B');
    expect(await page.locator('[data-quick="/num_devices"]').inputValue()).toBe('64');
    release();
    await page.waitForSelector('[data-testid="editor"][data-state="ready"]', { state: 'attached' });
    await page.close();
  });

  test('compare: pinning moves the keyboard to the GPUs, the next thing to change', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="compare"]');
    await page.getByRole('button', { name: 'Pin this result, then change the GPUs' }).click();
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.quick)).toBe('/num_devices');
    expect(await page.locator('[data-testid="pin"]').getAttribute('aria-pressed')).toBe('true');
    await page.close();
  });

  test('compare: the cheapest GPU for a whole run prices the person’s own model, and the link keeps it', async () => {
    const { page } = await landing(site, VIEWPORTS.desktop);
    const n = new Newcomer(page);
    await n.click('[data-task="compare"]');
    await n.pick('[data-quick="/model"]', 'llama3.1-8b');
    await page.getByRole('button', { name: 'Cheapest GPU for a whole run' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="study-table"] tbody tr').length > 1, null, { timeout: 30_000 });
    expect(new URL(page.url()).search).toBe('?study=cheapest-accelerator&job=scenario');
    const job = page.locator('[data-testid="study-job"]');
    expect(await job.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent)).toMatch(/^Your scenario’s: Llama 3\.1 8B on 64 GPUs/);
    expect(await page.locator('.notes li').first().textContent()).toMatch(/^Llama 3\.1 8B, 15T tokens, seq 8192/);
    await page.screenshot({ path: `${OUT}compare-cheapest-own-model.png`, fullPage: true });
    await page.close();
  });

  test('no page errors or console errors in any task', () => {
    expect(site.problems.pageErrors).toEqual([]);
    expect(site.problems.consoleErrors).toEqual([]);
  });
});
