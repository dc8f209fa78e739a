// How a new job reaches a worker at once instead of on the next poll: Agenda's notification channel.
// Without REDIS_URL, the in-process channel (the replica that queued the job runs it); with
// REDIS_URL, Redis publish/subscribe, so every replica hears of every new job and the first to
// lock it runs it.
import {
  BaseNotificationChannel,
  InMemoryNotificationChannel,
  type JobNotification,
  type NotificationChannel,
  type NotificationHandler,
} from 'agenda'
// ioredis is imported when a Redis URL is configured (connect), not by every server that has none.
import type { Redis } from 'ioredis'
import { coalescedPerJobName } from './coalesce.ts'

/** A channel that can also wake this replica's own queue (a job finished here: a slot is free). */
export interface WakeableChannel extends NotificationChannel {
  /** Makes this replica look for due jobs of `jobName` now, without telling the other replicas. */
  wake(jobName: string): void
}

/** What `wake` hands this replica's handlers: a due job of that name may be waiting. */
function wakeUp(jobName: string): JobNotification {
  return { jobId: 'wake' as JobNotification['jobId'], jobName, nextRunAt: null, priority: 0, timestamp: new Date() }
}

/** The in-process channel, with notifications coalesced per job name (coalesce.ts). */
export class LocalNotificationChannel extends InMemoryNotificationChannel implements WakeableChannel {
  override subscribe(handler: NotificationHandler): () => void {
    return super.subscribe(coalescedPerJobName(handler))
  }

  wake(jobName: string): void {
    void this.notifyHandlers(wakeUp(jobName))
  }

  /**
   * Hands a new job to this replica's queue without waiting for the queue to take it: Agenda's
   * `now()` awaits the publication, and its handler locks every due job before it returns (two
   * database round trips for one job), which the request that queued the job used to wait for.
   */
  override async publish(notification: JobNotification): Promise<void> {
    if (this.state !== 'connected') throw new Error('Cannot publish: channel not connected')
    void this.notifyHandlers(notification)
  }
}

export class RedisNotificationChannel extends BaseNotificationChannel implements WakeableChannel {
  private publisher?: Redis
  private subscriber?: Redis

  constructor(
    private readonly url: string,
    channelName = 'ies:jobs',
  ) {
    super({ channelName })
  }

  /** Notifications are coalesced per job name (coalesce.ts). */
  override subscribe(handler: NotificationHandler): () => void {
    return super.subscribe(coalescedPerJobName(handler))
  }

  wake(jobName: string): void {
    void this.notifyHandlers(wakeUp(jobName))
  }

  async connect(): Promise<void> {
    this.setState('connecting')
    const options = { lazyConnect: true, maxRetriesPerRequest: 1 }
    const { Redis } = await import('ioredis')
    this.publisher = new Redis(this.url, options)
    this.subscriber = new Redis(this.url, options)
    for (const client of [this.publisher, this.subscriber]) client.on('error', (err) => this.emit('error', err))
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.config.channelName) return
      try {
        const raw = JSON.parse(message) as JobNotification & { nextRunAt: string | null; timestamp: string }
        void this.notifyHandlers({ ...raw, nextRunAt: raw.nextRunAt ? new Date(raw.nextRunAt) : null, timestamp: new Date(raw.timestamp) })
      } catch (err) {
        this.emit('error', err as Error)
      }
    })
    await Promise.all([this.publisher.connect(), this.subscriber.connect()])
    await this.subscriber.subscribe(this.config.channelName)
    this.setState('connected')
  }

  async disconnect(): Promise<void> {
    this.handlers.clear()
    this.stateHandlers.clear()
    await Promise.all([this.publisher?.quit().catch(() => {}), this.subscriber?.quit().catch(() => {})])
    this.publisher = this.subscriber = undefined
    this.setState('disconnected')
  }

  async publish(notification: JobNotification): Promise<void> {
    if (!this.publisher || this.state !== 'connected') throw new Error('Cannot publish: channel not connected')
    await this.publisher.publish(this.config.channelName, JSON.stringify(notification))
  }
}

/** The channel for this replica: Redis when configured, otherwise in process; none when notifications are off. */
export function notificationChannel(opts: { notify: boolean; redisUrl: string | undefined }): WakeableChannel | undefined {
  if (!opts.notify) return undefined
  return opts.redisUrl ? new RedisNotificationChannel(opts.redisUrl) : new LocalNotificationChannel()
}
