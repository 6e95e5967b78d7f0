// optimus: the native command line. Thin: parse arguments, call the engine's JSON API,
// print. Exit status 0 on success, 2 on bad input (with the error object), 1 on usage errors.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "io/api.h"

namespace {

using json = nlohmann::ordered_json;

constexpr const char* kUsage = R"(optimus - LLM training and inference performance calculator

Usage:
  optimus predict FILE|- [--json]     predict a scenario (spec/scenario.md); '-' reads stdin
  optimus validate FILE|-             check a scenario and print it with presets resolved
  optimus presets [KIND] [--json]     list presets; KIND: models, devices, systems, scenarios
  optimus preset KIND ID              print one preset's JSON
  optimus help [COMMAND]              this text, or a command's

Exit status: 0 success, 1 usage error, 2 invalid scenario (error object printed).
)";

constexpr const char* kPredictHelp = R"(optimus predict FILE|- [--json]

Reads a scenario (a JSON file, or stdin with '-') and prints the prediction: for training the
iteration time and where it goes, tokens/s, MFU/HFU and time to train; for inference the
time to first token, time per output token, latency and throughput; memory per device.
  --json   print exactly the output contract of spec/scenario.md instead of a table
On invalid input prints {"error": {"code", "path", "message"}} and exits with status 2.
)";

constexpr const char* kPresetsHelp = R"(optimus presets [models|devices|systems|scenarios] [--json]

Lists the presets compiled into this build with their names and sources.
  --json   print {"models": [{"id", "name", "source"}], ...}
)";

