// Following a job by long polling: `GET /jobs/:id?wait=true` answers once the job has finished (or
// after the server's wait timeout; then the client asks again), so a job costs one or two requests
// however long it runs, instead of one per polling interval.
import type { ApiClient } from '@ies/api'
import type { Job } from '../api/types.ts'

/** Not ended yet: queued, running, or a push awaiting a team member's approval. */
export const isActive = (job: Job | null | undefined) =>
  job?.status === 'queued' || job?.status === 'running' || job?.status === 'awaiting-approval'

/** Follow `job` until it ends, one request at a time; `onUpdate` sees every answer; stops when `isLive` turns false. */
export async function followJob(
  api: Pick<ApiClient, 'job'>,
  job: Job,
  onUpdate: (j: Job) => void = () => {},
  isLive: () => boolean = () => true,
): Promise<Job> {
  let current = job
  while (isActive(current) && isLive()) {
    current = await api.job(current.id, { wait: true })
    if (isLive()) onUpdate(current)
  }
  return current
}

/**
 * Follow several jobs until each has ended, one request per round for all of them
 * (`GET /jobs?ids=…&wait=true` answers once one of them has finished); `onEnd` sees each job once,
 * when it ends. A job the server no longer knows (removed with its environment) ends as failed.
 */
export async function followJobs(api: Pick<ApiClient, 'jobs'>, ids: readonly string[], onEnd: (j: Job) => void): Promise<void> {
  const pending = new Set(ids)
  while (pending.size > 0) {
    const answered = await api.jobs([...pending], { wait: true })
    const known = new Set(answered.map((j) => j.id))
    for (const id of [...pending]) {
      const job = answered.find((j) => j.id === id)
      if (known.has(id) && isActive(job)) continue
      pending.delete(id)
      onEnd(job ?? { id, type: 'push', status: 'failed', error: { message: 'The job no longer exists' } })
    }
  }
}
