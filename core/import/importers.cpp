#include "import/importers.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "base/words.h"
#include "io/api.h"
#include "io/json_io.h"
#include "io/lines.h"
#include "io/reader.h"

namespace optimus::api {

namespace {

using namespace io;

using ojson = nlohmann::ordered_json;

struct Imported {
  std::vector<ojson> scenarios;  // one per measured configuration
  std::vector<std::vector<std::pair<std::string, double>>> metrics;
  std::vector<std::string> filled, unread;
};

// The finite number at the start of `text` (leading spaces skipped; what follows it is ignored).
std::optional<double> leading_number(const std::string& text) {
  const char* begin = text.c_str();
  while (*begin == ' ' || *begin == '\t') ++begin;
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The number right after `label` in `line` (spaces skipped, thousands commas dropped), if the
// label is there. No <regex>: the page's WebAssembly module stays small.
std::optional<double> number_after(const std::string& line, const std::string& label) {
  const std::size_t at = line.find(label);
  if (at == std::string::npos) return std::nullopt;
  std::string rest = line.substr(at + label.size());
  rest.erase(std::remove(rest.begin(), rest.end(), ','), rest.end());
  return leading_number(rest);
}

std::string trim(const std::string& t) {
  const std::size_t a = t.find_first_not_of(" \t\r");
  const std::size_t b = t.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : t.substr(a, b - a + 1);
}

std::string fail(const std::string& code, const std::string& path, const std::string& message) {
  return error_to_json(Error{code, path, message});
}

// The scenario's serving block, created (offline arrival) when the scenario has none.
ojson& serving_of(ojson& s) {
  if (!s.contains("inference")) s["inference"] = {{"batch", 1}, {"prompt_len", 128}, {"output_len", 128}};
  if (!s["inference"].contains("serving")) s["inference"]["serving"] = ojson::object();
  return s["inference"]["serving"];
}

void fill(ojson& at, const std::string& key, const ojson& value, const std::string& where,
          const std::string& from, std::vector<std::string>& filled) {
  at[key] = value;
  filled.push_back(where + key + " = " + value.dump() + " (from " + from + ")");
}

// A benchmark's gap between tokens (TPOT, ITL) of 0: requests of one output token, no gap
// measured, left unread; any other time or rate of zero or less is a measurement that
// import_measurements refuses (import.measured_not_positive).
bool no_gap_measured(const std::string& metric, double v) {
  return v == 0 && (metric.find("tpot") != std::string::npos || metric.find("itl") != std::string::npos);
}

// The mean of a serving length as a scenario states it: a number, {"mean", ...}, or a list of
// [length, weight] pairs; nothing for another form.
std::optional<double> stated_mean(const ojson& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_object() && v.contains("mean") && v["mean"].is_number()) return v["mean"].get<double>();
  if (!v.is_array()) return std::nullopt;
  double sum = 0, weights = 0;
  for (const ojson& e : v) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_number() || !e[1].is_number()) return std::nullopt;
    sum += e[0].get<double>() * e[1].get<double>();
    weights += e[1].get<double>();
  }
  return weights > 0 ? std::optional<double>(sum / weights) : std::nullopt;
}

