// Hugging Face config.json import (src/hf/import.ts). The fixtures are the published config.json
// files of meta-llama/Llama-2-7b-hf, meta-llama/Meta-Llama-3-8B, EleutherAI/gpt-j-6b,
// tiiuae/falcon-180B, tiiuae/falcon-7b and mistralai/Mixtral-8x7B-v0.1; the imports of the first
// four must describe the same model as the engine's presets (presets/models/*.json), which cite
// the same configs. Mixture-of-experts and MLA families: hf-moe.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importHfConfig } from '../../src/hf/import';
import type { ModelSpec } from '../../src/engine/types';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/hf/${name}.json`, import.meta.url), 'utf8');
const preset = (id: string): ModelSpec => JSON.parse(readFileSync(new URL(`../../../presets/models/${id}.json`, import.meta.url), 'utf8')) as ModelSpec;

/** The model as the engine sees it: documented defaults filled in (docs/contract.md). */
function effective(m: ModelSpec): Required<Pick<ModelSpec, 'layers' | 'hidden' | 'heads' | 'kv_heads' | 'head_dim' | 'ffn_hidden' | 'vocab' | 'ffn_type' | 'norm' | 'block' | 'tied_embeddings'>> & { max_seq_len?: number } {
  return {
    layers: m.layers,
    hidden: m.hidden,
    heads: m.heads,
    kv_heads: m.kv_heads ?? m.heads,
    head_dim: m.head_dim ?? m.hidden / m.heads,
    ffn_hidden: m.ffn_hidden,
    vocab: m.vocab,
    ffn_type: m.ffn_type ?? 'gelu',
    norm: m.norm ?? 'layernorm',
    block: m.block ?? 'sequential',
    tied_embeddings: m.tied_embeddings ?? true,
    max_seq_len: m.max_seq_len,
  };
}

describe('importHfConfig matches the presets built from the same configs', () => {
  it.each([
    ['llama-2-7b-hf', 'llama2-7b'],
    ['meta-llama-3-8b', 'llama3-8b'],
    ['gpt-j-6b', 'gpt-j-6b'],
    ['falcon-180b', 'falcon-180b'],
  ])('%s -> preset %s', (file, id) => {
    const r = importHfConfig(fixture(file));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(effective(r.model)).toEqual(effective(preset(id)));
  });
});

describe('importHfConfig field mapping', () => {
  it('maps Llama 3 8B exactly', () => {
    const r = importHfConfig(fixture('meta-llama-3-8b'), 'Llama 3 8B');
    expect(r).toMatchObject({
      ok: true,
      model: { layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, vocab: 128256, ffn_type: 'swiglu', norm: 'rmsnorm', tied_embeddings: false, max_seq_len: 8192, name: 'Llama 3 8B' },
    });
  });

  it('GPT-J: n_inner null gives 4 x hidden, gelu_new a two-matrix MLP, layer norm', () => {
    const r = importHfConfig(fixture('gpt-j-6b'));
    if (!r.ok) throw new Error(r.message);
    expect(r.model.ffn_hidden).toBe(16384);
    expect(r.model.ffn_type).toBe('gelu');
    expect(r.model.norm).toBe('layernorm');
    expect(r.model.max_seq_len).toBe(2048);
    expect(r.notes.join(' ')).toMatch(/4 × hidden/);
  });

  it('Falcon 7B: multi_query without the new decoder architecture is one KV head', () => {
    const r = importHfConfig(fixture('falcon-7b'));
    if (!r.ok) throw new Error(r.message);
    expect(r.model).toMatchObject({ layers: 32, hidden: 4544, heads: 71, kv_heads: 1, ffn_hidden: 4 * 4544, tied_embeddings: true, max_seq_len: 2048 });
    expect(r.notes.join(' ')).toMatch(/Parallel attention/);
  });

  it('parallel attention/MLP blocks: GPT-J, Falcon, GPT-NeoX (its default) and explicit flags; Llama stays sequential', () => {
    const block = (cfg: unknown): string | undefined => {
      const r = importHfConfig(cfg);
      if (!r.ok) throw new Error(r.message);
      return r.model.block;
    };
    expect(block(fixture('gpt-j-6b'))).toBe('parallel');
    expect(block(fixture('falcon-7b'))).toBe('parallel');
    expect(block(fixture('falcon-180b'))).toBe('parallel');
    expect(block(fixture('meta-llama-3-8b'))).toBeUndefined();
    const neox = { model_type: 'gpt_neox', hidden_size: 2048, num_hidden_layers: 16, num_attention_heads: 8, intermediate_size: 8192, vocab_size: 50304, hidden_act: 'gelu' };
    expect(block(neox)).toBe('parallel');
    expect(block({ ...neox, use_parallel_residual: false })).toBeUndefined();
    expect(block({ ...JSON.parse(fixture('falcon-7b')), parallel_attn: false })).toBeUndefined();
  });

  it('Falcon 180B: new decoder architecture uses num_kv_heads', () => {
    const r = importHfConfig(JSON.parse(fixture('falcon-180b')));
    if (!r.ok) throw new Error(r.message);
    expect(r.model.kv_heads).toBe(8);
  });

  it('keeps an explicit head_dim (e.g. Gemma-style configs) and maps gated GELU to swiglu', () => {
    const r = importHfConfig({ model_type: 'gemma', hidden_size: 3072, num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 16, head_dim: 256, intermediate_size: 24576, vocab_size: 256000, hidden_act: 'gelu_pytorch_tanh', rms_norm_eps: 1e-6 });
    if (!r.ok) throw new Error(r.message);
    expect(r.model.head_dim).toBe(256);
    expect(r.model.ffn_type).toBe('swiglu');
  });
});

describe('importHfConfig fills what a config leaves out with its class defaults', () => {
  // A trimmed config: transformers' LlamaConfig defaults hidden_act to "silu" (LlamaMLP is gated)
  // and tie_word_embeddings to false, where PretrainedConfig's own default ties them.
  const trimmed = (modelType: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ model_type: modelType, hidden_size: 2048, num_hidden_layers: 16, num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 8192, vocab_size: 128256, rms_norm_eps: 1e-5, ...extra });
  it('a Llama-family config without hidden_act or tie_word_embeddings: a gated MLP, untied, each said', () => {
    for (const t of ['llama', 'mistral', 'qwen2', 'qwen3']) {
      const r = importHfConfig(trimmed(t));
      if (!r.ok) throw new Error(r.message);
      expect(r.model.ffn_type, t).toBe('swiglu');
      expect(r.model.tied_embeddings, t).toBe(false);
      expect(r.notes.join(' '), t).toMatch(/default \(silu, a gated three-matrix MLP\) assumed/);
      expect(r.notes.join(' '), t).toMatch(/default \(untied\) assumed/);
    }
  });
  it('what the config states wins; another family keeps transformers\' own defaults', () => {
    const stated = importHfConfig(trimmed('llama', { hidden_act: 'gelu', tie_word_embeddings: true }));
    if (!stated.ok) throw new Error(stated.message);
    expect(stated.model.ffn_type).toBe('gelu');
    expect(stated.model.tied_embeddings).toBe(true);
    const other = importHfConfig(trimmed('gpt_neox'));
    if (!other.ok) throw new Error(other.message);
    expect(other.model.ffn_type).toBe('gelu');
    expect(other.model.tied_embeddings).toBe(true);
  });
});

describe('importHfConfig rejects what it cannot describe', () => {
  it('imports Mixtral (mixture of experts; it was rejected before the moe block existed)', () => {
    const r = importHfConfig(fixture('mixtral-8x7b'));
    if (!r.ok) throw new Error(r.message);
    expect(r.model.moe).toEqual({ experts: 8, top_k: 2, expert_ffn_hidden: 14336, shared_experts: 0, first_dense_layers: 0, layer_freq: 1 });
  });
  it.each([
    ['not json', '{"hidden_size": 4096,', /not valid JSON/],
    ['an array', '[1,2]', /JSON object/],
    ['missing hidden size', '{"num_hidden_layers": 2, "num_attention_heads": 2, "vocab_size": 10}', /no hidden size/],
    ['fractional layers', '{"hidden_size": 64, "num_hidden_layers": 2.5, "num_attention_heads": 2, "vocab_size": 10}', /num_hidden_layers = 2.5 is not a positive integer/],
    ['encoder-decoder', '{"model_type": "t5", "d_model": 512, "num_layers": 6, "num_heads": 8, "vocab_size": 32128}', /encoder-decoder/],
    ['kv heads not dividing heads', '{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 3, "vocab_size": 10}', /does not divide/],
    ['unknown activation', '{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 10, "hidden_act": "tanh"}', /Unsupported activation "tanh"/],
  ])('%s', (_name, text, message) => {
    const r = importHfConfig(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});
