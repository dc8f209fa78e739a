// The chart values YAML of a request is checked in a worker thread (chart-values-worker.js), never
// on the request thread: the yaml package's parser is far from linear on some shapes (a flow map's
// duplicate-key check is quadratic in the text's size), and one request must not stall the service.
// The texts of one request go to the worker in one message and get one time limit
// (HELM_VALUES_PARSE_TIMEOUT_MS); past it the worker is ended and the values are refused as too
// complex (a fresh worker takes the next request). Requests are checked one after the other.
import { Worker } from 'node:worker_threads'

/** The yaml package's alias expansion limit (its own default): an alias bomb is refused, not expanded. */
export const MAX_ALIAS_COUNT = 100

interface Job {
  id: number
  texts: string[]
  resolve: (problems: Array<string | null>) => void
  reject: (err: Error) => void
}

export class ChartValuesChecker {
  private worker: Worker | undefined
  /** The worker has loaded (its first message); jobs are handed over only then. */
  private ready = false
  private readonly queue: Job[] = []
  private running: (Job & { timer: NodeJS.Timeout }) | undefined
  private nextId = 1

  constructor(private readonly timeoutMs: number) {}

  /** One problem (or null) per text, in order. */
  check(texts: string[]): Promise<Array<string | null>> {
    if (texts.length === 0) return Promise.resolve([])
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, texts, resolve, reject })
      this.next()
    })
  }

  /** Ends the worker (a later check starts a new one). */
  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    this.ready = false
    await worker?.terminate()
  }

  private next() {
    if (this.running) return
    if (this.queue.length === 0) {
      this.worker?.unref() // idle: it does not keep the process alive
      return
    }
    const worker = this.workerThread()
    worker.ref()
    if (!this.ready) return // the worker's ready message calls next() again
    const job = this.queue.shift()!
    const timer = setTimeout(
      () => this.fail(job, `could not be checked within ${this.timeoutMs} ms: the YAML is too complex`),
      this.timeoutMs,
    )
    this.running = { ...job, timer }
    worker.postMessage({ id: job.id, texts: job.texts, maxAliasCount: MAX_ALIAS_COUNT })
  }

  private finish(id: number, problems: Array<string | null>) {
    const job = this.running
    if (!job || job.id !== id) return
    clearTimeout(job.timer)
    this.running = undefined
    job.resolve(problems)
    this.next()
  }

  /** The worker took too long or died: end it, refuse the job's texts, go on with a new worker. */
  private fail(job: Job, problem: string) {
    if (this.running?.id !== job.id) return
    void this.close()
    this.finish(
      job.id,
      job.texts.map(() => problem),
    )
  }

  private workerThread(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(new URL('./chart-values-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    })
    worker.on('message', (message: { ready?: true; id: number; problems: Array<string | null> }) => {
      if (this.worker !== worker) return
      if (message.ready) {
        this.ready = true
        this.next()
      } else this.finish(message.id, message.problems)
    })
    const died = (err?: Error) => {
      if (this.worker !== worker) return
      const wasReady = this.ready
      this.worker = undefined
      this.ready = false
      if (!wasReady) {
        // It never started: a fault of this server, not of the values (answered 500).
        for (const job of this.queue.splice(0)) job.reject(new Error(`the chart values worker did not start: ${err?.message ?? 'exited'}`))
      } else if (this.running) this.fail(this.running, 'could not be checked: the YAML is too large to read')
      else if (this.queue.length > 0) this.next()
    }
    worker.on('error', died)
    worker.on('exit', () => died())
    this.worker = worker
    return worker
  }
}
