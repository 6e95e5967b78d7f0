#include "model/spec.h"

#include <algorithm>
#include <string>

#include "model/graph.h"

namespace optimus {

// Sums over the task graph of the whole model on one device without parallelism: each layer
// kind's parameters times its layers. Active parameters per token count the routed experts'
// share top_k / experts (a token passes through top_k of them).
ParamCounts count_params(const ModelSpec& m, std::int64_t seq_len) {
  LayerShape s;
  s.position_rows = seq_len;
  ParamCounts p;
  const KindCounts kinds = model_kinds(m);
  p.moe_layers = moe_count(kinds);
  const std::size_t first = layer_kind(m, 0);
  std::vector<Op> ops;
  bool any = false;
  double layers_total = 0, active_layers = 0;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (kinds[k] == 0) continue;
    layer_forward_ops(m, s, k, ops);
    double attention = 0, mlp = 0, norms = 0, routed = 0, all = 0;
    for (const Op& o : ops) {
      if (o.role == OpRole::qkv || o.role == OpRole::attn_out) attention += o.params;
      if (o.role == OpRole::ffn_up || o.role == OpRole::ffn_down || o.role == OpRole::router) mlp += o.params;
      if (o.role == OpRole::norm) norms += o.params;
      if (o.expert) routed += o.params;
    }
    all = attention + mlp + routed + norms;
    if (k == first) {
      p.attention = attention;
      p.mlp = mlp + routed;
      p.norms = norms;
      p.per_layer = p.attention + p.mlp + p.norms;
      all = p.per_layer;
    }
    layers_total = any ? layers_total + all * kinds[k] : all * kinds[k];
    const double share =
        m.moe ? static_cast<double>(m.moe->top_k) / static_cast<double>(m.moe->experts) : 0.0;
    active_layers += (all - routed + routed * share) * kinds[k];
    p.experts += routed * kinds[k];
    any = true;
  }
  p.embedding = sum_params(embedding_ops(m, s));
  for (const Op& o : head_ops(m, s)) {
    if (o.role == OpRole::lm_head) p.output += o.params;
    if (o.role == OpRole::final_norm) p.final_norm = o.params;
  }
  p.total = layers_total + p.embedding + p.output + p.final_norm;
  p.active = active_layers + p.embedding + p.output + p.final_norm;
  return p;
}

KindCounts model_kinds(const ModelSpec& m) { return kinds_in_range(m, 0, m.layers); }

namespace {

// Multiples of `step` (> 0) in [0, n) for n >= 0.
std::int64_t multiples_below(std::int64_t n, std::int64_t step) { return n <= 0 ? 0 : (n + step - 1) / step; }

// MoE layers in [begin, end): i >= first_dense_layers with (i - first_dense_layers) % layer_freq == 0.
std::int64_t moe_in_range(const ModelSpec& m, std::int64_t begin, std::int64_t end) {
  if (!m.moe) return 0;
  const std::int64_t first = m.moe->first_dense_layers, freq = m.moe->layer_freq;
  const std::int64_t from = std::max(begin, first) - first, to = end - first;
  return to <= from ? 0 : multiples_below(to, freq) - multiples_below(from, freq);
}

}  // namespace

KindCounts kinds_in_range(const ModelSpec& m, std::int64_t begin, std::int64_t end) {
  KindCounts k{};
  begin = std::max<std::int64_t>(begin, 0);
  end = std::min(end, m.layers);
  if (end <= begin) return k;
  if (!m.layer_kinds.empty()) {
    for (std::int64_t i = begin; i < end; ++i) k[m.layer_kinds[static_cast<std::size_t>(i)]] += 1.0;
    return k;
  }
  const std::int64_t all = end - begin, moe = moe_in_range(m, begin, end);
  // Global (full-context) layers and the MoE ones among them; every layer is global without a
  // window or linear attention, none with either and no global_every.
  std::int64_t global = all, moe_global = moe;
  if (has_local_layers(m)) {
    global = 0;
    moe_global = 0;
    if (m.global_every > 0) {
      // Layer i is global when (i + 1) % global_every == 0: walk those (one in global_every).
      const std::int64_t g = m.global_every;
      for (std::int64_t i = (begin + 1 + g - 1) / g * g - 1; i < end; i += g) {
        ++global;
        if (is_moe_layer(m, i)) ++moe_global;
      }
    }
  }
  k[kind_of(false, false)] = static_cast<double>(global - moe_global);
  k[kind_of(true, false)] = static_cast<double>(moe_global);
  k[kind_of(false, true)] = static_cast<double>(all - global - (moe - moe_global));
  k[kind_of(true, true)] = static_cast<double>(moe - moe_global);
  return k;
}

