// The page's views and their addresses. The view lives in the query string, beside the
// scenario's #v1= fragment (which every view keeps): no query is the calculator (Estimate),
// ?view=search and ?view=studies the other tools, ?view=accuracy the validation rows predicted
// live, ?study=NAME one study, ?lesson= the list of lessons and ?lesson=NAME one lesson. Pure functions of the address, unit-tested in
// test/ui/router.test.ts; main.ts pushes a history entry per change of view.

export const VIEWS = ['estimate', 'search', 'studies', 'learn', 'accuracy'] as const;
export type View = (typeof VIEWS)[number];

export interface Route {
  view: View;
  /** The study named by ?study=NAME (view studies). */
  study?: string;
  /** ?study=cheapest-accelerator&job=scenario: the study run on the scenario's own job (state/study-job.ts). */
  job?: 'scenario';
  /** The lesson named by ?lesson=NAME (view learn); absent for the list of lessons. */
  lesson?: string;
}

/** The route of a query string ("?lesson=x", "view=search", ""); unknown values give Estimate. */
export function parseRoute(search: string): Route {
  const q = new URLSearchParams(search);
  const lesson = q.get('lesson');
  if (lesson !== null) return lesson.trim() === '' ? { view: 'learn' } : { view: 'learn', lesson: lesson.trim() };
  const study = q.get('study');
  if (study !== null && study.trim() !== '') return q.get('job') === 'scenario' ? { view: 'studies', study: study.trim(), job: 'scenario' } : { view: 'studies', study: study.trim() };
  const view = q.get('view');
  if (view === 'search' || view === 'studies' || view === 'learn' || view === 'accuracy') return { view };
  return { view: 'estimate' };
}

/** The query string of a route, with its "?" ("" for Estimate). */
export function routeQuery(r: Route): string {
  switch (r.view) {
    case 'estimate':
      return '';
    case 'search':
      return '?view=search';
    case 'studies':
      return r.study ? `?study=${encodeURIComponent(r.study)}${r.job ? `&job=${r.job}` : ''}` : '?view=studies';
    case 'learn':
      return `?lesson=${r.lesson ? encodeURIComponent(r.lesson) : ''}`;
    case 'accuracy':
      return '?view=accuracy';
  }
}

/** The address of a route on this page: path, query, and the scenario fragment kept as it is. */
export function routeHref(r: Route, pathname: string, hash: string): string {
  return `${pathname}${routeQuery(r)}${hash}`;
}

export function sameRoute(a: Route, b: Route): boolean {
  return a.view === b.view && a.study === b.study && a.job === b.job && a.lesson === b.lesson;
}
