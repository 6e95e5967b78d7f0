// The share-URL codec (docs/contract.md, "Share URL"): the scenario lives in the fragment as
// "#v1=" + base64url (RFC 4648 section 5, no padding) of the raw DEFLATE (RFC 1951) of its UTF-8
// JSON. Decoding takes untrusted text: it never throws and says what is wrong (truncated, corrupt,
// unknown version, too large once inflated, not JSON). Old versions keep their decoder in
// DECODERS when the format moves on (as Excalidraw keeps its restore paths).

/** The fragment's version this code writes. */
export const CURRENT_VERSION = 1;
/** Longest fragment accepted (characters); real scenarios are a few hundred. */
export const MAX_FRAGMENT_CHARS = 64 * 1024;
/** Largest inflated JSON accepted (bytes): the bound that stops a deflate bomb. */
export const MAX_INFLATED_BYTES = 256 * 1024;

export type DecodeErrorCode =
  | 'link.unrecognized'
  | 'link.unknown_version'
  | 'link.truncated'
  | 'link.corrupt'
  | 'link.too_large'
  | 'link.not_json';

export type DecodeResult =
  | { ok: true; scenario: unknown; version: number }
  | { ok: false; code: DecodeErrorCode | 'link.none'; message: string };

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64URL_INDEX = new Map(Array.from(B64URL, (c, i) => [c, i] as const));

export function base64urlEncode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) out += B64URL[(n >> (18 - 6 * k)) & 63];
  }
  return out;
}

/** Bytes of base64url text (no padding), or why there are none. */
export function base64urlDecode(text: string): { ok: true; bytes: Uint8Array } | { ok: false; code: 'link.corrupt' | 'link.truncated' } {
  // A character outside the alphabet is damage, whatever the length ("!!!@@@***" is not a cut link).
  for (const c of text) if (!B64URL_INDEX.has(c)) return { ok: false, code: 'link.corrupt' };
  // A length of 4k+1 cannot come from whole bytes: the text was cut.
  if (text.length % 4 === 1) return { ok: false, code: 'link.truncated' };
  const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
  let acc = 0;
  let bits = 0;
  let j = 0;
  for (const c of text) {
    const v = B64URL_INDEX.get(c);
    if (v === undefined) return { ok: false, code: 'link.corrupt' };
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[j++] = (acc >> bits) & 0xff;
    }
  }
  return { ok: true, bytes };
}

