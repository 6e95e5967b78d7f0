import { describe, expect, it } from 'vitest';
import type { ChosenLayout } from '../../src/engine/types';
import { rlTrainerLabel, rlWithCandidate, searchScenario, type RlCandidate } from '../../src/ui/search';

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

describe('rlWithCandidate', () => {
  const candidate = (rollout: { tp: number; ep: number; dp: number }) =>
    ({
      placement: 'colocated',
      rollout_devices: 256,
      train_devices: 256,
      step_time_s: 1,
      rl: {
        rollout: { parallel: { pp: 1, ...rollout } },
        train: { parallel: { tp: 1, pp: 16, cp: 1, ep: 16, etp: 1, zero_stage: 1, recompute: 'none' } },
      },
    }) as unknown as RlCandidate;
  const rl = { prompts_per_step: 64, rollout: { software: 'vllm' }, train: 'auto' };
  it('states the experts the search spread over replicas (ep above tp), and the engine tp', () => {
    const out = rlWithCandidate(rl, candidate({ tp: 2, ep: 16, dp: 128 }));
    expect(out.rollout).toEqual({ software: 'vllm', tp: 2, ep: 16 });
  });
  it('adds no ep where the experts stay within an engine', () => {
    const out = rlWithCandidate(rl, candidate({ tp: 8, ep: 1, dp: 32 }));
    expect(out.rollout).toEqual({ software: 'vllm', tp: 8 });
    expect(rl.rollout).toEqual({ software: 'vllm' });
  });
});

describe('rlTrainerLabel', () => {
  const layout = { tp: 2, pp: 4, dp: 4, cp: 1, ep: 8, etp: 1, micro_batch: 2, interleave: 1, sequence_parallel: false, recompute: 'full', zero_stage: 1 } as ChosenLayout;
  it('marks a trainer whose optimizer state the engine put in host memory', () => {
    expect(rlTrainerLabel({ ...layout, optimizer_offload: true })).toBe('TP2 PP4 DP4 EP8 mb2 full Z1 *');
  });
  it('leaves the others as the layout search labels them', () => {
    expect(rlTrainerLabel(layout)).toBe('TP2 PP4 DP4 EP8 mb2 full Z1');
  });
});
