// optimus: the native command line. Thin: parse arguments, call the engine's JSON API,
// print. Exit status 0 on success, 2 on bad input (with the error object), 1 on usage errors.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/words.h"
#include "import/importers.h"
#include "io/api.h"
#include "io/json_io.h"
#include "io/presets.h"
#include "search/search.h"
#include "study/study.h"

namespace {

using json = nlohmann::ordered_json;

constexpr const char* kUsage = R"(optimus - LLM training and inference performance calculator

Usage:
  optimus predict FILE|- [--json]     predict a scenario (docs/contract.md); '-' reads stdin
  optimus validate FILE|-             check a scenario and print it with presets resolved
  optimus presets [KIND] [--json]     list presets; KIND: models, devices, systems, scenarios,
                                      technology, dram, studies, software, economics
  optimus preset KIND ID [--json]     print one preset's JSON
  optimus search FILE|- [--top K] [--json] [--mode training|inference|serving]
                                      rank the parallel layouts of a scenario
  optimus study NAME [--json]         run one of the paper's studies; --list lists them
  optimus calibrate FILE|- [--json]   fit a calibration to measurements (JSON Lines of
                                      {"scenario", "metric", "measured"}; docs/calibration.md)
  optimus import FORMAT FILE --scenario S.json [--json]
                                      measurement lines from a benchmark's or job's output (FORMAT:
                                      vllm, sglang, trtllm-bench, megatron, nemo, torchtitan,
                                      inferencex, verl, nemo-rl)
  optimus schema [--json]             the JSON Schemas of the scenario and the prediction; without
                                      --json one line per scenario key (type, range, default, unit)
  optimus help [COMMAND]              this text, or a command's
  optimus --version                   the build's version and the scenario format it reads

A scenario FILE may also be a preset scenario's id where no file has that name (optimus presets
scenarios lists them): optimus predict default.

Exit status: 0 success, 1 usage error, 2 invalid scenario (error object printed).
)";

constexpr const char* kPredictHelp = R"(optimus predict FILE|- [--json]

Reads a scenario (a JSON file, stdin with '-', or a preset scenario's id where no file has that
name: optimus predict default) and prints the prediction: for training the
iteration time and where it goes, tokens/s, MFU/HFU and time to train; for inference the
time to first token, time per output token, latency and throughput; memory per device.
  --json   print exactly the output contract of docs/contract.md instead of a table
On invalid input says what is wrong (code, path, message) on standard error, or with --json
prints {"error": {"code", "path", "message"}}, and exits with status 2.
)";

constexpr const char* kCalibrateHelp = R"(optimus calibrate FILE|- [--json]

Reads measurements, one JSON object per line: {"scenario": {...}, "metric": "<dotted output
path>", "measured": <number>} (the scenario as predict takes it; the metric any numeric output,
e.g. training.iteration_time_s, serving.tpot_s.p50), all of one system and software stack, and
fits the calibration factors (matmul, memory, scale_up, scale_out, host). Prints the factors with
their 90% bands and each measurement before and after; --json prints {"calibration", "fitted",
"cases"}: put "calibration" into a scenario as its top-level key and predict applies it.
On invalid input says what is wrong on standard error (with --json: prints the error object, path
"/<line>/...") and exits with status 2.
)";

constexpr const char* kImportHelp = R"(optimus import FORMAT FILE --scenario S.json [--json]

Reads a benchmark tool's own output and the scenario the run used, and prints measurement lines
for optimus calibrate ({"scenario", "metric", "measured"}, one per line), the scenario with the
keys the file states filled in. What was filled and what the file holds that was not read go to
standard error. FORMAT: vllm (vllm bench serve --save-result JSON), sglang (bench_serving
--output-file), trtllm-bench (throughput report text), megatron / nemo / torchtitan (training
log), inferencex (result rows, CSV with header), verl and nemo-rl (console logs of an RL job:
step and phase timings, the run's mean lengths). --json prints {"format", "measurements",
"filled", "unread"} instead. On invalid input says what is wrong on standard error (with --json:
prints the error object) and exits with status 2.
)";

constexpr const char* kPresetsHelp =
    R"(optimus presets [models|devices|systems|scenarios|technology|dram|studies] [--json]

Lists the presets compiled into this build with their names and sources.
  --json   print {"models": [{"id", "name", "source"}], ...}
)";

// Reads a file ("-": standard input) into `out`; on failure, why, in words ("" when read). A
// directory opens as an empty stream on Linux, so it is named before it could read as empty JSON.
std::string read_input(const std::string& file, std::string& out) {
  if (file == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    out = ss.str();
    return "";
  }
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return "it is a directory, not a file";
  if (!std::filesystem::exists(file, ec)) return "no such file";
  std::ifstream in(file, std::ios::binary);
  if (!in) return "it cannot be opened";
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return "";
}

// A scenario to read: a file, '-' (standard input), or, where no file has that name, the id of a
// preset scenario (`optimus presets scenarios`, the page's Examples): `optimus predict default`.
std::string read_scenario(const std::string& file, std::string& out) {
  const std::string why = read_input(file, out);
  if (why != "no such file") return why;
  if (const std::string_view preset = optimus::preset_json("scenarios", file); !preset.empty()) {
    out = preset;
    return "";
  }
  return "no such file, nor a preset scenario of that name" +
         optimus::did_you_mean(file, optimus::preset_ids("scenarios")) +
         " (optimus presets scenarios lists them)";
}

// Days in a year (the Julian year, as the page's web/src/base/format.ts): from one, a duration is
// written in years.
constexpr double kDaysPerYear = 365.25;

std::string seconds(double s) {
  char buf[64];
  if (s == 0.0) return "0 s";  // nothing spent: not "0.0 us", which reads as rounded
  // Long durations in the unit a person reads them in (a restart's 42,598 s is 11.83 h).
  // From a year, in years, as the page writes them (a 64-GPU pretraining's 2,403 days is 6.58 years).
  if (s >= 86400.0 * kDaysPerYear)
    std::snprintf(buf, sizeof buf, "%.2f years", s / (86400.0 * kDaysPerYear));
  else if (s >= 86400.0 * 2)
    std::snprintf(buf, sizeof buf, "%.2f days", s / 86400.0);
  else if (s >= 7200.0)
    std::snprintf(buf, sizeof buf, "%.2f h", s / 3600.0);
  else if (s >= 600.0)
    std::snprintf(buf, sizeof buf, "%.2f min", s / 60.0);
  else if (s >= 1.0)
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  else if (s >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  return buf;
}

std::string gib(double b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

std::string num(double v, const char* fmt = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// A number rounded to a whole one, its digits grouped by thousands ("1,176,244"); past 10^15 as
// "%g" writes it.
std::string whole(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 1e15) return num(v, "%.4g");
  const long long rounded = std::llround(v);
  const std::string text = std::to_string(rounded < 0 ? -rounded : rounded);
  std::string out = rounded < 0 ? "-" : "";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && (text.size() - i) % 3 == 0) out += ',';
    out += text[i];
  }
  return out;
}

// A rate in tokens/s: grouped from 1,000 ("8,747"), one decimal below ("45.3").
std::string rate_text(double v) { return v >= 1000 ? whole(v) : num(v, "%.1f"); }

// A large count as people read it, to `digits` significant digits: grouped by thousands from 1,000
// ("592,600", "4,610"), in words from a million ("3.698 million", "1.5 trillion"): a run's
// device-hours, dollars, tokens, joules, where "%g" wrote "5.926e+05"; below 1,000 as "%g" writes.
std::string count(double v, int digits = 4) {
  char buf[64];
  const double a = std::fabs(v);
  if (!std::isfinite(v) || a < 1e3 || a >= 1e15) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
  }
  if (a >= 1e6) {
    const char* word = a >= 1e12 ? "trillion" : a >= 1e9 ? "billion" : "million";
    std::snprintf(buf, sizeof buf, "%.*g %s", digits, v / (a >= 1e12 ? 1e12 : a >= 1e9 ? 1e9 : 1e6), word);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);  // 1,000 to 999,999: rounded, then grouped
  return whole(std::strtod(buf, nullptr));
}

