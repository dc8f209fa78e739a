// Numbers in words ("twenty-one days") are read by compromise in a worker thread
// (number-words-worker.js), never on the request thread: loading compromise and building its lexicon
// holds a thread for hundreds of ms (docs/internals/assistant-words.md), which the first assistant
// request after a start would otherwise stall every other request for. The worker starts with the
// first request that has a run of number words to read (most servers, and most test processes,
// never read one) and is ended when the app closes. The runs it reads are remembered (quantities.ts),
// where the reading, which stays synchronous, finds them (`digitsForWords`).
import { Worker } from 'node:worker_threads'
import { newRuns, remember } from './quantities.ts'

interface Job {
  resolve: (numbers: Array<number | null>) => void
  reject: (err: Error) => void
}

const WORKER = new URL('./number-words-worker.js', import.meta.url)

export class NumberWords {
  private worker: Worker | undefined
  /** Resolved when the worker has loaded compromise (its ready message). */
  private ready: Promise<Worker> | undefined
  /** Ends the current worker's wait and jobs with a reason. */
  private fail: ((reason: string) => void) | undefined
  private readonly jobs = new Map<number, Job>()
  private nextId = 1

  /** `file`: the worker's module (a test gives one that fails). */
  constructor(private readonly file: URL = WORKER) {}

  /** True while a worker thread runs. */
  get running(): boolean {
    return this.worker !== undefined
  }

  /** Reads the runs of number words of `text` not read yet (within the bounds of quantities.ts's `newRuns`). */
  async read(text: string): Promise<void> {
    const runs = newRuns(text)
    if (runs.length === 0) return
    const numbers = await this.ask(runs)
    runs.forEach((run, i) => remember(run, numbers[i] ?? null))
  }

  /** Ends the worker; what it was asked is refused (a later read starts a new one). */
  async close(): Promise<void> {
    const worker = this.worker
    this.fail?.('was closed')
    await worker?.terminate()
  }

  private async ask(runs: string[]): Promise<Array<number | null>> {
    const worker = await this.started()
    // Closed (or failed) between its ready message and this turn: nothing would answer.
    if (this.worker !== worker) throw new Error('the number words worker was closed')
    const id = this.nextId++
    const answer = new Promise<Array<number | null>>((resolve, reject) => this.jobs.set(id, { resolve, reject }))
    worker.ref() // a pending answer keeps the process alive; an idle worker does not
    worker.postMessage({ id, runs })
    return answer
  }

  private started(): Promise<Worker> {
    if (this.ready) return this.ready
    // Plain JavaScript: none of the process's flags (a TypeScript loader) is needed to load it.
    const worker = new Worker(this.file, { execArgv: [] })
    this.worker = worker
    this.ready = new Promise<Worker>((resolve, reject) => {
      worker.on('message', (message: { ready?: true; id: number; numbers: Array<number | null> }) => {
        if (message.ready) return resolve(worker)
        const job = this.jobs.get(message.id)
        this.jobs.delete(message.id)
        if (this.jobs.size === 0) worker.unref()
        job?.resolve(message.numbers)
      })
      // A worker that fails (to load, or later) refuses what it was asked, with the reason; the next read starts a new one.
      const failed = (this.fail = (reason: string) => {
        if (this.worker !== worker) return
        const err = new Error(`the number words worker ${reason}`)
        this.worker = undefined
        this.ready = undefined
        this.fail = undefined
        for (const job of this.jobs.values()) job.reject(err)
        this.jobs.clear()
        reject(err)
      })
      worker.on('error', (err) => failed(`failed: ${err.message}`))
      worker.on('exit', (code) => failed(`exited (code ${code})`))
    })
    this.ready.catch(() => {}) // refused to the readers waiting on it
    return this.ready
  }
}
