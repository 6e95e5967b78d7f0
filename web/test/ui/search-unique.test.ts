// @vitest-environment happy-dom
// The search's top list without repeated layouts (src/ui/search.ts uniqueLayouts).
import { describe, expect, it } from 'vitest';
import { uniqueLayouts } from '../../src/ui/search';
import type { SearchBest } from '../../src/engine/types';

const row = (parallel: Record<string, unknown>, t: number): SearchBest => ({ parallel, training: { iteration_time_s: t }, memory: { per_device_bytes: { total: 1e9 } } }) as unknown as SearchBest;

describe('uniqueLayouts', () => {
  it('drops a layout that reads and predicts the same as one above it, keeps the rest in order', () => {
    const best = [row({ tp: 8, pp: 1, dp: 8, etp: 1 }, 1), row({ tp: 8, pp: 1, dp: 8 }, 1), row({ tp: 4, pp: 2, dp: 8 }, 1.2), row({ tp: 8, pp: 1, dp: 8 }, 1.5)];
    expect(uniqueLayouts(best, true)).toEqual([best[0], best[2], best[3]]);
  });
  it('keeps everything when nothing repeats', () => {
    const best = [row({ tp: 1 }, 1), row({ tp: 2 }, 1)];
    expect(uniqueLayouts(best, true)).toEqual(best);
  });
});