bool is_moe_layer(const ModelSpec& m, std::int64_t i) {
  if (!m.layer_kinds.empty()) return kind_is_moe(m.layer_kinds[static_cast<std::size_t>(i)]);
  if (!m.moe) return false;
  const std::int64_t j = i - m.moe->first_dense_layers;
  return j >= 0 && j % m.moe->layer_freq == 0;
}

bool is_windowed_layer(const ModelSpec& m, std::int64_t i) {
  if (!m.layer_kinds.empty()) return kind_is_local(m.layer_kinds[static_cast<std::size_t>(i)]);
  if (!has_local_layers(m)) return false;
  return m.global_every <= 0 || (i + 1) % m.global_every != 0;
}

// Megatron-Core's hybrid layer notation (megatron/core/ssm/mamba_hybrid_layer_allocation.py's
// symbols: M mamba, * attention, - MLP, E MoE), grouped into this engine's layers: a mixer takes
// the FFN that follows it.
std::int64_t read_layer_pattern(const std::string& pattern, std::vector<std::uint8_t>& kinds) {
  kinds.clear();
  bool open_mixer = false;  // the last layer is a mixer still without its FFN
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*' || c == 'M') {
      kinds.push_back(static_cast<std::uint8_t>(kMixerOnly + (c == 'M' ? 1 : 0)));
      open_mixer = true;
    } else if (c == '-' || c == 'E') {
      if (open_mixer)
        kinds.back() = static_cast<std::uint8_t>(kind_of(c == 'E', kind_is_local(kinds.back())));
      else
        kinds.push_back(static_cast<std::uint8_t>(kFfnOnly + (c == 'E' ? 1 : 0)));
      open_mixer = false;
    } else {
      return static_cast<std::int64_t>(i);
    }
  }
  return pattern.empty() ? 0 : -1;
}

std::string write_layer_pattern(const std::vector<std::uint8_t>& kinds) {
  std::string out;
  for (std::uint8_t k : kinds) {
    if (kind_has_mixer(k)) out += kind_is_local(k) ? 'M' : '*';
    if (kind_has_ffn(k)) out += kind_is_moe(k) ? 'E' : '-';
  }
  return out;
}

namespace {

// The attention variant follows kv_heads.
AttentionType attention_of(const ModelSpec& m) {
  return m.kv_heads == m.heads ? AttentionType::mha
         : m.kv_heads == 1     ? AttentionType::mqa
                               : AttentionType::gqa;
}

Result<ModelSpec> finish_model(ModelSpec m, const std::string& path) {
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0)
      return make_error("model.head_dim_not_integer", path + "/heads",
                        "hidden=" + std::to_string(m.hidden) + " is not divisible by heads=" +
                            std::to_string(m.heads) + "; give head_dim explicitly");
    m.head_dim = m.hidden / m.heads;
  }
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    return make_error("model.kv_heads_not_divisor_of_heads", path + "/kv_heads",
                      "kv_heads=" + std::to_string(m.kv_heads) +
                          " must divide heads=" + std::to_string(m.heads) + " (1 = MQA, heads = MHA)");
  if (m.linear.heads > 0 && (m.linear.key_heads > m.linear.heads || m.linear.heads % m.linear.key_heads != 0))
    return make_error("model.linear_key_heads_not_divisor", path + "/attention/linear_key_heads",
                      "linear_key_heads=" + std::to_string(m.linear.key_heads) +
                          " must divide linear_heads=" + std::to_string(m.linear.heads) +
                          " (each key head serves the same number of value heads)");
  if (m.attention != AttentionType::mla) m.attention = attention_of(m);
  return m;
}