async function drain(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | 'too_large'> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return 'too_large';
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function through(bytes: Uint8Array, transform: CompressionStream | DecompressionStream): ReadableStream<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  return source.pipeThrough(transform as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
}

/** "#v1=..." for a scenario (any JSON-serialisable value). Throws TypeError only for a value
 * that JSON cannot write (cycles, BigInt, undefined), which is a caller's bug, not user input. */
export async function encodeFragment(s: unknown): Promise<string> {
  const json = JSON.stringify(s);
  if (typeof json !== 'string') throw new TypeError('encodeFragment: the value cannot be written as JSON');
  const packed = await drain(through(new TextEncoder().encode(json), new CompressionStream('deflate-raw')), Infinity);
  return `#v${CURRENT_VERSION}=${base64urlEncode(packed as Uint8Array)}`;
}

const MESSAGES: Record<DecodeErrorCode, string> = {
  'link.unrecognized': 'The link does not hold an Optimus scenario (expected "#v1=...").',
  'link.unknown_version': 'The link was made by a newer version of Optimus that this page cannot read.',
  'link.truncated': 'The link is incomplete: it was probably cut off when it was copied.',
  'link.corrupt': 'The link is damaged: its scenario data cannot be read.',
  'link.too_large': `The link's scenario is too large (over ${MAX_INFLATED_BYTES / 1024} KiB once unpacked).`,
  'link.not_json': "The link's scenario is not valid JSON.",
};

/** A decoding failure: its sentence, with the detail inside it ("... not valid JSON (it breaks off at character 12 of 40)."). */
const fail = (code: DecodeErrorCode, detail?: string): DecodeResult => ({
  ok: false,
  code,
  message: detail ? `${MESSAGES[code].replace(/\.$/, '')} (${detail}).` : MESSAGES[code],
});

/**
 * Where JSON text stops being JSON, in words ("it breaks off at character 12 of 40"), from the
 * parser's message (older V8: "... at position 12"; others: "line 1 column 13"; V8 now: the
 * unexpected token, or the end); the parser's own words
 * are not shown (probe 61: "Unexpected token ... in JSON at position 12" quoted to the person).
 */
export function jsonBreak(text: string, e: unknown): string | undefined {
  const m = e instanceof Error ? e.message : '';
  const at = /position (\d+)/.exec(m)?.[1] ?? undefined;
  if (at !== undefined) return Number(at) >= text.length ? `it ends too soon, after ${text.length} characters` : `it breaks off at character ${Number(at) + 1} of ${text.length}`;
  const lc = /line (\d+) column (\d+)/.exec(m);
  if (lc) return `it breaks off at line ${lc[1]}, column ${lc[2]}`;
  // V8 from 2023 names neither: the end, or the token it did not expect.
  if (/end of (JSON )?input/i.test(m)) return `it ends too soon, after ${text.length} characters`;
  const token = /Unexpected token '(.{1,8}?)'/.exec(m)?.[1];
  if (token === undefined) return undefined;
  const i = tokenAt(text, token);
  return `it has an unexpected “${token}”${i !== undefined ? ` at character ${i + 1} of ${text.length}` : ''}`;
}

/**
 * Where a parser that names the token it did not expect, and not where (V8 from 2023: "Unexpected
 * token 'N', "{"a": NaN" is not valid JSON"), stopped: the first occurrence of the token that
 * follows a valid beginning of JSON and ends one (probe 61's NaN: the first "N" of two); undefined
 * past 200 occurrences.
 */
function tokenAt(text: string, token: string): number | undefined {
  for (let i = text.indexOf(token), n = 0; i >= 0 && n < 200; i = text.indexOf(token, i + 1), n++)
    if (validStart(text.slice(0, i)) && !validStart(text.slice(0, i + token.length))) return i;
  return undefined;
}

/** Whether text can begin a JSON document: it parses, or the parser stops only at its end. */
function validStart(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch (e) {
    const m = e instanceof Error ? e.message : '';
    const at = /position (\d+)/.exec(m)?.[1];
    return /end of (JSON )?input|Unterminated string/i.test(m) || (at !== undefined && Number(at) >= text.length);
  }
}

/** Version 1: base64url(raw DEFLATE(UTF-8 JSON)). */
async function decodeV1(payload: string): Promise<DecodeResult> {
  const raw = base64urlDecode(payload.replace(/=+$/, ''));
  if (!raw.ok) return fail(raw.code);
  if (raw.bytes.length === 0) return fail('link.truncated');
  let inflated: Uint8Array | 'too_large';
  try {
    inflated = await drain(through(raw.bytes, new DecompressionStream('deflate-raw')), MAX_INFLATED_BYTES);
  } catch (e) {
    // Chromium says "...truncated", Node's zlib "unexpected end of file"; other errors are damage.
    const text = e instanceof Error ? e.message : String(e);
    return fail(/truncat|end of (file|input|stream)|Z_BUF_ERROR/i.test(text) ? 'link.truncated' : 'link.corrupt');
  }
  if (inflated === 'too_large') return fail('link.too_large');
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    return fail('link.corrupt', 'not UTF-8 text');
  }
  try {
    return { ok: true, scenario: JSON.parse(json) as unknown, version: 1 };
  } catch (e) {
    return fail('link.not_json', jsonBreak(json, e));
  }
}

/** Decoders by version; a new format adds an entry and keeps the old ones. */
const DECODERS: Record<number, (payload: string) => Promise<DecodeResult>> = { 1: decodeV1 };

/**
 * The scenario in a URL fragment ("#v1=..." with or without the "#"). An empty fragment gives
 * code "link.none" (no link: not a problem to report). Never throws.
 */
export async function decodeFragment(hash: string): Promise<DecodeResult> {
  try {
    const text = typeof hash === 'string' ? hash.replace(/^#/, '').trim() : '';
    if (text === '') return { ok: false, code: 'link.none', message: 'The address has no scenario.' };
    // The limit this breaks is the link's own length, not the unpacked size of link.too_large's words.
    if (text.length > MAX_FRAGMENT_CHARS)
      return { ok: false, code: 'link.too_large', message: `The link is too long: ${text.length.toLocaleString('en-US')} characters, over the ${MAX_FRAGMENT_CHARS / 1024} KiB of text a link may hold.` };
    const m = /^v(\d{1,6})=(.*)$/s.exec(text);
    if (!m) return fail('link.unrecognized');
    const version = Number(m[1]);
    const decoder = DECODERS[version];
    // Old versions keep their decoders: one below the current without a decoder was never written.
    if (!decoder)
      return version > CURRENT_VERSION
        ? fail('link.unknown_version', `version ${version}; this page reads up to version ${CURRENT_VERSION}`)
        : { ok: false, code: 'link.unknown_version', message: `The link is not a valid Optimus link: its format version (${m[1]}) is not one Optimus has ever written.` };
    return await decoder(m[2]!);
  } catch (e) {
    // Defensive: nothing above should throw, but a link must never break the page.
    return fail('link.corrupt');
  }
}
