import { describe, expect, it } from 'vitest';
import { searchScenario } from '../../src/ui/search';

describe('search scenario', () => {
  const s = { model: 'm', num_devices: 64, parallel: { tp: 8, pp: 2, dp: 4, recompute: 'selective', zero_stage: 1 }, training: {} };
  it('keeps only the parallel keys chosen as fixed (the engine searches the absent ones)', () => {
    expect(searchScenario(s, [])).toEqual({ ...s, parallel: {} });
    expect(searchScenario(s, ['tp', 'zero_stage', 'cp'])).toEqual({ ...s, parallel: { tp: 8, zero_stage: 1 } });
  });
  it('does not modify the editor scenario', () => {
    searchScenario(s, []);
    expect(s.parallel.tp).toBe(8);
  });
});