// The `n` operators of `phase` ("" for all) that take the most of `total_s` (each operator's
// time x its executions: training.operators per iteration, inference.operators per step), with
// their share and what bounds each. An operator listed once per layer kind (`layer_kind`: a
// windowed and a global attention layer, a dense and an MoE layer) is one line: its kinds'
// times and FLOPs summed, bound by the kind that takes longest.
void print_heaviest_kernels(const json& ops, const std::string& phase, double total_s, const char* heading,
                            std::size_t n) {
  if (!ops.is_array() || total_s <= 0) return;
  struct Line {
    std::string name;
    double time = 0, flops = 0, longest = -1;
    std::string bound;
  };
  std::vector<Line> lines;
  for (const auto& o : ops) {
    if (!phase.empty() && o["phase"] != phase) continue;
    const std::string name =
        o["name"].get<std::string>() + (phase.empty() ? " " + o["phase"].get<std::string>() : "");
    auto it = std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.name == name; });
    if (it == lines.end()) it = lines.insert(lines.end(), Line{name, 0, 0, -1, {}});
    const double count = o["count"].get<double>(), time = o["time_s"].get<double>() * count;
    it->time += time;
    it->flops += o["flops"].get<double>() * count;
    if (time > it->longest) it->longest = time, it->bound = o["bound"].get<std::string>();
  }
  if (lines.empty()) return;
  std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.time > b.time; });
  std::cout << "  " << heading << ":\n";
  for (std::size_t i = 0; i < std::min(n, lines.size()); ++i) {
    const Line& l = lines[i];
    std::printf("    %-24s %12s  %5.1f%%  %s-bound, %s TFLOP/s\n", l.name.c_str(), seconds(l.time).c_str(),
                100.0 * l.time / total_s, l.bound.c_str(),
                num(l.time > 0 ? l.flops / l.time / 1e12 : 0.0, "%.0f").c_str());
  }
}

// The 80% band of a headline number (docs/contract.md, `uncertainty`), written with the number's
// own formatter: " (80% range 52.8 s - 63.9 s)", or nothing where the prediction carries none.
template <class Format>
std::string band(const json& p, const char* path, Format format) {
  if (!p.contains("uncertainty") || !p["uncertainty"].contains(path)) return "";
  const json& b = p["uncertainty"][path];
  return " (80% range " + format(b["low"].get<double>()) + " - " + format(b["high"].get<double>()) + ")";
}

// Below the numbers: what the ranges are, once per regime that gave one.
void print_band_sources(const json& p) {
  if (!p.contains("uncertainty") || p["uncertainty"].empty()) return;
  std::vector<std::string> seen;
  std::string line;
  for (const auto& item : p["uncertainty"].items()) {
    const json& b = item.value();
    const std::string regime = b.value("regime", "");
    if (regime.empty() || std::find(seen.begin(), seen.end(), regime) != seen.end()) continue;
    seen.push_back(regime);
    line += (line.empty() ? "" : ", ") + regime + " (" + std::to_string(b.value("cases", 0LL)) + ")";
  }
  std::cout << "80% ranges: where 80% of the published measurements of the number's regime fell around\n"
               "  the engine's prediction (docs/accuracy.md); regimes and their measurements: "
            << line << "\n";
}

void print_error_human(const json& e) {
  std::cerr << "error: " << e["code"].get<std::string>();
  if (!e["path"].get<std::string>().empty()) std::cerr << " at " << e["path"].get<std::string>();
  std::cerr << "\n  " << e["message"].get<std::string>() << "\n";
}

// A trainer's layout in a few words, as the page's layout labels give it: tp, pp and dp always,
// cp, ep and etp where they split anything, then micro-batch, interleave, recomputation and the ZeRO
// stage ("tp 1 pp 1 dp 64 cp 4 ep 16 mb 21 full zero 3"). An MoE trainer's expert parallelism is
// most of its layout.
std::string trainer_layout(const json& p) {
  std::string out;
  const auto add = [&](const std::string& part) { out += (out.empty() ? "" : " ") + part; };
  for (const std::string k : {"tp", "pp", "dp", "cp", "ep", "etp"})
    if (const long long v = p.value(k, 1LL); v != 1 || k == "tp" || k == "pp" || k == "dp")
      add(k + " " + std::to_string(v));
  add("mb " + std::to_string(p.value("micro_batch", 1LL)));
  if (const long long v = p.value("interleave", 1LL); v > 1) add("v " + std::to_string(v));
  if (const std::string r = p.value("recompute", std::string("none")); r != "none") add(r);
  if (const long long z = p.value("zero_stage", 0LL); z > 0) add("zero " + std::to_string(z));
  return out;
}

// The RL section: the step, where its time goes per pool, the rollout's straggler and the memory.
void print_rl(const json& p) {
  const json& r = p["rl"];
  const double step = r["step_time_s"].get<double>();
  std::cout << "RL post-training step (" << r["placement"].get<std::string>() << ", staleness "
            << r["staleness"].get<long long>() << ")\n";
  std::cout << "  step time           " << seconds(step) << band(p, "rl.step_time_s", seconds) << "\n";
  std::cout << "  tokens trained      " << whole(r["tokens_per_s"].get<double>()) << " tokens/s ("
            << rate_text(r["tokens_per_s_per_gpu"].get<double>()) << " per GPU)\n";
  std::cout << "  phases (summed over the step; split pools overlap when asynchronous):\n";
  for (auto it = r["phases_s"].begin(); it != r["phases_s"].end(); ++it) {
    const double v = it.value().get<double>();
    std::printf("    %-12s %12s  %5.1f%%%s\n", it.key().c_str(), seconds(v).c_str(),
                step > 0 ? 100.0 * v / step : 0.0,
                band(p, ("rl.phases_s." + it.key()).c_str(), seconds).c_str());
  }
  std::cout << "  idle: rollout pool " << seconds(r["idle_s"]["rollout"].get<double>()) << ", train pool "
            << seconds(r["idle_s"]["train"].get<double>()) << "\n";
  const auto& ro = r["rollout"];
  const auto& rp = ro["parallel"];
  std::cout << "  rollout: " << whole(ro["devices"].get<double>()) << " devices as tp "
            << rp["tp"].get<long long>() << " x pp " << rp["pp"].get<long long>() << " x dp "
            << rp["dp"].get<long long>()
            << (rp.value("ep", 1LL) > 1 ? " (ep " + std::to_string(rp["ep"].get<long long>()) + ")"
                                        : std::string())
            << ", " << whole(ro["responses"].get<double>()) << " responses, "
            << whole(ro["output_tokens_per_s"].get<double>()) << " output tokens/s, longest "
            << seconds(ro["longest_response_s"].get<double>()) << " (mean "
            << seconds(ro["mean_response_s"].get<double>()) << "), mean batch "
            << num(ro["mean_batch"].get<double>(), "%.1f") << "\n";
  const auto& tr = r["train"];
  const auto& tp = tr["parallel"];
  std::cout << "  train: " << whole(tr["devices"].get<double>()) << " devices as " << trainer_layout(tp)
            << ", " << tr["mini_batches"].get<long long>() << " optimizer step(s) of "
            << seconds(tr["iteration_time_s"].get<double>()) << ", MFU "
            << num(100 * tr["mfu"].get<double>(), "%.1f") << "%\n";
  if (const auto& c = r["controller"]; c["seconds"].get<double>() > 0)
    std::cout << "  controller: the padded batch, " << num(c["bytes_per_pass"].get<double>() / 1e9, "%.3g")
              << " GB a pass, through the driver at " << num(c["GBps"].get<double>(), "%.3g") << " GB/s, "
              << c["passes"].get<long long>() << " passes: " << seconds(c["seconds"].get<double>())
              << " inside the phases\n";
  for (const char* pool : {"rollout", "train"}) {
    const auto& m = r["memory"][pool];
    std::cout << "  memory (" << pool
              << " pool): " << num(m["per_device_bytes"].get<double>() / 1073741824.0, "%.1f") << " of "
              << num(m["capacity_bytes"].get<double>() / 1073741824.0, "%.1f") << " GiB per device"
              << (m["fits"].get<bool>() ? "" : ", does not fit: " + m["what"].get<std::string>()) << "\n";
  }
  if (r.contains("run")) {
    const auto& u = r["run"];
    // A short run in its own unit (one step is minutes, not "0.00 days, 0 GPU-hours").
    const double hours = u["gpu_hours"].get<double>(), usd = u.value("cost_usd", 0.0);
    std::cout << "  whole run: " << whole(u["train_steps"].get<double>()) << " steps, "
              << seconds(u["wall_days"].get<double>() * 86400.0) << ", "
              << (hours < 10 ? num(hours, "%.2f") : whole(hours)) << " GPU-hours, "
              << num(u["energy_mwh"].get<double>(), "%.3g") << " MWh"
              << (u.contains("cost_usd") ? ", $" + (usd < 100 ? num(usd, "%.2f") : whole(usd))
                                         : std::string(", no price (run.no_price)"))
              << "\n";
  }
}