// vLLM `vllm bench serve --save-result` (benchmarks/benchmark_serving.py's result dict) and
// SGLang `bench_serving --output-file` (one JSON object per run, appended): the same key style,
// milliseconds for latencies. Means and medians become measurements; the request count, the
// concurrency or request rate, and the mean lengths fill the scenario's serving block.
std::optional<std::string> serve_bench(const ojson& r, ojson s, Imported& out) {
  if (!r.is_object() || !r.contains("output_throughput"))
    return fail("import.malformed", "", "not a serving benchmark result: no 'output_throughput'");
  // A run that completed no request measured nothing, whatever its other fields say.
  if (r.contains("completed") && r["completed"].is_number() && !(r["completed"].get<double>() >= 1))
    return fail("import.nothing_measured", "",
                "the benchmark completed no request ('completed': " + r["completed"].dump() +
                    "): its throughputs and latencies measure nothing");
  ojson& sv = serving_of(s);
  const std::int64_t done = r.value("completed", std::int64_t{0});
  if (done > 0) fill(sv, "num_requests", done, "inference.serving.", "completed", out.filled);
  if (r.contains("max_concurrency") && r["max_concurrency"].is_number()) {
    fill(sv, "arrival", "closed", "inference.serving.", "max_concurrency", out.filled);
    fill(sv, "concurrency", r["max_concurrency"], "inference.serving.", "max_concurrency", out.filled);
    sv.erase("requests_per_s");
  } else if (r.contains("request_rate") && r["request_rate"].is_number() &&
             std::isfinite(r["request_rate"].get<double>())) {
    fill(sv, "arrival", "poisson", "inference.serving.", "request_rate", out.filled);
    fill(sv, "requests_per_s", r["request_rate"], "inference.serving.", "request_rate", out.filled);
    sv.erase("concurrency");
  } else if (!sv.contains("arrival") ||
             (r.contains("request_rate") &&
              (r["request_rate"] == "inf" ||
               (r["request_rate"].is_number() && !std::isfinite(r["request_rate"].get<double>()))))) {
    // Every request sent at once and no concurrency limit (vLLM's default --request-rate inf):
    // offline, whatever stream the scenario stated.
    fill(sv, "arrival", "offline", "inference.serving.", "request_rate inf", out.filled);
    sv.erase("requests_per_s");
    sv.erase("concurrency");
  }
  // The run's mean lengths, where the scenario states none or a mean more than 10% away from the
  // run's (a stated distribution whose mean agrees is kept: it says more than the mean).
  if (done > 0)
    for (const auto& [field, key] :
         {std::pair{"total_input_tokens", "input_len"}, {"total_output_tokens", "output_len"}}) {
      if (!r.contains(field) || !r[field].is_number()) continue;
      const double mean = r[field].get<double>() / static_cast<double>(done);
      const std::optional<double> stated = sv.contains(key) ? stated_mean(sv[key]) : std::nullopt;
      if (sv.contains(key) && stated && std::abs(*stated / mean - 1.0) <= 0.1) continue;
      const std::string from =
          std::string(field) + " / completed" +
          (stated ? ", where the scenario stated a mean of " + plain_number(*stated) : "");
      fill(sv, key, std::max<std::int64_t>(1, std::llround(mean)), "inference.serving.", from, out.filled);
    }
  std::vector<std::pair<std::string, double>> m;
  std::vector<std::string> used = {"completed", "max_concurrency", "request_rate", "total_input_tokens",
                                   "total_output_tokens"};
  // Every time and rate the file states is a measurement; one of zero or less is refused below
  // (import.measured_not_positive), not dropped: a corrupted result must not calibrate on its other
  // numbers unsaid. The gaps between tokens (tpot, itl) of requests of one output token are 0,
  // nothing measured: left unread.
  const auto take = [&](const std::string& field, const std::string& metric, double scale) {
    if (!r.contains(field) || !r[field].is_number()) return;
    const double v = r[field].get<double>();
    if (no_gap_measured(metric, v)) return;
    m.emplace_back(metric, v * scale);
    used.push_back(field);
  };
  take("output_throughput", "serving.output_tokens_per_s", 1);
  take("request_throughput", "serving.requests_per_s", 1);
  for (const auto& [name, metric] : {std::pair{"ttft", "ttft_s"},
                                     {"tpot", "tpot_s"},
                                     {"itl", "itl_s"},
                                     {"e2el", "e2e_latency_s"},
                                     {"e2e_latency", "e2e_latency_s"}}) {
    take(std::string("mean_") + name + "_ms", std::string("serving.") + metric + ".mean", 1e-3);
    take(std::string("median_") + name + "_ms", std::string("serving.") + metric + ".p50", 1e-3);
  }
  for (const auto& [k, v] : r.items())
    if ((v.is_number() || v.is_array()) && std::find(used.begin(), used.end(), k) == used.end())
      out.unread.push_back(k);
  out.scenarios.push_back(std::move(s));
  out.metrics.push_back(std::move(m));
  return std::nullopt;
}

// "Label (unit): value" lines of a trtllm-bench throughput report (PERFORMANCE OVERVIEW, REQUEST
// DETAILS and WORLD + RUNTIME INFORMATION sections, tensorrt_llm/bench/dataclasses/reporting.py).
std::optional<std::string> trtllm_bench(std::string_view text, ojson s, Imported& out) {
  std::vector<std::pair<std::string, double>> fields;
  Lines in(text);
  std::string line;
  while (in.next(line)) {
    const std::size_t colon = line.rfind(':');
    if (colon == std::string::npos) continue;
    const std::string value = trim(line.substr(colon + 1));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v)) continue;
    fields.emplace_back(trim(line.substr(0, colon)), v);
  }
  const auto get = [&](const std::string& label) -> std::optional<double> {
    for (const auto& [k, v] : fields)
      if (k == label) return v;
    return std::nullopt;
  };
  if (!get("Total Output Throughput (tokens/sec)"))
    return fail("import.malformed", "",
                "not a trtllm-bench throughput report: no 'Total Output Throughput (tokens/sec):' line");
  ojson& sv = serving_of(s);
  std::vector<std::string> used;
  const auto fill_from = [&](const std::string& label, ojson& at, const std::string& where,
                             const std::string& key) {
    if (auto v = get(label)) {
      fill(at, key, std::llround(*v), where, label, out.filled);
      used.push_back(label);
    }
  };
  // trtllm-bench's throughput command hands the engine every request at once: offline, whatever
  // stream the scenario had (a closed loop or a Poisson rate left there would be measured against
  // numbers from another arrival).
  fill(sv, "arrival", "offline", "inference.serving.", "trtllm-bench throughput", out.filled);
  sv.erase("concurrency");
  sv.erase("requests_per_s");
  fill_from("Number of requests", sv, "inference.serving.", "num_requests");
  fill_from("Average Input Length (tokens)", sv, "inference.serving.", "input_len");
  fill_from("Average Output Length (tokens)", sv, "inference.serving.", "output_len");
  fill_from("Max Runtime Batch Size", sv, "inference.serving.", "max_batch");
  fill_from("Max Runtime Tokens", sv, "inference.serving.", "max_num_tokens");
  if (!s.contains("parallel") || !s["parallel"].is_object()) s["parallel"] = ojson::object();
  fill_from("TP Size", s["parallel"], "parallel.", "tp");
  fill_from("PP Size", s["parallel"], "parallel.", "pp");
  fill_from("EP Size", s["parallel"], "parallel.", "ep");
  std::vector<std::pair<std::string, double>> m;
  // As serve_bench's: a time or rate of zero or less is refused below, a TPOT of 0 left unread
  // (no_gap_measured).
  const auto take = [&](const std::string& label, const std::string& metric, double scale) {
    const auto v = get(label);
    if (!v || no_gap_measured(metric, *v)) return;
    m.emplace_back(metric, *v * scale);
    used.push_back(label);
  };
  take("Total Output Throughput (tokens/sec)", "serving.output_tokens_per_s", 1);
  take("Request Throughput (req/sec)", "serving.requests_per_s", 1);
  take("Average time-to-first-token [TTFT] (ms)", "serving.ttft_s.mean", 1e-3);
  take("Average time-per-output-token [TPOT] (ms)", "serving.tpot_s.mean", 1e-3);
  take("[TTFT] P50", "serving.ttft_s.p50", 1e-3);
  take("[TPOT] P50", "serving.tpot_s.p50", 1e-3);
  for (const auto& [k, v] : fields)
    if (std::find(used.begin(), used.end(), k) == used.end()) out.unread.push_back(k);
  out.scenarios.push_back(std::move(s));
  out.metrics.push_back(std::move(m));
  return std::nullopt;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A logged step time's steady value: the median of the steps after the first (warm-up:
