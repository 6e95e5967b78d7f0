// The RL task's pure parts: the timeline of one step per pool (src/charts/specs.ts
// rlTimelineSpec), the headline's words (src/ui/rl.ts) and the placement's coupling
// (src/state/coupling.ts). The engine-computed versions are in tasks.test.ts.
import { describe, expect, it } from 'vitest';
import { RL_PHASES, rlTimelineSpec, type BarChartSpec } from '../../src/charts/specs';
import { couple, halfPool } from '../../src/state/coupling';
import type { Prediction, RlResult } from '../../src/engine/types';
import { rlTimeWords } from '../../src/ui/rl';
import { RL_METRICS, explain } from '../../src/ui/metrics';

/** An rl output with the engine's numbers for Qwen2.5 7B GRPO on 8 H100 (split 4 + 4, staleness k). */
function rl(placement: 'colocated' | 'split', staleness: number): RlResult {
  const phases_s = { rollout: 94.37, reward: 0, reference: 22.47, old_logprob: 22.47, train: 67.16, weight_sync: 0.042, swap: 0 };
  const score = phases_s.reward + phases_s.reference + phases_s.old_logprob + phases_s.train;
  let step: number;
  let idle_s: RlResult['idle_s'];
  if (placement === 'colocated') {
    phases_s.swap = 2.3;
    step = Object.values(phases_s).reduce((a, b) => a + b, 0);
    idle_s = { rollout: 0, train: 0 };
  } else if (staleness === 0) {
    step = phases_s.rollout + score + phases_s.weight_sync;
    idle_s = { rollout: score, train: phases_s.rollout };
  } else {
    const m = Math.max(phases_s.rollout, score);
    step = m + phases_s.weight_sync;
    idle_s = { rollout: m - phases_s.rollout, train: m - score };
  }
  const layout = { tp: 1, pp: 1, dp: 4 } as unknown as RlResult['rollout']['parallel'];
  return {
    step_time_s: step,
    phases_s,
    idle_s,
    placement,
    staleness,
    tokens_per_step: 3.4e6,
    tokens_per_s: 3.4e6 / step,
    tokens_per_s_per_gpu: 3.4e6 / step / 8,
    rollout: { devices: placement === 'split' ? 4 : 8, parallel: layout, responses: 1024, output_tokens: 2e6, output_tokens_per_s: 2e4, longest_response_s: phases_s.rollout, mean_response_s: 31.2, mean_batch: 40, preemptions: 0 },
    train: { devices: placement === 'split' ? 4 : 8, parallel: layout, global_batch: 1024, seq_len: 4000, iteration_time_s: 67.16, mini_batches: 1, mfu: 0.5, critic_s: 0 },
  } as unknown as RlResult;
}

/** Each row's end (its last segment's start + value). */
function ends(spec: BarChartSpec): Map<string, number> {
  const out = new Map<string, number>();
  for (const b of spec.bars) out.set(b.row, Math.max(out.get(b.row) ?? 0, (b.start ?? 0) + b.value));
  return out;
}

