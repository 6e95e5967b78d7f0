// Reading the engine's scenario schema (core/io/schema.h, engine.schema()) by JSON Pointer: what
// kind of value a field holds, its allowed values, its default and its description, so the editor
// does not repeat them. Pure (test/ui/schema-nav.test.ts).
import type { JsonSchema } from '../engine/types';
import { parsePointer } from './pointer';

/** `node` with a local $ref ("#/$defs/name") replaced by the definition it names. */
export function resolve(root: JsonSchema, node: JsonSchema): JsonSchema {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return node;
  return root.$defs?.[ref.slice('#/$defs/'.length)] ?? node;
}

/** The object schema among `node` and its oneOf alternatives that has property `key`. */
function objectWith(root: JsonSchema, node: JsonSchema, key: string): JsonSchema | null {
  const n = resolve(root, node);
  if (n.properties?.[key]) return n;
  for (const alt of n.oneOf ?? []) {
    const a = resolve(root, alt);
    if (a.properties?.[key]) return a;
  }
  return null;
}

/**
 * The schema of the value at `pointer` of a scenario: properties followed through $ref and, where
 * a key may hold a preset id or an object, through the object alternative that has the next key.
 * Null when the schema does not describe that place.
 */
export function schemaAt(root: JsonSchema | null, pointer: string): JsonSchema | null {
  if (!root) return null;
  let node: JsonSchema = root;
  for (const key of parsePointer(pointer)) {
    const obj = objectWith(root, node, key);
    if (!obj) return null;
    node = obj.properties![key]!;
  }
  return resolve(root, node);
}

/** Whether the object holding `pointer` requires its key. */
export function isRequired(root: JsonSchema | null, pointer: string): boolean {
  const tokens = parsePointer(pointer);
  const key = tokens.pop();
  if (!root || key === undefined) return false;
  const parent = tokens.length === 0 ? root : schemaAt(root, `/${tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`);
  const obj = parent ? objectWith(root, parent, key) : null;
  return obj?.required?.includes(key) ?? false;
}

/** The string values an enum allows, in the engine's order ([] when it is not an enum). */
export function enumValues(node: JsonSchema | null): string[] {
  return (node?.enum ?? []).filter((v): v is string => typeof v === 'string');
}

/** The engine's default: `default`, or the one for `norm` where the default follows the norm. */
export function defaultOf(node: JsonSchema | null, norm?: unknown): unknown {
  if (!node) return undefined;
  if (node.default !== undefined) return node.default;
  const byNorm = node['x-default-by-norm'];
  return typeof norm === 'string' && byNorm ? byNorm[norm] : undefined;
}

/** What input a value needs: whole numbers, numbers, one of a list, a switch or text. */
export function inputKind(node: JsonSchema | null): 'int' | 'number' | 'select' | 'check' | 'text' | 'json' {
  if (!node) return 'text';
  // A value of several forms (a number, an object or a list): typed as a number or as JSON.
  if (node.oneOf) return 'json';
  if (node.enum) return 'select';
  if (node.type === 'integer') return 'int';
  if (node.type === 'number') return 'number';
  if (node.type === 'boolean') return 'check';
  return 'text';
}