// compilation, cache fill) when there are three or more.
double steady_median(std::vector<double> v) {
  // A step of zero or less (a clock that went back, a corrupted line) is no measurement: the lowest
  // stands for the series, so that import.measured_not_positive names it rather than a median that
  // hides it (a 56 s step and a 0 ms one had made a 28 s median).
  if (const auto low = std::min_element(v.begin(), v.end()); low != v.end() && *low <= 0) return *low;
  if (v.size() >= 3) v.erase(v.begin());
  return median(v);
}

// Training logs: Megatron-LM's "elapsed time per iteration (ms): X" (training.py
// training_log), NeMo's "train_step_timing in s: X" (NeMo 1's progress bar: "=X"), torchtitan's
// "tps: N" (tokens per second per device, train.py's metrics line). The median of the logged steps
// at the last logged global batch (the first dropped when there are three or more: warm-up) is the
// measurement, and that batch fills training.global_batch.
std::optional<std::string> training_log(std::string_view text, ojson s, Imported& out) {
  struct Timed {
    double value;
    std::int64_t gbs;  // the global batch logged with it (0: none logged)
  };
  std::vector<Timed> ms, nemo_s;
  std::vector<double> tps;
  std::int64_t gbs = 0;  // the last global batch logged
  Lines in(text);
  std::string line;
  while (in.next(line)) {
    // A line's own global batch first: Megatron's training_log ("global batch size: 32") and NeMo
    // 2's progress line ("global_batch_size: 128") print it beside the step's time.
    for (const char* label : {"global batch size:", "global_batch_size:", "global_batch_size="})
      if (auto v = number_after(line, label); v && *v >= 1 && *v < 1e12) gbs = static_cast<std::int64_t>(*v);
    if (auto v = number_after(line, "elapsed time per iteration (ms):")) ms.push_back({*v, gbs});
    // NeMo 2's "train_step_timing in s: X"; NeMo 1's Lightning progress bar "train_step_timing in s=X".
    for (const char* label : {"train_step_timing in s:", "train_step_timing in s="})
      if (auto v = number_after(line, label)) nemo_s.push_back({*v, gbs});
    // torchtitan: "step: 10  loss: 7.9  memory: ...  tps: 6,435  tflops: ...  mfu: ..."
    if (line.find("step:") != std::string::npos)
      if (auto v = number_after(line, "tps:")) tps.push_back(*v);
  }
  // Under a batch ramp (Megatron's --rampup-batch-size) only the steps at the last global batch
  // measure the scenario the log fills in: the earlier, smaller steps had made a median of both.
  std::size_t ramp = 0;
  const auto at_last_batch = [&](const std::vector<Timed>& v) {
    std::vector<double> r;
    for (const Timed& t : v)
      if (t.gbs == gbs)
        r.push_back(t.value);
      else
        ++ramp;
    return r;
  };
  const std::vector<double> megatron = at_last_batch(ms), nemo = at_last_batch(nemo_s);
  if (ramp > 0)
    out.unread.push_back(std::to_string(ramp) + " steps logged at global batches before the last (" +
                         std::to_string(gbs) + "): a batch ramp's, not the scenario's");
  const auto steady = steady_median;
  std::vector<std::pair<std::string, double>> m;
  if (!megatron.empty()) m.emplace_back("training.iteration_time_s", steady(megatron) * 1e-3);
  if (!nemo.empty()) m.emplace_back("training.iteration_time_s", steady(nemo));
  if (!tps.empty()) {
    const std::int64_t devices = s.value("num_devices", std::int64_t{1});
    m.emplace_back("training.tokens_per_s", steady(tps) * static_cast<double>(devices));
    out.filled.push_back("training.tokens_per_s = tps x num_devices (" + std::to_string(devices) + ")");
  }
  if (m.empty())
    return fail("import.nothing_measured", "",
                "no 'elapsed time per iteration (ms):', 'train_step_timing in s:' or 'tps:' followed by a "
                "number in the log");
  if (gbs > 0 && s.contains("training") && s["training"].is_object())
    fill(s["training"], "global_batch", gbs, "training.", "global batch size", out.filled);
  out.unread.push_back("loss, learning rate, grad norm, TFLOP/s and memory lines (not timings)");
  out.scenarios.push_back(std::move(s));
  out.metrics.push_back(std::move(m));
  return std::nullopt;
}

