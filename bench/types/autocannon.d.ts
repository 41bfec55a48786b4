/** The part of autocannon's API bench/server.ts uses (the package ships no types). */
declare module 'autocannon' {
  interface Histogram { average: number; mean: number; p50: number; p90: number; p99: number; max: number; min: number }
  interface Result { requests: Histogram; latency: Histogram; throughput: Histogram; errors: number; timeouts: number; non2xx: number; '2xx': number }
  interface Options { url: string; method?: string; connections?: number; duration?: number; pipelining?: number; headers?: Record<string, string>; body?: string }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