void print_prediction(const json& p) {
  if (p.contains("rl")) print_rl(p);
  if (p.contains("parallel_auto")) {
    const auto& a = p["parallel_auto"];
    const auto& l = a["parallel"];
    const long long simulated = a.value("simulated", 0LL);
    std::cout << "Layout chosen by the search (" << a["mode"].get<std::string>() << ", "
              << whole(a["feasible"].get<double>()) << " of " << whole(a["evaluated"].get<double>())
              << " layouts fit"
              << (simulated > 0 ? ", the best " + std::to_string(simulated) + " run with the request stream"
                                : "")
              << "): tp " << l["tp"].get<long long>() << ", pp " << l["pp"].get<long long>() << ", dp "
              << l["dp"].get<long long>() << ", cp " << l["cp"].get<long long>() << ", ep "
              << l["ep"].get<long long>();
    // A served or inferred layout runs no micro-batches, recomputation or optimizer sharding: the
    // JSON echoes those keys at their defaults, the line names only what the search chose.
    if (a["mode"].get<std::string>() == "training")
      std::cout << ", micro_batch " << l["micro_batch"].get<long long>() << ", interleave "
                << l["interleave"].get<long long>() << ", recompute " << l["recompute"].get<std::string>()
                << ", zero_stage " << l["zero_stage"].get<long long>();
    std::cout << (l["sequence_parallel"].get<bool>() ? ", sequence parallel" : "") << "\n";
  }
  if (p.contains("training")) {
    const auto& t = p["training"];
    const double it = t["iteration_time_s"].get<double>();
    std::cout << "Training\n";
    const auto rate = [](double v) { return whole(v) + " tokens/s"; };
    std::cout << "  iteration time      " << seconds(it) << band(p, "training.iteration_time_s", seconds)
              << "\n";
    std::cout << "  throughput          " << rate(t["tokens_per_s"].get<double>())
              << band(p, "training.tokens_per_s", rate) << "\n";
    std::cout << "  MFU / HFU           " << num(100 * t["mfu"].get<double>(), "%.1f") << "% / "
              << num(100 * t["hfu"].get<double>(), "%.1f") << "%\n";
    if (t.contains("time_to_train_s"))
      std::cout << "  time to train       " << seconds(t["time_to_train_s"].get<double>())
                << band(p, "training.time_to_train_s", seconds) << "\n";
    std::cout << "  where the time goes (critical path):\n";
    for (auto it2 = t["breakdown_s"].begin(); it2 != t["breakdown_s"].end(); ++it2) {
      const double v = it2.value().get<double>();
      std::printf("    %-12s %12s  %5.1f%%\n", it2.key().c_str(), seconds(v).c_str(), 100.0 * v / it);
    }
    print_heaviest_kernels(t["operators"], "", it, "heaviest kernels (slowest stage, per iteration)", 5);
    std::cout << "  assumed: attention=" << t["assumed"]["attention"].get<std::string>()
              << ", overlap_grad_reduce="
              << (t["assumed"]["overlap_grad_reduce"].get<bool>() ? "true" : "false")
              << ", tp_comm_overlap=" << (t["assumed"]["tp_comm_overlap"].get<bool>() ? "true" : "false")
              << "\n";
  }
  if (p.contains("inference")) {
    const auto& i = p["inference"];
    std::cout << "Inference\n";
    std::cout << "  time to first token " << seconds(i["ttft_s"].get<double>())
              << band(p, "inference.ttft_s", seconds) << "\n";
    // One output token takes no decode step: its time per output token is none, not 0 s.
    if (i["tpot_s"].get<double>() > 0)
      std::cout << "  time per out token  " << seconds(i["tpot_s"].get<double>())
                << band(p, "inference.tpot_s", seconds) << "\n";
    else
      std::cout << "  time per out token  none (one output token: no decode step)\n";
    std::cout << "  end-to-end latency  " << seconds(i["e2e_latency_s"].get<double>())
              << band(p, "inference.e2e_latency_s", seconds) << "\n";
    std::cout << "  throughput          " << rate_text(i["throughput_tokens_per_s"].get<double>())
              << " tokens/s per replica\n";
    std::cout << "  largest batch that fits " << whole(i["max_batch"].get<double>()) << "\n";
    // Shares of the step each phase's kernels and exposed communication make (inference.operators).
    const auto step = [&](const char* key) {
      return i[key]["compute"].get<double>() + i[key]["communication"].get<double>();
    };
    print_heaviest_kernels(i["operators"], "prefill", step("prefill_s"), "heaviest kernels of the prefill",
                           3);
    // Under speculative decoding decode_step_s is per output token, not the step the operators time.
    if (!i.contains("speculative"))
      print_heaviest_kernels(i["operators"], "decode", step("decode_step_s"),
                             "heaviest kernels of a decode step", 3);
    if (i.contains("speculative")) {
      // Tokens a step and the acceptance the engine took for each drafted position.
      const auto& sp = i["speculative"];
      std::string accepted;
      for (const auto& a : sp["acceptance_by_position"])
        accepted += (accepted.empty() ? "" : ", ") + num(a.get<double>(), "%.3f");
      std::cout << "  speculative         " << num(sp["tokens_per_step"].get<double>(), "%.3f")
                << " tokens a step (acceptance by drafted position: " << accepted << "), "
                << "speed-up " << num(sp["speedup"].get<double>(), "%.2f") << "x per output token\n";
    }
    const double launch = i["assumed"]["launch_interval_us"].get<double>();
    if (launch > 0)
      std::cout << "  assumed: eager runtime, " << num(launch, "%g")
                << " us host launch interval per kernel (inference.cuda_graphs=true for graph replay)\n";
    else
      std::cout << "  assumed: no host launch bound (CUDA graph replay)\n";
  }
  if (p.contains("serving")) {
    const auto& v = p["serving"];
    const auto pct = [&](const char* what, const json& l, const std::string& path) {
      std::cout << "  " << what << " mean " << seconds(l["mean"].get<double>())
                << band(p, (path + ".mean").c_str(), seconds) << ", p50 " << seconds(l["p50"].get<double>())
                << ", p90 " << seconds(l["p90"].get<double>()) << ", p99 " << seconds(l["p99"].get<double>())
                << "\n";
    };
    std::cout << "Serving (" << (v.value("static_batching", false) ? "static" : "continuous") << " batching, "
              << whole(v["completed"].get<double>()) << " requests on " << v["replicas"].get<long long>()
              << " replica(s), " << whole(v["devices"].get<double>()) << " devices)\n";
    std::cout << "  throughput          " << num(v["requests_per_s"].get<double>(), "%.3g") << " requests/s, "
              << whole(v["output_tokens_per_s"].get<double>()) << " output tokens/s"
              << band(p, "serving.output_tokens_per_s", [](double x) { return whole(x); }) << ", "
              << whole(v["output_tokens_per_s_per_gpu"].get<double>()) << " per GPU\n";
    pct("time to first token", v["ttft_s"], "serving.ttft_s");
    pct("time per out token ", v["tpot_s"], "serving.tpot_s");
    pct("inter-token latency", v["itl_s"], "serving.itl_s");
    pct("end-to-end latency ", v["e2e_latency_s"], "serving.e2e_latency_s");
    std::cout << "  mean batch          " << num(v["mean_batch"].get<double>(), "%.1f") << " sequences, KV "
              << num(100 * v["kv_utilisation"].get<double>(), "%.0f") << "% used (peak "
              << num(100 * v["kv_peak_utilisation"].get<double>(), "%.0f") << "%) of "
              << whole(v["kv_capacity_tokens"].get<double>()) << " tokens, "
              << whole(v["preemptions"].get<double>()) << " preemptions\n";
    if (const long long eager = v.value("eager_steps", 0LL); eager > 0)
      std::cout << "  eager steps         " << whole(static_cast<double>(eager)) << " of "
                << whole(v["steps"].get<double>())
                << " without CUDA graphs (past the largest captured graph, or an eager prefill)\n";
    std::cout << "  KV cache pool       "
              << num(v["kv_pool_bytes_per_device"].get<double>() / (1024.0 * 1024 * 1024), "%.2f")
              << " GiB per device, set aside at start (the memory below is one static batch's)\n";
    if (v.contains("slo")) {
      const json& slo = v["slo"];
      std::cout << "  SLO p" << num(slo["percentile"].get<double>(), "%g") << ": "
                << (slo["met"].get<bool>() ? "met" : "NOT met");
      for (const char* k : {"ttft", "tpot", "itl"}) {
        const double objective = slo[std::string(k) + "_s"].get<double>();
        if (objective > 0)
          std::cout << ", " << k << " " << seconds(slo[std::string(k) + "_at_percentile"].get<double>())
                    << " (objective " << seconds(objective) << ")";
      }
      std::cout << "; goodput " << num(v["goodput_requests_per_s"].get<double>(), "%.3g") << " requests/s\n";
    }
  }
  const auto cost = [&](const json& c) {
    std::cout << "  energy              " << count(c["joules_per_token"].get<double>(), 3)
              << " J per output token (" << num(c["device_power_W"].get<double>(), "%.0f")
              << " W per device)";
    if (c.contains("usd_per_million_output_tokens"))
      std::cout << ", $" << count(c["usd_per_million_output_tokens"].get<double>(), 3)
                << " per million output tokens";
    std::cout << "\n";
  };
  if (p.contains("inference") && p["inference"].contains("cost")) {
    std::cout << "Inference cost (static batch)\n";
    cost(p["inference"]["cost"]);
  }
  if (p.contains("serving") && p["serving"].contains("cost")) {
    std::cout << "Serving cost\n";
    cost(p["serving"]["cost"]);
  }
  if (p.contains("run")) {
    const auto& r = p["run"];
    const auto& lost = r["lost_s"];
    std::cout << "Whole run (" << whole(r["steps"].get<double>()) << " steps)\n";
    const auto days = [](double v) {
      return v >= kDaysPerYear ? num(v / kDaysPerYear, "%.2f") + " years" : num(v, "%.1f") + " days";
    };
    std::cout << "  wall clock          " << days(r["wall_days"].get<double>()) << " (ideal "
              << seconds(r["ideal_time_s"].get<double>()) << "), goodput "
              << num(100 * r["goodput"].get<double>(), "%.1f") << "%" << band(p, "run.wall_days", days)
              << "\n";
    const auto hours = [](double v) { return count(v); };
    std::cout << "  device-hours        " << hours(r["gpu_hours"].get<double>())
              << band(p, "run.gpu_hours", hours) << "\n";
    std::cout << "  energy              " << count(r["energy_mwh"].get<double>()) << " MWh at the meter ("
              << count(r["device_energy_mwh"].get<double>()) << " MWh devices alone, "
              << num(r["device_power_W"].get<double>(), "%.0f") << " W per device)\n";
    if (r.contains("cost_usd"))
      std::cout << "  cost                $" << count(r["cost_usd"].get<double>()) << " ($"
                << num(r["usd_per_million_tokens"].get<double>(), "%.3g") << " per million tokens, $"
                << num(r["usd_per_gpu_hour"].get<double>(), "%.3g") << " per device-hour)\n";
    if (r.contains("co2_t"))
      std::cout << "  CO2                 " << count(r["co2_t"].get<double>()) << " t\n";
    std::cout << "  failures            " << num(r["expected_failures"].get<double>(), "%.1f")
              << " expected (one every " << seconds(r["job_mtbf_s"].get<double>()) << ")\n";
    std::cout << "  checkpoints         " << seconds(r["checkpoint_s"].get<double>()) << " each ("
              << gib(r["checkpoint_bytes"].get<double>()) << "), every "
              << seconds(r["checkpoint_interval_s"].get<double>()) << " of compute\n";
    const double ideal = r["ideal_time_s"].get<double>(), below = lost.value("production", 0.0);
    if (below > 0)
      std::cout << "  below modelled rate " << seconds(below) << " (the stated production efficiency "
                << num(ideal / (ideal + below), "%.3g") << ")\n";
    std::cout << "  time lost           checkpoints " << seconds(lost["checkpoint_writes"].get<double>())
              << ", redone work " << seconds(lost["lost_work"].get<double>()) << ", restarts "
              << seconds(lost["restarts"].get<double>()) << "\n";
    if (r.contains("stages")) {
      std::size_t i = 0;
      for (const auto& st : r["stages"]) {
        const auto& lay = st["parallel"];
        std::cout << "  stage " << i++ << "             " << count(st["tokens"].get<double>(), 3)
                  << " tokens at " << whole(st["seq_len"].get<double>()) << " x "
                  << whole(st["global_batch"].get<double>()) << ": " << whole(st["steps"].get<double>())
                  << " steps of " << seconds(st["iteration_time_s"].get<double>()) << " (tp "
                  << lay["tp"].get<long long>() << " pp " << lay["pp"].get<long long>() << " cp "
                  << lay["cp"].get<long long>() << " dp " << lay["dp"].get<long long>() << ", MFU "
                  << num(100 * st["mfu"].get<double>(), "%.1f") << "%), ideal "
                  << seconds(st["ideal_time_s"].get<double>())
                  << (st["fits"].get<bool>() ? "" : ", DOES NOT FIT") << "\n";
      }
    }
  }
  const auto& m = p["memory"];
  std::cout << "Memory per device (most loaded"
            << (m.contains("pipeline_stage")
                    // memory.pipeline_stage as the JSON numbers it, from 0 (the text once said
                    // stage 8 where the JSON said 7)
                    ? ": pipeline stage " + std::to_string(m["pipeline_stage"].get<long long>()) +
                          ", counted from 0"
                    : std::string())
            << ")\n";
  for (auto it = m["per_device_bytes"].begin(); it != m["per_device_bytes"].end(); ++it)
    std::printf("    %-12s %12s%s\n", it.key().c_str(), gib(it.value().get<double>()).c_str(),
                it.key() == "total" ? band(p, "memory.per_device_bytes.total", gib).c_str() : "");
  std::cout << "  capacity            " << gib(m["capacity_bytes"].get<double>()) << " -> "
            << (m["fits"].get<bool>() ? "fits" : "DOES NOT FIT") << "\n";
  if (m.contains("host_bytes")) {
    // A training footprint with gradients and no optimizer state on the device keeps its
    // optimizer in host memory (parallel.optimizer_offload), beside any offloaded activations.
    const json& b = m["per_device_bytes"];
    const bool optimizer = b["optimizer"].get<double>() == 0 && b["gradients"].get<double>() > 0;
    std::cout << "  in host memory      " << gib(m["host_bytes"].get<double>())
              << (optimizer
                      ? " of optimizer state (parallel.optimizer_offload) and any offloaded activations\n"
                      : " of offloaded activations (parallel.offload_layers)\n");
  }
  if (p.contains("calibration")) {
    const json& c = p["calibration"];
    std::cout << "Calibration         " << (c["applied"].get<bool>() ? "applied:" : "not applied:");
    for (auto it = c["factors"].begin(); it != c["factors"].end(); ++it)
      std::printf(" %s x%.3f", it.key().c_str(), it.value().get<double>());
    std::cout << "\n";
    if (c.contains("uncalibrated"))
      for (auto it = c["uncalibrated"].begin(); it != c["uncalibrated"].end(); ++it)
        std::printf("  uncalibrated %-32s %.6g\n", it.key().c_str(), it.value().get<double>());
  }
  print_band_sources(p);
  for (const auto& w : p["warnings"])
    std::cout << "warning: " << w["code"].get<std::string>() << ": " << w["message"].get<std::string>()
              << "\n";
}

