// "Calibrate with your measurement" (ui/calibrate.ts) in headless Chromium: a step time typed
// for the scenario on screen is fitted by the engine (the factor and the calibrated number shown
// are the engine's, run here on the same lines), applying it puts the calibration in the share
// link, and that link opened afresh shows the calibrated numbers; bad input is an error in words
// with its code; a benchmark file is read against the scenario; axe-core finds nothing serious in
// the panel. Screenshots into build/e2e/calibrate-*.png.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { decodeFragment, encodeFragment } from '../src/codec/url';
import { readJson, ROOT } from '../test/wasm';
import { OUT, metrics, settled, siteWithEngine } from './harness';
import { LLAMA3_8B_H100_OFFLINE } from '../test/scenarios';

const { site, engine, predict } = siteWithEngine();
const defaultScenario = readJson('presets/scenarios/default.json') as Record<string, any>;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const panel = '[data-testid="calibrate"]';

/** axe-core's serious or critical violations inside the panel. */
async function axePanel(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (sel) => {
    const axe = (window as unknown as { axe: { run(ctx: Element, o: unknown): Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe;
    const r = await axe.run(document.querySelector(sel)!, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}(${v.impact})`);
  }, panel);
}

/**
 * A tool's example file (tests/data/import/) read against `scenario` by the engine, the fit of its
 * lines, and a page on the scenario with the same file pasted into the panel and read.
 */
async function importOnPage(format: string, name: string, scenario: object): Promise<{ page: Page; imported: any; fit: any }> {
  const file = readFileSync(`${ROOT}tests/data/import/${name}`, 'utf8');
  const imported = JSON.parse(engine().import_measurements!(format, file, JSON.stringify(scenario)));
  expect(imported.error).toBeUndefined();
  const fit = JSON.parse(engine().calibrate!(imported.measurements.map((m: unknown) => JSON.stringify(m)).join('\n')));
  expect(fit.error).toBeUndefined();
  const page = await site.page();
  await page.goto(`${site.origin}/${await encodeFragment(scenario)}`);
  await settled(page);
  await page.click(`${panel} [data-testid="calibrate-paste"] summary`);
  await page.selectOption(`${panel} [data-testid="calibrate-format"]`, format);
  await page.fill(`${panel} [data-testid="calibrate-text"]`, file);
  await page.click(`${panel} [data-testid="calibrate-import"]`);
  return { page, imported, fit };
}

describe('calibrate with your measurement', () => {
  test('a typed step time: the fitted factor and calibrated number are the engine’s; apply; the link carries it', async () => {
    const page = await site.page();
    await page.goto(`${site.origin}/${await encodeFragment(defaultScenario)}`);
    await settled(page);
    const predicted = predict(defaultScenario).training.iteration_time_s as number;
    // Measured twice as slow as predicted.
    const measured = predicted * 2;
    await page.selectOption(`${panel} [data-testid="calibrate-metric"]`, 'training.iteration_time_s');
    await page.fill(`${panel} [data-testid="calibrate-value"]`, String(measured));
    await page.click(`${panel} [data-testid="calibrate-fit"]`);
    await page.waitForSelector(`${panel} [data-testid="calibrate-compare"]`);

    // The engine's own fit on the same line.
    const line = JSON.stringify({ scenario: defaultScenario, metric: 'training.iteration_time_s', measured });
    const fit = JSON.parse(engine().calibrate!(line));
    expect(fit.error).toBeUndefined();
    const shownFactors = await page.$$eval(`${panel} [data-factor]`, (els) => els.map((e) => [e.getAttribute('data-factor'), Number(e.getAttribute('data-value')), e.textContent]));
    const moved = fit.fitted.filter((f: { value: number; fitted?: boolean }) => f.fitted !== false && f.value !== 1);
    expect(shownFactors.map(([f, v]) => [f, v])).toEqual(moved.map((f: { factor: string; value: number }) => [f.factor, f.value]));
    // Twice as slow: the matmul rate (the step's largest term) goes down, within its bounds.
    const matmul = shownFactors.find(([f]) => f === 'matmul');
    expect(matmul, 'the matmul rate is fitted').toBeDefined();
    expect(matmul![1]).toBeLessThan(1);
    expect(matmul![2]).toMatch(/^matmul rate ×0\.\d+ \(\d/);
    // The calibrated step time is the engine's for the scenario with the calibration, and close
    // to what was measured.
    const calibrated = predict({ ...defaultScenario, calibration: fit.calibration });
    const row = await page.$eval(`${panel} [data-calibrated-metric="training.iteration_time_s"]`, (e) => [Number(e.getAttribute('data-value')), Number(e.getAttribute('data-uncalibrated'))]);
    expect(row[0]).toBe(calibrated.training.iteration_time_s);
    expect(row[1]).toBe(predicted);
    expect(Math.abs(row[0]! / measured - 1)).toBeLessThan(0.02);
    const after = Number(await page.$eval(`${panel} [data-case-metric="training.iteration_time_s"] [data-after]`, (e) => e.getAttribute('data-after')));
    expect(after).toBe(fit.cases[0].after);
    await page.$eval(panel, (e) => e.scrollIntoView());
    await (await page.$(panel))!.screenshot({ path: `${OUT}calibrate-fit.png` });
    expect(await axePanel(page)).toEqual([]);

    // Apply: the scenario gets the calibration, the results are calibrated, the link holds it.
    await page.click(`${panel} [data-testid="calibrate-apply"]`);
    await page.waitForSelector(`${panel} [data-applied="true"]`);
    await settled(page);
    await page.waitForFunction((want) => document.querySelector('.results [data-metric="training.iteration_time_s"]')?.getAttribute('data-value') === want, String(calibrated.training.iteration_time_s));
    const hash = await page.evaluate(() => location.hash);
    const decoded = await decodeFragment(hash);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect((decoded.scenario as Record<string, unknown>).calibration).toEqual(fit.calibration);
    expect(await axePanel(page)).toEqual([]);
    await page.close();

    // The share link opened afresh: calibrated numbers, the calibration said.
    const again = await site.page(true);
    await again.goto(`${site.origin}/${hash}`);
    await settled(again);
    await again.waitForSelector(`${panel} [data-applied="true"]`);
    const shown = await metrics(again);
    expect(Number(shown['training.iteration_time_s'])).toBe(calibrated.training.iteration_time_s);
    expect(await again.$eval(`${panel} [data-testid="calibrate-applied"]`, (e) => e.textContent)).toMatch(/calibrated: matmul rate ×0\.\d+/);
    await again.$eval(panel, (e) => e.scrollIntoView());
    await again.screenshot({ path: `${OUT}calibrate-applied.png` });
    // Removing it gives the uncalibrated numbers back.
    await again.click(`${panel} [data-testid="calibrate-remove"]`);
    await again.waitForFunction((want) => document.querySelector('.results [data-metric="training.iteration_time_s"]')?.getAttribute('data-value') === want, String(predicted));
    await again.close();
  });

  test('bad input: an error in words, the code in a details line; nothing applied', async () => {
    const page = await site.page();
    await page.goto(`${site.origin}/${await encodeFragment(defaultScenario)}`);
    await settled(page);
    await page.selectOption(`${panel} [data-testid="calibrate-metric"]`, 'training.iteration_time_s');
    await page.fill(`${panel} [data-testid="calibrate-value"]`, '-3');
    await page.click(`${panel} [data-testid="calibrate-fit"]`);
    await page.waitForSelector(`${panel} [data-testid="calibrate-error"]:not([hidden])`);
    expect(await page.$eval(`${panel} [data-testid="calibrate-error"]`, (e) => e.textContent)).toMatch(/positive number.*calibrate\.measured_not_positive/s);
    // A thousand times the prediction: the engine refuses it and says by how much.
    const predicted = predict(defaultScenario).training.iteration_time_s as number;
    await page.fill(`${panel} [data-testid="calibrate-value"]`, String(predicted * 1000));
    await page.click(`${panel} [data-testid="calibrate-fit"]`);
    await page.waitForFunction((sel) => /calibrate\.measured_absurd at \/1\/measured/.test(document.querySelector(`${sel} [data-testid="calibrate-error"]`)?.textContent ?? ''), panel);
    expect(await page.$(`${panel} [data-testid="calibrate-apply"]`)).toBeNull();
    // A file that is not the chosen tool's.
    await page.click(`${panel} [data-testid="calibrate-paste"] summary`);
    await page.selectOption(`${panel} [data-testid="calibrate-format"]`, 'vllm');
    await page.fill(`${panel} [data-testid="calibrate-text"]`, 'iteration 10 | loss 2.1');
    await page.click(`${panel} [data-testid="calibrate-import"]`);
    await page.waitForFunction((sel) => /import\.malformed/.test(document.querySelector(`${sel} [data-testid="calibrate-error"]`)?.textContent ?? ''), panel);
    const decoded = await decodeFragment(await page.evaluate(() => location.hash));
    expect(decoded.ok && 'calibration' in (decoded.scenario as Record<string, unknown>)).toBe(false);
    await page.close();
  });

  test('a vLLM bench serve result read against the serving scenario on screen', async () => {
    const { page, fit } = await importOnPage('vllm', 'vllm_bench_serve.json', LLAMA3_8B_H100_OFFLINE);
    await page.waitForSelector(`${panel} [data-testid="calibrate-cases"]`);
    const cases = await page.$$eval(`${panel} [data-case-metric]`, (els) => els.map((e) => e.getAttribute('data-case-metric')));
    expect(cases).toEqual(fit.cases.map((c: { metric: string }) => c.metric));
    const factors = await page.$$eval(`${panel} [data-factor]`, (els) => els.map((e) => [e.getAttribute('data-factor'), Number(e.getAttribute('data-value'))]));
    expect(factors).toEqual(fit.fitted.filter((f: { value: number; fitted?: boolean }) => f.fitted !== false && f.value !== 1).map((f: { factor: string; value: number }) => [f.factor, f.value]));
    await page.$eval(panel, (e) => e.scrollIntoView());
    await (await page.$(panel))!.screenshot({ path: `${OUT}calibrate-import.png` });
    expect(await axePanel(page)).toEqual([]);
    await page.close();
  });

  test('a verl log read against the RL job on screen; the measured run loaded, calibrated, with its own lengths', async () => {
    const job = {
      model: 'qwen2.5-7b',
      system: 'dgx-h100',
      num_devices: 8,
      rl: { placement: 'colocated', prompts_per_step: 128, samples_per_prompt: 16, prompt_len: 1024, response_len: 8192, reference: false, train: { tp: 1, dp: 8, zero_stage: 3 } },
    };
    const { page, imported, fit } = await importOnPage('verl', 'verl_console.log', job);
    const run = { ...imported.measurements[0].scenario, calibration: fit.calibration };
    const step = predict(run).rl.step_time_s as number;
    await page.waitForSelector(`${panel} [data-testid="calibrate-apply-run"]`, { timeout: 60_000 });
    const cases = await page.$$eval(`${panel} [data-case-metric]`, (els) => els.map((e) => e.getAttribute('data-case-metric')));
    expect(cases).toEqual(fit.cases.map((c: { metric: string }) => c.metric));
    await page.$eval(panel, (e) => e.scrollIntoView());
    await (await page.$(panel))!.screenshot({ path: `${OUT}calibrate-import-verl.png` });
    expect(await axePanel(page)).toEqual([]);
    await page.click(`${panel} [data-testid="calibrate-apply-run"]`);
    await page.waitForFunction((want) => document.querySelector('.results [data-metric="rl.step_time_s"]')?.getAttribute('data-value') === want, String(step), { timeout: 60_000 });
    const decoded = await decodeFragment(await page.evaluate(() => location.hash));
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const rl = (decoded.scenario as { rl: Record<string, unknown> }).rl;
    expect(rl.response_len).toEqual({ mean: 1731, max: 8192 });
    expect((decoded.scenario as Record<string, unknown>).calibration).toEqual(fit.calibration);
    await page.close();
  });

  test('no console errors or page errors', () => {
    expect(site.problems.pageErrors).toEqual([]);
    expect(site.problems.consoleErrors).toEqual([]);
  });
});
