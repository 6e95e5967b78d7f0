// The views (Estimate, Search, Studies, Learn) in headless Chromium: each has its own address
// and history entry, back and forward return to where one was, a study link opens on the study,
// every lesson's widgets move the engine's numbers (checked against the engine run here), the
// exercises are answered by the engine, a study lesson links its study, the phone layout keeps
// the headline numbers in view, and axe-core finds no serious or critical accessibility violation
// on any view or on a lesson.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeFragment, encodeFragment } from '../src/codec/url';
import type { OptimusModule } from '../src/engine/protocol';
import { initialValues, LESSONS, type LessonDef, type Values } from '../src/ui/lessons';
import { lessonEngine, type LessonEngine } from '../test/lesson-engine';
import { loadModule, readJson } from '../test/wasm';
import { OUT, Site, at, metrics, retryOnlyAfterBrowserExit, settled } from './harness';

const site = new Site();
retryOnlyAfterBrowserExit(site);
let mod: OptimusModule;
const defaultScenario = readJson('presets/scenarios/default.json') as Record<string, any>;
let engine: LessonEngine;
const predict = (s: unknown): any => engine.predict(s);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Every axe violation of any impact, per page checked (printed after the run). */
const axeFound: string[] = [];

beforeAll(async () => {
  mod = await loadModule();
  engine = lessonEngine(mod);
  await site.start();
});

afterAll(async () => {
  await site.stop();
  console.log(`E2E_AXE ${axeFound.join(' | ')}`);
});

/** The calculator's scenario has been estimated (its status bar is not shown on the Learn view). */
const estimated = (page: Page): Promise<unknown> => page.waitForSelector('[data-testid="status"][data-state="ready"]', { state: 'attached', timeout: 20_000 });

/**
 * The view shown: the one of #estimate, #search, #studies, #learn that is not hidden. The page's
 * code (app.ts) loads after the engine worker has been started and may run after the load event:
 * its views exist once it has applied the address (#app gets data-view).
 */
const shownView = async (page: Page): Promise<string[]> => {
  await page.waitForSelector('#app[data-view]', { state: 'attached' });
  return page.$$eval('#estimate, #search, #studies, #learn', (els) => els.filter((e) => !(e as HTMLElement).hidden).map((e) => e.id));
};

const query = (page: Page): Promise<string> => page.evaluate(() => location.search);

/** axe-core's violations of serious or critical impact on the page as it is now. */
async function axeSerious(page: Page, name: string): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  axeFound.push(`${name}: ${found.map((v) => `${v.id}(${v.impact})`).join(',') || 'none'}`);
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The lesson's shown numbers: data-metric path -> value, and data-derived id -> value. */
async function lessonNumbers(page: Page): Promise<{ metrics: Record<string, string>; derived: Record<string, string> }> {
  return page.$eval('[data-testid="lesson"]', (root) => ({
    metrics: Object.fromEntries(Array.from(root.querySelectorAll('[data-metric][data-value]'), (e) => [e.getAttribute('data-metric')!, e.getAttribute('data-value')!])),
    derived: Object.fromEntries(Array.from(root.querySelectorAll('[data-derived][data-value]'), (e) => [e.getAttribute('data-derived')!, e.getAttribute('data-value')!])),
  }));
}

/** Waits until the lesson shows the engine's numbers for these widget values. */
async function lessonReady(page: Page, values: Values): Promise<void> {
  await page.waitForFunction(
    (want) => {
      const s = document.querySelector('[data-testid="lesson-status"]');
      return s?.getAttribute('data-state') === 'ready' && s.getAttribute('data-values') === want;
    },
    JSON.stringify(values),
    { timeout: 20_000 },
  );
}

/**
 * The lesson shows exactly the engine's numbers for the values (derived ones worked out here, from
 * the study's table, the baseline and the resolved scenario as the engine gives them in Node).
 */