// Prints an engine answer: as is with --json, else through `print` (or the error in words).
// Exit status 2 for an error object, 0 otherwise.
int emit(const std::string& out, bool as_json, const std::function<void(const json&)>& print) {
  const bool failed = optimus::api::is_error(out);
  if (as_json) {
    std::cout << out << "\n";
  } else {
    const json r = json::parse(out);
    if (failed)
      print_error_human(r["error"]);
    else
      print(r);
  }
  return failed ? 2 : 0;
}

// "unexpected argument 'X'", and for a mistyped option the one it probably was ("--jsn": did you
// mean '--json'?) among the command's `options`.
std::string unexpected(const std::string& arg, const std::vector<std::string_view>& options) {
  return "unexpected argument '" + arg + "'" +
         (arg.rfind("--", 0) == 0 ? optimus::did_you_mean(arg, options) : "");
}

// A command of one input file and --json (predict, calibrate): reads FILE (or stdin with '-';
// `read`: read_scenario for a scenario, read_input for other files), hands it to the engine and
// prints the answer.
int cmd_file(const char* name, const char* help, const std::vector<std::string>& args,
             std::string (*read)(const std::string&, std::string&),
             const std::function<std::string(const std::string&)>& engine,
             const std::function<void(const json&)>& print) {
  bool as_json = false;
  std::string file;
  for (const auto& a : args) {
    if (a == "--json")
      as_json = true;
    else if (a == "--help" || a == "-h") {
      std::cout << help;
      return 0;
    } else if (file.empty() && a.rfind("--", 0) != 0)
      file = a;
    else {
      std::cerr << "optimus " << name << ": " << unexpected(a, {"--json", "--help"}) << "\n" << help;
      return 1;
    }
  }
  if (file.empty()) {
    std::cerr << "optimus " << name << ": missing FILE (or '-' for stdin)\n" << help;
    return 1;
  }
  std::string text;
  if (const std::string why = read(file, text); !why.empty()) {
    std::cerr << "optimus " << name << ": cannot read '" << file << "': " << why << "\n";
    return 1;
  }
  return emit(engine(text), as_json, print);
}

int cmd_predict(const std::vector<std::string>& args) {
  return cmd_file(
      "predict", kPredictHelp, args, read_scenario,
      [](const std::string& t) { return optimus::api::predict(t); }, print_prediction);
}

