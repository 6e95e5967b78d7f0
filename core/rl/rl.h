// RL post-training planning (issue 40): one step of a GRPO or PPO job composed of what the engine
// already predicts. The rollout is continuous-batching serving (serving/, through predict/serving.h) of
// prompts_per_step x samples_per_prompt requests; the reward, reference, old-logprob and critic
// passes are forward-only passes of the training layout; the update is the training predict
// (predict/predict.h) on the step's tokens; the weights move to the engine over the fabric
// (cost model of rl.cpp). Sources per phase in rl.cpp and docs/rl.md.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "predict/predict.h"
#include "scenario/scenario.h"

namespace optimus {

// Seconds of one RL step per phase, summed over its sub-steps (mini-batches).
struct RlPhases {
  double rollout = 0, reward = 0, reference = 0, old_logprob = 0, train = 0, weight_sync = 0, swap = 0;
};

// One pool's memory: the largest per-device footprint of what runs on it.
struct RlPoolMemory {
  double bytes_per_device = 0, capacity_bytes = 0;
  bool fits = true;
  std::string what;  // what does not fit ("" when it does)
};

// One model of the trainer under roles "separate": its devices, its passes, its wait per step.
struct RlRole {
  std::string name;  // actor, critic, reference, reward
  std::int64_t devices = 0;
  ParallelPlan plan;
  double forward_s = 0, update_s = 0, idle_s = 0;
  // The two waits idle_s is made of: after its forward, for the slowest forward of the roles
  // (max(reward, reference, old_logprob) - forward_s); after its update, for the slower update
  // (train - update_s). idle_s = wait_after_forward_s + wait_after_update_s.
  double wait_after_forward_s = 0, wait_after_update_s = 0;
  double bytes_per_device = 0;  // trained roles: the training footprint; frozen roles: the weights
  bool fits = true;
};

struct RlPrediction {
  double step_time_s = 0;
  RlPhases phases;
  double idle_rollout_s = 0, idle_train_s = 0;  // split: the pool that waits, per step
  double tokens_per_step = 0;                   // prompt + response tokens trained per step
  double tokens_per_s = 0, tokens_per_s_per_gpu = 0;
  // Rollout: the serving run of the step's responses on the rollout pool.
  ParallelPlan rollout_plan;
  std::int64_t rollout_devices = 0, responses = 0;
  double output_tokens = 0, output_tokens_per_s = 0;
  double longest_response_s = 0;  // first prompt to last response (the makespan)
  double mean_response_s = 0;     // mean time a response takes (e2e)
  double mean_batch = 0;          // time-weighted running sequences per replica
  std::int64_t preemptions = 0;
  std::int64_t eager_steps = 0;  // rollout steps without CUDA graphs (ServingPrediction::eager_steps)
  // Training: the trainer's layout and one optimizer step (a mini-batch).
  ParallelPlan train_plan;
  std::int64_t train_devices = 0, train_global_batch = 0, train_seq_len = 0;
  double train_iteration_s = 0, train_mfu = 0;
  // Inside phases.train: the heaviest data-parallel rank's extra seconds over the step's optimizer
  // steps (rl_straggler_share); the policy's, plus the critic's under roles "shared".
  double train_straggler_s = 0;
  double critic_s = 0;  // ppo: the critic's forward and update (inside old_logprob and train)
  double weight_sync_bytes = 0;
  double reward_cpu_s = 0;  // the rule-based reward's host time (inside phases.reward)
  // The single controller's data plane (rl.controller_GBps): the rate in effect (a calibration's
  // host factor applied; 0: none), the padded batch's bytes of one pass, the passes (one per phase
  // that runs) and their seconds (inside those phases).
  double controller_GBps = 0, controller_bytes = 0, controller_s = 0;
  std::int64_t controller_passes = 0;
  // rl.train.offload: host-link traffic per device per step and the time it adds to the phases.
  double offload_bytes_per_device = 0, offload_s = 0;
  // Partial rollout: the makespan of the step's responses alone (the phase is the marginal time).
  double rollout_makespan_s = 0;
  std::vector<RlRole> roles;  // roles "separate" only
  double swap_bytes_per_device = 0;
  RlPoolMemory rollout_memory, train_memory;
  MemoryReport trainer_memory;  // the trainer's per-device footprint (the output's `memory`)
  // Whole run (train_steps): steps x the step, device-hours, energy at the meter, cost.
  std::int64_t train_steps = 0;
  double run_wall_s = 0, run_gpu_hours = 0, run_energy_mwh = 0;
  std::optional<double> run_cost_usd;  // absent without a price (run/run.h has_price)
  std::vector<Warning> warnings;
};

// The sub-scenarios one step is made of (useful to tests and to the search): the rollout pool as
// an offline serving scenario, the trainer as a training scenario of one mini-batch.
Result<Scenario> rl_rollout_scenario(const Scenario& s);
Result<Scenario> rl_train_scenario(const Scenario& s, const ModelSpec& model);

// The data-parallel straggler of the update (rl.cpp): the heaviest of dp ranks' extra tokens over
// the mean rank's in an optimizer step, as a share of the mean, averaged over the mini-batches.
// 0 for fixed lengths or one rank.
double rl_straggler_share(const RlWorkload& rl, std::int64_t dp);

// What the trainer runs with: rl.train.offload as stated, or cpu_optimizer where none is stated
// and the trainer's layout keeps its optimizer in host memory (assumed so that it fits).
RlOffload effective_offload(const RlWorkload& rl, const ParallelPlan& trainer);

// Checks that need no timing: device counts, layouts, lengths against the context, staleness.
std::optional<Error> check_rl(const Scenario& s);

// train "auto": whether the trainer's layout search finds a layout that fits one mini-batch (the
// candidates predict_rl weighs; rl.train_no_layout where none does). A layout search, no
// simulation: validate calls it so that it refuses what predict would.
std::optional<Error> check_rl_train_auto(const Scenario& s);

// A refusal of the whole job (predict or validate, not the placement search's candidates) that
// more devices lift: rl.train_no_layout of a trainer "auto", or rl.rollout_does_not_fit of engines
// whose tp and dp are chosen. The fewest devices at which the job validates, the pool that refused
// grown as search.h fewest_count tries (2, 4, 8, 16 and 32 times it, then the whole nodes between
// the largest refused count and the first that validates; colocated: every device, engines and trainer both
// checked; split: that pool, and where the engines refused, the trainer "auto" beside them, grown
// too when no layout of its stated pool fits there), said in the message and carried as
// e.fewest_devices (the job's devices in all) and, split, e.fewest_rollout_devices.
void add_rl_fewest_devices(const Scenario& s, Error& e);

// For a colocated job (the placement search's first candidate, its rollout tp and dp chosen): the
// fewest devices (search.h fewest_count, up to 32 times its own) at which it validates (engines and trainer),
// else 0. The placement search's answer when no placement is feasible.
std::int64_t rl_fewest_devices(const Scenario& colocated);

// The trainer layouts a train "auto" search found (rl.cpp, train_candidates), kept across the
// predictions of one placement search (search_rl): its candidates train on a handful of pool sizes,
// and each candidate's rollout engines do not enter the trainer's search, so a pool searched once
// is not searched again for the next rollout tp. Valid for the candidates of one job only: the key
// holds what differs between them (the pool's devices, the sequence trained, the mini-batch, its
// packing and the offload), not the model, the system or the rest of the workload.
class RlTrainSearchMemo {
 public:
  struct Key {
    std::int64_t devices = 0, seq_len = 0, global_batch = 0, micro_batch = 0;
    bool optimizer_offload = false;
    bool operator==(const Key&) const = default;
  };
  // The layouts remembered for `key`, or nullptr (valid until the next remember). A pool whose
  // search found none is not kept: each candidate searching it again is refused the same way.
  const std::vector<ParallelPlan>* find(const Key& key) const;
  void remember(const Key& key, const std::vector<ParallelPlan>& plans);

