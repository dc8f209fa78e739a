// Push failures against a real Git server (git http-backend behind a loopback server with Basic auth):
// each ends the job with its documented code and a sentence the user can act on, the server log
// carries the underlying cause for the operator, and neither ever holds the deploy key (nor the
// Basic header made from it). Also: the classification of network and TLS failures that no local
// server produces (DNS, timeouts, certificates), and an unexpected failure that stays INTERNAL_ERROR
// for the user while its real cause, redacted, reaches the log.
import { chmod, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import t, { type Test } from 'tap'
import { jobErrorOf } from '../../../../server/src/jobs/queue/errors.ts'
import { JobFailure } from '../../../../server/src/core/job-failure.ts'
import { credentialSecrets } from '../../../../server/src/core/redaction.ts'
import { remoteFailure } from '../../../../server/src/jobs/push/remote-failure.ts'
import { startTestApp } from '../../../harness/app.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'
import { logLines } from '../../../harness/log-lines.ts'

const USERNAME = 'x-access-token'
const DEPLOY_KEY = 'iest_cHVzaC1lcnJvcnMtZGVwbG95LWtleQ'
const WRONG_KEY = 'iest_d3Jvbmcta2V5LWZvci1wdXNoLWVycm9ycw'
/** Every form a key could leak in: as is, URL-encoded, and inside the Basic header. */
const leaks = (key: string) => [key, encodeURIComponent(key), Buffer.from(`${USERNAME}:${key}`).toString('base64')]
const SECRETS = [...leaks(DEPLOY_KEY), ...leaks(WRONG_KEY)]

/** A port nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

t.test('push failures', async (t) => {
  const git = await startGitServer({ username: USERNAME, password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const { lines, logStream } = logLines()
  const { app, url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'trace' }, { logStream })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const gitPort = new URL(git.baseUrl).port
  const remote = await git.createRepo('customer', { 'README.md': '# shop\n' })

  /** Runs a push of a new environment with this repository; the finished job, its stored record and the log lines about it. */
  const pushWith = async (name: string, repoUrl: string, deployKey = DEPLOY_KEY) => {
    const body = { ...environmentBody({ name }), gitRepository: { url: repoUrl, branch: 'main', deployKey } }
    const created = await fetch(`${url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(body) })
    const env = ((await created.json()) as any).data
    if (created.status !== 201) throw new Error(`environment ${name}: ${created.status} ${JSON.stringify(env)}`)
    const res = await fetch(`${url}/api/environments/${env.id}/push`, { method: 'POST', headers: dev, body: '{}' })
    const queued = (await res.json()) as any
    if (res.status !== 202) throw new Error(`push ${name}: ${res.status} ${JSON.stringify(queued)}`)
    const done = await waitForJob(url, dev, queued.data.id)
    const stored = await app.jobs.store.byId(done.id)
    return { done, stored, log: lines.filter((l) => l.includes(`"jobId":"${done.id}"`)).join('\n') }
  }

  /** The job failed with `code`, its message matches, the log about it shows the cause, and no key is anywhere. */
  const expectFailure = (t: Test, outcome: Awaited<ReturnType<typeof pushWith>>, code: string, message: RegExp, cause: RegExp[]) => {
    const { done, stored, log } = outcome
    t.equal(done.status, 'failed')
    t.equal(done.error?.code, code, JSON.stringify(done.error))
    t.match(done.error?.message, message)
    t.not(log, '', 'the failure is logged with the job id')
    for (const c of cause) t.match(log, c, `the log has the cause (${c})`)
    const everything = [JSON.stringify(done), JSON.stringify(stored), lines.join('\n')].join('\n')
    for (const secret of SECRETS)
      t.notOk(everything.includes(secret), `no ${secret.slice(0, 12)}… in the job, the stored record or the log`)
  }

  await t.test('a closed port: GIT_UNREACHABLE, connection refused', async (t) => {
    const port = await closedPort()
    const outcome = await pushWith('push-closed-port', `http://127.0.0.1:${port}/x.git`)
    expectFailure(t, outcome, 'GIT_UNREACHABLE', new RegExp(`^Could not connect to 127\\.0\\.0\\.1:${port}: connection refused$`), [
      /ECONNREFUSED/,
      /"level":40/,
    ])
  })

  await t.test('https:// to a plain-HTTP Git server: GIT_UNREACHABLE, TLS handshake failed', async (t) => {
    const outcome = await pushWith('push-tls', `https://127.0.0.1:${gitPort}/customer.git`)
    expectFailure(t, outcome, 'GIT_UNREACHABLE', new RegExp(`^Could not connect to 127\\.0\\.0\\.1:${gitPort}: the TLS handshake failed`), [
      /EPROTO/,
      /wrong version number/,
    ])
  })

  await t.test('a wrong access token (401): GIT_UNAUTHORIZED, the server refused the credentials', async (t) => {
    const outcome = await pushWith('push-401', remote, WRONG_KEY)
    expectFailure(t, outcome, 'GIT_UNAUTHORIZED', new RegExp(`^The Git server at 127\\.0\\.0\\.1:${gitPort} refused the credentials`), [
      /UserCanceledError/,
      /401/,
    ])
  })

  await t.test('a token without push rights (403 on receive-pack): GIT_UNAUTHORIZED', async (t) => {
    const readOnly = await git.createRepo('read-only', { 'README.md': '# shop\n' })
    await git.git('read-only', ['config', 'http.receivepack', 'false'])
    const outcome = await pushWith('push-403', readOnly)
    expectFailure(t, outcome, 'GIT_UNAUTHORIZED', /refused the credentials \(HTTP 403 Forbidden\)/, [/HttpError/, /403/])
  })

  await t.test('an unknown repository path (404): GIT_REPOSITORY_NOT_FOUND', async (t) => {
    const outcome = await pushWith('push-404', `${git.baseUrl}/missing/shop.git`)
    expectFailure(
      t,
      outcome,
      'GIT_REPOSITORY_NOT_FOUND',
      new RegExp(`^The Git server at 127\\.0\\.0\\.1:${gitPort} has no repository /missing/shop\\.git`),
      [/HttpError/, /404/],
    )
  })

  await t.test('a push the server declines (pre-receive hook): GIT_PUSH_REJECTED', async (t) => {
    const hooked = await git.createRepo('hooked', { 'README.md': '# shop\n' })
    const hook = path.join(git.reposDir, 'hooked.git', 'hooks', 'pre-receive')
    await writeFile(hook, '#!/bin/sh\necho "branch main is protected" >&2\nexit 1\n')
    await chmod(hook, 0o755)
    const outcome = await pushWith('push-declined', hooked)
    expectFailure(t, outcome, 'GIT_PUSH_REJECTED', /^The Git server refused the push to refs\/heads\/main: pre-receive hook declined/, [
      /GitPushError/,
    ])
  })

  await t.test('an unexpected failure: INTERNAL_ERROR for the user, the real cause (redacted) in the log', async (t) => {
    const env = await fetch(`${url}/api/environments`, {
      method: 'POST',
      headers: dev,
      body: JSON.stringify({
        ...environmentBody({ name: 'push-unexpected' }),
        gitRepository: { url: remote, branch: 'main', deployKey: DEPLOY_KEY },
      }),
    }).then(async (r) => ((await r.json()) as any).data)
    // The author's name is read after the deploy key; reading it fails with the key in the message and in the cause.
    const push = app.jobs['opts' as keyof typeof app.jobs] as unknown as { config: { push: Record<string, unknown> } }
    const name = push.config.push.authorName
    Object.defineProperty(push.config.push, 'authorName', {
      configurable: true,
      get() {
        throw new Error(`author lookup failed for ${DEPLOY_KEY}`, {
          cause: Object.assign(new Error(`socket closed (key ${DEPLOY_KEY})`), { code: 'ESOCKETCLOSED' }),
        })
      },
    })
    let done
    try {
      const res = await fetch(`${url}/api/environments/${env.id}/push`, { method: 'POST', headers: dev, body: '{}' })
      done = await waitForJob(url, dev, ((await res.json()) as any).data.id)
    } finally {
      Object.defineProperty(push.config.push, 'authorName', { configurable: true, writable: true, enumerable: true, value: name })
    }
    t.same(done.error, { code: 'INTERNAL_ERROR', message: 'The job failed unexpectedly' })
    const log = lines.filter((l) => l.includes(`"jobId":"${done.id}"`)).join('\n')
    t.match(log, /"level":50/)
    t.match(log, /author lookup failed for \[redacted\]/)
    t.match(log, /socket closed \(key \[redacted\]\)/, 'the cause chain is logged')
    t.match(log, /ESOCKETCLOSED/)
    t.notMatch(log, 'The job failed unexpectedly', 'the log has the real message, not the generic one')
    for (const secret of SECRETS) t.notOk(lines.join('\n').includes(secret), `no ${secret.slice(0, 12)}… in the log`)
  })
})

