// The RL task's headline words: where one step's time goes (docs/rl.md "The step"), from the
// engine's rl output only. Pure (test/ui/rl.test.ts).
import type { RlResult } from '../engine/types';
import { formatSeconds } from '../base/format';

const pct = (x: number, of: number): string => `${of > 0 ? Math.round((100 * x) / of) : 0} %`;

/**
 * "Rollout 58 % of the step, ..." for colocated; per pool (working and idle shares) for split;
 * always with the straggler: the longest response against the mean one.
 */
export function rlTimeWords(rl: RlResult): string {
  const ph = rl.phases_s;
  const step = rl.step_time_s;
  const forwards = ph.reward + ph.reference + ph.old_logprob;
  const tail = `the longest response takes ${formatSeconds(rl.rollout.longest_response_s)}, the mean one ${formatSeconds(rl.rollout.mean_response_s)}`;
  if (rl.placement === 'colocated') {
    const parts: Array<[string, number]> = [
      ['rollout', ph.rollout],
      ['training', ph.train],
      ['scoring forwards', forwards],
      ['swap and weight sync', ph.swap + ph.weight_sync],
    ];
    return `${parts.map(([w, v]) => `${w} ${pct(v, step)}`).join(', ')} of the step; ${tail}.`;
  }
  const busyTrain = forwards + ph.train;
  return (
    `Rollout pool: generating ${pct(ph.rollout, step)}, idle ${pct(rl.idle_s.rollout, step)}; ` +
    `training pool: scoring and training ${pct(busyTrain, step)}, idle ${pct(rl.idle_s.train, step)}; ` +
    `weight sync ${pct(ph.weight_sync, step)}; ${tail}.`
  );
}
