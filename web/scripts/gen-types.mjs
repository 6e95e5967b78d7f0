// Writes web/src/engine/types.ts: the TypeScript types of the engine's JSON contract, generated
// by json-schema-to-typescript from the JSON Schemas the engine emits (`optimus schema --json`,
// core/io/schema.h). Run through scripts/gen-types; usage: node gen-types.mjs SCHEMA.json OUT.ts
//
// The engine's schemas are the contract; this script only chooses TypeScript names (by JSON
// Pointer, below), drops the engine's other titles so that nested objects stay inline, keeps a
// bare $ref where the engine adds a description beside one (else the generator declares the type
// twice), drops the anyOf that only restrict values a type already allows (at least one of
// training and inference; "0 or at least 1e-6"), and rewrites draft 2020-12 tuples (prefixItems)
// as the draft-07 form the generator knows.
import { readFileSync, writeFileSync } from 'node:fs';
import { compile } from 'json-schema-to-typescript';

const [schemaFile, outFile] = process.argv.slice(2);
if (!schemaFile || !outFile) {
  console.error('usage: node gen-types.mjs SCHEMA.json OUT.ts');
  process.exit(2);
}
const schemas = JSON.parse(readFileSync(schemaFile, 'utf8'));

// TypeScript names of the page's contract types, by JSON Pointer into each schema; `tsType`
// entries reuse a named type for another node of the same shape.
const NAMES = {
  scenario: {
    '': 'Scenario',
    '/$defs/model': 'ModelSpec',
    '/$defs/device': 'DeviceSpec',
    '/$defs/technology': 'TechnologySpec',
    '/$defs/scale_up': 'ScaleUpLink',
    '/$defs/scale_out': 'ScaleOutLink',
    '/$defs/system': 'SystemSpec',
    '/$defs/software': 'SoftwareSpec',
    '/$defs/device/properties/calibration': 'CalibrationSpec',
    '/$defs/parallel': 'ParallelSpec',
    '/$defs/parallel/properties/recompute': 'Recompute',
    '/$defs/training': 'TrainingSpec',
    '/$defs/training/properties/precision': 'TrainingPrecision',
    '/$defs/training/properties/attention': 'AttentionKernel',
    '/$defs/inference': 'InferenceSpec',
    '/$defs/inference/properties/precision': 'InferencePrecision',
    '/$defs/rl': 'RlSpec',
    '/$defs/inference/properties/serving/properties/disaggregated/properties/prefill': 'ServingPool',
    '/$defs/training/properties/stages/items': 'TrainingStage',
    '/$defs/calibration/properties/factors': 'CalibrationFactors',
  },
  prediction: {
    '': 'Prediction',
    '/$defs/training': 'TrainingResult',
    '/$defs/training/properties/breakdown_s': 'TrainingBreakdown',
    '/$defs/inference': 'InferenceResult',
    '/$defs/inference/properties/math_precision': 'Precision',
    '/$defs/operator': 'OperatorPoint',
    '/$defs/operator/properties/bound': 'Bound',
    '/$defs/memory': 'MemoryResult',
    '/$defs/memory/properties/per_device_bytes': 'MemoryBytes',
    '/$defs/rl': 'RlResult',
    '/properties/warnings/items': 'Warning',
  },
};
const REUSE = {
  scenario: {
    '/$defs/inference/properties/kv_precision': 'InferencePrecision',
    // The system's software block and a software profile's are one definition ($defs/software).
    '/$defs/system/properties/software': 'SoftwareSpec',
    '/$defs/training/properties/stages/items/properties/parallel/oneOf/0/properties/recompute': 'Recompute',
    // A disaggregated deployment's two pools take the same keys.
    '/$defs/inference/properties/serving/properties/disaggregated/properties/decode': 'ServingPool',
    '/$defs/software/properties/attention': 'AttentionKernel',
  },
  prediction: {
    '/$defs/training/properties/assumed/properties/attention': 'AttentionKernel',
    // Declared with the scenario's types (one file): a calibration's factors, as applied.
    '/properties/calibration/properties/factors': 'CalibrationFactors',
    '/$defs/run/properties/stages/items/properties/parallel': 'ChosenLayout',
  },
};

// Types that several nodes share without a $def of their own in the engine's schema: each is
// declared once, from the first pointer's oneOf, and every pointer (whose oneOf must be the same)
// refers to it, keeping its own description.
const SHARED = {
  scenario: {
    TokenLengths: {
      description: 'Tokens per request: one length for every request, a distribution, uniform lengths or [length, weight] points.',
      pointers: [
        '/$defs/inference/properties/serving/properties/input_len',
        '/$defs/inference/properties/serving/properties/output_len',
        '/$defs/rl/properties/prompt_len',
        '/$defs/rl/properties/response_len',
      ],
    },
  },
  prediction: {},
};

// Objects whose properties are a subset of a named object's (same schema for each shared key):
// written as a Pick of that type, with the keys of their own (plain strings, numbers, booleans)
// beside it. A software profile's serving defaults are the scenario's serving keys plus notes; the
// scale-out link is the scale-up link's keys with domain_size optional (and unused).
const SUBSETS = {
  scenario: {
    '/$defs/software_profile/properties/serving': { of: '/$defs/inference/properties/serving', name: 'ServingSpec' },
    '/$defs/scale_out': { of: '/$defs/scale_up', name: 'ScaleUpLink' },
  },
  prediction: {},
};

