// Hugging Face `config.json` -> the scenario's inline model (docs/contract.md, "model").
// Pure and total: returns the model or a message saying why the config cannot be imported.
// Key names follow the transformers configuration classes (LlamaConfig, GPTJConfig, GPT2Config,
// FalconConfig, MistralConfig, MixtralConfig, Qwen3MoeConfig, DeepseekV3Config, GptOssConfig,
// Llama4TextConfig, ...); each model family spells the same dimension differently, so every
// field lists its aliases in order of preference.
import { isLayerPattern, patternLayers } from '../base/layer-pattern';
import type { ModelSpec } from '../engine/types';

/** The mixture-of-experts block of the model contract (`model.moe`), as the engine's schema states it. */
export type HfMoe = NonNullable<ModelSpec['moe']>;

/** The attention block of the model contract (`model.attention`). */
export type HfAttention =
  | ({ type: 'mha' | 'gqa' | 'mqa'; window?: number; global_every?: number; output_gate?: boolean } & Partial<HfLinear>)
  | {
      type: 'mla';
      q_lora_rank: number;
      kv_lora_rank: number;
      qk_nope_head_dim: number;
      qk_rope_head_dim: number;
      v_head_dim: number;
      index_heads?: number;
      index_head_dim?: number;
      index_top_k?: number;
      window?: number;
      global_every?: number;
    };

/** Linear attention's keys of the attention block (Gated DeltaNet layers). */
export type HfLinear = {
  linear_heads: number;
  linear_key_heads: number;
  linear_key_head_dim: number;
  linear_value_head_dim: number;
  linear_conv_kernel: number;
  linear_state_precision?: 'fp32' | 'bf16';
};

/** An imported model: the page's ModelSpec, its attention block typed by variant. */
export type HfModel = Omit<ModelSpec, 'attention'> & { attention?: HfAttention };

export type HfImportResult = { ok: true; model: HfModel; notes: string[] } | { ok: false; message: string };

type Json = Record<string, unknown>;

function firstNumber(c: Json, keys: string[]): [number, string] | undefined {
  for (const k of keys) {
    const v = c[k];
    if (typeof v === 'number' && Number.isFinite(v)) return [v, k];
  }
  return undefined;
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: number): boolean => Number.isInteger(v) && v >= 0;

/** Routed-expert counts: Mixtral/gpt-oss/Llama 4, DeepSeek/Kimi, Qwen-MoE/OLMoE, others. */
const EXPERT_KEYS = ['num_local_experts', 'n_routed_experts', 'num_experts', 'moe_num_experts'];
/** Routed experts per token: transformers' name first, then gpt-oss' and Kimi Linear's. */
const TOP_K_KEYS = ['num_experts_per_tok', 'experts_per_token', 'num_experts_per_token'];
/** Layer period of the MoE blocks: DeepSeek/Kimi, Qwen-MoE, Llama 4. */
const MOE_FREQ_KEYS = ['moe_layer_freq', 'decoder_sparse_step', 'interleave_moe_layer_step'];

/** Families whose intermediate_size is the width of each expert (no moe_intermediate_size). */
const EXPERT_WIDTH_IS_INTERMEDIATE = new Set(['mixtral', 'gpt_oss', 'llama4', 'llama4_text']);
const LLAMA4 = new Set(['llama4', 'llama4_text']);
/**
 * Families whose transformers config class defaults hidden_act to "silu" (their MLP is gated:
 * gate, up and down projections) and tie_word_embeddings to false (LlamaConfig, MistralConfig,
 * MixtralConfig, Qwen2Config, Qwen2MoeConfig, Qwen3Config, Qwen3MoeConfig, DeepseekV2Config,
 * DeepseekV3Config), where PretrainedConfig's own default ties the embeddings.
 */
const LLAMA_DEFAULTS: Record<string, string> = {
  llama: 'LlamaConfig',
  mistral: 'MistralConfig',
  mixtral: 'MixtralConfig',
  qwen2: 'Qwen2Config',
  qwen2_moe: 'Qwen2MoeConfig',
  qwen3: 'Qwen3Config',
  qwen3_moe: 'Qwen3MoeConfig',
  deepseek_v2: 'DeepseekV2Config',
  deepseek_v3: 'DeepseekV3Config',
};

/** Architectures the page's model cannot describe (no decoder-only dense transformer). */
const UNSUPPORTED_TYPES: Record<string, string> = {
  t5: 'an encoder-decoder model',
  bart: 'an encoder-decoder model',
  mamba: 'a state-space model (no attention)',
  rwkv: 'a recurrent model (no attention)',
  bert: 'an encoder-only model',
  jamba: 'a hybrid state-space/attention model',
};

const GATED_SILU = new Set(['silu', 'swish', 'swiglu']);
const GELU = new Set(['gelu', 'gelu_new', 'gelu_fast', 'gelu_pytorch_tanh', 'gelu_accurate', 'quick_gelu', 'relu']);

/** Why a part of the config cannot be imported (the helpers below return it instead of a value). */
type Fail = { error: string };
const fail = (error: string): Fail => ({ error });
const failed = (v: unknown): v is Fail => isObject(v) && typeof v.error === 'string';

/**
 * The layer pattern of the contract: `global_every` k means layers k-1, 2k-1, ... attend to the
 * whole context and the others are windowed (0 = every layer windowed, undefined = none is).
 * `isGlobal` lists the layers; a pattern the contract cannot state exactly keeps the number of
 * global layers (k = layers / globals) with a note, or fails; `exact` fails instead of keeping the number.
 */
function globalEvery(isGlobal: boolean[], what: string, notes: string[], exact?: boolean): number | undefined | Fail {
  const L = isGlobal.length;
  const globals = isGlobal.filter((g) => g).length;
  if (globals === L) return undefined;
  if (globals === 0) return 0;
  const k = isGlobal.indexOf(true) + 1;
  if (isGlobal.every((g, i) => g === ((i + 1) % k === 0))) return k;
  if (L % globals === 0 && !exact) {
    notes.push(`${what}: ${globals} of ${L} layers attend to the whole context, not at every ${L / globals}-th layer; global_every = ${L / globals} keeps their number, not their positions.`);
    return L / globals;
  }
  return fail(`${what}: the ${globals} full-attention layers of ${L} are not every k-th layer, which the model's global_every cannot state.`);
}

