// The part of autocannon's programmatic API (v9, README "autocannon(opts[, cb])") the benchmarks use;
// the package ships no types.
declare module 'autocannon' {
  export interface Histogram {
    average: number
    mean: number
    p50: number
    p90: number
    p99: number
    max: number
    total: number
  }
  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void
  }
  export interface Options {
    url: string
    connections?: number
    duration?: number
    amount?: number
    pipelining?: number
    overallRate?: number
    timeout?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: Request[]
    expectBody?: string
  }
  export interface Result {
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    duration: number
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    '1xx': number
    '2xx': number
    '3xx': number
    '4xx': number
    '5xx': number
    statusCodeStats?: Record<string, { count: number }>
  }
  function autocannon(opts: Options): Promise<Result> & { stop(): void }
  export default autocannon
}
