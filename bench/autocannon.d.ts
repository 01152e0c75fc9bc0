// The part of autocannon 8's programmatic API that bench/http.ts uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
      headers?: Record<string, string>;
      body?: string | Buffer;
      connections?: number;
      pipelining?: number;
      /** Seconds. */
      duration?: number;
      /** Seconds to wait for a reply before counting a timeout. */
      timeout?: number;
      /** Requests in all; overrides duration, and the run ends when all are answered. */
      amount?: number;
      /** Stop after this many errors (timeouts included). */
      bailout?: number;
      title?: string;
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
      p99_9: number;
    }
    interface Result {
      title?: string;
      url: string;
      /** Requests per second, one sample a second. */
      requests: Histogram;
      /** Milliseconds. */
      latency: Histogram;
      /** Bytes per second. */
      throughput: Histogram;
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats?: Record<string, { count: number }>;
      connections: number;
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