bool read_input(const std::string& file, std::string& out) {
  if (file == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    out = ss.str();
    return true;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

std::string seconds(double s) {
  char buf[64];
  if (s >= 86400.0 * 2)
    std::snprintf(buf, sizeof buf, "%.2f days", s / 86400.0);
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

void print_error_human(const json& e) {
  std::cerr << "error: " << e["code"].get<std::string>();
  if (!e["path"].get<std::string>().empty()) std::cerr << " at " << e["path"].get<std::string>();
  std::cerr << "\n  " << e["message"].get<std::string>() << "\n";
}

void print_prediction(const json& p) {
  if (p.contains("training")) {
    const auto& t = p["training"];
    const double it = t["iteration_time_s"].get<double>();
    std::cout << "Training\n";
    std::cout << "  iteration time      " << seconds(it) << "\n";
    std::cout << "  throughput          " << num(t["tokens_per_s"].get<double>(), "%.0f") << " tokens/s\n";
    std::cout << "  MFU / HFU           " << num(100 * t["mfu"].get<double>(), "%.1f") << "% / "
              << num(100 * t["hfu"].get<double>(), "%.1f") << "%\n";
    if (t.contains("time_to_train_s"))
      std::cout << "  time to train       " << seconds(t["time_to_train_s"].get<double>()) << "\n";
    std::cout << "  where the time goes (critical path):\n";
    for (auto it2 = t["breakdown_s"].begin(); it2 != t["breakdown_s"].end(); ++it2) {
      const double v = it2.value().get<double>();
      std::printf("    %-12s %12s  %5.1f%%\n", it2.key().c_str(), seconds(v).c_str(), 100.0 * v / it);
    }
    std::cout << "  assumed: attention=" << t["assumed"]["attention"].get<std::string>()
              << ", overlap_grad_reduce="
              << (t["assumed"]["overlap_grad_reduce"].get<bool>() ? "true" : "false") << "\n";
  }
  if (p.contains("inference")) {
    const auto& i = p["inference"];
    std::cout << "Inference\n";
    std::cout << "  time to first token " << seconds(i["ttft_s"].get<double>()) << "\n";
    std::cout << "  time per out token  " << seconds(i["tpot_s"].get<double>()) << "\n";
    std::cout << "  end-to-end latency  " << seconds(i["e2e_latency_s"].get<double>()) << "\n";
    std::cout << "  throughput          " << num(i["throughput_tokens_per_s"].get<double>(), "%.1f")
              << " tokens/s per replica\n";
    std::cout << "  largest batch that fits " << i["max_batch"].get<long long>() << "\n";
  }
  const auto& m = p["memory"];
  std::cout << "Memory per device (most loaded)\n";
  for (auto it = m["per_device_bytes"].begin(); it != m["per_device_bytes"].end(); ++it)
    std::printf("    %-12s %12s\n", it.key().c_str(), gib(it.value().get<double>()).c_str());
  std::cout << "  capacity            " << gib(m["capacity_bytes"].get<double>()) << " -> "
            << (m["fits"].get<bool>() ? "fits" : "DOES NOT FIT") << "\n";
  for (const auto& w : p["warnings"])
    std::cout << "warning: " << w["code"].get<std::string>() << ": " << w["message"].get<std::string>()
              << "\n";
}

int cmd_predict(const std::vector<std::string>& args) {
  bool as_json = false;
  std::string file;
  for (const auto& a : args) {
    if (a == "--json")
      as_json = true;
    else if (a == "--help" || a == "-h") {
      std::cout << kPredictHelp;
      return 0;
    } else if (file.empty())
      file = a;
    else {
      std::cerr << "optimus predict: unexpected argument '" << a << "'\n" << kPredictHelp;
      return 1;
    }
  }
  if (file.empty()) {
    std::cerr << "optimus predict: missing FILE (or '-' for stdin)\n" << kPredictHelp;
    return 1;
  }
  std::string text;
  if (!read_input(file, text)) {
    std::cerr << "optimus predict: cannot read '" << file << "'\n";
    return 1;
  }
  const std::string out = optimus::api::predict(text);
  const bool failed = optimus::api::is_error(out);
  if (as_json) {
    std::cout << out << "\n";
  } else {
    const json p = json::parse(out);
    if (failed)
      print_error_human(p["error"]);
    else
      print_prediction(p);
  }
  return failed ? 2 : 0;
}

int cmd_validate(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0] == "--help") {
    std::cout
        << "optimus validate FILE|-\n\nPrints {\"ok\": true, \"scenario\": ...} with presets resolved and "
           "defaults filled in, or the error object (exit 2).\n";
    return args.size() == 1 ? 0 : 1;
  }
  std::string text;
  if (!read_input(args[0], text)) {
    std::cerr << "optimus validate: cannot read '" << args[0] << "'\n";
    return 1;
  }
  const std::string out = optimus::api::validate(text);
  std::cout << json::parse(out).dump(2) << "\n";
  return optimus::api::is_error(out) ? 2 : 0;
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
    } else
      kind = a;
  }
  const std::string out = optimus::api::presets(kind);
  if (optimus::api::is_error(out)) {
    std::cerr << json::parse(out)["error"]["message"].get<std::string>() << "\n";
    return 1;
  }
  if (as_json) {
    std::cout << out << "\n";
    return 0;
  }
  const json p = json::parse(out);
  for (auto it = p.begin(); it != p.end(); ++it) {
    std::cout << it.key() << ":\n";
    for (const auto& e : it.value())
      std::printf("  %-22s %s\n", e["id"].get<std::string>().c_str(), e["name"].get<std::string>().c_str());
  }
  return 0;
}

int cmd_preset(const std::vector<std::string>& args) {
  if (args.size() != 2) {
    std::cerr << "usage: optimus preset KIND ID\n";
    return 1;
  }
  const std::string out = optimus::api::preset(args[0], args[1]);
  if (optimus::api::is_error(out)) {
    std::cerr << json::parse(out)["error"]["message"].get<std::string>() << "\n";
    return 2;
  }
  std::cout << out;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    if (args.size() >= 2 && args[1] == "predict")
      std::cout << kPredictHelp;
    else if (args.size() >= 2 && args[1] == "presets")
      std::cout << kPresetsHelp;
    else
      std::cout << kUsage;
    return args.empty() ? 1 : 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "predict") return cmd_predict(args);
  if (cmd == "validate") return cmd_validate(args);
  if (cmd == "presets") return cmd_presets(args);
  if (cmd == "preset") return cmd_preset(args);
  std::cerr << "optimus: unknown command '" << cmd << "'\n" << kUsage;
  return 1;
}