describe('rlTimelineSpec', () => {
  it('is null without an rl output', () => {
    expect(rlTimelineSpec({ memory: {} } as unknown as Prediction)).toBeNull();
  });
  for (const [placement, k, rows] of [
    ['colocated', 0, 1],
    ['split', 0, 2],
    ['split', 1, 2],
  ] as const) {
    it(`${placement}, staleness ${k}: ${rows} row(s), each ending at the step time, segments back to back`, () => {
      const r = rl(placement, k);
      const spec = rlTimelineSpec({ rl: r } as unknown as Prediction)!;
      expect(spec.unit).toBe('seconds');
      expect(spec.stacked).toBe(true);
      const e = ends(spec);
      expect(e.size).toBe(rows);
      for (const [, end] of e) expect(end).toBeCloseTo(r.step_time_s, 6);
      for (const row of e.keys()) {
        const segs = spec.bars.filter((b) => b.row === row);
        segs.forEach((b, i) => {
          expect(b.value).toBeGreaterThan(0);
          if (i > 0) expect(b.start).toBeCloseTo((segs[i - 1]!.start ?? 0) + segs[i - 1]!.value, 9);
        });
        expect(segs[0]!.start).toBe(0);
      }
      // A rule-based reward takes no time: no segment for it.
      expect(spec.bars.some((b) => b.category.startsWith('Reward'))).toBe(false);
      // The straggler: the rollout is cut at the mean response, the tail runs to the longest.
      const tail = spec.bars.find((b) => b.category.startsWith('Rollout tail'))!;
      expect(tail.start).toBeCloseTo(31.2, 9);
      expect(tail.start! + tail.value).toBeCloseTo(94.37, 9);
      for (const b of spec.bars) expect(spec.colors?.[b.category]).toBeDefined();
    });
  }
  it('split on-policy: the rollout pool idles while the trainer works, the trainer while the rollout runs', () => {
    const spec = rlTimelineSpec({ rl: rl('split', 0) } as unknown as Prediction)!;
    const idle = spec.bars.filter((b) => b.category === RL_PHASES[8]![0]);
    expect(idle.map((b) => b.row)).toEqual(['Rollout pool (4 GPUs)', 'Training pool (4 GPUs)']);
    expect(idle[0]!.start).toBeCloseTo(94.37, 9); // after the rollout
    expect(idle[1]!.start).toBe(0); // before its scoring
    expect(idle[1]!.value).toBeCloseTo(94.37, 9);
  });
  it('asynchronous: the slower pool (training here) does not idle, the rollout pool idles for the difference', () => {
    const r = rl('split', 1);
    const spec = rlTimelineSpec({ rl: r } as unknown as Prediction)!;
    const idle = spec.bars.filter((b) => b.category === RL_PHASES[8]![0]);
    expect(idle).toHaveLength(1);
    expect(idle[0]!.row).toMatch(/^Rollout pool/);
    expect(idle[0]!.value).toBeCloseTo(112.1 - 94.37, 6);
  });
  it('roles separate: one lane per model of the trainer, each ending at the step time', () => {
    const r = rl('split', 0);
    // PPO on 4 + 4: actor and critic on 1 GPU each, reference and reward on 1 each; the forwards
    // run at once (the slowest sets the phase), then the updates.
    // The waits are the engine's (rl.roles.<role>.wait_after_forward_s, wait_after_update_s): the
    // slowest forward (30) and the slower update (67.16) less the role's own.
    const role = (forward_s: number, update_s: number) => ({
      devices: 1,
      parallel: r.rollout.parallel,
      forward_s,
      update_s,
      idle_s: 30 - forward_s + 67.16 - update_s,
      wait_after_forward_s: 30 - forward_s,
      wait_after_update_s: 67.16 - update_s,
      per_device_bytes: 1e9,
      fits: true,
    });
    Object.assign(r.phases_s, { reward: 10, reference: 22.47, old_logprob: 30, train: 67.16 });
    const side = 30 + 67.16;
    r.roles = { mode: 'separate', actor: role(22.47, 67.16), critic: role(30, 60), reference: role(22.47, 0), reward: role(10, 0) } as unknown as RlResult['roles'];
    r.idle_s = { rollout: side, train: r.phases_s.rollout };
    r.step_time_s = r.phases_s.rollout + side + r.phases_s.weight_sync;
    const spec = rlTimelineSpec({ rl: r } as unknown as Prediction)!;
    const e = ends(spec);
    expect([...e.keys()]).toEqual(['Rollout pool (4 GPUs)', 'Actor (1 GPU)', 'Critic (1 GPU)', 'Reference (1 GPU)', 'Reward (1 GPU)']);
    for (const [, end] of e) expect(end).toBeCloseTo(r.step_time_s, 6);
    const reward = spec.bars.filter((b) => b.row === 'Reward (1 GPU)');
    // waiting for the rollout, its forward, waiting for the critic, waiting through the updates, the sync
    expect(reward.map((b) => b.category)).toEqual([RL_PHASES[8]![0], RL_PHASES[2]![0], RL_PHASES[8]![0], RL_PHASES[8]![0], RL_PHASES[6]![0]]);
    // The reward model's waits as the engine states them: 30 - 10 after its forward, 67.16 after its (empty) update.
    expect(reward[2]!.value).toBeCloseTo(20, 9);
    expect(reward[3]!.value).toBeCloseTo(67.16, 9);
  });
  it("the trainer's straggler ends its optimizer steps, inside the training phase", () => {
    const r = rl('colocated', 0);
    (r.train as { straggler_s: number }).straggler_s = 10;
    const spec = rlTimelineSpec({ rl: r } as unknown as Prediction)!;
    const train = spec.bars.find((b) => b.category === RL_PHASES[5]![0])!;
    const wait = spec.bars.find((b) => b.category === RL_PHASES[9]![0])!;
    expect(train.value).toBeCloseTo(67.16 - 10, 9);
    expect(wait.value).toBeCloseTo(10, 9);
    expect(wait.start).toBeCloseTo(train.start! + train.value, 9);
    for (const [, end] of ends(spec)) expect(end).toBeCloseTo(r.step_time_s, 6);
    // None without one (fixed lengths, one rank).
    expect(rlTimelineSpec({ rl: rl('colocated', 0) } as unknown as Prediction)!.bars.some((b) => b.category === RL_PHASES[9]![0])).toBe(false);
  });
  it('colocated: the swap is split in two halves around the scoring and training', () => {
    const spec = rlTimelineSpec({ rl: rl('colocated', 0) } as unknown as Prediction)!;
    const swap = spec.bars.filter((b) => b.category.startsWith('Swap'));
    expect(swap).toHaveLength(2);
    expect(swap[0]!.value + swap[1]!.value).toBeCloseTo(2.3, 9);
    expect(swap[0]!.start).toBeCloseTo(94.37, 9);
  });
});

