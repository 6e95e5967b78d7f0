// Random edits of every task's short form, as a person trying the page might make them: sensible
// values and absurd ones (0, -1, a trillion, text, a fraction, nothing) typed into the fields,
// picks from the lists, the boxes ticked; then the same in the full editor's fields. A fixed seed,
// so a failure replays. After every edit the page must answer within a minute (no hang), either
// with numbers or with an error in words on screen, and never show NaN, undefined, Infinity, an
// object's text or, in exponent form, a number the formatter writes plainly; no page error or
// console error. The cases written by hand are in tasks.e2e.ts and links.e2e.ts; this covers the
// combinations nobody thought to write.
import type { Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { landing, siteWithEngine } from './harness';

const { site } = siteWithEngine();

const SENSIBLE = ['1', '2', '4', '8', '16', '32', '64', '128', '256', '512', '1000', '1024', '2048', '4096', '8192', '32768'];
const ABSURD = ['0', '-1', '7', '1e9', '999999999999', '', 'abc', '0.5', '2.5e3', '65536'];
// OPTIMUS_RANDOM_SEED and OPTIMUS_RANDOM_EDITS replay another walk or a longer one.
const SEED = Number(process.env.OPTIMUS_RANDOM_SEED ?? 20261207);
const EDITS_PER_TASK = Number(process.env.OPTIMUS_RANDOM_EDITS ?? 12);
/** Text that must never be on screen: a number the page failed to format or a value it lost. */
const GARBLED = [/\bNaN\b/, /\bundefined\b/, /\bInfinity\b/, /\[object /];

/**
 * Numbers in exponent form that the page's formatter (src/base/format.ts, sig) would have written
 * plainly: it keeps the exponent for magnitudes below a millionth or from a thousand trillion up.
 */
function plainInExponent(text: string): string[] {
  // A field's hint of how to type a value ("e.g. 15e12") is not a result.
  return [...text.replace(/e\.g\. \S+/g, '').matchAll(/\d+(?:\.\d+)?[eE][+-]?\d+/g)].map((m) => m[0]).filter((t) => {
    const v = Math.abs(Number(t));
    return v >= 1e-6 && v < 1e15;
  });
}

/** A linear congruential generator (glibc's constants), its high bits scaled to [0, n). */
function generator(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
}

/**
 * The page finished the edit: not computing, the editor showing the scenario; its state then (read
 * in the same instant: a pick can start a second estimate right after the first answer).
 */
async function answered(page: Page): Promise<string> {
  const done = await page.waitForFunction(() => {
    const st = document.querySelector('[data-testid="status"]')?.getAttribute('data-state');
    const ed = document.querySelector('[data-testid="editor"]')?.getAttribute('data-state');
    return st !== 'computing' && ed === 'ready' ? st : null;
  }, null, { timeout: 60_000 });
  return String(await done.jsonValue());
}

interface Visible {
  key: string;
  select: string[] | null;
  checkbox: boolean;
}

/**
 * `edits` random edits of the fields named by `attribute` (data-quick: a task's short form;
 * data-path: the full editor) on the task now shown, each checked as the file's header says.
 */
async function walk(page: Page, attribute: 'data-quick' | 'data-path', task: string, edits: number, rand: (n: number) => number, done: string[]): Promise<void> {
  for (let i = 0; i < edits; i++) {
    const fields: Visible[] = await page.$$eval(`[${attribute}]`, (els, attr) =>
      els
        .filter((e) => (e as HTMLElement).offsetParent !== null && !(e as HTMLInputElement).disabled)
        .map((e) => ({
          key: e.getAttribute(attr)!,
          select: e.tagName === 'SELECT' ? [...(e as HTMLSelectElement).options].map((o) => o.value) : null,
          checkbox: (e as HTMLInputElement).type === 'checkbox',
        })),
    attribute);
    expect(fields.length, `${task}: fields to edit`).toBeGreaterThan(0);
    const f = fields[rand(fields.length)]!;
    const field = page.locator(`[${attribute}="${f.key}"]`).first();
    let value: string;
    if (f.select) {
      value = f.select[rand(f.select.length)]!;
      await field.selectOption(value);
    } else if (f.checkbox) {
      value = 'ticked or unticked';
      await field.click();
    } else {
      const pool = rand(3) === 0 ? ABSURD : SENSIBLE;
      value = pool[rand(pool.length)]!;
      await field.fill(value);
      await field.press('Enter');
      await field.blur();
    }
    done.push(`${task} ${f.key} = '${value}'`);
    const trail = `${done.slice(-4).join(' | ')} (seed ${SEED}, edit ${done.length})`;
    const state = await answered(page).catch(() => {
      throw new Error(`no answer within a minute after: ${trail}`);
    });
    expect(['ready', 'error'], trail).toContain(state);
    const text = await page.evaluate(() => document.body.innerText);
    for (const g of GARBLED) {
      const at = text.search(g);
      expect(at, `${g} on screen ('${text.slice(Math.max(0, at - 80), at + 40)}') after: ${trail}`).toBe(-1);
    }
    expect(plainInExponent(text), `numbers in exponent form after: ${trail}`).toEqual([]);
    // The values behind the numbers shown (data-value: what the copy and export buttons take).
    const values = await page.$$eval('[data-metric][data-value]', (els) => els.map((e) => `${e.getAttribute('data-metric')}=${e.getAttribute('data-value')}`));
    if (state === 'ready') expect(values.length, `numbers on screen after: ${trail}`).toBeGreaterThan(0);
    expect(values.filter((v) => /=(NaN|-?Infinity|undefined|null|)$/.test(v)), `values lost after: ${trail}`).toEqual([]);
    if (state === 'error') {
      const said = await page.$$eval('[role="alert"]:not([hidden])', (els) => els.map((e) => e.textContent?.trim() ?? '').filter((t) => t.length > 0));
      expect(said.length, `an error without words after: ${trail}`).toBeGreaterThan(0);
    }
  }
}

const TASKS = ['train', 'serve', 'plan', 'rl', 'compare'];

test('random edits of every task: numbers or an error in words after each, nothing garbled, no hang', async () => {
  const rand = generator(SEED);
  const { page } = await landing(site, { width: 1280, height: 900 });
  const done: string[] = [];
  for (const task of TASKS) {
    await page.locator(`[data-task="${task}"]`).first().click();
    await answered(page);
    await walk(page, 'data-quick', task, EDITS_PER_TASK, rand, done);
  }
  site.expectNoProblems();
}, 300_000);

test('random edits in the full editor of every task: the same', async () => {
  const rand = generator(SEED + 1);
  const { page } = await landing(site, { width: 1280, height: 900 });
  const done: string[] = [];
  for (const task of TASKS) {
    await page.locator(`[data-task="${task}"]`).first().click();
    await answered(page);
    await walk(page, 'data-path', `${task} (full editor)`, EDITS_PER_TASK, rand, done);
  }
  site.expectNoProblems();
}, 300_000);
