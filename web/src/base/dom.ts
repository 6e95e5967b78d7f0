// A tiny element builder (no framework: the page's budget is a few kilobytes of UI code).
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, unknown>;

/**
 * h('button', {class: 'x', 'data-testid': 'y', onclick: fn}, 'text'): attributes are set with
 * setAttribute, except `on*` functions (listeners) and `value`/`checked`/`disabled`/`hidden`
 * (properties); null/undefined/false attributes are skipped.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as EventListener);
      else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'selected') (el as unknown as Record<string, unknown>)[k] = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

/** Unique ids for label/for pairs. */
let counter = 0;
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