describe('rlTimeWords', () => {
  it('colocated: shares of the step and the straggler', () => {
    const w = rlTimeWords(rl('colocated', 0));
    expect(w).toMatch(/^rollout 45 %, training 32 %, scoring forwards 22 %, swap and weight sync 1 % of the step; the longest response takes 94\.4 s, the mean one 31\.2 s\.$/);
  });
  it('split: each pool working and idle', () => {
    const w = rlTimeWords(rl('split', 1));
    expect(w).toContain('Rollout pool: generating 84 %, idle 16 %');
    expect(w).toContain('training pool: scoring and training 100 %, idle 0 %');
  });
});

describe('rl placement coupling', () => {
  const none = new Set<string>();
  const base = (rlBlock: Record<string, unknown>, n = 16) => ({ model: 'qwen2.5-7b', system: 'dgx-h100', num_devices: n, rl: { prompts_per_step: 128, ...rlBlock } });
  it('halfPool: whole nodes when several, else half', () => {
    expect([halfPool(1), halfPool(2), halfPool(8), halfPool(16), halfPool(24), halfPool(64), halfPool(12)]).toEqual([1, 1, 4, 8, 8, 32, 6]);
  });
  it('to split: both pools start, half and half', () => {
    const before = base({ placement: 'colocated' });
    const after = base({ placement: 'split' });
    const r = couple(before, after, '/rl/placement', none);
    expect(r.scenario.rl).toMatchObject({ rollout_devices: 8, train_devices: 8 });
    expect(r.followed).toEqual(['/rl/rollout_devices', '/rl/train_devices']);
  });
  it('to colocated: the pools and async go', () => {
    const before = base({ placement: 'split', rollout_devices: 8, train_devices: 8, async: { staleness: 1 } });
    const after = base({ placement: 'colocated', rollout_devices: 8, train_devices: 8, async: { staleness: 1 } });
    const r = couple(before, after, '/rl/placement', none);
    expect(r.scenario.rl).toEqual({ prompts_per_step: 128, placement: 'colocated' });
  });
  it('one pool changed: the other is the rest', () => {
    const s = base({ placement: 'split', rollout_devices: 12, train_devices: 8 });
    expect((couple(s, s, '/rl/rollout_devices', none).scenario.rl as any).train_devices).toBe(4);
    const t = base({ placement: 'split', rollout_devices: 8, train_devices: 6 });
    expect((couple(t, t, '/rl/train_devices', none).scenario.rl as any).rollout_devices).toBe(10);
  });
  it('the GPUs changed: the training pool is the rest, or both halve when the rollout pool no longer fits', () => {
    const s = base({ placement: 'split', rollout_devices: 4, train_devices: 12 }, 32);
    expect(couple(s, s, '/num_devices', none).scenario.rl).toMatchObject({ rollout_devices: 4, train_devices: 28 });
    const t = base({ placement: 'split', rollout_devices: 8, train_devices: 8 }, 4);
    expect(couple(t, t, '/num_devices', none).scenario.rl).toMatchObject({ rollout_devices: 2, train_devices: 2 });
  });
  it('colocated keys untouched by other edits', () => {
    const s = base({ placement: 'colocated' });
    expect(couple(s, s, '/num_devices', none).followed).toEqual([]);
  });
});

