// Hugging Face config.json import of hybrid models (src/hf/import.ts): Nemotron-H's
// hybrid_override_pattern in Megatron-Core's hybrid notation becomes the model's layer_pattern
// (docs/contract.md, "model"), and linear-attention layer_types that no global_every can state
// become one too. The Nemotron fixtures are trimmed excerpts of the published config.json files
// (keys the importer does not read, such as auto_map, token ids and time-step bounds, left out);
// the imports must describe the same model as the presets written by hand from the same
// architecture (presets/models/nemotron-3-nano-30b-a3b.json, nemotron-h-8b.json).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importHfConfig, type HfImportResult, type HfLinear, type HfModel } from '../../src/hf/import';

const preset = (id: string): HfModel => JSON.parse(readFileSync(new URL(`../../../presets/models/${id}.json`, import.meta.url), 'utf8')) as HfModel;

/** The keys an import and a preset must share. */
const KEYS = ['layers', 'layer_pattern', 'hidden', 'heads', 'kv_heads', 'head_dim', 'ffn_hidden', 'ffn_type', 'norm', 'vocab', 'tied_embeddings', 'position', 'max_seq_len', 'attention', 'moe'] as const;
const pick = (m: HfModel): Record<string, unknown> => Object.fromEntries(KEYS.map((k) => [k, m[k]]));

function imported(config: unknown): Extract<HfImportResult, { ok: true }> {
  const r = importHfConfig(config);
  if (!r.ok) throw new Error(r.message);
  return r;
}

// huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/blob/main/config.json
const NEMOTRON_3_NANO = {
  architectures: ['NemotronHForCausalLM'],
  attention_bias: false,
  chunk_size: 128,
  conv_kernel: 4,
  expand: 2,
  head_dim: 128,
  hidden_size: 2688,
  hybrid_override_pattern: 'MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME',
  intermediate_size: 1856,
  layer_norm_epsilon: 1e-5,
  mamba_head_dim: 64,
  mamba_hidden_act: 'silu',
  mamba_num_heads: 64,
  mamba_proj_bias: false,
  mamba_ssm_cache_dtype: 'float32',
  max_position_embeddings: 262144,
  mlp_bias: false,
  mlp_hidden_act: 'relu2',
  model_type: 'nemotron_h',
  moe_intermediate_size: 1856,
  moe_shared_expert_intermediate_size: 3712,
  n_group: 1,
  n_groups: 8,
  n_routed_experts: 128,
  n_shared_experts: 1,
  norm_eps: 1e-5,
  norm_topk_prob: true,
  num_attention_heads: 32,
  num_experts_per_tok: 6,
  num_hidden_layers: 52,
  num_key_value_heads: 2,
  partial_rotary_factor: 1.0,
  rope_theta: 10000,
  routed_scaling_factor: 2.5,
  sliding_window: null,
  ssm_state_size: 128,
  tie_word_embeddings: false,
  topk_group: 1,
  torch_dtype: 'bfloat16',
  use_bias: false,
  use_conv_bias: true,
  vocab_size: 131072,
};

// huggingface.co/nvidia/Nemotron-H-8B-Base-8K/blob/main/config.json
const NEMOTRON_H_8B = {
  architectures: ['NemotronHForCausalLM'],
  attention_bias: false,
  attention_head_dim: 128,
  chunk_size: 128,
  conv_kernel: 4,
  expand: 2,
  hidden_size: 4096,
  hybrid_override_pattern: 'M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-',
  intermediate_size: 21504,
  layer_norm_epsilon: 1e-5,
  mamba_head_dim: 64,
  mamba_hidden_act: 'silu',
  mamba_num_heads: 128,
  mamba_proj_bias: false,
  max_position_embeddings: 8192,
  mlp_bias: false,
  mlp_hidden_act: 'relu2',
  model_type: 'nemotron_h',
  n_groups: 8,
  num_attention_heads: 32,
  num_hidden_layers: 52,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-5,
  ssm_state_size: 128,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  use_bias: false,
  use_conv_bias: true,
  vocab_size: 131072,
};

