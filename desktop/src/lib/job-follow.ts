// Following a job by long polling: `GET /jobs/:id?wait=true` answers once the job has finished (or
// after the server's wait timeout; then the client asks again), so a job costs one or two requests
// however long it runs, instead of one per polling interval.
import type { ApiClient } from './api-client.ts'
import type { Job } from './types.ts'

export const isActive = (job: Job | null | undefined) => job?.status === 'queued' || job?.status === 'running'

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
