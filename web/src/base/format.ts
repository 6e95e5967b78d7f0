// Number formatting for people: SI prefixes for rates and times, binary prefixes for capacities
// (docs/contract.md: capacities are binary, GiB = 2^30 B; rates are decimal). Pure
// functions, unit-tested in test/ui/format.test.ts.

/** Kinds of quantity the page displays; each has its own unit ladder. */
// 'days': a duration given in days (run.wall_days), written on the seconds' ladder (2.3 h, 6.69
// years); 'energy_mwh': an energy given in MWh, written in kWh, MWh or GWh.
export type Quantity = 'seconds' | 'days' | 'bytes' | 'byte_rate' | 'flops' | 'flop_rate' | 'tokens_rate' | 'requests_rate' | 'ratio' | 'factor' | 'count' | 'bool' | 'intensity' | 'params' | 'usd' | 'energy_mwh';

/** `x` with `digits` significant digits, without trailing zeros or exponent for usual sizes. */
export function sig(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const abs = Math.abs(x);
  // A thousand trillion and up as a power of ten: not "1000000000000000".
  if (abs >= 1e15 || abs < 1e-6) return x.toExponential(digits - 1).replace(/\.?0+e/, 'e');
  // A value that rounds up to 10^digits (999.95 at 3 digits) is written whole, not "1.00e+3".
  const p = x.toPrecision(digits);
  const fixed = abs >= 10 ** digits ? x.toFixed(0) : p.includes('e') ? Number(p).toFixed(0) : p;
  return fixed.includes('.') && !fixed.includes('e') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/**
 * The seconds' ladder: each rung's size in seconds, its unit, and the value below which it writes
 * a duration (the first three rungs compare the value rounded to three digits, so that 0.99995 s
 * is "1 s", not "1000 ms"; the others the value itself).
 */
const SECONDS_LADDER: ReadonlyArray<{ seconds: number; unit: string; below: number; rounded?: boolean }> = [
  { seconds: 1e-9, unit: 'ns', below: 1e-6, rounded: true },
  { seconds: 1e-6, unit: 'µs', below: 1e-3, rounded: true },
  { seconds: 1e-3, unit: 'ms', below: 1, rounded: true },
  { seconds: 1, unit: 's', below: 120 },
  { seconds: 60, unit: 'min', below: 7200 },
  { seconds: 3600, unit: 'h', below: 172800 },
  { seconds: 86400, unit: 'days', below: 86400 * 365.25 },
  { seconds: 86400 * 365.25, unit: 'years', below: Infinity },
];

/** The index on the seconds' ladder (ns, µs, ms, s, min, h, days, years) of the rung that writes `s`. */
function secondsRungIndex(s: number): number {
  const a = Math.abs(s);
  const i = SECONDS_LADDER.findIndex((r) => (r.rounded ? Number(a.toPrecision(3)) : a) < r.below);
  return i < 0 ? SECONDS_LADDER.length - 1 : i;
}

/** The rung of the seconds' ladder that writes `s`: its size in seconds and its unit. */
function secondsRung(s: number): { seconds: number; unit: string } {
  const r = SECONDS_LADDER[secondsRungIndex(s)]!;
  return { seconds: r.seconds, unit: r.unit };
}

/** Seconds on a ladder ns, µs, ms, s, min, h, days, years (time to train runs long). */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return String(s);
  if (s === 0) return '0 s';
  const r = secondsRung(s);
  return `${sig(s / r.seconds)} ${r.unit}`;
}

/** Energy given in MWh, in kWh below one MWh and GWh from a thousand: 0.0403 -> "40.3 kWh". */
export function formatMwh(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a === 0) return '0 kWh';
  if (Number(a.toPrecision(3)) < 1) return `${sig(x * 1e3)} kWh`;
  if (Number(a.toPrecision(3)) < 1000) return `${sig(x)} MWh`;
  return `${sig(x / 1e3)} GWh`;
}

