// The share-URL codec: round trips, the spec's recipe (zlib raw deflate) and every way a link can
// be broken; fast-check for "any input gives a scenario or a message, never an exception".
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  MAX_FRAGMENT_CHARS,
  MAX_INFLATED_BYTES,
  base64urlDecode,
  base64urlEncode,
  decodeFragment,
  encodeFragment,
  type DecodeResult,
} from '../src/codec/url';
import { readJson } from './wasm';

const scenario = readJson('presets/scenarios/default.json');

/** A fragment made the way the spec tells third parties to make one (Python/zlib, wbits -15). */
const fragmentOf = (bytes: Uint8Array): string => `#v1=${Buffer.from(bytes).toString('base64url')}`;
const zlibFragment = (text: string): string => fragmentOf(deflateRawSync(Buffer.from(text, 'utf8'), { level: 9 }));

const expectFailure = (r: DecodeResult, code: string): void => {
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.code).toBe(code);
  expect(r.message.length).toBeGreaterThan(10);
};

describe('base64url', () => {
  test('matches Node for every length 0..64', () => {
    for (let n = 0; n <= 64; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n * 11) & 0xff);
      const text = base64urlEncode(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      const back = base64urlDecode(text);
      expect(back.ok && Array.from(back.bytes)).toEqual(Array.from(bytes));
    }
  });

  test('rejects characters outside the alphabet and impossible lengths', () => {
    expect(base64urlDecode('ab+c')).toEqual({ ok: false, code: 'link.corrupt' });
    expect(base64urlDecode('ab/c')).toEqual({ ok: false, code: 'link.corrupt' });
    expect(base64urlDecode('abcde')).toEqual({ ok: false, code: 'link.truncated' });
  });
});

