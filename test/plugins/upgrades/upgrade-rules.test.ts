// The organisation's rules judge what an upgrade would push: the configuration after the migrations
// of the version it upgrades to, not of the version the environment is pinned to. A production
// environment pinned to the templates before a migration that turns its EKS endpoint public is
// skipped by an upgrade to that migration's version, naming the rule, and planned into a wave by an
// upgrade to the version it is on.
import { execFile } from 'node:child_process'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../harness/app.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { eventually } from '../../harness/eventually.ts'
import { environmentBody, waitForJob } from '../../harness/jobs.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_dXBncmFkZS1ydWxlcy1kZXBsb3kta2V5'
const BASIC = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
const IDENTITY = ['-c', 'user.name=Author', '-c', 'user.email=author@example.invalid', '-c', `http.extraHeader=${BASIC}`]

/** A migration the newer templates add: an endpoint with an allow-list becomes public. */
const PUBLIC_ENDPOINT = `id: 0900-eks-endpoint-public-with-allow-list
description: An EKS endpoint with an allow-list of CIDR blocks is made public.
steps:
  - default:
      path: services.eks.endpointPublicAccess
      from: false
      to: true
      when:
        services.eks.publicAccessCidrs: ["203.0.113.0/24"]
`

t.test("an upgrade is judged on the target version's migrations", async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
  const { url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_REPO: git.url('templates', true) })
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: (await res.json()) as any }
  }

  await git.createRepo('shop-prod', {})
  const services = {
    vpc: { enabled: true, singleNatGateway: false },
    eks: { enabled: true, endpointPublicAccess: false, publicAccessCidrs: '203.0.113.0/24' },
  }
  const made = await api('POST', '/environments', {
    ...environmentBody({ name: 'shop-prod', labels: { tier: 'production' }, services }),
    gitRepository: { url: git.url('shop-prod'), branch: 'main', deployKey: DEPLOY_KEY },
  })
  t.equal(made.status, 201, JSON.stringify(made.body))
  const id = made.body.data.id as string
  const pushed = await api('POST', `/environments/${id}/push`, {})
  t.equal(pushed.status, 202, JSON.stringify(pushed.body))
  const first = await waitForJob(url, headers, pushed.body.data.id)
  t.equal(first.status, 'succeeded', JSON.stringify(first.error))
  const before = first.result.templatesCommit as string
  t.equal((await api('PUT', `/environments/${id}`, { templatesPin: before })).status, 200)

  // The template author adds the migration: a commit on the templates repository.
  const author = await mkdtemp(path.join(os.tmpdir(), 'ies-upgrade-rules-'))
  t.teardown(() => rm(author, { recursive: true, force: true }))
  const gitIn = async (...args: string[]) => (await run('git', [...IDENTITY, ...args], { cwd: author })).stdout
  await gitIn('clone', '-q', git.url('templates'), '.')
  await mkdir(path.join(author, 'migrations'), { recursive: true })
  await writeFile(path.join(author, 'migrations', '0900-eks-endpoint-public-with-allow-list.yaml'), PUBLIC_ENDPOINT)
  await gitIn('add', 'migrations')
  await gitIn('commit', '-q', '-m', 'templates: a migration that makes an allow-listed endpoint public')
  await gitIn('push', '-q', 'origin', 'HEAD:main')
  const after = (await gitIn('rev-parse', 'HEAD')).trim()

  const upgrade = async (to: string) => {
    const started = await api('POST', '/environments/upgrade', { ids: [id], to })
    t.equal(started.status, 202, JSON.stringify(started.body))
    return eventually(
      async () => (await api('GET', `/environments/upgrade/${started.body.data.rolloutId}`)).body.data,
      (r) => r.status !== 'running',
      { timeoutMs: 60_000, intervalMs: 100 },
    )
  }

  const refused = await upgrade(after)
  t.match(refused.skipped, [{ name: 'shop-prod', reason: /^the organisation's rules refuse it: .*eks_private_endpoint/ }])
  t.same(
    refused.waves.flatMap((w: any) => w.environments),
    [],
    'the migrated configuration is refused: nothing is pushed',
  )
  const stored = (await api('GET', `/environments/${id}`)).body.data
  t.equal(stored.templatesPin, before, 'the pin stays where it was')

  const same = await upgrade(before)
  t.same(same.skipped, [], 'at the version it is on, no migration turns the endpoint public')
  t.same(
    same.waves.flatMap((w: any) => w.environments.map((e: any) => e.name)),
    ['shop-prod'],
  )
})