describe('importHfConfig: Nemotron-H hybrid patterns', () => {
  it('Nemotron 3 Nano 30B-A3B -> preset nemotron-3-nano-30b-a3b (52 sublayers, 29 layers)', () => {
    const r = imported(NEMOTRON_3_NANO);
    const p = preset('nemotron-3-nano-30b-a3b');
    // The config states mamba_ssm_cache_dtype float32, as the preset does.
    expect(pick(r.model)).toEqual(pick(p));
    expect(r.model.moe).not.toHaveProperty('first_dense_layers');
    expect(r.model.moe).not.toHaveProperty('layer_freq');
    expect(r.model.attention).not.toHaveProperty('global_every');
    const notes = r.notes.join(' ');
    expect(notes).toContain('52 sublayers');
    expect(notes).toContain('so 29 layers: 17 ME, 6 M, 6 *E');
    expect(notes).toContain('key heads = the 8 groups');
    expect(notes).toContain('state size 128');
    // Without the dtype key, the state takes the runtime's default (the key is left out).
    const { mamba_ssm_cache_dtype: _d, ...noDtype } = NEMOTRON_3_NANO;
    const { linear_state_precision: _s, ...attention } = p.attention as HfLinear & { type: 'gqa' };
    expect(pick(imported(noDtype).model)).toEqual({ ...pick(p), attention });
  });

  it('Nemotron 3 Super 120B-A12B -> preset nemotron-3-super-120b-a12b (LatentMoE: moe_latent_size)', () => {
    // Nano's config with Super's dimensions as Megatron-Bridge's Nemotron3SuperProvider states them.
    const super120 = {
      ...NEMOTRON_3_NANO,
      hidden_size: 4096,
      hybrid_override_pattern: 'MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME',
      num_hidden_layers: 88,
      intermediate_size: 2688,
      mamba_num_heads: 128,
      moe_intermediate_size: 2688,
      moe_shared_expert_intermediate_size: 5376,
      moe_latent_size: 1024,
      n_routed_experts: 512,
      num_experts_per_tok: 22,
    };
    const r = imported(super120);
    expect(pick(r.model)).toEqual(pick(preset('nemotron-3-super-120b-a12b')));
    expect(r.notes.join(' ')).toContain('routed in a 1024-wide latent');
    expect(importHfConfig({ ...super120, moe_latent_size: 0 })).toMatchObject({ ok: false, message: expect.stringContaining('moe_latent_size = 0') });
    expect(imported({ ...super120, moe_latent_size: null }).model.moe).not.toHaveProperty('latent_size');
  });

  it('Nemotron-H 8B -> preset nemotron-h-8b (52 sublayers, 28 layers, dense squared-ReLU FFNs)', () => {
    const r = imported(NEMOTRON_H_8B);
    expect(pick(r.model)).toEqual(pick(preset('nemotron-h-8b')));
    expect(r.model.moe).toBeUndefined();
    expect(r.notes.join(' ')).toContain('so 28 layers: 20 M-, 4 M, 4 *-');
  });

  it('reads the aliases: mamba_n_groups, mamba_d_conv, attention_head_dim; conv_kernel defaults to 4', () => {
    const { n_groups: _g, conv_kernel: _c, ...rest } = NEMOTRON_H_8B;
    expect(imported({ ...rest, mamba_n_groups: 4, mamba_d_conv: 3 }).model.attention).toMatchObject({ linear_key_heads: 4, linear_conv_kernel: 3 });
    expect(imported({ ...rest, mamba_n_groups: 4 }).model.attention).toMatchObject({ linear_conv_kernel: 4 });
    expect(imported({ ...NEMOTRON_H_8B, attention_head_dim: 64 }).model.head_dim).toBe(64);
  });

  it('layers_block_type (the newer NemotronHConfig) is the same pattern; num_hidden_layers may be absent', () => {
    const block = { M: 'mamba', '*': 'attention', '-': 'mlp', E: 'moe' } as Record<string, string>;
    const { hybrid_override_pattern: pat, num_hidden_layers: _n, ...rest } = NEMOTRON_3_NANO;
    const r = imported({ ...rest, layers_block_type: [...pat].map((c) => block[c]) });
    expect(r.model.layers).toBe(29);
    expect(r.model.layer_pattern).toBe(pat);
  });

  it('a pattern without M or without E: no linear keys, no moe', () => {
    const attnOnly = imported({ ...NEMOTRON_H_8B, hybrid_override_pattern: '*-*-', num_hidden_layers: 4 });
    expect(attnOnly.model).toMatchObject({ layers: 2, layer_pattern: '*-*-' });
    expect(attnOnly.model.attention).toBeUndefined();
    // Expert keys beside a pattern with no E describe no layer.
    const dense = imported({ ...NEMOTRON_3_NANO, hybrid_override_pattern: 'M-M*-', num_hidden_layers: 5 });
    expect(dense.model).toMatchObject({ layers: 3, layer_pattern: 'M-M*-' });
    expect(dense.model.moe).toBeUndefined();
  });

  it.each([
    ['a character other than M * - E', { ...NEMOTRON_H_8B, hybrid_override_pattern: 'M-M/M*', num_hidden_layers: 6 }, /only M \(Mamba-2\), \* \(attention\), - \(MLP\) and E \(MoE\)/],
    ['an empty pattern', { ...NEMOTRON_H_8B, hybrid_override_pattern: '', num_hidden_layers: 0 }, /Hybrid layer pattern ""/],
    ['a pattern longer than num_hidden_layers', { ...NEMOTRON_H_8B, num_hidden_layers: 28 }, /52 sublayers but num_hidden_layers = 28/],
    ['an unknown layers_block_type', { ...NEMOTRON_H_8B, hybrid_override_pattern: undefined, num_hidden_layers: 2, layers_block_type: ['mamba', 'hybrid'] }, /"M\[hybrid\]"/],
    ['nemotron_h without a pattern', { ...NEMOTRON_H_8B, hybrid_override_pattern: undefined }, /without hybrid_override_pattern/],
    ['E without an expert count', { ...NEMOTRON_H_8B, hybrid_override_pattern: 'ME*E', num_hidden_layers: 4 }, /MoE sublayers \(E\) but the config no expert count/],
    ['M without the Mamba keys', { ...NEMOTRON_H_8B, mamba_num_heads: undefined }, /Mamba-2 layers \(M\) with mamba_num_heads = undefined/],
  ])('refuses %s', (_name, config, message) => {
    const r = importHfConfig(config);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});

describe('importHfConfig: linear-attention layer_types off the every-k-th grid', () => {
  // A trimmed Qwen3-Next-style config (Qwen3NextConfig keys), 6 layers.
  const base = {
    model_type: 'qwen3_next',
    hidden_size: 256,
    num_hidden_layers: 6,
    num_attention_heads: 8,
    num_key_value_heads: 2,
    head_dim: 64,
    intermediate_size: 512,
    vocab_size: 1000,
    hidden_act: 'silu',
    rms_norm_eps: 1e-6,
    tie_word_embeddings: false,
    linear_num_value_heads: 8,
    linear_num_key_heads: 4,
    linear_key_head_dim: 32,
    linear_value_head_dim: 32,
    linear_conv_kernel_dim: 4,
  };
  const L = 'linear_attention';
  const F = 'full_attention';

  it('irregular full-attention layers become a layer_pattern (dense FFNs), no global_every', () => {
    const r = imported({ ...base, layer_types: [L, F, L, L, L, F] });
    expect(r.model.layer_pattern).toBe('M-*-M-M-M-*-');
    expect(r.model.layers).toBe(6);
    expect(r.model.attention).toEqual({ type: 'gqa', linear_heads: 8, linear_key_heads: 4, linear_key_head_dim: 32, linear_value_head_dim: 32, linear_conv_kernel: 4, output_gate: true });
    expect(r.model.position).toBeUndefined();
    expect(r.notes.join(' ')).toContain('layer_pattern states each layer');
  });

  it('an irregular layout whose count divides the layers is stated exactly too (not approximated)', () => {
    const r = imported({ ...base, layer_types: [F, L, L, L, L, F] });
    expect(r.model.layer_pattern).toBe('*-M-M-M-M-*-');
    expect(r.notes.join(' ')).not.toMatch(/keeps their number/);
  });

  it('MoE: the dense leading layers and the MoE period are written into the pattern and left out of moe', () => {
    const moe = { ...base, num_experts: 16, num_experts_per_tok: 2, moe_intermediate_size: 64, decoder_sparse_step: 2, mlp_only_layers: [] };
    const r = imported({ ...moe, layer_types: [L, F, L, L, L, F] });
    // decoder_sparse_step 2: layer_freq 2 (the contract's rule: (i - first_dense_layers) % layer_freq == 0).
    expect(r.model.layer_pattern).toBe('ME*-MEM-ME*-');
    expect(r.model.moe).toEqual({ experts: 16, top_k: 2, expert_ffn_hidden: 64, shared_experts: 0 });
    const allMoe = imported({ ...moe, decoder_sparse_step: 1, layer_types: [L, F, L, L, L, F] });
    expect(allMoe.model.layer_pattern).toBe('ME*EMEMEME*E');
  });

  it('a regular layout keeps global_every (unchanged)', () => {
    const r = imported({ ...base, layer_types: [L, L, F, L, L, F] });
    expect(r.model.layer_pattern).toBeUndefined();
    expect(r.model.attention).toMatchObject({ global_every: 3 });
  });
});

// Granite 4.0-H (GraniteMoeHybridConfig; the shape of transformers' documented example config):
// layer_types names each layer's mixer, and every layer has its FFN after it.
const GRANITE_H: Record<string, unknown> = {
  architectures: ['GraniteMoeHybridForCausalLM'],
  model_type: 'granitemoehybrid',
  hidden_size: 512,
  num_hidden_layers: 8,
  num_attention_heads: 8,
  num_key_value_heads: 8,
  intermediate_size: 1024,
  shared_intermediate_size: 512,
  num_local_experts: 8,
  num_experts_per_tok: 2,
  layer_types: ['mamba', 'mamba', 'mamba', 'attention', 'mamba', 'mamba', 'mamba', 'attention'],
  mamba_n_heads: 8,
  mamba_d_head: 128,
  mamba_n_groups: 1,
  mamba_d_state: 128,
  mamba_d_conv: 4,
  mamba_expand: 2,
  hidden_act: 'silu',
  normalization_function: 'rmsnorm',
  rms_norm_eps: 1e-5,
  position_embedding_type: 'nope',
  tie_word_embeddings: true,
  max_position_embeddings: 4096,
  vocab_size: 49152,
};

describe('importHfConfig: Granite 4.0-H', () => {
  it('each layer is its mixer and its MoE, the shared MLP a shared expert', () => {
    const r = imported(GRANITE_H);
    expect(r.model.layers).toBe(8);
    expect(r.model.layer_pattern).toBe('MEMEME*EMEMEME*E');
    expect(r.model.moe).toEqual({ experts: 8, top_k: 2, expert_ffn_hidden: 1024, shared_experts: 1, shared_expert_ffn_hidden: 512 });
    expect(r.model.attention).toEqual({ type: 'mha', linear_heads: 8, linear_key_heads: 1, linear_key_head_dim: 128, linear_value_head_dim: 128, linear_conv_kernel: 4 });
    expect([r.model.position, r.model.norm, r.model.ffn_type, r.model.tied_embeddings]).toEqual(['none', 'rmsnorm', 'swiglu', true]);
  });
  it('without experts the shared MLP is every layer\'s dense FFN', () => {
    const r = imported({ ...GRANITE_H, num_local_experts: 0 });
    expect(r.model.layer_pattern).toBe('M-M-M-*-M-M-M-*-');
    expect(r.model.moe).toBeUndefined();
    expect(r.model.ffn_hidden).toBe(512);
  });
  it('rope positions where position_embedding_type says so; a mixer it does not know is refused', () => {
    expect(imported({ ...GRANITE_H, position_embedding_type: 'rope' }).model.position).toBe('rotary');
    const bad = importHfConfig({ ...GRANITE_H, layer_types: ['mamba', 'conv', 'mamba', 'attention', 'mamba', 'mamba', 'mamba', 'attention'] });
    expect(bad.ok).toBe(false);
  });
});