/** Sliding-window / chunked attention: { window, global_every } or undefined when none. */
function readWindow(cfg: Json, modelType: string, L: number, notes: string[]): { window: number; global_every?: number } | undefined | Fail {
  const layerTypes = Array.isArray(cfg.layer_types) ? (cfg.layer_types as unknown[]) : undefined;
  const fromLayerTypes = (layerTypes: unknown[]): boolean[] | Fail => {
    if (layerTypes.length !== L) return fail(`layer_types has ${layerTypes.length} entries for ${L} layers.`);
    const out: boolean[] = [];
    for (const t of layerTypes) {
      if (t === 'full_attention') out.push(true);
      else if (t === 'sliding_attention' || t === 'chunked_attention') out.push(false);
      else return fail(`layer_types "${String(t)}" is not an attention the page models (full_attention, sliding_attention, chunked_attention).`);
    }
    return out;
  };

  if (LLAMA4.has(modelType)) {
    // Llama4TextConfig: attention_chunk_size (default 8192; null = none) on the RoPE layers;
    // no_rope_layers[i] = 0 marks a NoPE layer with full attention, by default every
    // no_rope_layer_interval-th (4) layer.
    const chunk = cfg.attention_chunk_size === undefined ? 8192 : cfg.attention_chunk_size;
    if (chunk === null) return undefined;
    if (typeof chunk !== 'number' || !Number.isInteger(chunk) || chunk <= 0) return fail(`attention_chunk_size = ${String(chunk)} is not a positive integer.`);
    if (cfg.attention_chunk_size === undefined) notes.push('No attention_chunk_size: Llama4TextConfig\'s default 8192 assumed.');
    let isGlobal: boolean[];
    const noRope = cfg.no_rope_layers;
    if (Array.isArray(noRope) && noRope.length > 0) {
      if (noRope.length !== L) return fail(`no_rope_layers has ${noRope.length} entries for ${L} layers.`);
      isGlobal = noRope.map((v) => v === 0 || v === false);
    } else {
      const interval = firstNumber(cfg, ['no_rope_layer_interval'])?.[0] ?? 4;
      if (!Number.isInteger(interval) || interval <= 0) return fail(`no_rope_layer_interval = ${interval} is not a positive integer.`);
      isGlobal = Array.from({ length: L }, (_, i) => (i + 1) % interval === 0);
    }
    const g = globalEvery(isGlobal, 'no_rope_layers', notes);
    if (failed(g)) return g;
    if (g === undefined) return undefined;
    notes.push(`Chunked attention (${chunk}-token chunks on the RoPE layers${g ? `, every ${g}th layer global without RoPE` : ''}) is approximated by a ${chunk}-token sliding window: a chunk sees on average half a chunk, so long contexts cost less than stated on those layers.`);
    return g ? { window: chunk, global_every: g } : { window: chunk };
  }

  const sw = cfg.sliding_window;
  if (sw === undefined || sw === null || cfg.use_sliding_window === false) return undefined;
  if (typeof sw !== 'number' || !Number.isInteger(sw) || sw <= 0) return fail(`sliding_window = ${String(sw)} is not a positive integer.`);
  let g: number | undefined | Fail;
  if (layerTypes) {
    const isGlobal = fromLayerTypes(layerTypes);
    if (failed(isGlobal)) return isGlobal;
    g = globalEvery(isGlobal, 'layer_types', notes);
  } else if (typeof cfg.max_window_layers === 'number' && modelType.startsWith('qwen')) {
    // Qwen2: the first max_window_layers layers attend to the whole context, the rest to the window.
    const n = cfg.max_window_layers;
    g = globalEvery(Array.from({ length: L }, (_, i) => i < n), 'max_window_layers', notes);
  } else if (typeof cfg.sliding_window_pattern === 'number') {
    // Gemma 3: layer i is sliding unless (i + 1) % sliding_window_pattern == 0.
    g = cfg.sliding_window_pattern;
    if (!Number.isInteger(g) || g <= 0) return fail(`sliding_window_pattern = ${g} is not a positive integer.`);
  } else if (modelType === 'gemma2') {
    g = 2;
    notes.push('Gemma 2 alternates sliding-window and global layers (global_every 2).');
  } else {
    g = 0;
    notes.push(`sliding_window ${sw} without layer_types: every layer attends to a ${sw}-token window (Mistral convention).`);
  }
  if (failed(g)) return g;
  if (g === undefined) return undefined;
  return g ? { window: sw, global_every: g } : { window: sw };
}

/**
 * The linear_* keys: value heads, key heads, key head dim, value head dim and conv kernel, each
 * the first key of its list the config states (the kernel 4 when none is), and the recurrent
 * state's precision where mamba_ssm_cache_dtype (Nemotron-H) or mamba_ssm_dtype (Qwen3-Next) states it.
 */
function linearKeys(cfg: Json, keys: string[][], what: string, notes: string[]): HfLinear | Fail {
  const d: number[] = [];
  for (let i = 0; i < 5; i++) {
    const v = keys[i].map((k) => cfg[k]).find((x) => x !== undefined) ?? (i === 4 ? 4 : undefined);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) return fail(`${what} with ${keys[i][0]} = ${String(v)}: a positive integer is needed.`);
    d.push(v);
  }
  const dtype = cfg.mamba_ssm_cache_dtype ?? cfg.mamba_ssm_dtype;
  if (dtype === undefined) notes.push('No mamba_ssm_dtype (or mamba_ssm_cache_dtype): the linear-attention state takes the runtime\'s default (fp32 on SGLang, bf16 on vLLM).');
  return {
    linear_heads: d[0],
    linear_key_heads: d[1],
    linear_key_head_dim: d[2],
    linear_value_head_dim: d[3],
    linear_conv_kernel: d[4],
    ...(dtype === undefined ? {} : { linear_state_precision: dtype === 'bfloat16' || dtype === 'float16' ? 'bf16' : 'fp32' }),
  };
}

