// A chart card: title, the chart (re-drawn when its width changes), an HTML legend, and SVG/PNG
// export buttons (DOM contract: [data-testid="export-svg"] / [data-testid="export-png"] inside
// the chart's [data-testid="chart-..."] element).
import type { ChartSpec } from '../charts/specs';
import { h } from '../base/dom';
import { download, svgText, svgToPng } from './export';

// Observable Plot is most of the page's JavaScript: it loads as its own chunk when the first chart
// is drawn (after the first numbers are on screen), so its evaluation does not hold up the main
// thread while the page waits for the engine's first answer.
type Renderer = typeof import('../charts/render');
let renderer: Renderer | null = null;
let rendererLoading: Promise<Renderer> | null = null;
const loadRenderer = (): Promise<Renderer> => (rendererLoading ??= import('../charts/render').then((m) => (renderer = m)));

export interface ChartCard {
  el: HTMLElement;
  set(spec: ChartSpec | null, emptyText?: string): void;
}

export function chartCard(testid: string, title: string, stem: () => string, notify: (msg: string) => void): ChartCard {
  const body = h('div', { class: 'chart-body' });
  const heading = h('h3', null, title);
  const svgBtn = h('button', { type: 'button', class: 'small', 'data-testid': 'export-svg', disabled: true }, 'SVG');
  const pngBtn = h('button', { type: 'button', class: 'small', 'data-testid': 'export-png', disabled: true }, 'PNG');
  const el = h('figure', { class: 'card chart', 'data-testid': testid }, h('div', { class: 'card-head' }, heading, h('div', { class: 'toolbar', role: 'group', 'aria-label': `export ${title}` }, svgBtn, pngBtn)), body);
  let current: ChartSpec | null = null;
  let lastWidth = 0;

  const current_svg = (): SVGSVGElement | null => body.querySelector<SVGSVGElement>('svg.chart-svg');

  const draw = (): void => {
    // Nothing to draw (a resize before the first result, or a card showing its empty text): no
    // reason to load the renderer, and the empty text stays.
    if (!current) return;
    if (!renderer) {
      void loadRenderer().then(draw);
      return;
    }
    body.replaceChildren();
    const width = body.clientWidth || el.clientWidth || 600;
    lastWidth = width;
    try {
      const { svg, legend } = renderer.renderChart(current, width);
      body.append(svg);
      if (legend) body.append(legend);
    } catch (e) {
      body.append(h('p', { class: 'muted' }, `The chart could not be drawn: ${e instanceof Error ? e.message : String(e)}`));
    }
  };

  svgBtn.addEventListener('click', () => {
    const svg = current_svg();
    if (svg) download(`${stem()}-${testid}.svg`, new Blob([svgText(svg)], { type: 'image/svg+xml' }));
  });
  pngBtn.addEventListener('click', () => {
    const svg = current_svg();
    if (!svg) return;
    svgToPng(svg)
      .then((blob) => download(`${stem()}-${testid}.png`, blob))
      .catch((e: unknown) => notify(`PNG export failed: ${e instanceof Error ? e.message : String(e)}`));
  });

  if (typeof ResizeObserver !== 'undefined') {
    let timer: number | undefined;
    new ResizeObserver(() => {
      if (Math.abs((body.clientWidth || 0) - lastWidth) < 8) return;
      window.clearTimeout(timer);
      timer = window.setTimeout(draw, 120);
    }).observe(body);
  }

  return {
    el,
    set(spec, emptyText) {
      current = spec;
      el.hidden = false;
      svgBtn.disabled = pngBtn.disabled = spec === null;
      if (spec) {
        heading.textContent = spec.title;
        draw();
      } else {
        heading.textContent = title;
        body.replaceChildren(h('p', { class: 'muted' }, emptyText ?? 'Nothing to draw.'));
      }
    },
  };
}
