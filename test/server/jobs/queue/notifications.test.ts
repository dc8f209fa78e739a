// With REDIS_URL the new-job notification reaches every replica: two servers on one database and one
// real redis-server. The one that takes the requests runs no jobs (JOBS_PROCESS=false); the other
// scans for due jobs only every ten minutes, so a job that finishes within a minute was started
// on the other replica by the notification.
import t from 'tap'
import { redisAvailable, startRedis } from '../../../../scripts/services/redis.ts'
import { startTestApp } from '../../../harness/app.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'
import { startReplicaProcess } from '../../../harness/replica.ts'
import { LocalNotificationChannel } from '@ies/server/jobs/queue/notifications'

const RARE_SCAN = { JOBS_PROCESS_EVERY_MS: '600000' }
const skip = !redisAvailable() && !process.env.CI && 'redis-server is not installed: the Redis notification test did not run'

t.test('a job queued on one replica starts promptly on another through Redis', { skip }, async (t) => {
  if (!redisAvailable()) return t.fail('redis-server is required in CI (Debian package redis-server)')
  const redis = await startRedis()
  t.teardown(() => redis.stop())

  const api = await startTestApp(t, { ...RARE_SCAN, REDIS_URL: redis.url, JOBS_PROCESS: 'false' })
  await startReplicaProcess(t, api, { ...RARE_SCAN, REDIS_URL: redis.url })

  const dev = { ...api.auth('dev'), 'content-type': 'application/json' }
  const created = await fetch(`${api.url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(environmentBody()) })
  t.equal(created.status, 201)
  const envId = ((await created.json()) as any).data.id

  for (let i = 1; i <= 3; i++) {
    const res = await fetch(`${api.url}/api/environments/${envId}/generate`, {
      method: 'POST',
      headers: dev,
      body: JSON.stringify({ format: 'terraform', options: {} }),
    })
    t.equal(res.status, 202)
    const jobId = ((await res.json()) as any).data.id
    // A minute: far below the ten-minute scan, generous for a loaded machine.
    const done = await waitForJob(api.url, dev, jobId, 60_000, 20)
    t.equal(done.status, 'succeeded', `job ${i} ran on the other replica: ${JSON.stringify(done.error ?? null)}`)
  }
})

t.test('without the notification, the API-only replica leaves the job queued', { skip }, async (t) => {
  // The control: the same setup without REDIS_URL (each replica's channel is in process).
  const api = await startTestApp(t, { ...RARE_SCAN, JOBS_PROCESS: 'false' })
  await startReplicaProcess(t, api, RARE_SCAN)
  const dev = { ...api.auth('dev'), 'content-type': 'application/json' }
  const envId = (
    (await (
      await fetch(`${api.url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(environmentBody()) })
    ).json()) as any
  ).data.id
  const res = await fetch(`${api.url}/api/environments/${envId}/generate`, {
    method: 'POST',
    headers: dev,
    body: JSON.stringify({ format: 'terraform', options: {} }),
  })
  const jobId = ((await res.json()) as any).data.id
  await new Promise((r) => setTimeout(r, 3000))
  const job = ((await (await fetch(`${api.url}/api/jobs/${jobId}`, { headers: dev })).json()) as any).data
  t.equal(job.status, 'queued', 'nobody heard of it (until the next scan)')
})

// A `?wait=true` waiter on one replica is woken by the completion announcement of the replica that
// ran the job (Redis), not by re-reading the job: with JOBS_WAIT_RECHECK_MS and JOBS_WAIT_TIMEOUT_MS
// at ten minutes, the waiter re-reads its job only after 37 s, and answers an unfinished job only
// after ten minutes, far beyond this test's own time limit; the answer is the finished job.
const NO_RECHECK = { JOBS_WAIT_RECHECK_MS: '600000', JOBS_WAIT_TIMEOUT_MS: '600000' }

t.test('a waiter is woken by the completion announcement of another replica (Redis)', { skip }, async (t) => {
  if (!redisAvailable()) return t.fail('redis-server is required in CI (Debian package redis-server)')
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const api = await startTestApp(t, { ...NO_RECHECK, REDIS_URL: redis.url, JOBS_PROCESS: 'false' })
  await startReplicaProcess(t, api, { ...RARE_SCAN, REDIS_URL: redis.url })
  const dev = { ...api.auth('dev'), 'content-type': 'application/json' }
  const created = await fetch(`${api.url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(environmentBody()) })
  const envId = ((await created.json()) as any).data.id
  const res = await fetch(`${api.url}/api/environments/${envId}/generate`, {
    method: 'POST',
    headers: dev,
    body: JSON.stringify({ format: 'terraform', options: {} }),
  })
  const jobId = ((await res.json()) as any).data.id
  const waited = ((await (await fetch(`${api.url}/api/jobs/${jobId}?wait=true`, { headers: dev })).json()) as any).data
  t.equal(waited.status, 'succeeded', 'the long poll answered the finished job')
})

t.test('in process, publishing a new job does not wait for the queue to take it', async (t) => {
  // Agenda's now() awaits the publication; the queue's handler locks every due job before it returns.
  const channel = new LocalNotificationChannel()
  await channel.connect()
  t.teardown(() => channel.disconnect())
  let release = () => {}
  const handled: string[] = []
  channel.subscribe(async (notification) => {
    handled.push(String(notification.jobId))
    await new Promise<void>((resolve) => (release = resolve))
  })
  const notification = { jobId: 'j1', jobName: 'generate', nextRunAt: null, priority: 0, timestamp: new Date() }
  const published = await Promise.race([
    channel.publish(notification as never).then(() => 'published'),
    new Promise((resolve) => setTimeout(() => resolve('waited for the handler'), 1000)),
  ])
  t.equal(published, 'published')
  t.same(handled, ['j1'], 'the handler was called')
  release()
  await channel.disconnect()
  await t.rejects(channel.publish(notification as never), /not connected/, 'a closed channel refuses')
})
