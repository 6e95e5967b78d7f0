// JSON Pointer (RFC 6901) reads and writes on plain JSON objects, for the editor's data-path
// fields and for matching the engine's error paths to them. Pure (test/ui/pointer.test.ts).

export function parsePointer(ptr: string): string[] {
  if (ptr === '') return [];
  return ptr
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function getPointer(obj: unknown, ptr: string): unknown {
  let cur = obj;
  for (const t of parsePointer(ptr)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[t];
  }
  return cur;
}

/** Sets (or deletes, for value === undefined) the value at ptr, creating objects on the way. */
export function setPointer(obj: Record<string, unknown>, ptr: string, value: unknown): void {
  const tokens = parsePointer(ptr);
  if (tokens.length === 0) return;
  let cur: Record<string, unknown> = obj;
  for (const t of tokens.slice(0, -1)) {
    const next = cur[t];
    if (next === null || typeof next !== 'object') cur[t] = {};
    cur = cur[t] as Record<string, unknown>;
  }
  const last = tokens[tokens.length - 1]!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

/**
 * The field that should show an engine error: the longest field path that equals the error path
 * or is a prefix of it at a token boundary ("/parallel/tp" for "/parallel/tp", "/model" for
 * "/model/moe/experts" when no deeper field exists). Null when none (general error area).
 */
export function fieldForError(errorPath: string, fieldPaths: Iterable<string>): string | null {
  if (!errorPath) return null;
  let best: string | null = null;
  for (const f of fieldPaths) {
    if (!f) continue;
    if (errorPath === f || errorPath.startsWith(`${f}/`)) {
      if (best === null || f.length > best.length) best = f;
    }
  }
  return best;
}

/** A JSON object (not null, not an array) as a record, else undefined. */
export function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function clone<T>(x: T): T {
  return x === undefined ? x : (JSON.parse(JSON.stringify(x)) as T);
}
