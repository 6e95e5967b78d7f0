import { describe, expect, test } from 'vitest';
import { parseRoute, routeHref, routeQuery, sameRoute, type Route } from '../../src/ui/router';

describe('routes of the page', () => {
  test.each<[string, Route]>([
    ['', { view: 'estimate' }],
    ['?', { view: 'estimate' }],
    ['?view=search', { view: 'search' }],
    ['view=studies', { view: 'studies' }],
    ['?view=learn', { view: 'learn' }],
    ['?view=accuracy', { view: 'accuracy' }],
    ['?view=nonsense', { view: 'estimate' }],
    ['?view=estimate', { view: 'estimate' }],
    ['?study=gpu-generations', { view: 'studies', study: 'gpu-generations' }],
    ['?study=cheapest-accelerator&job=scenario', { view: 'studies', study: 'cheapest-accelerator', job: 'scenario' }],
    ['?study=cheapest-accelerator&job=other', { view: 'studies', study: 'cheapest-accelerator' }],
    ['?study=', { view: 'estimate' }],
    ['?lesson=', { view: 'learn' }],
    ['?lesson', { view: 'learn' }],
    ['?lesson=pipeline-bubble', { view: 'learn', lesson: 'pipeline-bubble' }],
    ['?lesson=a%20b', { view: 'learn', lesson: 'a b' }],
    // A lesson wins over a study, a study over a view.
    ['?view=search&study=x&lesson=y', { view: 'learn', lesson: 'y' }],
    ['?view=search&study=x', { view: 'studies', study: 'x' }],
  ])('%s', (search, route) => {
    expect(parseRoute(search)).toEqual(route);
  });

  test.each<[Route, string]>([
    [{ view: 'estimate' }, ''],
    [{ view: 'search' }, '?view=search'],
    [{ view: 'accuracy' }, '?view=accuracy'],
    [{ view: 'studies' }, '?view=studies'],
    [{ view: 'studies', study: 'gpu-generations' }, '?study=gpu-generations'],
    [{ view: 'studies', study: 'cheapest-accelerator', job: 'scenario' }, '?study=cheapest-accelerator&job=scenario'],
    [{ view: 'learn' }, '?lesson='],
    [{ view: 'learn', lesson: 'a b&c' }, '?lesson=a%20b%26c'],
  ])('query of %j', (route, query) => {
    expect(routeQuery(route)).toBe(query);
    expect(parseRoute(query)).toEqual(route);
  });

  test('an address keeps the scenario fragment', () => {
    expect(routeHref({ view: 'learn', lesson: 'x' }, '/optimus/', '#v1=abc')).toBe('/optimus/?lesson=x#v1=abc');
    expect(routeHref({ view: 'estimate' }, '/', '#v1=abc')).toBe('/#v1=abc');
    expect(routeHref({ view: 'search' }, '/', '')).toBe('/?view=search');
  });

  test('sameRoute compares every part', () => {
    expect(sameRoute({ view: 'learn' }, { view: 'learn' })).toBe(true);
    expect(sameRoute({ view: 'learn', lesson: 'a' }, { view: 'learn' })).toBe(false);
    expect(sameRoute({ view: 'studies', study: 'a' }, { view: 'studies', study: 'b' })).toBe(false);
    expect(sameRoute({ view: 'studies', study: 'a' }, { view: 'studies', study: 'a', job: 'scenario' })).toBe(false);
  });
});
