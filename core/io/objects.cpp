#include "io/objects.h"

#include <initializer_list>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/precision.h"
#include "hardware/uarch.h"
#include "io/presets.h"
#include "scenario/scenario.h"

namespace optimus::io {

using namespace nodes;

// The accessor of a member of the table's struct (a captureless lambda, stored as a function pointer).
#define AT(member) \
  [](auto& o) -> auto& { return o.member; }

namespace {

// Each table built once, on first use.
template <class T, Fields<T> (*make)()>
const Fields<T>& once() {
  static const Fields<T> f = make();
  return f;
}

// An array of objects, each read by `fields` (at most what the caller checks).
template <class T>
std::vector<T> read_object_list(Reader& r, const std::string& key, const Fields<T>& fields) {
  return r.list<T>(key, false,
                   [&](const json& v, const std::string&, const std::string& at) -> std::optional<T> {
                     Reader sr(v, at, r.error_slot());
                     T x;
                     read_fields(fields, sr, x);
                     sr.finish();
                     if (!sr.ok()) return std::nullopt;
                     return x;
                   });
}

// The same array written back (absent when empty).
template <class T>
std::optional<ojson> write_object_list(const std::vector<T>& xs, const Fields<T>& fields) {
  if (xs.empty()) return std::nullopt;
  ojson out = ojson::array();
  for (const T& x : xs) out.push_back(write_fields(fields, x));
  return out;
}

}  // namespace

// Plain words for the commonest hand-editing slips behind a parser's message (nlohmann/json's
// parse_error text, "... while parsing object - unexpected string literal; expected '}'"; its
// lexer stops at the first character that cannot continue a token, so "last read" ends with it).
std::string json_syntax_hint(std::string_view what, std::string_view text, std::size_t byte) {
  const auto hint = [](std::string_view h) { return " (" + std::string(h) + ")"; };
  // "08": the lexer reads the number 0, then 8 as a second number (RFC 8259 section 6: an integer
  // part starts with 0 only where it is 0), so the message says "unexpected number literal". The
  // digits around the error's byte (1-based, the last character read) are the number as typed; a
  // second number that starts a run of its own ("1.5 08") is a comma missing.
  if (what.find("unexpected number literal") != std::string_view::npos && byte > 0 && byte <= text.size() &&
      text[byte - 1] >= '0' && text[byte - 1] <= '9') {
    constexpr std::string_view digits = "0123456789";
    const auto start = text.find_last_not_of(digits, byte - 1) + 1;  // npos + 1 == 0: digits from the start
    const auto end = std::min(text.find_first_not_of(digits, byte - 1), text.size());
    const std::string sign = start > 0 && text[start - 1] == '-' ? "-" : "";
    const std::string_view run = text.substr(start, end - start);
    if (start + 1 < byte && run[0] == '0') {  // the unexpected number began inside the run
      const std::string_view value = run.substr(std::min(run.find_first_not_of('0'), run.size() - 1));
      return hint("JSON numbers have no leading zeros: write " + sign + std::string(value) + ", not " + sign +
                  std::string(run));
    }
  }
  std::string_view read;
  if (const auto at = what.find("last read: '"); at != std::string_view::npos) {
    read = what.substr(at + 12);
    const auto end = read.find("'; ");
    read = read.substr(0, end != std::string_view::npos ? end : read.rfind('\''));
  }
  if (what.find("invalid literal") != std::string_view::npos && !read.empty()) {
    const char last = read.back(), before = read.size() > 1 ? read[read.size() - 2] : ' ';
    if (std::string_view("+-*/").find(last) != std::string_view::npos && before >= '0' && before <= '9')
      return hint("JSON has no arithmetic: write the number itself");
    if (last == '/' || last == '#') return hint("JSON has no comments");
    if (last == '\'') return hint("JSON writes keys and strings in double quotes");
    if (what.find("object key") != std::string_view::npos) return hint("a key must be in double quotes");
    if (last == 'T' || last == 'F' || last == 'N')
      return hint("JSON writes true, false and null in lower case");
    if (last == '.') return hint("a number needs a digit before its point, e.g. 0.5");
  }
  constexpr std::string_view trailing =
      "a comma before a closing bracket: JSON allows none after the last item";
  constexpr std::string_view missing = "a comma is probably missing before it";
  static constexpr std::pair<std::string_view, std::string_view> kSlips[] = {
      {"unexpected '}'; expected string", trailing},
      {"unexpected ']'; expected '['", trailing},
      {"literal; expected '}'", missing},
      {"literal; expected ']'", missing},
      {"expected ':'", "a colon is probably missing after the key"},
      {"; expected end of input", "something after the scenario's last closing '}'"},
  };
  for (const auto& [needle, h] : kSlips)
    if (what.find(needle) != std::string_view::npos) return hint(h);
  // Stopped at the first character that is not blank: not JSON at all (YAML's "model: ...").
  if (const auto first = text.find_first_not_of(" \t\r\n"); byte > 0 && byte == first + 1)
    return hint("a scenario is a JSON object, from '{' to '}'");
  return {};
}

std::string unknown_key_message(const std::string& key, const std::set<std::string>& known) {
  return "unknown key '" + key + "'" + did_you_mean(key, known) + " (known keys here: " + join(known, ", ") +
         ")";
}

std::string missing_key_message(const std::string& key, const std::set<std::string>& unread) {
  const std::string near = misspelt_as(key, unread);
  return "required key '" + key + "' is missing" +
         (near.empty() ? "" : "; '" + near + "' is written here: did you mean '" + key + "'?");
}

std::set<std::string> Reader::unread_keys() const {
  std::set<std::string> out;
  for (const auto& [k, v] : obj_.items())
    if (!seen_.count(k)) out.insert(k);
  return out;
}

namespace {

// ---- Device ------------------------------------------------------------------------------------

// peak_tflops: one rate per precision, at least one.
void read_peaks(const Field<DeviceSpec>& f, Reader& r, DeviceSpec& d) {
  const json* peaks = r.get(f.key, true);
  if (!peaks) return;
  Reader pr(*peaks, r.child(f.key), r.error_slot());
  bool any = false;
  for (auto p : kPeakFormats) {
    if (auto x = pr.number(std::string(to_string(p)), false, 1e-6, 1e7)) {
      d.peak[static_cast<std::size_t>(p)] = teraflops(*x);
      any = true;
    }
  }
  pr.finish();
  if (!any && pr.ok())
    pr.fail("scenario.missing_key", pr.path(), "peak_tflops needs at least one precision (e.g. \"bf16\")");
}

std::optional<ojson> write_peaks(const Field<DeviceSpec>&, const DeviceSpec& d) {
  ojson peaks = ojson::object();
  for (auto p : kPeakFormats)
    if (d.peak_for(p).value > 0) peaks[std::string(to_string(p))] = d.peak_for(p).value / kTera;
  return peaks;
}

ojson peaks_schema() {
  Props peaks;
  for (Precision p : kPeakFormats) peaks.emplace_back(std::string(to_string(p)), number(1e-6, 1e7));
  return object(peaks).set("minProperties", 1).json();
}

// calibration.gemm_tiles: [[m, n], ...].
void read_tiles(const Field<DeviceSpec>& f, Reader& cr, DeviceSpec& d) {
  const json* tiles = cr.get(f.key, false);
  if (!tiles) return;
  const std::string tp = cr.child(f.key);
  if (!tiles->is_array() || tiles->empty() || tiles->size() > 64)
    return cr.fail("scenario.wrong_type", tp,
                   "gemm_tiles must be a non-empty array of at most 64 [m, n] tiles");
  d.gemm_tiles.clear();
  for (std::size_t i = 0; i < tiles->size(); ++i) {
    const json& t = (*tiles)[i];
    const std::string ip = tp + "/" + std::to_string(i);
    if (!t.is_array() || t.size() != 2 || !t[0].is_number_integer() || !t[1].is_number_integer())
      return cr.fail("scenario.wrong_type", ip, "each tile must be [m, n], two whole numbers");
    const auto tm = t[0].get<std::int64_t>(), tn = t[1].get<std::int64_t>();
    if (tm < 1 || tn < 1 || tm > 4096 || tn > 4096)
      return cr.fail("scenario.out_of_range", ip, "tile sides must be in [1, 4096]");
    d.gemm_tiles.push_back({tm, tn});
  }
}

std::optional<ojson> write_tiles(const Field<DeviceSpec>&, const DeviceSpec& d) {
  ojson tiles = ojson::array();
  for (const GemmTile& t : d.gemm_tiles) tiles.push_back({t.m, t.n});
  return tiles;
}

Fields<DeviceSpec> make_calibration() {
  Fields<DeviceSpec> f;
  f.number("matmul_efficiency", 1e-3, 1.0, AT(matmul_efficiency)).def();
  // Written as the rate the engine uses: matmul_efficiency where it is not stated.
  f.number("matmul_efficiency_8bit", 1e-3, 1.0, AT(matmul_efficiency_8bit))
      .writer([](const Field<DeviceSpec>&, const DeviceSpec& d) -> std::optional<ojson> {
        return d.matmul_efficiency_8bit > 0 ? d.matmul_efficiency_8bit : d.matmul_efficiency;
      });
  f.number("sustained_ratio", 1e-3, 1.0, AT(sustained_ratio)).def();
  f.number("memory_efficiency", 1e-3, 1.0, AT(memory_efficiency)).def();
  f.number("tile_overhead_k", 0, 1e6, AT(tile_overhead_k)).def();
  f.number("kernel_overhead_us", 0, 1e6, AT(kernel_overhead.value)).scaled(kMicro).def();
  const Node tile = integer(1, 4096);
  f.custom("gemm_tiles", array_of(pair_of(tile, tile), 1, 64).json(), read_tiles, write_tiles);
  f.integer("split_k_max", 1, 1024, AT(split_k_max)).def();
  f.integer("split_k_min_k", 1, 1'000'000, AT(split_k_min_k)).def();
  f.number("split_k_max_waves", 0, 1e6, AT(split_k_max_waves)).def();
  f.boolean("stream_k", AT(stream_k)).def(false);
  f.notes();
  return f;
}

Fields<DeviceSpec> make_memory() {
  Fields<DeviceSpec> f;
  f.number("capacity_GiB", 1e-3, 1e6, AT(hbm_capacity.value)).scaled(kGiB).req();
  f.number("bandwidth_GBps", 1e-3, 1e8, AT(hbm_bandwidth.value)).scaled(kGB).req();
  f.notes();
  return f;
}

Fields<DeviceSpec> make_l2() {
  Fields<DeviceSpec> f;
  f.number("capacity_MiB", 0, 1e6, AT(l2_capacity.value)).scaled(kMiB).def();
  f.rate_or_zero("bandwidth_GBps", 1e-6, 1e9, AT(l2_bandwidth.value)).scaled(kGB).def();
  f.notes();
  return f;
}

Fields<DeviceSpec> make_power() {
  Fields<DeviceSpec> f;
  f.number("tdp_W", 1e-3, 1e6, AT(power.tdp_w)).req();
  f.number("idle_fraction", 0, 1, AT(power.idle_fraction)).def();
  f.number("memory_activity", 0, 1, AT(power.memory_activity)).def();
  f.number("communication_activity", 0, 1, AT(power.communication_activity)).def();
  f.notes();
  return f;
}

Fields<DeviceSpec> make_device() {
  static const Fields<DeviceSpec> memory = make_memory(), l2 = make_l2(), power = make_power(),
                                  calibration = make_calibration();
  // The fallback chains, from base/precision.h wider().
  std::vector<std::string> fallback;
  for (Precision start : {Precision::int4, Precision::fp4}) {
    std::vector<std::string> chain;
    for (std::optional<Precision> q = start; q; q = wider(*q)) chain.emplace_back(to_string(*q));
    fallback.push_back(join(chain, " -> "));
  }
  Fields<DeviceSpec> f;
  f.text("name", AT(name));
  f.text("source", AT(source)).written(Write::nonzero);
  f.notes();
  f.custom("peak_tflops", peaks_schema(), read_peaks, write_peaks).req();
  f.number("vector_tflops", 1e-6, 1e7, AT(vector_peak.value)).scaled(kTera).written(Write::nonzero);
  f.rate_or_zero("exp_tops", 1e-6, 1e7, AT(exp_rate)).scaled(kTera).written(Write::nonzero).def();
  f.group("memory", memory).req();
  f.group("l2", l2);
  f.integer("compute_units", 1, 10'000'000, AT(compute_units)).def();
  f.boolean("nvfp4_scales", AT(nvfp4_scales)).def(true).written(Write::non_default);
  f.group("power", power)
      .writer([](const Field<DeviceSpec>& self, const DeviceSpec& d) -> std::optional<ojson> {
        if (!(d.power.tdp_w > 0)) return std::nullopt;
        return write_fields(*static_cast<const Fields<DeviceSpec>*>(self.sub), d);
      });
  f.number("price_usd", 1, 1e9, AT(power.price_usd)).written(Write::nonzero);
  f.group("calibration", calibration);
  return f;
}

// ---- Network tiers, operations, software, system --------------------------------------------

// allreduce_busbw_GBps: [[bytes, GBps], ...] with ascending sizes.
void read_busbw(const Field<NetworkTier>& f, Reader& r, NetworkTier& t) {
  const json* tab = r.get(f.key, false);
  if (!tab) return;
  const std::string tp = r.child(f.key);
  if (!tab->is_array() || tab->empty())
    return r.fail("scenario.wrong_type", tp,
                  "allreduce_busbw_GBps must be a non-empty array of [bytes, GBps] pairs");
  double prev = 0;
  for (std::size_t i = 0; i < tab->size(); ++i) {
    const json& row = (*tab)[i];
    const std::string rp = tp + "/" + std::to_string(i);
    if (!row.is_array() || row.size() != 2 || !row[0].is_number() || !row[1].is_number())
      return r.fail("scenario.wrong_type", rp, "each entry must be [bytes, GBps]");
    const double bytes = row[0].get<double>(), gbps = row[1].get<double>();
    // Bandwidths in the range of bandwidth_GBps: a denormal one made a collective's time infinite
    // (a served stream's times then came out null).
    if (!(bytes > prev) || !(gbps >= 1e-6) || !std::isfinite(bytes) || !std::isfinite(gbps) || gbps > 1e8)
      return r.fail("scenario.out_of_range", rp,
                    "sizes must ascend and bandwidths lie in [1e-6, 1e8] GB/s (got [" + plain_number(bytes) +
                        ", " + plain_number(gbps) + "])");
    prev = bytes;
    t.allreduce_busbw.emplace_back(bytes, gbps * kGB);
  }
}

std::optional<ojson> write_busbw(const Field<NetworkTier>&, const NetworkTier& t) {
  if (t.allreduce_busbw.empty()) return std::nullopt;
  ojson tab = ojson::array();
  for (const auto& [bytes, bw] : t.allreduce_busbw) tab.push_back({bytes, bw / kGB});
  return tab;
}

Fields<NetworkTier> make_tier(bool scale_up) {
  Fields<NetworkTier> t;
  t.number("bandwidth_GBps", 1e-6, 1e8, AT(bandwidth.value)).scaled(kGB).req();
  t.number("latency_us", 0, 1e7, AT(latency.value)).scaled(kMicro).req();
  auto& domain = t.integer("domain_size", 1, kMaxDevices, AT(domain_size));
  if (scale_up) {
    domain.req();
  } else {
    domain.written(Write::never);
    domain.read = [](const Field<NetworkTier>& self, Reader& r, NetworkTier&) {
      r.integer(self.key, false, 1, kMaxDevices);
    };
  }
  t.number("efficiency", 1e-3, 1.0, AT(efficiency)).def();
  // Up to twice the latency's range: its default (NetworkTier::default_bulk_latency, 2 x latency_us)
  // is written back by validate and must validate again.
  t.number("bulk_latency_us", 0, 2e7, AT(bulk_latency.value)).scaled(kMicro);
  t.number("ll_efficiency", 1e-3, 1.0, AT(ll_efficiency)).def();
  t.choice<AllToAll>("all_to_all", AT(all_to_all)).def();
  t.number("all_to_all_efficiency", 1e-3, 1.0, AT(all_to_all_efficiency)).written(Write::nonzero);
  t.number("peer_link_GBps", 1e-6, 1e8, AT(peer_link.value)).scaled(kGB).written(Write::nonzero);
  const Node busbw_row =
      pair_of(node({{"type", "number"}, {"exclusiveMinimum", 0}}).desc("Message size.").unit("bytes"),
              node({{"type", "number"}, {"minimum", 1e-6}, {"maximum", 1e8}})
                  .desc("All-reduce bus bandwidth at that size.")
                  .unit("GB/s"));
  t.custom("allreduce_busbw_GBps", array_of(busbw_row, 1).json(), read_busbw, write_busbw);
  t.integer("allreduce_busbw_ranks", 2, kMaxDevices, AT(allreduce_busbw_ranks))
      .written(Write::non_default)
      .def(8);
  t.notes();
  // bulk_latency_us defaults to a multiple of the latency read above.
  t.after = [](Reader& r, NetworkTier& n) {
    if (!r.has("bulk_latency_us")) n.bulk_latency = NetworkTier::default_bulk_latency(n.latency);
  };
  return t;
}

Fields<SystemOperations> make_operations() {
  Fields<SystemOperations> t;
  t.optional_number("failures_per_device_hour", 0, 1, AT(failures_per_device_hour));
  t.number("restart_s", 0, 1e7, AT(restart.value)).def();
  t.number("checkpoint_write_GBps_per_node", 1e-6, 1e8, AT(checkpoint_write_per_node.value))
      .scaled(kGB)
      .def();
  t.rate_or_zero("checkpoint_write_GBps_total", 1e-6, 1e9, AT(checkpoint_write_total.value))
      .scaled(kGB)
      .def();
  // Written only when set: the resolved scenario read back must mean the same.
  t.boolean("checkpoint_async", AT(checkpoint_async))
      .def()
      .writer(+[](const Field<SystemOperations>&, const SystemOperations& o) -> std::optional<ojson> {
        if (!o.checkpoint_async) return std::nullopt;
        return ojson(true);
      });
  t.number("node_overhead_W", 0, 1e7, AT(node_overhead_w)).def();
  t.optional_number("production_efficiency", 0.01, 1, AT(production_efficiency));
  t.ignored("source");
  t.notes();
  return t;
}

// The software block in three parts: how the training stack overlaps and launches work, the
// kernels and runtime of inference, and the bytes each training tensor takes.
void add_training_stack(Fields<SoftwareDefaults>& t) {
  t.choice<AttentionKernel>("attention", AT(attention)).def();
  t.boolean("overlap_grad_reduce", AT(overlap_grad_reduce)).def();
  t.boolean("quantized_saved_inputs", AT(quantized_saved_inputs)).def();
  t.choice<Fp8Scaling>("fp8_scaling", AT(fp8_scaling)).def();
  t.boolean("tp_comm_overlap", AT(tp_comm_overlap)).def();
  t.boolean("tp_comm_overlap_fp4", AT(tp_comm_overlap_fp4)).def();
  t.number("launch_interval_us", 0, 1e6, AT(launch_interval.value)).scaled(kMicro).def();
  t.number("training_launch_interval_us", 0, 1e6, AT(training_launch_interval.value)).scaled(kMicro).def();
  t.number("training_expert_gemm_us", 0, 1e6, AT(training_expert_gemm_interval.value)).scaled(kMicro).def();
  t.number("pipeline_sync_us", 0, 1e6, AT(pipeline_sync.value)).scaled(kMicro).def();
  t.boolean("training_cuda_graphs", AT(training_cuda_graphs)).def();
  t.boolean("ep_comm_overlap", AT(ep_comm_overlap)).def();
  t.number("ep_comm_sm_share", 0, 0.9, AT(ep_comm_sm_share)).def();
  t.number("dp_overlap_slowdown", 0, 1, AT(dp_overlap_slowdown)).def();
  t.number("zero3_layer_collectives", 1, 64, AT(zero3_layer_collectives)).def();
  t.number("zero3_max_reuse_elements", 0, 1e15, AT(zero3_max_reuse_elements)).def();
  t.boolean("zero3_reduce_per_tensor", AT(zero3_reduce_per_tensor)).def();
  t.boolean("zero3_fetch_sync", AT(zero3_fetch_sync)).def();
  t.boolean("zero3_reshard_after_forward", AT(zero3_reshard_after_forward)).def();
  t.number("training_matmul_share", 0.05, 1, AT(training_matmul_share)).def();
  t.number("inference_matmul_share", 0.05, 1, AT(inference_matmul_share)).def();
}

// An array of enum names read as a set of bits (each name once: scenario.duplicate names the
// second), and written back in the enum's order. False when the key is absent or an error was met.
template <class E, class Set>
bool read_enum_set(const std::string& key, Reader& pr, Set& out, Set (*bit)(E)) {
  if (!pr.get(key, false)) return false;
  const auto values = enum_values<E>();
  const std::vector<std::size_t> picked = pr.choices(key, false, enum_names<E>());
  Set set = 0;
  for (std::size_t i = 0; i < picked.size(); ++i) {
    const Set b = bit(values[picked[i]]);
    if (set & b) {
      pr.fail("scenario.duplicate", pr.child(key) + "/" + std::to_string(i),
              key + " names '" + std::string(name_of(values[picked[i]])) + "' twice");
      return false;
    }
    set = static_cast<Set>(set | b);
  }
  if (!pr.ok()) return false;
  out = set;
  return true;
}

template <class E, class Set>
ojson enum_set_json(Set set, Set (*bit)(E)) {
  ojson names = ojson::array();
  for (const E e : enum_values<E>())
    if (set & bit(e)) names.push_back(std::string(name_of(e)));
  return names;
}

// unfused_elementwise: the operators a stack writes as primitives, each once; written when any.
void read_unfused_elementwise(const Field<SoftwareDefaults>& f, Reader& pr, SoftwareDefaults& sw) {
  read_enum_set<ElementwiseOp>(f.key, pr, sw.unfused_elementwise, elementwise_bit);
}

std::optional<ojson> write_unfused_elementwise(const Field<SoftwareDefaults>&, const SoftwareDefaults& sw) {
  if (sw.unfused_elementwise == 0) return std::nullopt;
  return enum_set_json<ElementwiseOp>(sw.unfused_elementwise, elementwise_bit);
}

void add_kernels(Fields<SoftwareDefaults>& t) {
  t.choice<MoeDispatcher>("moe_dispatcher", AT(moe_dispatcher)).def();
  t.boolean("quantized_dispatch", AT(quantized_dispatch)).written(Write::nonzero).def();
  t.boolean("kv_cache", AT(kv_cache)).def();
  t.boolean("decode_kv_per_query_head", AT(decode_kv_per_query_head)).def();
  t.boolean("windowed_layers_full_kv", AT(windowed_layers_full_kv)).def();
  t.boolean("moe_group_workspace", AT(moe_group_workspace)).def();
  t.boolean("fused_elementwise", AT(fused_elementwise)).def();
  t.custom("unfused_elementwise", array_of(choice<ElementwiseOp>(), 1, 6).json(), read_unfused_elementwise,
           write_unfused_elementwise);
  t.boolean("fused_residual_norm", AT(fused_residual_norm)).def();
  t.boolean("fused_attention_residual_norm", AT(fused_attention_residual_norm)).def();
  t.boolean("rope_in_attention", AT(rope_in_attention)).def();
  t.boolean("fp8_context_attention", AT(fp8_context_attention)).def();
  t.boolean("unfused_context_attention", AT(unfused_context_attention)).def();
  t.choice<BlockFp8Gemm>("block_fp8_gemm", AT(block_fp8_gemm)).def();
  t.number("custom_allreduce_max_kb", 0, 1e6, AT(custom_allreduce_max_bytes)).scaled(1024.0).def();
  t.number("custom_allreduce_us", 0, 1e6, AT(custom_allreduce_latency.value)).scaled(kMicro).def();
}

void add_widths(Fields<SoftwareDefaults>& t) {
  t.number("activation_bytes", 0.5, 8, AT(activation_bytes)).def();
  t.number("weight_bytes", 0.5, 8, AT(weight_bytes)).def();
  t.number("gradient_bytes", 0.5, 8, AT(gradient_bytes)).def();
  t.number("zero_reduce_bytes", 0, 8, AT(zero_reduce_bytes)).def();
  t.number("master_weight_bytes", 0, 8, AT(master_weight_bytes)).def();
  t.number("optimizer_state_bytes", 0, 64, AT(optimizer_state_bytes)).def();
  t.number("optimizer_step_bytes", 0, 1024, AT(optimizer_step_bytes)).def();
  t.number("optimizer_step_flops", 0, 1024, AT(optimizer_step_flops)).def();
  t.notes();
}

Fields<SoftwareDefaults> make_software() {
  Fields<SoftwareDefaults> t;
  add_training_stack(t);
  add_kernels(t);
  add_widths(t);
  return t;
}

// system.device: a preset id, an inline device or one derived from a technology node.
void read_system_device(const Field<SystemSpec>& f, Reader& r, SystemSpec& s) {
  const json* dv = r.get(f.key, true);
  if (!dv) return;
  Result<DeviceSpec> d = Error{};
  if (dv->is_string()) {
    d = device_preset(dv->get<std::string>(), r.child(f.key));
    s.device_id = optimus::preset_id("devices", dv->get<std::string>());  // its own id, however written
  } else {
    d = read_device(*dv, r.child(f.key));
  }
  if (!d) return r.fail(d.error().code, d.error().path, d.error().message);
  s.device = *d;
}

Fields<SystemSpec> make_system() {
  Fields<SystemSpec> t;
  t.text("name", AT(name));
  t.text("source", AT(source)).written(Write::nonzero);
  t.notes();
  t.custom("device", ojson::object(), read_system_device,
           [](const Field<SystemSpec>&, const SystemSpec& s) -> std::optional<ojson> {
             return write_fields(device_fields(), s.device);
           })
      .req()
      .shown_as(one_of({preset_id("devices"), ref("device"), ref("technology")}));
  t.integer("devices_per_node", 1, kMaxDevices, AT(devices_per_node)).req();
  t.member(
       "scale_up", tier_fields(true), +[](SystemSpec& s) -> NetworkTier& { return s.scale_up; })
      .req()
      .shown_as(ref("scale_up"));
  t.member(
       "scale_out", tier_fields(false), +[](SystemSpec& s) -> NetworkTier& { return s.scale_out; })
      .req()
      .shown_as(ref("scale_out"));
  t.number("host_link_GBps", 0, 1e6, AT(host_link.value)).scaled(kGB).written(Write::nonzero);
  t.member(
      "software", software_fields(), +[](SystemSpec& s) -> SoftwareDefaults& { return s.software; });
  t.member(
       "operations", operations_fields(), +[](SystemSpec& s) -> SystemOperations& { return s.operations; })
      .title("Operations");
  return t;
}

// ---- Parallel layout ---------------------------------------------------------------------------

// recompute_modules: each name once; needs recompute "selective" (read before it).
void read_recompute_modules(const Field<ParallelPlan>& f, Reader& pr, ParallelPlan& p) {
  if (!read_enum_set<RecomputeModule>(f.key, pr, p.recompute_modules, module_bit)) return;
  if (p.recompute != Recompute::selective)
    pr.fail("parallel.recompute_modules_without_selective", pr.child(f.key),
            "recompute_modules names the modules selective recompute runs again (Megatron-Core "
            "recompute_granularity \"selective\"); set recompute to \"selective\"");
}

// Written where it differs from the attention core alone.
std::optional<ojson> write_recompute_modules(const Field<ParallelPlan>&, const ParallelPlan& p) {
  if (p.recompute != Recompute::selective || p.recompute_modules == kCoreAttnOnly) return std::nullopt;
  return enum_set_json<RecomputeModule>(p.recompute_modules, module_bit);
}

Fields<ParallelPlan> make_parallel() {
  Fields<ParallelPlan> t;
  t.integer("tp", 1, kMaxDevices, AT(tp)).def();
  t.integer("pp", 1, kMaxDevices, AT(pp)).def();
  t.integer("dp", 1, kMaxDevices, AT(dp));
  t.integer("cp", 1, kMaxDevices, AT(cp)).def();
  t.integer("ep", 1, kMaxDevices, AT(ep)).def();
  t.integer("etp", 1, kMaxDevices, AT(etp)).def();
  t.integer("expert_slots", 1, 1'000'000, AT(expert_slots)).written(Write::nonzero);
  t.boolean("sequence_parallel", AT(sequence_parallel));
  t.integer("micro_batch", 1, kMaxCount, AT(micro_batch)).def();
  t.integer("interleave", 1, 100'000, AT(interleave)).def();
  t.choice<Recompute>("recompute", AT(recompute)).def();
  auto& fraction = t.number("recompute_fraction", 1e-6, 1.0, AT(recompute_fraction))
                       .def(ParallelPlan{}.recompute_fraction)
                       .writer([](const Field<ParallelPlan>&, const ParallelPlan& p) -> std::optional<ojson> {
                         if (p.recompute == Recompute::full && p.recompute_fraction < 1.0)
                           return p.recompute_fraction;
                         return std::nullopt;
                       });
  fraction.read = [](const Field<ParallelPlan>& self, Reader& pr, ParallelPlan& p) {
    if (auto x = pr.number(self.key, false, self.lo, self.hi)) {
      p.recompute_fraction = *x;
      if (p.recompute != Recompute::full)
        pr.fail("parallel.recompute_fraction_without_full", pr.child(self.key),
                "recompute_fraction is the share of layers that full recompute checkpoints; set recompute to "
                "\"full\"");
    }
  };
  t.custom("recompute_modules", array_of(choice<RecomputeModule>(), 1, 8).json(), read_recompute_modules,
           write_recompute_modules);
  t.custom(
       "zero_stage", integer(0, 3).json(),
       [](const Field<ParallelPlan>& self, Reader& pr, ParallelPlan& p) {
         if (auto x = pr.integer(self.key, false, 0, 3)) p.zero_stage = static_cast<int>(*x);
       },
       [](const Field<ParallelPlan>&, const ParallelPlan& p) -> std::optional<ojson> { return p.zero_stage; })
      .def(ParallelPlan{}.zero_stage);
  t.integer("zero_shard", 1, kMaxDevices, AT(zero_shard)).written(Write::nonzero);
  t.integer("offload_layers", 0, kMaxCount, AT(offload_layers)).written(Write::nonzero).def();
  t.boolean("optimizer_offload", AT(optimizer_offload)).written(Write::nonzero).def();
  // Sequence parallelism follows tp where it is not stated.
  t.after = [](Reader& pr, ParallelPlan& p) {
    if (!pr.has("sequence_parallel")) p.sequence_parallel = p.tp > 1;
  };
  return t;
}

// ---- Serving scheduler -------------------------------------------------------------------------

Fields<ServingSizing> make_sizing_rule() {
  Fields<ServingSizing> t;
  t.number("below_GiB", 0, 1e6, AT(below_GiB)).written(Write::nonzero);
  t.integer("min_tp", 0, kMaxDevices, AT(min_tp)).written(Write::nonzero);
  t.integer("max_num_tokens", 0, kMaxServingLength, AT(max_num_tokens)).written(Write::nonzero);
  t.integer("cuda_graph_max_batch", 0, kMaxRequests, AT(cuda_graph_max_batch)).written(Write::nonzero);
  return t;
}

const Fields<ServingSizing>& sizing_rule_fields() { return once<ServingSizing, make_sizing_rule>(); }

// serving.sizing: [{below_GiB, min_tp, max_num_tokens, cuda_graph_max_batch}, ...], first match wins.
void read_sizing(const Field<ServingSpec>& f, Reader& r, ServingSpec& sv) {
  if (!r.get(f.key, false)) return;  // a profile's rules stay under a scenario that states none
  sv.sizing = read_object_list(r, f.key, sizing_rule_fields());
  if (sv.sizing.size() > 32)
    r.fail("scenario.out_of_range", r.child(f.key),
           "'sizing' has " + std::to_string(sv.sizing.size()) + " rules; at most 32");
}

// Not written: the values the rules set at read are (max_num_tokens, cuda_graph_max_batch), so a
// written scenario reads back to them; a profile's rules come back with the profile.
std::optional<ojson> write_sizing(const Field<ServingSpec>&, const ServingSpec&) { return std::nullopt; }

Fields<ServingSpec> make_scheduler() {
  Fields<ServingSpec> t;
  t.integer("max_batch", 1, kMaxRequests, AT(max_batch)).def();
  t.integer("max_num_tokens", 1, kMaxServingLength, AT(max_num_tokens)).def();
  t.integer("kv_block_tokens", 1, 65'536, AT(kv_block_tokens)).def();
  // One of the two memory shares is written: the fraction where one is set.
  t.number("gpu_memory_utilization", 0.01, 1, AT(gpu_memory_utilization))
      .def()
      .writer([](const Field<ServingSpec>&, const ServingSpec& v) -> std::optional<ojson> {
        if (v.free_gpu_memory_fraction > 0) return std::nullopt;
        return v.gpu_memory_utilization;
      });
  t.number("free_gpu_memory_fraction", 0.01, 1, AT(free_gpu_memory_fraction)).written(Write::nonzero);
  t.choice<KvAdmission>("kv_admission", AT(kv_admission)).def();
  t.number("request_overhead_ms", 0, 1e5, AT(request_overhead_s)).scaled(1e-3, 1e3).def();
  t.number("step_overhead_ms", 0, 1e4, AT(step_overhead_s)).scaled(1e-3, 1e3).def();
  t.number("step_overhead_us_per_request", 0, 1e5, AT(step_overhead_per_request_s)).scaled(1e-6, 1e6).def();
  t.boolean("overlap_schedule", AT(overlap_schedule)).def();
  t.boolean("linear_attention_overlap", AT(linear_attention_overlap)).def();
  t.boolean("budget_split_over_dp", AT(budget_split_over_dp)).written(Write::nonzero).def();
  t.boolean("static_batching", AT(static_batching)).written(Write::nonzero).def();
  t.integer("cuda_graph_max_batch", 0, kMaxRequests, AT(cuda_graph_max_batch)).written(Write::nonzero).def();
  t.boolean("prefill_cuda_graphs", AT(prefill_cuda_graphs)).def();
  t.choice<GraphUnit>("cuda_graph_unit", AT(cuda_graph_unit)).def();
  t.custom("sizing", array_of(schema_of(sizing_rule_fields()).title("Sizing rule"), 1, 32).json(),
           read_sizing, write_sizing);
  // A share of the device stated here replaces a profile's fraction; both at once are refused.
  t.after = [](Reader& r, ServingSpec& d) {
    if (r.has("free_gpu_memory_fraction") && r.has("gpu_memory_utilization"))
      r.fail("serving.memory_share_twice", r.child("free_gpu_memory_fraction"),
             "give the KV cache's memory as gpu_memory_utilization (a share of the device) or "
             "free_gpu_memory_fraction (a share of what the weights and workspace leave), not both");
    else if (r.has("gpu_memory_utilization"))
      d.free_gpu_memory_fraction = 0;
  };
  return t;
}

// ---- Inference workload ------------------------------------------------------------------------

Fields<InferenceWorkload> make_inference() {
  Fields<InferenceWorkload> t;
  t.integer("batch", 1, 100'000'000, AT(batch)).def();
  t.integer("prompt_len", 1, 100'000'000, AT(prompt_len)).req();
  t.integer("output_len", 1, 100'000'000, AT(output_len)).req();
  t.choice("precision", kInferencePrecisions, AT(precision)).def();
  t.choice("kv_precision", kInferencePrecisions, AT(kv_precision));
  t.opt_integer("weight_group_size", 1, 1'000'000, AT(weight_group_size));
  t.boolean("fp8_block_scaled", AT(fp8_block_scaled)).written(Write::nonzero).def();
  t.opt_choice<Precision>("activation_precision", AT(activation_precision));
  t.opt_boolean("cuda_graphs", AT(cuda_graphs));
  // serving and speculative are read by the inference reader (io/json_io.cpp) after this table's
  // keys and checks: they depend on the scenario around them (its lengths, devices, software and
  // target model).
  const auto read_later = [](const Field<InferenceWorkload>&, Reader&, InferenceWorkload&) {};
  t.opt_member<ServingSpec>("serving", serving_fields(), AT(serving)).title("Serving").read = read_later;
  t.opt_member<Speculative>("speculative", speculative_fields(), AT(speculative))
      .title("Speculative decoding")
      .read = read_later;
  // Group sizes and block scales need their formats (the cache's default precision is set by the
  // inference reader, which knows the software profile: default_kv_precision).
  t.after = [](Reader& ir, InferenceWorkload& w) {
    if (w.weight_group_size && !integer_weights(w.precision))
      ir.fail("inference.weight_group_size_without_integer_weights", ir.child("weight_group_size"),
              "weight_group_size sizes the scale groups of int4 or int8 weights; precision is " +
                  std::string(to_string(w.precision)));
    if (w.fp8_block_scaled && w.precision != Precision::fp8)
      ir.fail("inference.fp8_block_scaled_without_fp8", ir.child("fp8_block_scaled"),
              "fp8_block_scaled describes fp8 weights with block scales; precision is " +
                  std::string(to_string(w.precision)) + " (mxfp8 is block-scaled by definition)");
    if (w.activation_precision && bytes_per_element(*w.activation_precision) < bytes_per_element(w.precision))
      ir.fail("inference.activation_precision_narrower_than_weights", ir.child("activation_precision"),
              "activation_precision " + std::string(to_string(*w.activation_precision)) +
                  " is narrower than the weights' precision " + std::string(to_string(w.precision)) +
                  "; weight-only quantisation keeps the activations at least as wide as the weights");
  };
  return t;
}

// ---- Technology-derived hardware ---------------------------------------------------------------

// The chip budgets of a device derived from a technology node (io/technology_io.cpp read_uarch
// reads "technology" and "dram" beside them).
Fields<UarchBudget> make_budget() {
  Fields<UarchBudget> t;
  t.text("name", AT(name));
  t.notes();
  t.number("area_mm2", 1, 1e6, AT(area_mm2)).req();
  t.number("power_W", 1e-3, 1e7, AT(power_w)).req();
  t.number("perimeter_mm", 1e-3, 1e6, AT(perimeter_mm));
  t.number("compute_fraction", 1e-3, 1, AT(compute_fraction)).def();
  t.number("sram_fraction", 0, 1, AT(sram_fraction)).def();
  t.number("memory_edge_fraction", 1e-3, 1, AT(memory_edge_fraction)).def();
  t.number("network_edge_fraction", 0, 1, AT(network_edge_fraction)).def();
  t.integer("max_dram_stacks", 1, 1000, AT(max_dram_stacks));
  t.number("dram_power_fraction", 1e-3, 0.99, AT(dram_power_fraction)).def();
  t.number("network_power_fraction", 0, 0.99, AT(network_power_fraction)).def();
  t.integer("scale_up_domain", 1, 1'000'000, AT(scale_up_domain)).def();
  t.integer("nic_lanes", 1, 10'000, AT(nic_lanes)).def();
  t.integer("chiplets", 1, 64, AT(chiplets)).def();
  t.number("d2d_area_fraction", 0, 1, AT(d2d_area_fraction)).def();
  t.number("packaging_usd_per_mm2", 0, 1e4, AT(packaging_usd_per_mm2)).def();
  t.number("dram_footprint_mm2", 0, 1e4, AT(dram_footprint_mm2)).def();
  t.number("bond_yield", 1e-3, 1, AT(bond_yield)).def();
  t.number("flops_per_cycle_per_MTr", 1e-6, 1e6, AT(flops_per_cycle_per_mtr)).def();
  t.number("l2_bytes_per_flop", 0, 1e3, AT(l2_bytes_per_flop)).def();
  t.number("matmul_efficiency", 1e-3, 1, AT(matmul_efficiency)).def();
  t.number("memory_efficiency", 1e-3, 1, AT(memory_efficiency)).def();
  return t;
}

// ---- Model -------------------------------------------------------------------------------------

// Keys that describe one feature of model.attention: with the feature on (`needed`) each absent
// key is scenario.missing_key ("<feature> needs '<key>'"); where the attention type cannot have it
// (`allowed` false) each given key is `code` ("'<key>' describes <describes>").
void key_group(Reader& ar, std::initializer_list<std::pair<const char*, bool>> keys, bool needed,
               bool allowed, const char* feature, const char* code, const char* describes) {
  for (const auto& [key, given] : keys) {
    if (needed && !given)
      ar.fail("scenario.missing_key", ar.child(key), std::string(feature) + " needs '" + key + "'");
    if (given && !allowed) ar.fail(code, ar.child(key), std::string("'") + key + "' describes " + describes);
  }
}

// The types a linear-attention state is kept in (vLLM's and SGLang's mamba_ssm_cache_dtype choices).
constexpr std::array<Precision, 3> kStatePrecisions = {Precision::fp32, Precision::bf16, Precision::fp16};

// model.attention's linear_* keys (model/spec.h LinearAttentionSpec): the heads and their two
// dimensions come together; a model has windowed or linear layers, not both.
void read_linear_attention(Reader& ar, ModelSpec& m) {
  LinearAttentionSpec& L = m.linear;
  const auto heads = ar.integer("linear_heads", false, 1, 100'000);
  const auto kd = ar.integer("linear_key_head_dim", false, 1, 100'000);
  const auto vd = ar.integer("linear_value_head_dim", false, 1, 100'000);
  const auto kh = ar.integer("linear_key_heads", false, 1, 100'000);
  const auto conv = ar.integer("linear_conv_kernel", false, 0, 1'000);
  const auto state = ar.enumeration("linear_state_precision", false, kStatePrecisions);
  const bool on = heads || kd || vd;
  key_group(ar,
            {{"linear_heads", heads.has_value()},
             {"linear_key_head_dim", kd.has_value()},
             {"linear_value_head_dim", vd.has_value()}},
            on, true, "linear attention (linear_heads, linear_key_head_dim, linear_value_head_dim)", "", "");
  key_group(ar,
            {{"linear_key_heads", kh.has_value()},
             {"linear_conv_kernel", conv.has_value()},
             {"linear_state_precision", state.has_value()}},
            false, on, "", "model.linear_key_without_linear_attention",
            "linear attention; it needs linear_heads, linear_key_head_dim and linear_value_head_dim");
  if (on && m.window > 0)
    ar.fail(
        "model.linear_attention_with_window", ar.child("window"),
        "a model's non-global layers are windowed or linear, not both: drop 'window' or the linear_* keys");
  L.heads = heads.value_or(0);
  L.key_head_dim = kd.value_or(0);
  L.value_head_dim = vd.value_or(0);
  L.key_heads = kh.value_or(L.heads);
  L.conv_kernel = conv.value_or(0);
  L.state = state.value_or(Precision::fp32);
  L.state_stated = state.has_value();
}

// model.attention: the variant and, for "mla", its five dimensions (required with "mla", refused
// with any other type), plus the sliding window.
void read_attention(const Field<ModelSpec>& f, Reader& r, ModelSpec& m) {
  const json* av = r.get(f.key, false);
  if (!av) return;
  Reader ar(*av, r.child(f.key), r.error_slot());
  const auto type = ar.enumeration<AttentionType>("type", true);
  if (type) m.attention = *type;
  const bool mla = type == AttentionType::mla;
  MlaSpec& a = m.mla;
  const auto q_rank = ar.integer("q_lora_rank", false, 0, 1'000'000);
  const auto kv_rank = ar.integer("kv_lora_rank", false, 1, 1'000'000);
  const auto nope = ar.integer("qk_nope_head_dim", false, 1, 100'000);
  const auto rope = ar.integer("qk_rope_head_dim", false, 0, 100'000);
  const auto v_dim = ar.integer("v_head_dim", false, 1, 100'000);
  const char* const mla_key = "model.mla_key_without_mla";
  const char* const latent = "multi-head latent attention; it needs type \"mla\"";
  key_group(ar, {{"q_lora_rank", q_rank.has_value()}}, false, mla, "", mla_key, latent);
  key_group(ar,
            {{"kv_lora_rank", kv_rank.has_value()},
             {"qk_nope_head_dim", nope.has_value()},
             {"qk_rope_head_dim", rope.has_value()},
             {"v_head_dim", v_dim.has_value()}},
            mla, mla, "attention type \"mla\"", mla_key, latent);
  a.q_lora_rank = q_rank.value_or(0);
  a.kv_lora_rank = kv_rank.value_or(1);
  a.qk_nope_head_dim = nope.value_or(1);
  a.qk_rope_head_dim = rope.value_or(0);
  a.v_head_dim = v_dim.value_or(1);
  m.window = ar.integer("window", false, 1, 1'000'000'000).value_or(0);
  m.global_every = ar.integer("global_every", false, 0, 100'000).value_or(0);
  m.output_gate = ar.boolean("output_gate", false).value_or(false);
  key_group(ar, {{"output_gate", m.output_gate}}, false, !mla, "", "model.output_gate_with_mla",
            "a gate on MHA, GQA or MQA heads, not modelled over \"mla\"");
  // DeepSeek Sparse Attention's three keys come together, over MLA (model/spec.h SparseAttentionSpec).
  SparseAttentionSpec& sp = m.sparse;
  const auto ih = ar.integer("index_heads", false, 1, 100'000);
  const auto id = ar.integer("index_head_dim", false, 1, 100'000);
  const auto ik = ar.integer("index_top_k", false, 1, 1'000'000'000);
  key_group(
      ar,
      {{"index_heads", ih.has_value()}, {"index_head_dim", id.has_value()}, {"index_top_k", ik.has_value()}},
      ih || id || ik, mla, "sparse attention (index_heads, index_head_dim, index_top_k)",
      "model.sparse_attention_without_mla",
      "DeepSeek Sparse Attention's indexer, which reads the queries' latent: it needs type \"mla\"");
  sp.index_heads = ih.value_or(0);
  sp.index_head_dim = id.value_or(0);
  sp.top_k = ik.value_or(0);
  read_linear_attention(ar, m);
  ar.finish();
}

std::optional<ojson> write_attention(const Field<ModelSpec>&, const ModelSpec& m) {
  ojson att = {{"type", std::string(name_of(m.attention))}};
  if (m.attention == AttentionType::mla) {
    att["q_lora_rank"] = m.mla.q_lora_rank;
    att["kv_lora_rank"] = m.mla.kv_lora_rank;
    att["qk_nope_head_dim"] = m.mla.qk_nope_head_dim;
    att["qk_rope_head_dim"] = m.mla.qk_rope_head_dim;
    att["v_head_dim"] = m.mla.v_head_dim;
  }
  if (m.window > 0) {
    att["window"] = m.window;
    att["global_every"] = m.global_every;
  }
  if (m.output_gate) att["output_gate"] = true;
  if (m.sparse.top_k > 0) {
    att["index_heads"] = m.sparse.index_heads;
    att["index_head_dim"] = m.sparse.index_head_dim;
    att["index_top_k"] = m.sparse.top_k;
  }
  if (m.linear.heads > 0) {
    att["global_every"] = m.global_every;
    att["linear_heads"] = m.linear.heads;
    att["linear_key_heads"] = m.linear.key_heads;
    att["linear_key_head_dim"] = m.linear.key_head_dim;
    att["linear_value_head_dim"] = m.linear.value_head_dim;
    att["linear_conv_kernel"] = m.linear.conv_kernel;
    att["linear_state_precision"] = std::string(name_of(m.linear.state));
  }
  return att;
}

// model.layer_pattern: the sublayers' characters read into layer kinds (model/spec.h).
void read_pattern(const Field<ModelSpec>& f, Reader& r, ModelSpec& m) {
  const auto pattern = r.string(f.key, false);
  if (!pattern) return;
  const std::int64_t bad = read_layer_pattern(*pattern, m.layer_kinds);
  if (bad >= 0)
    r.fail("model.layer_pattern_invalid", r.child(f.key),
           "layer_pattern takes '*', 'M', '-', 'E' (docs/contract.md): not character " +
               std::to_string(bad + 1));
}

std::optional<ojson> write_pattern(const Field<ModelSpec>&, const ModelSpec& m) {
  if (m.layer_kinds.empty()) return std::nullopt;
  return write_layer_pattern(m.layer_kinds);
}

// A model trait whose default follows the norm (model/spec.h default_traits): kDefaultByNormKeyword
// carries it (docs/contract.md's row says it; tests/unit/contract_doc_test.cpp checks the two agree).
template <class Get>
void by_norm(Field<ModelSpec>& f, Get get) {
  ojson by = ojson::object();
  for (NormType norm : enum_values<NormType>()) by[std::string(name_of(norm))] = get(default_traits(norm));
  f.set(kDefaultByNormKeyword, by);
}

Fields<MoeSpec> make_moe() {
  Fields<MoeSpec> t;
  t.integer("experts", 1, 1'000'000, AT(experts)).req();
  t.integer("top_k", 1, 1'000'000, AT(top_k)).req();
  t.integer("expert_ffn_hidden", 1, 100'000'000, AT(expert_ffn_hidden)).req();
  t.integer("shared_experts", 0, 1'000'000, AT(shared_experts)).def();
  t.integer("shared_expert_ffn_hidden", 1, 100'000'000, AT(shared_expert_ffn_hidden));
  t.integer("latent_size", 1, 1'000'000, AT(latent_size)).written(Write::nonzero);
  t.integer("first_dense_layers", 0, 100'000, AT(first_dense_layers)).def();
  t.integer("layer_freq", 1, 100'000, AT(layer_freq)).def();
  t.number("capacity_factor", 1e-3, 1e3, AT(capacity_factor)).written(Write::nonzero);
  t.choice<RouterBalance>("router_balance", AT(router_balance)).def();
  t.number("imbalance", 1.0, 1e3, AT(imbalance));
  t.notes();
  t.after = [](Reader& r, MoeSpec& moe) {
    if (!r.has("shared_expert_ffn_hidden")) moe.shared_expert_ffn_hidden = moe.expert_ffn_hidden;
    if (!r.has("imbalance"))
      moe.imbalance = moe.router_balance == RouterBalance::balanced ? 1.0 : kMeasuredImbalance;
    else if (moe.router_balance == RouterBalance::balanced && moe.imbalance != 1.0)
      r.fail("model.moe_imbalance_with_balanced", r.child("imbalance"),
             "router_balance \"balanced\" means every expert rank gets the same tokens (imbalance 1); use "
             "\"measured\" with an imbalance");
  };
  return t;
}

Fields<ModelSpec> make_model() {
  static const Fields<MoeSpec> moe = make_moe();
  Fields<ModelSpec> t;
  t.text("name", AT(name)).written(Write::nonzero);
  t.text("source", AT(source)).written(Write::nonzero);
  t.notes();
  t.integer("layers", 1, 100'000, AT(layers)).req();
  t.custom("layer_pattern", text().json(), read_pattern, write_pattern);
  t.integer("hidden", 1, 1'000'000, AT(hidden)).req();
  t.integer("heads", 1, 100'000, AT(heads)).req();
  t.integer("kv_heads", 1, 100'000, AT(kv_heads));
  t.integer("head_dim", 1, 100'000, AT(head_dim));
  t.integer("ffn_hidden", 1, 100'000'000, AT(ffn_hidden)).req();
  t.integer("vocab", 1, 100'000'000, AT(vocab)).req();
  t.choice<FfnType>("ffn_type", AT(ffn_type)).def();
  t.choice<NormType>("norm", AT(norm)).def();
  t.choice<BlockKind>("block", AT(block)).def();
  by_norm(t.boolean("bias", AT(bias)), [](const ModelTraits& m) { return ojson(m.bias); });
  by_norm(t.boolean("dropout", AT(dropout)), [](const ModelTraits& m) { return ojson(m.dropout); });
  by_norm(t.choice<PositionKind>("position", AT(position)),
          [](const ModelTraits& m) { return name(m.position); });
  t.custom("attention",
           object({{"type", choice<AttentionType>()},
                   {"q_lora_rank", integer(0, 1'000'000).def(0)},
                   {"kv_lora_rank", integer(1, 1'000'000)},
                   {"qk_nope_head_dim", integer(1, 100'000)},
                   {"qk_rope_head_dim", integer(0, 100'000)},
                   {"v_head_dim", integer(1, 100'000)},
                   {"window", integer(1, 1'000'000'000)},
                   {"global_every", integer(0, 100'000).def(0)},
                   {"output_gate", boolean().def(false)},
                   {"index_heads", integer(1, 100'000)},
                   {"index_head_dim", integer(1, 100'000)},
                   {"index_top_k", integer(1, 1'000'000'000)},
                   {"linear_heads", integer(1, 100'000)},
                   {"linear_key_heads", integer(1, 100'000)},
                   {"linear_key_head_dim", integer(1, 100'000)},
                   {"linear_value_head_dim", integer(1, 100'000)},
                   {"linear_conv_kernel", integer(0, 1'000).def(0)},
                   {"linear_state_precision", choice(kStatePrecisions).def("fp32")}},
                  {"type"})
               .json(),
           read_attention, write_attention);
  t.opt_member(
      "moe", moe, +[](ModelSpec& m) -> std::optional<MoeSpec>& { return m.moe; });
  t.boolean("tied_embeddings", AT(tied_embeddings)).def();
  t.integer("max_seq_len", 1, 1'000'000'000, AT(max_seq_len)).written(Write::nonzero);
  t.integer("mtp_layers", 0, 64, AT(mtp_layers)).written(Write::nonzero).def();
  t.opt_choice("checkpoint_precision", kInferencePrecisions, AT(checkpoint_precision));
  t.boolean("checkpoint_block_scaled", AT(checkpoint_block_scaled)).written(Write::nonzero).def();
  t.boolean("checkpoint_experts_only", AT(checkpoint_experts_only)).written(Write::nonzero).def();
  // The traits that follow the norm where they are not stated.
  t.after = [](Reader& r, ModelSpec& m) {
    if (m.checkpoint_block_scaled && m.checkpoint_precision != Precision::fp8)
      r.fail("model.checkpoint_block_scaled_without_fp8", r.child("checkpoint_block_scaled"),
             "checkpoint_block_scaled describes fp8 weights with block scales; checkpoint_precision is " +
                 std::string(m.checkpoint_precision ? to_string(*m.checkpoint_precision) : "not stated"));
    if (m.checkpoint_experts_only && !(m.checkpoint_precision && m.moe))
      r.fail(
          "model.checkpoint_experts_only_invalid", r.child("checkpoint_experts_only"),
          std::string(
              "checkpoint_experts_only says the checkpoint's precision covers the routed experts alone: ") +
              (m.moe ? "it needs checkpoint_precision" : "the model has no experts (moe)"));
    const ModelTraits traits = default_traits(m.norm);
    if (!r.has("bias")) m.bias = traits.bias;
    if (!r.has("dropout")) m.dropout = traits.dropout;
    if (!r.has("position")) m.position = traits.position;
  };
  return t;
}

// ---- Calibration -------------------------------------------------------------------------------

// calibration.factors: one multiplier per rate (EnumNames<CalibrationFactor>).
void read_factors(const Field<Calibration>& f, Reader& r, Calibration& c) {
  const json* fv = r.get(f.key, true);
  if (!fv) return;
  Reader fr(*fv, r.child(f.key), r.error_slot());
  for (const auto& [k, name] : EnumNames<CalibrationFactor>::table)
    if (auto x = fr.number(std::string(name), false, 0.01, 100)) c.factors[static_cast<std::size_t>(k)] = *x;
  fr.finish();
}

std::optional<ojson> write_factors(const Field<Calibration>&, const Calibration& c) {
  ojson j = ojson::object();
  for (const auto& [k, name] : EnumNames<CalibrationFactor>::table)
    j[std::string(name)] = c.factors[static_cast<std::size_t>(k)];
  return j;
}

Fields<Calibration> make_band() {
  Fields<Calibration> t;
  t.number("low", 1e-3, 1, AT(band_low)).req();
  t.number("high", 1, 1e3, AT(band_high)).req();
  return t;
}

Fields<Calibration> make_calibration_block() {
  static const Fields<Calibration> band = make_band();
  Fields<Calibration> t;
  t.text("device", AT(device)).req();
  t.text("system", AT(system));
  t.text("software", AT(software));
  t.custom("factors", calibration_factors_node().json(), read_factors, write_factors).req();
  t.integer("measurements", 0, kMaxCount, AT(measurements));
  t.group("band", band)
      .writer([](const Field<Calibration>& self, const Calibration& c) -> std::optional<ojson> {
        if (!(c.band_low > 0 && c.band_high > 0)) return std::nullopt;
        return write_fields(*static_cast<const Fields<Calibration>*>(self.sub), c);
      });
  t.notes();
  return t;
}

// ---- Disaggregated serving pools ---------------------------------------------------------------

Fields<ServingPool> make_pool() {
  Fields<ServingPool> t;
  t.integer("tp", 1, kMaxDevices, AT(tp)).def();
  t.integer("pp", 1, kMaxDevices, AT(pp)).def();
  t.integer("replicas", 1, kMaxDevices, AT(replicas)).def();
  t.integer("ep", 1, kMaxDevices, AT(ep)).written(Write::nonzero);
  t.opt_integer("max_batch", 1, kMaxRequests, AT(max_batch));
  t.opt_integer("max_num_tokens", 1, kMaxServingLength, AT(max_num_tokens));
  t.optional_number("gpu_memory_utilization", 0.01, 1, AT(gpu_memory_utilization));
  t.optional_number("free_gpu_memory_fraction", 0.01, 1, AT(free_gpu_memory_fraction));
  t.opt_boolean("speculative", AT(speculative));
  t.opt_integer("expert_slots", 1, 1'000'000, AT(expert_slots));
  t.after = [](Reader& r, ServingPool& pool) {
    if (pool.gpu_memory_utilization && pool.free_gpu_memory_fraction)
      r.fail("serving.memory_share_twice", r.child("free_gpu_memory_fraction"),
             "give the pool's KV memory as gpu_memory_utilization or free_gpu_memory_fraction, not both");
  };
  return t;
}

// ---- Serving objectives ------------------------------------------------------------------------

Fields<ServingSlo> make_slo() {
  Fields<ServingSlo> t;
  t.number("ttft_s", 1e-6, 1e6, AT(ttft_s)).written(Write::nonzero);
  t.number("tpot_s", 1e-6, 1e6, AT(tpot_s)).written(Write::nonzero);
  t.number("itl_s", 1e-6, 1e6, AT(itl_s)).written(Write::nonzero);
  t.number("percentile", 1, 100, AT(percentile)).def();
  return t;
}

// ---- Training ----------------------------------------------------------------------------------

// training.batch_ramp: [[tokens, global_batch], ...].
void read_ramp(const Field<TrainingWorkload>& f, Reader& r, TrainingWorkload& w) {
  w.batch_ramp = r.list<RampStep>(
      f.key, false,
      [&](const json& v, const std::string& name, const std::string& at) -> std::optional<RampStep> {
        if (!v.is_array() || v.size() != 2) {
          r.fail("scenario.wrong_type", at, "'" + name + "' must be [tokens, global_batch]");
          return std::nullopt;
        }
        auto tokens = r.number_value(v[0], name + "[0]", at + "/0", 1, 1e18);
        if (!tokens) return std::nullopt;
        auto batch = r.integer_value(v[1], name + "[1]", at + "/1", 1, kMaxCount);
        if (!batch) return std::nullopt;
        return RampStep{*tokens, *batch};
      });
}

std::optional<ojson> write_ramp(const Field<TrainingWorkload>&, const TrainingWorkload& w) {
  if (w.batch_ramp.empty()) return std::nullopt;
  ojson ramp = ojson::array();
  for (const RampStep& r : w.batch_ramp) ramp.push_back({r.tokens, r.global_batch});
  return ramp;
}

// A stage's layout keys (training.stages[i].parallel as an object).
Fields<TrainingStage> make_stage_layout() {
  Fields<TrainingStage> t;
  t.opt_integer("tp", 1, kMaxDevices, AT(tp));
  t.opt_integer("pp", 1, kMaxDevices, AT(pp));
  t.opt_integer("cp", 1, kMaxDevices, AT(cp));
  t.opt_integer("dp", 1, kMaxDevices, AT(dp));
  t.opt_integer("micro_batch", 1, kMaxCount, AT(micro_batch));
  t.opt_integer("interleave", 1, 100'000, AT(interleave));
  t.opt_choice<Recompute>("recompute", AT(recompute));
  return t;
}

const Fields<TrainingStage>& stage_layout_fields() { return once<TrainingStage, make_stage_layout>(); }

// A stage's parallel: layout keys or "auto".
void read_stage_layout(const Field<TrainingStage>& f, Reader& sr, TrainingStage& st) {
  const json* pv = sr.get(f.key, false);
  if (!pv) return;
  if (pv->is_string()) {
    if (pv->get<std::string>() != "auto")
      return sr.fail("scenario.invalid_value", sr.child(f.key),
                     "a stage's 'parallel' must be an object of layout keys or \"auto\" (the layout search "
                     "picks the stage's fastest layout that fits)");
    st.auto_layout = true;
    return;
  }
  Reader pr(*pv, sr.child(f.key), sr.error_slot());
  read_fields(stage_layout_fields(), pr, st);
  pr.finish();
}

std::optional<ojson> write_stage_layout(const Field<TrainingStage>&, const TrainingStage& st) {
  if (st.auto_layout) return "auto";
  ojson p = write_fields(stage_layout_fields(), st);
  if (p.empty()) return std::nullopt;
  return p;
}

Fields<TrainingStage> make_stage() {
  Fields<TrainingStage> t;
  t.number("tokens", 1, 1e18, AT(tokens)).req();
  t.integer("seq_len", 1, 100'000'000, AT(seq_len)).written(Write::nonzero);
  t.integer("global_batch", 1, kMaxCount, AT(global_batch)).written(Write::nonzero);
  const Node automatic = node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                             .desc(
                                 "The layout search picks the stage's fastest layout that fits on its own "
                                 "sequences and batch (run.stages[i].parallel says which).");
  const Node keys = schema_of(stage_layout_fields())
                        .title("Stage layout keys")
                        .desc(
                            "Layout keys changed for this stage (the others are the scenario's, or the "
                            "layout parallel \"auto\" chose).");
  t.custom("parallel", one_of({keys, automatic}).json(), read_stage_layout, write_stage_layout);
  return t;
}

const Fields<TrainingStage>& stage_fields() { return once<TrainingStage, make_stage>(); }

// training.stages: at most kMaxTrainingStages.
void read_stages(const Field<TrainingWorkload>& f, Reader& r, TrainingWorkload& w) {
  w.stages = read_object_list(r, f.key, stage_fields());
  if (w.stages.size() > kMaxTrainingStages)
    r.fail("scenario.out_of_range", r.child(f.key),
           "'stages' has " + std::to_string(w.stages.size()) + " stages; at most " +
               std::to_string(kMaxTrainingStages));
}

std::optional<ojson> write_stages(const Field<TrainingWorkload>&, const TrainingWorkload& w) {
  return write_object_list(w.stages, stage_fields());
}

Fields<TrainingWorkload> make_training() {
  Fields<TrainingWorkload> t;
  t.integer("global_batch", 1, kMaxCount, AT(global_batch)).req();
  t.integer("seq_len", 1, 100'000'000, AT(seq_len)).req();
  t.choice("precision", kTrainingPrecisions, AT(precision)).def();
  t.number("train_tokens", 1, 1e18, AT(train_tokens)).written(Write::nonzero);
  t.opt_choice<AttentionKernel>("attention", AT(attention));
  t.opt_boolean("overlap_grad_reduce", AT(overlap_grad_reduce));
  t.opt_boolean("tp_comm_overlap", AT(tp_comm_overlap));
  t.opt_integer("mtp_layers", 0, 64, AT(mtp_layers));
  t.custom(
      "batch_ramp",
      array_of(pair_of(number(1, 1e18).unit("tokens"), integer(1, kMaxCount).unit("sequences")), 1).json(),
      read_ramp, write_ramp);
  t.number("checkpoint_interval_s", 1e-3, 1e9, AT(checkpoint_interval_s)).written(Write::nonzero);
  t.custom("stages",
           array_of(schema_of(stage_fields()).title("Training stage"), 1, kMaxTrainingStages).json(),
           read_stages, write_stages);
  return t;
}

// ---- Speculative decoding ----------------------------------------------------------------------

// Whether the draft is an MTP head (absent or "mtp").
bool mtp_draft(Reader& r) {
  const json* dv = r.get("draft", false);
  return !dv || (dv->is_string() && dv->get<std::string>() == "mtp");
}

// draft: "mtp", a model preset id or an inline model (its vocabulary checked by the inference reader).
void read_draft(const Field<Speculative>& f, Reader& r, Speculative& sp) {
  if (mtp_draft(r)) return;
  const json& dv = *r.get(f.key, false);
  const std::string at = r.child(f.key);
  Result<ModelSpec> m = dv.is_string() ? model_preset(dv.get<std::string>(), at) : read_model(dv, at);
  if (!m) {
    if (r.ok()) r.error_slot() = m.error();
  } else {
    sp.draft = *m;
  }
}

Fields<Speculative> make_speculative() {
  Fields<Speculative> t;
  t.integer("draft_tokens", 1, 64, AT(draft_tokens)).req();
  // An MTP head's measured acceptance is DeepSeek-V3's (arXiv 2412.19437 Sec. 5.4.3: 85-90% for the
  // second token); a draft model's depends on the pair, so the scenario states it.
  t.number("acceptance_rate", 0, 1, AT(acceptance_rate)).def(0.85).read = [](const Field<Speculative>& self,
                                                                             Reader& r, Speculative& sp) {
    if (auto x = r.number(self.key, !mtp_draft(r), self.lo, self.hi)) sp.acceptance_rate = *x;
  };
  // Absent: the engine's default for the draft (kMtpReuseDecay for mtp, 1 for a draft model).
  t.optional_number("acceptance_decay", 0, 1, AT(acceptance_decay));
  t.custom("draft",
           one_of({node({{"type", "string"}, {"const", "mtp"}, {"examples", {"mtp"}}}), preset_id("models"),
                   ref("model")})
               .json(),
           read_draft,
           [](const Field<Speculative>&, const Speculative& sp) -> std::optional<ojson> {
             return sp.draft ? write_fields(model_fields(), *sp.draft) : ojson("mtp");
           })
      .def("mtp");
  return t;
}

// ---- Economics ---------------------------------------------------------------------------------

// The capital terms: written only in the capital form (no rental price).
std::optional<ojson> capital_term(const Field<Economics>& f, const Economics& e) {
  if (e.usd_per_gpu_hour > 0) return std::nullopt;
  const double x = f.at<double>(e);
  if (f.key == "gpu_price_usd" && !(x > 0)) return std::nullopt;
  return x;
}

Fields<Economics> make_economics() {
  Fields<Economics> t;
  t.ignored("name");
  t.ignored("source");
  t.notes();
  t.number("usd_per_gpu_hour", 1e-6, 1e6, AT(usd_per_gpu_hour)).written(Write::nonzero);
  t.number("gpu_price_usd", 1, 1e9, AT(gpu_price_usd)).writer(capital_term);
  t.number("amortisation_years", 0.01, 100, AT(amortisation_years)).writer(capital_term).def();
  t.number("utilisation", 1e-3, 1, AT(utilisation)).writer(capital_term).def();
  t.number("usd_per_kwh", 1e-6, 100, AT(usd_per_kwh)).def();
  t.number("pue", 1, 10, AT(pue)).def();
  t.number("grid_kg_co2_per_kwh", 0, 10, AT(grid_kg_co2_per_kwh)).written(Write::nonzero);
  return t;
}

// ---- Serving: the request stream ---------------------------------------------------------------

// A request length: a whole number, {"mean", "max" (, "min")} or [[length, weight], ...].
}  // namespace

std::optional<LengthDist> read_length(Reader& r, const std::string& key, std::int64_t fallback) {
  const json* v = r.get(key, false);
  LengthDist out;
  if (!v) {
    out.points = {{fallback, 1.0}};
    out.from_number = true;  // a default is a whole number
    return out;
  }
  const std::string at = r.child(key);
  if (v->is_number()) {
    auto n = r.integer_value(*v, key, at, 1, kMaxServingLength);
    if (!n) return std::nullopt;
    out.points = {{*n, 1.0}};
    out.from_number = true;
    return out;
  }
  if (v->is_object() && v->contains("uniform")) {
    // {"uniform": [min, max]}: every whole length in [min, max] equally likely.
    std::optional<Error> err;
    Reader lr(*v, at, err);
    const json* u = lr.get("uniform", true);
    lr.finish();
    if (err) {
      r.fail(err->code, err->path, err->message);
      return std::nullopt;
    }
    const std::string up = at + "/uniform";
    if (!u->is_array() || u->size() != 2) {
      r.fail("scenario.wrong_type", up, "'uniform' must be [min, max]");
      return std::nullopt;
    }
    auto lo = r.integer_value((*u)[0], "uniform[0]", up + "/0", 1, kMaxServingLength);
    auto hi = r.integer_value((*u)[1], "uniform[1]", up + "/1", 1, kMaxServingLength);
    if (!lo || !hi) return std::nullopt;
    if (*lo > *hi) {
      r.fail("serving.uniform_reversed", up,
             "'" + key + "' uniform range needs min <= max (got [" + std::to_string(*lo) + ", " +
                 std::to_string(*hi) + "])");
      return std::nullopt;
    }
    out.uniform = true;
    out.min = *lo;
    out.max = *hi;
    out.mean = 0.5 * static_cast<double>(*lo + *hi);
    return out;
  }
  if (v->is_object()) {
    std::optional<Error> err;
    Reader lr(*v, at, err);
    auto mean = lr.number("mean", true, 1, static_cast<double>(kMaxServingLength));
    auto max = lr.integer("max", true, 1, kMaxServingLength);
    auto min = lr.integer("min", false, 1, kMaxServingLength);
    lr.finish();
    if (err) {
      r.fail(err->code, err->path, err->message);
      return std::nullopt;
    }
    out.shaped = true;
    out.mean = *mean;
    out.max = *max;
    out.min = min.value_or(1);
    if (out.mean < static_cast<double>(out.min) || out.mean > static_cast<double>(out.max)) {
      r.fail("serving.length_mean_out_of_range", at + "/mean",
             "'" + key + "' needs min <= mean <= max (got min " + std::to_string(out.min) + ", mean " +
                 plain_number(out.mean) + ", max " + std::to_string(out.max) + ")");
      return std::nullopt;
    }
    // A mean at either end leaves the truncated exponential no room: every length is that end
    // (its limit as the rate goes to +-infinity), stated as one exact point, not a limit to draw
    // below (RL reads a whole number as the longest response).
    for (const std::int64_t end : {out.max, out.min})
      if (out.mean == static_cast<double>(end)) {
        LengthDist exact;
        exact.points = {{end, 1.0}};
        return exact;
      }
    out.rate = truncated_exponential_rate(out.mean, out.min, out.max);
    return out;
  }
  if (v->is_array()) {
    out.points = r.list<std::pair<std::int64_t, double>>(
        key, false,
        [&](const json& e, const std::string& name,
            const std::string& p) -> std::optional<std::pair<std::int64_t, double>> {
          if (!e.is_array() || e.size() != 2) {
            r.fail("scenario.wrong_type", p, "'" + name + "' must be a [length, weight] pair");
            return std::nullopt;
          }
          auto len = r.integer_value(e[0], name + "[0]", p + "/0", 1, kMaxServingLength);
          auto w = r.number_value(e[1], name + "[1]", p + "/1", 0, 1e12);
          if (!len || !w) return std::nullopt;
          return std::pair{*len, *w};
        });
    if (out.points.empty()) return std::nullopt;
    double total = 0;
    for (const auto& pt : out.points) total += pt.second;
    if (!(total > 0)) {
      r.fail("serving.zero_weights", at, "the weights of '" + key + "' add up to 0");
      return std::nullopt;
    }
    return out;
  }
  r.fail("scenario.wrong_type", at,
         "'" + key + "' must be a length, {\"mean\", \"max\"}, {\"uniform\": [min, max]} or a list of " +
             "[length, weight], got " + io::type_name(*v));
  return std::nullopt;
}

LengthDist fixed_length(std::int64_t n) {
  LengthDist out;
  out.points = {{n, 1.0}};
  out.from_number = true;
  return out;
}

ojson length_json(const LengthDist& l) {
  if (l.shaped) return {{"mean", l.mean}, {"max", l.max}, {"min", l.min}};
  if (l.uniform) return {{"uniform", {l.min, l.max}}};
  if (l.points.size() == 1 && l.from_number) return l.points.front().first;
  ojson a = ojson::array();
  for (const auto& [len, w] : l.points) a.push_back({len, w});
  return a;
}

Node length_schema() {
  return one_of(
      {integer(1, kMaxServingLength).desc("Every request the same length.").unit("tokens"),
       object({{"mean", number(1, static_cast<double>(kMaxServingLength))},
               {"max", integer(1, kMaxServingLength)},
               {"min", integer(1, kMaxServingLength).def(1)}},
              {"mean", "max"})
           .title("Length distribution")
           .desc("A truncated exponential on [min, max] with this mean (min <= mean <= max; a mean at "
                 "either end makes every length that end): long-tailed like chat traces when the "
                 "mean is below the midpoint."),
       object({{"uniform", pair_of(integer(1, kMaxServingLength), integer(1, kMaxServingLength))}},
              {"uniform"})
           .title("Uniform lengths")
           .desc("[min, max] (min <= max): every whole length in the range equally likely, as "
                 "vLLM's benchmark_serving random dataset draws them with --random-range-ratio."),
       array_of(pair_of(integer(1, kMaxServingLength), number(0, 1e12)), 1)
           .desc("[length, weight] points (weights need not add up to 1).")});
}

namespace {

// requests_per_s: a rate, or unbounded ("inf" or the literal Infinity, which Python's json module
// writes and parse_scenario reads as kInfinityNumber).
void read_rate(const Field<ServingSpec>& f, Reader& r, ServingSpec& sv) {
  const json* rate = r.get(f.key, sv.arrival == Arrival::poisson);
  if (!rate) return;
  if ((rate->is_string() && rate->get<std::string>() == "inf") ||
      (rate->is_number() && rate->get<double>() == kInfinityNumber))
    sv.requests_per_s = std::numeric_limits<double>::infinity();
  else if (!rate->is_number())
    r.fail("scenario.wrong_type", r.child(f.key),
           "'" + f.key + "' must be a number (requests per second) or \"inf\", got " + as_written(*rate));
  else if (auto x = r.number_value(*rate, f.key, r.child(f.key), 1e-6, 1e6))
    sv.requests_per_s = *x;
}

// concurrency (closed loops), and neither key for the other kind of stream.
void read_concurrency(const Field<ServingSpec>& f, Reader& r, ServingSpec& sv) {
  const bool poisson = sv.arrival == Arrival::poisson, closed = sv.arrival == Arrival::closed;
  if (auto c = r.integer(f.key, closed, 1, kMaxRequests)) sv.concurrency = *c;
  // Each key with the arrival it belongs to (docs/contract.md, inference.serving).
  for (const auto& [key, own] :
       {std::pair{"requests_per_s", Arrival::poisson}, std::pair{"concurrency", Arrival::closed}})
    if (r.ok() && r.has(key) && (own == Arrival::poisson ? !poisson : !closed))
      r.fail("serving.key_for_other_arrival", r.child(key),
             std::string("'") + key + "' applies to arrival \"" + std::string(name_of(own)) +
                 "\" only; this stream is \"" + std::string(name_of(sv.arrival)) + "\"");
}

// input_len, output_len: absent keeps the inference block's length (set before reading).
template <LengthDist ServingSpec::*member>
void read_stream_length(const Field<ServingSpec>& f, Reader& r, ServingSpec& sv) {
  if (!r.get(f.key, false)) return;
  if (auto len = read_length(r, f.key, 0)) sv.*member = *len;
}

// slo: at least one objective.
void read_slo(const Field<ServingSpec>& f, Reader& r, ServingSpec& sv) {
  const json* sl = r.get(f.key, false);
  if (!sl) return;
  Reader slr(*sl, r.child(f.key), r.error_slot());
  ServingSlo slo;
  read_fields(slo_fields(), slr, slo);
  slr.finish();
  if (r.ok() && slo.ttft_s == 0 && slo.tpot_s == 0 && slo.itl_s == 0)
    r.fail("serving.slo_without_objective", r.child(f.key),
           "'slo' needs 'ttft_s', 'tpot_s', 'itl_s' or several");
  sv.slo = slo;
}

std::optional<ServingPool> read_pool(Reader& parent, const std::string& key) {
  const json* v = parent.get(key, true);
  if (!v) return std::nullopt;
  Reader r(*v, parent.child(key), parent.error_slot());
  ServingPool pool;
  read_fields(pool_fields(), r, pool);
  r.finish();
  if (!r.ok()) return std::nullopt;
  return pool;
}

// disaggregated: {prefill, decode} (the reader checks their devices against num_devices).
void read_disaggregated(const Field<ServingSpec>& f, Reader& r, ServingSpec& sv) {
  const json* dg = r.get(f.key, false);
  if (!dg) return;
  Reader dr(*dg, r.child(f.key), r.error_slot());
  sv.prefill = read_pool(dr, "prefill");
  sv.decode = read_pool(dr, "decode");
  dr.finish();
}

Fields<ServingSpec> make_serving() {
  Fields<ServingSpec> t;
  t.choice<Arrival>("arrival", AT(arrival)).def();
  t.custom("requests_per_s",
           one_of({number(1e-6, 1e6).unit("requests/s"),
                   node({{"type", "string"}, {"const", "inf"}})
                       .desc("Unbounded: every request at once (the literal Infinity reads the same).")})
               .json(),
           read_rate, [](const Field<ServingSpec>&, const ServingSpec& v) -> std::optional<ojson> {
             if (v.arrival != Arrival::poisson) return std::nullopt;
             return std::isinf(v.requests_per_s) ? ojson("inf") : ojson(v.requests_per_s);
           });
  t.custom("concurrency", integer(1, kMaxRequests).json(), read_concurrency,
           [](const Field<ServingSpec>&, const ServingSpec& v) -> std::optional<ojson> {
             if (v.arrival != Arrival::closed) return std::nullopt;
             return v.concurrency;
           });
  t.integer("num_requests", 1, kMaxRequests, AT(num_requests)).def();
  t.custom("input_len", length_schema().json(), read_stream_length<&ServingSpec::input_len>,
           [](const Field<ServingSpec>&, const ServingSpec& v) -> std::optional<ojson> {
             return length_json(v.input_len);
           });
  t.custom("output_len", length_schema().json(), read_stream_length<&ServingSpec::output_len>,
           [](const Field<ServingSpec>&, const ServingSpec& v) -> std::optional<ojson> {
             return length_json(v.output_len);
           });
  t.integer("shared_prefix_len", 0, kMaxServingLength, AT(shared_prefix_len)).written(Write::nonzero).def();
  t.include(scheduler_fields());
  t.custom(
       "seed", integer(0, 9'007'199'254'740'991).json(),
       [](const Field<ServingSpec>& self, Reader& r, ServingSpec& sv) {
         sv.seed =
             static_cast<std::uint64_t>(r.integer(self.key, false, 0, 9'007'199'254'740'991).value_or(1));
       },
       [](const Field<ServingSpec>&, const ServingSpec& v) -> std::optional<ojson> { return v.seed; })
      .def(1);
  t.opt_member<ServingSlo>("slo", slo_fields(), AT(slo)).title("Service-level objectives").read = read_slo;
  const auto pool = [](const std::string& what) { return schema_of(pool_fields()).title(what + " pool"); };
  t.custom("disaggregated",
           object({{"prefill", pool("Prefill")}, {"decode", pool("Decode")}}, {"prefill", "decode"}).json(),
           read_disaggregated,
           [](const Field<ServingSpec>&, const ServingSpec& v) -> std::optional<ojson> {
             if (!v.prefill || !v.decode) return std::nullopt;
             return ojson{{"prefill", write_fields(pool_fields(), *v.prefill)},
                          {"decode", write_fields(pool_fields(), *v.decode)}};
           })
      .title("Disaggregated prefill and decode");
  return t;
}

// ---- RL ----------------------------------------------------------------------------------------

// Defaults of the rl block where the scenario says nothing: the DAPO recipe's step (Yu et al.
// 2025, arXiv 2503.14476, Sec. 4.1: 512 prompts x 16 responses per step), 1,024-token prompts
// and 4,096-token responses ASSUMED (no recipe states a mean).
constexpr std::int64_t kRlSamplesGrpo = 16, kRlPromptLen = 1024, kRlResponseLen = 4096;

// A model given by preset id or inline (rl.critic, rl.reward_model).
std::optional<ModelSpec> read_model_ref(Reader& r, const std::string& key) {
  const json& v = *r.get(key, false);
  const std::string at = r.child(key);
  Result<ModelSpec> m = v.is_string() ? model_preset(v.get<std::string>(), at) : read_model(v, at);
  if (!m) {
    if (r.ok()) r.error_slot() = m.error();
    return std::nullopt;
  }
  return *m;
}

Node model_ref() { return one_of({preset_id("models"), ref("model")}); }

template <std::optional<ModelSpec> RlWorkload::*member>
std::optional<ojson> write_model_ref(const Field<RlWorkload>&, const RlWorkload& rl) {
  if (!(rl.*member)) return std::nullopt;
  return write_fields(model_fields(), *(rl.*member));
}

template <LengthDist RlWorkload::*member, std::int64_t fallback>
void read_rl_length(const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
  if (auto len = read_length(r, f.key, fallback)) rl.*member = *len;
}

template <LengthDist RlWorkload::*member>
std::optional<ojson> write_rl_length(const Field<RlWorkload>&, const RlWorkload& rl) {
  return length_json(rl.*member);
}

// rollout_devices, train_devices: both with placement split, neither colocated.
void read_pool_devices(const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
  if (f.key == "rollout_devices") {
    rl.rollout_devices = r.integer(f.key, false, 1, kMaxDevices).value_or(0);
    return;
  }
  const bool rollout = rl.rollout_devices > 0;
  const auto train = r.integer(f.key, false, 1, kMaxDevices);
  if (!r.ok()) return;
  if (rl.placement == RlPlacement::split) {
    if (!rollout || !train)
      r.fail("rl.split_needs_devices", r.child(rollout ? "train_devices" : "rollout_devices"),
             "placement \"split\" needs rollout_devices and train_devices (summing to num_devices)");
    else
      rl.train_devices = *train;
  } else if (rollout || train) {
    r.fail("rl.devices_for_colocated", r.child(rollout ? "rollout_devices" : "train_devices"),
           "rollout_devices and train_devices split the devices (placement \"split\"); a colocated job "
           "runs both on all num_devices");
  }
}

std::optional<ojson> write_pool_devices(const Field<RlWorkload>& f, const RlWorkload& rl) {
  if (rl.placement != RlPlacement::split) return std::nullopt;
  return f.key == "rollout_devices" ? rl.rollout_devices : rl.train_devices;
}

Fields<RlWorkload> make_rollout() {
  Fields<RlWorkload> t;
  t.integer("tp", 1, kMaxDevices, AT(rollout.tp)).written(Write::nonzero);
  t.integer("pp", 1, kMaxDevices, AT(rollout.pp)).def();
  t.integer("ep", 1, kMaxDevices, AT(rollout.ep)).written(Write::nonzero);
  t.integer("dp", 1, kMaxDevices, AT(rollout.dp)).written(Write::nonzero);
  t.text("software", AT(rollout.software_id)).def();
  t.choice("precision", kInferencePrecisions, AT(rollout.precision)).def();
  t.integer("max_batch", 1, kMaxRequests, AT(rollout.scheduler.max_batch));
  t.number("gpu_memory_utilization", 0.01, 1, AT(rollout.scheduler.gpu_memory_utilization));
  t.boolean("static_batching", AT(rollout.scheduler.static_batching)).written(Write::nonzero).def();
  t.integer("cuda_graph_max_batch", 0, kMaxRequests, AT(rollout.scheduler.cuda_graph_max_batch))
      .written(Write::nonzero);
  t.opt_boolean("cuda_graphs", AT(rollout.cuda_graphs));
  t.boolean("prefix_caching", AT(rollout.prefix_caching)).def();
  t.opt_member<Speculative>("speculative", speculative_fields(), AT(rollout.speculative))
      .title("Speculative decoding on the rollout engines");
  return t;
}

// rollout: the engine's keys, then its software profile laid over the system's software block
// (max_batch and gpu_memory_utilization, when given, over the profile's).
void read_rollout(const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
  const json* rv = r.get(f.key, false);
  const json empty = json::object();
  Reader rr(rv ? *rv : empty, r.child(f.key), r.error_slot());
  read_fields(*static_cast<const Fields<RlWorkload>*>(f.sub), rr, rl);
  rr.finish();
  const ServingSpec given = rl.rollout.scheduler;
  const std::optional<bool> given_graphs = rl.rollout.cuda_graphs;
  if (r.ok()) {
    const std::string at = r.child(f.key) + "/software";
    auto text = software_preset_json(rl.rollout.software_id, at);
    if (!text) {
      r.error_slot() = text.error();
    } else {
      rl.rollout.software_id =
          optimus::preset_id("software", rl.rollout.software_id);  // its own id, however written
      const json profile = json::parse(text->begin(), text->end());
      auto p = read_software_profile(profile, at, rl.rollout.software, r.error_slot());
      if (p) {
        rl.rollout.scheduler = p->serving;
        rl.rollout.cuda_graphs = p->cuda_graphs;
        rl.rollout.profile_schedules = p->schedules;
      }
    }
  }
  if (rr.has("max_batch")) rl.rollout.scheduler.max_batch = given.max_batch;
  if (rr.has("gpu_memory_utilization"))
    rl.rollout.scheduler.gpu_memory_utilization = given.gpu_memory_utilization;
  if (rr.has("static_batching")) rl.rollout.scheduler.static_batching = given.static_batching;
  if (rr.has("cuda_graph_max_batch")) {
    rl.rollout.scheduler.cuda_graph_max_batch = given.cuda_graph_max_batch;
    rl.rollout.scheduler.keep_stated(false, true);
  }
  if (given_graphs) rl.rollout.cuda_graphs = given_graphs;
}

// An integer of the trainer's layout whose absence the engine reads through a `given` flag (ep: the
// MoE trainer warning; micro_batch: packed micro-batches; zero_stage: the smallest stage that
// fits): read with the flag set, written back only when stated, so a validated scenario reads back
// the same.
template <auto Member, bool RlWorkload::*Given, std::int64_t Lo, std::int64_t Hi>
void given_integer(Fields<RlWorkload>& t, const char* key, const Node& schema) {
  t.custom(
      key, schema.json(),
      [](const Field<RlWorkload>& self, Reader& r, RlWorkload& rl) {
        if (auto x = r.integer(self.key, false, Lo, Hi)) {
          rl.train.*Member = static_cast<std::remove_reference_t<decltype(rl.train.*Member)>>(*x);
          rl.*Given = true;
        }
      },
      [](const Field<RlWorkload>&, const RlWorkload& rl) -> std::optional<ojson> {
        if (!(rl.*Given)) return std::nullopt;
        return rl.train.*Member;
      });
}

Fields<RlWorkload> make_rl_train() {
  Fields<RlWorkload> t;
  t.integer("tp", 1, kMaxDevices, AT(train.tp)).def();
  t.integer("pp", 1, kMaxDevices, AT(train.pp)).def();
  t.integer("cp", 1, kMaxDevices, AT(train.cp)).def();
  t.integer("dp", 1, kMaxDevices, AT(train.dp)).written(Write::nonzero);
  given_integer<&ParallelPlan::ep, &RlWorkload::ep_given, 1, kMaxDevices>(t, "ep",
                                                                          integer(1, kMaxDevices).def(1));
  t.integer("etp", 1, kMaxDevices, AT(train.etp)).def();
  given_integer<&ParallelPlan::micro_batch, &RlWorkload::micro_batch_given, 1, kMaxCount>(
      t, "micro_batch", integer(1, kMaxCount).unit("sequences"));
  t.opt_integer("micro_batch_tokens", 0, kMaxCount, AT(micro_batch_tokens));
  t.choice<RlPadding>("padding", AT(padding)).written(Write::non_default).def(name(RlPadding::removed));
  t.choice<Recompute>("recompute", AT(train.recompute)).def();
  given_integer<&ParallelPlan::zero_stage, &RlWorkload::zero_stage_given, 0, 3>(t, "zero_stage",
                                                                                integer(0, 3));
  t.choice("precision", kTrainingPrecisions, AT(train_precision)).def();
  auto& offload =
      t.choice<RlOffload>("offload", AT(offload)).written(Write::non_default).def(name(RlOffload::none));
  offload.read = [](const Field<RlWorkload>& self, Reader& r, RlWorkload& rl) {
    if (auto i = r.choice(self.key, self.required, self.names)) {
      rl.offload = static_cast<RlOffload>(self.codes[*i]);
      rl.offload_given = true;
    }
  };
  return t;
}

const Fields<RlWorkload>& rl_train_fields() { return once<RlWorkload, make_rl_train>(); }

// train: the trainer's layout keys (dp absent: what the others leave) or "auto".
void read_rl_train(const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
  const json* tv = r.get(f.key, false);
  rl.train_given = tv != nullptr;
  if (tv && tv->is_string()) {
    if (tv->get<std::string>() == "auto")
      rl.train_auto = true;
    else
      r.fail("scenario.invalid_value", r.child(f.key),
             "'train' must be an object of layout keys or \"auto\" (the layout search picks the trainer's)");
    return;
  }
  const json empty = json::object();
  Reader tr(tv ? *tv : empty, r.child(f.key), r.error_slot());
  rl.train.dp = 0;
  read_fields(rl_train_fields(), tr, rl);
  tr.finish();
  rl.train.sequence_parallel = rl.train.tp > 1;
}

Fields<RlWorkload> make_async() {
  Fields<RlWorkload> t;
  t.integer("staleness", 0, 1000, AT(staleness)).req();
  t.boolean("partial_rollout", AT(partial_rollout)).written(Write::nonzero).def();
  return t;
}

// roles as an object: the devices of each role (0: split in proportion to the role's work).
Fields<RlWorkload> make_role_devices() {
  Fields<RlWorkload> t;
  t.integer("actor", 1, kMaxDevices, AT(role_devices.actor)).written(Write::nonzero);
  t.integer("critic", 1, kMaxDevices, AT(role_devices.critic)).written(Write::nonzero);
  t.integer("reference", 1, kMaxDevices, AT(role_devices.reference)).written(Write::nonzero);
  t.integer("reward", 1, kMaxDevices, AT(role_devices.reward)).written(Write::nonzero);
  return t;
}

const Fields<RlWorkload>& role_devices_fields() { return once<RlWorkload, make_role_devices>(); }

// roles: "shared" | "separate", or an object of per-role device counts (separate).
void read_rl_roles(const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
  const json* rv = r.get(f.key, false);
  if (!rv || !rv->is_object()) {
    rl.roles = r.enumeration<RlRoles>(f.key, false).value_or(rl.roles);
    return;
  }
  rl.roles = RlRoles::separate;
  Reader rr(*rv, r.child(f.key), r.error_slot());
  read_fields(role_devices_fields(), rr, rl);
  rr.finish();
}

std::optional<ojson> write_rl_roles(const Field<RlWorkload>&, const RlWorkload& rl) {
  if (rl.roles != RlRoles::separate) return std::nullopt;
  const ojson counts = write_fields(role_devices_fields(), rl);
  return counts.empty() ? ojson("separate") : counts;
}

Node rl_roles_schema() {
  return one_of(
      {choice<RlRoles>().desc(
           "shared: every model on the whole training pool, one after another; separate: each on "
           "devices of its own, at once, split in proportion to its work."),
       schema_of(role_devices_fields())
           .title("Devices per role")
           .desc("separate, with the devices of each role (absent ones share the rest in proportion "
                 "to their work); they make the training pool.")});
}

void add_rl_models(Fields<RlWorkload>& t) {
  t.custom(
      "critic", model_ref().json(),
      [](const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
        if (!r.get(f.key, false)) return;
        if (rl.algorithm != RlAlgorithm::ppo && r.ok())
          r.fail("rl.critic_without_ppo", r.child(f.key),
                 "'critic' is PPO's value model; algorithm is \"grpo\", which has none");
        else
          rl.critic = read_model_ref(r, f.key);
      },
      write_model_ref<&RlWorkload::critic>);
  t.integer("prompts_per_step", 1, kMaxRequests, AT(prompts_per_step)).def();
  t.integer("samples_per_prompt", 1, kMaxRequests, AT(samples_per_prompt)).read =
      [](const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
        const bool ppo = rl.algorithm == RlAlgorithm::ppo;
        rl.samples_per_prompt = r.integer(f.key, false, 1, kMaxRequests).value_or(ppo ? 1 : kRlSamplesGrpo);
        if (r.ok() && rl.prompts_per_step * rl.samples_per_prompt > kMaxRequests)
          r.fail("scenario.out_of_range", r.child(f.key),
                 "prompts_per_step x samples_per_prompt = " +
                     std::to_string(rl.prompts_per_step * rl.samples_per_prompt) + " responses; at most " +
                     std::to_string(kMaxRequests) + " per step are simulated");
      };
  t.custom("prompt_len", length_schema().json(), read_rl_length<&RlWorkload::prompt_len, kRlPromptLen>,
           write_rl_length<&RlWorkload::prompt_len>);
  t.custom("response_len", length_schema().json(), read_rl_length<&RlWorkload::response_len, kRlResponseLen>,
           write_rl_length<&RlWorkload::response_len>);
  t.opt_choice<RlResponseStyle>("response_style", AT(response_style));
  t.boolean("reference", AT(reference)).def();
  t.custom(
      "reward_model", model_ref().json(),
      [](const Field<RlWorkload>& f, Reader& r, RlWorkload& rl) {
        if (r.get(f.key, false)) rl.reward_model = read_model_ref(r, f.key);
      },
      write_model_ref<&RlWorkload::reward_model>);
  t.number("reward_cpu_ms", 0, 1e7, AT(reward_cpu_ms)).written(Write::nonzero).def();
  t.integer("reward_workers", 1, kMaxCount, AT(reward_workers)).def();
  t.optional_rate_or_zero("controller_GBps", 1e-3, 1e6, AT(controller_GBps));
}

Fields<RlWorkload> make_rl() {
  static const Fields<RlWorkload> rollout = make_rollout(), async = make_async();
  Fields<RlWorkload> t;
  t.choice<RlAlgorithm>("algorithm", AT(algorithm)).def();
  add_rl_models(t);
  t.boolean("old_logprob", AT(old_logprob)).def();
  t.integer("mini_batches", 1, kMaxCount, AT(mini_batches)).def();
  t.choice<RlPlacement>("placement", AT(placement)).def();
  t.custom("rollout_devices", integer(1, kMaxDevices).json(), read_pool_devices, write_pool_devices);
  t.custom("train_devices", integer(1, kMaxDevices).json(), read_pool_devices, write_pool_devices);
  t.group("rollout", rollout).read = read_rollout;
  const Node automatic = node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                             .desc("The layout search picks the trainer's layout.");
  t.custom("train", one_of({schema_of(rl_train_fields()).title("RL trainer layout"), automatic}).json(),
           read_rl_train, [](const Field<RlWorkload>&, const RlWorkload& rl) -> std::optional<ojson> {
             if (rl.train_auto) return "auto";
             return write_fields(rl_train_fields(), rl);
           });
  t.group("async", async)
      .writer([](const Field<RlWorkload>& f, const RlWorkload& rl) -> std::optional<ojson> {
        if (rl.staleness <= 0) return std::nullopt;
        return write_fields(*static_cast<const Fields<RlWorkload>*>(f.sub), rl);
      });
  t.custom("roles", rl_roles_schema().json(), read_rl_roles, write_rl_roles);
  t.choice<RlWeightSync>("weight_sync", AT(weight_sync)).def();
  t.integer("train_steps", 1, kMaxCount, AT(train_steps)).written(Write::nonzero);
  return t;
}

}  // namespace

const Fields<DeviceSpec>& device_fields() { return once<DeviceSpec, make_device>(); }
const Fields<NetworkTier>& tier_fields(bool scale_up) {
  static const Fields<NetworkTier> up = make_tier(true), out = make_tier(false);
  return scale_up ? up : out;
}

const Fields<SystemOperations>& operations_fields() { return once<SystemOperations, make_operations>(); }
const Fields<SoftwareDefaults>& software_fields() { return once<SoftwareDefaults, make_software>(); }
const Fields<SystemSpec>& system_fields() { return once<SystemSpec, make_system>(); }
const Fields<ParallelPlan>& parallel_fields() { return once<ParallelPlan, make_parallel>(); }
const Fields<ServingSpec>& scheduler_fields() { return once<ServingSpec, make_scheduler>(); }
const Fields<InferenceWorkload>& inference_fields() { return once<InferenceWorkload, make_inference>(); }

const Fields<UarchBudget>& budget_fields() { return once<UarchBudget, make_budget>(); }
const Fields<ModelSpec>& model_fields() { return once<ModelSpec, make_model>(); }
const Fields<ServingSlo>& slo_fields() { return once<ServingSlo, make_slo>(); }
const Fields<ServingPool>& pool_fields() { return once<ServingPool, make_pool>(); }
const Fields<TrainingWorkload>& training_fields() { return once<TrainingWorkload, make_training>(); }
const Fields<Speculative>& speculative_fields() { return once<Speculative, make_speculative>(); }
const Fields<Economics>& economics_fields() { return once<Economics, make_economics>(); }
const Fields<ServingSpec>& serving_fields() { return once<ServingSpec, make_serving>(); }
const Fields<RlWorkload>& rl_fields() { return once<RlWorkload, make_rl>(); }
const Fields<Calibration>& calibration_fields() { return once<Calibration, make_calibration_block>(); }

// The KV cache follows the weights' precision down to 8 bits where the runtime's "auto" reads the
// checkpoint's KV quantisation (TensorRT-LLM), and stays at the model's 16 bits where it is the
// model's dtype (vLLM's kv_cache_dtype "auto", SGLang's docs: quantised KV "instead of the default
// model precision in BF16"). Under 4-bit or integer weights it stays at the activations' 16 bits on
// every runtime: none keeps a 4-bit cache by default, and gpt-oss, served as published in MXFP4, had
// been given one, 4x the cache's tokens.
Precision default_kv_precision(const InferenceWorkload& w, bool follows_weights) {
  const bool narrow = integer_weights(w.precision) || rate_format(w.precision) == Precision::fp4;
  if (narrow) return w.activation_precision.value_or(Precision::bf16);
  return follows_weights || bytes_per_element(w.precision) >= 2.0 ? w.precision : Precision::bf16;
}

Node calibration_factors_node() {
  Props f;
  for (const auto& [k, n] : EnumNames<CalibrationFactor>::table)
    f.emplace_back(std::string(n), number(0.01, 100).def(1));
  return object(f);
}
#undef AT

}  // namespace optimus::io
