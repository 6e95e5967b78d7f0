// Opening links and typing what the engine cannot take, as a person does (expert probe 57): a
// heavy but valid link computes in the worker with the form already filled, the page answering
// meanwhile; a link that cannot be used opens exactly what a visit without one shows, with a
// message naming the real cause; unticking "auto" keeps the layout it took; text that is not a
// number marks the numbers out of date and is what the status speaks of. Screenshots into
// build/e2e/links-*.png.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { decodeFragment, encodeFragment } from '../src/codec/url';
import { starter } from '../src/state/tasks';
import { OUT, expectShownAre, metrics, settled, siteWithEngine } from './harness';

const { site, predict } = siteWithEngine();

/** Types into a short-form field and leaves it, as a person does. */
async function typeQuick(page: Page, path: string, value: string): Promise<void> {
  const f = page.locator(`[data-quick="${path}"]`);
  await f.fill(value);
  await f.press('Enter');
  await f.blur();
}

const statusOf = (page: Page): Promise<{ state: string | null; text: string | null; stale: string | null }> =>
  page.evaluate(() => {
    const s = document.querySelector('[data-testid="status"]');
    return { state: s?.getAttribute('data-state') ?? null, text: s?.textContent ?? null, stale: document.querySelector('[data-testid="headline"]')?.getAttribute('data-stale') ?? null };
  });