void print_calibration(const json& r) {
  const json& c = r["calibration"];
  std::cout << "Calibration of " << c["system"].get<std::string>() << " (" << c["device"].get<std::string>()
            << "), software "
            << (c["software"].get<std::string>().empty() ? std::string("of the system")
                                                         : c["software"].get<std::string>())
            << ", on " << c["measurements"].get<std::int64_t>() << " measurement(s)\n";
  std::printf("  %-10s %8s %8s %8s   %s\n", "factor", "value", "low", "high", "bounds");
  for (const json& f : r["fitted"])
    std::printf("  %-10s %8.3f %8.3f %8.3f   [%.2f, %.2f]%s\n", f["factor"].get<std::string>().c_str(),
                f["value"].get<double>(), f["low"].get<double>(), f["high"].get<double>(),
                f["bounds"][0].get<double>(), f["bounds"][1].get<double>(),
                f["fitted"].get<bool>() ? "" : "  (held at 1: not fitted)");
  if (c.contains("band"))
    std::printf("  calibrated band of a prediction: x%.3f .. x%.3f (90%%)\n", c["band"]["low"].get<double>(),
                c["band"]["high"].get<double>());
  std::printf("  %-5s %-40s %12s %12s %12s\n", "line", "metric", "measured", "before", "after");
  for (const json& k : r["cases"])
    std::printf("  %-5lld %-40s %12.5g %12.5g %12.5g\n",
                static_cast<long long>(k["line"].get<std::int64_t>()), k["metric"].get<std::string>().c_str(),
                k["measured"].get<double>(), k["before"].get<double>(), k["after"].get<double>());
  for (const json& w : r["warnings"])
    std::cout << "warning: " << w["code"].get<std::string>() << ": " << w["message"].get<std::string>()
              << "\n";
}

int cmd_calibrate(const std::vector<std::string>& args) {
  return cmd_file(
      "calibrate", kCalibrateHelp, args, read_input,
      [](const std::string& t) { return optimus::api::calibrate(t); }, print_calibration);
}

int cmd_import(const std::vector<std::string>& args) {
  bool as_json = false;
  std::vector<std::string> pos;
  std::string scenario_file;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json")
      as_json = true;
    else if (args[i] == "--help" || args[i] == "-h") {
      std::cout << kImportHelp;
      return 0;
    } else if (args[i] == "--scenario" && i + 1 < args.size())
      scenario_file = args[++i];
    else if (args[i].rfind("--", 0) == 0) {
      std::cerr << "optimus import: " << unexpected(args[i], {"--json", "--help", "--scenario"}) << "\n"
                << kImportHelp;
      return 1;
    } else
      pos.push_back(args[i]);
  }
  if (pos.size() != 2 || scenario_file.empty()) {
    std::cerr << "optimus import: needs FORMAT, FILE and --scenario S.json\n" << kImportHelp;
    return 1;
  }
  std::string file, scenario;
  for (const auto& [path, into] : {std::pair<const std::string&, std::string&>{pos[1], file},
                                   std::pair<const std::string&, std::string&>{scenario_file, scenario}})
    if (const std::string why = &into == &scenario ? read_scenario(path, into) : read_input(path, into);
        !why.empty()) {
      std::cerr << "optimus import: cannot read '" << path << "': " << why << "\n";
      return 1;
    }
  const std::string out = optimus::api::import_measurements(pos[0], file, scenario);
  // The error goes to standard error in words, as predict's does: piped into calibrate, an error
  // object on standard output read as a line that is not a measurement and hid the import's error.
  return emit(out, as_json, [](const json& r) {
    for (const json& m : r["measurements"]) std::cout << m.dump() << "\n";
    for (const json& f : r["filled"]) std::cerr << "filled: " << f.get<std::string>() << "\n";
    for (const json& u : r["unread"]) std::cerr << "not read: " << u.get<std::string>() << "\n";
  });
}

int cmd_validate(const std::vector<std::string>& args) {
  constexpr const char* help =
      "optimus validate FILE|- [--json]\n\n"
      "Prints {\"ok\": true, \"scenario\": ...} with presets resolved and\n"
      "defaults filled in, or the error object (exit 2); JSON either way.\n";
  std::string file;
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << help;
      return 0;
    }
    if (a == "--json") continue;  // what validate prints anyway: accepted as the other commands accept it
    if (!file.empty() || a.rfind("--", 0) == 0) {
      std::cerr << "optimus validate: " << unexpected(a, {"--json", "--help"}) << "\n" << help;
      return 1;
    }
    file = a;
  }
  if (file.empty()) {
    std::cerr << "optimus validate: missing FILE (or '-' for stdin)\n" << help;
    return 1;
  }
  std::string text;
  if (const std::string why = read_scenario(file, text); !why.empty()) {
    std::cerr << "optimus validate: cannot read '" << file << "': " << why << "\n";
    return 1;
  }
  const std::string out = optimus::api::validate(text);
  std::cout << json::parse(out).dump(2) << "\n";
  return optimus::api::is_error(out) ? 2 : 0;
}

// The words of a preset call's error: the engine's message, and for an unknown kind the kind it
// probably meant ("model": did you mean 'models'?), found here rather than in the engine, where
// the edit distance would weigh on the page's first-load module (428 B gzipped).
std::string preset_error_words(const std::string& out, const std::string& kind) {
  const json e = json::parse(out)["error"];
  std::string message = e["message"].get<std::string>();
  if (e["code"] == "preset.unknown_kind") {
    const json all = json::parse(optimus::api::presets(""));  // a named object: items() holds a reference
    std::vector<std::string> kinds;
    for (auto it = all.begin(); it != all.end(); ++it) kinds.push_back(it.key());
    const std::string quoted = "'" + kind + "'";
    if (const auto at = message.find(quoted); at != std::string::npos)
      message.insert(at + quoted.size(), optimus::did_you_mean(kind, kinds));
  }
  return message;
}

int cmd_presets(const std::vector<std::string>& args) {
  bool as_json = false;
  std::string kind;
  for (const auto& a : args) {
    if (a == "--json")
      as_json = true;
    else if (a == "--help" || a == "-h") {
      std::cout << kPresetsHelp;
      return 0;
    } else if (a.rfind("--", 0) == 0 || !kind.empty()) {
      std::cerr << "optimus presets: " << unexpected(a, {"--json", "--help"}) << "\n" << kPresetsHelp;
      return 1;
    } else
      kind = a;
  }
  const std::string out = optimus::api::presets(kind);
  if (optimus::api::is_error(out)) {  // an unknown kind: the engine's error, status 2 as `preset`'s
    if (as_json)
      std::cout << out << "\n";
    else
      std::cerr << preset_error_words(out, kind) << "\n";
    return 2;
  }
  if (as_json) {
    std::cout << out << "\n";
    return 0;
  }
  const json p = json::parse(out);
  for (auto it = p.begin(); it != p.end(); ++it) {
    std::cout << it.key() << ":\n";
    // The names in one column, past the kind's longest id (deepseek-r1-distill-qwen-1.5b's 29).
    int width = 0;
    for (const auto& e : it.value())
      width = std::max(width, static_cast<int>(e["id"].get<std::string>().size()));
    for (const auto& e : it.value())
      std::printf("  %-*s  %s\n", width, e["id"].get<std::string>().c_str(),
                  e["name"].get<std::string>().c_str());
  }
  return 0;
}

int cmd_preset(const std::vector<std::string>& all) {
  // The preset is printed as JSON either way; --json also writes an error as its JSON object.
  std::vector<std::string> args;
  bool as_json = false;
  for (const auto& a : all) {
    if (a == "--json") {
      as_json = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: optimus preset KIND ID [--json]\n";
      return 0;
    } else if (a.rfind("--", 0) == 0) {
      std::cerr << "optimus preset: " << unexpected(a, {"--json", "--help"})
                << "\nusage: optimus preset KIND ID [--json]\n";
      return 1;
    } else {
      args.push_back(a);
    }
  }
  if (args.size() != 2) {
    std::cerr << "usage: optimus preset KIND ID [--json]\n";
    return 1;
  }
  const std::string out = optimus::api::preset(args[0], args[1]);
  if (optimus::api::is_error(out)) {
    if (as_json)
      std::cout << out << "\n";
    else
      std::cerr << preset_error_words(out, args[0]) << "\n";
    return 2;
  }
  // Indented, in the preset's own key order, for a person reading it (still JSON for a script).
  std::cout << nlohmann::ordered_json::parse(out).dump(2) << "\n";
  return 0;
}

constexpr const char* kSearchHelp =
    R"(optimus search FILE|- [--top K] [--json] [--mode training|inference|serving]
                      [--objective throughput|latency] [--max-ttft S] [--max-tpot S]
                      [--rank-by time|energy|cost] [--max-cost USD] [--max-energy MWH]

