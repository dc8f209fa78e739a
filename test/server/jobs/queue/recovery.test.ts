// A job whose worker dies is picked up again: a server process on the same database takes the
// generation, gets stuck fetching the templates (a loopback proxy in front of the templates
// repository holds its requests), and is killed with SIGKILL; once its lock is older than
// JOBS_LOCK_LIFETIME_MS, a replica started afterwards locks the job again and completes it. Only
// outcomes are asserted, with deadlines far beyond what the steps take.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../../harness/app.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { createEnvironment, unzip, waitForJob } from '../../../harness/jobs.ts'
import { startReplicaProcess } from '../../../harness/replica.ts'

t.test('a job whose server process is killed mid-job completes on another', async (t) => {
  const git = await startGitServer()
  t.teardown(() => git.stop())
  const templatesUrl = await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)

  // The proxy holds requests while `stalled`, and forwards them to the Git server otherwise.
  let stalled = false
  let held = 0
  const upstream = new URL(git.baseUrl)
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers)
        r.pipe(res)
      },
    )
    out.on('error', () => res.destroy())
    req.pipe(out)
  }
  const proxy = createServer((req, res) => {
    if (stalled) {
      held++
      req.resume()
      return
    }
    forward(req, res)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    proxy.closeAllConnections()
    proxy.close()
  })
  const proxiedTemplates = templatesUrl.replace(git.baseUrl, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`)

  const cacheRoot = await mkdtemp(path.join(os.tmpdir(), 'ies-recovery-'))
  t.teardown(() => rm(cacheRoot, { recursive: true, force: true }))
  const jobsEnv = { TEMPLATES_REPO: proxiedTemplates, JOBS_LOCK_LIFETIME_MS: '3000', JOBS_PROCESS_EVERY_MS: '300' }
  // This test's server only answers the API (JOBS_PROCESS=false): while the doomed replica lives, it is
  // the only one that can take the job (a survivor scanning every 300 ms used to take it first now and
  // then on a loaded machine, and then hung on the stalled proxy itself).
  const api = await startTestApp(t, { ...jobsEnv, JOBS_PROCESS: 'false', TEMPLATES_CACHE_DIR: path.join(cacheRoot, 'api') })
  const { url, auth, db } = api
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const env = await createEnvironment({ url, auth })

  // The doomed replica: the real server entry point, its own process, the same database.
  const doomed = await startReplicaProcess(t, api, { ...jobsEnv, TEMPLATES_CACHE_DIR: path.join(cacheRoot, 'doomed') })

  stalled = true
  const queued = await fetch(`${doomed.url}/api/environments/${env.id}/generate`, {
    method: 'POST',
    headers: dev,
    body: JSON.stringify({ format: 'terraform', options: { includeBackend: true } }),
  })
  t.equal(queued.status, 202, 'the doomed replica queued the job')
  const jobId = ((await queued.json()) as any).data.id
  const deadline = Date.now() + 120_000
  while (held === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  t.ok(held > 0, 'the doomed replica is fetching the templates')
  const mid = ((await (await fetch(`${url}/api/jobs/${jobId}`, { headers: dev })).json()) as any).data
  t.equal(mid.status, 'running', 'the job is running on the doomed replica')

  await doomed.kill()
  stalled = false
  // The survivor: another replica on the same database, started after the kill.
  await startReplicaProcess(t, api, { ...jobsEnv, TEMPLATES_CACHE_DIR: path.join(cacheRoot, 'survivor') })

  const done = await waitForJob(url, dev, jobId, 180_000, 50)
  t.equal(done.status, 'succeeded', JSON.stringify(done.error))
  const record = await db.client
    .db()
    .collection('jobHistory')
    .findOne({ _id: jobId as never })
  // At least twice: the doomed attempt and the survivor's (a loaded machine may need one more when a run outlives its lock).
  t.ok((record?.attempts ?? 0) >= 2, `started again after the kill (attempts: ${record?.attempts})`)
  const download = await fetch(`${url}/api/jobs/${jobId}/download`, { headers: auth('dev') })
  t.equal(download.status, 200)
  const files = await unzip(Buffer.from(await download.arrayBuffer()))
  t.ok(files.has('terraform/backend.tf') && files.has('terraform/main.tf'), 'the archive is complete')
  t.equal(done.result.templatesCommit, (await git.git('templates', ['rev-parse', 'main'])).trim(), 'the templates commit of the repository')
})
