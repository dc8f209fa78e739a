// What a push test starts with: a real Git server on loopback that asks for a deploy key, an IES
// server allowed to push there, the dev user's JSON calls to the API, and the customer's clone of a
// repository worked on with the git CLI.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts'
import { eventually } from './eventually.ts'
import { startGitServer, type GitServer } from './git-server.ts'
import { waitForJob } from './jobs.ts'

const run = promisify(execFile)

/** The user name a host expects beside a token (GitHub's, which the push sends with a deploy key). */
export const DEPLOY_KEY_USER = 'x-access-token'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** An API answer: its status and its JSON body. */
export interface ApiAnswer {
  status: number
  body: any
}

/** `method` on `/api<route>` with `headers`, the body sent as JSON. */
export function jsonApi(url: string, headers: Record<string, string>) {
  return async (method: string, route: string, body?: unknown): Promise<ApiAnswer> => {
    const res = await fetch(`${url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: (await res.json()) as any }
  }
}

export interface PushServer extends TestApp {
  git: GitServer
  /** The dev user's headers for a JSON request. */
  dev: Record<string, string>
  /** A call to the API as the dev user. */
  api: ReturnType<typeof jsonApi>
}

/**
 * A Git server whose repositories need `deployKey`, and an IES server that may push to it
 * (`PUSH_ALLOWED_HOSTS` loopback) with `env` beside; `env` as a function is given the Git server
 * first (a templates repository to serve as `TEMPLATES_REPO`). Both stop when the test ends.
 */
export async function startPushServer(
  t: Teardown,
  deployKey: string,
  env: Record<string, string> | ((git: GitServer) => Promise<Record<string, string>>) = {},
  opts: TestAppOptions = {},
): Promise<PushServer> {
  const git = await startGitServer({ username: DEPLOY_KEY_USER, password: deployKey })
  t.teardown(() => git.stop())
  const extra = typeof env === 'function' ? await env(git) : env
  const ies = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', ...extra }, opts)
  const dev = { ...ies.auth('dev'), 'content-type': 'application/json' }
  return { ...ies, git, dev, api: jsonApi(ies.url, dev) }
}

/**
 * An environment made from `body` with the repository `url` (branch main, `deployKey`), pushed once,
 * and pinned to the templates version that push used: its id and that version's commit.
 */
export async function pushedAndPinned(
  server: Pick<PushServer, 'api' | 'url' | 'dev'>,
  deployKey: string,
  url: string,
  body: Record<string, unknown>,
): Promise<{ id: string; templatesCommit: string }> {
  const expect = (answer: ApiAnswer, status: number, what: string) => {
    if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body
  }
  const made = expect(
    await server.api('POST', '/environments', { ...body, gitRepository: { url, branch: 'main', deployKey } }),
    201,
    'create',
  )
  const id = made.data.id as string
  const push = expect(await server.api('POST', `/environments/${id}/push`, {}), 202, 'push')
  const job = await waitForJob(server.url, server.dev, push.data.id)
  if (job.status !== 'succeeded') throw new Error(`the first push ${job.status}: ${JSON.stringify(job.error)}`)
  const templatesCommit = job.result.templatesCommit as string
  expect(await server.api('PUT', `/environments/${id}`, { templatesPin: templatesCommit }), 200, 'pin')
  return { id, templatesCommit }
}

/** The bulk upgrade's rollout `rolloutId` once it has ended (read every 100 ms, for a minute at most). */
export function rolloutEnded(api: PushServer['api'], rolloutId: string): Promise<any> {
  return eventually(
    async () => (await api('GET', `/environments/upgrade/${rolloutId}`)).body.data,
    (r) => r.status !== 'running',
    { timeoutMs: 60_000, intervalMs: 100 },
  )
}

export interface Checkout {
  dir: string
  /** git with the customer's name and the deploy key; its stdout. */
  git(...args: string[]): Promise<string>
  /** A file of the clone (a `/`-separated path). */
  read(file: string): Promise<string>
  write(file: string, text: string): Promise<void>
  edit(file: string, change: (text: string) => string): Promise<void>
  /** Commits every tracked change and pushes it to the branch cloned. */
  commitAndPush(message: string): Promise<void>
}

/** A clone of `repo` on `branch` with the git CLI, as the customer works on it (removed when the test ends). */
export async function checkout(t: Teardown, git: GitServer, deployKey: string, repo: string, branch = 'main'): Promise<Checkout> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `ies-clone-${repo}-`))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const basic = `Authorization: Basic ${Buffer.from(`${DEPLOY_KEY_USER}:${deployKey}`).toString('base64')}`
  const identity = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid', '-c', `http.extraHeader=${basic}`]
  const gitIn = async (...args: string[]) => (await run('git', [...identity, ...args], { cwd: dir })).stdout
  await gitIn('clone', '-q', '--branch', branch, git.url(repo), '.')
  const file = (p: string) => path.join(dir, ...p.split('/'))
  const read = (p: string) => readFile(file(p), 'utf8')
  const write = (p: string, text: string) => writeFile(file(p), text)
  return {
    dir,
    git: gitIn,
    read,
    write,
    edit: async (p, change) => write(p, change(await read(p))),
    commitAndPush: async (message) => {
      await gitIn('commit', '-q', '-am', message)
      await gitIn('push', '-q', 'origin', `HEAD:${branch}`)
    },
  }
}
