#include "io/schema.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hardware/uarch.h"
#include "io/presets.h"
#include "io/reader.h"
#include "predict/predict.h"

namespace optimus::io {

namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kDraft = "https://json-schema.org/draft/2020-12/schema";

// A whole number written as one (1e7 as 10000000, not 10000000.0); other values as they are.
ojson tidy(const ojson& v) {
  if (!v.is_number_float()) return v;
  const double x = v.get<double>();
  if (std::isfinite(x) && std::floor(x) == x && std::fabs(x) < 9e15) return static_cast<std::int64_t>(x);
  return v;
}

// One schema under construction. Its keywords keep the order they were set in, after "title",
// "type", the description (with the unit appended), the unit annotation and the default.
class Node {
 public:
  explicit Node(ojson keywords) : j_(std::move(keywords)) {}
  Node& title(std::string t) {
    title_ = std::move(t);
    return *this;
  }
  Node& desc(std::string text) {
    desc_ = std::move(text);
    return *this;
  }
  Node& unit(std::string u) {
    unit_ = std::move(u);
    return *this;
  }
  Node& def(ojson v) {
    default_ = std::move(v);
    return *this;
  }
  Node& set(const std::string& keyword, ojson v) {
    j_[keyword] = std::move(v);
    return *this;
  }
  ojson json() const {
    ojson out = ojson::object();
    if (!title_.empty()) out["title"] = title_;
    if (j_.contains("type")) out["type"] = j_["type"];
    std::string d = desc_;
    if (!unit_.empty()) d += (d.empty() ? "" : " ") + ("Unit: " + unit_ + ".");
    if (!d.empty()) out["description"] = d;
    if (!unit_.empty()) out[kUnitKeyword] = unit_;
    if (default_) out["default"] = tidy(*default_);
    for (const auto& [k, v] : j_.items())
      if (k != "type") out[k] = k == "minimum" || k == "maximum" || k == "exclusiveMinimum" ? tidy(v) : v;
    return out;
  }

