// How a waiter (`GET /api/jobs/:id?wait=true`, `POST /generate?wait=true`) hears that its job has
// finished: the replica that finished it announces the job id, in process and, with REDIS_URL,
// through Redis publish/subscribe to every replica. A waiter re-reads its job only when woken, and
// otherwise on a slow backoff (JOBS_WAIT_RECHECK_MS at most) that covers an announcement lost with
// a replica; before, every waiter re-read its job from the database every 250 ms.
import { EventEmitter } from 'node:events'
// ioredis is imported when a Redis URL is configured (connect), not by every server that has none.
import type { Redis } from 'ioredis'

const CHANNEL = 'ies:jobs:finished'

export class CompletionBus {
  private readonly local = new EventEmitter()
  private publisher?: Redis
  private subscriber?: Redis

  constructor(
    private readonly redisUrl: string | undefined,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    this.local.setMaxListeners(0)
  }

  /** Subscribes to the other replicas' announcements (with REDIS_URL); a Redis outage only logs. */
  async connect(): Promise<void> {
    if (!this.redisUrl || this.subscriber) return
    const options = { lazyConnect: true, maxRetriesPerRequest: 1 }
    const { Redis } = await import('ioredis')
    this.publisher = new Redis(this.redisUrl, options)
    this.subscriber = new Redis(this.redisUrl, options)
    for (const client of [this.publisher, this.subscriber]) client.on('error', (err: Error) => this.onError(err))
    this.subscriber.on('message', (channel: string, jobId: string) => {
      if (channel === CHANNEL) this.local.emit(jobId)
    })
    await Promise.all([this.publisher.connect(), this.subscriber.connect()])
    await this.subscriber.subscribe(CHANNEL)
  }

  async disconnect(): Promise<void> {
    const clients = [this.publisher, this.subscriber]
    this.publisher = this.subscriber = undefined
    await Promise.all(clients.map((c) => c?.quit().catch(() => c.disconnect())))
  }

  /** The job has finished here: wake this replica's waiters now, and the other replicas' through Redis. */
  announce(jobId: string): void {
    this.announceHere(jobId)
    this.publisher?.publish(CHANNEL, jobId).catch((err: Error) => this.onError(err))
  }

  /** Wakes only this replica's waiters (they can read the final record from memory before the others can from the database). */
  announceHere(jobId: string): void {
    this.local.emit(jobId)
  }

  /**
   * Resolves when the job is announced or after `timeoutMs`, whichever comes first; register it
   * before reading the job, so an announcement between the read and the wait is not missed.
   */
  waiter(jobId: string, timeoutMs: number): { woken: Promise<boolean>; cancel: () => void } {
    let cancel = () => {}
    const woken = new Promise<boolean>((resolve) => {
      const onAnnounce = () => done(true)
      const timer = setTimeout(() => done(false), timeoutMs)
      const done = (heard: boolean) => {
        clearTimeout(timer)
        this.local.off(jobId, onAnnounce)
        resolve(heard)
      }
      this.local.once(jobId, onAnnounce)
      cancel = () => done(false)
    })
    return { woken, cancel }
  }

  /** Waiters registered now (for tests and the health of the process). */
  get waiting(): number {
    return this.local.eventNames().reduce((n, name) => n + this.local.listenerCount(name), 0)
  }
}