describe('weight sync explanation', () => {
  const sync = RL_METRICS.find((m) => m.path === 'rl.phases_s.weight_sync')!;
  const withSync = (placement: 'colocated' | 'split'): Prediction =>
    ({ rl: { ...rl(placement, 0), weight_sync: { method: 'nccl', bytes: 15.2e9 } } }) as unknown as Prediction;
  it('hands the gathered weights over in device memory when colocated, and broadcasts them when split', () => {
    const colocated = explain(sync, { prediction: withSync('colocated'), scenario: null })!;
    expect(colocated.formula).toMatch(/handed to the engine on the same devices, which copies its shard into its parameters/);
    expect(colocated.formula).not.toMatch(/broadcast/);
    const split = explain(sync, { prediction: withSync('split'), scenario: null })!;
    expect(split.formula).toMatch(/broadcast to every engine/);
    expect(split.source).toMatch(/vllm-project\/vllm issue 5723/);
  });
  it('names the host route and its source whatever the placement', () => {
    const host = { rl: { ...rl('colocated', 0), weight_sync: { method: 'host', bytes: 15.2e9 } } } as unknown as Prediction;
    const e = explain(sync, { prediction: host, scenario: null })!;
    expect(e.formula).toMatch(/read from host memory/);
    expect(e.source).toMatch(/checkpoint-engine/);
  });
});

describe('single controller', () => {
  const row = RL_METRICS.find((m) => m.path === 'rl.controller.seconds')!;
  /** The engine's output: 4 passes of 7.9 GB at the rate in effect. */
  const withController = (GBps: number): Prediction =>
    ({ rl: { ...rl('colocated', 0), controller: { GBps, bytes_per_pass: 7.9e9, passes: 4, seconds: (4 * 7.9) / GBps } } }) as unknown as Prediction;
  it('counts the phases that run and says whether the rate was assumed', () => {
    const assumed = explain(row, { prediction: withController(0.25), scenario: { rl: {} } as never })!;
    expect(assumed.formula).toMatch(/phases that run × padded batch ÷ driver rate/);
    const inputs = Object.fromEntries(assumed.inputs);
    expect(inputs['driver rate']).toMatch(/^0\.25 GB\/s \(assumed/);
    expect(Number(inputs['phases that run'])).toBeGreaterThan(0);
    const stated = explain(row, { prediction: withController(0.5), scenario: { rl: { controller_GBps: 0.5 } } as never })!;
    expect(Object.fromEntries(stated.inputs)['driver rate']).toBe('0.5 GB/s');
    expect(stated.source).toMatch(/single controller/);
  });
  it('is hidden when the workers exchange the batch directly', () => {
    expect(row.hideZero).toBe(true);
  });
});

describe('reward phase', () => {
  const reward = RL_METRICS.find((m) => m.path === 'rl.phases_s.reward')!;
  /** A rule-based reward of 40 ms a response scored by 4 processes: 1024 x 0.04 / 4 = 10.24 s. */
  const scored = (): Prediction => {
    const r = rl('colocated', 0);
    const phases_s = { ...r.phases_s, reward: 10.24 };
    return { rl: { ...r, phases_s, reward_cpu_s: 10.24, step_time_s: r.step_time_s + 10.24 } } as unknown as Prediction;
  };
  it('explains a rule-based reward by its host time, with the stated inputs', () => {
    const e = explain(reward, { prediction: scored(), scenario: { rl: { reward_cpu_ms: 40, reward_workers: 4 } } as never })!;
    expect(e.formula).toBe('host scoring = responses × CPU time per response ÷ scoring processes');
    expect(Object.fromEntries(e.inputs)).toMatchObject({ responses: '1,024', 'scoring processes': '4' });
  });
  it('puts the scoring on the timeline between the rollout and the forwards', () => {
    const spec = rlTimelineSpec(scored())!;
    const bar = spec.bars.find((b) => b.category.startsWith('Reward'))!;
    expect(bar.value).toBeCloseTo(10.24, 9);
    expect(bar.start).toBeGreaterThanOrEqual(94.37);
    const reference = spec.bars.find((b) => b.category === 'Reference forward')!;
    expect(reference.start).toBeCloseTo(bar.start! + 10.24, 9);
  });
});
