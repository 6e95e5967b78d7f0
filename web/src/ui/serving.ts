// The serving block of the results (inference.serving): what the simulation did in words, the
// latency percentiles as a table (also the text alternative of the charts), the objectives'
// verdict, the latency-against-throughput curve over a sweep of request rates, and latency and
// throughput per GPU over a sweep of concurrent users (a closed loop), computed by the engine in
// the worker after the headline numbers are on screen.
import type { Prediction } from '../engine/types';
import type { Engine, EngineResult } from '../engine/client';
import { servingConcurrencyLatencySpec, servingConcurrencyThroughputSpec, servingCurveSpec, type ConcurrencyMark, type ConcurrencyPoint, type SweepPoint } from '../charts/specs';
import type { ChartCard } from './chartcard';
import { h } from '../base/dom';
import { countOf, formatSeconds, groupDigits } from '../base/format';

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
  const words = `${groupDigits(v.completed)} requests simulated on ${countOf(v.replicas, 'replica')} (${countOf(v.devices, 'device')}) in ${groupDigits(v.steps)} scheduler steps: each step the running requests decode one token or prefill their next prompt chunk, and waiting requests join${v.static_batching ? ' (static batching: only once the last batch has finished)' : ''} while at most ${v.max_batch} sequences, ${groupDigits(v.max_num_tokens)} tokens per step and the free KV blocks allow (${groupDigits(v.kv_capacity_tokens)} tokens per replica${v.preemptions > 0 ? `, ${countOf(v.preemptions, 'preemption', groupDigits)}` : ''}).${v.eager_steps > 0 ? ` ${groupDigits(v.eager_steps)} of the steps ran without CUDA graphs (more sequences, or tokens under vLLM, than the largest graph the runtime captured, or a prompt chunk on a runtime that prefills eager): their kernels were issued one by one from the host, which costs time where issuing them takes longer than the GPU’s work.` : ''}${v.kv_transfer_s > 0 ? ` Prefill and decode run on separate pools; handing a prompt’s KV cache over takes ${formatSeconds(v.kv_transfer_s)} on average.` : ''}`;
  return h('div', null, h('p', { class: 'intro' }, words), slo, table);
}

type Arrival = { arrival: 'offline' } | { arrival: 'poisson'; requests_per_s: number } | { arrival: 'closed'; concurrency: number };

/** The scenario with another arrival and `requests` requests, for one point of a sweep. */
function withArrival(s: Record<string, unknown>, arrival: Arrival, requests: number): Record<string, unknown> {
  const c = structuredClone(s);
  const inf = c.inference as Record<string, unknown>;
  const sv = { ...(inf.serving as Record<string, unknown>) };
  delete sv.concurrency;
  delete sv.requests_per_s;
  delete sv.disaggregated;
  sv.num_requests = requests;
  Object.assign(sv, arrival);
  inf.serving = sv;
  return c;
}

/**
 * The users of the concurrency sweep: powers of two from 1 to the first at or past twice what the
 * deployment's schedulers hold at once (max_batch × replicas), at least 64, at most 1,024, and
 * past twice the scenario's own users when it is a closed loop.
 */
export function concurrencyLadder(maxBatch: number, replicas: number, own = 0): number[] {
  const top = Math.min(1024, Math.max(64, 2 * maxBatch * replicas, 2 * own));
  const out: number[] = [];
  for (let n = 1; n < 2 * top; n *= 2) {
    out.push(n);
    if (n >= top) break;
  }
  return out;
}

/** The scenario's own point on the concurrency axis (specs.ts ConcurrencyMark), or none offline. */
export function concurrencyMark(scenario: Record<string, unknown>, v: Serving): ConcurrencyMark | undefined {
  const sv = (scenario.inference as { serving?: { arrival?: string; concurrency?: number } } | undefined)?.serving;
  const at = { ttft_p50: v.ttft_s.p50, ttft_p90: v.ttft_s.p90, tpot_p50: v.tpot_s.p50, tpot_p90: v.tpot_s.p90, per_gpu: v.output_tokens_per_s_per_gpu };
  if (sv?.arrival === 'closed' && typeof sv.concurrency === 'number') return { clients: sv.concurrency, exact: true, ...at };
  if (sv?.arrival !== 'poisson') return undefined;
  const inFlight = v.requests_per_s * v.e2e_latency_s.mean;
  return inFlight > 0 && Number.isFinite(inFlight) ? { clients: inFlight, exact: false, ...at } : undefined;
}

/** One point per answer with a serving result (`i`: the answer's index in the sweep). */
function served<T>(answers: Array<EngineResult<Prediction>>, point: (v: Serving, p: Prediction, i: number) => T): T[] {
  const out: T[] = [];
  answers.forEach((r, i) => {
    if (r.ok && r.value.serving) out.push(point(r.value.serving, r.value, i));
  });
  return out;
}