/**
 * Linear attention (Qwen3NextConfig, Qwen3.5's text config: Gated DeltaNet): the linear_* keys
 * (key heads default to the value heads), and the full-attention layers from layer_types or
 * full_attention_interval (default 4). Full-attention layers off the every-k-th grid come back as
 * `mixers`, one character per layer ('*' full, 'M' linear), for a layer_pattern.
 */
function readLinear(cfg: Json, L: number, notes: string[]): (HfLinear & { global_every?: number; mixers?: string }) | undefined | Fail {
  if (cfg.linear_num_value_heads === undefined) return undefined;
  let g: number | undefined | Fail;
  let mixers: string | undefined;
  if (Array.isArray(cfg.layer_types)) {
    const types = cfg.layer_types as unknown[];
    if (types.length !== L) return fail(`layer_types has ${types.length} entries for ${L} layers.`);
    if (types.some((t) => t !== 'full_attention' && t !== 'linear_attention')) return fail('layer_types mixes linear attention with a kind other than full_attention.');
    g = globalEvery(types.map((t) => t === 'full_attention'), 'layer_types', notes, true);
    if (failed(g)) mixers = types.map((t) => (t === 'full_attention' ? '*' : 'M')).join('');
  } else g = firstNumber(cfg, ['full_attention_interval'])?.[0] ?? 4;
  if (g === undefined) {
    notes.push('layer_types lists no linear_attention layer: the linear_* keys describe no layer and are not imported.');
    return undefined;
  }
  const lin = linearKeys(cfg, [['linear_num_value_heads'], ['linear_num_key_heads', 'linear_num_value_heads'], ['linear_key_head_dim'], ['linear_value_head_dim'], ['linear_conv_kernel_dim']], 'Linear attention config', notes);
  if (failed(lin)) return lin;
  return mixers ? { ...lin, mixers } : { global_every: g as number, ...lin };
}

/**
 * Mamba-2 (transformers' NemotronHConfig keys) entered as linear attention (docs/contract.md,
 * "model", layer_pattern): value heads = mamba_num_heads of mamba_head_dim, key heads = the
 * n_groups groups (B and C are shared per group), key head dim = ssm_state_size, conv_kernel
 * (NemotronHConfig's default 4).
 */
function readMamba(cfg: Json, notes: string[]): HfLinear | Fail {
  const m = linearKeys(cfg, [['mamba_num_heads', 'mamba_n_heads'], ['n_groups', 'mamba_n_groups'], ['ssm_state_size', 'mamba_d_state'], ['mamba_head_dim', 'mamba_d_head'], ['conv_kernel', 'mamba_d_conv']], 'Mamba-2 layers (M)', notes);
  if (!failed(m)) notes.push(`Mamba-2 entered as linear attention: ${m.linear_heads} value heads of ${m.linear_value_head_dim} (mamba_num_heads, mamba_head_dim), key heads = the ${m.linear_key_heads} groups (n_groups; B and C are shared per group), key head dim = the state size ${m.linear_key_head_dim} (ssm_state_size). Not modelled: the dt columns of the in-projection, the D skip and the dt bias.`);
  return m;
}

/** Nemotron-H's layers_block_type entries (transformers' newer NemotronHConfig) in the hybrid notation. */
const BLOCK_CHARS: Record<string, string> = { mamba: 'M', linear_attention: 'M', attention: '*', full_attention: '*', mlp: '-', moe: 'E' };

/**
 * A hybrid model's layers: its sublayers in Megatron-Core's hybrid notation (the symbols of
 * megatron/core/ssm/mamba_hybrid_layer_allocation.py: 'M' Mamba-2, '*' attention, '-' MLP, 'E'
 * MoE) as Nemotron-H's hybrid_override_pattern states them (or its layers_block_type list;
 * num_hidden_layers counts sublayers), grouped as the contract's layer_pattern groups them: a mixer
 * (M, *) and the FFN (-, E) right after it are one layer, any other sublayer a layer of its own.
 */
function hybridLayers(cfg: Json, modelType: string, notes: string[]): string[] | undefined | Fail {
  const list = cfg.layers_block_type;
  // Granite 4.0-H (transformers' GraniteMoeHybridConfig): layer_types names each layer's mixer,
  // "mamba" or "attention", and every layer then runs its FFN: the MoE (num_local_experts of
  // them, beside the shared MLP) or, without experts, the shared MLP alone.
  const types = cfg.layer_types;
  const granite = Array.isArray(types) && types.includes('mamba');
  const ffn = (firstNumber(cfg, ['num_local_experts'])?.[0] ?? 0) > 0 ? 'E' : '-';
  const p = typeof cfg.hybrid_override_pattern === 'string' ? cfg.hybrid_override_pattern
    : Array.isArray(list) ? list.map((t) => BLOCK_CHARS[String(t)] ?? `[${String(t)}]`).join('')
    : granite ? types.map((t) => (BLOCK_CHARS[String(t)] ?? `[${String(t)}]`) + ffn).join('') : undefined;
  if (granite) notes.push(`layer_types: each of the ${types.length} layers is its mixer (mamba: M, attention: *) and its FFN (${ffn === 'E' ? 'the MoE with the shared MLP as a shared expert' : 'the shared MLP'}).`);
  if (p === undefined) return modelType.startsWith('nemotron_h') ? fail('A nemotron_h config without hybrid_override_pattern (or layers_block_type) does not say which layers are Mamba-2 and which attention.') : undefined;
  if (!isLayerPattern(p)) return fail(`Hybrid layer pattern "${p}": only M (Mamba-2), * (attention), - (MLP) and E (MoE) sublayers can be imported.`);
  const n = cfg.num_hidden_layers;
  if (typeof n === 'number' && n !== (granite ? types.length : p.length)) return fail(`The hybrid layer pattern has ${p.length} sublayers but num_hidden_layers = ${n}; they must agree.`);
  const groups = patternLayers(p);
  const kinds: Record<string, number> = {};
  for (const g of groups) kinds[g] = (kinds[g] ?? 0) + 1;
  const count = (ch: string): number => p.split(ch).length - 1;
  notes.push(`${p.length} sublayers in Megatron-Core's hybrid notation, kept as layer_pattern: ${count('M')} Mamba-2 (M), ${count('*')} attention (*), ${count('-')} dense FFN (-), ${count('E')} MoE FFN (E). A mixer and the FFN right after it are one layer, so ${groups.length} layers: ${Object.entries(kinds).map(([g, c]) => `${c} ${g}`).join(', ')}. `);
  return groups;
}

/** Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the low-rank dimensions. */
function readMla(cfg: Json, notes: string[]): Extract<HfAttention, { type: 'mla' }> | Fail {
  const dims: Record<string, number> = {};
  for (const k of ['kv_lora_rank', 'qk_nope_head_dim', 'qk_rope_head_dim', 'v_head_dim']) {
    const v = cfg[k];
    if (typeof v !== 'number') return fail(`MLA config (kv_lora_rank) without ${k}.`);
    if (!Number.isInteger(v) || v < (k === 'qk_nope_head_dim' ? 0 : 1)) return fail(`${k} = ${v} is not a positive integer.`);
    dims[k] = v;
  }
  let q = 0;
  if (typeof cfg.q_lora_rank === 'number') {
    if (!isCount(cfg.q_lora_rank)) return fail(`q_lora_rank = ${cfg.q_lora_rank} is not a non-negative integer.`);
    q = cfg.q_lora_rank;
  } else notes.push('q_lora_rank null or absent: queries are not compressed (q_lora_rank 0).');
  const mla: Extract<HfAttention, { type: 'mla' }> = { type: 'mla', q_lora_rank: q, kv_lora_rank: dims.kv_lora_rank, qk_nope_head_dim: dims.qk_nope_head_dim, qk_rope_head_dim: dims.qk_rope_head_dim, v_head_dim: dims.v_head_dim };
  // DeepSeek Sparse Attention (DeepseekV32Config: index_n_heads, index_head_dim, index_topk).
  if (cfg.index_topk !== undefined) {
    const sparse: number[] = [];
    for (const k of ['index_n_heads', 'index_head_dim', 'index_topk']) {
      const v = cfg[k];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) return fail(`Sparse attention config (index_topk) with ${k} = ${String(v)}: a positive integer is needed.`);
      sparse.push(v);
    }
    [mla.index_heads, mla.index_head_dim, mla.index_top_k] = sparse;
    notes.push(`DeepSeek Sparse Attention: an indexer of ${sparse[0]} heads of ${sparse[1]} scores every earlier token and each query attends to the top ${sparse[2]}.`);
  }
  return mla;
}

/**
 * Mixture of experts. `experts` is the routed-expert count found under EXPERT_KEYS. The expert
 * width is moe_intermediate_size, or intermediate_size in the families that use it per expert
 * (Mixtral, gpt-oss, Llama 4). Shared experts: DeepSeek's n_shared_experts (each as wide as a
 * routed expert), Qwen2-MoE's single shared_expert_intermediate_size, Llama 4's one shared expert.
 * Placement: first_k_dense_replace leading dense layers; the MoE period from moe_layer_freq
 * (DeepSeek: layer i >= k is MoE when i % freq == 0), decoder_sparse_step (Qwen) or
 * interleave_moe_layer_step (Llama 4: (i + 1) % step == 0); the contract's layer_freq keeps the
 * period, and with it the number of MoE layers.
 */