t.test('network and TLS failures no local server produces', async (t) => {
  const url = 'https://git.example.com/acme/shop.git'
  const netError = (code: string, message = `connect ${code}`) => Object.assign(new Error(message), { code })
  const cases: [unknown, string, string][] = [
    [
      netError('ENOTFOUND', 'getaddrinfo ENOTFOUND git.example.com'),
      'GIT_UNREACHABLE',
      'Could not connect to git.example.com:443: the host name does not resolve',
    ],
    [netError('EAI_AGAIN'), 'GIT_UNREACHABLE', 'Could not connect to git.example.com:443: the DNS lookup failed'],
    [netError('ETIMEDOUT'), 'GIT_UNREACHABLE', 'Could not connect to git.example.com:443: the connection timed out'],
    [netError('ECONNRESET', 'socket hang up'), 'GIT_UNREACHABLE', 'Could not connect to git.example.com:443: the connection was reset'],
    [netError('EHOSTUNREACH'), 'GIT_UNREACHABLE', 'Could not connect to git.example.com:443: the host is unreachable'],
    [
      netError('CERT_HAS_EXPIRED', 'certificate has expired'),
      'GIT_UNREACHABLE',
      'Could not connect to git.example.com:443: its TLS certificate has expired',
    ],
    [
      netError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      'GIT_UNREACHABLE',
      'Could not connect to git.example.com:443: its TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)',
    ],
    [
      netError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      'GIT_UNREACHABLE',
      'Could not connect to git.example.com:443: its TLS certificate is not for this host',
    ],
    // Node's happy-eyeballs connect reports every address it tried.
    [
      new AggregateError([netError('ECONNREFUSED'), netError('ECONNREFUSED')]),
      'GIT_UNREACHABLE',
      'Could not connect to git.example.com:443: connection refused',
    ],
    [
      Object.assign(new Error('HTTP Error: 502 Bad Gateway'), {
        code: 'HttpError',
        data: { statusCode: 502, statusMessage: 'Bad Gateway', response: '' },
      }),
      'GIT_FAILED',
      'The Git server at git.example.com:443 answered HTTP 502 Bad Gateway',
    ],
  ]
  for (const [err, code, message] of cases) {
    const failure = remoteFailure(err, url, 'main')
    t.ok(failure instanceof JobFailure, message)
    t.same(jobErrorOf(failure).error, { code, message })
    t.equal(jobErrorOf(failure).unexpected, false)
  }
  t.equal(remoteFailure(new TypeError('x is undefined'), url, 'main'), undefined, 'a programming error is left unexpected')
})

t.test('the cause of an unexpected error is logged redacted, cause chain included', async (t) => {
  const key = 'iest_c2VjcmV0'
  const basic = Buffer.from(`${USERNAME}:${key}`).toString('base64')
  const err = new Error(`outer ${key}`, {
    cause: Object.assign(new Error(`inner Basic ${basic}`), { code: 'EINNER', cause: `text ${encodeURIComponent(key)}` }),
  })
  const { error, unexpected, cause } = jobErrorOf(err, credentialSecrets(USERNAME, key))
  t.same(error, { code: 'INTERNAL_ERROR', message: 'The job failed unexpectedly' })
  t.equal(unexpected, true)
  const text = JSON.stringify(cause)
  t.match(cause, {
    name: 'Error',
    message: 'outer [redacted]',
    cause: { message: 'inner Basic [redacted]', code: 'EINNER', cause: { message: 'text [redacted]' } },
  })
  t.notOk(text.includes(key) || text.includes(basic), 'no key in any form')
})
