// One push per environment at a time, end to end (API, real FerretDB, a real git http-backend
// server behind a proxy that can hold a request): a second push asked for while the first is in
// its Git part waits for it, then generates from the configuration as it is then, so the branch
// ends with the latest configuration and `lastPush` is the branch head; and a push whose Git part
// outlasts the job lock's lifetime keeps its lock and runs once.
import t from 'tap'
import { startTestApp } from '../../../harness/app.ts'
import { logLines } from '../../../harness/log-lines.ts'
import { startGitProxy, type GitProxyCall } from '../../../harness/git-proxy.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'

const DEPLOY_KEY = 'iest_c2VyaWFsLXRlc3QtZGVwbG95LWtleQ'
const LOCK_LIFETIME_MS = 1500

/** Resolves once `check` holds, looking again every 50 ms. */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50))
}

/** A gate: `opened` resolves once `open()` is called. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

t.test('pushes of one environment run one at a time', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const proxy = await startGitProxy(git.baseUrl)
  t.teardown(() => proxy.stop())
  const { lines, logStream } = logLines()
  const env = { PUSH_ALLOWED_HOSTS: '127.0.0.1', JOBS_LOCK_LIFETIME_MS: String(LOCK_LIFETIME_MS), LOG_LEVEL: 'info' }
  const { app, url, auth } = await startTestApp(t, env, { logStream })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}/api${route}`, { method, headers: dev, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const envFor = async (repo: string) => {
    await git.createRepo(repo, { 'README.md': '# shop\n' })
    const gitRepository = { url: `${proxy.baseUrl}/${repo}.git`, branch: 'main', deployKey: DEPLOY_KEY }
    const res = await api('POST', '/environments', { ...environmentBody({ name: `serial-${repo}` }), gitRepository })
    if (res.status !== 201) throw new Error(`environment: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data.id as string
  }
  const startPush = async (envId: string) => {
    const res = await api('POST', `/environments/${envId}/push`, {})
    if (res.status !== 202) throw new Error(`push: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data.id as string
  }
  const setDomain = async (envId: string, domain: string) => {
    const res = await api('PUT', `/environments/${envId}`, { domain })
    if (res.status !== 200) throw new Error(`update: ${res.status} ${JSON.stringify(res.body)}`)
  }
  /** The pushes (of any ref) the repository received. */
  const pushesTo = (repo: string) => proxy.calls.filter((c) => c.kind === 'push' && c.path === `/${repo}.git/git-receive-pack`)
  /** Holds the first push of the branch `repo` receives (the generated ref's push is not held). */
  const holdFirstPush = (repo: string) => {
    const held = gate()
    let holding: GitProxyCall | undefined
    proxy.hold = (call) => {
      if (holding || call.kind !== 'push' || call.path !== `/${repo}.git/git-receive-pack`) return undefined
      holding = call
      return held.opened
    }
    t.teardown(() => held.open())
    return { release: held.open, reached: () => holding !== undefined }
  }

  await t.test('a second push waits for the first, and the branch ends with the latest configuration', async (t) => {
    const envId = await envFor('concurrent')
    t.equal((await waitForJob(url, dev, await startPush(envId))).status, 'succeeded')

    const held = holdFirstPush('concurrent')
    await setDomain(envId, 'first.example.com')
    const first = await startPush(envId)
    await until(held.reached)
    const pushesSoFar = pushesTo('concurrent').length
    // The first push is in its Git part: the second, with a newer configuration, is asked for now.
    await setDomain(envId, 'second.example.com')
    const second = await startPush(envId)
    const waiting = () => lines.some((l) => l.includes(`"jobId":"${second}"`) && l.includes(`"waitingFor":"${first}"`))
    const finished = async () => ['succeeded', 'failed'].includes((await app.jobs.store.byId(second))?.status ?? '')
    await until(async () => waiting() || (await finished()))
    t.notOk(await finished(), 'the second push waits for the first')
    t.equal(pushesTo('concurrent').length, pushesSoFar, 'and has pushed nothing meanwhile')
    held.release()

    const [a, b] = [await waitForJob(url, dev, first), await waitForJob(url, dev, second)]
    t.equal(a.status, 'succeeded', JSON.stringify(a.error))
    t.equal(b.status, 'succeeded', JSON.stringify(b.error))
    const head = (await git.git('concurrent', ['rev-parse', 'main'])).trim()
    t.match(await git.git('concurrent', ['show', 'main:terraform/terraform.tfvars']), 'domain = "second.example.com"')
    t.equal(b.result.commit, head)
    t.equal((await api('GET', `/environments/${envId}`)).body.data.lastPush.commit, head, 'lastPush is the branch head')
    t.equal((await git.git('concurrent', ['rev-parse', 'main^'])).trim(), a.result.commit, 'the second push came after the first')
  })

  await t.test('a push whose Git part outlasts the lock lifetime keeps its lock and runs once', async (t) => {
    const envId = await envFor('slow')
    const held = holdFirstPush('slow')
    const job = await startPush(envId)
    await until(held.reached)
    const heldAt = Date.now()
    // Held until the job's heartbeat shows it kept its lock fresh for two lock lifetimes.
    await until(async () => ((await app.jobs.store.byId(job))?.heartbeatAt?.getTime() ?? 0) > heldAt + 2 * LOCK_LIFETIME_MS)
    held.release()
    const done = await waitForJob(url, dev, job)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.equal((await app.jobs.store.byId(job))?.attempts, 1, 'not taken over by another run')
    t.equal(await git.git('slow', ['rev-list', '--count', 'main']), '2\n', 'one commit on top of the first')
  })
})
