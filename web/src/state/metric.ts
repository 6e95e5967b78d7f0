// A validation row's metric in a prediction: a dotted output path whose last part may add keys
// ("serving.ttft_s.p50", "memory.per_device_bytes.weights+optimizer"). Pure; shared by the
// accuracy view and the build step that predicts every row once (vite.config.ts).

function at(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function metricValue(prediction: unknown, metric: string): number | undefined {
  const dot = metric.lastIndexOf('.');
  const parent = dot < 0 ? prediction : at(prediction, metric.slice(0, dot));
  let sum = 0;
  for (const k of metric.slice(dot + 1).split('+')) {
    const v = at(parent, k);
    if (typeof v !== 'number') return undefined;
    sum += v;
  }
  return sum;
}

/** The engine's 80% band of a metric in a prediction, when it gives one. */
export function metricBand(prediction: unknown, metric: string): { low: number; high: number } | undefined {
  const b = (prediction as { uncertainty?: Record<string, { low: number; high: number }> } | null)?.uncertainty?.[metric];
  return b && typeof b.low === 'number' && typeof b.high === 'number' ? { low: b.low, high: b.high } : undefined;
}