 private:
  std::vector<std::pair<Key, std::vector<ParallelPlan>>> entries_;
};

// One RL step of s.rl (s.rl must be set; s.training and s.inference absent). `memo`: the placement
// search's trainer layouts (RlTrainSearchMemo), else none. `rollout_horizon_s`: where the rollout
// engines' tp is stated and the rollout is not partial, a rollout whose makespan passes it is
// stopped there and refused as serving.past_horizon (a step is never shorter than its rollout's
// makespan: the placement search's test that a candidate cannot rank; ServingSpec::horizon_s).
Result<RlPrediction> predict_rl(const Scenario& s, RlTrainSearchMemo* memo = nullptr,
                                double rollout_horizon_s = std::numeric_limits<double>::infinity());

// One step's energy at the meter (MWh) and cost (run/run.h cost_usd: device-hours at the price,
// plus the electricity where the devices are owned; absent without a price). The whole run's are
// train_steps times these.
double rl_step_energy_mwh(const Scenario& s, const RlPrediction& p);
std::optional<double> rl_step_cost_usd(const Scenario& s, const RlPrediction& p);

// Placement search (core/rl/rl_search.cpp): colocated and every split of the devices between
// rollout and training (in whole nodes, or powers of two below a node), each with the rollout
// tp that holds the longest response and dp over the rest, and the trainer's layout searched
// ("auto") or kept; ranked by step time (or cost per step).
struct RlCandidate {
  RlPlacement placement = RlPlacement::colocated;
  std::int64_t rollout_devices = 0, train_devices = 0;
  ParallelPlan rollout_plan, train_plan;
  double step_time_s = 0;
  std::optional<double> cost_per_step_usd;  // absent without a price (run/run.h has_price)
  RlPrediction prediction;
  // The job's keys the search set besides the placement, the pools and the layouts (which the
  // prediction holds): colocated, an on-policy step (search_rl).
  std::int64_t staleness = 0;
  bool partial_rollout = false;
};
struct RlSearchResult {
  std::int64_t evaluated = 0, feasible = 0;
  std::vector<std::pair<std::string, std::int64_t>> rejected;  // reason code -> candidates
  std::vector<RlCandidate> best;
  bool cancelled = false;  // progress returned false: the placements ranked so far
  // None feasible (and not cancelled): rl_fewest_devices of the colocated candidate, else 0.
  std::int64_t fewest_devices = 0;
};
// `progress` (optional) is told the share done after each candidate (colocated, then each split,
// each with its rollout tps) and may return false to stop there.
Result<RlSearchResult> search_rl(const Scenario& s, std::size_t top, bool by_cost,
                                 const std::function<bool(double)>& progress = {});

}  // namespace optimus