function readMoe(cfg: Json, modelType: string, experts: [number, string], L: number, notes: string[]): { moe: HfMoe; denseFfn?: number } | Fail {
  const [E, eKey] = experts;
  if (!Number.isInteger(E)) return fail(`${eKey} = ${E} is not an integer.`);
  const topK = firstNumber(cfg, TOP_K_KEYS);
  if (!topK) return fail(`MoE config without num_experts_per_tok (${eKey} = ${E}; also looked for ${TOP_K_KEYS.slice(1).join(', ')}).`);
  if (!Number.isInteger(topK[0]) || topK[0] < 1 || topK[0] > E) return fail(`${topK[1]} = ${topK[0]} is not a whole number of experts between 1 and ${E}.`);

  let width: number;
  let denseFfn: number | undefined;
  const moeWidth = firstNumber(cfg, ['moe_intermediate_size']);
  const inter = firstNumber(cfg, ['intermediate_size']);
  if (moeWidth) width = moeWidth[0];
  else if ((EXPERT_WIDTH_IS_INTERMEDIATE.has(modelType) || eKey === 'num_local_experts') && inter) {
    width = inter[0];
    if (!EXPERT_WIDTH_IS_INTERMEDIATE.has(modelType)) notes.push(`No moe_intermediate_size: intermediate_size ${width} taken as the width of each expert (Mixtral convention for ${eKey}).`);
    if (LLAMA4.has(modelType)) {
      const mlp = firstNumber(cfg, ['intermediate_size_mlp']);
      if (mlp) denseFfn = mlp[0];
      else notes.push('No intermediate_size_mlp: the dense layers are given the expert width.');
    }
  } else return fail(`MoE config without moe_intermediate_size (the width of each expert; ${eKey} = ${E}).`);
  if (!Number.isInteger(width) || width <= 0) return fail(`The expert width ${width} is not a positive integer.`);

  const moe: HfMoe = { experts: E, top_k: topK[0], expert_ffn_hidden: width };
  // LatentMoE (Nemotron 3 Super): the routed experts work in a narrower latent.
  const latent = firstNumber(cfg, ['moe_latent_size']);
  if (latent) {
    if (!isCount(latent[0]) || latent[0] < 1) return fail(`moe_latent_size = ${latent[0]} is not a positive whole number.`);
    moe.latent_size = latent[0];
  }

  // Shared experts.
  const nShared = firstNumber(cfg, ['n_shared_experts', 'num_shared_experts']);
  const sharedWidth = firstNumber(cfg, ['shared_expert_intermediate_size', 'moe_shared_expert_intermediate_size', 'shared_intermediate_size']);
  if (nShared && nShared[0] > 0) {
    if (!isCount(nShared[0])) return fail(`${nShared[1]} = ${nShared[0]} is not a whole number.`);
    moe.shared_experts = nShared[0];
    moe.shared_expert_ffn_hidden = sharedWidth && sharedWidth[0] > 0 ? sharedWidth[0] / nShared[0] : width;
  } else if (sharedWidth && sharedWidth[0] > 0) {
    moe.shared_experts = 1;
    moe.shared_expert_ffn_hidden = sharedWidth[0];
  } else if (LLAMA4.has(modelType)) {
    moe.shared_experts = 1;
    moe.shared_expert_ffn_hidden = width;
    notes.push('Llama 4 adds one always-on shared expert as wide as a routed expert to every MoE layer.');
  } else moe.shared_experts = 0;
  if (moe.shared_expert_ffn_hidden !== undefined && !Number.isInteger(moe.shared_expert_ffn_hidden)) {
    return fail(`shared_expert_intermediate_size ${sharedWidth?.[0]} is not a multiple of ${nShared?.[1]} ${nShared?.[0]}.`);
  }

  // Placement.
  let first = 0;
  const firstK = firstNumber(cfg, ['first_k_dense_replace']);
  if (firstK) {
    if (!isCount(firstK[0]) || firstK[0] >= L) return fail(`first_k_dense_replace = ${firstK[0]} is not a layer count below ${L}.`);
    first = firstK[0];
  }
  let freq = 1;
  const f = firstNumber(cfg, MOE_FREQ_KEYS);
  if (f) {
    if (!Number.isInteger(f[0]) || f[0] < 1) return fail(`${f[1]} = ${f[0]} is not a positive integer.`);
    freq = f[0];
  }
  // Explicit layer lists: Qwen's mlp_only_layers (dense) and Llama 4's moe_layers (sparse).
  const mlpOnly = cfg.mlp_only_layers;
  if (Array.isArray(mlpOnly) && mlpOnly.length > 0) {
    const leading = mlpOnly.every((v, i) => v === i);
    if (!leading || freq !== 1) return fail(`mlp_only_layers [${mlpOnly.join(', ')}] is not a leading run of dense layers, which the model's first_dense_layers and layer_freq cannot state.`);
    first = Math.max(first, mlpOnly.length);
  }
  const moeLayers = cfg.moe_layers;
  if (LLAMA4.has(modelType) && Array.isArray(moeLayers)) {
    const expected = Array.from({ length: Math.ceil((L - (freq - 1)) / freq) }, (_, i) => freq - 1 + i * freq);
    const same = moeLayers.length === expected.length && moeLayers.every((v, i) => v === expected[i]);
    if (!same) {
      const n = moeLayers.length;
      const tail = n > 0 && moeLayers.every((v, i) => v === L - n + i);
      if (!tail) return fail(`moe_layers [${moeLayers.join(', ')}] is not every k-th layer nor a trailing run, which the model's first_dense_layers and layer_freq cannot state.`);
      first = L - n;
      freq = 1;
    }
  }
  moe.first_dense_layers = first;
  moe.layer_freq = freq;

  const parts = [`${E} experts, top-${topK[0]}, expert FFN ${width}`];
  if (moe.latent_size) parts.push(`routed in a ${moe.latent_size}-wide latent`);
  if (moe.shared_experts) parts.push(`${moe.shared_experts} shared expert${moe.shared_experts > 1 ? 's' : ''} of ${moe.shared_expert_ffn_hidden}`);
  if (first) parts.push(`first ${first} layer${first > 1 ? 's' : ''} dense`);
  if (freq > 1) parts.push(`MoE every ${freq} layers`);
  notes.push(`Mixture of experts: ${parts.join(', ')}. Router scoring, grouping and load balancing are not modelled; capacity_factor is left out (dropless).`);
  return denseFfn === undefined ? { moe } : { moe, denseFfn };
}

/** Model types whose layers always run attention and the MLP in parallel on one normalised input:
 * GPT-J and CodeGen (built on it), Cohere's Command R, Microsoft's Phi-1/1.5/2 (transformers'
 * GPTJBlock, CodeGenBlock, CohereDecoderLayer, PhiDecoderLayer). */
const PARALLEL_TYPES = new Set(['gptj', 'codegen', 'cohere', 'phi']);

/** Parallel attention/MLP blocks: Falcon's parallel_attn (FalconConfig default true) or its new
 * decoder architecture (two norms, summed branches), GPT-NeoX's use_parallel_residual
 * (GPTNeoXConfig default true), PaLM-style parallel_attention flags, and the types above. */
function parallelBlock(cfg: Json, modelType: string): boolean {
  if (cfg.parallel_attn === true || cfg.parallel_attention === true || cfg.use_parallel_residual === true) return true;
  if (modelType === 'falcon') return cfg.parallel_attn !== false || cfg.new_decoder_architecture === true;
  if (modelType === 'gpt_neox') return cfg.use_parallel_residual !== false;
  return PARALLEL_TYPES.has(modelType);
}