 private:
  ojson j_;
  std::string title_, desc_, unit_;
  std::optional<ojson> default_;
};

Node node(ojson keywords) { return Node(std::move(keywords)); }

using Props = std::vector<std::pair<std::string, Node>>;

Node number(double lo, double hi) { return node({{"type", "number"}, {"minimum", lo}, {"maximum", hi}}); }
// A rate where 0 means "not modelled", else in [lo, hi] (json_io.cpp rate_or_zero).
Node rate_or_zero(double lo, double hi) {
  return node({{"type", "number"},
               {"minimum", 0},
               {"maximum", hi},
               {"anyOf", ojson::array({{{"const", 0}}, {{"minimum", lo}}})}});
}
Node integer(std::int64_t lo, std::int64_t hi) {
  return node({{"type", "integer"}, {"minimum", lo}, {"maximum", hi}});
}
Node boolean() { return node({{"type", "boolean"}}); }
Node text() { return node({{"type", "string"}}); }
Node notes() { return text().desc("Free text (sources, fits, caveats); not used in any computation."); }
// Outputs: a quantity that is never negative, and a count.
Node amount() { return node({{"type", "number"}, {"minimum", 0}}); }
Node count() { return node({{"type", "integer"}, {"minimum", 0}}); }

template <class E>
ojson name(E e) {
  return std::string(name_of(e));
}
template <class E, std::size_t N>
Node choice(const std::array<E, N>& values) {
  return node({{"type", "string"}, {"enum", enum_names(values)}});
}
template <class E>
Node choice() {
  return choice(enum_values<E>());
}

Node object(const Props& props, const std::vector<std::string>& required = {}) {
  ojson p = ojson::object();
  for (const auto& [k, n] : props) p[k] = n.json();
  ojson j = {{"type", "object"}, {"properties", p}};
  if (!required.empty()) j["required"] = required;
  j["additionalProperties"] = false;
  return Node(std::move(j));
}
// An output object: every key always written but `optional`.
Node output(const Props& props, const std::vector<std::string>& optional = {}) {
  std::vector<std::string> required;
  for (const auto& [k, n] : props)
    if (std::find(optional.begin(), optional.end(), k) == optional.end()) required.push_back(k);
  return object(props, required);
}
Node ref(const std::string& def) { return node({{"$ref", "#/$defs/" + def}}); }
Node one_of(const std::vector<Node>& alternatives) {
  ojson a = ojson::array();
  for (const auto& n : alternatives) a.push_back(n.json());
  return node({{"oneOf", a}});
}
Node array_of(const Node& item, std::size_t min_items = 0, std::size_t max_items = 0) {
  ojson j = {{"type", "array"}, {"items", item.json()}};
  if (min_items > 0) j["minItems"] = min_items;
  if (max_items > 0) j["maxItems"] = max_items;
  return Node(std::move(j));
}
// A two-element array [first, second].
Node pair_of(const Node& first, const Node& second) {
  return node({{"type", "array"},
               {"prefixItems", ojson::array({first.json(), second.json()})},
               {"items", false},
               {"minItems", 2},
               {"maxItems", 2}});
}

// A preset id of `kind`; the presets this build embeds are listed as examples.
Node preset_id(const std::string& kind) {
  ojson ids = ojson::array();
  for (const auto& p : list_presets(kind)) ids.push_back(p.id);
  return node({{"type", "string"}, {"examples", ids}})
      .desc("The id of a '" + kind + "' preset (optimus presets " + kind + ").");
}

std::string join(const std::vector<std::string>& names, const std::string& sep) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

// ---- Scenario ----------------------------------------------------------------------------------

// A model trait whose default follows the norm (model/spec.h default_traits): the description
// says it and kDefaultByNormKeyword carries it.
template <class Get>
Node by_norm(Node n, const std::string& what, Get get) {
  ojson by = ojson::object();
  std::vector<std::string> text;
  for (NormType norm : enum_values<NormType>()) {
    const ojson v = get(default_traits(norm));
    by[std::string(name_of(norm))] = v;
    text.push_back(std::string(name_of(norm)) + " " + v.dump());
  }
  return n.desc(what + " Default by norm: " + join(text, ", ") + ".").set(kDefaultByNormKeyword, by);
}

Node model_schema() {
  const ModelSpec m{};
  return object(
             {
                 {"name", text().desc("Display name.")},
                 {"source", text().desc("Where the configuration comes from (paper, model card).")},
                 {"notes", notes()},
                 {"layers", integer(1, 100'000).desc("Transformer layers.")},
                 {"hidden", integer(1, 1'000'000).desc("Hidden size (model width).")},
                 {"heads", integer(1, 100'000).desc("Attention (query) heads.")},
                 {"kv_heads", integer(1, 100'000)
                                  .desc("Key/value heads; must divide heads. Default: heads (MHA), or what "
                                        "attention.type implies; fewer = GQA, 1 = MQA.")},
                 {"head_dim", integer(1, 100'000).desc("Dimension of one head. Default: hidden / heads.")},
                 {"ffn_hidden", integer(1, 100'000'000).desc("Hidden size of the feed-forward block.")},
                 {"vocab", integer(1, 100'000'000).desc("Vocabulary size.")},
                 {"ffn_type", choice<FfnType>()
                                  .desc("Feed-forward variant: gelu (two matrices), swiglu (gate, up and "
                                        "down), relu2 (squared ReLU, two matrices).")
                                  .def(name(m.ffn_type))},
                 {"norm", choice<NormType>().desc("Normalisation layer.").def(name(m.norm))},
                 {"block", choice<BlockKind>()
                               .desc("Layer arrangement: sequential (the FFN reads the attention block's "
                                     "output: GPT-3, Llama) or parallel (attention and FFN read the same "
                                     "normalised input and their outputs are summed: GPT-J, GPT-NeoX / "
                                     "Pythia, PaLM, Falcon). Parallel layers have one norm and one "
                                     "tensor-parallel reduction (all-reduce, or with sequence "
                                     "parallelism one all-gather and one reduce-scatter) per layer "
                                     "instead of two; a mixture-of-experts FFN keeps its own exchanges.")
                               .def(name(m.block))},
                 {"bias", by_norm(boolean(), "Biases on the QKV, output and FFN projections.",
                                  [](const ModelTraits& t) { return ojson(t.bias); })},
                 {"dropout",
                  by_norm(boolean(), "Dropout after attention and FFN (and on the embedding) in training.",
                          [](const ModelTraits& t) { return ojson(t.dropout); })},
                 {"position", by_norm(choice<PositionKind>(),
                                      "How positions enter: learned absolute embeddings, rotary embeddings "
                                      "on q and k in every layer, or none.",
                                      [](const ModelTraits& t) { return name(t.position); })},
                 {"attention",
                  object({{"type", choice<AttentionType>().desc(
                                       "mha: kv_heads = heads; gqa: 1 < kv_heads < heads; mqa: kv_heads = 1. "
                                       "Fills in kv_heads for mha and mqa when it is absent (gqa needs it); "
                                       "must agree with kv_heads when both are given (error "
                                       "model.attention_mismatch). mla: multi-head latent attention "
                                       "(DeepSeek-V2/V3), with the five keys below.")},
                          {"q_lora_rank",
                           integer(0, 1'000'000).desc("MLA: query compression rank; 0 = none.").def(0)},
                          {"kv_lora_rank",
                           integer(1, 1'000'000)
                               .desc("MLA: rank of the cached key/value latent (required for mla).")},
                          {"qk_nope_head_dim",
                           integer(1, 100'000)
                               .desc("MLA: per-head query/key dims without rotary (required for mla).")},
                          {"qk_rope_head_dim", integer(0, 100'000)
                                                   .desc("MLA: per-head rotary query/key dims, the shared "
                                                         "rope key (required for mla).")},
                          {"v_head_dim",
                           integer(1, 100'000).desc("MLA: per-head value dims (required for mla).")},
                          {"window",
                           integer(1, 1'000'000'000)
                               .desc("Sliding-window (or chunked) attention: windowed layers attend to "
                                     "at most this many keys. Absent: full attention.")
                               .unit("tokens")},
                          {"global_every",
                           integer(0, 100'000)
                               .desc("With window: every k-th layer (layers k-1, 2k-1, ...) attends "
                                     "to the whole context; 0 = every layer windowed.")
                               .def(0)}},
                         {"type"})
                      .desc("Attention variant. Default: follows kv_heads.")},
                 {"moe",
                  object(
                      {{"experts", integer(1, 1'000'000).desc("Routed experts per MoE layer.")},
                       {"top_k", integer(1, 1'000'000).desc("Experts each token is routed to (<= experts).")},
                       {"expert_ffn_hidden", integer(1, 100'000'000).desc("FFN width of one routed expert.")},
                       {"shared_experts",
                        integer(0, 1'000'000).desc("Experts every token passes through.").def(0)},
                       {"shared_expert_ffn_hidden",
                        integer(1, 100'000'000)
                            .desc("FFN width of one shared expert. Default: expert_ffn_hidden.")},
                       {"first_dense_layers",
                        integer(0, 100'000).desc("Leading layers with the dense ffn_hidden FFN.").def(0)},
                       {"layer_freq", integer(1, 100'000)
                                          .desc("After them every layer_freq-th layer is MoE (1 = all).")
                                          .def(1)},
                       {"capacity_factor",
                        number(1e-3, 1e3).desc("Token dropping: an expert takes at most this x its mean "
                                               "tokens. Absent: dropless.")},
                       {"router_balance",
                        choice<RouterBalance>()
                            .desc("balanced: forced even split (vendor benchmarks); measured: a "
                                  "real router whose busiest expert-parallel rank gets imbalance "
                                  "x the mean tokens.")
                            .def("measured")},
                       {"imbalance",
                        number(1.0, 1e3).desc(
                            "Busiest expert-parallel rank's routed tokens over the mean. Default: "
                            "1 when balanced, " +
                            fmt_num(kMeasuredImbalance) + " when measured (ASSUMED; state your router's).")},
                       {"notes", notes()}},
                      {"experts", "top_k", "expert_ffn_hidden"})
                      .desc("Mixture-of-experts FFN (errors model.moe_top_k_exceeds_experts, "
                            "model.moe_no_moe_layers, model.moe_imbalance_with_balanced).")},
                 {"tied_embeddings", boolean()
                                         .desc("The input embedding and the LM head share one matrix.")
                                         .def(m.tied_embeddings)},
                 {"max_seq_len",
                  integer(1, 1'000'000'000).desc("Longest sequence the model supports.").unit("tokens")},
             },
             {"layers", "hidden", "heads", "ffn_hidden", "vocab"})
      .title("Model")
      .desc(
          "An inline model: a decoder-only transformer, dense or mixture-of-experts, with MHA, GQA, MQA "
          "or MLA attention.");
}

Node calibration_schema() {
  const DeviceSpec d{};
  const Node tile = integer(1, 4096);
  return object(
             {
                 {"matmul_efficiency", number(1e-3, 1.0)
                                           .desc("Best-shape achieved fraction of peak (Maximum Achievable "
                                                 "Matmul FLOPS / peak), 16/32-bit GEMMs.")
                                           .unit("fraction")
                                           .def(d.matmul_efficiency)},
                 {"matmul_efficiency_8bit",
                  number(1e-3, 1.0)
                      .desc("The same for fp8/int8/int4 GEMMs. Default: matmul_efficiency.")
                      .unit("fraction")},
                 {"sustained_ratio", number(1e-3, 1.0)
                                         .desc("Sustained share of the benchmark matmul rate in long, "
                                               "power-limited runs.")
                                         .unit("fraction")
                                         .def(d.sustained_ratio)},
                 {"memory_efficiency", number(1e-3, 1.0)
                                           .desc("Achieved fraction of HBM bandwidth by streaming kernels.")
                                           .unit("fraction")
                                           .def(d.memory_efficiency)},
                 {"tile_overhead_k", number(0, 1e6)
                                         .desc("Per-tile pipeline fill and epilogue, as extra K.")
                                         .unit("elements")
                                         .def(d.tile_overhead_k)},
                 {"kernel_overhead_us", number(0, 1e6)
                                            .desc("Launch and tail cost of one kernel.")
                                            .unit("us")
                                            .def(d.kernel_overhead.value / kMicro)},
                 {"gemm_tiles", array_of(pair_of(tile, tile), 1, 64)
                                    .desc("The thread-block tiles [m, n] a BLAS library picks from (at "
                                          "most 64). Default: the CUTLASS tensor-core tile set.")
                                    .unit("elements")},
                 {"split_k_max", integer(1, 1024).desc("Largest split-K factor.").def(d.split_k_max)},
                 {"split_k_min_k", integer(1, 1'000'000)
                                       .desc("Smallest K slice split-K may cut.")
                                       .unit("elements")
                                       .def(d.split_k_min_k)},
                 {"split_k_max_waves",
                  number(0, 1e6)
                      .desc("Split-K only while tiles x split <= this many x compute_units.")
                      .def(d.split_k_max_waves)},
                 {"notes", notes()},
             })
      .desc("Calibration terms, each fitted on measurements (the preset's notes say on what).");
}

Node device_schema() {
  const DeviceSpec d{};
  Props peaks;
  for (Precision p : kPeakFormats)
    peaks.emplace_back(std::string(to_string(p)),
                       number(1e-6, 1e7)
                           .desc("Dense " + std::string(to_string(p)) + " peak.")
                           .unit(p == Precision::int8 || p == Precision::int4 ? "TOP/s" : "TFLOP/s"));
  // The fallback chains, from base/precision.h wider().
  std::vector<std::string> fallback;
  for (Precision start : {Precision::int4, Precision::fp4}) {
    std::vector<std::string> chain;
    for (std::optional<Precision> q = start; q; q = wider(*q)) chain.emplace_back(to_string(*q));
    fallback.push_back(join(chain, " -> "));
  }
  return object(
             {
                 {"name", text().desc("Product name.")},
                 {"source", text().desc("Datasheet or measurement the numbers come from.")},
                 {"notes", notes()},
                 {"peak_tflops",
                  object(peaks)
                      .set("minProperties", 1)
                      .desc("Dense (no sparsity) peak math rate per precision. A missing precision is not "
                            "supported natively and falls back to the next wider one: " +
                            join(fallback, "; ") +
                            ". Block-scaled formats (mxfp8, nvfp4, mxfp4) run at "
                            "their element format's rate (fp8, fp4).")},
                 {"vector_tflops", number(1e-6, 1e7)
                                       .desc("Non-tensor (CUDA-core / SIMD) fp32 rate for element-wise math. "
                                             "Absent: not modelled.")
                                       .unit("TFLOP/s")},
                 {"exp_tops", rate_or_zero(1e-6, 1e7)
                                  .desc("Special-function (exponential) throughput of softmax inside fused "
                                        "attention; 0 = not modelled, else at least 1e-6.")
                                  .unit("T ops/s")
                                  .def(d.exp_rate / kTera)},
                 {"memory",
                  object({{"capacity_GiB",
                           number(1e-3, 1e6).desc("Device memory (HBM) usable by a job.").unit("GiB")},
                          {"bandwidth_GBps", number(1e-3, 1e8).desc("HBM peak bandwidth.").unit("GB/s")},
                          {"notes", notes()}},
                         {"capacity_GiB", "bandwidth_GBps"})
                      .desc("Device memory.")},
                 {"l2",
                  object({{"capacity_MiB", number(0, 1e6)
                                               .desc("Last-level on-chip cache.")
                                               .unit("MiB")
                                               .def(d.l2_capacity.value / kMiB)},
                          {"bandwidth_GBps", rate_or_zero(1e-6, 1e9)
                                                 .desc("L2 to compute-unit aggregate bandwidth; 0 = not "
                                                       "modelled, else at least 1e-6.")
                                                 .unit("GB/s")
                                                 .def(d.l2_bandwidth.value / kGB)},
                          {"notes", notes()}})
                      .desc("Last-level cache.")},
                 {"compute_units", integer(1, 10'000'000)
                                       .desc("SMs (NVIDIA) / CUs (AMD): the unit of wave quantization.")
                                       .def(d.compute_units)},
                 {"power",
                  object({{"tdp_W", number(1e-3, 1e6).desc("Board power limit (TDP / TBP).").unit("W")},
                          {"idle_fraction", number(0, 1)
                                                .desc("Draw of a loaded but idle device (checkpoint writes, "
                                                      "restarts), as a share of tdp_W.")
                                                .unit("fraction")
                                                .def(d.power.idle_fraction)},
                          {"memory_activity",
                           number(0, 1)
                               .desc("Share of the dynamic range (tdp_W - idle) drawn while memory-bound "
                                     "kernels run (compute-bound kernels draw all of it).")
                               .unit("fraction")
                               .def(d.power.memory_activity)},
                          {"communication_activity", number(0, 1)
                                                         .desc("The same while exposed communication runs.")
                                                         .unit("fraction")
                                                         .def(d.power.communication_activity)},
                          {"notes", notes()}},
                         {"tdp_W"})
                      .desc("Board power and how the draw follows the work (run energy, joules per "
                            "token). Absent: no energy.")},
                 {"price_usd", number(1, 1e9)
                                   .desc("Installed price of one device with its share of the server, for "
                                         "the capital form of economics. Absent: none.")
                                   .unit("USD")},
                 {"calibration", calibration_schema()},
             },
             {"peak_tflops", "memory"})
      .title("Device")
      .desc("An inline device (one accelerator).");
}

// A device or system derived by the uArch engine from a technology node and budgets
// (io/technology_io.cpp read_uarch, read_budget; presets/README.md).
Node uarch_schema() {
  const UarchBudget b{};
  return object(
             {
                 {"technology",
                  preset_id("technology").desc("The technology node (a 'technology' preset id).")},
                 {"dram",
                  preset_id("dram").desc("The DRAM generation (a 'dram' preset id). Default: the node's.")},
                 {"name", text().desc("Name of the derived device. Default: from the node.")},
                 {"notes", notes()},
                 {"area_mm2", number(1, 1e6).desc("Logic die area.").unit("mm^2")},
                 {"power_W", number(1e-3, 1e7).desc("Device power (die, its DRAM and its links).").unit("W")},
                 {"perimeter_mm", number(1e-3, 1e6)
                                      .desc("Usable die edge. Default: a square die, 4 sqrt(area_mm2).")
                                      .unit("mm")},
                 {"compute_fraction", number(1e-3, 1)
                                          .desc("Area share of tensor/vector units.")
                                          .unit("fraction")
                                          .def(b.compute_fraction)},
                 {"sram_fraction", number(0, 1)
                                       .desc("Area share of the last-level cache.")
                                       .unit("fraction")
                                       .def(b.sram_fraction)},
                 {"memory_edge_fraction", number(1e-3, 1)
                                              .desc("Die-edge share for DRAM PHYs.")
                                              .unit("fraction")
                                              .def(b.memory_edge_fraction)},
                 {"network_edge_fraction", number(0, 1)
                                               .desc("Die-edge share for scale-up SerDes.")
                                               .unit("fraction")
                                               .def(b.network_edge_fraction)},
                 {"max_dram_stacks",
                  integer(1, 1000).desc("Cap on the DRAM stack count. Default: as many as the edge allows.")},
                 {"dram_power_fraction",
                  number(1e-3, 0.99)
                      .desc("Share of power_W DRAM may use at full rate (else its rate "
                            "is lowered).")
                      .unit("fraction")
                      .def(b.dram_power_fraction)},
                 {"network_power_fraction", number(0, 0.99)
                                                .desc("The same for SerDes.")
                                                .unit("fraction")
                                                .def(b.network_power_fraction)},
                 {"scale_up_domain", integer(1, 1'000'000)
                                         .desc("Devices per scale-up domain (as a system).")
                                         .def(b.scale_up_domain)},
                 {"nic_lanes", integer(1, 10'000)
                                   .desc("SerDes lanes per device to the scale-out network (as a system).")
                                   .def(b.nic_lanes)},
                 {"chiplets", integer(1, 64)
                                  .desc("Logic dies the area is split into (the chiplet cost model; each "
                                        "carries d2d_area_fraction more area when there are several).")
                                  .def(b.chiplets)},
                 {"d2d_area_fraction", number(0, 1)
                                           .desc("Die-to-die interface area per chiplet.")
                                           .unit("fraction")
                                           .def(b.d2d_area_fraction)},
                 {"packaging_usd_per_mm2", number(0, 1e4)
                                               .desc("Interposer, substrate, assembly and test per mm^2 of "
                                                     "silicon on the package.")
                                               .unit("USD/mm^2")
                                               .def(b.packaging_usd_per_mm2)},
                 {"dram_footprint_mm2", number(0, 1e4)
                                            .desc("Package area of one DRAM stack.")
                                            .unit("mm^2")
                                            .def(b.dram_footprint_mm2)},
                 {"bond_yield", number(1e-3, 1)
                                    .desc("Share of bonds (dies and stacks onto the package) that hold.")
                                    .unit("fraction")
                                    .def(b.bond_yield)},
                 {"flops_per_cycle_per_MTr",
                  number(1e-6, 1e6)
                      .desc("16-bit FLOP per clock per million logic transistors of "
                            "compute area.")
                      .unit("FLOP/clk/MTr")
                      .def(b.flops_per_cycle_per_mtr)},
                 {"l2_bytes_per_flop", number(0, 1e3)
                                           .desc("L2 bandwidth per peak FLOP/s.")
                                           .unit("bytes/FLOP")
                                           .def(b.l2_bytes_per_flop)},
                 {"matmul_efficiency",
                  number(1e-3, 1)
                      .desc("Calibration of the derived device: achieved fraction of peak.")
                      .unit("fraction")
                      .def(b.matmul_efficiency)},
                 {"memory_efficiency",
                  number(1e-3, 1)
                      .desc("Calibration of the derived device: achieved fraction of DRAM "
                            "bandwidth.")
                      .unit("fraction")
                      .def(b.memory_efficiency)},
             },
             {"technology", "area_mm2", "power_W"})
      .title("Technology-derived hardware")
      .desc(
          "A device (or, as a system, devices with links from the die's SerDes) derived by the uArch "
          "engine from a technology node and chip budgets.");
}

Node tier_schema(bool scale_up) {
  const NetworkTier t{};
  Node domain = integer(1, kMaxDevices);
  if (scale_up)
    domain.desc("Devices sharing the scale-up domain (8 in a DGX, 72 in an NVL72).");
  else
    domain.desc("Accepted and not used on the scale-out tier.");
  const double bulk_factor = NetworkTier::default_bulk_latency(Seconds(1)).value;
  const Node busbw_row =
      pair_of(node({{"type", "number"}, {"exclusiveMinimum", 0}}).desc("Message size.").unit("bytes"),
              node({{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 1e8}})
                  .desc("All-reduce bus bandwidth at that size.")
                  .unit("GB/s"));
  std::vector<std::string> required = {"bandwidth_GBps", "latency_us"};
  if (scale_up) required.push_back("domain_size");
  return object(
             {
                 {"bandwidth_GBps",
                  number(1e-6, 1e8).desc("Link bandwidth per device, per direction.").unit("GB/s")},
                 {"latency_us", number(0, 1e7)
                                    .desc("Per ring step, latency-optimised protocol (small messages).")
                                    .unit("us")},
                 {"domain_size", domain},
                 {"efficiency", number(1e-3, 1.0)
                                    .desc("Achieved fraction of the link rate, bandwidth-optimised protocol.")
                                    .unit("fraction")
                                    .def(t.efficiency)},
                 {"bulk_latency_us", number(0, 1e7)
                                         .desc("Per ring step, bandwidth-optimised protocol. Default: " +
                                               fmt_num(bulk_factor) + " x latency_us.")
                                         .unit("us")},
                 {"ll_efficiency",
                  number(1e-3, 1.0)
                      .desc("Achieved fraction of the link rate, latency-optimised protocol.")
                      .unit("fraction")
                      .def(t.ll_efficiency)},
                 {"all_to_all",
                  choice<AllToAll>()
                      .desc("How an all-to-all runs: pairwise exchange (switched tiers) or ring "
                            "(links join neighbours only).")
                      .def(name(t.all_to_all))},
                 {"all_to_all_efficiency",
                  number(1e-3, 1.0)
                      .desc("Achieved fraction of the link rate in MoE token dispatch and combine "
                            "(all-to-all). Default: efficiency.")
                      .unit("fraction")},
                 {"peer_link_GBps",
                  number(1e-6, 1e8)
                      .desc("Direct link to each peer, per direction, on a fully connected mesh (AMD "
                            "xGMI): a collective among k devices of the tier reaches at most (k - 1) x "
                            "this, so a pair gets one link and the whole mesh bandwidth_GBps. Absent: a "
                            "switched tier (NVSwitch), where any group reaches bandwidth_GBps.")
                      .unit("GB/s")},
                 {"allreduce_busbw_GBps",
                  array_of(busbw_row, 1)
                      .desc("Measured all-reduce bus bandwidth, [bytes, GB/s] rows with ascending sizes; "
                            "replaces the protocol model for all-reduces inside the measured range "
                            "(on a mesh, for groups that reach the full bandwidth_GBps).")},
                 {"notes", notes()},
             },
             required)
      .title(scale_up ? "Scale-up tier" : "Scale-out tier")
      .desc(scale_up ? "The scale-up network (NVLink / NVSwitch / xGMI)."
                     : "The scale-out network (InfiniBand / Ethernet), bandwidth per device.");
}

Node software_schema() {
  const SoftwareDefaults s{};
  const auto width = [](double lo, double hi, const std::string& what, double def) {
    return number(lo, hi).desc(what).unit("bytes per element").def(def);
  };
  return object(
             {
                 {"attention",
                  choice<AttentionKernel>()
                      .desc(
                          "Attention kernel: fused (flash: FlashAttention-2-class), a first-generation "
                          "fused kernel (flash1: FlashAttention v1 or the Triton FlashAttention of 2022-23, "
                          "its matmuls about twice as long, FlashAttention-2 paper) or standard (scores in "
                          "HBM).")
                      .def(name(s.attention))},
                 {"overlap_grad_reduce",
                  boolean()
                      .desc("Data-parallel gradient reduction overlaps the backward pass.")
                      .def(s.overlap_grad_reduce)},
                 {"quantized_saved_inputs",
                  boolean()
                      .desc("Under an 8- or 4-bit training format the linear layers keep the quantised "
                            "copy of their input for the weight gradient (Transformer Engine), so the "
                            "saved activations shrink; false: the 16-bit input is kept (torchao's "
                            "Float8Linear).")
                      .def(s.quantized_saved_inputs)},
                 {"tp_comm_overlap",
                  boolean()
                      .desc("Sequence-parallel all-gathers / reduce-scatters overlap the adjacent GEMMs "
                            "(needs tp > 1 and sequence parallelism).")
                      .def(s.tp_comm_overlap)},
                 {"tp_comm_overlap_fp4",
                  boolean()
                      .desc("The same overlap when the matmuls run in a 4-bit format (nvfp4, mxfp4); "
                            "Megatron-Bridge's NVFP4 recipes turn it off.")
                      .def(s.tp_comm_overlap_fp4)},
                 {"launch_interval_us",
                  number(0, 1e6)
                      .desc("Host time to issue one kernel in an eager inference runtime; "
                            "0 = no host bound.")
                      .unit("us")
                      .def(s.launch_interval.value / kMicro)},
                 {"training_launch_interval_us",
                  number(0, 1e6)
                      .desc("Host time per operator the training framework issues (an expert GEMM once "
                            "per local expert); binds in dropless MoE layers, which wait on the host "
                            "for their token counts: a pass takes max(device time, operators x this). "
                            "0 = never host-bound.")
                      .unit("us")
                      .def(s.training_launch_interval.value / kMicro)},
                 {"training_expert_gemm_us",
                  number(0, 1e6)
                      .desc("Host time for each further local expert's GEMM inside one grouped expert "
                            "operator (the operator itself costs training_launch_interval_us; the "
                            "grouped-GEMM call launches one GEMM per local expert from C++). Binds, like "
                            "it, only in dropless MoE layers.")
                      .unit("us")
                      .def(s.training_expert_gemm_interval.value / kMicro)},
                 {"pipeline_sync_us",
                  number(0, 1e6)
                      .desc("Host time the device waits after each pipeline point-to-point exchange "
                            "(Megatron's torch.cuda.synchronize() after batch_isend_irecv: the host "
                            "stops running ahead); 2 (v m + p - 1) exchanges per iteration. 0 = the "
                            "host runs ahead.")
                      .unit("us")
                      .def(s.pipeline_sync.value / kMicro)},
                 {"training_cuda_graphs",
                  boolean()
                      .desc("The training stack replays attention, the router and the dispatch "
                            "preprocessing from CUDA graphs; only a MoE layer's expert part is issued "
                            "from the host.")
                      .def(s.training_cuda_graphs)},
                 {"ep_comm_overlap",
                  boolean()
                      .desc("MoE dispatch and combine overlapped with another micro-batch's computation "
                            "(DeepSeek-V3's DualPipe; Megatron-Core overlap_moe_expert_parallel_comm): a "
                            "MoE layer's pass takes max(kernels / (1 - ep_comm_sm_share), its expert "
                            "communication).")
                      .def(s.ep_comm_overlap)},
                 {"ep_comm_sm_share",
                  number(0, 0.9)
                      .desc("Share of the device's compute units the overlapped communication kernels "
                            "occupy (DeepSeek-V3: 20 of 132 SMs).")
                      .unit("fraction")
                      .def(s.ep_comm_sm_share)},
                 {"dp_overlap_slowdown",
                  number(0, 1)
                      .desc("How much slower computation runs beside a data-parallel collective (ZeRO-3 "
                            "/ FSDP parameter all-gathers, gradient reductions overlapped with the "
                            "backward pass): the hidden part H of that traffic adds H x s / (1 + s) to "
                            "the iteration, counted in breakdown_s.dp_comm. Lee et al. 2025 (arXiv "
                            "2507.03114): 18.9% on average over A100 and H100 training. 0 = no "
                            "contention.")
                      .unit("fraction")
                      .def(s.dp_overlap_slowdown)},
                 {"training_matmul_share",
                  number(0.05, 1)
                      .desc("Share of the device's calibrated matmul rate this training stack's kernels "
                            "reach (every training matmul, attention's included; memory-bound kernels, "
                            "communication and inference are not scaled). A stack calibration fitted on the "
                            "stack's own published runs (scripts/fit_stack_rate.py; each profile's notes say "
                            "on which). 1 = the kernels the device presets were calibrated with.")
                      .unit("fraction")
                      .def(s.training_matmul_share)},
                 {"moe_dispatcher",
                  choice<MoeDispatcher>()
                      .desc(
                          "MoE token dispatcher: alltoall (every routed copy crosses the network) or deepep "
                          "(DeepEP / HybridEP: once per destination node over the scale-out network, then "
                          "NVLink).")
                      .def(name(s.moe_dispatcher))},
                 {"kv_cache",
                  boolean()
                      .desc("The inference runtime keeps a KV cache (a decode step runs one new token per "
                            "sequence); false: every step recomputes the whole context (Megatron-LM's 2021 "
                            "generation loop, Hugging Face generate with use_cache=False).")
                      .def(s.kv_cache)},
                 {"decode_kv_per_query_head",
                  boolean()
                      .desc("The decode attention kernel reads the KV cache once per query head, so a "
                            "GQA/MQA cache is read heads / kv_heads times per step (TensorRT-LLM before its "
                            "XQA kernel, v0.8; runtimes that expand the cache to every head before "
                            "attention, as gpt-fast and Hugging Face eager do). false: once per KV head.")
                      .def(s.decode_kv_per_query_head)},
                 {"fused_elementwise",
                  boolean()
                      .desc("Normalisation, gated activation, rotary embedding and dropout + residual run "
                            "as fused kernels (Megatron-LM, Transformer Engine, the inference runtimes). "
                            "false: chains of PyTorch primitives, one kernel and one pass over memory each, "
                            "as Hugging Face's eager Llama code writes them (RMSNorm 6 kernels and 4e + 28 "
                            "bytes per element against 2e; SwiGLU 2 kernels, 5e against 3e; rotary 5 "
                            "kernels per tensor, 10e against 2e; dropout beside the residual add 2 "
                            "kernels).")
                      .def(s.fused_elementwise)},
                 {"fused_residual_norm",
                  boolean()
                      .desc("Inference: each residual add and the normalisation after it run as one kernel "
                            "(read x and the residual, write the new residual and the normalised output: "
                            "4e bytes per element against 5e in two kernels), as vLLM's and SGLang's "
                            "fused_add_rms_norm do. Needs "
                            "fused_elementwise; training graphs are unchanged.")
                      .def(s.fused_residual_norm)},
                 {"rope_in_attention",
                  boolean()
                      .desc(
                          "Inference: for decoding sequences the attention kernel applies the rotary "
                          "embedding (with the QKV bias and the KV-cache write), so it has no kernel of its "
                          "own; prompt tokens keep the kernel that rotates them and writes the cache "
                          "(TensorRT-LLM's gpt_attention). Needs fused_elementwise; training graphs are "
                          "unchanged.")
                      .def(s.rope_in_attention)},
                 {"fp8_context_attention",
                  boolean()
                      .desc("Inference: prompt attention (QK^T and PV of the context phase) runs in fp8 at "
                            "the device's fp8 rate when kv_precision is fp8 and the weights are 8 bits or "
                            "fewer (TensorRT-LLM's FP8 context FMHA, vLLM's FlashAttention-3 with an fp8 "
                            "cache); decode attention is unchanged.")
                      .def(s.fp8_context_attention)},
                 {"block_fp8_gemm",
                  choice<BlockFp8Gemm>()
                      .desc(
                          "Inference: the kernels of block-scaled FP8 GEMMs (inference.fp8_block_scaled) on "
                          "a device without block-scaled tensor-core instructions (Hopper). cutlass: "
                          "CUTLASS-based kernels, each GEMM slower than the engine's roofline by the ratio "
                          "DeepGEMM's README measured against a CUTLASS 3.6 implementation of the same "
                          "GEMMs on H800 (about 1.8x at 64-128 rows per expert, 1.15-1.3x from 256 rows); "
                          "TensorRT-LLM's only MoE backend for FP8 checkpoints on H100 / H200. deepgemm: "
                          "DeepGEMM, which the roofline reproduces.")
                      .def(name(s.block_fp8_gemm))},
                 {"custom_allreduce_max_kb",
                  number(0, 1e6)
                      .desc("Inference all-reduces of at most this size inside one scale-up domain use the "
                            "runtime's one-shot kernel (TensorRT-LLM's custom all-reduce, vLLM, SGLang): "
                            "custom_allreduce_us + (P - 1) x bytes at the scale-up link rate, when faster "
                            "than NCCL's ring. 0 = NCCL only.")
                      .unit("KiB")
                      .def(s.custom_allreduce_max_bytes / 1024.0)},
                 {"custom_allreduce_us",
                  number(0, 1e6)
                      .desc("Fixed synchronisation cost of the one-shot all-reduce above.")
                      .unit("us")
                      .def(s.custom_allreduce_latency.value / kMicro)},
                 {"activation_bytes",
                  width(0.5, 8, "Activations written by kernels and kept for backward.", s.activation_bytes)},
                 {"weight_bytes",
                  width(0.5, 8, "Model weights (the copy the kernels read).", s.weight_bytes)},
                 {"gradient_bytes", width(0.5, 8, "Main gradients.", s.gradient_bytes)},
                 {"master_weight_bytes", width(0, 8, "Master weights beside lower-precision ones (0 = none).",
                                               s.master_weight_bytes)},
                 {"optimizer_state_bytes", number(0, 64)
                                               .desc("Optimizer state.")
                                               .unit("bytes per parameter")
                                               .def(s.optimizer_state_bytes)},
                 {"optimizer_step_bytes", number(0, 1024)
                                              .desc("Memory traffic of the optimizer step.")
                                              .unit("bytes per parameter")
                                              .def(s.optimizer_step_bytes)},
                 {"optimizer_step_flops", number(0, 1024)
                                              .desc("Arithmetic of the optimizer step.")
                                              .unit("FLOP per parameter")
                                              .def(s.optimizer_step_flops)},
                 {"notes", notes()},
             })
      .desc("What the software stack does when a scenario does not say.");
}

// A software-stack profile (presets/software/*.json, or inline as a scenario's `software`).
Node software_profile_schema() {
  const ServingSpec v{};
  return object({{"name", text()},
                 {"source", text()},
                 {"notes", notes()},
                 {"software", ref("software").desc("Laid over the system's software block, key by key.")},
                 {"cuda_graphs", boolean().desc("The runtime's default for inference.cuda_graphs.")},
                 {"serving",
                  object({{"max_batch", integer(1, kMaxRequests).def(v.max_batch)},
                          {"max_num_tokens", integer(1, kMaxServingLength).def(v.max_num_tokens)},
                          {"kv_block_tokens", integer(1, 65'536).def(v.kv_block_tokens)},
                          {"gpu_memory_utilization", number(0.01, 1).def(v.gpu_memory_utilization)},
                          {"free_gpu_memory_fraction", number(0.01, 1)},
                          {"kv_admission", choice<KvAdmission>().def(name(v.kv_admission))},
                          {"request_overhead_ms", number(0, 1e5).unit("ms").def(v.request_overhead_s * 1e3)},
                          {"step_overhead_ms", number(0, 1e4).unit("ms").def(v.step_overhead_s * 1e3)},
                          {"step_overhead_us_per_request",
                           number(0, 1e5).unit("us").def(v.step_overhead_per_request_s * 1e6)},
                          {"overlap_schedule", boolean().def(v.overlap_schedule)},
                          {"notes", notes()}})
                      .desc("The scheduler's defaults for inference.serving.")}})
      .title("Software profile")
      .desc(
          "What differs between software stacks: the system's software keys it sets, the runtime's "
          "CUDA-graph default and the serving scheduler's defaults.");
}

Node operations_schema() {
  const SystemOperations o{};
  return object(
             {{"failures_per_device_hour",
               number(0, 1)
                   .desc("Job-interrupting failures per device and hour (a job of n devices fails every "
                         "1 / (rate n) hours); 0 = none. Absent = not known: no failures in the point "
                         "estimate, the run's band reaches the run at the highest published rate "
                         "(7.35e-5, OPT-175B) and warning run.failure_rate_unknown says so.")
                   .unit("1/h")},
              {"restart_s",
               number(0, 1e7).desc("From a failure to training again.").unit("s").def(o.restart.value)},
              {"checkpoint_write_GBps_per_node", number(1e-6, 1e8)
                                                     .desc("Checkpoint write bandwidth of one node.")
                                                     .unit("GB/s")
                                                     .def(o.checkpoint_write_per_node.value / kGB)},
              {"checkpoint_write_GBps_total",
               rate_or_zero(1e-6, 1e9)
                   .desc("The storage system's write ceiling; 0 = none, else at least 1e-6.")
                   .unit("GB/s")
                   .def(o.checkpoint_write_total.value / kGB)},
              {"checkpoint_async",
               boolean()
                   .desc("Asynchronous checkpoint saves: training blocks while each writing device copies "
                         "its part of the state to host memory (host_link_GBps), the write to storage "
                         "overlaps the next steps, and a failure also loses the write still in flight.")
                   .def(o.checkpoint_async)},
              {"node_overhead_W", number(0, 1e7)
                                      .desc("Power of a node's parts other than its devices (CPUs, memory, "
                                            "NICs, fans, its share of switches).")
                                      .unit("W")
                                      .def(o.node_overhead_w)},
              {"production_efficiency",
               number(0.01, 1)
                   .desc("A share of the modelled steady-state step rate the run sustains apart from "
                         "failures and checkpoints, stated by the user: the steps take ideal / this, and "
                         "warning run.production_efficiency says so. Absent = the modelled rate; no "
                         "preset carries one (a fleet-average discount is not a mechanism).")
                   .unit("fraction")},
              {"source", text()},
              {"notes", notes()}})
      .title("Operations")
      .desc(
          "What a whole training run meets besides its steps: failures, restarts, checkpoint storage "
          "and saves, node power, a stated share of the modelled rate. Absent: failures not known, "
          "600 s restarts, 25 GB/s per node, blocking saves, no overhead, the modelled rate.");
}

Node system_schema() {
  return object(
             {
                 {"name", text().desc("Display name.")},
                 {"source", text().desc("Where the numbers come from.")},
                 {"notes", notes()},
                 {"device",
                  one_of({preset_id("devices"), ref("device"), ref("technology")})
                      .desc("A device preset id, an inline device, or one derived from a technology "
                            "node.")},
                 {"devices_per_node", integer(1, kMaxDevices).desc("Devices per node.")},
                 {"scale_up", ref("scale_up")},
                 {"scale_out", ref("scale_out")},
                 {"host_link_GBps", number(0, 1e6)
                                        .desc("Device <-> host memory copy rate per device and direction "
                                              "(PCIe, NVLink-C2C), for activations offloaded to host "
                                              "memory (parallel.offload_layers). Absent: not stated.")
                                        .unit("GB/s")},
                 {"software", software_schema()},
                 {"operations", operations_schema()},
             },
             {"device", "devices_per_node", "scale_up", "scale_out"})
      .title("System")
      .desc("An inline system: devices, nodes and two network tiers.");
}

Node parallel_schema() {
  const ParallelPlan p{};
  const auto degree = [](const std::string& what, std::int64_t def) {
    return integer(1, kMaxDevices).desc(what).def(def);
  };
  return object(
             {
                 {"tp", degree("Tensor-parallel degree.", p.tp)},
                 {"pp", degree("Pipeline-parallel degree.", p.pp)},
                 {"dp",
                  integer(1, kMaxDevices)
                      .desc("Data-parallel degree (for inference: replicas). Default: num_devices / (tp "
                            "pp cp); tp pp dp cp must equal num_devices.")},
                 {"cp", degree("Context-parallel degree.", p.cp)},
                 {"ep", degree("Expert-parallel degree: ranks the routed experts are split over (training: "
                               "expert layers fold tp x cp x dp as etp x ep x expert-dp; inference: ep "
                               "divides tp, or with tp 1 divides dp: attention data parallelism, each "
                               "data-parallel rank attending to its own sequences).",
                               p.ep)},
                 {"etp",
                  degree("Expert tensor-parallel degree: ranks one expert's FFN is split over.", p.etp)},
                 {"expert_slots",
                  integer(1, 1'000'000)
                      .desc("Inference: expert slots over the ep ranks, at least the model's experts; the "
                            "ones beyond are redundant copies of hot experts (DeepSeek's EPLB: 288 slots for "
                            "256 experts). ep divides it. Default: one slot per expert.")},
                 {"sequence_parallel", boolean().desc("Megatron sequence parallelism. Default: tp > 1.")},
                 {"micro_batch",
                  integer(1, kMaxCount).desc("Micro-batch size.").unit("sequences").def(p.micro_batch)},
                 {"interleave", integer(1, 100'000)
                                    .desc("Model chunks per pipeline stage (1 = plain 1F1B).")
                                    .def(p.interleave)},
                 {"recompute", choice<Recompute>().desc("Activation recomputation.").def(name(p.recompute))},
                 {"recompute_fraction",
                  number(1e-6, 1.0)
                      .desc("With recompute \"full\": the share of each pipeline stage's layers that are "
                            "checkpointed and rebuilt in the backward; the others keep every activation "
                            "(OLMo's activation_checkpointing one_in_two = 0.5; Megatron-LM's "
                            "--recompute-method "
                            "block --recompute-num-layers n = n / layers per stage). Default 1: every layer.")
                      .def(p.recompute_fraction)},
                 {"recompute_modules",
                  array_of(choice<RecomputeModule>(), 1, 7)
                      .desc("With recompute \"selective\": the modules recomputed (Megatron-Core "
                            "recompute_modules; default [\"core_attn\"], the attention core). core_attn, "
                            "mlp, moe and shared_experts are checkpointed: their inner activations are not "
                            "kept and their forward runs again before the backward. layernorm (the two "
                            "norms of each layer), moe_act (the experts' activation) and mla_up_proj (MLA's "
                            "up-projections and rotary embedding) discard their output: the 16-bit copy the "
                            "next operator saved is freed (not where that operator keeps a quantised copy "
                            "of its own: fp8 projections) and rebuilt by running the module again. Each "
                            "name once; a module the model lacks changes nothing (warning "
                            "parallel.recompute_module_absent).")},
                 {"zero_stage", integer(0, 3)
                                    .desc("0 = replicated optimizer, 1 = sharded optimizer state, 2 = plus "
                                          "gradients, 3 = plus weights.")
                                    .def(p.zero_stage)},
                 {"zero_shard",
                  integer(1, kMaxDevices)
                      .desc(
                          "Hybrid sharding: how many of the dp x cp data-parallel ranks share one copy of "
                          "the ZeRO state (PyTorch FSDP HYBRID_SHARD, MiCS partition groups); the other "
                          "ranks "
                          "hold replicas, so gradients are reduce-scattered inside the group and all-reduced "
                          "between the groups, and ZeRO-3 gathers weights inside the group only. Must divide "
                          "dp x cp and needs zero_stage >= 1. Default: all of them (plain ZeRO). Routed "
                          "experts keep their expert-data-parallel sharding.")},
                 {"offload_layers",
                  integer(0, kMaxCount)
                      .desc("Training: layers whose saved activations wait in host memory between their "
                            "forward and backward (Megatron-Core cpu_offloading_num_layers). The device "
                            "keeps one layer's more for the copy back; the copies run at the system's "
                            "host_link_GBps beside the passes and stall them only by what they take "
                            "beyond (breakdown host). Needs pp 1, recompute none, fewer than the model's "
                            "layers and a system with host_link_GBps. memory.host_bytes reports the host "
                            "memory one device fills.")
                      .def(p.offload_layers)},
             })
      .title("Parallel layout")
      .desc("The parallel layout. For inference only tp and pp matter (a replica spans tp pp devices).");
}

Node economics_schema() {
  const Economics e{};
  return object(
             {{"name", text()},
              {"source", text()},
              {"notes", notes()},
              {"usd_per_gpu_hour", number(1e-6, 1e6)
                                       .desc("Rental price of one device for an hour, energy included. "
                                             "Not with the capital terms.")
                                       .unit("USD/h")},
              {"gpu_price_usd", number(1, 1e9)
                                    .desc("Capital form: installed price per device. Default: the "
                                          "device's price_usd.")
                                    .unit("USD")},
              {"amortisation_years",
               number(0.01, 100).desc("Capital form: years of use.").unit("years").def(e.amortisation_years)},
              {"utilisation", number(1e-3, 1)
                                  .desc("Capital form: share of the hours spent on jobs.")
                                  .unit("fraction")
                                  .def(e.utilisation)},
              {"usd_per_kwh", number(1e-6, 100)
                                  .desc("Energy price (capital form; a rental price includes energy).")
                                  .unit("USD/kWh")
                                  .def(e.usd_per_kwh)},
              {"pue", number(1, 10).desc("Power usage effectiveness of the facility.").def(e.pue)},
              {"grid_kg_co2_per_kwh",
               number(0, 10).desc("Grid carbon intensity; 0 or absent = no co2_t.").unit("kg/kWh")}})
      .title("Economics")
      .desc("Cost of devices and energy: usd_per_gpu_hour (rental) or capital terms plus usd_per_kwh.");
}

Node training_schema() {
  const TrainingWorkload w{};
  return object(
             {
                 {"global_batch",
                  integer(1, kMaxCount).desc("Sequences per optimizer step.").unit("sequences")},
                 {"seq_len", integer(1, 100'000'000).desc("Sequence length.").unit("tokens")},
                 {"precision", choice(kTrainingPrecisions)
                                   .desc("Math precision (fp8: fp8 matrix multiplies, bf16 elsewhere).")
                                   .def(name(w.precision))},
                 {"train_tokens",
                  number(1, 1e18)
                      .desc("Tokens to train on: time_to_train_s and the whole-run block `run`; absent = "
                            "not asked.")
                      .unit("tokens")},
                 {"batch_ramp",
                  array_of(pair_of(number(1, 1e18).unit("tokens"), integer(1, kMaxCount).unit("sequences")),
                           1)
                      .desc("Batch ramp: [tokens, global_batch] steps trained before the steady "
                            "global_batch (the rest of train_tokens). Needs train_tokens; the steps' "
                            "tokens may not exceed it.")},
                 {"checkpoint_interval_s",
                  number(1e-3, 1e9)
                      .desc("Compute time between two checkpoints. Absent: Young/Daly, sqrt(2 delta M) - "
                            "delta. Needs train_tokens.")
                      .unit("s")},
                 {"stages",
                  array_of(
                      object(
                          {{"tokens", number(1, 1e18).desc("Tokens trained in this stage.").unit("tokens")},
                           {"seq_len", integer(1, 100'000'000)
                                           .desc("Its sequence length. Default: training.seq_len.")
                                           .unit("tokens")},
                           {"global_batch",
                            integer(1, kMaxCount)
                                .desc("Its sequences per step. Default: training.global_batch.")
                                .unit("sequences")},
                           {"parallel",
                            one_of({object({{"tp", integer(1, kMaxDevices)},
                                            {"pp", integer(1, kMaxDevices)},
                                            {"cp", integer(1, kMaxDevices)},
                                            {"dp",
                                             integer(1, kMaxDevices)
                                                 .desc("Default: num_devices / (tp pp cp) when tp, pp or cp "
                                                       "change, else the scenario's.")},
                                            {"micro_batch", integer(1, kMaxCount).unit("sequences")},
                                            {"interleave", integer(1, 100'000)},
                                            {"recompute", choice<Recompute>()}})
                                        .title("Stage layout keys")
                                        .desc("Layout keys changed for this stage (the others are the "
                                              "scenario's, or the layout parallel \"auto\" chose)."),
                                    node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                                        .desc("The layout search picks the stage's fastest layout that fits "
                                              "on its own sequences and batch (run.stages[i].parallel says "
                                              "which).")})
                                .desc("The stage's layout: keys changed from the scenario's, or \"auto\".")}},
                          {"tokens"})
                          .title("Training stage"),
                      1, kMaxTrainingStages)
                      .desc("Later stages of the run, in order after train_tokens, each at its own sequence "
                            "length, batch and layout (a context extension: longer sequences over more cp "
                            "ranks). Their steps, time, energy and cost are in `run`, each stage in "
                            "run.stages. Needs train_tokens.")},
                 {"attention", choice<AttentionKernel>().desc(
                                   "Attention kernel. Default: the system's software.attention.")},
                 {"overlap_grad_reduce",
                  boolean().desc("Overlap the gradient reduction. Default: the system's software default.")},
                 {"tp_comm_overlap",
                  boolean().desc(
                      "Overlap tensor-parallel communication. Default: the system's software default.")},
             },
             {"global_batch", "seq_len"})
      .title("Training workload");
}

// A request length as read by json_io.cpp read_length.
Node length_schema(const std::string& what) {
  return one_of({integer(1, kMaxServingLength).desc("Every request the same length.").unit("tokens"),
                 object({{"mean", number(1, static_cast<double>(kMaxServingLength)).unit("tokens")},
                         {"max", integer(1, kMaxServingLength).unit("tokens")},
                         {"min", integer(1, kMaxServingLength).unit("tokens").def(1)}},
                        {"mean", "max"})
                     .title("Length distribution")
                     .desc("A truncated exponential on [min, max] with this mean (min < mean < max): "
                           "long-tailed like chat traces when the mean is below the midpoint."),
                 object({{"uniform", pair_of(integer(1, kMaxServingLength), integer(1, kMaxServingLength))}},
                        {"uniform"})
                     .title("Uniform lengths")
                     .desc("[min, max] (min <= max): every whole length in the range equally likely, as "
                           "vLLM's benchmark_serving random dataset draws them with --random-range-ratio."),
                 array_of(pair_of(integer(1, kMaxServingLength), number(0, 1e12)), 1)
                     .desc("[length, weight] points (weights need not add up to 1).")})
      .desc(what + " Default: the inference block's " +
            (what.rfind("Prompt", 0) == 0 ? "prompt_len." : "output_len."));
}

Node pool_schema(const std::string& what) {
  return object(
             {{"tp", integer(1, kMaxDevices).def(1)},
              {"pp", integer(1, kMaxDevices).def(1)},
              {"replicas", integer(1, kMaxDevices).def(1)},
              {"ep", integer(1, kMaxDevices)
                         .desc("Expert-parallel degree of the pool's MoE layers: dividing tp, or with tp 1 "
                               "dividing replicas (attention data parallelism). Default: parallel.ep "
                               "where the pool admits it, else 1.")},
              {"max_batch",
               integer(1, kMaxRequests).desc("The pool's own max_batch (default: the stream's).")},
              {"max_num_tokens",
               integer(1, kMaxServingLength).desc("The pool's own max_num_tokens (default: the stream's).")},
              {"gpu_memory_utilization",
               number(0.01, 1).desc("The pool's own share of device memory (default: the stream's).")},
              {"free_gpu_memory_fraction",
               number(0.01, 1).desc("The pool's own share of the memory the weights and workspace leave (not "
                                    "with gpu_memory_utilization).")},
              {"speculative",
               boolean().desc("false: this pool drafts nothing although inference.speculative is given "
                              "(speculation on the decode pool only). Default true.")},
              {"expert_slots", integer(1, 1'000'000)
                                   .desc("The pool's expert slots (parallel.expert_slots): redundant "
                                         "copies of hot experts beyond the model's count.")}})
      .title(what + " pool")
      .desc("Replicas of tp x pp devices.");
}

Node serving_schema() {
  const ServingSpec v{};
  return object(
             {
                 {"arrival", choice<Arrival>()
                                 .desc("How requests come: a Poisson stream at requests_per_s, a closed loop "
                                       "of `concurrency` clients (each sends its next request when the last "
                                       "ends), or all at time 0 (offline throughput).")
                                 .def(name(v.arrival))},
                 {"requests_per_s",
                  one_of(
                      {number(1e-6, 1e6).unit("requests/s"),
                       node({{"type", "string"}, {"const", "inf"}})
                           .desc("Unbounded: every request at once (the literal Infinity reads the same).")})
                      .desc("Poisson arrival rate of the whole deployment (required for poisson).")},
                 {"concurrency",
                  integer(1, kMaxRequests).desc("Clients of a closed loop (required for closed).")},
                 {"num_requests", integer(1, kMaxRequests).desc("Requests simulated.").def(v.num_requests)},
                 {"input_len", length_schema("Prompt tokens per request.")},
                 {"output_len", length_schema("Generated tokens per request.")},
                 {"max_batch",
                  integer(1, kMaxRequests)
                      .desc("Sequences per step (TensorRT-LLM max_batch_size, vLLM max_num_seqs).")
                      .unit("sequences")
                      .def(v.max_batch)},
                 {"max_num_tokens",
                  integer(1, kMaxServingLength)
                      .desc("Token budget of one step; longer prompts are prefilled in chunks.")
                      .unit("tokens")
                      .def(v.max_num_tokens)},
                 {"kv_block_tokens", integer(1, 65'536)
                                         .desc("Tokens per paged KV block.")
                                         .unit("tokens")
                                         .def(v.kv_block_tokens)},
                 {"gpu_memory_utilization",
                  number(0.01, 1)
                      .desc("Share of device memory for weights, the prefill workspace and the KV cache.")
                      .def(v.gpu_memory_utilization)},
                 {"free_gpu_memory_fraction",
                  number(0.01, 1).desc(
                      "TensorRT-LLM's KvCacheConfig.free_gpu_memory_fraction: the KV cache takes this "
                      "share of the memory the weights and the prefill workspace leave, instead of "
                      "gpu_memory_utilization's share of the device (not both).")},
                 {"kv_admission",
                  choice<KvAdmission>()
                      .desc("reserve: a request claims KV for its prompt and whole output when admitted, "
                            "nothing is evicted (TensorRT-LLM GUARANTEED_NO_EVICT); on_demand: blocks as the "
                            "context grows, the newest request preempted and later recomputed when they run "
                            "out (vLLM).")
                      .def(name(v.kv_admission))},
                 {"request_overhead_ms",
                  number(0, 1e5)
                      .desc(
                          "Host time the serving front end adds to each request outside the GPU's steps "
                          "(receiving and tokenising it, detokenising and streaming the first token): added "
                          "to its time to first token and end-to-end latency, not to throughput. Default "
                          "fitted on TensorRT-LLM v0.14's online serving rows.")
                      .unit("ms")
                      .def(v.request_overhead_s * 1e3)},
                 {"step_overhead_ms",
                  number(0, 1e4)
                      .desc("Host time the scheduler spends between two steps while the GPU waits (forming "
                            "the batch, sampling bookkeeping, streaming each new token): added to every "
                            "step. 0 for a runtime that overlaps it with the next step. Default fitted on "
                            "TensorRT-LLM v0.14's online serving rows.")
                      .unit("ms")
                      .def(v.step_overhead_s * 1e3)},
                 {"step_overhead_us_per_request",
                  number(0, 1e5)
                      .desc("Host time per scheduled request in every step, on the step's critical path "
                            "(a Python executor's per-request sampling bookkeeping, stop checks and token "
                            "hand-off): a step takes this times the requests it schedules on top of the "
                            "GPU's time and step_overhead_ms. Default 0; the tensorrt-llm-pytorch profile "
                            "13.8 (TensorRT-LLM PR #11983's measured sampling host time per request).")
                      .unit("us")
                      .def(v.step_overhead_per_request_s * 1e6)},
                 {"overlap_schedule",
                  boolean()
                      .desc("The scheduler prepares the next step on the host while the GPU runs this one "
                            "(SGLang's overlap scheduler): a step takes the longer of the GPU's time and the "
                            "host time above instead of their sum. Default false; the sglang profile true.")
                      .def(v.overlap_schedule)},
                 {"slo",
                  object(
                      {{"ttft_s", number(1e-6, 1e6).desc("Time to first token objective.").unit("s")},
                       {"tpot_s", number(1e-6, 1e6).desc("Time per output token objective.").unit("s")},
                       {"itl_s",
                        number(1e-6, 1e6)
                            .desc(
                                "Objective on the gap between two tokens, over every token of every "
                                "request (Sarathi-Serve's P99 time between tokens): a step that also "
                                "prefills prompt chunks lengthens the gap of every sequence decoding in it.")
                            .unit("s")},
                       {"percentile", number(1, 100).desc("Percentile the objectives hold at.").def(90)}})
                      .title("Service-level objectives")
                      .desc("At least one of ttft_s, tpot_s and itl_s. A request counts towards goodput when "
                            "it meets the TTFT and TPOT objectives; the ITL objective, over tokens, decides "
                            "whether the objectives are met.")},
                 {"disaggregated",
                  object({{"prefill", pool_schema("Prefill")}, {"decode", pool_schema("Decode")}},
                         {"prefill", "decode"})
                      .title("Disaggregated prefill and decode")
                      .desc(
                          "Prompts run on the prefill pool, their KV cache moves over the scale-out network "
                          "to the decode pool. The pools' devices add up to num_devices.")},
                 {"seed",
                  integer(0, 9'007'199'254'740'991).desc("Seed of request lengths and arrivals.").def(1)},
             })
      .title("Serving")
      .desc(
          "Continuous batching over a stream of requests (paged KV cache, chunked prefill); absent: one "
          "static batch. Defaults describe TensorRT-LLM's in-flight batching.");
}

Node inference_schema() {
  const InferenceWorkload w{};
  return object(
             {
                 {"batch",
                  integer(1, 100'000'000).desc("Sequences decoded together.").unit("sequences").def(w.batch)},
                 {"prompt_len", integer(1, 100'000'000).desc("Prompt length.").unit("tokens")},
                 {"output_len",
                  integer(1, 100'000'000).desc("Generated tokens per sequence.").unit("tokens")},
                 {"precision",
                  choice(kInferencePrecisions).desc("Precision of weights and math.").def(name(w.precision))},
                 {"kv_precision",
                  choice(kInferencePrecisions).desc("Precision of the KV cache. Default: precision.")},
                 {"weight_group_size",
                  integer(1, 1'000'000)
                      .desc("Elements per quantisation group of int4 or int8 weights: each group adds a "
                            "16-bit scale and a 16-bit zero point (4 / group bytes per weight) to what "
                            "every step reads and to the weights' memory. Default: 128 for int4 (AWQ, "
                            "GPTQ, TensorRT-LLM int4_awq), per output channel (negligible) for int8. "
                            "Error inference.weight_group_size_without_integer_weights with another "
                            "precision.")
                      .unit("elements")},
                 {"fp8_block_scaled",
                  boolean()
                      .desc("fp8 weights and activations with fine-grained scales (128 x 128 weight "
                            "blocks, 1 x 128 activation tiles: the FP8 checkpoints of DeepSeek-V3/R1 and "
                            "Qwen3) instead of one scale per tensor or channel. On a device without "
                            "block-scaled tensor-core instructions (Hopper) the GEMMs take the software's "
                            "block_fp8_gemm kernels' time. Error inference.fp8_block_scaled_without_fp8 "
                            "with another precision.")
                      .def(false)},
                 {"cuda_graphs",
                  boolean().desc(
                      "The runtime replays captured CUDA graphs: no host launch interval per kernel. "
                      "Absent or false: the system's software.launch_interval_us applies (a serving "
                      "simulation assumes true unless it is false).")},
                 {"serving", serving_schema()},
                 {"speculative",
                  object(
                      {
                          {"draft_tokens",
                           integer(1, 64).desc("Tokens the draft proposes per step (k).").unit("tokens")},
                          {"acceptance_rate",
                           number(0, 1)
                               .desc("Probability that each drafted token is accepted, independently "
                                     "(Leviathan et al. 2023's alpha). Required with a draft model; with "
                                     "mtp, 0.85 (DeepSeek-V3's measured 85-90% for its MTP module).")
                               .def(0.85)},
                          {"draft",
                           one_of({node({{"type", "string"}, {"const", "mtp"}, {"examples", {"mtp"}}}),
                                   preset_id("models"), ref("model")})
                               .desc("mtp (a one-layer multi-token-prediction head on the target's "
                                     "embedding and LM head), or a draft model: a preset id or an "
                                     "inline model with the target's vocabulary.")
                               .def("mtp")},
                      },
                      {"draft_tokens"})
                      .title("Speculative decoding")
                      .desc("Each decode step drafts draft_tokens tokens per sequence and the target "
                            "verifies them in one step; a sequence gains (1 - a^(k+1)) / (1 - a) tokens "
                            "per step. The draft's weights and KV cache share the devices.")},
             },
             {"prompt_len", "output_len"})
      .title("Inference workload");
}

// ---- Prediction --------------------------------------------------------------------------------

// The scenario's rl block (issue 40; core/rl/rl.h, io/json_io.cpp read_rl).
Node rl_schema() {
  const RlWorkload v{};
  const ParallelPlan p{};
  const auto model_ref = [] { return one_of({preset_id("models"), ref("model")}); };
  return object(
             {
                 {"algorithm", choice<RlAlgorithm>()
                                   .desc("grpo: group-relative advantages, no critic; ppo: adds a critic "
                                         "(a second trained model).")
                                   .def(name(v.algorithm))},
                 {"critic", model_ref().desc("ppo: the critic's model (preset id or inline); absent = the "
                                             "policy's shape.")},
                 {"prompts_per_step", integer(1, kMaxRequests).desc("Prompts per RL step.").def(512)},
                 {"samples_per_prompt",
                  integer(1, kMaxRequests)
                      .desc("Responses generated per prompt (default 16 for grpo, 1 for ppo); prompts x "
                            "samples at most 1,000,000.")},
                 {"prompt_len",
                  length_schema("Prompt tokens (default 1024): a whole number is the longest prompt "
                                "(max_prompt_length), the mean assumed at a fifth of it; {mean, max} "
                                "states the mean, a weights list exact lengths.")},
                 {"response_len",
                  length_schema("Response tokens (default 4096): a whole number is the longest response "
                                "(max_response_length), the mean assumed at a quarter of it; {mean, max} "
                                "states the mean, a weights list exact lengths. The synchronous step "
                                "waits for the longest.")},
                 {"reference", boolean().desc("A frozen reference model's forward (the KL term).").def(true)},
                 {"reward_model",
                  model_ref().desc("A reward model's forward over prompt + response; absent = "
                                   "a rule-based reward at no GPU cost.")},
                 {"old_logprob", boolean()
                                     .desc("Recompute the behaviour policy's log-probabilities with the "
                                           "trainer.")
                                     .def(true)},
                 {"mini_batches", integer(1, kMaxCount).desc("Optimizer steps per RL step.").def(1)},
                 {"placement", choice<RlPlacement>()
                                   .desc("colocated: one pool time-shares rollout and training; split: "
                                         "rollout_devices + train_devices = num_devices.")
                                   .def(name(v.placement))},
                 {"rollout_devices",
                  integer(1, kMaxDevices).desc("split: the rollout pool.").unit("devices")},
                 {"train_devices", integer(1, kMaxDevices).desc("split: the training pool.").unit("devices")},
                 {"rollout",
                  object({{"tp", integer(1, kMaxDevices)
                                     .desc("Absent: the smallest that holds the longest "
                                           "response.")},
                          {"pp", integer(1, kMaxDevices).def(1)},
                          {"ep", integer(1, kMaxDevices)},
                          {"dp", integer(1, kMaxDevices).desc("Absent: what tp x pp leave of the pool.")},
                          {"software", text().desc("A serving profile (presets/software id).").def("vllm")},
                          {"precision", choice(kInferencePrecisions).def(name(v.rollout.precision))},
                          {"max_batch", integer(1, kMaxRequests)
                                            .desc("Sequences per engine step (the "
                                                  "profile's by default).")},
                          {"gpu_memory_utilization",
                           number(0.01, 1).desc("The engine's share of device "
                                                "memory (the profile's by default).")}})
                      .desc("The rollout engine.")},
                 {"train",
                  one_of({object({{"tp", integer(1, kMaxDevices).def(1)},
                                  {"pp", integer(1, kMaxDevices).def(1)},
                                  {"cp", integer(1, kMaxDevices).def(1)},
                                  {"dp", integer(1, kMaxDevices).desc("Absent: what the others leave.")},
                                  {"ep", integer(1, kMaxDevices).def(1)},
                                  {"etp", integer(1, kMaxDevices).def(1)},
                                  {"micro_batch", integer(1, kMaxCount).def(1)},
                                  {"recompute", choice<Recompute>().def(name(p.recompute))},
                                  {"zero_stage", integer(0, 3).def(0)},
                                  {"precision", choice(kTrainingPrecisions).def(name(v.train_precision))}})
                              .title("RL trainer layout"),
                          node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                              .desc("The layout search picks the trainer's layout.")})
                      .desc("The trainer's layout on its pool.")},
                 {"async", object({{"staleness", integer(0, 1000).desc("Steps a rollout may lag the "
                                                                       "policy; 0 = on-policy.")}},
                                  {"staleness"})
                               .desc("Asynchronous RL (split placement).")},
                 {"weight_sync", choice<RlWeightSync>()
                                     .desc("nccl: broadcast over the fabric; checkpoint: through storage.")
                                     .def(name(v.weight_sync))},
                 {"train_steps", integer(1, kMaxCount).desc("RL steps of a whole run (the run block).")},
             })
      .desc("RL post-training (GRPO / PPO): one step of rollout, scoring, training and weight sync.");
}

Node seconds(const std::string& what) { return amount().desc(what).unit("s"); }

Node memory_schema() {
  return output(
             {
                 {"per_device_bytes", output({
                                                 {"weights", amount().unit("bytes")},
                                                 {"gradients", amount().unit("bytes")},
                                                 {"optimizer", amount().unit("bytes")},
                                                 {"activations", amount().unit("bytes")},
                                                 {"kv_cache", amount().unit("bytes")},
                                                 {"total", amount().unit("bytes")},
                                             })
                                          .title("Memory by category")
                                          .desc("The most loaded device (training: the first pipeline "
                                                "stage).")},
                 {"capacity_bytes", amount().desc("Device memory capacity.").unit("bytes")},
                 {"fits", boolean().desc("total <= capacity.")},
                 {"host_bytes", amount()
                                    .desc("Training with parallel.offload_layers: the offloaded "
                                          "activations one device keeps in host memory (not in "
                                          "total).")
                                    .unit("bytes")},
             },
             {"host_bytes"})
      .title("Memory");
}

Node training_output_schema() {
  const Props breakdown = {
      {"compute", seconds("")},
      {"recompute", seconds("")},
      {"tp_comm", seconds("")},
      {"cp_comm", seconds("")},
      {"pp_comm", seconds("")},
      {"dp_comm", seconds("")},
      {"bubble", seconds("")},
      {"optimizer", seconds("")},
      {"ep_comm", seconds("MoE token dispatch/combine (all-to-all) and expert-tensor reductions.")},
      {"host", seconds("Devices waiting for the host to issue kernels (dropless MoE layers sync with the "
                       "host once per layer, software.training_launch_interval_us; a stack that "
                       "synchronises after each pipeline exchange, software.pipeline_sync_us; activations "
                       "offloaded to host memory, parallel.offload_layers, whose copies outlast the "
                       "pass they run beside).")},
  };
  return output(
             {
                 {"iteration_time_s", seconds("Wall time of one optimizer step.")},
                 {"tokens_per_s", amount().desc("global_batch x seq_len / iteration time.").unit("tokens/s")},
                 {"mfu", amount().desc("Model FLOPs utilisation.").unit("fraction")},
                 {"hfu",
                  amount().desc("Hardware FLOPs utilisation (recomputation counted).").unit("fraction")},
                 {"time_to_train_s", seconds("Time to train on train_tokens (when given).")},
                 {"breakdown_s",
                  output(breakdown)
                      .title("Training breakdown")
                      .desc("Exposed (non-overlapped) time per cause on the critical path; sums "
                            "to iteration_time_s.")},
                 {"by_bound_s", output({{"compute", seconds("")},
                                        {"memory", seconds("")},
                                        {"communication", seconds("")},
                                        {"other", seconds("")}})
                                    .desc("The iteration time by what bounds it.")},
                 {"micro_batches", count().desc("Micro-batches per pipeline per step.")},
                 {"layer_s",
                  output({{"forward", seconds("")}, {"backward", seconds("")}, {"recompute", seconds("")}})
                      .desc("One layer, one micro-batch.")},
                 {"moe",
                  output({{"tokens_per_expert",
                           amount().desc(
                               "Tokens one local expert processes per micro-batch on the busiest rank.")},
                          {"dispatch_bytes",
                           amount()
                               .desc("All-to-all bytes one rank sends per MoE layer and micro-batch (the "
                                     "combine sends as many back).")
                               .unit("bytes")},
                          {"all_to_all_layer_s",
                           seconds("Dispatch + combine of one MoE layer, forward, one micro-batch.")},
                          {"expert_params_per_device",
                           amount().desc("Routed-expert parameters on one device.").unit("parameters")},
                          {"expert_dp",
                           count().desc("Expert-data-parallel replicas: tp x cp x dp / (ep x etp).")},
                          {"layers_first_stage",
                           count().desc("MoE layers on the first pipeline stage (whose expert parameters "
                                        "expert_params_per_device counts).")}})
                      .desc("What the MoE layers do (mixture-of-experts models only).")},
                 {"model_flops", amount().desc("Per iteration, whole job.").unit("FLOP")},
                 {"hardware_flops",
                  amount().desc("Per iteration, whole job, recomputation included.").unit("FLOP")},
                 {"assumed", output({{"attention", choice<AttentionKernel>()},
                                     {"overlap_grad_reduce", boolean()},
                                     {"tp_comm_overlap", boolean()}})
                                 .desc("The software choices in effect.")},
             },
             {"time_to_train_s", "moe"})
      .title("Training result");
}

Node operator_schema() {
  return output({
                    {"name", text().desc("Operator name.")},
                    {"phase", text().desc("prefill or decode.")},
                    {"flops", amount().desc("Per device, per execution.").unit("FLOP")},
                    {"bytes", amount().desc("Memory bytes per device, per execution.").unit("bytes")},
                    {"arithmetic_intensity", amount().unit("FLOP/byte")},
                    {"time_s", seconds("Per execution.")},
                    {"achieved_flops_per_s", amount().unit("FLOP/s")},
                    {"bound", choice<Bound>().desc("What bounds its time.")},
                    {"count", amount().desc("Executions per phase (layers on the stage).")},
                })
      .title("Operator")
      .desc("One operator of the inference task graph (per device) with its roofline numbers.");
}

Node serving_output_schema() {
  const auto latency = [](const std::string& what) {
    return output({{"mean", seconds("")}, {"p50", seconds("")}, {"p90", seconds("")}, {"p99", seconds("")}})
        .desc(what + " over the completed requests.");
  };
  return output(
             {
                 {"requests_per_s", amount().desc("Completed requests / duration.").unit("requests/s")},
                 {"input_tokens_per_s",
                  amount().desc("Prompt tokens / duration, whole deployment.").unit("tokens/s")},
                 {"output_tokens_per_s",
                  amount().desc("Generated tokens / duration, whole deployment.").unit("tokens/s")},
                 {"output_tokens_per_s_per_gpu",
                  amount().desc("output_tokens_per_s / devices.").unit("tokens/s")},
                 {"ttft_s", latency("Time to first token (arrival to the end of the prompt's last chunk)")},
                 {"tpot_s", latency("Time per output token after the first (inter-token latency)")},
                 {"mean_itl_s",
                  seconds(
                      "Token-weighted mean inter-token latency: the sum over requests of (last token - first "
                      "token) / the sum of (output - 1), every gap counted once (\"Mean ITL\" of "
                      "TensorRT-LLM's and vLLM's benchmarks); tpot_s.mean weights each request once, and "
                      "the two are equal when every output has the same length.")},
                 {"itl_s",
                  latency(
                      "Inter-token latency, token-weighted (mean equals mean_itl_s; the percentiles from "
                      "log-spaced bins 0.7% wide, as vLLM's \"Median / P99 ITL\"; a step that also prefills "
                      "prompt chunks lengthens the gap of every sequence decoding in it, a preempted or "
                      "queued request's wait is one gap, a verified speculation's n tokens n gaps of a 1/n "
                      "share each): every gap between two output tokens counted once")},
                 {"e2e_latency_s", latency("Arrival to last token")},
                 {"mean_batch",
                  amount().desc("Time-weighted sequences per step, per replica.").unit("sequences")},
                 {"kv_utilisation", amount().desc("Time-weighted share of KV blocks in use.")},
                 {"preemptions", count().desc("Requests evicted for KV blocks and recomputed (on_demand).")},
                 {"goodput_requests_per_s",
                  amount()
                      .desc("Requests meeting both SLOs / duration (all of them without an slo).")
                      .unit("requests/s")},
                 {"duration_s", seconds("First arrival to last completion.")},
                 {"completed", count().desc("Requests simulated.")},
                 {"steps", count().desc("Scheduler steps simulated, all replicas.")},
                 {"replicas", count().desc("Replicas (both pools when disaggregated).")},
                 {"devices", count().desc("Devices of the deployment.")},
                 {"kv_capacity_tokens",
                  count().desc("KV cache capacity of one replica (the decode pool's).").unit("tokens")},
                 {"max_batch", count().desc("The scheduler's sequence limit in effect.").unit("sequences")},
                 {"max_num_tokens", count().desc("The step token budget in effect.").unit("tokens")},
                 {"kv_transfer_s", seconds("Mean prefill-to-decode KV hand-off (disaggregated; else 0).")},
                 {"slo", output({{"ttft_s", seconds("Objective (0: none).")},
                                 {"tpot_s", seconds("Objective (0: none).")},
                                 {"itl_s", seconds("Objective (0: none).")},
                                 {"percentile", amount()},
                                 {"ttft_at_percentile", seconds("Over the requests.")},
                                 {"tpot_at_percentile", seconds("Over the requests.")},
                                 {"itl_at_percentile", seconds("Over every inter-token gap (itl_s).")},
                                 {"met", boolean().desc("Every objective given holds at the percentile.")}})
                             .desc("When the scenario states objectives.")},
                 {"timeline",
                  array_of(output({{"t_s", seconds("End of the step since the first arrival.")},
                                   {"step_s", seconds("Its duration.")},
                                   {"running", count()},
                                   {"waiting", count()},
                                   {"prefill_tokens", count()},
                                   {"decode_tokens", count()},
                                   {"kv_utilisation", amount()}})
                               .title("Step sample"))
                      .desc("Steps of the first replica (the decode pool's when disaggregated), sampled at "
                            "most 256 times.")},
                 {"cost", ref("token_cost")},
             },
             {"slo", "cost"})
      .title("Serving result");
}

Node token_cost_schema() {
  return output({{"device_power_W", amount().desc("Mean draw of one device over the steps.").unit("W")},
                 {"joules_per_token",
                  amount()
                      .desc("Energy per output token at the meter (devices, node overhead, PUE).")
                      .unit("J")},
                 {"tokens_per_joule", amount().desc("Its inverse.").unit("tokens/J")},
                 {"usd_per_million_output_tokens",
                  amount()
                      .desc("Device-hours (and energy, capital form) per million output tokens; absent "
                            "without a device price.")
                      .unit("USD")}},
                {"usd_per_million_output_tokens"})
      .title("Token cost")
      .desc("Energy and price of an output token at the scenario's operating point.");
}

Node chosen_layout_schema() {
  return output({{"tp", count()},
                 {"pp", count()},
                 {"dp", count()},
                 {"cp", count()},
                 {"ep", count()},
                 {"etp", count()},
                 {"expert_slots", count()},
                 {"sequence_parallel", boolean()},
                 {"micro_batch", count()},
                 {"interleave", count()},
                 {"recompute", choice<Recompute>()},
                 {"zero_stage", count()},
                 {"zero_shard", count()}},
                {"zero_shard"})
      .title("Chosen layout");
}

Node rl_output_schema() {
  const auto pool_memory = output({{"per_device_bytes", amount().unit("bytes")},
                                   {"capacity_bytes", amount().unit("bytes")},
                                   {"fits", boolean()},
                                   {"what", text().desc("What does not fit (empty when it fits).")}});
  return output(
             {
                 {"step_time_s", seconds("One RL step: colocated, the sum of the phases; split "
                                         "asynchronous, the slower pool plus the weight sync.")},
                 {"phases_s",
                  output({{"rollout", seconds("The rollout's makespan (first prompt to last response).")},
                          {"reward", seconds("Reward model forward (0: rule-based).")},
                          {"reference", seconds("Reference model forward.")},
                          {"old_logprob", seconds("Old log-prob forward (and ppo's critic values).")},
                          {"train", seconds("mini_batches optimizer steps (and ppo's critic's).")},
                          {"weight_sync", seconds("The policy's weights to the engine.")},
                          {"swap", seconds("Colocated: engine (and trainer) state to host and back.")}})},
                 {"idle_s", output({{"rollout", seconds("The rollout pool waiting per step.")},
                                    {"train", seconds("The training pool waiting per step.")}})},
                 {"placement", text()},
                 {"staleness", count()},
                 {"tokens_per_step",
                  amount().desc("Prompt + response tokens trained per step.").unit("tokens")},
                 {"tokens_per_s", amount().unit("tokens/s")},
                 {"tokens_per_s_per_gpu", amount().unit("tokens/s")},
                 {"rollout",
                  output({{"devices", count()},
                          {"parallel", ref("chosen_layout")},
                          {"responses", count()},
                          {"output_tokens", amount().unit("tokens")},
                          {"output_tokens_per_s", amount().unit("tokens/s")},
                          {"longest_response_s", seconds("First prompt to the last response.")},
                          {"mean_response_s", seconds("Mean time of a response.")},
                          {"mean_batch", amount().desc("Time-weighted running sequences per replica.")},
                          {"preemptions", count()}})},
                 {"train", output({{"devices", count()},
                                   {"parallel", ref("chosen_layout")},
                                   {"global_batch", count().desc("Sequences per optimizer step.")},
                                   {"seq_len", count().unit("tokens")},
                                   {"iteration_time_s", seconds("One optimizer step.")},
                                   {"mini_batches", count()},
                                   {"mfu", amount().unit("fraction")},
                                   {"critic_s", seconds("ppo: the critic's forward and update.")}})},
                 {"weight_sync", output({{"method", text()}, {"bytes", amount().unit("bytes")}})},
                 {"swap_bytes_per_device", amount().unit("bytes")},
                 {"memory", output({{"rollout", pool_memory}, {"train", pool_memory}})},
                 {"run", output({{"train_steps", count()},
                                 {"wall_days", amount().unit("days")},
                                 {"gpu_hours", amount().unit("device-hours")},
                                 {"energy_mwh", amount().unit("MWh")},
                                 {"cost_usd", amount().unit("USD")}})
                             .desc("With train_steps.")},
             },
             {"run"})
      .title("RL result");
}

Node run_output_schema() {
  return output(
             {
                 {"steps",
                  count().desc(
                      "Optimizer steps: the batch ramp's, then the steady batch's, then the stages'.")},
                 {"ideal_time_s",
                  seconds("Every step at its steady-state time; no failures or checkpoints.")},
                 {"wall_time_s", seconds("Elapsed: ideal_time_s / goodput (over a stated "
                                         "system.operations.production_efficiency too).")},
                 {"wall_days", amount().desc("wall_time_s in days.").unit("days")},
                 {"gpu_hours", amount().desc("num_devices x wall time.").unit("device-hours")},
                 {"energy_mwh", amount().desc("At the meter: devices, node overhead, x PUE.").unit("MWh")},
                 {"device_energy_mwh", amount().desc("The devices alone (no overhead, no PUE).").unit("MWh")},
                 {"device_power_W", amount().desc("Mean draw of one device while training.").unit("W")},
                 {"cost_usd", amount().desc("device-hours x price (+ energy, capital form).").unit("USD")},
                 {"usd_per_million_tokens",
                  amount().desc("cost_usd per million tokens trained.").unit("USD")},
                 {"usd_per_gpu_hour", amount().desc("The device-hour price in effect.").unit("USD/h")},
                 {"co2_t", amount().desc("energy x economics.grid_kg_co2_per_kwh.").unit("t")},
                 {"goodput", amount()
                                 .desc("Compute time / elapsed time: the share failures and checkpoints "
                                       "leave.")
                                 .unit("fraction")},
                 {"checkpoint_interval_s", seconds("Compute between checkpoints (0: none).")},
                 {"checkpoint_s", seconds("The time one checkpoint blocks training (the write; the copy "
                                          "to host memory under operations.checkpoint_async).")},
                 {"checkpoint_write_s", seconds("One checkpoint's write to storage.")},
                 {"checkpoint_bytes",
                  amount().desc("Weights, master weights and optimizer state.").unit("bytes")},
                 {"expected_failures", amount().desc("wall time / job MTBF.")},
                 {"job_mtbf_s", seconds("Mean time between failures of the job (0: no failures).")},
                 {"lost_s", output({{"checkpoint_writes", seconds("")},
                                    {"lost_work", seconds("Work redone after failures.")},
                                    {"restarts", seconds("")},
                                    {"production", seconds("The steps' time beyond the modelled rate at "
                                                           "a stated system.operations."
                                                           "production_efficiency (0 otherwise).")},
                                    {"total", seconds("")}})
                                .desc("wall_time_s - ideal_time_s by cause.")},
                 {"stages",
                  array_of(output({{"tokens", amount().unit("tokens")},
                                   {"seq_len", count().unit("tokens")},
                                   {"global_batch", count().unit("sequences")},
                                   {"parallel", chosen_layout_schema().title("Stage layout")},
                                   {"steps", count()},
                                   {"iteration_time_s", seconds("One step at this stage's steady state.")},
                                   {"tokens_per_s", amount().unit("tokens/s")},
                                   {"mfu", amount().unit("fraction")},
                                   {"ideal_time_s", seconds("tokens / tokens_per_s.")},
                                   {"memory_bytes", amount().desc("Per device, most loaded.").unit("bytes")},
                                   {"fits", boolean()}})
                               .title("Stage result"))
                      .desc("training.stages, each as predicted on its own sequence length, batch and "
                            "layout; included in steps, ideal_time_s and everything after.")},
             },
             {"cost_usd", "usd_per_million_tokens", "usd_per_gpu_hour", "co2_t", "stages"})
      .title("Run result")
      .desc("The whole training run (training.train_tokens).");
}

Node inference_output_schema() {
  const Props split = {{"compute", seconds("")}, {"communication", seconds("")}};
  return output(
             {
                 {"ttft_s", seconds("Time to first token.")},
                 {"tpot_s", seconds("Mean time per later output token.")},
                 {"e2e_latency_s", seconds("ttft + (output_len - 1) tpot.")},
                 {"throughput_tokens_per_s",
                  amount().desc("batch x output_len / e2e latency, one replica.").unit("tokens/s")},
                 {"max_batch",
                  count().desc("Largest batch that fits for the given lengths.").unit("sequences")},
                 {"prefill_s", output(split).desc("The prompt step.")},
                 {"decode_step_s",
                  output(split).desc("One decode step; per output token under speculative decoding.")},
                 {"math_precision", choice<Precision>().desc("The precision the math runs in.")},
                 {"assumed",
                  output({{"launch_interval_us", amount()
                                                     .desc("Host launch interval in effect (0 with "
                                                           "CUDA graphs).")
                                                     .unit("us")}})},
                 {"operators", array_of(ref("operator"))},
                 {"speculative",
                  output({{"tokens_per_step",
                           amount().desc("Tokens a sequence gains per step: (1 - a^(k+1)) / (1 - a).")},
                          {"step_s", seconds("One speculative step at the mean context: draft + verify.")},
                          {"draft_s", seconds("The draft's k passes of one token.")},
                          {"verify_s", seconds("The target's step over k + 1 tokens per sequence.")},
                          {"tpot_without_s", seconds("The plain decode step, one token per sequence.")},
                          {"speedup", amount().desc("tpot_without_s / tpot_s (below 1: speculation "
                                                    "costs more than it saves).")}})
                      .desc("inference.speculative: what speculation does to a decode step.")},
                 {"memory", ref("memory").desc("The inference footprint, when the scenario also trains.")},
                 {"cost", ref("token_cost")},
             },
             {"memory", "cost", "speculative"})
      .title("Inference result");
}

}  // namespace

namespace {

// The scenario's `calibration` (hardware/calibration.h; docs/calibration.md), and its factors as
// the prediction reports them.
Node calibration_factors_schema() {
  Props f;
  for (const auto& [k, n] : EnumNames<CalibrationFactor>::table)
    f.emplace_back(std::string(n), number(0.01, 100)
                                       .desc("Multiplier on the rate (1 = uncalibrated); within the "
                                             "factor's physical bounds on the system (docs/calibration.md).")
                                       .unit("ratio")
                                       .def(1));
  return object(f).desc(
      "matmul: achieved GEMM rate; memory: HBM bandwidth; scale_up / scale_out: the networks' achieved "
      "bandwidth; host: the host's rate (fixed times per kernel and per host-issued operator divided by "
      "it).");
}

Node scenario_calibration_schema() {
  return object({{"device", text().desc("The device's name it was fitted on (system.device.name).")},
                 {"system", text().desc("The system's name it was fitted on.")},
                 {"software",
                  text().desc("The software profile it was fitted on: a presets/software id, \"inline\", or "
                              "\"\" for the system's own software block.")},
                 {"factors", calibration_factors_schema()},
                 {"measurements", integer(0, kMaxCount).desc("Measurements it was fitted on.")},
                 {"band",
                  object({{"low", number(1e-3, 1).unit("ratio")}, {"high", number(1, 1e3).unit("ratio")}},
                         {"low", "high"})
                      .desc("90% band of a calibrated prediction, as multipliers.")},
                 {"notes", notes()}},
                {"device", "factors"})
      .desc(
          "Calibration to measurements (optimus calibrate writes it): applied to the system's rates "
          "when the scenario's device and software are those it was fitted on, else the warning "
          "calibration.not_applicable and the uncalibrated prediction.");
}

}  // namespace

nlohmann::ordered_json scenario_schema() {
  ojson j;
  j["$schema"] = kDraft;
  j["$id"] = "urn:optimus:scenario";
  Node root =
      object(
          {
              {"schema_version", node({{"type", "integer"}, {"const", 1}}).desc("Format version.").def(1)},
              {"name", text().desc("Free text.")},
              {"model",
               one_of({preset_id("models"), ref("model")}).desc("A model preset id or an inline model.")},
              {"system",
               one_of({preset_id("systems"), ref("system"), ref("technology")})
                   .desc("A system preset id, an inline system, or a system of devices derived from "
                         "a technology node.")},
              {"software",
               one_of({preset_id("software"), ref("software_profile")})
                   .desc("The software stack: a presets/software id or an inline profile; absent = "
                         "the system's software block.")},
              {"num_devices", integer(1, kMaxDevices).desc("Devices in the job.")},
              {"parallel",
               one_of({ref("parallel"), node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                                            .desc("The layout search picks the fastest layout that fits "
                                                  "(training; inference: by throughput at batches up to "
                                                  "the scenario's); the output's parallel_auto says which.")})
                   .desc("The parallel layout, or \"auto\".")},
              {"training", ref("training")},
              {"inference", ref("inference")},
              {"rl", ref("rl")},
              {"economics",
               one_of({preset_id("economics"), ref("economics")})
                   .desc("Prices of devices and energy: a presets/economics id or an object laid over "
                         "the default preset (us-2025).")},
              {"calibration", ref("calibration")},
          },
          {"model", "system", "num_devices"})
          .title("Scenario")
          .desc(
              "One question: which model, on which hardware, split how, doing what. At least one of "
              "training and inference.")
          .set("anyOf",
               ojson::array(
                   {{{"required", {"training"}}}, {{"required", {"inference"}}}, {{"required", {"rl"}}}}));
  const ojson body = root.json();
  for (const auto& [k, v] : body.items()) j[k] = v;
  j["$defs"] = {{"model", model_schema().json()},
                {"device", device_schema().json()},
                {"technology", uarch_schema().json()},
                {"scale_up", tier_schema(true).json()},
                {"scale_out", tier_schema(false).json()},
                {"system", system_schema().json()},
                {"parallel", parallel_schema().json()},
                {"training", training_schema().json()},
                {"software", software_schema().json()},
                {"software_profile", software_profile_schema().json()},
                {"inference", inference_schema().json()},
                {"economics", economics_schema().json()},
                {"calibration", scenario_calibration_schema().json()},
                {"rl", rl_schema().json()}};
  return j;
}

nlohmann::ordered_json prediction_schema() {
  ojson j;
  j["$schema"] = kDraft;
  j["$id"] = "urn:optimus:prediction";
  Node root =
      output(
          {
              {"training", ref("training")},
              {"inference", ref("inference")},
              {"serving", ref("serving").desc("When the scenario has inference.serving.")},
              {"run", ref("run").desc("When the scenario has training.train_tokens.")},
              {"rl", ref("rl").desc("When the scenario has an rl job (then no training or inference; memory "
                                    "is the trainer's).")},
              {"parallel_auto",
               output({{"parallel", ref("chosen_layout")},
                       {"mode", text().desc("training or inference: what the search ranked by.")},
                       {"evaluated", count().desc("Layouts in the search space.")},
                       {"feasible", count().desc("Layouts that fit and were timed.")},
                       {"narrowed",
                        output({{"zero_stage", count()}, {"micro_batch", count()}, {"interleave", count()}},
                               {"zero_stage", "micro_batch", "interleave"})
                            .desc("Keys auto fixed because the whole space was past the search's cap "
                                  "(zero_stage 1, then micro_batch 1, then interleave 1, each searched "
                                  "again); empty when the whole space was searched.")}})
                   .desc("With parallel: \"auto\": the layout the search chose (the numbers above are "
                         "its prediction).")},
              {"calibration",
               output({{"applied", boolean()},
                       {"factors", calibration_factors_schema()},
                       {"band", output({{"low", amount()}, {"high", amount()}})
                                    .desc("90% band of the calibrated numbers, as multipliers.")},
                       {"reason", text().desc("Why it did not apply.")},
                       {"uncalibrated",
                        node({{"type", "object"}, {"additionalProperties", amount().json()}})
                            .desc("Each headline number (dotted output path) predicted without the "
                                  "calibration, on the same layout.")}},
                      {"band", "reason", "uncalibrated"})
                   .desc("With a scenario's calibration: whether it applied (device and software match), its "
                         "factors and the uncalibrated headline numbers.")},
              {"memory", ref("memory").desc("Per-device memory (training's when both are asked).")},
              {"params",
               output({{"total", amount().desc("Every parameter of the model.").unit("parameters")},
                       {"active", amount()
                                      .desc("Parameters one token passes through: the routed "
                                            "experts count top_k / experts of theirs.")
                                      .unit("parameters")},
                       {"moe_layers",
                        count().desc("Layers with a mixture-of-experts FFN (0 for a dense model).")}})
                   .desc("Parameter counts of the whole model.")},
              {"warnings",
               array_of(output({{"code", text().desc("Stable dotted code.")}, {"message", text()}})
                            .title("Warning"))},
              {"regime", object({{"training", text()},
                                 {"inference", text()},
                                 {"serving", text()},
                                 {"memory", text()},
                                 {"run", text()}})
                             .desc("The accuracy regime of each workload (training/dense/earlier, "
                                   "training/moe/fp4-generation, inference/eager, inference/graphs, "
                                   "serving/dense, serving/moe, "
                                   "memory/training, run/fp8-generation or run/earlier (a whole training "
                                   "run), ...): what the uncertainty "
                                   "bands are fitted by.")},
              {"uncertainty",
               node({{"type", "object"},
                     {"additionalProperties",
                      output({{"low", amount()},
                              {"high", amount()},
                              {"regime", text().desc("The regime whose band applies (a parent when "
                                                     "the scenario's own has too few rows).")},
                              {"cases", count().desc("Validation rows the band is fitted on.")}})
                          .title("Band")
                          .json()}})
                   .desc("80% bands of the headline numbers, keyed by their dotted output path "
                         "(training.iteration_time_s, inference.ttft_s, serving.output_tokens_per_s, "
                         "memory.per_device_bytes.total, run.gpu_hours, run.wall_days, ...): the 10th-90th "
                         "percentile of measured / "
                         "predicted over the validation rows of the scenario's regime "
                         "(presets/uncertainty/bands.json, scripts/fit_uncertainty.py).")},
          },
          {"training", "inference", "serving", "run", "parallel_auto", "calibration", "rl"})
          .title("Prediction")
          .desc("The output of optimus predict --json.");
  const ojson body = root.json();
  for (const auto& [k, v] : body.items()) j[k] = v;
  j["$defs"] = {{"training", training_output_schema().json()},
                {"inference", inference_output_schema().json()},
                {"serving", serving_output_schema().json()},
                {"operator", operator_schema().json()},
                {"memory", memory_schema().json()},
                {"run", run_output_schema().json()},
                {"rl", rl_output_schema().json()},
                {"chosen_layout", chosen_layout_schema().json()},
                {"token_cost", token_cost_schema().json()}};
  return j;
}

}  // namespace optimus::io
