import { describe, expect, it } from 'vitest';
import { isLayerPattern, patternLayers } from '../../src/base/layer-pattern';

describe('layer patterns (Megatron-Core hybrid notation)', () => {
  it('takes a mixer with the FFN right after it as one layer, and a lone sublayer as its own', () => {
    // Nemotron-H's opening "M-M-M*-": Mamba+MLP twice, a lone Mamba, attention+MLP.
    expect(patternLayers('M-M-M*-')).toEqual(['M-', 'M-', 'M', '*-']);
    expect(patternLayers('MEM*E-E')).toEqual(['ME', 'M', '*E', '-', 'E']);
    expect(patternLayers('')).toEqual([]);
  });
  it('accepts only the four sublayer characters', () => {
    expect(isLayerPattern('M*-E')).toBe(true);
    expect(isLayerPattern('')).toBe(false);
    expect(isLayerPattern('M*x')).toBe(false);
    expect(isLayerPattern('M* -')).toBe(false);
  });
});
