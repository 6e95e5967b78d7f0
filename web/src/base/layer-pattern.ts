// Megatron-Core's hybrid layer notation (docs/contract.md, model.layer_pattern): one character per
// sublayer, M a Mamba-2 mixer, * attention, - a dense FFN, E a MoE FFN. A mixer and the FFN right
// after it are one layer; a mixer or an FFN alone is a layer of its own. The state's coupling
// (layers follow a typed pattern) and the Hugging Face import read patterns through these two.

/** Whether `p` is a pattern of the four sublayer characters (and not empty). */
export function isLayerPattern(p: string): boolean {
  return /^[-*ME]+$/.test(p);
}

/** The layers of a pattern, each its sublayers ('*-', 'ME', 'M', '-'), in order. */
export function patternLayers(p: string): string[] {
  return p.match(/[*M][-E]?|[-E]/g) ?? [];
}