export interface ServingSweep {
  /** Sweeps the rates and the concurrent users of `scenario` (with inference.serving) and draws the curves; a newer call cancels an older one. */
  run(scenario: Record<string, unknown>, slo: Serving['slo'] | undefined, current?: Serving): void;
  clear(): void;
}

export interface ServingCards {
  /** Latency against throughput over request rates. */
  rate: ChartCard;
  /** Latency against concurrent users. */
  latency: ChartCard;
  /** Output tokens/s per GPU against concurrent users. */
  throughput: ChartCard;
}

/**
 * Latency against throughput over 20 request rates, from 5% to 150% of what the deployment
 * serves with every request present at once (each point a Poisson stream of `requests`); then
 * latency and throughput per GPU against the users of a closed loop (concurrencyLadder, each
 * point at least `requests` requests and four per user).
 */
export function createServingSweep(engine: Engine, cards: ServingCards, requests = 300): ServingSweep {
  let generation = 0;
  let completed = 0;
  const all = [cards.rate, cards.latency, cards.throughput];
  return {
    clear() {
      generation += 1;
      for (const c of all) c.el.hidden = true;
    },
    run(scenario, slo, current) {
      const my = ++generation;
      for (const c of all) c.el.hidden = false;
      cards.rate.set(null, 'Sweeping request rates…');
      cards.latency.set(null, 'Sweeping concurrent users…');
      cards.throughput.set(null, 'Sweeping concurrent users…');
      void (async () => {
        const t0 = performance.now();
        const cap = await engine.predict(withArrival(scenario, { arrival: 'offline' }, requests));
        if (my !== generation) return;
        if (!cap.ok || !cap.value.serving) {
          const why = cap.ok ? 'No serving result.' : `The sweep could not run: ${cap.error.message}`;
          for (const c of all) c.set(null, why);
          return;
        }
        const capacity = cap.value.serving.requests_per_s;
        // All 20 rates go to the worker at once: it runs them back to back, instead of waiting for
        // this (often busy) main thread to take each answer before it sends the next question.
        const rates = Array.from({ length: 20 }, (_, i) => capacity * 0.05 * Math.pow(30, i / 19));
        const ownUsers = current && (scenario.inference as { serving?: { concurrency?: number } }).serving?.concurrency;
        const users = concurrencyLadder(cap.value.serving.max_batch, cap.value.serving.replicas, typeof ownUsers === 'number' ? ownUsers : 0);
        const rateAnswers = Promise.all(rates.map((rate) => engine.predict(withArrival(scenario, { arrival: 'poisson', requests_per_s: rate }, requests))));
        const userAnswers = Promise.all(users.map((n) => engine.predict(withArrival(scenario, { arrival: 'closed', concurrency: n }, Math.max(requests, 4 * n)))));
        const answers = await rateAnswers;
        if (my !== generation) return;
        const points = served(answers, (v, r, i): SweepPoint => {
          const u = r.uncertainty;
          const band = (k: string): { low: number; high: number } | undefined => (u?.[k] ? { low: u[k]!.low, high: u[k]!.high } : undefined);
          return { rate: rates[i]!, throughput: v.output_tokens_per_s, ttft_p90: v.ttft_s.p90, tpot_p90: v.tpot_s.p90, itl_p99: v.itl_s.p99, goodput: v.goodput_requests_per_s, ttft_band: band('serving.ttft_s.p90'), tpot_band: band('serving.tpot_s.p90') };
        });
        const ms = Math.round(performance.now() - t0);
        cards.rate.set(servingCurveSpec(points, slo, ms, current ? { throughput: current.output_tokens_per_s, ttft_p90: current.ttft_s.p90, tpot_p90: current.tpot_s.p90 } : undefined));
        cards.rate.el.dataset.sweepMs = String(ms);
        cards.rate.el.dataset.sweeps = String(++completed);
        cards.rate.el.dataset.points = String(points.length);
        const byUsers = await userAnswers;
        if (my !== generation) return;
        const closed = served(byUsers, (v, _r, i): ConcurrencyPoint => ({ clients: users[i]!, ttft_p50: v.ttft_s.p50, ttft_p90: v.ttft_s.p90, tpot_p50: v.tpot_s.p50, tpot_p90: v.tpot_s.p90, per_gpu: v.output_tokens_per_s_per_gpu }));
        const msUsers = Math.round(performance.now() - t0);
        const mark = current ? concurrencyMark(scenario, current) : undefined;
        const failed = byUsers.find((r) => !r.ok);
        const empty = failed && !failed.ok ? `The sweep could not run: ${failed.error.message}` : 'No serving result.';
        cards.latency.set(servingConcurrencyLatencySpec(closed, slo, msUsers, mark), empty);
        cards.throughput.set(servingConcurrencyThroughputSpec(closed, msUsers, mark), empty);
        for (const c of [cards.latency, cards.throughput]) {
          c.el.dataset.sweepMs = String(msUsers);
          c.el.dataset.sweeps = String(completed);
          c.el.dataset.points = String(closed.length);
        }
      })();
    },
  };
}
