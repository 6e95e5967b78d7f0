// Restoring the scenario a page opens with: the decoded share link if the engine accepts it,
// otherwise the last valid scenario (or the default preset) and a message for the banner.
// Untrusted input is never trusted and never throws (Excalidraw's restore step is the model).
import type { Engine } from '../engine/client';
import type { EngineError } from '../engine/types';
import type { DecodeResult } from './url';
import { asObject } from '../state/pointer';
import { formLabel, plainError } from '../ui/words';

export type Restored =
  /** The link's scenario, accepted by the engine (as written in the link: preset ids kept). */
  | { ok: true; source: 'link'; scenario: unknown }
  /** No link in the address: the fallback, nothing to report. */
  | { ok: true; source: 'fallback'; scenario: unknown }
  /**
   * The link's scenario, which the engine refuses for a value the form can show and correct
   * (correctable): it opens as it is, the error at its field; `message` is for the banner.
   */
  | { ok: false; source: 'link'; code: string; path: string; message: string; scenario: unknown }
  /**
   * The link could not be used: `message` is for the banner, `code` is the decoder's (link.*) or
   * the engine's error code, `path` the engine's JSON Pointer when it named one; `scenario` is
   * the fallback (null only when not even the default scenario could be had).
   */
  | { ok: false; source?: undefined; code: string; path: string; message: string; scenario: unknown };

/** Engine errors about the shape of a scenario, which a form cannot show at a field. */
const SHAPE_ERRORS: ReadonlySet<string> = new Set([
  'scenario.malformed_json',
  'scenario.duplicate_key',
  'scenario.unsupported_version',
  'scenario.no_workload',
  'scenario.wrong_type',
  'scenario.missing_key',
  'scenario.unknown_key',
  'scenario.invalid_value',
]);

/**
 * Whether a link the engine refuses opens on its own scenario: the error names a field and is
 * about a value there (a number out of range, a layout or an RL split that does not add up), which
 * the form shows and the person corrects, often in one click. Errors about the scenario's shape
 * (a key it does not have, a value of the wrong type, a missing key) or a preset id the engine
 * does not know open the fallback instead: the form could not show what is wrong.
 */
export function correctable(scenario: unknown, code: string, path: string): boolean {
  return asObject(scenario) !== undefined && path !== '' && !SHAPE_ERRORS.has(code) && !code.startsWith('preset.') && !code.startsWith('engine.');
}

export interface RestoreOptions {
  /** The last scenario the page showed without errors; default: `start`. */
  lastValid?: unknown;
  /**
   * What the page shows without a link (app.ts: the Train task's starting scenario), which a link
   * that cannot be used opens too when nothing valid was shown before; default: the engine's
   * "default" preset.
   */
  start?: unknown;
}

async function fallback(engine: Pick<Engine, 'preset'>, options: RestoreOptions): Promise<{ scenario: unknown; problem?: EngineError }> {
  if (options.lastValid !== undefined && options.lastValid !== null) return { scenario: options.lastValid };
  if (options.start !== undefined && options.start !== null) return { scenario: options.start };
  try {
    const r = await engine.preset('scenarios', 'default');
    return r.ok ? { scenario: r.value } : { scenario: null, problem: r.error };
  } catch (e) {
    return { scenario: null, problem: { code: 'engine.crashed', path: '', message: e instanceof Error ? e.message : String(e) } };
  }
}

const whatShown = (options: RestoreOptions): string =>
  options.lastValid !== undefined && options.lastValid !== null ? 'the last valid scenario' : 'the default scenario';

/** Never throws; see Restored for the three outcomes. */
export async function restoreScenario(
  decoded: DecodeResult,
  engine: Pick<Engine, 'validate' | 'preset'>,
  options: RestoreOptions = {},
): Promise<Restored> {
  try {
    if (!decoded.ok && decoded.code === 'link.none') {
      const fb = await fallback(engine, options);
      if (fb.problem) return { ok: false, code: fb.problem.code, path: '', message: `The default scenario could not be loaded: ${fb.problem.message}`, scenario: null };
      return { ok: true, source: 'fallback', scenario: fb.scenario };
    }
    let problem: { code: string; path: string; message: string };
    if (decoded.ok) {
      const checked = await engine.validate(decoded.scenario, { interactive: true });
      if (checked.ok) return { ok: true, source: 'link', scenario: decoded.scenario };
      // The error in the page's words (ui/words.ts: a number out of range with its key named, a
      // code's words, an unknown preset's nearest ids rather than all of them); any other error as
      // the engine wrote it, with where.
      const plain = plainError(checked.error, asObject(decoded.scenario) ?? {}, new Set(), formLabel(decoded.scenario)).words;
      const words = plain === checked.error.message ? undefined : plain;
      const where = checked.error.path && words === undefined ? ` (at ${checked.error.path})` : '';
      problem = { code: checked.error.code, path: checked.error.path, message: `The link's scenario is not valid: ${words ?? checked.error.message}${where}.` };
      if (correctable(decoded.scenario, checked.error.code, checked.error.path))
        return { ok: false, source: 'link', ...problem, message: `${problem.message} Shown as written, for you to correct below.`, scenario: decoded.scenario };
    } else {
      problem = { code: decoded.code, path: '', message: decoded.message };
    }
    const fb = await fallback(engine, options);
    return { ok: false, ...problem, message: `${problem.message} Showing ${fb.scenario === null ? 'nothing' : whatShown(options)} instead.`, scenario: fb.scenario };
  } catch (e) {
    return { ok: false, code: 'engine.crashed', path: '', message: `The scenario could not be restored: ${e instanceof Error ? e.message : String(e)}`, scenario: options.lastValid ?? null };
  }
}