Searches the parallel layouts of a scenario: keys given in its "parallel" object are fixed,
absent ones are searched (tp, pp, cp, dp, micro_batch, interleave, sequence_parallel,
recompute, zero_stage for training; tp, pp and the batch for inference). Infeasible layouts
are rejected with a reason code (validate's codes, memory.does_not_fit, latency bounds); the
rest are ranked by iteration time (training) or by throughput or latency (inference).
  --top K          how many layouts to show (default 10, at most 1000)
  --json           print {"evaluated", "feasible", "rejected", "elapsed_s", "best": [...]}
  --mode M         training (default when the scenario has training), serving (default when
                   it has inference.serving: the deployment, tp x pp x replicas, ep, max_batch or
                   a prefill/decode split, that serves the request stream with the most goodput
                   per device under its objectives; every deployment simulated) or inference
  --objective O    inference: throughput (default) or latency; serving: goodput (default: the
                   stream as given) or capacity (the largest Poisson rate meeting the objectives)
  --max-ttft S     inference: reject layouts whose time to first token exceeds S seconds
  --max-tpot S     inference: reject layouts whose time per output token exceeds S seconds
  --rank-by R      training: time (default), energy or cost of a step of the whole job
  --max-cost USD   training with train_tokens: the fastest layout whose whole run (checkpoints,
                   failures, the scenario's economics) costs at most USD
  --max-energy MWH the same for the whole run's energy at the meter
A scenario with an "rl" job is searched for its placement instead: colocated against every split
of the devices between a rollout pool and a training pool (whole nodes), each rollout tp within a
node, ranked by step time or (--rank-by cost) by the step's device-hours at the economics' price.
best[0]'s "parallel" put into the scenario and predicted gives the same numbers. Spaces of
more than a million layouts are refused (search.space_too_large): fix some parallel keys.
)";

// A serving deployment search: one line per deployment.
void print_serving_search(const json& r, std::size_t top) {
  const bool capacity = r["objective"] == "capacity";
  std::printf("Objective: %s (requests/s per device%s)\n", r["objective"].get<std::string>().c_str(),
              capacity ? " at the largest Poisson rate meeting the objectives" : " meeting the objectives");
  std::printf("%4s %-26s %6s %12s %12s %12s %12s %12s %10s\n", "#", "deployment", "batch", "score/dev",
              capacity ? "capacity/s" : "req/s", "ttft p90", "tpot p90", "itl p99", "tokens/s");
  int rank = 0;
  bool at_least = false;  // a capacity the objectives still held at: marked and explained below
  for (const auto& b : r["best"]) {
    const auto& d = b["deployment"];
    const auto& sv = b["serving"];
    std::string dep;
    if (d.contains("disaggregated")) {
      const auto& pre = d["disaggregated"]["prefill"];
      const auto& dec = d["disaggregated"]["decode"];
      dep = "P " + std::to_string(pre["replicas"].get<long long>()) + "xTP" +
            std::to_string(pre["tp"].get<long long>()) + " + D " +
            std::to_string(dec["replicas"].get<long long>()) + "xTP" +
            std::to_string(dec["tp"].get<long long>());
    } else {
      dep =
          std::to_string(d["replicas"].get<long long>()) + " x TP" + std::to_string(d["tp"].get<long long>());
      if (d["pp"].get<long long>() > 1) dep += " PP" + std::to_string(d["pp"].get<long long>());
      if (d["ep"].get<long long>() > 1) dep += " EP" + std::to_string(d["ep"].get<long long>());
      if (d.value("attention_data_parallel", false)) dep += " (attn DP)";
    }
    const bool lower = capacity && b.value("capacity_at_least", false);
    at_least = at_least || lower;
    char rate[32];
    std::snprintf(rate, sizeof rate, "%s%.2f", lower ? ">= " : "",
                  capacity ? b["capacity_requests_per_s"].get<double>() : sv["requests_per_s"].get<double>());
    std::printf("%4d %-26s %6lld %12.3f %12s %12s %12s %12s %10s\n", ++rank, dep.c_str(),
                d["max_batch"].get<long long>(), b["score_requests_per_s_per_device"].get<double>(), rate,
                seconds(sv["ttft_s"]["p90"].get<double>()).c_str(),
                seconds(sv["tpot_s"]["p90"].get<double>()).c_str(),
                seconds(sv["itl_s"]["p99"].get<double>()).c_str(),
                whole(sv["output_tokens_per_s"].get<double>()).c_str());
  }
  if (at_least)
    std::printf(
        ">= : the objectives still held at the highest rate the search tries (10 x the offline rate): the "
        "capacity is"
        " at least this\n");
  // Fewer listed than asked for, and fewer than ran: the list skips a deployment that differs from a
  // better one only in the largest batch and predicts the same (core/search/serving_search.cpp
  // same_listing), so every other feasible one is such a repeat.
  const auto listed = r["best"].size();
  if (const auto feasible = r["feasible"].get<std::size_t>(); listed < top && feasible > listed) {
    const std::size_t others = feasible - listed;
    const char* one = others == 1 ? "s" : "";  // "deployment differs ... predicts", else the plural
    std::printf(
        "The other %zu feasible deployment%s differ%s from a listed one only in the largest batch and "
        "predict%s the same.\n",
        others, others == 1 ? "" : "s", one, one);
  }
}

// An RL placement search: one line per candidate.
void print_rl_search(const json& r) {
  std::printf("%4s %-10s %8s %8s %10s %12s %12s  %s\n", "#", "placement", "rollout", "train", "rollout tp",
              "step", "$/step", "trainer layout");
  int rank = 0;
  bool hosted = false;  // a trainer with its optimizer in host memory (assumed to fit) is marked
  for (const auto& b : r["best"]) {
    const bool host = b["rl"]["train"]["parallel"].value("optimizer_offload", false);
    hosted = hosted || host;
    // No price: no cost (the column says so with a dash rather than $0.00).
    char cost[32] = "-";
    if (b.contains("cost_per_step_usd"))
      std::snprintf(cost, sizeof cost, "%.2f", b["cost_per_step_usd"].get<double>());
    // The engine's tp, with its expert parallelism where the experts span several replicas.
    const json& rp = b["rl"]["rollout"]["parallel"];
    std::string rollout_tp = std::to_string(rp["tp"].get<long long>());
    if (rp.value("ep", 1LL) > rp["tp"].get<long long>())
      rollout_tp += " ep" + std::to_string(rp["ep"].get<long long>());
    std::printf("%4d %-10s %8lld %8lld %10s %12s %12s  %s%s\n", ++rank,
                b["placement"].get<std::string>().c_str(), b["rollout_devices"].get<long long>(),
                b["train_devices"].get<long long>(), rollout_tp.c_str(),
                seconds(b["step_time_s"].get<double>()).c_str(), cost,
                trainer_layout(b["rl"]["train"]["parallel"]).c_str(), host ? " *" : "");
  }
  if (hosted)
    std::cout << "   * the trainer fits only with its optimizer state in host memory, stepped by the CPU "
                 "(rl.train.offload cpu_optimizer, assumed)\n";
}

void print_search(const json& r, std::size_t top) {
  const bool training = r["mode"] == "training";
  // An RL search ranks placements (the pools, the engines' tp, the trainer's layout), a serving
  // search deployments (replicas of tp x pp, or prefill and decode pools, and the largest batch).
  const std::string what = r["mode"] == "rl" ? "placement" : r["mode"] == "serving" ? "deployment" : "layout";
  const double evaluated = r["evaluated"].get<double>();
  std::printf("Searched %s %s%s in %s (%s %ss/s): %s feasible\n", whole(evaluated).c_str(), what.c_str(),
              evaluated == 1 ? "" : "s", seconds(r["elapsed_s"].get<double>()).c_str(),
              whole(r["layouts_per_s"].get<double>()).c_str(), what.c_str(),
              whole(r["feasible"].get<double>()).c_str());
  for (auto it = r["rejected"].begin(); it != r["rejected"].end(); ++it)
    std::printf("  rejected %-40s %s\n", it.key().c_str(), whole(it.value().get<double>()).c_str());
  if (r["cancelled"].get<bool>()) std::cout << "  (cancelled before the end)\n";
  if (r.contains("narrowed")) {
    std::cout << "  the whole space was past the search's cap, so these keys were fixed (as parallel "
                 "\"auto\" does):";
    for (auto it = r["narrowed"].begin(); it != r["narrowed"].end(); ++it)
      std::cout << " " << it.key() << " " << it.value().get<long long>();
    std::cout << "\n";
  }
  if (r["best"].empty()) {
    std::cout << (r["mode"] == "rl" ? "No placement runs this job.\n" : "No feasible layout.\n");
    if (r.contains("fewest_devices"))
      std::printf("%lld devices would have one (the fewest found, up to 32 times as many).\n",
                  r["fewest_devices"].get<long long>());
    return;
  }
  if (r["mode"] == "serving") return print_serving_search(r, top);
  if (r["mode"] == "rl") return print_rl_search(r);
  if (training)
    std::printf("%4s %4s %4s %5s %4s %7s %4s %4s %3s %-9s %4s %12s %12s %6s %10s\n", "#", "tp", "pp", "dp",
                "cp", "ep/etp", "mb", "v", "sp", "recompute", "zero", "iteration", "tokens/s", "MFU",
                "memory");
  else
    std::printf("%4s %4s %4s %5s %4s %6s %12s %12s %12s %14s %10s\n", "#", "tp", "pp", "dp", "ep", "batch",
                "ttft", "tpot", "latency", "tokens/s (all)", "memory");
  int rank = 0;
  for (const auto& b : r["best"]) {
    const auto& p = b["parallel"];
    ++rank;
    if (b.contains("error")) {  // a ranked layout predict refused: say so rather than hide it
      std::printf("%4d %4lld %4lld %5lld %4lld  error %s: %s\n", rank, p["tp"].get<long long>(),
                  p["pp"].get<long long>(), p["dp"].get<long long>(), p["cp"].get<long long>(),
                  b["error"]["code"].get<std::string>().c_str(),
                  b["error"]["message"].get<std::string>().c_str());
      continue;
    }
    const double mem = b["memory"]["per_device_bytes"]["total"].get<double>();
    if (training) {
      const auto& t = b["training"];
      const std::string experts =
          std::to_string(p.value("ep", 1LL)) + "/" + std::to_string(p.value("etp", 1LL));
      std::printf("%4d %4lld %4lld %5lld %4lld %7s %4lld %4lld %3s %-9s %4lld %12s %12s %5.1f%% %10s\n", rank,
                  p["tp"].get<long long>(), p["pp"].get<long long>(), p["dp"].get<long long>(),
                  p["cp"].get<long long>(), experts.c_str(), p["micro_batch"].get<long long>(),
                  p["interleave"].get<long long>(), p["sequence_parallel"].get<bool>() ? "on" : "off",
                  p["recompute"].get<std::string>().c_str(), p["zero_stage"].get<long long>(),
                  seconds(t["iteration_time_s"].get<double>()).c_str(),
                  whole(t["tokens_per_s"].get<double>()).c_str(), 100.0 * t["mfu"].get<double>(),
                  gib(mem).c_str());
    } else {
      const auto& i = b["inference"];
      std::printf(
          "%4d %4lld %4lld %5lld %4lld %6lld %12s %12s %12s %14s %10s\n", rank, p["tp"].get<long long>(),
          p["pp"].get<long long>(), p["dp"].get<long long>(), p.value("ep", 1LL), i["batch"].get<long long>(),
          seconds(i["ttft_s"].get<double>()).c_str(), seconds(i["tpot_s"].get<double>()).c_str(),
          seconds(i["e2e_latency_s"].get<double>()).c_str(),
          rate_text(i["throughput_all_replicas_tokens_per_s"].get<double>()).c_str(), gib(mem).c_str());
    }
  }
}

// The search's options that take a value, as the parser reads them and a typo's suggestion offers them.
constexpr std::array<std::string_view, 8> kSearchValued = {
    "--top", "--mode", "--objective", "--max-ttft", "--max-tpot", "--rank-by", "--max-cost", "--max-energy"};

int cmd_search(const std::vector<std::string>& args) {
  bool as_json = false;
  std::string file;
  json options = json::object();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--json") {
      as_json = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kSearchHelp;
      return 0;
    } else if (std::find(kSearchValued.begin(), kSearchValued.end(), a) != kSearchValued.end() && has_value) {
      const std::string v = args[++i];
      // An option where the value should be ("--mode --json"): the value is missing, not "--json".
      if (v.rfind("--", 0) == 0) {
        std::cerr << "optimus search: " << a << " needs a value before '" << v << "'\n" << kSearchHelp;
        return 1;
      }
      if (a == "--mode" || a == "--objective") {
        options[a.substr(2)] = v;
        continue;
      }
      if (a == "--rank-by") {
        options["rank_by"] = v;
        continue;
      }
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !std::isfinite(x)) {
        std::cerr << "optimus search: " << a << " needs a number, got '" << v << "'\n";
        return 1;
      }
      if (a == "--top") {
        if (x != std::floor(x)) {
          std::cerr << "optimus search: --top needs a whole number, got '" << v << "'\n";
          return 1;
        }
        // Beyond 2^53 a double is no exact integer and a cast to long long may overflow: pass the
        // number on, for the range check to name it.
        if (std::fabs(x) < 9.0e15)
          options["top"] = static_cast<long long>(x);
        else
          options["top"] = x;
      } else {
        options[a == "--max-ttft"   ? "max_ttft_s"
                : a == "--max-tpot" ? "max_tpot_s"
                : a == "--max-cost" ? "max_cost_usd"
                                    : "max_energy_mwh"] = x;
      }
    } else if (a.rfind("--", 0) == 0 || !file.empty()) {
      std::vector<std::string_view> known = {"--json", "--help"};
      known.insert(known.end(), kSearchValued.begin(), kSearchValued.end());
      std::cerr << "optimus search: " << unexpected(a, known) << "\n" << kSearchHelp;
      return 1;
    } else {
      file = a;
    }
  }
  if (file.empty()) {
    std::cerr << "optimus search: missing FILE (or '-' for stdin)\n" << kSearchHelp;
    return 1;
  }
  std::string text;
  if (const std::string why = read_scenario(file, text); !why.empty()) {
    std::cerr << "optimus search: cannot read '" << file << "': " << why << "\n";
    return 1;
  }
  // A training search holds the layout keys the scenario's "parallel" object states (io/api.cpp
  // fixed_keys): named before the ranking, so that a scenario stating every key (the presets do)
  // reads as one layout checked, not as a search that found one.
  std::string held;
  if (const json sc = json::parse(text, nullptr, false); sc.is_object())
    if (const auto it = sc.find("parallel"); it != sc.end() && it->is_object())
      for (const char* key : {"tp", "pp", "dp", "cp", "ep", "etp", "micro_batch", "interleave",
                              "sequence_parallel", "recompute", "recompute_fraction", "zero_stage"})
        if (const auto v = it->find(key); v != it->end())
          held += (held.empty() ? "" : ", ") + std::string(key) + " " +
                  (v->is_string() ? v->get<std::string>() : v->dump());
  // The list's length asked for, else the engine's default (out of range, the engine's error is
  // printed instead).
  const std::size_t top =
      options.contains("top") && options["top"].is_number_integer() && options["top"].get<long long>() > 0
          ? options["top"].get<std::size_t>()
          : optimus::SearchOptions{}.top;
  return emit(optimus::api::search(text, options.dump()), as_json, [&held, top](const json& r) {
    if (!held.empty() && r["mode"] == "training")
      std::cout << "Held as the scenario states them: " << held
                << " (take a key out of \"parallel\", or write \"parallel\": \"auto\", to search it)\n";
    print_search(r, top);
  });
}

