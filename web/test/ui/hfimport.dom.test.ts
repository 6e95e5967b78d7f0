// @vitest-environment happy-dom
// The "Import a Hugging Face config.json" panel: the mapping loads on first use, a pasted config
// becomes the inline model with the importer's notes, and a broken one says why in words.
import { describe, expect, it } from 'vitest';
import { createHfImport } from '../../src/ui/hfimport';
import type { ModelSpec } from '../../src/engine/types';

const settle = async (el: HTMLElement, testid: string): Promise<HTMLElement> => {
  const node = el.querySelector<HTMLElement>(`[data-testid="${testid}"]`)!;
  for (let i = 0; i < 200 && node.hidden; i++) await new Promise((r) => setTimeout(r, 5));
  return node;
};

describe('Hugging Face config import panel', () => {
  it('maps a pasted config to an inline model, with its notes', async () => {
    const models: ModelSpec[] = [];
    const panel = createHfImport((m) => models.push(m));
    document.body.replaceChildren(panel);
    const config = {
      model_type: 'gpt_oss', hidden_size: 2880, num_hidden_layers: 24, num_attention_heads: 64, num_key_value_heads: 8, head_dim: 64,
      intermediate_size: 2880, num_local_experts: 32, num_experts_per_tok: 4, vocab_size: 201088, tie_word_embeddings: false,
      quantization_config: { quant_method: 'mxfp4', modules_to_not_convert: ['model.layers.*.self_attn'] },
    };
    panel.querySelector<HTMLTextAreaElement>('[data-testid="hf-config"]')!.value = JSON.stringify(config);
    panel.querySelector<HTMLButtonElement>('[data-testid="hf-import"]')!.click();
    const notes = await settle(panel, 'hf-notes');
    expect(notes.hidden).toBe(false);
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ layers: 24, hidden: 2880, checkpoint_precision: 'mxfp4', checkpoint_experts_only: true });
    expect(notes.textContent).toContain('quantization_config mxfp4');
    expect(panel.querySelector<HTMLElement>('[data-testid="hf-error"]')!.hidden).toBe(true);
  });

  it('says in words why a text is not a config, and sets no model', async () => {
    const models: ModelSpec[] = [];
    const panel = createHfImport((m) => models.push(m));
    document.body.replaceChildren(panel);
    panel.querySelector<HTMLTextAreaElement>('[data-testid="hf-config"]')!.value = '{ not json';
    panel.querySelector<HTMLButtonElement>('[data-testid="hf-import"]')!.click();
    const error = await settle(panel, 'hf-error');
    expect(error.hidden).toBe(false);
    expect(error.textContent!.length).toBeGreaterThan(10);
    expect(models).toHaveLength(0);
  });
});
