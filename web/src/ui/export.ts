// Exports of the current result: JSON (scenario + prediction), CSV (one row per output value),
// and charts as SVG or PNG. toCsv/flatten are pure (test/ui/export.test.ts); the download and
// rasterisation helpers use the DOM.

/** Dotted path -> scalar leaves of a JSON tree; arrays index as path.0, path.1, ... */
export function flatten(value: unknown, prefix = '', out: Array<[string, string | number | boolean | null]> = []): Array<[string, string | number | boolean | null]> {
  if (value === null || typeof value !== 'object') {
    if (prefix) out.push([prefix, value === undefined ? null : (value as string | number | boolean | null)]);
    return out;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
export function csvField(v: string | number | boolean | null): string {
  const s = v === null ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * CSV of a prediction: header "metric,value", one row per scalar output (numbers as JavaScript
 * prints them, String(x), the same text as the page's data-value), CRLF line ends (RFC 4180).
 */
export function toCsv(prediction: unknown): string {
  const rows = flatten(prediction).map(([k, v]) => `${csvField(k)},${csvField(v)}`);
  return ['metric,value', ...rows].join('\r\n') + '\r\n';
}

/** The JSON export: the scenario and its prediction, pretty-printed. */
export function toJson(scenario: unknown, prediction: unknown): string {
  return JSON.stringify({ scenario, prediction }, null, 2) + '\n';
}

/** A file name from the scenario's name: lower-case words joined by dashes. */
export function fileStem(name: unknown, fallback = 'optimus'): string {
  const s = typeof name === 'string' ? name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) : '';
  return s || fallback;
}

export function download(filename: string, data: Blob): void {
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Serialised SVG text of a chart, with its namespace and computed text colour inlined. */
export function svgText(svg: SVGSVGElement): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const style = getComputedStyle(svg);
  clone.style.color = style.color;
  clone.style.background = getComputedStyle(document.body).backgroundColor;
  clone.style.fontFamily = style.fontFamily;
  return new XMLSerializer().serializeToString(clone);
}

/** PNG of an SVG chart at 2x, drawn on a canvas through an <img> of the SVG. */
export async function svgToPng(svg: SVGSVGElement): Promise<Blob> {
  const text = svgText(svg);
  const { width, height } = svg.getBoundingClientRect();
  const w = Math.max(1, Math.round(width || Number(svg.getAttribute('width')) || 640));
  const h = Math.max(1, Math.round(height || Number(svg.getAttribute('height')) || 400));
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.width = w;
    img.height = h;
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the chart could not be rasterised'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = w * 2;
    canvas.height = h * 2;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas');
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor || '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0, w, h);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