constexpr const char* kStudyHelp = R"(optimus study NAME [--job JSON] [--json]
optimus study --list [--json]

Runs one of the paper's studies (Kundu et al. 2024) on the engine: a built-in sweep whose
scenarios are described in presets/studies/NAME.json (optimus preset studies NAME), each
predicted, printed as a table.
  --list   the studies this build knows ({"studies": [{"name", "title", "description"}]} with --json)
  --job    your own job for cheapest-accelerator, in place of the study's: JSON with any of
           "model" (a preset id or an inline model), "num_devices", "seq_len", "global_batch",
           "train_tokens"; e.g. --job '{"model": "llama3.1-8b", "num_devices": 64}'
  --json   print {"study", "title", "description", "columns", "units", "column_descriptions",
           "rows", "notes"}
Unknown NAME: error code study.unknown, exit status 2.
)";

// One table cell for people: bytes in GiB, seconds scaled, large counts grouped or in words,
// groups as key=value.
std::string study_cell(const json& v, const std::string& unit) {
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) {
    const double x = v.get<double>();
    if (unit == "bytes") {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f MiB", x / (1024.0 * 1024.0));
      return x >= 1024.0 * 1024.0 * 1024.0 ? gib(x) : std::string(buf);
    }
    if (unit == "s") return seconds(x);
    // FLOP counts stay in scientific notation, as such counts are written; tokens, dollars, hours
    // as people read them ("169,100", "1.306 million").
    return unit.find("FLOP") != std::string::npos ? num(x) : count(x);
  }
  std::string out;
  for (auto it = v.begin(); it != v.end(); ++it)
    out += (out.empty() ? "" : " ") + it.key() + "=" + study_cell(it.value(), unit);
  return out;
}