/**
 * Map a Hugging Face config (object or JSON text) to an inline model.
 * - hidden_size | n_embd | d_model -> hidden; num_hidden_layers | n_layer | num_layers -> layers;
 *   num_attention_heads | n_head -> heads; vocab_size -> vocab.
 * - num_key_value_heads | num_kv_heads | n_head_kv -> kv_heads; Falcon's multi_query without the
 *   new decoder architecture means one KV head (FalconConfig).
 * - intermediate_size | n_inner | ffn_hidden_size -> ffn_hidden, default 4 × hidden (GPT-2, GPT-J
 *   n_inner null, Falcon); Llama 4's dense layers use intermediate_size_mlp.
 * - hidden_act | activation_function: silu -> "swiglu" (gated, three matrices, as Llama's MLP);
 *   gelu variants -> "gelu" (two matrices); relu2 -> "relu2".
 * - rms_norm_eps -> "rmsnorm", else layer norm.
 * - tie_word_embeddings (transformers' default when absent is true; Llama 4's and the LLAMA_DEFAULTS
 *   families' is false, as is their hidden_act's "silu").
 * - max_position_embeddings | n_positions | n_ctx | seq_length -> max_seq_len.
 * - Mixture of experts (readMoe): num_local_experts | n_routed_experts | num_experts -> moe.experts,
 *   num_experts_per_tok -> top_k, moe_intermediate_size (or intermediate_size) -> expert_ffn_hidden,
 *   n_shared_experts / shared_expert_intermediate_size -> shared experts, first_k_dense_replace /
 *   mlp_only_layers -> first_dense_layers, moe_layer_freq | decoder_sparse_step |
 *   interleave_moe_layer_step -> layer_freq.
 * - kv_lora_rank, q_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim -> attention "mla".
 * - sliding_window with layer_types (or sliding_window_pattern), and Llama 4's
 *   attention_chunk_size with no_rope_layers -> attention.window and attention.global_every.
 * - hybrid_override_pattern (Nemotron-H, Nemotron Nano 2, Nemotron 3; or layers_block_type) ->
 *   layer_pattern, layers = its mixer+FFN groups (hybridLayers), Mamba-2's keys -> the linear_*
 *   keys (readMamba), position "none"; linear-attention layer_types no global_every can state ->
 *   layer_pattern too, the MoE placement written into it.
 * - num_nextn_predict_layers (DeepSeek-V3's multi-token-prediction modules; Qwen3.5's
 *   mtp_num_hidden_layers) -> mtp_layers.
 * - quantization_config quant_method "fp8" (weight_block_size: block scales) -> checkpoint_precision
 *   fp8 (checkpoint_block_scaled); "mxfp4" (gpt-oss) -> checkpoint_precision mxfp4 on the experts
 *   alone (checkpoint_experts_only).
 */
