// Reading the engine's own scenario schema by JSON Pointer (src/state/schema.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/engine/types';
import { defaultOf, enumValues, inputKind, isRequired, schemaAt } from '../../src/state/schema';
import { loadModule } from '../wasm';

let root: JsonSchema;
beforeAll(async () => {
  root = (JSON.parse((await loadModule()).schema!()) as { scenario: JsonSchema }).scenario;
});

describe('schema navigation', () => {
  it('follows $ref and the object alternative of a preset-or-object key', () => {
    expect(schemaAt(root, '/model/layers')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schemaAt(root, '/system/device/memory/capacity_GiB')).toMatchObject({ 'x-unit': 'GiB' });
    expect(schemaAt(root, '/system/area_mm2')).toMatchObject({ 'x-unit': 'mm^2' });
    expect(schemaAt(root, '/model/moe')).toMatchObject({ type: 'object', required: ['experts', 'top_k', 'expert_ffn_hidden'] });
    expect(schemaAt(root, '/model/attention/kv_lora_rank')).toMatchObject({ type: 'integer' });
    expect(schemaAt(root, '/model/mixture')).toBeNull();
    expect(schemaAt(null, '/model')).toBeNull();
  });
  it('reads enums, defaults (also by norm), input kinds and required keys', () => {
    expect(enumValues(schemaAt(root, '/training/precision'))).toEqual(['fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'mxfp8', 'nvfp4', 'mxfp4']);
    expect(defaultOf(schemaAt(root, '/parallel/recompute'))).toBe('none');
    expect(defaultOf(schemaAt(root, '/model/position'), 'rmsnorm')).toBe('rotary');
    expect(defaultOf(schemaAt(root, '/model/bias'), 'layernorm')).toBe(true);
    expect(inputKind(schemaAt(root, '/parallel/tp'))).toBe('int');
    expect(inputKind(schemaAt(root, '/training/train_tokens'))).toBe('number');
    expect(inputKind(schemaAt(root, '/model/norm'))).toBe('select');
    expect(inputKind(schemaAt(root, '/model/tied_embeddings'))).toBe('check');
    expect(isRequired(root, '/model/layers')).toBe(true);
    expect(isRequired(root, '/model/kv_heads')).toBe(false);
    expect(isRequired(root, '/num_devices')).toBe(true);
    expect(isRequired(root, '/system/scale_up/domain_size')).toBe(true);
  });
});
