/**
 * One load run with autocannon. Latency percentiles come from every response's own duration
 * (autocannon's histogram rounds to whole milliseconds, too coarse for sub-millisecond answers).
 */
import autocannon from 'autocannon';

function percentile(sorted, q) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * @param {object} o
 * @param {string} o.url full URL of the request
 * @param {number} o.connections
 * @param {number} [o.duration] seconds
 * @param {number} [o.amount] exactly this many requests instead of a duration
 * @param {number} [o.timeout] seconds a request may take (autocannon's default 10)
 * @param {string} [o.method]
 * @param {Record<string,string>} [o.headers]
 * @param {string} [o.body]
 * @param {(req: object) => object} [o.setupRequest] rewrites each request (distinct bodies, tokens)
 */
export async function load({ url, connections, duration, amount, timeout, method = 'GET', headers = {}, body, setupRequest }) {
  const latencies = [];
  const statuses = new Map();
  let bytes = 0;
  const instance = autocannon({
    url,
    connections,
    // autocannon refuses a `duration` key it is given as undefined: one of the two, never both.
    ...(amount === undefined ? { duration } : { amount }),
    ...(timeout === undefined ? {} : { timeout }),
    method,
    headers,
    body,
    requests: setupRequest ? [{ setupRequest }] : undefined,
  });
  instance.on('response', (_client, status, resBytes, ms) => {
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (status >= 200 && status < 300) {
      latencies.push(ms);
      bytes += resBytes;
    }
  });
  const result = await instance;
  const ok = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    ok,
    rps: ok / result.duration,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies.length ? latencies[latencies.length - 1] : NaN,
    bytesPerResponse: ok ? Math.round(bytes / ok) : 0,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(statuses),
    duration: result.duration,
  };
}

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** The median of each figure over rounds (each figure on its own, as usual for benchmarks). */
export function medianRun(runs) {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    bytesPerResponse: runs[0]?.bytesPerResponse ?? 0,
    errors: runs.reduce((n, r) => n + r.errors + r.non2xx, 0),
    rounds: runs.map((r) => ({ rps: Math.round(r.rps), p50: r.p50, p99: r.p99, errors: r.errors, non2xx: r.non2xx })),
  };
}