export function importHfConfig(input: unknown, name?: string): HfImportResult {
  let c: unknown = input;
  if (typeof input === 'string') {
    try {
      c = JSON.parse(input);
    } catch (e) {
      return { ok: false, message: `This is not valid JSON: ${(e as Error).message}` };
    }
  }
  if (!isObject(c)) return { ok: false, message: 'A config.json is a JSON object ({...}).' };
  let cfg = c;
  const notes: string[] = [];
  let modelType = typeof cfg.model_type === 'string' ? cfg.model_type.toLowerCase() : '';

  if (UNSUPPORTED_TYPES[modelType]) return { ok: false, message: `model_type "${modelType}" is ${UNSUPPORTED_TYPES[modelType]}; only decoder-only transformers can be imported.` };
  if (cfg.is_encoder_decoder === true) return { ok: false, message: 'Encoder-decoder models are not supported; only decoder-only transformers can be imported.' };
  if (isObject(cfg.text_config) && firstNumber(cfg, ['hidden_size', 'n_embd', 'd_model']) === undefined) {
    const qwen35 = modelType.startsWith('qwen3_5');
    if (!LLAMA4.has(modelType) && !qwen35) return { ok: false, message: 'This is a multimodal config (text_config); paste the text model\'s config instead.' };
    // Llama 4 and Qwen3.5 are natively multimodal: the language model is text_config.
    const outer = cfg;
    cfg = { ...cfg.text_config };
    if (cfg.tie_word_embeddings === undefined && typeof outer.tie_word_embeddings === 'boolean') cfg.tie_word_embeddings = outer.tie_word_embeddings;
    if (cfg._name_or_path === undefined) cfg._name_or_path = outer._name_or_path;
    if (cfg.architectures === undefined) cfg.architectures = outer.architectures;
    modelType = qwen35 ? `${modelType}_text` : 'llama4_text';
    notes.push(`${qwen35 ? 'Qwen3.5' : 'Llama 4'}: the language model (text_config) is imported; the vision encoder is not modelled.`);
  }

  const need = (label: string, keys: string[]): number | string => {
    const f = firstNumber(cfg, keys);
    if (!f) return `config.json has no ${label} (looked for ${keys.join(', ')}).`;
    if (!Number.isInteger(f[0]) || f[0] <= 0) return `${f[1]} = ${f[0]} is not a positive integer.`;
    return f[0];
  };
  // Hybrid models (Nemotron-H, Nemotron Nano 2, Nemotron 3): layers from the hybrid pattern.
  const hybrid = hybridLayers(cfg, modelType, notes);
  if (failed(hybrid)) return { ok: false, message: hybrid.error };
  const pattern = hybrid?.join('');
  const hidden = need('hidden size', ['hidden_size', 'n_embd', 'd_model']);
  const layers = hybrid ? hybrid.length : need('layer count', ['num_hidden_layers', 'n_layer', 'num_layers', 'n_layers']);
  const heads = need('attention head count', ['num_attention_heads', 'n_head', 'num_heads']);
  const vocab = need('vocabulary size', ['vocab_size', 'padded_vocab_size']);
  for (const v of [hidden, layers, heads, vocab]) if (typeof v === 'string') return { ok: false, message: v };
  const H = hidden as number;
  const A = heads as number;
  const L = layers as number;

  const model: HfModel = { layers: L, ...(pattern ? { layer_pattern: pattern } : {}), hidden: H, heads: A, ffn_hidden: 4 * H, vocab: vocab as number };

  // Mixture of experts: an expert count above 1 (a count of 1 is a dense model); a top-k or an
  // expert width without a count is a config of a style the importer does not know.
  // A hybrid pattern without E has no MoE layer, whatever expert keys the config carries.
  const experts = pattern?.includes('E') === false ? undefined : firstNumber(cfg, EXPERT_KEYS);
  let denseFfn: number | undefined;
  if (experts && experts[0] > 1) {
    const r = readMoe(cfg, modelType, experts, L, notes);
    if (failed(r)) return { ok: false, message: r.error };
    model.moe = r.moe;
    denseFfn = r.denseFfn;
  } else if (!experts && !pattern) {
    const orphan = firstNumber(cfg, [...TOP_K_KEYS, 'moe_intermediate_size']);
    if (orphan && orphan[0] > 0) return { ok: false, message: `MoE config without an expert count (${orphan[1]} = ${orphan[0]}; looked for ${EXPERT_KEYS.join(', ')}).` };
  } else if (experts?.[0] === 1) notes.push(`${experts[1]} = 1: one expert is a dense MLP, imported as a dense model.`);
  if (pattern?.includes('E') && !model.moe) return { ok: false, message: `The hybrid layer pattern has MoE sublayers (E) but the config no expert count above 1 (looked for ${EXPERT_KEYS.join(', ')}).` };

  // KV heads (GQA/MQA).
  const kv = firstNumber(cfg, ['num_key_value_heads', 'num_kv_heads', 'n_head_kv', 'multi_query_group_num']);
  if (modelType === 'falcon' || modelType === 'refinedwebmodel' || modelType === 'refinedweb') {
    if (cfg.new_decoder_architecture === true && kv) model.kv_heads = kv[0];
    else if (cfg.multi_query === true) model.kv_heads = 1;
    else model.kv_heads = kv ? kv[0] : A;
  } else if (kv && kv[0] > 0) {
    model.kv_heads = kv[0];
  } else if (cfg.multi_query === true) {
    model.kv_heads = 1;
  }
  if (model.kv_heads !== undefined && (!Number.isInteger(model.kv_heads) || model.kv_heads <= 0 || A % model.kv_heads !== 0)) {
    return { ok: false, message: `The KV head count ${model.kv_heads} does not divide the ${A} attention heads.` };
  }

  // Attention: multi-head latent attention, or MHA/GQA/MQA with a sliding window.
  const headDim = firstNumber(cfg, ['head_dim', 'attention_head_dim']);
  let attention: HfAttention | undefined;
  const kvLora = cfg.kv_lora_rank;
  if (typeof kvLora === 'number' && kvLora > 0) {
    const mla = readMla(cfg, notes);
    if (failed(mla)) return { ok: false, message: mla.error };
    attention = mla;
    if (!(headDim && headDim[0] > 0)) {
      model.head_dim = mla.v_head_dim;
      notes.push(`Multi-head latent attention: head_dim given as v_head_dim ${mla.v_head_dim}; queries and keys are ${mla.qk_nope_head_dim} + ${mla.qk_rope_head_dim} wide per head.`);
    }
  }
  if (cfg.index_topk !== undefined && !attention) return { ok: false, message: 'index_topk (DeepSeek Sparse Attention) without multi-head latent attention (kv_lora_rank): the engine models the indexer over MLA only.' };
  // A hybrid pattern's local mixers are Mamba-2; elsewhere linear attention is Gated DeltaNet.
  const linear = pattern === undefined ? readLinear(cfg, L, notes) : pattern.includes('M') ? readMamba(cfg, notes) : undefined;
  if (failed(linear)) return { ok: false, message: linear.error };
  const lin = linear as { mixers?: string } | undefined;
  const mixers = lin?.mixers;
  if (mixers) {
    // Full-attention layers off the every-k-th grid: layer_pattern states each layer, its mixer
    // and then its FFN, E where the moe rule (docs/contract.md: layer i >= first_dense_layers with
    // (i - first_dense_layers) % layer_freq == 0) makes it MoE, else -.
    delete lin.mixers;
    const f = model.moe?.first_dense_layers ?? 0;
    const k = model.moe?.layer_freq ?? 1;
    model.layer_pattern = [...mixers].map((m, i) => m + (model.moe && i >= f && (i - f) % k === 0 ? 'E' : '-')).join('');
    notes.push(`layer_types: the full-attention layers are not every k-th layer, so layer_pattern states each layer (* full attention, M linear attention, then E MoE or - dense FFN): ${model.layer_pattern}.`);
  }
  // The pattern places the MoE layers (the contract refuses first_dense_layers and layer_freq beside it).
  if (model.layer_pattern && model.moe) {
    delete model.moe.first_dense_layers;
    delete model.moe.layer_freq;
  }
  const win = linear ?? (pattern ? undefined : readWindow(cfg, modelType, L, notes));
  if (failed(win)) return { ok: false, message: win.error };
  if (win && !attention) {
    const kvh = model.kv_heads ?? A;
    attention = { type: kvh === A ? 'mha' : kvh === 1 ? 'mqa' : 'gqa' };
  }
  if (win && attention) Object.assign(attention, win);
  if (attention) model.attention = attention;

  if (headDim && headDim[0] > 0) model.head_dim = headDim[0];
  else if (model.head_dim === undefined && H % A !== 0) return { ok: false, message: `hidden ${H} is not a multiple of heads ${A}, and the config has no head_dim.` };

  // Granite 4.0-H without experts runs its shared MLP (shared_intermediate_size) as the FFN.
  const ffn = firstNumber(cfg, [...(pattern && !model.moe ? ['shared_intermediate_size'] : []), 'intermediate_size', 'n_inner', 'ffn_hidden_size', 'ffn_dim']);
  if (denseFfn !== undefined) model.ffn_hidden = denseFfn;
  else if (ffn && ffn[0] > 0) model.ffn_hidden = ffn[0];
  else if (model.moe) model.ffn_hidden = model.moe.expert_ffn_hidden;
  else notes.push(`No intermediate size in the config: ffn_hidden = 4 × hidden = ${4 * H}.`);

  const actRaw = cfg.hidden_act ?? cfg.mlp_hidden_act ?? cfg.activation_function ?? cfg.hidden_activation ?? cfg.activation;
  const family = LLAMA_DEFAULTS[modelType];
  let act = typeof actRaw === 'string' ? actRaw.toLowerCase() : '';
  if (act === '' && family) {
    act = 'silu';
    notes.push(`No activation in the config: ${family}'s default (silu, a gated three-matrix MLP) assumed.`);
  }
  if (GATED_SILU.has(act)) model.ffn_type = 'swiglu';
  else if (act === 'relu2' || act === 'squared-relu' || act === 'squared_relu') model.ffn_type = 'relu2';
  else if (act === '' || GELU.has(act)) {
    if (modelType === 'gemma' || modelType === 'gemma2') {
      model.ffn_type = 'swiglu';
      notes.push('Gemma uses a gated GELU MLP (three matrices): mapped to "swiglu".');
    } else {
      model.ffn_type = 'gelu';
      if (act === '') notes.push('No activation in the config: assumed a two-matrix GELU MLP.');
      if (act === 'relu') notes.push('ReLU MLP: counted as a two-matrix MLP ("gelu" type, same FLOPs).');
    }
  } else return { ok: false, message: `Unsupported activation "${act}" (supported: silu/swiglu, gelu variants, relu2).` };

  // Nemotron-H normalises with RMSNorm (transformers' NemotronHRMSNorm) under layer_norm_epsilon.
  model.norm = hybrid || typeof cfg.rms_norm_eps === 'number' || typeof cfg.rms_norm_epsilon === 'number' ? 'rmsnorm' : 'layernorm';
  if (typeof cfg.tie_word_embeddings === 'boolean') model.tied_embeddings = cfg.tie_word_embeddings;
  else if (LLAMA4.has(modelType) || family || hybrid) {
    model.tied_embeddings = false;
    notes.push(`tie_word_embeddings absent: ${family ?? (hybrid ? 'NemotronHConfig' : 'Llama4TextConfig')}'s default (untied) assumed.`);
  } else {
    // transformers' PretrainedConfig defaults tie_word_embeddings to true.
    model.tied_embeddings = true;
    notes.push('tie_word_embeddings absent: transformers\' default (tied) assumed.');
  }

  const mtp = firstNumber(cfg, ['num_nextn_predict_layers', 'mtp_num_hidden_layers']);
  if (mtp && mtp[0] > 0) model.mtp_layers = mtp[0];
  // An FP8 checkpoint (quantization_config quant_method "fp8"; weight_block_size: DeepSeek-V3's
  // 128 x 128 block scales) is served so when a scenario states no precision.
  const quant = isObject(c.quantization_config) ? c.quantization_config : undefined;
  if (quant?.quant_method === 'fp8') {
    model.checkpoint_precision = 'fp8';
    const blocks = Array.isArray(quant.weight_block_size) ? quant.weight_block_size : undefined;
    if (blocks) model.checkpoint_block_scaled = true;
    notes.push(`quantization_config fp8${blocks ? ` with ${blocks.join(' x ')} weight blocks` : ''}: checkpoint_precision fp8${blocks ? ' (block-scaled)' : ''}, the precision it is served at unless the scenario states one.`);
  } else if (quant?.quant_method === 'mxfp4') {
    // transformers' MXFP4 quantizer converts the MoE experts alone; attention, router, embeddings
    // and LM head stay bf16 (gpt-oss's modules_to_not_convert).
    model.checkpoint_precision = 'mxfp4';
    if (model.moe) model.checkpoint_experts_only = true;
    notes.push(`quantization_config mxfp4: checkpoint_precision mxfp4${model.moe ? ' on the experts alone (checkpoint_experts_only; the rest 16-bit)' : ''}, the precision it is served at unless the scenario states one.`);
  } else if (typeof quant?.quant_method === 'string') notes.push(`quantization_config ${quant.quant_method}: not read; the checkpoint is taken as 16-bit (state inference.precision).`);

  const maxSeq = firstNumber(cfg, ['max_position_embeddings', 'n_positions', 'n_ctx', 'seq_length', 'max_sequence_length']);
  if (maxSeq && maxSeq[0] > 0) model.max_seq_len = maxSeq[0];
  else if (modelType === 'falcon') {
    model.max_seq_len = 2048;
    notes.push('No max_position_embeddings: FalconConfig\'s default 2048 assumed.');
  }

  const label = name ?? (typeof cfg._name_or_path === 'string' && cfg._name_or_path ? cfg._name_or_path : Array.isArray(cfg.architectures) ? String(cfg.architectures[0]) : modelType || 'imported model');
  model.name = label;
  model.source = `Imported from a Hugging Face config.json${modelType ? ` (model_type ${modelType})` : ''}`;
  // Nemotron-H's attention adds no position embedding (transformers' NemotronHAttention applies no
  // rotary embedding; Megatron-Core's MambaModel defaults position_embedding_type to "none"), nor
  // does Granite 4.0-H's unless its position_embedding_type says "rope".
  if (hybrid) {
    model.position = cfg.position_embedding_type === 'rope' ? 'rotary' : 'none';
    notes.push(model.position === 'none' ? 'No position embedding in the attention layers (position "none").' : 'position_embedding_type rope: rotary positions.');
  }
  if (parallelBlock(cfg, modelType)) {
    model.block = 'parallel';
    notes.push('Parallel attention/MLP blocks: block "parallel" (one norm and one tensor-parallel reduction per layer).');
  }
  if (mtp && mtp[0] > 0) notes.push(`${mtp[1]} = ${mtp[0]}: mtp_layers, the draft of speculative decoding with an mtp draft; training does not count ${mtp[0] > 1 ? 'them' : 'it'}.`);
  if (modelType === 'gpt_oss') notes.push('gpt-oss: the attention sinks, the q/k/v/o and expert biases and the clamped SwiGLU are not modelled.');
  if (cfg.use_qk_norm === true || modelType.startsWith('qwen3')) notes.push('QK normalisation is not modelled.');
  // Gated attention: Qwen3-Next always (transformers' Qwen3NextAttention), others by attn_output_gate.
  if (cfg.attn_output_gate === true || modelType === 'qwen3_next') {
    const att = model.attention;
    if (att?.type === 'mla') notes.push('attn_output_gate over multi-head latent attention is not modelled.');
    else {
      const kv = model.kv_heads ?? model.heads;
      model.attention = { ...(att ?? { type: kv === model.heads ? 'mha' : kv === 1 ? 'mqa' : 'gqa' }), output_gate: true };
      notes.push('The full-attention layers\' output gate: a query projection twice as wide (attention.output_gate).');
    }
  }
  return { ok: true, model, notes };
}