describe('encodeFragment / decodeFragment', () => {
  test('round trips the default scenario', async () => {
    const hash = await encodeFragment(scenario);
    expect(hash).toMatch(/^#v1=[A-Za-z0-9_-]+$/);
    expect(await decodeFragment(hash)).toEqual({ ok: true, scenario, version: 1 });
    // with or without the leading "#"
    expect(await decodeFragment(hash.slice(1))).toEqual({ ok: true, scenario, version: 1 });
  });

  test('compresses: the link is much shorter than the JSON', async () => {
    const hash = await encodeFragment(scenario);
    expect(hash.length).toBeLessThan(JSON.stringify(scenario).length);
  });

  test('reads links made with zlib raw deflate as the spec describes', async () => {
    expect(await decodeFragment(zlibFragment(JSON.stringify(scenario)))).toEqual({ ok: true, scenario, version: 1 });
  });

  test('writes what zlib can inflate (third-party readers)', async () => {
    const { inflateRawSync } = await import('node:zlib');
    const hash = await encodeFragment(scenario);
    const bytes = Buffer.from(hash.slice(4), 'base64url');
    expect(JSON.parse(inflateRawSync(bytes).toString('utf8'))).toEqual(scenario);
  });

  test('non-ASCII text survives (UTF-8)', async () => {
    const named = { ...(scenario as object), name: 'Llama 3 – 70B, 東京 🚀' };
    expect(await decodeFragment(await encodeFragment(named))).toEqual({ ok: true, scenario: named, version: 1 });
  });

  test('an empty fragment is "no link", not an error to show', async () => {
    for (const hash of ['', '#', '  ']) expect((await decodeFragment(hash)).ok === false && ((await decodeFragment(hash)) as { code: string }).code).toBe('link.none');
  });

  test('truncated links say so', async () => {
    const hash = await encodeFragment(scenario);
    for (const cut of [1, 2, 3, 5, 8, Math.floor(hash.length / 2)]) {
      const r = await decodeFragment(hash.slice(0, hash.length - cut));
      expect(r.ok, `cut ${cut}`).toBe(false);
      if (!r.ok) expect(['link.truncated', 'link.corrupt'], `cut ${cut}`).toContain(r.code);
    }
    // a cut inside the deflate stream (whole base64 groups) is reported as truncated
    const bytes = deflateRawSync(Buffer.from(JSON.stringify(scenario)));
    expectFailure(await decodeFragment(fragmentOf(bytes.subarray(0, bytes.length - 6))), 'link.truncated');
    expectFailure(await decodeFragment('#v1='), 'link.truncated');
  });

  test('corrupt links say so', async () => {
    expectFailure(await decodeFragment('#v1=!!!notbase64'), 'link.corrupt');
    expectFailure(await decodeFragment(fragmentOf(Uint8Array.from([0xff, 0xfe, 0xfd, 0x01, 0x02, 0x03]))), 'link.corrupt');
    // valid deflate of bytes that are not UTF-8
    expectFailure(await decodeFragment(fragmentOf(deflateRawSync(Buffer.from([0xc3, 0x28, 0xa0, 0xa1])))), 'link.corrupt');
  });

  test('inflated text that is not JSON', async () => {
    expectFailure(await decodeFragment(zlibFragment('{"model": "gpt3-175b",')), 'link.not_json');
    expectFailure(await decodeFragment(zlibFragment('hello')), 'link.not_json');
    // Where it breaks, in words; never the parser's own message.
    const cut = await decodeFragment(zlibFragment('{"model": "gpt3-175b",'));
    expect(!cut.ok && cut.message).toBe("The link's scenario is not valid JSON (it ends too soon, after 22 characters).");
    const bad = await decodeFragment(zlibFragment('{"model": x}'));
    expect(!bad.ok && bad.message).toMatch(/^The link's scenario is not valid JSON \(it (breaks off at character 11 of 12|has an unexpected “x” at character 11 of 12)\)\.$/);
    // A token that occurs more than once: where the parser stopped, not the first one (probe 61's NaN).
    const nan = await decodeFragment(zlibFragment('{"num_devices": NaN'));
    expect(!nan.ok && nan.message).toMatch(/^The link's scenario is not valid JSON \(it (breaks off at character 17 of 19|has an unexpected “N” at character 17 of 19)\)\.$/);
    const nested = await decodeFragment(zlibFragment('{"a": {}, "b": }'));
    expect(!nested.ok && nested.message).toMatch(/character 16 of 16\)\.$/);
  });

  test('unknown and old versions', async () => {
    const payload = (await encodeFragment(scenario)).slice(4);
    expectFailure(await decodeFragment(`#v2=${payload}`), 'link.unknown_version');
    expectFailure(await decodeFragment(`#v999=${payload}`), 'link.unknown_version');
    expectFailure(await decodeFragment(`#v0=${payload}`), 'link.unknown_version');
    expectFailure(await decodeFragment(`#s=${payload}`), 'link.unrecognized');
    expectFailure(await decodeFragment('#section-2'), 'link.unrecognized');
  });

  test('a deflate bomb is refused by the inflated-size limit, quickly', async () => {
    // 32 MiB of spaces deflate to ~32 KiB: a link under the fragment limit that would inflate
    // to 128 times MAX_INFLATED_BYTES. The decoder stops reading at the limit.
    const bomb = fragmentOf(deflateRawSync(Buffer.alloc(32 * 1024 * 1024, 0x20), { level: 9 }));
    expect(bomb.length).toBeLessThan(MAX_FRAGMENT_CHARS);
    const t0 = performance.now();
    expectFailure(await decodeFragment(bomb), 'link.too_large');
    expect(performance.now() - t0).toBeLessThan(1000);
    // one byte over the limit is refused, exactly at the limit still decodes (JSON + spaces)
    expectFailure(await decodeFragment(zlibFragment(' '.repeat(MAX_INFLATED_BYTES + 1))), 'link.too_large');
    const padded = JSON.stringify(scenario).padEnd(MAX_INFLATED_BYTES, ' ');
    expect(await decodeFragment(zlibFragment(padded))).toEqual({ ok: true, scenario, version: 1 });
  });

  test('a fragment over the character limit is refused before any work', async () => {
    expectFailure(await decodeFragment(`#v1=${'A'.repeat(MAX_FRAGMENT_CHARS)}`), 'link.too_large');
  });
});

describe('each message names the real cause', () => {
  const message = (r: DecodeResult): string => (r.ok ? '' : r.message);

  test('version 0 is not called newer; version 2 is', async () => {
    const payload = (await encodeFragment(scenario)).slice(4);
    const v0 = message(await decodeFragment(`#v0=${payload}`));
    expect(v0).not.toMatch(/newer/);
    expect(v0).toMatch(/not a valid Optimus link/);
    expect(v0).toContain('(0)');
    expect(message(await decodeFragment('#v0=abc'))).not.toMatch(/newer/);
    expect(message(await decodeFragment(`#v2=${payload}`))).toMatch(/newer version of Optimus.*version 2/);
  });

  test('characters outside base64url are damage, not a cut link, whatever the length', async () => {
    for (const text of ['!!!@@@***', '!!!@@', 'abcd!', 'ab cd']) {
      const r = await decodeFragment(`#v1=${text}`);
      expectFailure(r, 'link.corrupt');
      expect(message(r), text).toMatch(/damaged/);
      expect(message(r), text).not.toMatch(/cut off/);
    }
    expect(base64urlDecode('!!!@@@***')).toEqual({ ok: false, code: 'link.corrupt' });
  });

  test("a link over the length limit says it is too long (its text), not too large once unpacked", async () => {
    const r = await decodeFragment(`#v1=${'A'.repeat(200_000)}`);
    expectFailure(r, 'link.too_large');
    expect(message(r)).toMatch(/too long/);
    expect(message(r)).toContain('200,003 characters'); // "v1=" and the 200,000 after it
    expect(message(r)).toContain(`${MAX_FRAGMENT_CHARS / 1024} KiB`);
    expect(message(r)).not.toMatch(/unpacked/);
    // the inflated limit keeps its own words
    expect(message(await decodeFragment(zlibFragment(' '.repeat(MAX_INFLATED_BYTES + 1))))).toMatch(/once unpacked/);
  });
});

describe('properties', () => {
  test('any string decodes to a scenario or a message, never an exception', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.string().map((s) => `#v1=${s}`), fc.base64String().map((s) => `#v1=${s}`)), async (hash) => {
        const r = await decodeFragment(hash);
        if (!r.ok) expect(r.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  test('any JSON value round trips', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const r = await decodeFragment(await encodeFragment(value));
        expect(r.ok).toBe(true);
        // JSON itself maps -0 to 0
        if (r.ok) expect(r.scenario).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 200 },
    );
  });

  test('random damage to a real link never throws', async () => {
    const good = (await encodeFragment(scenario)).slice(4);
    await fc.assert(
      fc.asyncProperty(fc.nat(good.length - 1), fc.constantFrom(...'ABCxyz019-_+/=%'), fc.nat(good.length), async (at, c, cut) => {
        const damaged = `#v1=${(good.slice(0, at) + c + good.slice(at + 1)).slice(0, cut)}`;
        const r = await decodeFragment(damaged);
        if (!r.ok) expect(r.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