/**
 * A range low – high written in one unit (for durations and capacities, whose ladders would
 * otherwise write "23.5 h – 1.2 days"): "21.3 – 34.5 h". The unit is that of `at`, the value the
 * range is shown beside, so that the two read alike ("104 s", "56.1 – 339 s", not "0.935 – 5.65
 * min"), unless the high end would then take four digits or more; without `at`, or then, the high
 * end's. Other quantities: each end as formatValue writes it, the unit said once where both ends
 * are a number followed by the same unit ("65.4 – 80.7 k tokens/s", "25.3 – 29.8 %", not
 * "65.4 k tokens/s – 80.7 k tokens/s"); ends in different units or with a unit before the number
 * ("$8.59 M") keep theirs.
 */
export function formatRange(low: number, high: number, q: Quantity, at?: number): string {
  const scaled = (size: number, unit: string): string => `${sig(low / size)} – ${sig(high / size)} ${unit}`;
  if (!Number.isFinite(low) || !Number.isFinite(high) || high === 0) return `${formatValue(low, q)} – ${formatValue(high, q)}`;
  const ref = at !== undefined && Number.isFinite(at) && at !== 0 ? at : high;
  // From rung i of a ladder of `rungs` sizes, up while the high end would take four digits.
  const climb = (i: number, rungs: number, size: (j: number) => number, x: number): number => {
    while (i < rungs - 1 && Math.abs(x) / size(i) >= 1000) ++i;
    return i;
  };
  if (q === 'seconds' || q === 'days') {
    const k = q === 'days' ? 86400 : 1;
    const r = SECONDS_LADDER[climb(secondsRungIndex(ref * k), SECONDS_LADDER.length, (j) => SECONDS_LADDER[j]!.seconds, high * k)]!;
    return scaled(r.seconds / k, r.unit);
  }
  if (q === 'bytes') {
    const i = climb(binaryRungIndex(ref), BINARY.length, (j) => 1024 ** j, high);
    return scaled(1024 ** i, BINARY[i]!);
  }
  return sharedUnit(formatValue(low, q), formatValue(high, q));
}

/** "65.4 k tokens/s" and "80.7 k tokens/s" as "65.4 – 80.7 k tokens/s"; other pairs joined as they are. */
function sharedUnit(low: string, high: string): string {
  const split = (t: string): [string, string] | undefined => {
    const m = /^([−-]?[\d.]+(?:e[+-]?\d+)?)( .+)$/.exec(t);
    return m ? [m[1]!, m[2]!] : undefined;
  };
  const a = split(low);
  const b = split(high);
  return a && b && a[1] === b[1] ? `${a[0]} – ${b[0]}${a[1]}` : `${low} – ${high}`;
}

/**
 * One unit for a whole time axis whose largest value is `max` seconds (the ladder of
 * formatSeconds), so that its ticks are round numbers of that unit: not "0 s … 1.11 years".
 */
export function timeAxisUnit(max: number): { unit: string; seconds: number } {
  const a = Math.abs(max);
  if (!(a > 0) || !Number.isFinite(a)) return { unit: 's', seconds: 1 };
  // An axis stays in days up to two years (ticks of 200 and 400 days, not 0.5 and 1 year), and
  // its smallest unit is the µs.
  if (a >= 86400 * 365.25 && a < 86400 * 365.25 * 2) return { unit: 'days', seconds: 86400 };
  const r = secondsRung(a);
  return r.unit === 'ns' ? { unit: 'µs', seconds: 1e-6 } : r;
}

const BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** The binary prefix (B, KiB, ..., PiB) that writes `b`: the largest with `b` at least one of it. */
function binaryRungIndex(b: number): number {
  let v = Math.abs(b);
  let i = 0;
  while (v >= 1024 && i < BINARY.length - 1) {
    v /= 1024;
    i++;
  }
  return i;
}

/** Bytes with binary prefixes (GiB = 2^30 B, the spec's capacity unit). */
export function formatBytes(b: number): string {
  if (!Number.isFinite(b)) return String(b);
  const i = binaryRungIndex(b);
  return `${b < 0 ? '-' : ''}${sig(Math.abs(b) / 1024 ** i)} ${BINARY[i]}`;
}

const DECIMAL = ['', 'k', 'M', 'G', 'T', 'P', 'E', 'Z'];

