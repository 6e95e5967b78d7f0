// One replica of a serving pool simulated step by step (replica.cpp), and replicas that step
// together (attention data parallelism). Internal to the serving module.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "serving/latency.h"
#include "serving/request.h"
#include "serving/serving.h"
#include "serving/step_model.h"

namespace optimus {

struct ReplicaRun {
  std::int64_t steps = 0, preemptions = 0;
  std::int64_t eager_steps = 0;     // steps run without a CUDA graph (PoolLimits::replays_graph)
  std::int64_t beyond_graphs = 0;   // of them, steps larger than the largest captured graph
  double beyond_graphs_wait_s = 0;  // the time those steps waited on the host (StepModel::host_wait_s)
  // The simulation's work: the sequences each pass of the scheduler's loop schedules, plus one a
  // pass (a decode stretch is one pass, whatever its steps).
  std::int64_t work = 0;
  bool past_horizon = false;                          // stopped at the budget's horizon (its clock passed it)
  double busy_batch = 0, busy_kv = 0, busy_time = 0;  // time-weighted sums
  double peak_kv = 0;  // the largest share of the KV blocks claimed at the end of a step
  std::vector<ServingStepSample> timeline;
  std::int64_t sample_every = 1;
  // The replica's steps as runs of consecutive steps whose time is affine in the step (`first`
  // for the first, `slope` more for each next; a single step has slope 0) and the replica's own
  // clock at their end: kept for replicas that step in lockstep (see lockstep()).
  bool record_steps = false;
  std::vector<StepSpan> spans;
  std::vector<double> span_ends;
  // Speculative decoding: StepSpan::shared[0] counts tokens that came shared_n at once to their
  // sequence, shared[1] shared_n + 1.
  std::int64_t shared_n = 2;
  // The tokens a sequence gets in a step whose gaps go in `slot`: 0, one (the step's own gap); 1
  // and 2, shared_n and shared_n + 1 (StepSpan::shared[slot - 1], each gap the step over them).
  std::int64_t slot_tokens(int slot) const { return slot == 0 ? 1 : shared_n + slot - 1; }
  // Inter-token gaps: straight into `gaps` on the replica's own clock; with record_steps, the
  // regular ones (one step long) in the spans and the rest here by step, for lockstep()'s clock.
  GapHistogram* gaps = nullptr;
  struct LongGap {
    std::int64_t from = 0, to = 0;  // the steps that ended with the previous token and with these
    std::int64_t tokens = 1;
  };
  std::vector<LongGap> long_gaps;
};

// What a pool's replicas do with a request: all of it, its prompt and first token (a
// disaggregated prefill pool) or the rest once its cache has landed (a decode pool).
enum class Mode { whole, prefill_only, decode_only };

// Simulates one replica of `pool` over its requests (sorted by arrival, or by `ready` for a
// decode pool; closed-loop clients start one request each at time 0 and send the next when one
// ends), which come in whole groups of `group` samples of one prompt (deal_group), in order.
// Returns false past the budget's steps or work. The replicas of a pool share its StepModel (and
// what it remembers).
struct SimBudget {
  std::int64_t steps = 0;
  std::int64_t work = std::numeric_limits<std::int64_t>::max();
  double horizon_s = std::numeric_limits<double>::infinity();  // ServingSpec::horizon_s
};
bool simulate_replica(StepModel& pool, Mode mode, std::vector<Request>& reqs, std::int64_t group,
                      std::int64_t clients, bool keep_timeline, ReplicaRun& run, const SimBudget& budget);

// Replicas that step together: `runs[k]` is replica `reps[k]` of `replicas`, groups of `ep`
// consecutive replicas share a clock (lockstep_clock); their requests in `all` (replica_of, by
// prompt in groups of `prompt_group`), gaps and chart samples move to it.
void lockstep(std::vector<ReplicaRun*>& runs, const std::vector<std::int64_t>& reps, std::int64_t replicas,
              std::int64_t ep, std::int64_t prompt_group, std::vector<Request>& all);

}  // namespace optimus
