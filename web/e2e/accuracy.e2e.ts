// The accuracy view in headless Chromium: every validation row predicted in the browser, the
// mean error and the per-source table equal to the engine's, each source predicted again there.
// Its own file (it was 98 s of page.e2e.ts's 209 s), so that it runs beside the others
// (vitest.e2e.config.ts). Prints an E2E_METRICS line with the view's time to its first table.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DATA_SETS, isIndependent, metricValue } from '../src/ui/accuracy';
import { axeClean, recordWorkerCalls, reportMetrics, siteWithEngine, workerCalls } from './harness';

const measured: Record<string, number> = {};
const { site, predict } = siteWithEngine(() => reportMetrics('accuracy', measured));

describe('the accuracy view', () => {
  test('accuracy view: every validation row predicted in the browser; the mean error and the per-source table equal the engine\'s; each source predicted again there agrees', async () => {
    const page = await site.page();
    await recordWorkerCalls(page);
    const started = Date.now();
    await page.goto(`${site.origin}/?view=accuracy`);
    const status = page.locator('[data-testid="accuracy-status"][data-value]');
    await status.waitFor({ timeout: 120_000 });
    measured.accuracyViewMs = Date.now() - started;
    // What the view shows first (the build's answers), read before the engine here predicts the
    // rows, which it does while the page predicts them again.
    const shownMean = Number(await status.getAttribute('data-value'));
    const rows = await page.locator('[data-testid="accuracy-table"] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute('data-set'), tr.getAttribute('data-source'), tr.children[3]!.getAttribute('data-value')]),
    );
    // At 1280 px every column is in view: the long source titles wrap instead of pushing the
    // numbers past the right edge (the table was 2,003 px wide in a 1,246 px card).
    const widths = await page.locator('[data-testid="accuracy-table"]').evaluate((t) => ({ table: t.scrollWidth, box: t.parentElement!.clientWidth }));
    expect(widths.table).toBeLessThanOrEqual(widths.box);
    // Every data set the page bundles (web/test/ui/accuracy.test.ts holds them equal to the validation suite's).
    const sets = DATA_SETS.map(([set]) => set);
    let total = 0;
    let n = 0;
    const perSource = new Map<string, number[]>();
    // Rows of one scenario (a serving table's TTFT, TPOT and throughput) share one prediction.
    const predictions = new Map<string, any>();
    for (const set of sets) {
      for (const line of readFileSync(`../tests/validation/data/${set}.jsonl`, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const c = JSON.parse(line) as { scenario: unknown; metric: string; expected: number; group?: string };
        const key = JSON.stringify(c.scenario);
        if (!predictions.has(key)) predictions.set(key, predict(c.scenario));
        const p = predictions.get(key);
        const v = p.error ? undefined : metricValue(p, c.metric);
        const e = v === undefined ? 1 : Math.abs(v / c.expected - 1);
        // The summary line counts the independent rows (not_independent.json lists the others).
        if (isIndependent(set, c.group ?? set)) {
          total += e;
          n += 1;
        }
        const source = `${set}\u0000${c.group ?? set}`;
        perSource.set(source, [...(perSource.get(source) ?? []), e]);
      }
    }
    expect(shownMean).toBeCloseTo(total / n, 12);
    expect(rows.length).toBe(perSource.size);
    for (const [set, source, mean] of rows) {
      const es = perSource.get(`${set}\u0000${source}`)!;
      expect(Number(mean), `${set} ${source}`).toBeCloseTo(es.reduce((a, b) => a + b, 0) / es.length, 12);
    }
    await page.locator('[data-testid="accuracy-chart"] svg').waitFor();
    // Then each source is predicted again in this browser, and agrees with what was shown (it
    // takes the serving simulations' time); axe-core on the finished view.
    await page.waitForSelector('[data-testid="accuracy-status"][data-checked="true"]', { timeout: 240_000 });
    const checked = (await page.locator('[data-testid="accuracy-status"]').textContent()) ?? '';
    // The engine worker's calls that were slow, failed or not answered, with their times: none is
    // still waiting once the view says every source was checked, and on a failure they say
    // which call the worker was on.
    const calls = await workerCalls(page);
    expect(calls).not.toContain('never answered');
    expect(checked, checked.includes('the same numbers') ? '' : calls).toContain('the same numbers');
    expect(await axeClean(page)).toEqual([]);
    await page.close();
  }, 300_000);

  test('no console errors, page errors or requests outside the site', () => {
    site.expectNoProblems();
  });
});
