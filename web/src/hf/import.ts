// Hugging Face `config.json` -> the scenario's inline model (shared/spec/scenario.md, "model").
// Pure and total: returns the model or a message saying why the config cannot be imported.
// Key names follow the transformers configuration classes (LlamaConfig, GPTJConfig, GPT2Config,
// FalconConfig, MistralConfig, ...); each model family spells the same dimension differently,
// so every field lists its aliases in order of preference.
import type { ModelSpec } from '../engine/types';

export type HfImportResult = { ok: true; model: ModelSpec; notes: string[] } | { ok: false; message: string };

type Json = Record<string, unknown>;

function firstNumber(c: Json, keys: string[]): [number, string] | undefined {
  for (const k of keys) {
    const v = c[k];
    if (typeof v === 'number' && Number.isFinite(v)) return [v, k];
  }
  return undefined;
}

/** Keys whose presence (with a value > 1) marks a mixture-of-experts model. */
const MOE_KEYS = ['num_local_experts', 'num_experts', 'n_routed_experts', 'moe_num_experts', 'num_experts_per_tok', 'moe_intermediate_size'];

/** Architectures the page's model cannot describe (no decoder-only dense transformer). */
const UNSUPPORTED_TYPES: Record<string, string> = {
  t5: 'an encoder-decoder model',
  bart: 'an encoder-decoder model',
  mamba: 'a state-space model (no attention)',
  rwkv: 'a recurrent model (no attention)',
  bert: 'an encoder-only model',
};

const GATED_SILU = new Set(['silu', 'swish', 'swiglu']);
const GELU = new Set(['gelu', 'gelu_new', 'gelu_fast', 'gelu_pytorch_tanh', 'gelu_accurate', 'quick_gelu', 'relu']);

/**
 * Map a Hugging Face config (object or JSON text) to an inline model.
 * - hidden_size | n_embd | d_model -> hidden; num_hidden_layers | n_layer | num_layers -> layers;
 *   num_attention_heads | n_head -> heads; vocab_size -> vocab.
 * - num_key_value_heads | num_kv_heads | n_head_kv -> kv_heads; Falcon's multi_query without the
 *   new decoder architecture means one KV head (FalconConfig).
 * - intermediate_size | n_inner | ffn_hidden_size -> ffn_hidden, default 4 × hidden (GPT-2, GPT-J
 *   n_inner null, Falcon).
 * - hidden_act | activation_function: silu -> "swiglu" (gated, three matrices, as Llama's MLP);
 *   gelu variants -> "gelu" (two matrices); relu2 -> "relu2".
 * - rms_norm_eps -> "rmsnorm", else layer norm.
 * - tie_word_embeddings (transformers' default when absent is true).
 * - max_position_embeddings | n_positions | n_ctx | seq_length -> max_seq_len.
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
  if (c === null || typeof c !== 'object' || Array.isArray(c)) return { ok: false, message: 'A config.json is a JSON object ({...}).' };
  const cfg = c as Json;
  const notes: string[] = [];
  const modelType = typeof cfg.model_type === 'string' ? cfg.model_type.toLowerCase() : '';

  if (UNSUPPORTED_TYPES[modelType]) return { ok: false, message: `model_type "${modelType}" is ${UNSUPPORTED_TYPES[modelType]}; only decoder-only transformers can be imported.` };
  if (cfg.is_encoder_decoder === true) return { ok: false, message: 'Encoder-decoder models are not supported; only decoder-only transformers can be imported.' };
  for (const k of MOE_KEYS) {
    const v = cfg[k];
    if (typeof v === 'number' && v > (k === 'num_experts_per_tok' ? 0 : 1)) {
      return {
        ok: false,
        message: `This is a mixture-of-experts model (${k} = ${v}); the importer only maps dense models. Enter it as an inline model with a "moe" block instead.`,
      };
    }
  }
  if (cfg.text_config && typeof cfg.text_config === 'object' && firstNumber(cfg, ['hidden_size', 'n_embd', 'd_model']) === undefined) {
    return { ok: false, message: 'This is a multimodal config (text_config); paste the text model\'s config instead.' };
  }

  const need = (label: string, keys: string[]): number | string => {
    const f = firstNumber(cfg, keys);
    if (!f) return `config.json has no ${label} (looked for ${keys.join(', ')}).`;
    if (!Number.isInteger(f[0]) || f[0] <= 0) return `${f[1]} = ${f[0]} is not a positive integer.`;
    return f[0];
  };
  const hidden = need('hidden size', ['hidden_size', 'n_embd', 'd_model']);
  const layers = need('layer count', ['num_hidden_layers', 'n_layer', 'num_layers', 'n_layers']);
  const heads = need('attention head count', ['num_attention_heads', 'n_head', 'num_heads']);
  const vocab = need('vocabulary size', ['vocab_size', 'padded_vocab_size']);
  for (const v of [hidden, layers, heads, vocab]) if (typeof v === 'string') return { ok: false, message: v };
  const H = hidden as number;
  const A = heads as number;

  const model: ModelSpec = { layers: layers as number, hidden: H, heads: A, ffn_hidden: 4 * H, vocab: vocab as number };

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

  const headDim = firstNumber(cfg, ['head_dim']);
  if (headDim && headDim[0] > 0) model.head_dim = headDim[0];
  else if (H % A !== 0) return { ok: false, message: `hidden ${H} is not a multiple of heads ${A}, and the config has no head_dim.` };

  const ffn = firstNumber(cfg, ['intermediate_size', 'n_inner', 'ffn_hidden_size', 'ffn_dim']);
  if (ffn && ffn[0] > 0) model.ffn_hidden = ffn[0];
  else notes.push(`No intermediate size in the config: ffn_hidden = 4 × hidden = ${4 * H}.`);

  const actRaw = cfg.hidden_act ?? cfg.activation_function ?? cfg.hidden_activation ?? cfg.activation;
  const act = typeof actRaw === 'string' ? actRaw.toLowerCase() : '';
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

  model.norm = typeof cfg.rms_norm_eps === 'number' || typeof cfg.rms_norm_epsilon === 'number' ? 'rmsnorm' : 'layernorm';
  // transformers' PretrainedConfig defaults tie_word_embeddings to true.
  model.tied_embeddings = typeof cfg.tie_word_embeddings === 'boolean' ? cfg.tie_word_embeddings : true;
  if (typeof cfg.tie_word_embeddings !== 'boolean') notes.push('tie_word_embeddings absent: transformers\' default (tied) assumed.');

  const maxSeq = firstNumber(cfg, ['max_position_embeddings', 'n_positions', 'n_ctx', 'seq_length', 'max_sequence_length']);
  if (maxSeq && maxSeq[0] > 0) model.max_seq_len = maxSeq[0];
  else if (modelType === 'falcon') {
    model.max_seq_len = 2048;
    notes.push('No max_position_embeddings: FalconConfig\'s default 2048 assumed.');
  }

  const label = name ?? (typeof cfg._name_or_path === 'string' && cfg._name_or_path ? cfg._name_or_path : Array.isArray(cfg.architectures) ? String(cfg.architectures[0]) : modelType || 'imported model');
  model.name = label;
  model.source = `Imported from a Hugging Face config.json${modelType ? ` (model_type ${modelType})` : ''}`;
  if (cfg.parallel_attn === true || cfg.parallel_attention === true) notes.push('Parallel attention/MLP blocks are not modelled (same FLOPs, one norm fewer).');
  return { ok: true, model, notes };
}