// An RL job's per-step numbers read from its log, by key: their steady value (steady_median, as
// the training logs are read) and their largest.
struct StepSeries {
  std::map<std::string, std::vector<double>> at;
  std::optional<double> steady(const std::string& key) const {
    auto it = at.find(key);
    if (it == at.end() || it->second.empty()) return std::nullopt;
    return steady_median(it->second);
  }
  std::optional<double> largest(const std::string& key) const {
    auto it = at.find(key);
    if (it == at.end() || it->second.empty()) return std::nullopt;
    return *std::max_element(it->second.begin(), it->second.end());
  }
};

// rl.async with a staleness of one step or more: the trainer's "generation" timers then measure
// its wait for samples, not the rollout (verl docs/advance/fully_async.md).
bool rl_async(const ojson& rl) {
  return rl.contains("async") && rl["async"].is_object() && rl["async"].value("staleness", 0) > 0;
}

std::optional<std::string> needs_rl(const ojson& s, const std::string& tool) {
  if (s.contains("rl") && s["rl"].is_object()) return std::nullopt;
  return fail("import.scenario_invalid", "/rl",
              "a " + tool + " log measures RL steps: the scenario (--scenario) needs its rl block");
}

// The run's mean length into rl.<key> as {mean, max}: the limit the scenario states (else
// `fallback`, the longest logged), when the mean is under it and both are sane.
void fill_mean_length(ojson& rl, const char* key, std::optional<double> mean, std::optional<double> fallback,
                      const std::string& from, std::vector<std::string>& filled) {
  if (!mean || *mean < 1) return;
  const ojson stated = rl.contains(key) ? rl[key] : ojson();
  std::optional<double> limit;
  if (stated.is_number()) limit = stated.get<double>();
  if (stated.is_object() && stated.contains("max") && stated["max"].is_number())
    limit = stated["max"].get<double>();
  if (!limit) limit = fallback;
  if (!limit || *mean > *limit || *limit > 1e9) return;
  fill(rl, key, ojson{{"mean", *mean}, {"max", std::llround(*limit)}}, "rl.", from, filled);
}

// verl's console metrics (verl/utils/logger/aggregate_logger.py concat_dict_to_str: one line per
// step, "step:N - key:value - key:value", each value printed by pprint, so numpy 2 scalars read
// "np.float64(12.5)"; under Ray the line carries a "(TaskRunner pid=...)" prefix). The keys
// (verl/trainer/ppo/metric_utils.py): timing_s/<phase> from the trainer's timers (gen, reward,
// old_log_prob, ref, values, adv, update_critic, update_actor, step), perf/throughput (prompt +
// response tokens / (step time x GPUs)), response_length/mean and prompt_length/mean of the step.
// One value: a number, or a numpy scalar's repr around it.
std::optional<double> verl_value(std::string v) {
  v = trim(v);
  if (const std::size_t open = v.find('('); open != std::string::npos && v.rfind("np.", 0) == 0)
    v = v.substr(open + 1);
  return leading_number(v);
}

// verl's metric lines: every "key:value" of each line that times a step.
StepSeries verl_lines(std::string_view text) {
  StepSeries log;
  Lines in(text);
  std::string line;
  while (in.next(line)) {
    if (line.find("timing_s/step:") == std::string::npos) continue;
    std::size_t at = line.find("step:");
    while (at != std::string::npos) {
      const std::size_t next = line.find(" - ", at);
      const std::string item = line.substr(at, next == std::string::npos ? std::string::npos : next - at);
      const std::size_t colon = item.find(':');
      if (colon != std::string::npos)
        if (auto v = verl_value(item.substr(colon + 1))) log.at[item.substr(0, colon)].push_back(*v);
      at = next == std::string::npos ? next : next + 3;
    }
  }
  return log;
}

// The scenario's RL job as the engine reads it (its defaults filled in: GRPO's 16 samples per prompt,
// one reward worker, io/objects.cpp); nothing where the scenario does not parse.
std::optional<RlWorkload> rl_as_read(const ojson& s) {
  auto parsed = parse_scenario(s.dump());
  if (!parsed || !parsed->rl) return std::nullopt;
  return *parsed->rl;
}

// A rule-based reward's measured time per step as the scenario's reward_cpu_ms (per response, times
// its reward_workers, so the engine's responses x reward_cpu_ms / reward_workers gives the measured
// seconds back): the step the engine predicts waits for it as the run did. Not a measurement (the
// engine would predict it back exactly); a stated reward_cpu_ms, or a reward model (whose forward is
// the reward phase), leaves the scenario as it is.
void fill_reward_cpu(ojson& s, std::optional<double> seconds, const std::string& from,
                     std::vector<std::string>& filled) {
  ojson& rl = s["rl"];
  if (!seconds || !(*seconds > 0) || rl.contains("reward_cpu_ms") || rl.contains("reward_model")) return;
  const auto w = rl_as_read(s);
  if (!w) return;
  const double ms = *seconds * 1e3 * static_cast<double>(w->reward_workers) /
                    static_cast<double>(w->prompts_per_step * w->samples_per_prompt);
  if (ms <= 1e7) fill(rl, "reward_cpu_ms", ms, "rl.", from + " x reward_workers / responses", filled);
}

