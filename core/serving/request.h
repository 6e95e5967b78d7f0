// The request stream of a serving simulation (serving.h): each request's lengths, arrival and
// scheduler state. Internal to the serving module.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scenario/serving_spec.h"

namespace optimus {

struct Request {
  // Scheduler state, read every step (first, so that it shares a cache line): tokens in the KV
  // cache, tokens to prefill before the next output token (the prompt, plus what was generated
  // before a preemption), tokens generated, tokens the claimed blocks hold and their bytes.
  std::int64_t kv = 0, target = 0, generated = 0, output = 1;
  std::int64_t claimed = 0;  // kv_bytes = bytes_for(claimed)
  double kv_bytes = 0;
  double first_token = -1;
  double credit = 0;   // speculative decoding: expected tokens not yet emitted (a fraction)
  std::size_t id = 0;  // position in the deployment's stream
  double arrival = 0;
  std::int64_t input = 1;
  double done = -1;
  double ready = 0;  // disaggregated decode: when the KV hand-off lands
  // The step (of its replica) that ended with the request's last token, and that token's time once
  // the request stops getting one every step (kept up to date only then: a request that got a
  // token the step before needs no time, its gap is the step's).
  std::int64_t last_step = -2;
  double last_time = 0;
  // The bytes of the prefix blocks another request holds (ServingSpec::prompt_group,
  // shared_prefix_len): in this request's context (kv) without being prefilled or claimed by it.
  double shared_bytes = 0;
};

// The replica of `replicas` that takes request i: round-robin load balancing, by request or, where
// samples share a prompt (ServingSpec::prompt_group), by groups of `group` samples of one prompt,
// which one engine serves (vLLM's and SGLang's n samples of a request; serving.cpp deal_group
// splits a prompt's samples over engines that would otherwise idle).
inline std::size_t replica_of(std::size_t i, std::int64_t group, std::int64_t replicas) {
  return (i / static_cast<std::size_t>(group)) % static_cast<std::size_t>(replicas);
}
// Calls f(i) for every request i < n that replica `rep` takes (replica_of), in order.
template <class F>
void for_each_of_replica(std::size_t rep, std::int64_t group, std::int64_t replicas, std::size_t n, F&& f) {
  const auto g = static_cast<std::size_t>(group), stride = g * static_cast<std::size_t>(replicas);
  for (std::size_t start = rep * g; start < n; start += stride)
    for (std::size_t i = start; i < std::min(start + g, n); ++i) f(i);
}

// The requests of the whole deployment: lengths and (poisson) arrival times from sv.seed.
std::vector<Request> make_requests(const ServingSpec& sv);

}  // namespace optimus