// A row's cell of `key`, with its 80% band (the row's kStudyBandColumn group) in parentheses where
// it has one, "24 s (24 s - 33.7 s)": the text table writes the bands beside their cells, not as a
// column of their own.
std::string study_row_cell(const json& r, const std::string& key, const std::string& unit) {
  if (!r.contains(key)) return "";
  std::string cell = study_cell(r[key], unit);
  const json* band = r.contains(optimus::kStudyBandColumn) ? &r[optimus::kStudyBandColumn] : nullptr;
  if (band && band->contains(key + ".low") && band->contains(key + ".high"))
    cell += " (" + study_cell((*band)[key + ".low"], unit) + " - " +
            study_cell((*band)[key + ".high"], unit) + ")";
  return cell;
}

void print_study(const json& t) {
  std::cout << t["title"].get<std::string>() << "\n" << t["description"].get<std::string>() << "\n\n";
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header, keys;
  for (const auto& c : t["columns"]) {
    const std::string key = c.get<std::string>();
    if (key == optimus::kStudyBandColumn) continue;
    const std::string unit = t["units"][key].get<std::string>();
    keys.push_back(key);
    header.push_back(unit.empty() || unit == "bytes" || unit == "s" ? key : key + " [" + unit + "]");
  }
  cells.push_back(header);
  for (const auto& r : t["rows"]) {
    std::vector<std::string> line;
    for (const std::string& key : keys)
      line.push_back(study_row_cell(r, key, t["units"][key].get<std::string>()));
    cells.push_back(line);
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& line : cells)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size(); ++i)
      std::cout << line[i] << std::string(width[i] - line[i].size() + 2, ' ');
    std::cout << "\n";
  }
  const json& described = t["column_descriptions"];
  if (described.contains(optimus::kStudyBandColumn))
    std::cout << "\n(low - high) beside a number: its 80% band, the range that held 80% of the published "
                 "measurements of the row's regime around the prediction (docs/accuracy.md)\n";
  for (const auto& n : t["notes"]) std::cout << "\nnote: " << n.get<std::string>() << "\n";
}

int cmd_study(const std::vector<std::string>& args) {
  bool as_json = false, list = false;
  std::string name, job;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json")
      as_json = true;
    else if (a == "--job" && i + 1 < args.size())
      job = args[++i];
    else if (a == "--list")
      list = true;
    else if (a == "--help" || a == "-h") {
      std::cout << kStudyHelp;
      return 0;
    } else if (name.empty() && !a.empty() && a[0] != '-')
      name = a;
    else {
      std::cerr << "optimus study: " << unexpected(a, {"--json", "--job", "--list", "--help"}) << "\n"
                << kStudyHelp;
      return 1;
    }
  }
  if (list == !name.empty()) {
    std::cerr << "optimus study: give a study NAME or --list\n" << kStudyHelp;
    return 1;
  }
  if (!list) return emit(optimus::api::study(name, job), as_json, print_study);
  return emit(optimus::api::studies(), as_json, [](const json& r) {
    for (const auto& s : r["studies"])
      std::printf("  %-20s %s\n", s["name"].get<std::string>().c_str(),
                  s["title"].get<std::string>().c_str());
  });
}

constexpr const char* kSchemaHelp = R"(optimus schema [--json]

The engine's JSON contract as JSON Schema (draft 2020-12), built from the engine itself (its
enum tables, default values and the ranges its readers enforce).
  --json   print {"scenario": <schema of the input>, "prediction": <schema of predict --json>};
           numbers with a unit carry it in "description" and in the annotation keyword "x-unit"
           (tell a validator to allow it, and "x-default-by-norm")
Without --json: one line per scenario key, JSON Pointer style (/model/layers; /system/device/...
for an inline device; [] an array element), with its type, range or values, default, unit, and
"required" where the key must be present.
)";

// The schema a node stands for: a $ref resolved against the root's $defs.
const json& resolve(const json& root, const json& node) {
  if (!node.contains("$ref")) return node;
  const std::string ref = node["$ref"].get<std::string>();
  const std::string prefix = "#/$defs/";
  return root["$defs"][ref.substr(prefix.size())];
}

std::string schema_value(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// One line per property below `node` (objects, the object alternatives of a oneOf, array items);
// `label` names an alternative of a oneOf.
void print_schema_keys(const json& root, const json& node, const std::string& path, bool required,
                       const std::string& label = "") {
  const json& n = resolve(root, node);
  const auto title = [&](const json& a) {
    return a.contains("title") ? a["title"].get<std::string>() : schema_value(a.value("type", json("?")));
  };
  if (n.contains("oneOf")) {
    std::string kinds;
    for (const auto& alt : n["oneOf"]) kinds += (kinds.empty() ? "" : " | ") + title(resolve(root, alt));
    std::printf("%-44s %s%s\n", path.c_str(), kinds.c_str(), required ? "  required" : "");
    for (const auto& alt : n["oneOf"])
      if (resolve(root, alt).value("type", json("")) == "object")
        print_schema_keys(root, alt, path, false, title(resolve(root, alt)));
    return;
  }
  const std::string type = schema_value(n.value("type", json("")));
  if (type == "object" && n.contains("properties")) {
    if (!path.empty())
      std::printf("%-44s %s%s\n", path.c_str(), label.empty() ? "object" : ("as " + label + ":").c_str(),
                  required ? "  required" : "");
    const json req = n.value("required", json::array());
    for (auto it = n["properties"].begin(); it != n["properties"].end(); ++it) {
      const bool r = std::find(req.begin(), req.end(), json(it.key())) != req.end();
      print_schema_keys(root, it.value(), path + "/" + it.key(), r);
    }
    return;
  }
  std::string line = type;
  if (n.contains("enum")) {
    line = "";
    for (const auto& e : n["enum"]) line += (line.empty() ? "" : "|") + e.get<std::string>();
  }
  if (n.contains("prefixItems")) {
    line = "[";
    for (const auto& e : n["prefixItems"]) line += (line == "[" ? "" : ", ") + schema_value(e["type"]);
    line += "]";
  }
  if (n.contains("minimum") || n.contains("maximum"))
    line += " [" + (n.contains("minimum") ? schema_value(n["minimum"]) : "") + ", " +
            (n.contains("maximum") ? schema_value(n["maximum"]) : "") + "]";
  if (n.contains("default")) line += "  default " + schema_value(n["default"]);
  if (n.contains("x-default-by-norm")) line += "  default by norm " + n["x-default-by-norm"].dump();
  if (n.contains("x-unit")) line += "  (" + n["x-unit"].get<std::string>() + ")";
  if (required) line += "  required";
  std::printf("%-44s %s\n", path.c_str(), line.c_str());
  if (type == "array" && n.contains("items") && n["items"].is_object())
    print_schema_keys(root, n["items"], path + "/[]", false);
}

int cmd_schema(const std::vector<std::string>& args) {
  bool as_json = false;
  for (const auto& a : args) {
    if (a == "--json") {
      as_json = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kSchemaHelp;
      return 0;
    } else {
      std::cerr << "optimus schema: " << unexpected(a, {"--json", "--help"}) << "\n" << kSchemaHelp;
      return 1;
    }
  }
  return emit(optimus::api::schema(), as_json, [](const json& r) {
    std::cout << "Scenario keys (optimus schema --json for the full JSON Schema, with the prediction's):\n";
    print_schema_keys(r["scenario"], r["scenario"], "", false);
  });
}

// The commands, each with its run and its help text (none: the usage's line says it all). One
// table for both, so a command added is one `help` knows.
struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>&);
  const char* help;
};
constexpr Command kCommands[] = {
    {"predict", cmd_predict, kPredictHelp}, {"validate", cmd_validate, nullptr},
    {"presets", cmd_presets, kPresetsHelp}, {"preset", cmd_preset, nullptr},
    {"search", cmd_search, kSearchHelp},    {"study", cmd_study, kStudyHelp},
    {"schema", cmd_schema, kSchemaHelp},    {"calibrate", cmd_calibrate, kCalibrateHelp},
    {"import", cmd_import, kImportHelp},
};

const Command* command(const std::string& name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

// "; did you mean 'search'?" for a mistyped command or top-level option, else empty.
std::string command_hint(const std::string& name) {
  std::vector<std::string> names = {"help", "--help", "version", "--version"};
  for (const Command& c : kCommands) names.emplace_back(c.name);
  return optimus::did_you_mean(name, names);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    if (args.size() >= 2 && args[1] != "help") {
      const Command* c = command(args[1]);
      if (!c) {
        std::cerr << "optimus: no help for unknown command '" << args[1] << "'" << command_hint(args[1])
                  << "\n"
                  << kUsage;
        return 1;
      }
      std::cout << (c->help ? c->help : kUsage);
    } else {
      std::cout << kUsage;
    }
    return args.empty() ? 1 : 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::cout << "optimus " << OPTIMUS_VERSION << " (scenarios of schema_version " << optimus::kSchemaVersion
              << ")\n";
    return 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (const Command* c = command(cmd)) return c->run(args);
  std::cerr << "optimus: unknown command '" << cmd << "'" << command_hint(cmd) << "\n" << kUsage;
  return 1;
}