// The step's responses: its prompt and response tokens (perf/total_num_tokens, the attention
// masks' sum) over the mean prompt plus response. Whole prompts of the scenario's samples per
// prompt (verl's rollout.n) within 1%: the step the log measured, in place of the one stated.
void fill_prompts_from_tokens(const StepSeries& log, ojson& rl, double n, std::vector<std::string>& filled) {
  auto total = log.steady("perf/total_num_tokens"), pm = log.steady("prompt_length/mean"),
       resp = log.steady("response_length/mean");
  if (!total || !pm || !resp || *pm + *resp <= 0) return;
  const double prompts = *total / (*pm + *resp) / n;
  const double whole = std::round(prompts);
  if (whole >= 1 && whole <= 1e9 && std::abs(prompts / whole - 1) < 0.01 &&
      rl.value("prompts_per_step", std::int64_t{0}) != static_cast<std::int64_t>(whole))
    fill(rl, "prompts_per_step", static_cast<std::int64_t>(whole), "rl.",
         "perf/total_num_tokens / (prompt_length/mean + response_length/mean) / samples_per_prompt", filled);
}

std::optional<std::string> verl_log(std::string_view text, ojson s, Imported& out) {
  if (auto e = needs_rl(s, "verl")) return e;
  StepSeries log = verl_lines(text);
  auto& series = log.at;
  if (series.empty())
    return fail("import.malformed", "", "not a verl console log: no line with 'timing_s/step:'");
  const auto steady = [&](const char* key) { return log.steady(key); };
  const auto sum = [&](const char* a, const char* b) -> std::optional<double> {
    auto x = steady(a), y = steady(b);
    if (!x && !y) return std::nullopt;
    return x.value_or(0) + y.value_or(0);
  };
  ojson& rl = s["rl"];
  const bool async = rl_async(rl);
  std::vector<std::pair<std::string, double>> m;
  if (auto v = steady("timing_s/step")) m.emplace_back("rl.step_time_s", *v);
  // Asynchronous recipes (one_step_off, fully_async) time under "gen" the trainer's wait for the
  // samples, not the rollout (verl docs/advance/fully_async.md). Colocated, "gen" wraps the
  // rollout's sharding manager, whose entry wakes the engine and loads the trainer's weights into
  // it and whose exit puts it to sleep (verl/workers/fsdp_workers.py generate_sequences): the
  // engine's rollout, weight_sync and swap phases together. Releases with a checkpoint manager time
  // the wake-up and the weights apart, after the update (ray_trainer.py: marked_timer
  // "update_weights"): there gen is the rollout alone, and update_weights, host-side work like
  // NeMo-RL's refit, is not fitted.
  const bool colocated = rl.value("placement", std::string("colocated")) == "colocated";
  const bool weights_apart = series.count("timing_s/update_weights") > 0;
  if (auto v = steady("timing_s/gen"); v && !async)
    m.emplace_back(
        colocated && !weights_apart ? "rl.phases_s.rollout+weight_sync+swap" : "rl.phases_s.rollout", *v);
  if (async && series.count("timing_s/gen"))
    out.unread.push_back("timing_s/gen (under rl.async the trainer's wait for samples, not the rollout)");
  if (weights_apart)
    out.unread.push_back(
        "timing_s/update_weights (the engine's wake-up and the weights loaded into it: host-side "
        "work, not fitted)");
  // PPO's critic values run beside the old log-probs, its update beside the actor's: the engine's
  // old_logprob and train phases hold both (docs/rl.md).
  if (auto v = sum("timing_s/old_log_prob", "timing_s/values")) m.emplace_back("rl.phases_s.old_logprob", *v);
  if (auto v = steady("timing_s/ref")) m.emplace_back("rl.phases_s.reference", *v);
  // A reward model's forward is a phase of the engine's step; a rule-based reward (no reward_model)
  // is the driver's CPU work, which it does not time.
  const bool reward_model = rl.contains("reward_model");
  if (auto v = steady("timing_s/reward"); v && reward_model) m.emplace_back("rl.phases_s.reward", *v);
  if (auto v = sum("timing_s/update_actor", "timing_s/update_critic"))
    m.emplace_back("rl.phases_s.train", *v);
  if (auto v = steady("perf/throughput")) m.emplace_back("rl.tokens_per_s_per_gpu", *v);
  // The run's own lengths replace the assumed means (rl.response_len_assumed); the limit stays the
  // scenario's where it states one.
  fill_mean_length(rl, "response_len", steady("response_length/mean"), log.largest("response_length/max"),
                   "response_length/mean", out.filled);
  fill_mean_length(rl, "prompt_len", steady("prompt_length/mean"), log.largest("prompt_length/max"),
                   "prompt_length/mean", out.filled);
  const auto job = rl_as_read(s);
  fill_prompts_from_tokens(log, rl, job ? static_cast<double>(job->samples_per_prompt) : 1.0, out.filled);
  // verl's reward manager loops over the batch in the driver, one process.
  fill_reward_cpu(s, steady("timing_s/reward"), "timing_s/reward", out.filled);
  if (m.empty())
    return fail("import.nothing_measured", "",
                "the verl log has no timing_s/step, timing_s/gen, timing_s/old_log_prob, timing_s/ref, "
                "timing_s/update_actor or perf/throughput");
  for (const auto& [key, v] : series) {
    static const std::vector<std::string> read = {"step",
                                                  "timing_s/step",
                                                  "timing_s/gen",
                                                  "timing_s/old_log_prob",
                                                  "timing_s/values",
                                                  "timing_s/ref",
                                                  "timing_s/update_actor",
                                                  "timing_s/update_critic",
                                                  "perf/throughput",
                                                  "response_length/mean",
                                                  "response_length/max",
                                                  "prompt_length/mean",
                                                  "prompt_length/max"};
    if (std::find(read.begin(), read.end(), key) != read.end() || key.rfind("timing_s/", 0) != 0 ||
        key == "timing_s/update_weights" || key == "timing_s/reward")
      continue;  // read, not a timing, or said above
    if (key == "timing_s/testing" || key == "timing_s/save_checkpoint")
      out.unread.push_back(key +
                           " (validation and checkpoints every few steps: the median step leaves them out)");
    else
      out.unread.push_back(key + " (no phase of the engine's step)");
  }
  out.unread.push_back("losses, rewards, entropies, gradient norms and per-token timings (not step timings)");
  out.scenarios.push_back(std::move(s));
  out.metrics.push_back(std::move(m));
  return std::nullopt;
}