async function expectLessonOf(page: Page, l: LessonDef, values: Values): Promise<{ metrics: Record<string, string>; derived: Record<string, string> }> {
  const shown = await lessonNumbers(page);
  const p = predict(l.scenario(values, engine.dataFor(l)));
  expect(p.error, `${l.name} ${JSON.stringify(values)} is a valid scenario`).toBeUndefined();
  const ctx = engine.contextFor(l, values);
  for (const d of l.shown) {
    const want = at(p, d.path);
    if (want === undefined || want === null) continue;
    expect(shown.metrics[d.path], `${l.name} ${JSON.stringify(values)} data-metric="${d.path}"`).toBe(String(want));
  }
  for (const d of l.derived) {
    const want = d.of(p, values, ctx);
    if (want === null) continue;
    expect(shown.derived[d.id], `${l.name} ${JSON.stringify(values)} data-derived="${d.id}"`).toBe(String(want));
  }
  expect(Object.keys(shown.metrics).length).toBeGreaterThan(0);
  expect(Object.keys(shown.derived).length).toBe(l.derived.filter((d) => d.of(p, values, ctx) !== null).length);
  return shown;
}

describe('views, lessons and accessibility', () => {
  test('each view has its own address; back and forward return to where one was; the scenario link stays', async () => {
    const fragment = await encodeFragment({ ...defaultScenario, training: { ...defaultScenario.training, global_batch: 1024 } });
    const page = await site.page();
    await page.goto(`${site.origin}/${fragment}`);
    await settled(page);
    expect(await shownView(page)).toEqual(['estimate']);
    // The page writes the scenario back in its own key order: that fragment must then stay.
    const pageFragment = await page.evaluate(() => location.hash);
    expect((await decodeFragment(pageFragment)).ok).toBe(true);
    const steps: Array<[view: string, query: string, id: string]> = [
      ['search', '?view=search', 'search'],
      ['studies', '?view=studies', 'studies'],
      ['learn', '?lesson=', 'learn'],
    ];
    for (const [view, q, id] of steps) {
      await page.click(`nav.views a[data-view="${view}"]`);
      expect(await query(page)).toBe(q);
      expect(await shownView(page)).toEqual([id]);
      expect(await page.locator(`nav.views a[data-view="${view}"]`).getAttribute('aria-current')).toBe('page');
      expect(await page.evaluate(() => location.hash)).toBe(pageFragment);
    }
    // The Learn list links every lesson, the paper's studies in a group of their own.
    await page.locator('[data-testid="study-lesson-list"] [data-lesson]').first().waitFor();
    const listed = await page.$$eval('[data-lesson]', (els) => els.map((e) => e.getAttribute('data-lesson')));
    expect(listed).toEqual(LESSONS.map((l) => l.name));
    const grouped = await page.$$eval('[data-testid="study-lesson-list"] [data-lesson]', (els) => els.map((e) => e.getAttribute('data-lesson')));
    expect(grouped).toEqual(LESSONS.filter((l) => l.study).map((l) => l.name));
    expect(grouped.length).toBeGreaterThan(0);
    await page.click(`[data-lesson="${LESSONS[0]!.name}"]`);
    expect(await query(page)).toBe(`?lesson=${LESSONS[0]!.name}`);
    await page.locator('[data-testid="lesson"]').waitFor();
    // Back through every step, then forward again.
    const back: Array<[string, string]> = [['?lesson=', 'learn'], ['?view=studies', 'studies'], ['?view=search', 'search'], ['', 'estimate']];
    for (const [q, id] of back) {
      await page.goBack();
      await page.waitForFunction((want) => location.search === want, q);
      expect(await shownView(page)).toEqual([id]);
    }
    await page.goForward();
    await page.waitForFunction(() => location.search === '?view=search');
    expect(await shownView(page)).toEqual(['search']);
    // The scenario of the link was kept all along.
    await page.click('nav.views a[data-view="estimate"]');
    await settled(page);
    expect((await metrics(page))['training.iteration_time_s']).toBe(String(predict({ ...defaultScenario, training: { ...defaultScenario.training, global_batch: 1024 } }).training.iteration_time_s));
    // An address opens its view directly, with the scenario of its fragment.
    for (const [q, id] of [['?view=search', 'search'], ['?view=studies', 'studies'], ['?lesson=', 'learn'], ['?view=nonsense', 'estimate']] as const) {
      const other = await site.page();
      await other.goto(`${site.origin}/${q}${fragment}`);
      await estimated(other);
      expect(await shownView(other), q).toEqual([id]);
      expect((await decodeFragment(await other.evaluate(() => location.hash))).ok).toBe(true);
      await other.close();
    }
    await page.close();
  });

  test('a study link opens on the study, the calculator a click away', async (ctx) => {
    if (typeof mod.studies !== 'function') return ctx.skip();
    const names = (JSON.parse(mod.studies!()) as { studies: { name: string }[] }).studies.map((x) => x.name);
    const name = names.includes('gpu-generations') ? 'gpu-generations' : names[0]!;
    const page = await site.page();
    await page.goto(`${site.origin}/?study=${name}`);
    await settled(page);
    expect(await shownView(page)).toEqual(['studies']);
    await page.waitForFunction((n) => (document.querySelector('[data-testid="study-select"]') as HTMLSelectElement).value === n, name);
    const rows = (JSON.parse(mod.study!(name, '')) as { rows: unknown[] }).rows.length;
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="study-table"] tbody tr').length === n, rows, { timeout: 30_000 });
    // The study's heading and picker are on the first screen.
    const box = await page.locator('[data-testid="study-select"]').boundingBox();
    expect(box && box.y + box.height).toBeLessThan(900);
    await page.click('nav.views a[data-view="estimate"]');
    expect(await shownView(page)).toEqual(['estimate']);
    expect(await query(page)).toBe('');
    await page.goBack();
    await page.waitForFunction((n) => location.search === `?study=${n}`, name);
    expect(await shownView(page)).toEqual(['studies']);
    await page.close();
  });

  for (const lesson of LESSONS) {
    test(`lesson ${lesson.name}: every widget moves the engine's numbers; the exercises are the engine's`, async () => {
      const page = await site.page();
      await page.goto(`${site.origin}/?lesson=${lesson.name}`);
      expect(await shownView(page)).toEqual(['learn']);
      const values = initialValues(lesson);
      await lessonReady(page, values);
      let before = await expectLessonOf(page, lesson, values);
      await page.locator('[data-testid="lesson-chart"] svg').first().waitFor({ state: 'visible' });
      if (lesson.sweep) await page.locator('[data-testid="lesson-sweep"] svg').first().waitFor({ state: 'visible', timeout: 20_000 });
      for (const w of lesson.widgets) {
        const control = page.locator(`[data-testid="lesson"] [data-widget="${w.id}"]`);
        expect(await control.count(), `widget ${w.id}`).toBe(1);
        // Another choice: the last one that changes the lesson's scenario (a picker's "the
        // node's own DRAM" can name the same hardware as an explicit choice).
        const scenarioAt = (v: Values): string => JSON.stringify(lesson.scenario(v, engine.dataFor(lesson)));
        const now = scenarioAt(values);
        let index = w.choices.length - 1;
        while (index >= 0 && scenarioAt({ ...values, [w.id]: w.choices[index]!.value }) === now) index -= 1;
        expect(index, `widget ${w.id} has a choice that changes the scenario`).toBeGreaterThanOrEqual(0);
        if (w.kind === 'range') {
          await control.evaluate((e, i) => {
            (e as HTMLInputElement).value = String(i);
            e.dispatchEvent(new Event('input', { bubbles: true }));
          }, index);
        } else await control.selectOption({ value: String(w.choices[index]!.value) });
        values[w.id] = w.choices[index]!.value;
        await lessonReady(page, values);
        const after = await expectLessonOf(page, lesson, values);
        expect(after, `moving ${w.id} changed the numbers`).not.toEqual(before);
        before = after;
      }
      // Exercises: the answer shown is the engine's, and choosing it is marked right.
      for (const ex of lesson.exercises) {
        const want = await ex.answer(engine.predictor, engine.dataFor(lesson));
        expect(want, `exercise ${ex.id} has an answer among its choices`).not.toBeNull();
        await page.click(`[data-reveal="${ex.id}"]`);
        const verdict = page.locator(`[data-verdict-for="${ex.id}"]`);
        await page.waitForFunction((id) => document.querySelector(`[data-verdict-for="${id}"]`)?.getAttribute('data-state') === 'revealed', ex.id);
        expect(await verdict.getAttribute('data-answer')).toBe(String(want));
        await page.selectOption(`[data-answer-for="${ex.id}"]`, { value: String(want) });
        await page.click(`[data-check="${ex.id}"]`);
        await page.waitForFunction((id) => document.querySelector(`[data-verdict-for="${id}"]`)?.getAttribute('data-state') === 'right', ex.id);
        const wrong = ex.choices.find((c) => c.value !== want)!;
        await page.selectOption(`[data-answer-for="${ex.id}"]`, { value: String(wrong.value) });
        await page.click(`[data-check="${ex.id}"]`);
        await page.waitForFunction((id) => document.querySelector(`[data-verdict-for="${id}"]`)?.getAttribute('data-state') === 'wrong', ex.id);
      }
      // "Open this in the calculator": the same scenario in the calculator.
      await page.waitForFunction(() => /#v1=/.test(document.querySelector<HTMLAnchorElement>('[data-testid="open-in-calculator"]')?.href ?? ''));
      const href = await page.locator('[data-testid="open-in-calculator"]').getAttribute('href');
      const decoded = await decodeFragment(new URL(href!, site.origin).hash);
      expect(decoded.ok && decoded.scenario).toEqual(lesson.scenario(values, engine.dataFor(lesson)));
      // A study lesson links its study (the studies view's own address).
      const studyLink = page.locator('[data-testid="open-study"]');
      expect(await studyLink.count()).toBe(lesson.study ? 1 : 0);
      if (lesson.study) expect(new URL((await studyLink.getAttribute('href'))!, site.origin).search).toBe(`?study=${lesson.study}`);
      expect(await page.locator('[data-testid="lesson-scenario"]').textContent()).toContain(String(lesson.scenario(values, engine.dataFor(lesson)).name));
      if (lesson === LESSONS.find((l) => l.study)) {
        await studyLink.click();
        expect(await shownView(page)).toEqual(['studies']);
        await page.waitForFunction((n) => (document.querySelector('[data-testid="study-select"]') as HTMLSelectElement).value === n, lesson.study!);
        await page.goBack();
        await page.locator('[data-testid="lesson"]').waitFor();
      }
      if (lesson === LESSONS[0]) {
        await page.screenshot({ path: `${OUT}lesson-${lesson.name}.png`, fullPage: true });
        // Printed, the lesson keeps its text, numbers, chart and exercises and drops the page chrome.
        await page.emulateMedia({ media: 'print' });
        expect(await page.locator('.bar').isVisible(), 'the calculator bar on the Learn view').toBe(false);
        for (const hidden of ['nav.views', 'footer', '[data-testid="open-in-calculator"]', `[data-check="${lesson.exercises[0]!.id}"]`]) expect(await page.locator(hidden).first().isVisible(), `printed: ${hidden}`).toBe(false);
        for (const shown of ['.lesson-text', '[data-testid="lesson-numbers"]', '[data-testid="lesson-chart"] svg', '.exercises', '.sources']) expect(await page.locator(shown).first().isVisible(), `printed: ${shown}`).toBe(true);
        const pdf = await page.pdf({ path: `${OUT}lesson-${lesson.name}.pdf`, format: 'A4' });
        expect(pdf.subarray(0, 4).toString()).toBe('%PDF');
        await page.emulateMedia({ media: 'screen' });
        await page.click('[data-testid="open-in-calculator"]');
        expect(await query(page)).toBe('');
        expect(await shownView(page)).toEqual(['estimate']);
        await page.waitForFunction((want) => document.querySelector('#estimate [data-metric="training.iteration_time_s"]')?.getAttribute('data-value') === want, String(predict(lesson.scenario(values, engine.dataFor(lesson))).training.iteration_time_s));
        await page.goBack();
        await page.locator('[data-testid="lesson"]').waitFor();
      }
      await page.close();
    });
  }

  test('an unknown lesson shows the list with a message', async () => {
    const page = await site.page();
    await page.goto(`${site.origin}/?lesson=no-such-lesson`);
    await page.locator('[data-testid="lesson-list"]').waitFor();
    expect(await page.locator('#learn [role="alert"]').textContent()).toContain('no-such-lesson');
    await page.close();
  });

  test('axe-core: no serious or critical violation on any view or on a lesson', async () => {
    const page = await site.page();
    const checks: Array<[string, (p: Page) => Promise<void>]> = [
      ['/', (p) => settled(p)],
      ['/?view=search', (p) => settled(p)],
      ['/?view=studies', (p) => p.locator('[data-testid="study-table"] tbody tr').first().waitFor({ timeout: 30_000 })],
      ['/?lesson=', (p) => p.locator('[data-lesson]').first().waitFor()],
      [`/?lesson=${LESSONS[0]!.name}`, (p) => lessonReady(p, initialValues(LESSONS[0]!))],
      ...LESSONS.filter((l) => ['study-gpu-generations', 'study-cheapest-accelerator'].includes(l.name)).map((l): [string, (p: Page) => Promise<void>] => [`/?lesson=${l.name}`, (p) => lessonReady(p, initialValues(l))]),
      ['/?view=accuracy', (p) => p.locator('[data-testid="accuracy-status"][data-value]').waitFor({ timeout: 120_000 })],
    ];
    for (const [path, ready] of checks) {
      await page.goto(`${site.origin}${path}`);
      await ready(page);
      await page.waitForTimeout(300); // charts are drawn in the next task
      expect(await axeSerious(page, path), path).toEqual([]);
    }
    await page.close();
  });

  test('keyboard: Tab reaches the view links, every widget and every exercise of a lesson, with a visible focus ring', async () => {
    const lesson = LESSONS[0]!;
    const page = await site.page();
    await page.goto(`${site.origin}/?lesson=${lesson.name}`);
    await lessonReady(page, initialValues(lesson));
    const reached = new Set<string>();
    let unringed = 0;
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const e = document.activeElement as HTMLElement | null;
        if (!e || e === document.body) return null;
        const style = getComputedStyle(e);
        return { key: e.dataset.view ? `view:${e.dataset.view}` : e.dataset.widget ? `widget:${e.dataset.widget}` : e.dataset.answerFor ? `answer:${e.dataset.answerFor}` : e.dataset.check ? `check:${e.dataset.check}` : '', ring: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
      });
      if (!f) continue;
      if (f.key) reached.add(f.key);
      if (!f.ring) unringed += 1;
    }
    for (const v of ['estimate', 'search', 'studies', 'learn']) expect(reached, `view link ${v}`).toContain(`view:${v}`);
    for (const w of lesson.widgets) expect(reached, `widget ${w.id}`).toContain(`widget:${w.id}`);
    for (const ex of lesson.exercises) {
      expect(reached).toContain(`answer:${ex.id}`);
      expect(reached).toContain(`check:${ex.id}`);
    }
    expect(unringed, 'focused elements without a visible outline').toBe(0);
    await page.close();
  });

  test('phone (390 px): the search scatter labels its time axis (probe 61: a narrow span on a log axis had no label)', async () => {
    const context = await (await site.ensureBrowser()).newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    page.on('pageerror', (e) => site.problems.pageErrors.push(`${page.url()}: ${e.message}`));
    await page.goto(`${site.origin}/?view=search${await encodeFragment(defaultScenario)}`);
    await settled(page);
    await page.click('[data-testid="search-run"]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="search-table"] tbody tr').length > 0, null, { timeout: 60_000 });
    await page.locator('#search .chart-svg').first().waitFor({ state: 'visible' });
    const times = await page.$$eval('#search .chart-svg text', (ts) => ts.map((t) => t.textContent ?? '').filter((t) => /^[\d.]+ (ms|s|min|h)$/.test(t)));
    expect(times.length).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: `${OUT}search-scatter-phone.png`, fullPage: true });
    await context.close();
  });

  test('phone (390 px): the headline numbers come before the editor and stay in view; no horizontal scroll', async () => {
    const context = await (await site.ensureBrowser()).newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    page.on('pageerror', (e) => site.problems.pageErrors.push(`${page.url()}: ${e.message}`));
    await page.goto(`${site.origin}/${await encodeFragment(defaultScenario)}`);
    await settled(page);
    const headline = page.locator('[data-testid="headline"]');
    const first = await headline.boundingBox();
    const editor = await page.locator('[data-path="/training/global_batch"]').boundingBox();
    expect(first && editor && first.y < editor.y).toBe(true);
    expect(first!.y + first!.height).toBeLessThan(844);
    expect(await headline.locator('[data-metric="training.iteration_time_s"]').getAttribute('data-value')).toBe(String(predict(defaultScenario).training.iteration_time_s));
    // Scrolled down to a field deep in the editor, the headline is still on screen.
    await page.locator('[data-path="/training/global_batch"]').scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, 600));
    const later = await headline.boundingBox();
    expect(later!.y).toBeGreaterThanOrEqual(-1);
    expect(later!.y).toBeLessThan(844);
    for (const path of ['/', '/?view=search', '/?view=studies', '/?lesson=']) {
      await page.goto(`${site.origin}${path}`);
      await estimated(page);
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
    }
    // Every lesson, opened from the list as a reader does (no reload), with its charts drawn.
    for (const l of LESSONS) {
      await page.click(`[data-lesson="${l.name}"]`);
      await lessonReady(page, initialValues(l));
      await page.locator('[data-testid="lesson-chart"] svg').first().waitFor({ state: 'visible' });
      if (l.sweep) await page.locator('[data-testid="lesson-sweep"] svg').first().waitFor({ state: 'visible', timeout: 20_000 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `/?lesson=${l.name}`).toBeLessThanOrEqual(390);
      await page.goBack();
      await page.locator('[data-lesson]').first().waitFor();
    }
    await page.screenshot({ path: `${OUT}lesson-phone.png`, fullPage: false });
    await context.close();
  });

  test('Search view: every choice of its pickers and its placeholders read whole, at 1440x900 and on a phone (probe 57)', async () => {
    // "auto: what the scenario describes" showed as "auto: what the scer", the budget's placeholder
    // as "none (needs tokens". Each text is measured in the control's own font against its room.
    for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
      const context = await (await site.ensureBrowser()).newContext({ viewport });
      const page = await context.newPage();
      page.on('pageerror', (e) => site.problems.pageErrors.push(`${page.url()}: ${e.message}`));
      await page.goto(`${site.origin}/?view=search${await encodeFragment(defaultScenario)}`);
      await page.locator('[data-testid="search-run"]').waitFor();
      const cut: string[] = [];
      for (const mode of ['', 'serving', 'inference']) {
        await page.selectOption('#search .controls select', mode);
        cut.push(
          ...(await page.evaluate(() => {
            const ctx = document.createElement('canvas').getContext('2d')!;
            const out: string[] = [];
            for (const el of document.querySelectorAll<HTMLSelectElement | HTMLInputElement>('#search .controls select, #search .controls input:not([type=checkbox])')) {
              if (!el.offsetParent) continue;
              const cs = getComputedStyle(el);
              ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
              const select = el instanceof HTMLSelectElement;
              const texts = select ? Array.from(el.options, (o) => (o.hidden ? '' : o.text)) : [el.placeholder];
              // a select's arrow takes about 20 px of its box
              const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - (select ? 20 : 0);
              for (const t of texts) if (t && ctx.measureText(t).width > room) out.push(`"${t}" (${Math.round(ctx.measureText(t).width)} px in ${Math.round(room)} px)`);
            }
            return out;
          })).map((x) => `${viewport.width} px, mode "${mode}": ${x}`),
        );
      }
      expect(cut).toEqual([]);
      await context.close();
    }
  });

  test('no console errors, page errors or requests outside the site (all pages above)', () => {
    site.expectNoProblems();
  });
});