/** A decimal SI prefix: 3.2e15 -> "3.2 P" (followed by the unit). */
export function siPrefix(x: number, unit: string): string {
  if (!Number.isFinite(x)) return `${String(x)} ${unit}`;
  let v = Math.abs(x);
  let i = 0;
  while (v >= 1000 && i < DECIMAL.length - 1) {
    v /= 1000;
    i++;
  }
  return `${x < 0 ? '-' : ''}${sig(v)} ${DECIMAL[i]}${unit}`;
}

/**
 * An integer with thousands separators, as toLocaleString('en-US') writes it (1536 -> "1,536"),
 * without its cost: the first toLocaleString with a locale loads ICU's number formatting, about
 * 50 ms of a fresh page's main thread, on the way to the first numbers. Integers beyond 2^53 (and
 * -0) still go through toLocaleString.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = '';
  for (let end = digits.length; end > 0; end -= 3) out = digits.slice(Math.max(0, end - 3), end) + (out ? `,${out}` : '');
  return n < 0 ? `-${out}` : out;
}

/** A count and its noun, plural unless one: countOf(1, 'replica') -> "1 replica", countOf(1536, 'step', groupDigits) -> "1,536 steps". */
export function countOf(n: number, noun: string, show: (n: number) => string = String): string {
  return `${show(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** Millions and up in words (no "B" that reads as bytes): 671026404352 -> "671 billion"; null below. */
function inWords(n: number): string | null {
  const a = Math.abs(n);
  if (a >= 1e12) return `${sig(n / 1e12)} trillion`;
  if (a >= 1e9) return `${sig(n / 1e9)} billion`;
  if (a >= 1e6) return `${sig(n / 1e6)} million`;
  return null;
}

/** A large estimate, three significant digits: 3594261.4 -> "3.59 million", 12345.6 -> "12,300". */
function formatLarge(n: number): string {
  return inWords(n) ?? groupDigits(Number(n.toPrecision(3)));
}

/** Parameter counts in words: 671026404352 -> "671 billion". */
export function formatParams(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return inWords(n) ?? (Number.isInteger(n) ? groupDigits(n) : sig(n));
}

export function formatPercent(r: number, digits = 3): string {
  return Number.isFinite(r) ? `${sig(r * 100, digits)} %` : String(r);
}

/** The display text of one value of a given quantity. */
export function formatValue(x: unknown, q: Quantity): string {
  if (typeof x === 'boolean') return x ? 'yes' : 'no';
  if (typeof x !== 'number') return x === undefined || x === null ? '—' : String(x);
  switch (q) {
    case 'seconds':
      return formatSeconds(x);
    case 'days':
      return formatSeconds(x * 86400);
    case 'energy_mwh':
      return formatMwh(x);
    case 'bytes':
      return formatBytes(x);
    case 'byte_rate':
      return siPrefix(x, 'B/s');
    case 'flops':
      return siPrefix(x, 'FLOP');
    case 'flop_rate':
      return siPrefix(x, 'FLOP/s');
    case 'tokens_rate':
      return `${siPrefix(x, '').trim()} tokens/s`;
    case 'requests_rate':
      return `${sig(x)} requests/s`;
    case 'ratio':
      return formatPercent(x);
    case 'factor':
      return `${sig(x)}×`;
    case 'intensity':
      return `${sig(x)} FLOP/B`;
    case 'bool':
      return x ? 'yes' : 'no';
    case 'count':
      // An exact count keeps every digit (1,536 GPUs); an estimate of ten thousand or more is
      // written to its three significant digits in words (GPU-hours: 3.59 million, not 3594261).
      if (Number.isInteger(x)) return groupDigits(x);
      return Math.abs(x) >= 1e4 ? formatLarge(x) : sig(x);
    case 'params':
      return formatParams(x);
    case 'usd':
      return `${x < 0 ? '−' : ''}$${siPrefix(Math.abs(x), '').trim()}`;
  }
}

/**
 * Difference of current against pinned, in the quantity's unit and in percent of pinned:
 * "+1.2 s (+3.4 %)". Equal values give "±0"; a pinned zero gives no percentage.
 */
export function formatDelta(current: number, pinned: number, q: Quantity): { text: string; sign: -1 | 0 | 1 } {
  const d = current - pinned;
  if (d === 0 || (Math.abs(d) <= 1e-12 * Math.max(Math.abs(current), Math.abs(pinned)))) return { text: '±0', sign: 0 };
  const sign = d > 0 ? 1 : -1;
  const plus = d > 0 ? '+' : '−';
  const abs = q === 'ratio' ? `${sig(Math.abs(d) * 100)} pp` : formatValue(Math.abs(d), q);
  const pct = pinned !== 0 ? ` (${plus}${sig(Math.abs(d / pinned) * 100)} %)` : '';
  return { text: `${plus}${abs}${pct}`, sign };
}

/**
 * A label cut to at most `max` characters by dropping its middle, so that names that share a long
 * opening ("NVIDIA Megatron-Bridge performance summary (25.09 ...)" and "(26.02 ...)") stay apart.
 */
export function cutMiddle(label: string, max: number): string {
  if (label.length <= max) return label;
  // The end gets the larger share: where a source names its version or its subject.
  const tail = Math.ceil((max - 1) * 0.6);
  return `${label.slice(0, max - 1 - tail)}…${label.slice(label.length - tail)}`;
}

/**
 * A band's regime (core/uncertainty/uncertainty.cpp regimes_of: training/moe/earlier, serving/dense,
 * rl/step/split, ...) in words, for the sentence "80% of N published <words> fell ...".
 */
export function regimeWords(regime: string): string {
  const [head, a = '', b] = regime.split('/');
  const of = a === 'moe' ? ' of mixture-of-experts models' : a === 'dense' ? ' of dense models' : '';
  if (head === 'training') return `training steps${of}${b === 'earlier' ? ' on GPUs without FP4 (H100, A100 and earlier)' : b ? ' on GPUs with FP4 (B200, GB200, MI355X and later)' : ''}`;
  if (head === 'serving') return `served streams${of}${b ? ` (${b === 'ttft' ? 'time to first token' : b === 'tpot' ? 'time per output token' : b})` : ''}`;
  if (head === 'inference') return `static inference runs${a === 'eager' ? ' launched kernel by kernel' : a ? ' replaying CUDA graphs' : ''}`;
  if (head === 'memory') return `${a} memory footprints`.trimStart();
  if (head === 'run') return `whole training runs${a === 'earlier' ? ' on GPUs without FP8 (A100 and earlier)' : a ? ' on GPUs with FP8 (H100 and later)' : ''}`;
  if (head !== 'rl') return `measurements of the regime ${regime}`;
  const what: Record<string, string> = { step: 'RL step times', rollout: 'RL rollout times', forward: 'RL scoring forward passes', train: 'RL policy-update times', weight_sync: 'RL weight syncs' };
  return `${what[a] ?? 'RL measurements'}${b === 'split' ? ' of jobs on two pools' : b === 'colocated' ? ' of jobs on one shared pool' : ''}`;
}

/**
 * A number outside its key's range in words: the field's label (else the key's name), which way,
 * and the range with readable numbers, read from the reader's message "'key' = v is outside the
 * accepted range [lo, hi]" (core/io/reader.h), wherever a caller put it in theirs ("in preset ...:",
 * "study ...:"). Undefined for any other error.
 */
export function rangeWords(e: { code: string; message: string }, label: string | undefined): string | undefined {
  const m = /'([^']+)' = (\S+) is outside the accepted range \[(\S+), (\S+)\]$/.exec(e.message);
  if (e.code !== 'scenario.out_of_range' || !m) return undefined;
  const [v, lo, hi] = [m[2], m[3], m[4]].map(Number) as [number, number, number];
  const num = (x: number): string => (Number.isInteger(x) && Math.abs(x) < 1e15 ? groupDigits(x) : sig(x));
  return `${label ?? m[1]!.replace(/_/g, ' ')} = ${num(v)} is ${v < lo ? 'below' : 'above'} what the engine accepts (${num(lo)} to ${num(hi)})`;
}