// NeMo-RL's console timing block of a GRPO step (nemo_rl/algorithms/grpo.py: after each step,
// "  • Total step time: 123.45s" (older releases: "Total train time"), then one line per timer,
// "  • generation: 60.12s (48.7%)", and "  • Mean Generation Length: 1234.5" among the results).
// Its timers: prepare_for_generation/total (the refit: the trainer's weights into the engine and its
// wake-up), generation, policy_and_reference_logprobs, policy_training, and CPU-side ones.
std::optional<std::string> nemo_rl_log(std::string_view text, ojson s, Imported& out) {
  if (auto e = needs_rl(s, "NeMo-RL")) return e;
  StepSeries log;
  auto& series = log.at;
  Lines in(text);
  std::string line;
  while (in.next(line)) {
    const std::size_t bullet = line.find("\xE2\x80\xA2 ");  // "• "
    if (bullet == std::string::npos) continue;
    const std::string item = trim(line.substr(bullet + 4));
    const std::size_t colon = item.find(": ");
    if (colon == std::string::npos) continue;
    std::string key = item.substr(0, colon);
    if (key == "Total step time" || key == "Total train time") key = "total_step_time";
    if (auto v = leading_number(item.substr(colon + 2))) series[key].push_back(*v);
  }
  if (!series.count("total_step_time"))
    return fail("import.malformed", "", "not a NeMo-RL log: no '• Total step time:' line");
  const auto steady = [&](const char* key) { return log.steady(key); };
  ojson& rl = s["rl"];
  const bool async = rl_async(rl);
  std::vector<std::pair<std::string, double>> m;
  if (auto v = steady("total_step_time")) m.emplace_back("rl.step_time_s", *v);
  if (auto v = steady("generation"); v && !async) m.emplace_back("rl.phases_s.rollout", *v);
  if (async && series.count("generation"))
    out.unread.push_back("generation (under rl.async the trainer's wait for samples, not the rollout)");
  // The policy's and the reference's log-probs under one timer.
  const bool reference = rl.value("reference", true);
  if (auto v = steady("policy_and_reference_logprobs"))
    m.emplace_back(reference ? "rl.phases_s.old_logprob+reference" : "rl.phases_s.old_logprob", *v);
  if (auto v = steady("policy_training")) m.emplace_back("rl.phases_s.train", *v);
  // prepare_for_generation/total (the refit and the engine's wake-up) is not read: seconds of
  // host-side work beside the engine's weight_sync and swap, which fitted with the rest pulled the
  // scale-up rate to its bound (x0.24 on the example log) for every prediction of the system.
  if (series.count("prepare_for_generation/total"))
    out.unread.push_back(
        "prepare_for_generation/total (the refit and the engine's wake-up: host-side work, not fitted)");
  fill_mean_length(rl, "response_len", steady("Mean Generation Length"), std::nullopt,
                   "Mean Generation Length", out.filled);
  // The environments' scoring (a rule-based reward: NeMo-RL's math environment workers).
  fill_reward_cpu(s, steady("reward_calculation"), "reward_calculation", out.filled);
  for (const auto& [key, v] : series) {
    static const std::vector<std::string> read = {"total_step_time",
                                                  "generation",
                                                  "policy_and_reference_logprobs",
                                                  "policy_training",
                                                  "prepare_for_generation/total",
                                                  "Mean Generation Length",
                                                  "reward_calculation"};
    if (std::find(read.begin(), read.end(), key) == read.end()) out.unread.push_back(key);
  }
  out.scenarios.push_back(std::move(s));
  out.metrics.push_back(std::move(m));
  return std::nullopt;
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// One InferenceX row's layout and scheduler limits. dp_attention true is SGLang's
// --enable-dp-attention with --dp-size equal to --tp-size, as the benchmark's DP-attention recipes
// launch it: every GPU attends to its own requests (parallel tp 1 over num_gpus replicas) with the
// experts over ep. SGLang then gives each of the dp_size workers max_running_requests / dp_size
// sequences (pool_configurator, requested_max_running_requests_per_worker), which max_batch (a
// rank's) takes, and splits --chunked-prefill-size over them (server_args.py,
// _handle_data_parallelism), which the sglang profile's budget_split_over_dp does in the engine;
// max_num_tokens is the server's chunk (TensorRT-LLM's trt_max_num_tokens, a rank's, where given).
template <class Num>
void inferencex_layout(ojson& s, const Num& num, bool dp_attention, const std::string& framework,
                       std::vector<std::string>& filled) {
  const auto gpus = num("num_gpus");
  if (gpus) fill(s, "num_devices", std::llround(*gpus), "", "num_gpus", filled);
  if (!s.contains("parallel") || !s["parallel"].is_object()) s["parallel"] = ojson::object();
  ojson& par = s["parallel"];
  const auto tp = num("tp");
  if (dp_attention && gpus) {
    fill(par, "tp", 1, "parallel.", "dp_attention", filled);
    fill(par, "dp", std::llround(*gpus), "parallel.", "dp_attention, num_gpus", filled);
  } else if (tp) {
    fill(par, "tp", std::llround(*tp), "parallel.", "tp", filled);
  }
  if (auto v = num("ep")) fill(par, "ep", std::llround(*v), "parallel.", "ep", filled);
  ojson& sv = serving_of(s);  // after the top-level keys (a reference into s's storage)
  if (auto v = num("max_running_requests")) {
    const bool per_worker = dp_attention && framework == "sglang" && tp && *tp > 1;
    fill(sv, "max_batch", std::max<long long>(1, std::llround(per_worker ? std::floor(*v / *tp) : *v)),
         "inference.serving.",
         per_worker ? "max_running_requests / tp (SGLang's per-worker share)" : "max_running_requests",
         filled);
  }
  // SGLang's cuda_graph_max_bs is the largest decode batch it captures, each rank's (its graphs
  // run a rank's local batch): a step of more sequences runs eager.
  if (auto v = num("cuda_graph_max_bs"); v && *v >= 1)
    fill(sv, "cuda_graph_max_batch", std::llround(*v), "inference.serving.", "cuda_graph_max_bs", filled);
  if (auto v = num("chunked_prefill_size"))
    fill(sv, "max_num_tokens", std::llround(*v), "inference.serving.", "chunked_prefill_size", filled);
  else if (auto t = num("trt_max_num_tokens"))
    fill(sv, "max_num_tokens", std::llround(*t), "inference.serving.", "trt_max_num_tokens", filled);
}

// InferenceX result rows (the columns of its benchmark history, as the validation set's
// inferencemax_public.csv keeps them): one configuration per row, each its own scenario. Its
// inter-token latencies are not read: the servers stream every stream_interval tokens (10 in its
// rows), so a gap spans several tokens (median ITL 0.139 s beside a median TPOT of 0.016 s). Nor
// are its TTFT and E2E: InferenceX headlines throughput per GPU against TPOT (interactivity),
// the two the engine is validated on there, and its closed-loop TTFT, queueing at the
// concurrency, is 2-3x the engine's on its DeepSeek-R1 rows: fitted together, it pulled the
// factors against the throughput and TPOT it measures.
std::optional<std::string> inferencex(std::string_view text, const ojson& base, Imported& out) {
  Lines in(text);
  std::string line;
  std::vector<std::string> head;
  while (in.next(line) && line.find_first_not_of(" \t\r") == std::string::npos) {
  }
  head = csv_fields(line);
  const auto col = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return i;
    return std::nullopt;
  };
  if (!col("output_tput_per_gpu") || !col("conc"))
    return fail("import.malformed", "/1",
                "not InferenceX rows: the header has no output_tput_per_gpu or conc column");
  const std::vector<std::string> read = {"tp",
                                         "ep",
                                         "num_gpus",
                                         "isl",
                                         "osl",
                                         "random_range_ratio",
                                         "conc",
                                         "num_prompts",
                                         "output_tput_per_gpu",
                                         "median_tpot_s",
                                         "mean_tpot_s",

                                         "max_running_requests",
                                         "cuda_graph_max_bs",
                                         "chunked_prefill_size",
                                         "trt_max_num_tokens",
                                         "dp_attention",
                                         "framework",
                                         "mem_fraction_static",
                                         "kv_cache_dtype"};
  for (const std::string& h : head)
    if (std::find(read.begin(), read.end(), h) == read.end()) out.unread.push_back(h);
  std::int64_t row = 1;
  while (in.next(line)) {
    ++row;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<std::string> f = csv_fields(line);
    if (f.size() != head.size())
      return fail("import.malformed", "/" + std::to_string(row),
                  "row " + std::to_string(row) + " has " + std::to_string(f.size()) + " fields, the header " +
                      std::to_string(head.size()));
    const auto num = [&](const std::string& name) -> std::optional<double> {
      const auto i = col(name);
      if (!i || f[*i].empty()) return std::nullopt;
      try {
        return std::stod(f[*i]);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    };
    const auto cell = [&](const std::string& name) {
      const auto i = col(name);
      return i ? f[*i] : std::string();
    };
    ojson s = base;
    std::vector<std::string> filled;
    inferencex_layout(s, num, cell("dp_attention") == "true", cell("framework"), filled);
    ojson& sv = serving_of(s);  // after the top-level keys above (a reference into s's storage)
    fill(sv, "arrival", "closed", "inference.serving.", "conc", filled);
    if (auto v = num("conc")) fill(sv, "concurrency", std::llround(*v), "inference.serving.", "conc", filled);
    if (auto v = num("num_prompts"))
      fill(sv, "num_requests", std::llround(*v), "inference.serving.", "num_prompts", filled);
    // Lengths drawn uniformly from [ratio x len, len] (InferenceX's random dataset): the mean.
    const double ratio = num("random_range_ratio").value_or(1.0);
    if (auto v = num("isl"))
      fill(sv, "input_len", std::llround(*v * (1 + ratio) / 2), "inference.serving.",
           "isl, random_range_ratio", filled);
    if (auto v = num("osl"))
      fill(sv, "output_len", std::llround(*v * (1 + ratio) / 2), "inference.serving.",
           "osl, random_range_ratio", filled);
    if (auto v = num("mem_fraction_static"))
      fill(sv, "gpu_memory_utilization", *v, "inference.serving.", "mem_fraction_static", filled);
    if (const auto i = col("kv_cache_dtype"); i && f[*i].rfind("fp8", 0) == 0)
      fill(s["inference"], "kv_precision", "fp8", "inference.", "kv_cache_dtype", filled);
    std::vector<std::pair<std::string, double>> m;
    for (const auto& [name, metric] :
         {std::pair{"output_tput_per_gpu", "serving.output_tokens_per_s_per_gpu"},
          {"median_tpot_s", "serving.tpot_s.p50"},
          {"mean_tpot_s", "serving.tpot_s.mean"}})
      if (auto v = num(name); v && *v > 0) m.emplace_back(metric, *v);
    if (row == 2) out.filled = filled;
    out.scenarios.push_back(std::move(s));
    out.metrics.push_back(std::move(m));
  }
  if (out.scenarios.empty()) return fail("import.nothing_measured", "", "no InferenceX row under the header");
  return std::nullopt;
}

// The lines, or an error object; may throw (import_measurements catches).
std::string measurement_lines(std::string_view format, std::string_view file,
                              std::string_view scenario_json) {
  ojson base;
  try {
    base = ojson::parse(scenario_json);
  } catch (const ojson::exception&) {
    return fail("import.scenario_invalid", "", "the scenario (--scenario) is not valid JSON");
  }
  if (!base.is_object()) return fail("import.scenario_invalid", "", "the scenario must be a JSON object");
  Imported out;
  std::optional<std::string> err;
  if (format == "vllm" || format == "sglang") {
    // SGLang appends one JSON object per run: the last non-empty line is the run. Python's json
    // writes an infinite request rate as the bare literal Infinity (not JSON): read as "inf".
    std::string text(file);
    for (std::size_t at = text.find("Infinity"); at != std::string::npos; at = text.find("Infinity", at + 5))
      text.replace(at, 8, "\"inf\"");
    file = text;
    ojson r;
    try {
      r = ojson::parse(file);
    } catch (const ojson::exception&) {
      std::string last;
      Lines in(file);
      for (std::string l; in.next(l);)
        if (l.find_first_not_of(" \t\r") != std::string::npos) last = l;
      try {
        r = ojson::parse(last);
      } catch (const ojson::exception&) {
        // Python's json.dump writes a float that is not a number as a bare NaN or Infinity, which
        // JSON does not allow (a vLLM result with a statistic of no requests, say).
        const bool bare =
            file.find("NaN") != std::string_view::npos || file.find("Infinity") != std::string_view::npos;
        return fail(
            "import.malformed", "",
            std::string(format) + ": the file is neither JSON nor JSON Lines" +
                (bare ? " (it holds a bare NaN or Infinity, as Python's json.dump writes a float that "
                        "is not a number, which JSON does not allow: write null there)"
                      : ""));
      }
    }
    err = serve_bench(r, base, out);
  } else if (format == "trtllm-bench") {
    err = trtllm_bench(file, base, out);
  } else if (format == "megatron" || format == "nemo" || format == "torchtitan") {
    err = training_log(file, base, out);
  } else if (format == "inferencex") {
    err = inferencex(file, base, out);
  } else if (format == "verl") {
    err = verl_log(file, base, out);
  } else if (format == "nemo-rl") {
    err = nemo_rl_log(file, base, out);
  } else {
    const std::vector<std::string> formats = {"vllm",       "sglang",     "trtllm-bench", "megatron", "nemo",
                                              "torchtitan", "inferencex", "verl",         "nemo-rl"};
    return fail("import.unknown_format", "",
                "unknown format '" + std::string(format) + "'" + did_you_mean(format, formats) +
                    "; one of vllm, sglang, trtllm-bench, megatron (also nemo, torchtitan), inferencex, "
                    "verl, nemo-rl");
  }
  if (err) return *err;
  ojson lines = ojson::array();
  for (std::size_t i = 0; i < out.scenarios.size(); ++i) {
    // Read and checked as predict and calibrate would (a logged global batch the data-parallel
    // ranks do not divide reads, and is refused a step later, further from the file).
    if (auto checked = api::checked_scenario(out.scenarios[i].dump()); !checked)
      return fail("import.scenario_invalid", checked.error().path,
                  "the scenario with the file's keys filled in does not read (" + checked.error().code +
                      "): " + checked.error().message);
    for (const auto& [metric, value] : out.metrics[i]) {
      // A time or a rate read as zero or less (a "-5 ms" line, a counter that wrapped) is no
      // measurement: calibration would refuse it a step later, further from the file.
      if (!(value > 0))
        return fail("import.measured_not_positive", "/measurements/" + std::to_string(lines.size()),
                    metric + " read from the file as " + plain_number(value) +
                        ": a measured time or rate must be a positive number");
      lines.push_back({{"scenario", out.scenarios[i]}, {"metric", metric}, {"measured", value}});
    }
  }
  if (lines.empty())
    return fail("import.nothing_measured", "", "the file states no measurement the engine predicts");
  ojson j = {{"format", std::string(format)},
             {"measurements", lines},
             {"filled", out.filled},
             {"unread", out.unread}};
  return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

}  // namespace

std::string import_measurements(std::string_view format, std::string_view file,
                                std::string_view scenario_json) {
  try {
    return measurement_lines(format, file, scenario_json);
  } catch (const std::exception& e) {
    return fail("internal.exception", "", std::string("internal error: ") + e.what());
  } catch (...) {
    return fail("internal.exception", "", "internal error: unknown");
  }
}

}  // namespace optimus::api