describe('links and typed values', () => {
  test('a heavy link (an RL step of 100,000 responses) is computed in the worker: the form is built and filled while "Computing…" shows, and the page answers meanwhile', async () => {
    // 1000 x 1000 responses held the page's thread for 35 s, the form half built.
    const job = { ...starter('rl'), name: 'RL heavy link' } as Record<string, any>;
    job.rl = { ...job.rl, prompts_per_step: 1000, samples_per_prompt: 100 };
    const page = await site.page();
    await page.goto(`${site.origin}/${await encodeFragment(job)}`);
    // The form holds the link's values before the result comes.
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="status"]')?.getAttribute('data-state') === 'computing' &&
        document.querySelector('[data-testid="editor"]')?.getAttribute('data-state') === 'ready' &&
        (document.querySelector('[data-quick="/rl/samples_per_prompt"]') as HTMLInputElement | null)?.value === '100' &&
        (document.querySelector('[data-path="/name"]') as HTMLInputElement | null)?.value === 'RL heavy link',
      null,
      { timeout: 30_000 },
    );
    expect((await statusOf(page)).text).toBe('Computing…');
    // The page's thread answers while the step is computed.
    const waits: number[] = [];
    while ((await statusOf(page)).state === 'computing') {
      const t0 = Date.now();
      await page.evaluate(() => document.querySelector('[data-testid="status"]')?.textContent);
      waits.push(Date.now() - t0);
      await page.waitForTimeout(100);
    }
    expect(waits.length, 'the step took long enough to be watched').toBeGreaterThan(3);
    expect(Math.max(...waits), `the page's answers (ms): ${waits.join(' ')}`).toBeLessThan(1000);
    await settled(page, 'ready', 120_000);
    const head = page.locator('[data-testid="headline"] [data-metric="rl.step_time_s"]');
    expect(await head.getAttribute('data-value')).toBe(String(predict(job).rl.step_time_s));
    await page.screenshot({ path: `${OUT}links-heavy-rl.png` });
    await page.close();
  });

  test('a link that cannot be used opens what a visit without one shows, and its message names the cause', async () => {
    const page = await site.page();
    await page.goto(`${site.origin}/`);
    await settled(page);
    const landing = await metrics(page);
    const landingScenario = ((await decodeFragment(await page.evaluate(() => location.hash))) as { scenario: unknown }).scenario;
    expect(landingScenario).toEqual(starter('train'));
    const bad: Array<[string, RegExp, RegExp]> = [
      ['#v1=!!!@@@***', /damaged/, /cut off/],
      ['#v0=abc', /not a valid Optimus link.*\(0\)/, /newer/],
      [`#v1=${'A'.repeat(200_000)}`, /too long: 200,003 characters, over the 64 KiB/, /unpacked/],
      // '{"num_devices": NaN': where it breaks, in words, never the parser's message (probe 61)
      ['#v1=q1bKK82NT0kty0xOLVayUvBL9AMA', /The link's scenario is not valid JSON \(it has an unexpected “N” at character 17 of 19\)\. Showing/, /Unexpected token|position/],
    ];
    for (const [hash, says, not] of bad) {
      await page.goto('about:blank');
      await page.goto(`${site.origin}/${hash}`);
      await settled(page);
      const banner = (await page.locator('[data-testid="banner"]').textContent()) ?? '';
      expect(banner, hash.slice(0, 20)).toMatch(says);
      expect(banner, hash.slice(0, 20)).not.toMatch(not);
      expect(banner).toContain('Showing the default scenario instead');
      expect(await page.getAttribute('[data-task="train"]', 'aria-pressed'), hash.slice(0, 20)).toBe('true');
      expect(await metrics(page), hash.slice(0, 20)).toEqual(landing);
      // The link pasted stays in the address (to look at, or send back), until an edit.
      expect(await page.evaluate(() => location.hash), hash.slice(0, 20)).toBe(hash);
      expect(banner).toContain('Your link stays in the address bar until you change something.');
      if (hash.startsWith('#v1=!')) await page.screenshot({ path: `${OUT}links-damaged.png` });
    }
    expectShownAre(landing, predict(starter('train')));
    // As without a link, the layout follows the GPUs (the search's pick for 128 of them), and the
    // address is the edited scenario's.
    await typeQuick(page, '/num_devices', '128');
    await settled(page);
    expect(await page.isChecked('[data-quick="/parallel"]')).toBe(true);
    const edited = await decodeFragment(await page.evaluate(() => location.hash));
    expect(edited.ok && (edited.scenario as { num_devices: number }).num_devices).toBe(128);
    await page.close();
  });

  test('unticking "auto" keeps the layout it took: the numbers do not change', async () => {
    const page = await site.page();
    await page.goto(`${site.origin}/`);
    await settled(page);
    await typeQuick(page, '/num_devices', '128');
    await settled(page);
    expect(await page.isChecked('[data-quick="/parallel"]')).toBe(true);
    const before = await metrics(page);
    const took = await page.evaluate(() => location.hash);
    await page.uncheck('[data-quick="/parallel"]');
    await settled(page);
    const after = await metrics(page);
    for (const key of ['training.iteration_time_s', 'memory.per_device_bytes.total', 'memory.fits']) expect(after[key], key).toBe(before[key]);
    const decoded = await decodeFragment(await page.evaluate(() => location.hash));
    const layout = decoded.ok ? (decoded.scenario as { parallel: Record<string, unknown> }).parallel : null;
    expect(typeof layout).toBe('object');
    const auto = predict((await decodeFragment(took) as { scenario: unknown }).scenario).parallel_auto.parallel;
    expect(layout).toEqual(auto);
    expect(await page.inputValue('[data-path="/parallel/tp"]')).toBe(String(auto.tp));
    await page.screenshot({ path: `${OUT}links-auto-unticked.png` });
    await page.close();
  });

  test('text that is not a number marks the numbers out of date, and the status speaks of it', async () => {
    const page = await site.page();
    await page.goto(`${site.origin}/`);
    await settled(page);
    await typeQuick(page, '/num_devices', 'abc');
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.getAttribute('data-state') === 'error');
    let st = await statusOf(page);
    expect(st.text).toContain('"abc" is not a whole number');
    expect(st.stale).toBe('true');
    // another edit while it is there: still not estimated
    await typeQuick(page, '/training/seq_len', '4096');
    await page.waitForTimeout(300);
    st = await statusOf(page);
    expect(st.state).toBe('error');
    expect(st.text).toContain('"abc"');
    await typeQuick(page, '/num_devices', '64');
    await settled(page);
    expect((await statusOf(page)).stale).toBe('false');
    // an engine error at a field, then text that is not a number there: the status follows
    await page.click('[data-task="plan"]');
    await settled(page);
    await typeQuick(page, '/economics/usd_per_gpu_hour', '-1');
    await settled(page, 'error');
    expect((await statusOf(page)).text).toContain('-1');
    await typeQuick(page, '/economics/usd_per_gpu_hour', 'abc');
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent?.includes('"abc"'));
    st = await statusOf(page);
    expect(st.text).not.toContain('-1');
    expect(st.stale).toBe('true');
    expect(await page.locator('[data-testid="error-fix"]').isHidden()).toBe(true);
    await page.screenshot({ path: `${OUT}links-price-abc.png` });
    await page.close();
  });
});
