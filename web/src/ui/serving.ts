// The serving block of the results (inference.serving): what the simulation did in words, the
// latency percentiles as a table (also the text alternative of the charts), the objectives'
// verdict, and the latency-against-throughput curve over a sweep of request rates, computed by
// the engine in the worker after the headline numbers are on screen.
import type { Prediction } from '../engine/types';
import type { Engine } from '../engine/client';
import { servingCurveSpec, type SweepPoint } from '../charts/specs';
import type { ChartCard } from './chartcard';
import { h } from './dom';
import { formatSeconds, groupDigits } from './format';

type Serving = NonNullable<Prediction['serving']>;

/** The block's opening: the run in words, the percentile table and the objectives' verdict. */
export function servingIntro(v: Serving): HTMLElement {
  const rows: Array<[string, Serving['ttft_s']]> = [
    ['Time to first token', v.ttft_s],
    ['Time per output token', v.tpot_s],
    ['Inter-token gap (every token)', v.itl_s],
    ['End-to-end latency', v.e2e_latency_s],
  ];
  const table = h(
    'table',
    { class: 'percentiles', 'data-testid': 'serving-percentiles' },
    h('caption', null, 'Latency over the completed requests (the inter-token gaps weighted by token, the others by request)'),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'metric'), ...['mean', 'p50', 'p90', 'p99'].map((k) => h('th', { scope: 'col' }, k)))),
    h(
      'tbody',
      null,
      ...rows.map(([name, l]) =>
        h('tr', null, h('th', { scope: 'row' }, name), ...(['mean', 'p50', 'p90', 'p99'] as const).map((k) => h('td', { 'data-value': String(l[k]) }, formatSeconds(l[k])))),
      ),
    ),
  );
  const slo = v.slo
    ? h(
        'p',
        { class: `fit ${v.slo.met ? 'ok' : 'bad'}`, 'data-testid': 'serving-slo', 'data-value': String(v.slo.met) },
        h('strong', null, v.slo.met ? 'Objectives met' : 'Objectives missed'),
        ` at p${v.slo.percentile}: TTFT ${formatSeconds(v.slo.ttft_at_percentile)}${v.slo.ttft_s > 0 ? ` (objective ${formatSeconds(v.slo.ttft_s)})` : ''}, TPOT ${formatSeconds(v.slo.tpot_at_percentile)}${v.slo.tpot_s > 0 ? ` (objective ${formatSeconds(v.slo.tpot_s)})` : ''}${v.slo.itl_s > 0 ? `, the gap between tokens ${formatSeconds(v.slo.itl_at_percentile)} over every token (objective ${formatSeconds(v.slo.itl_s)})` : ''}.`,
      )
    : null;
  const words = `${groupDigits(v.completed)} requests simulated on ${v.replicas} replica${v.replicas === 1 ? '' : 's'} (${v.devices} devices) in ${groupDigits(v.steps)} scheduler steps: each step the running requests decode one token or prefill their next prompt chunk, and waiting requests join while at most ${v.max_batch} sequences, ${groupDigits(v.max_num_tokens)} tokens per step and the free KV blocks allow (${groupDigits(v.kv_capacity_tokens)} tokens per replica${v.preemptions > 0 ? `, ${v.preemptions} preemptions` : ''}).${v.kv_transfer_s > 0 ? ` Prefill and decode run on separate pools; handing a prompt’s KV cache over takes ${formatSeconds(v.kv_transfer_s)} on average.` : ''}`;
  return h('div', null, h('p', { class: 'intro' }, words), slo, table);
}

/** A scenario with a Poisson rate and fewer requests, for one point of the sweep. */
function atRate(s: Record<string, unknown>, rate: number | 'offline', requests: number): Record<string, unknown> {
  const c = structuredClone(s);
  const inf = c.inference as Record<string, unknown>;
  const sv = { ...(inf.serving as Record<string, unknown>) };
  delete sv.concurrency;
  delete sv.requests_per_s;
  delete sv.disaggregated;
  sv.num_requests = requests;
  if (rate === 'offline') sv.arrival = 'offline';
  else {
    sv.arrival = 'poisson';
    sv.requests_per_s = rate;
  }
  inf.serving = sv;
  return c;
}

export interface ServingSweep {
  /** Sweeps the rates of `scenario` (with inference.serving) and draws the curve; a newer call cancels an older one. */
  run(scenario: Record<string, unknown>, slo: Serving['slo'] | undefined, current?: Serving): void;
  clear(): void;
}

/**
 * Latency against throughput over 20 request rates, from 5% to 150% of what the deployment
 * serves with every request present at once (each point a Poisson stream of `requests`).
 */
export function createServingSweep(engine: Engine, card: ChartCard, requests = 300): ServingSweep {
  let generation = 0;
  let completed = 0;
  return {
    clear() {
      generation += 1;
      card.el.hidden = true;
    },
    run(scenario, slo, current) {
      const my = ++generation;
      card.el.hidden = false;
      card.set(null, 'Sweeping request rates…');
      void (async () => {
        const t0 = performance.now();
        const cap = await engine.predict(atRate(scenario, 'offline', requests));
        if (my !== generation) return;
        if (!cap.ok || !cap.value.serving) return card.set(null, cap.ok ? 'No serving result.' : `The sweep could not run: ${cap.error.message}`);
        const capacity = cap.value.serving.requests_per_s;
        // All 20 rates go to the worker at once: it runs them back to back, instead of waiting for
        // this (often busy) main thread to take each answer before it sends the next question.
        const rates = Array.from({ length: 20 }, (_, i) => capacity * 0.05 * Math.pow(30, i / 19));
        const answers = await Promise.all(rates.map((rate) => engine.predict(atRate(scenario, rate, requests))));
        if (my !== generation) return;
        const points: SweepPoint[] = [];
        answers.forEach((r, i) => {
          if (!r.ok || !r.value.serving) return;
          const v = r.value.serving;
          const u = r.value.uncertainty;
          const band = (k: string): { low: number; high: number } | undefined => (u?.[k] ? { low: u[k]!.low, high: u[k]!.high } : undefined);
          points.push({ rate: rates[i]!, throughput: v.output_tokens_per_s, ttft_p90: v.ttft_s.p90, tpot_p90: v.tpot_s.p90, itl_p99: v.itl_s.p99, goodput: v.goodput_requests_per_s, ttft_band: band('serving.ttft_s.p90'), tpot_band: band('serving.tpot_s.p90') });
        });
        const ms = Math.round(performance.now() - t0);
        card.set(servingCurveSpec(points, slo, ms, current ? { throughput: current.output_tokens_per_s, ttft_p90: current.ttft_s.p90, tpot_p90: current.tpot_s.p90 } : undefined));
        card.el.dataset.sweepMs = String(ms);
        card.el.dataset.sweeps = String(++completed);
        card.el.dataset.points = String(points.length);
      })();
    },
  };
}


