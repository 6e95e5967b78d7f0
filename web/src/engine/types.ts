// The page's types in one place: the engine's contract, generated from its JSON Schemas into
// schema-types.ts (scripts/gen-types), and the page's own around it (page-types.ts).
export * from './schema-types';
export * from './page-types';