/** The node at a JSON Pointer, or undefined. */
const nodeAt = (root, pointer) => pointer.split('/').slice(1).reduce((n, k) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], root);

/** A copy of `node` with titles set from `names` (others removed) and tuples in draft-07 form. */
function prepare(node, pointer, names, reuse) {
  if (Array.isArray(node)) return node.map((x, i) => prepare(x, `${pointer}/${i}`, names, reuse));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'title' || k === '$id' || k === '$schema') continue;
    out[k] = prepare(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, names, reuse);
  }
  if (typeof out.$ref === 'string') return { $ref: out.$ref };
  const shapeless = (alt) => !('type' in alt || 'properties' in alt || '$ref' in alt || 'items' in alt);
  if (Array.isArray(out.anyOf) && out.anyOf.every(shapeless)) delete out.anyOf;
  if (Array.isArray(out.prefixItems)) {
    out.items = out.prefixItems;
    out.additionalItems = false;
    delete out.prefixItems;
  }
  if (pointer in names) out.title = names[pointer];
  if (pointer in reuse) return { tsType: reuse[pointer], ...(out.description ? { description: out.description } : {}), ...(out.title ? { title: out.title } : {}) };
  return out;
}

/** A node's JSON without its text (docs/contract.md describes each path on its own: a software
 * profile's serving defaults have rows of their own, their types are the serving block's). */
const shape = (node) => JSON.stringify(node, (k, v) => (k === 'description' || k === 'x-unit' ? undefined : v));

/** Keywords of a plain value that change nothing in its TypeScript type. */
const PLAIN = ['type', 'description', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'default', 'x-unit'];

/** `Pick<name, shared keys> & { own keys }` for an object node whose keys `of` mostly has. */
function subsetType(node, of, name, pointer) {
  const shared = [];
  const own = [];
  const required = new Set(node?.required ?? []);
  for (const [k, v] of Object.entries(node?.properties ?? {})) {
    if (shape(v) === shape(of?.properties?.[k]) && required.has(k) === (of.required ?? []).includes(k)) shared.push(`'${k}'`);
    else if (['string', 'number', 'integer', 'boolean'].includes(v.type) && Object.keys(v).every((x) => PLAIN.includes(x)))
      own.push(`/** ${v.description ?? ''} */ ${k}${required.has(k) ? '' : '?'}: ${v.type === 'integer' ? 'number' : v.type}`);
    else throw new Error(`gen-types: ${pointer}/properties/${k} is neither ${name}'s nor a plain value`);
  }
  if (!shared.length) throw new Error(`gen-types: ${pointer} shares no key with ${name}`);
  return `Pick<${name}, ${shared.join(' | ')}>${own.length ? ` & { ${own.join('; ')} }` : ''}`;
}

const OPTIONS = {
  bannerComment: '',
  // A list capped above 4 items (recompute_modules: at most 7) is a list, not a union of tuples
  // of every length; the pairs ([length, weight], [min, max]) stay tuples.
  maxItems: 4,
  additionalProperties: false,
  unreachableDefinitions: false,
  style: { singleQuote: true, printWidth: 120, trailingComma: 'all' },
};
const parts = [];
for (const which of ['scenario', 'prediction']) {
  const reuse = { ...REUSE[which] };
  for (const [name, { description, pointers }] of Object.entries(SHARED[which])) {
    const first = JSON.stringify(nodeAt(schemas[which], pointers[0])?.oneOf);
    for (const p of pointers) {
      if (JSON.stringify(nodeAt(schemas[which], p)?.oneOf) !== first) throw new Error(`gen-types: ${which} ${p} is not the shape of ${name}`);
      reuse[p] = name;
    }
    const shape = prepare({ description, oneOf: JSON.parse(first) }, '', {}, {});
    parts.push(await compile({ ...shape, title: name }, name, OPTIONS));
  }
  for (const [p, { of, name }] of Object.entries(SUBSETS[which])) reuse[p] = subsetType(nodeAt(schemas[which], p), nodeAt(schemas[which], of), name, p);
  const schema = prepare(schemas[which], '', { ...NAMES[which], ...Object.fromEntries(Object.values(SUBSETS[which]).map((s) => [s.of, s.name])) }, reuse);
  for (const p of [...Object.keys(NAMES[which]), ...Object.keys(reuse)]) {
    if (nodeAt(schemas[which], p) === undefined) throw new Error(`gen-types: ${which} schema has nothing at ${p}`);
  }
  parts.push(
    await compile(schema, NAMES[which][''], OPTIONS),
  );
}

const banner = `// GENERATED by scripts/gen-types from the engine's JSON Schemas (\`optimus schema --json\`,
// core/io/schema.h) with json-schema-to-typescript: do not edit. scripts/test fails when this file
// is stale; regenerate it with scripts/gen-types after changing the schema. The page imports these
// types, and its own (page-types.ts), through types.ts.
`;
// Two declarations of one name would merge (TypeScript declaration merging) into a type neither
// schema describes: name such a node in NAMES instead.
const declared = [...parts.join('\n').matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
const twice = declared.filter((n, i) => declared.indexOf(n) !== i);
if (twice.length) throw new Error(`gen-types: declared twice (add them to NAMES): ${[...new Set(twice)].join(', ')}`);
writeFileSync(outFile, `${banner}\n${parts.join('\n')}`);
