#include "search/auto_layout.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "predict/predict.h"
#include "predict/serving.h"
#include "search/serving_search.h"

namespace optimus {

namespace {

// When the whole space is past the search's cap (kMaxSearchLayouts: a large mixture-of-experts
// model on thousands of devices, where tp x pp x cp x ep x dp factor many ways), "auto" fixes
// keys one after another, each the choice production stacks make anyway, and searches again:
// the distributed optimizer (ZeRO 1, Megatron-LM's default at scale: ZeRO 2/3 only move the
// memory line), then one micro-batch (the activation memory that lets the largest layouts fit),
// then no interleaving. The output lists what was fixed.
struct Narrowing {
  const char* key;
  bool (*fix)(FixedLayout&, int);  // false where the key was fixed already (left as it was)
};
constexpr int kNarrowedTo = 1;                                       // each key's value once fixed
constexpr std::int64_t kMaxNarrowedDevices = std::int64_t{1} << 20;  // search_narrowed
template <typename T>
bool fix_if_free(std::optional<T>& key, int v) {
  if (key) return false;
  key = v;
  return true;
}
constexpr std::array<Narrowing, 3> kAutoNarrowing = {{
    {"zero_stage", [](FixedLayout& f, int v) { return fix_if_free(f.zero_stage, v); }},
    {"micro_batch", [](FixedLayout& f, int v) { return fix_if_free(f.micro_batch, v); }},
    {"interleave", [](FixedLayout& f, int v) { return fix_if_free(f.interleave, v); }},
}};

// A served scenario's layout also needs room for one request in each replica's KV cache. The
// static search fits its batch in the device less the runtime's own memory, while a serving
// replica keeps gpu_memory_utilization of it for weights, the prefill workspace and the KV blocks
// (vLLM's and SGLang's memory fraction): a layout whose weights nearly fill the device fits the
// first and not the second. Such layouts leave the ranking here, counted as serving.kv_insufficient (or
// check_serving's other refusals) among the rejected; the rest keep their order. Only the best
// kMaxSearchTop are checked: past them, feasible still counts the static fit.
void keep_servable(const Scenario& s, SearchResult& res) {
  std::vector<LayoutResult> kept;
  for (LayoutResult& r : res.best) {
    Scenario t = s;
    t.parallel = r.plan;
    if (auto err = check_serving(t)) {
      ++res.rejected[err->code];
      --res.feasible;
    } else {
      kept.push_back(std::move(r));
    }
  }
  res.best = std::move(kept);
}

// A served scenario's layout is the one that serves its stream best. The static search ranks by
// the throughput of a batch of at most inference.batch sequences (one when it is not stated),
// which a stream of many clients does not run: Llama 3.3 70B on 8 H100 for 128 closed-loop
// clients ranked 4 x TP2 first, whose stream earns 22% less goodput than 2 x TP4's. The best
// distinct layouts of the static order (up to kAutoServingLayouts, in that order) are each run
// with the scenario's requests (predict_serving) and ranked as the serving search's goodput
// objective ranks deployments (goodput_per_device, then the lower p90 end-to-end latency, then the
// static order); max_batch, the pools and the stream stay as the scenario states them.
constexpr std::size_t kAutoServingLayouts = 16;

bool same_deployment(const ParallelPlan& a, const ParallelPlan& b) {
  return a.tp == b.tp && a.pp == b.pp && a.dp == b.dp && a.ep == b.ep && a.etp == b.etp;
}

void rank_by_stream(Scenario& s, const SearchResult& res, AutoLayout& out) {
  std::vector<ParallelPlan> plans;
  for (const LayoutResult& r : res.best) {
    if (plans.size() == kAutoServingLayouts) break;
    if (std::none_of(plans.begin(), plans.end(),
                     [&](const ParallelPlan& p) { return same_deployment(p, r.plan); }))
      plans.push_back(r.plan);
  }
  if (plans.size() < 2) return;
  double best_score = -1, best_p90 = 0;
  for (const ParallelPlan& plan : plans) {
    Scenario t = s;
    t.parallel = plan;
    std::vector<Warning> ignored;
    auto r = predict_serving(t, ignored);
    if (!r) continue;
    ++out.simulated;
    const double score = goodput_per_device(*t.inference->serving, *r, t.num_devices);
    if (score > best_score || (score == best_score && r->e2e.p90 < best_p90)) {
      best_score = score;
      best_p90 = r->e2e.p90;
      s.parallel = plan;
    }
  }
  if (out.simulated > 0) out.mode = SearchMode::serving;
}

// A refusal's fewest devices (fewest_devices, below), said in its message ("256 devices would (no
// layout of 128 does)", or "16 devices would" for twice as many) and carried as
// Error::fewest_devices, which the page offers as its fix.
void add_fewest_devices(const Scenario& s, const FixedLayout& fixed, const SearchOptions& o, Error& e) {
  const bool serving = !s.training && s.inference->serving;
  std::int64_t below = 0;
  const std::int64_t n = fewest_devices(s, fixed, o, serving, &below);
  if (n == 0) return;
  e.fewest_devices = n;
  e.message += "; " + std::to_string(n) + " devices would";
  if (below > s.num_devices) e.message += " (no layout of " + std::to_string(below) + " does)";
}

}  // namespace

// Training that no layout fits: whether one would with the optimizer state in host memory
// (parallel.optimizer_offload: Megatron-Core --optimizer-cpu-offload, DeepSpeed ZeRO-Offload, how
// fine-tuning fits a large model on few devices), said in the refusal as a remedy with the layout,
// not taken: an offloaded optimizer is a choice the scenario states (RL trainers assume it, as
// their stacks do: core/rl/rl.cpp). The layout goes into the message as "key value" pairs of the
// scenario's parallel keys (tp, pp, dp and zero_stage first; the others where they are not their
// defaults) and, with optimizer_offload true, into the error's fix, which the page offers as an
// edit (web/src/ui/words.ts). Nothing added when none would, or the system has no host link.
void add_host_optimizer_hint(const Scenario& s, const FixedLayout& fixed, const SearchOptions& o, Error& e) {
  if (!s.training || !(s.system.host_link.value > 0)) return;
  // At the narrowing's ZeRO stage where it fixed one.
  const auto res = search_host_optimizer(s, fixed, o);
  if (!res || res->best.empty()) return;
  const ParallelPlan& p = res->best.front().plan;
  std::vector<std::pair<std::string, FixValue>> layout = {{"tp", p.tp},
                                                          {"pp", p.pp},
                                                          {"dp", p.dp},
                                                          {"zero_stage", std::int64_t{p.zero_stage}},
                                                          {"micro_batch", p.micro_batch},
                                                          {"recompute", std::string(name_of(p.recompute))}};
  const std::pair<const char*, std::int64_t> counts[] = {
      {"cp", p.cp}, {"ep", p.ep}, {"etp", p.etp}, {"interleave", p.interleave}};
  for (const auto& [key, n] : counts)
    if (n > 1) layout.emplace_back(key, n);
  if (p.sequence_parallel) layout.emplace_back("sequence_parallel", true);
  std::string words;
  for (const auto& [key, v] : layout) {
    words += (words.empty() ? "" : ", ") + key + " ";
    if (const auto* n = std::get_if<std::int64_t>(&v))
      words += std::to_string(*n);
    else if (const auto* name = std::get_if<std::string>(&v))
      words += *name;
    else
      words += std::get<bool>(v) ? "true" : "false";
  }
  e.message += "; with the optimizer state in host memory (parallel.optimizer_offload) one would: " + words;
  layout.emplace_back("optimizer_offload", true);
  e.fix = std::move(layout);
}

Result<AutoLayout> resolve_auto_layout(Scenario& s) {
  AutoLayout out;
  SearchOptions o;
  o.top = 1;
  o.mode = s.training ? SearchMode::training : SearchMode::inference;
  if (!s.training) o.max_batch = s.inference->batch;
  const bool serving = !s.training && s.inference->serving;
  if (serving) o.top = kMaxSearchTop;  // the fitting layouts in order, for the KV check
  out.mode = o.mode;
  FixedLayout fixed;
  auto res = search_narrowed(s, fixed, o, &out.narrowed);
  if (!res) {
    Error e = res.error();
    if (e.path.empty()) e.path = "/parallel";
    return e;
  }
  SearchResult found = std::move(res).value();
  if (serving) keep_servable(s, found);
  out.evaluated = found.evaluated;
  out.feasible = found.feasible;
  if (found.best.empty()) {
    std::string why;
    bool memory = false;  // some layout divided the job and was then too large for the devices
    for (const auto& [code, n] : found.rejected) {
      why += (why.empty() ? "" : ", ") + code + " x" + std::to_string(n);
      memory = memory || code == "memory.does_not_fit" || code == "serving.kv_insufficient";
    }
    // Where every layout failed to divide the job (heads, layers, sequence, batch over tp, pp, cp,
    // dp), more devices cannot help: fewer can, or shapes that divide over more.
    Error e =
        make_error("parallel.auto_no_layout", "/parallel",
                   "no layout of " + std::to_string(s.num_devices) + " devices runs this scenario (" +
                       std::to_string(found.evaluated) + " layouts: " + why + "); " +
                       (memory       ? "more devices, a smaller model or batch would"
                        : s.training ? "none divides the job over these devices: fewer devices or a "
                                       "larger global batch would"
                                     : "none divides the model over these devices: fewer devices would"));
    e.rejected.assign(found.rejected.begin(), found.rejected.end());
    add_fewest_devices(s, fixed, o, e);
    add_host_optimizer_hint(s, fixed, o, e);
    return e;
  }
  s.parallel = found.best.front().plan;
  if (serving) rank_by_stream(s, found, out);
  return out;
}

std::optional<Error> resolve_auto_stages(Scenario& s) {
  if (!s.training) return std::nullopt;
  for (std::size_t i = 0; i < s.training->stages.size(); ++i) {
    TrainingStage& st = s.training->stages[i];
    if (!st.auto_layout || st.plan) continue;
    Scenario at = stage_workload(s, i);
    // The step's time is what ranks layouts; the run is planned later.
    at.training->train_tokens = 0;
    at.training->checkpoint_interval_s = 0;
    at.parallel_auto = true;
    auto a = resolve_auto_layout(at);
    if (!a) {
      Error e = a.error();
      e.path = "/training/stages/" + std::to_string(i) + "/parallel";
      e.message = "stage " + std::to_string(i) + ": " + e.message;
      // A stage's layout states tp, pp, cp, dp, micro_batch, interleave and recompute only (the
      // optimizer's place and the ZeRO stage are the run's): the words keep the remedy, but no
      // object set there would state it.
      e.fix.clear();
      e.fewest_devices = 0;
      return e;
    }
    st.plan = at.parallel;
  }
  return std::nullopt;
}

Result<std::optional<AutoLayout>> resolve_parallel_auto(Scenario& s) {
  if (auto err = resolve_auto_stages(s)) return *err;
  if (!s.parallel_auto) return std::optional<AutoLayout>();
  auto a = resolve_auto_layout(s);
  if (!a) return a.error();
  return std::optional<AutoLayout>(*a);
}

// The question a refusal leaves (how many GPUs does this job need?), answered by the search at
// the counts of search.h fewest_count (2, 4, 8, 16 and 32 times the devices, then the whole nodes
// between the largest refused count and the first that runs). The first layout that runs is enough
// (first_fit): a count none fits is refused in a fraction of a second, as every layout is ruled out
// before the time model (DeepSeek-V3 in FP8 on 32 H100: 64 and 128 refused, 256 found, then 136 to
// 160 refused and 168 found; BM_ApiPredictAutoRefusedDeepSeekV3_32H100, docs/performance.md).
// A servable layout must also hold a request's KV cache (keep_servable), so that search ranks as
// resolve_auto_layout does. The look stops at a count whose space the search refuses.

std::int64_t fewest_devices(const Scenario& s, const FixedLayout& fixed, SearchOptions o, bool servable,
                            std::int64_t* below) {
  o.first_fit = !servable;
  o.points = false;
  bool refused = false;  // a count's search space refused: the look ends there
  const auto runs = [&](std::int64_t count) {
    if (refused) return false;
    Scenario t = s;
    t.num_devices = count;
    FixedLayout f = fixed;
    auto res = search_narrowed(t, f, o, nullptr);
    if (!res) return !(refused = true);
    if (servable) keep_servable(t, res.value());
    return !res->best.empty();
  };
  std::int64_t tried = 0;
  const std::int64_t n = fewest_count(s.num_devices, s.system.devices_per_node, runs, tried);
  if (below) *below = tried;
  return n;
}

// Training only: the inference search has no such keys, and its space is small. A key the
// scenario fixes already is not narrowed again (its value stands).
Result<SearchResult> search_narrowed(const Scenario& s, FixedLayout& fixed, const SearchOptions& o,
                                     std::vector<std::pair<std::string, std::int64_t>>* narrowed,
                                     const std::function<bool(double)>& progress) {
  auto res = search_layouts(s, fixed, o, progress);
  const auto too_large = [](const Result<SearchResult>& r) {
    return !r && r.error().code == "search.space_too_large";
  };
  // Past kMaxNarrowedDevices no narrowing is tried: counting a narrowed space of 73,513,440 devices
  // (768 divisors) up to the cap took 1.6 s natively and 19 s under the sanitizers, to refuse it.
  if (!s.training || !too_large(res) || s.num_devices > kMaxNarrowedDevices) return res;
  // Every key narrowed at once first: a space still past the cap then is refused after one more
  // count, not three more searches (any other outcome, an empty space included, goes step by step).
  FixedLayout all = fixed;
  for (const Narrowing& n : kAutoNarrowing) n.fix(all, kNarrowedTo);
  if (const auto size = search_space_size(s, all, o); !size && size.error().code == "search.space_too_large")
    return res;
  for (std::size_t i = 0; too_large(res) && i < kAutoNarrowing.size(); ++i) {
    if (!kAutoNarrowing[i].fix(fixed, kNarrowedTo)) continue;
    if (narrowed) narrowed->emplace_back(kAutoNarrowing[i].key, kNarrowedTo);
    res = search_layouts(s, fixed, o, progress);
  }
  return res;
}

}  // namespace optimus
