// Hugging Face config.json import of mixture-of-experts, MLA and sliding-window models
// (src/hf/import.ts). Each fixture is a trimmed excerpt of a published config.json (the source
// is named above it; keys the importer does not read, such as auto_map, quantization_config,
// rope_scaling and token ids, are left out). The imports must describe the same model as the
// model presets (presets/models/*.json), which cite the same configs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importHfConfig, type HfAttention, type HfModel, type HfMoe } from '../../src/hf/import';

const preset = (id: string): HfModel => JSON.parse(readFileSync(new URL(`../../../presets/models/${id}.json`, import.meta.url), 'utf8')) as HfModel;
const fixture = (name: string): string => readFileSync(new URL(`./fixtures/hf/${name}.json`, import.meta.url), 'utf8');

/** `layers` entries alternating sliding (even layers) and full (odd layers) attention, as gpt-oss. */
const alternating = (layers: number): string[] => Array.from({ length: layers }, (_, i) => (i % 2 ? 'full_attention' : 'sliding_attention'));

// huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json
const DEEPSEEK_V3 = {
  architectures: ['DeepseekV3ForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  ep_size: 1,
  first_k_dense_replace: 3,
  hidden_act: 'silu',
  hidden_size: 7168,
  intermediate_size: 18432,
  kv_lora_rank: 512,
  max_position_embeddings: 163840,
  model_type: 'deepseek_v3',
  moe_intermediate_size: 2048,
  moe_layer_freq: 1,
  n_group: 8,
  n_routed_experts: 256,
  n_shared_experts: 1,
  norm_topk_prob: true,
  num_attention_heads: 128,
  num_experts_per_tok: 8,
  num_hidden_layers: 61,
  num_key_value_heads: 128,
  num_nextn_predict_layers: 1,
  q_lora_rank: 1536,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  rms_norm_eps: 1e-6,
  rope_theta: 10000,
  routed_scaling_factor: 2.5,
  scoring_func: 'sigmoid',
  tie_word_embeddings: false,
  topk_group: 4,
  topk_method: 'noaux_tc',
  torch_dtype: 'bfloat16',
  v_head_dim: 128,
  vocab_size: 129280,
  quantization_config: { activation_scheme: 'dynamic', fmt: 'e4m3', quant_method: 'fp8', weight_block_size: [128, 128] },
};

// huggingface.co/moonshotai/Kimi-K2-Instruct/blob/main/config.json (DeepSeek-V3 architecture)
const KIMI_K2 = {
  architectures: ['DeepseekV3ForCausalLM'],
  first_k_dense_replace: 1,
  hidden_act: 'silu',
  hidden_size: 7168,
  intermediate_size: 18432,
  kv_lora_rank: 512,
  max_position_embeddings: 131072,
  model_type: 'kimi_k2',
  quantization_config: { activation_scheme: 'dynamic', fmt: 'e4m3', quant_method: 'fp8', weight_block_size: [128, 128] },
  moe_intermediate_size: 2048,
  moe_layer_freq: 1,
  n_group: 1,
  n_routed_experts: 384,
  n_shared_experts: 1,
  num_attention_heads: 64,
  num_experts_per_tok: 8,
  num_hidden_layers: 61,
  num_key_value_heads: 64,
  num_nextn_predict_layers: 0,
  q_lora_rank: 1536,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  rms_norm_eps: 1e-6,
  rope_theta: 50000.0,
  routed_scaling_factor: 2.827,
  scoring_func: 'sigmoid',
  tie_word_embeddings: false,
  topk_group: 1,
  v_head_dim: 128,
  vocab_size: 163840,
};

// huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json
const QWEN3_30B_A3B = {
  architectures: ['Qwen3MoeForCausalLM'],
  attention_bias: false,
  decoder_sparse_step: 1,
  head_dim: 128,
  hidden_act: 'silu',
  hidden_size: 2048,
  intermediate_size: 6144,
  max_position_embeddings: 40960,
  max_window_layers: 48,
  mlp_only_layers: [],
  model_type: 'qwen3_moe',
  moe_intermediate_size: 768,
  norm_topk_prob: true,
  num_attention_heads: 32,
  num_experts: 128,
  num_experts_per_tok: 8,
  num_hidden_layers: 48,
  num_key_value_heads: 4,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: null,
  tie_word_embeddings: false,
  use_sliding_window: false,
  vocab_size: 151936,
};

// huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json
const QWEN3_NEXT = {
  architectures: ['Qwen3NextForCausalLM'],
  decoder_sparse_step: 1,
  full_attention_interval: 4,
  head_dim: 256,
  hidden_act: 'silu',
  hidden_size: 2048,
  intermediate_size: 5120,
  linear_conv_kernel_dim: 4,
  linear_key_head_dim: 128,
  linear_num_key_heads: 16,
  linear_num_value_heads: 32,
  linear_value_head_dim: 128,
  max_position_embeddings: 262144,
  mlp_only_layers: [],
  model_type: 'qwen3_next',
  moe_intermediate_size: 512,
  norm_topk_prob: true,
  num_attention_heads: 16,
  num_experts: 512,
  num_experts_per_tok: 10,
  num_hidden_layers: 48,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  shared_expert_intermediate_size: 512,
  tie_word_embeddings: false,
  vocab_size: 151936,
};

// huggingface.co/Qwen/Qwen3-235B-A22B/blob/main/config.json
const QWEN3_235B_A22B = {
  ...QWEN3_30B_A3B,
  hidden_size: 4096,
  intermediate_size: 12288,
  max_window_layers: 94,
  moe_intermediate_size: 1536,
  num_attention_heads: 64,
  num_hidden_layers: 94,
};

// huggingface.co/openai/gpt-oss-120b/blob/main/config.json
const GPT_OSS_120B = {
  architectures: ['GptOssForCausalLM'],
  attention_bias: true,
  experts_per_token: 4,
  head_dim: 64,
  hidden_act: 'silu',
  hidden_size: 2880,
  initial_context_length: 4096,
  intermediate_size: 2880,
  layer_types: alternating(36),
  max_position_embeddings: 131072,
  model_type: 'gpt_oss',
  num_attention_heads: 64,
  num_experts_per_tok: 4,
  num_hidden_layers: 36,
  num_key_value_heads: 8,
  num_local_experts: 128,
  quantization_config: { modules_to_not_convert: ['model.layers.*.self_attn', 'model.layers.*.mlp.router', 'model.embed_tokens', 'lm_head'], quant_method: 'mxfp4' },
  rms_norm_eps: 1e-5,
  rope_theta: 150000,
  sliding_window: 128,
  swiglu_limit: 7.0,
  tie_word_embeddings: false,
  vocab_size: 201088,
};

// huggingface.co/openai/gpt-oss-20b/blob/main/config.json
const GPT_OSS_20B = { ...GPT_OSS_120B, layer_types: alternating(24), num_hidden_layers: 24, num_local_experts: 32 };

// huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json (vision_config left out)
const LLAMA4_SCOUT_TEXT = {
  attention_bias: false,
  attention_chunk_size: 8192,
  attention_dropout: 0.0,
  head_dim: 128,
  hidden_act: 'silu',
  hidden_size: 5120,
  interleave_moe_layer_step: 1,
  intermediate_size: 8192,
  intermediate_size_mlp: 16384,
  max_position_embeddings: 10485760,
  model_type: 'llama4_text',
  num_attention_heads: 40,
  num_experts_per_tok: 1,
  num_hidden_layers: 48,
  num_key_value_heads: 8,
  num_local_experts: 16,
  rms_norm_eps: 1e-5,
  rope_theta: 500000.0,
  use_qk_norm: true,
  vocab_size: 202048,
};
const LLAMA4_SCOUT = { architectures: ['Llama4ForConditionalGeneration'], model_type: 'llama4', text_config: LLAMA4_SCOUT_TEXT, torch_dtype: 'bfloat16' };

// huggingface.co/meta-llama/Llama-4-Maverick-17B-128E/blob/main/config.json (vision_config left out)
const LLAMA4_MAVERICK = {
  architectures: ['Llama4ForConditionalGeneration'],
  model_type: 'llama4',
  text_config: { ...LLAMA4_SCOUT_TEXT, interleave_moe_layer_step: 2, max_position_embeddings: 1048576, num_local_experts: 128, use_qk_norm: false },
  torch_dtype: 'bfloat16',
};

// huggingface.co/mistralai/Mixtral-8x22B-Instruct-v0.1/blob/main/config.json
const MIXTRAL_8X22B = {
  architectures: ['MixtralForCausalLM'],
  attention_dropout: 0.0,
  hidden_act: 'silu',
  hidden_size: 6144,
  intermediate_size: 16384,
  max_position_embeddings: 65536,
  model_type: 'mixtral',
  num_attention_heads: 48,
  num_experts_per_tok: 2,
  num_hidden_layers: 56,
  num_key_value_heads: 8,
  num_local_experts: 8,
  rms_norm_eps: 1e-5,
  rope_theta: 1000000.0,
  router_aux_loss_coef: 0.001,
  sliding_window: null,
  tie_word_embeddings: false,
  vocab_size: 32768,
};

function imported(config: unknown): { model: HfModel; notes: string[] } {
  const r = importHfConfig(config);
  if (!r.ok) throw new Error(r.message);
  return r;
}

/** The model as the engine will see it: the contract's documented defaults filled in. */
function effective(m: HfModel) {
  const kv = m.kv_heads ?? m.heads;
  const moe: HfMoe | undefined = m.moe && {
    experts: m.moe.experts,
    top_k: m.moe.top_k,
    expert_ffn_hidden: m.moe.expert_ffn_hidden,
    shared_experts: m.moe.shared_experts ?? 0,
    shared_expert_ffn_hidden: (m.moe.shared_experts ?? 0) > 0 ? (m.moe.shared_expert_ffn_hidden ?? m.moe.expert_ffn_hidden) : 0,
    first_dense_layers: m.moe.first_dense_layers ?? 0,
    layer_freq: m.moe.layer_freq ?? 1,
  };
  const attention: HfAttention = m.attention ?? { type: kv === m.heads ? 'mha' : kv === 1 ? 'mqa' : 'gqa' };
  return {
    layers: m.layers,
    hidden: m.hidden,
    heads: m.heads,
    kv_heads: kv,
    head_dim: m.head_dim ?? m.hidden / m.heads,
    ffn_hidden: m.ffn_hidden,
    vocab: m.vocab,
    ffn_type: m.ffn_type ?? 'gelu',
    norm: m.norm ?? 'layernorm',
    tied_embeddings: m.tied_embeddings ?? true,
    max_seq_len: m.max_seq_len,
    checkpoint_precision: m.checkpoint_precision,
    checkpoint_block_scaled: m.checkpoint_block_scaled ?? false,
    moe,
    attention: {
      ...attention,
      global_every: attention.global_every ?? 0,
      ...('linear_heads' in attention && attention.linear_heads
        ? { linear_key_heads: attention.linear_key_heads ?? attention.linear_heads, linear_conv_kernel: attention.linear_conv_kernel ?? 0, linear_state_precision: attention.linear_state_precision ?? 'fp32' }
        : {}),
    },
  };
}

describe('importHfConfig: MoE/MLA configs describe the same model as the model presets', () => {
  it.each([
    ['DeepSeek-V3', DEEPSEEK_V3, 'deepseek-v3'],
    ['DeepSeek-R1 (same config keys as V3)', DEEPSEEK_V3, 'deepseek-r1'],
    // DeepseekV32Config: V3's keys plus the indexer's (index_n_heads 64, index_head_dim 128, index_topk 2048).
    ['DeepSeek-V3.2-Exp', { ...DEEPSEEK_V3, model_type: 'deepseek_v32', index_n_heads: 64, index_head_dim: 128, index_topk: 2048 }, 'deepseek-v3.2-exp'],
    ['Kimi K2', KIMI_K2, 'kimi-k2'],
    ['Qwen3-30B-A3B', QWEN3_30B_A3B, 'qwen3-30b-a3b'],
    ['Qwen3-235B-A22B', QWEN3_235B_A22B, 'qwen3-235b-a22b'],
    ['Qwen3-Next-80B-A3B', QWEN3_NEXT, 'qwen3-next-80b-a3b'],
    ['gpt-oss-120b', GPT_OSS_120B, 'gpt-oss-120b'],
    ['gpt-oss-20b', GPT_OSS_20B, 'gpt-oss-20b'],
    ['Llama 4 Scout', LLAMA4_SCOUT, 'llama4-scout'],
    ['Llama 4 Maverick', LLAMA4_MAVERICK, 'llama4-maverick'],
    ['Mixtral 8x7B', JSON.parse(fixture('mixtral-8x7b')), 'mixtral-8x7b'],
    ['Mixtral 8x22B', MIXTRAL_8X22B, 'mixtral-8x22b'],
  ])('%s -> preset %s', (_name, config, id) => {
    expect(effective(imported(config).model)).toEqual(effective(preset(id)));
  });
});

describe('importHfConfig: the model object of each family', () => {
  it('DeepSeek-V3: MLA, 256 routed + 1 shared expert, 3 leading dense layers, MTP noted', () => {
    const r = imported(DEEPSEEK_V3);
    expect(r.model).toMatchObject({
      layers: 61,
      hidden: 7168,
      heads: 128,
      kv_heads: 128,
      head_dim: 128,
      ffn_hidden: 18432,
      vocab: 129280,
      ffn_type: 'swiglu',
      norm: 'rmsnorm',
      tied_embeddings: false,
      max_seq_len: 163840,
      mtp_layers: 1,
      checkpoint_precision: 'fp8',
      checkpoint_block_scaled: true,
    });
    expect(r.model.moe).toEqual({ experts: 256, top_k: 8, expert_ffn_hidden: 2048, shared_experts: 1, shared_expert_ffn_hidden: 2048, first_dense_layers: 3, layer_freq: 1 });
    expect(r.model.attention).toEqual({ type: 'mla', q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 });
    const notes = r.notes.join(' ');
    expect(notes).toMatch(/num_nextn_predict_layers = 1: mtp_layers, the draft of speculative decoding/);
    expect(notes).toMatch(/head_dim given as v_head_dim 128/);
    expect(notes).toMatch(/quantization_config fp8 with 128 x 128 weight blocks: checkpoint_precision fp8 \(block-scaled\)/);
  });

  it('DeepSeek Sparse Attention needs its three index keys, over MLA', () => {
    const dsa = { ...DEEPSEEK_V3, model_type: 'deepseek_v32', index_n_heads: 64, index_head_dim: 128, index_topk: 2048 };
    const r = imported(dsa);
    expect(r.model.attention).toMatchObject({ type: 'mla', index_heads: 64, index_head_dim: 128, index_top_k: 2048 });
    expect(r.notes.join(' ')).toContain('top 2048');
    const partial = importHfConfig({ ...dsa, index_head_dim: undefined });
    expect(partial.ok).toBe(false);
    if (!partial.ok) expect(partial.message).toContain('index_head_dim');
    const { kv_lora_rank: _k, ...noMla } = dsa;
    const dense = importHfConfig(noMla);
    expect(dense.ok).toBe(false);
    if (!dense.ok) expect(dense.message).toContain('over MLA only');
  });

  it('attn_output_gate gates a GQA model\'s attention, and is only noted over MLA', () => {
    const gated = imported({ ...QWEN3_30B_A3B, attn_output_gate: true });
    expect(gated.model.attention).toEqual({ type: 'gqa', output_gate: true });
    expect(gated.notes.join(' ')).toContain('attention.output_gate');
    const mla = imported({ ...DEEPSEEK_V3, attn_output_gate: true });
    expect(mla.model.attention).not.toHaveProperty('output_gate');
    expect(mla.notes.join(' ')).toContain('attn_output_gate over multi-head latent attention is not modelled');
  });

  it('Qwen3-Next: Gated DeltaNet layers between every 4th full-attention layer, from layer_types too', () => {
    const r = imported(QWEN3_NEXT);
    expect(r.model.attention).toEqual({
      type: 'gqa',
      global_every: 4,
      output_gate: true,
      linear_heads: 32,
      linear_key_heads: 16,
      linear_key_head_dim: 128,
      linear_value_head_dim: 128,
      linear_conv_kernel: 4,
    });
    expect(r.notes.join(' ')).toContain('output gate');
    expect(r.notes.join(' ')).toContain('bf16 on vLLM');
    const listed = imported({ ...QWEN3_NEXT, layer_types: Array.from({ length: 48 }, (_, i) => ((i + 1) % 4 ? 'linear_attention' : 'full_attention')), mamba_ssm_dtype: 'bfloat16' });
    expect(listed.model.attention).toMatchObject({ global_every: 4, linear_state_precision: 'bf16' });
    // Every layer full attention: the linear keys describe no layer (not "every layer linear").
    const allFull = imported({ ...QWEN3_NEXT, layer_types: Array.from({ length: 48 }, () => 'full_attention') });
    // (Qwen3-Next's full-attention layers keep their output gate.)
    expect(allFull.model.attention).toEqual({ type: 'gqa', output_gate: true });
    expect(allFull.notes.join(' ')).toContain('no linear_attention layer');
    const bad = importHfConfig({ ...QWEN3_NEXT, linear_key_head_dim: 0 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toContain('linear_key_head_dim');
    // Qwen3.5's configs are multimodal: the text model is text_config.
    const q35 = imported({ model_type: 'qwen3_5_moe', tie_word_embeddings: false, text_config: { ...QWEN3_NEXT, model_type: 'qwen3_5_moe_text', mamba_ssm_dtype: 'float32', mtp_num_hidden_layers: 1 } });
    expect(q35.model.attention).toMatchObject({ linear_heads: 32, linear_state_precision: 'fp32' });
    expect(q35.model.mtp_layers).toBe(1);
    expect(q35.notes.join(' ')).toContain('mtp_num_hidden_layers = 1: mtp_layers');
    expect(q35.notes.join(' ')).toContain('Qwen3.5');
  });

  it('q_lora_rank null (DeepSeek-V2-Lite style) means uncompressed queries, q_lora_rank 0', () => {
    // huggingface.co/deepseek-ai/DeepSeek-V2-Lite/blob/main/config.json (trimmed)
    const r = imported({
      model_type: 'deepseek_v2',
      first_k_dense_replace: 1,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 10944,
      kv_lora_rank: 512,
      moe_intermediate_size: 1408,
      moe_layer_freq: 1,
      n_routed_experts: 64,
      n_shared_experts: 2,
      num_attention_heads: 16,
      num_experts_per_tok: 6,
      num_hidden_layers: 27,
      num_key_value_heads: 16,
      q_lora_rank: null,
      qk_nope_head_dim: 128,
      qk_rope_head_dim: 64,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      v_head_dim: 128,
      vocab_size: 102400,
    });
    expect(r.model.attention).toMatchObject({ type: 'mla', q_lora_rank: 0, kv_lora_rank: 512 });
    expect(r.model.moe).toMatchObject({ experts: 64, top_k: 6, expert_ffn_hidden: 1408, shared_experts: 2, shared_expert_ffn_hidden: 1408, first_dense_layers: 1 });
  });

  it('Qwen3-30B-A3B: 128 experts top-8, no shared expert, no window (use_sliding_window false)', () => {
    const r = imported(QWEN3_30B_A3B);
    expect(r.model).toMatchObject({ layers: 48, hidden: 2048, heads: 32, kv_heads: 4, head_dim: 128, ffn_hidden: 6144, vocab: 151936, max_seq_len: 40960 });
    expect(r.model.moe).toEqual({ experts: 128, top_k: 8, expert_ffn_hidden: 768, shared_experts: 0, first_dense_layers: 0, layer_freq: 1 });
    expect(r.model.attention).toBeUndefined();
  });

  it('gpt-oss-120b: 128 experts top-4 of intermediate_size, 128-token window on every other layer', () => {
    const r = imported(GPT_OSS_120B);
    expect(r.model).toMatchObject({ layers: 36, hidden: 2880, heads: 64, kv_heads: 8, head_dim: 64, ffn_hidden: 2880, vocab: 201088, tied_embeddings: false });
    expect(r.model.moe).toEqual({ experts: 128, top_k: 4, expert_ffn_hidden: 2880, shared_experts: 0, first_dense_layers: 0, layer_freq: 1 });
    expect(r.model.attention).toEqual({ type: 'gqa', window: 128, global_every: 2 });
    expect(r.model).toMatchObject({ checkpoint_precision: 'mxfp4', checkpoint_experts_only: true });
    expect(r.notes.join(' ')).toMatch(/attention sinks/);
    expect(r.notes.join(' ')).toMatch(/quantization_config mxfp4: checkpoint_precision mxfp4 on the experts alone/);
  });

  it('Llama 4 Maverick: text_config, MoE every other layer with a shared expert, chunked attention as a window', () => {
    const r = imported(LLAMA4_MAVERICK);
    expect(r.model).toMatchObject({ layers: 48, hidden: 5120, heads: 40, kv_heads: 8, head_dim: 128, ffn_hidden: 16384, vocab: 202048, tied_embeddings: false, max_seq_len: 1048576 });
    expect(r.model.moe).toEqual({ experts: 128, top_k: 1, expert_ffn_hidden: 8192, shared_experts: 1, shared_expert_ffn_hidden: 8192, first_dense_layers: 0, layer_freq: 2 });
    expect(r.model.attention).toEqual({ type: 'gqa', window: 8192, global_every: 4 });
    const notes = r.notes.join(' ');
    expect(notes).toMatch(/vision encoder is not modelled/);
    expect(notes).toMatch(/Chunked attention/);
    expect(notes).toMatch(/Llama4TextConfig's default \(untied\)/);
  });

  it('Llama 4: an explicit moe_layers list and no_rope_layers are read', () => {
    const L = 48;
    const text = {
      ...LLAMA4_SCOUT_TEXT,
      interleave_moe_layer_step: 2,
      moe_layers: Array.from({ length: L / 2 }, (_, i) => 2 * i + 1),
      no_rope_layers: Array.from({ length: L }, (_, i) => ((i + 1) % 4 === 0 ? 0 : 1)),
    };
    const r = imported({ model_type: 'llama4', text_config: text });
    expect(r.model.moe).toMatchObject({ layer_freq: 2, first_dense_layers: 0 });
    expect(r.model.attention).toEqual({ type: 'gqa', window: 8192, global_every: 4 });
    const odd = importHfConfig({ model_type: 'llama4', text_config: { ...text, moe_layers: [0, 5, 9] } });
    expect(odd.ok).toBe(false);
    if (!odd.ok) expect(odd.message).toMatch(/moe_layers \[0, 5, 9\] is not every k-th layer/);
  });

  it('Kimi K2: 384 experts, one leading dense layer, 64-head MLA', () => {
    const r = imported(KIMI_K2);
    expect(r.model.moe).toEqual({ experts: 384, top_k: 8, expert_ffn_hidden: 2048, shared_experts: 1, shared_expert_ffn_hidden: 2048, first_dense_layers: 1, layer_freq: 1 });
    expect(r.model.attention).toMatchObject({ type: 'mla', q_lora_rank: 1536 });
    expect(r.model.heads).toBe(64);
  });

  it('Qwen2-MoE style: one shared expert of shared_expert_intermediate_size; leading mlp_only_layers', () => {
    // huggingface.co/Qwen/Qwen2-57B-A14B/blob/main/config.json (trimmed), mlp_only_layers added
    const r = imported({
      model_type: 'qwen2_moe',
      decoder_sparse_step: 1,
      hidden_act: 'silu',
      hidden_size: 3584,
      intermediate_size: 18944,
      mlp_only_layers: [0, 1],
      moe_intermediate_size: 2560,
      num_attention_heads: 28,
      num_experts: 64,
      num_experts_per_tok: 8,
      num_hidden_layers: 28,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      shared_expert_intermediate_size: 20480,
      sliding_window: 4096,
      tie_word_embeddings: false,
      use_sliding_window: false,
      vocab_size: 151936,
    });
    expect(r.model.moe).toEqual({ experts: 64, top_k: 8, expert_ffn_hidden: 2560, shared_experts: 1, shared_expert_ffn_hidden: 20480, first_dense_layers: 2, layer_freq: 1 });
    expect(r.model.ffn_hidden).toBe(18944);
    expect(r.model.attention).toBeUndefined();
  });
});

describe('importHfConfig: sliding-window attention of dense models', () => {
  const dense = { hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-5, tie_word_embeddings: false, vocab_size: 32000 };

  it('Mistral 7B v0.1: sliding_window without layer_types windows every layer', () => {
    // huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json (trimmed)
    const r = imported({ ...dense, model_type: 'mistral', sliding_window: 4096 });
    expect(r.model.attention).toEqual({ type: 'gqa', window: 4096 });
    expect(r.model.moe).toBeUndefined();
  });

  it('Gemma 3 style sliding_window_pattern 6: every 6th layer global', () => {
    const r = imported({ ...dense, model_type: 'gemma3_text', num_hidden_layers: 12, sliding_window: 1024, sliding_window_pattern: 6 });
    expect(r.model.attention).toEqual({ type: 'gqa', window: 1024, global_every: 6 });
  });

  it('layer_types with the full layers off the k-1, 2k-1 grid keep their number, with a note', () => {
    const layer_types = ['full_attention', 'sliding_attention', 'full_attention', 'sliding_attention'];
    const r = imported({ ...dense, num_hidden_layers: 4, sliding_window: 512, layer_types });
    expect(r.model.attention).toEqual({ type: 'gqa', window: 512, global_every: 2 });
    expect(r.notes.join(' ')).toMatch(/keeps their number, not their positions/);
  });

  it('a dense config without a window gets no attention block (unchanged output)', () => {
    expect(imported({ ...dense, model_type: 'llama' }).model.attention).toBeUndefined();
  });
});

describe('importHfConfig: MoE and MLA configs it cannot read', () => {
  const base = { hidden_size: 64, num_hidden_layers: 4, num_attention_heads: 8, vocab_size: 100, hidden_act: 'silu', rms_norm_eps: 1e-6, intermediate_size: 256 };
  it.each([
    ['experts without a top-k', { ...base, model_type: 'mixtral', num_local_experts: 8 }, /MoE config without num_experts_per_tok/],
    ['a top-k without experts', { ...base, num_experts_per_tok: 2 }, /MoE config without an expert count \(num_experts_per_tok = 2/],
    ['an unknown style without the expert width', { ...base, model_type: 'foo_moe', num_experts: 16, num_experts_per_tok: 2 }, /MoE config without moe_intermediate_size/],
    ['top-k above the expert count', { ...base, model_type: 'mixtral', num_local_experts: 4, num_experts_per_tok: 8 }, /num_experts_per_tok = 8 is not a whole number of experts between 1 and 4/],
    ['MLA without qk_rope_head_dim', { ...base, kv_lora_rank: 32, qk_nope_head_dim: 16, v_head_dim: 16 }, /MLA config \(kv_lora_rank\) without qk_rope_head_dim/],
    ['dense layers not leading', { ...base, num_experts: 8, num_experts_per_tok: 2, moe_intermediate_size: 32, mlp_only_layers: [1, 3] }, /mlp_only_layers \[1, 3\] is not a leading run/],
    ['an attention kind it does not model', { ...base, sliding_window: 16, layer_types: ['linear_attention', 'full_attention', 'full_attention', 'full_attention'] }, /layer_types "linear_attention"/],
    ['a multimodal config other than Llama 4', { model_type: 'llava', text_config: { hidden_size: 64 } }, /multimodal config/],
  ])('%s', (_name, config, message) => {
    const r = importHfConfig(config);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});