// A stated attention variant fills in kv_heads for MHA and MQA when absent, and must agree with
// kv_heads when both are given.
std::optional<Error> apply_attention(ModelSpec& m, std::optional<AttentionType> stated,
                                     const std::string& path) {
  if (!stated) return std::nullopt;
  if (m.kv_heads == 0) {
    if (*stated == AttentionType::gqa)
      return make_error("scenario.missing_key", path + "/kv_heads",
                        "attention type \"gqa\" needs kv_heads (the number of key/value heads)");
    m.kv_heads = *stated == AttentionType::mha ? m.heads : 1;
  }
  const AttentionType derived = attention_of(m);
  if (*stated != derived)
    return make_error("model.attention_mismatch", path + "/attention/type",
                      "attention type \"" + std::string(name_of(*stated)) + "\" does not match kv_heads=" +
                          std::to_string(m.kv_heads) + " and heads=" + std::to_string(m.heads) +
                          " (that is \"" + std::string(name_of(derived)) +
                          "\": mha has kv_heads = heads, mqa 1, gqa in between)");
  return std::nullopt;
}

// model.layer_pattern, read into layer kinds (io/objects.cpp, read_layer_pattern): they
// must number `layers` and take the place of the periodic rules they would contradict.
std::optional<Error> check_layer_pattern(const ModelSpec& m, const std::string& path) {
  // The kinds are counted over `layers`, so only once the pattern makes that many.
  const bool sized = static_cast<std::int64_t>(m.layer_kinds.size()) == m.layers;
  const KindCounts kinds = sized ? model_kinds(m) : KindCounts{};
  const bool moe = moe_count(kinds) > 0;
  const bool local = count_kinds(kinds, kind_is_local) > 0;
  constexpr const char* conflict = "model.layer_pattern_conflict";
  constexpr const char* rule = "layer_pattern places each layer: drop this rule";
  const char *code = nullptr, *at = nullptr, *message = nullptr;
  if (!sized) {
    code = "model.layer_pattern_layers_mismatch", at = "/layers";
    message = "layer_pattern makes another number of layers (a mixer and the FFN after it are one)";
  } else if (m.global_every > 0) {
    code = conflict, at = "/attention/global_every", message = rule;
  } else if (m.moe && m.moe->first_dense_layers > 0) {
    code = conflict, at = "/moe/first_dense_layers", message = rule;
  } else if (m.moe && m.moe->layer_freq > 1) {
    code = conflict, at = "/moe/layer_freq", message = rule;
  } else if (m.block == BlockKind::parallel) {
    code = conflict, at = "/block", message = "a parallel block has attention beside the FFN in every layer";
  } else if (moe != m.moe.has_value()) {
    code = "model.layer_pattern_needs_moe", at = moe ? "/layer_pattern" : "/moe";
    message = "an MoE FFN ('E') needs moe, and moe an 'E'";
  } else if (local != has_local_layers(m)) {
    code = "model.layer_pattern_needs_local", at = local ? "/layer_pattern" : "/attention";
    message = "a local mixer ('M') needs attention.linear_* or a window, and they an 'M'";
  }
  if (!code) return std::nullopt;
  return make_error(code, path + at, message);
}

}  // namespace

Result<ModelSpec> complete_model(ModelSpec m, std::optional<AttentionType> stated, const std::string& path) {
  if (m.moe) {
    if (m.moe->top_k > m.moe->experts)
      return make_error("model.moe_top_k_exceeds_experts", path + "/moe/top_k",
                        "top_k=" + std::to_string(m.moe->top_k) +
                            " is larger than experts=" + std::to_string(m.moe->experts));
    if (m.moe->first_dense_layers >= m.layers)
      return make_error("model.moe_no_moe_layers", path + "/moe/first_dense_layers",
                        "first_dense_layers=" + std::to_string(m.moe->first_dense_layers) +
                            " leaves no MoE layer among layers=" + std::to_string(m.layers));
  }
  if (!m.layer_kinds.empty())
    if (auto e = check_layer_pattern(m, path)) return *e;
  if (stated == AttentionType::mla) {
    // MLA expands the latent to one key and value per query head (kv_heads = heads).
    if (m.kv_heads == 0) m.kv_heads = m.heads;
    m.attention = AttentionType::mla;
  } else if (auto e = apply_attention(m, stated, path)) {
    return *e;
  }
  return finish_model(std::move(m), path);
}

}  // namespace optimus
