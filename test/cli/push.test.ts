// `ies push` against a real Git server (git http-backend with Basic auth): an environment applied from
// a file whose deploy key is write-only (a second apply leaves it alone), a push that lands on the
// branch (checked with the git CLI), a repeated push that changes nothing, and `--dry-run`, which
// never moves the branch: on a server whose push API accepts `dryRun` it prints the diff like
// `git diff --stat` plus hunks; on one that does not, it refuses before anything is queued.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { startGitServer } from '../harness/git-server.ts'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

const DEPLOY_KEY = 'iest_cli_deploy_key_0123456789abcdef'

t.test('push and push --dry-run', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('customer', { 'README.md': '# shop\n' })
  const server = await startCliServer(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const ies = iesRunner(server, PIPELINE_ENV)

  const file = path.join(tempDir(t, 'ies-cli-push-'), 'shop.yaml')
  writeFileSync(
    file,
    `name: shop
globalPrefix: acme
provider: aws
region: eu-central-1
services:
  vpc:
    enabled: true
gitRepository:
  url: ${git.url('customer')}
  branch: main
  deployKey: ${DEPLOY_KEY}
`,
  )
  const created = await ies.run(['apply', '-f', file, '--json'])
  t.equal(created.code, 0, created.stderr)
  t.match(parseJson(created), { created: 1 })
  t.notOk(created.stdout.includes(DEPLOY_KEY), 'the deploy key is not echoed')
  const again = await ies.run(['apply', '-f', file, '--json'])
  t.match(parseJson(again), { changed: false, unchanged: 1 }, 'a write-only deploy key the server holds is not re-sent')

  const before = (await git.git('customer', ['rev-parse', 'main'])).trim()
  const dry = await ies.run(['push', 'shop', '--dry-run'])
  t.equal((await git.git('customer', ['rev-parse', 'main'])).trim(), before, 'a dry run never moves the branch')
  const members = await (async () => {
    const { pushBodyMembers } = await import('../../cli/src/commands/push.ts')
    const { createApiClient } = await import('@ies/api')
    const { getClientCredentialsToken } = await import('../harness/identity.ts')
    const token = (await getClientCredentialsToken({ authUrl: server.idp.authUrl })).access_token
    return pushBodyMembers(createApiClient({ baseUrl: `${server.url}/api`, auth: { getToken: async () => token } }))
  })()
  t.ok(members.has('format') && members.has('generationJobId'), 'the push body is read from the live OpenAPI document')
  if (members.has('dryRun')) {
    t.equal(dry.code, 0, dry.stderr)
    t.match(dry.stdout, /Dry run: a push to main would change \d+ files?; nothing was pushed/)
    t.match(dry.stdout, /^ terraform\/\S+\s+\|\s+\d+ \+*/m, 'a --stat line per file')
    t.match(dry.stdout, /^ \d+ files? changed, \d+ insertions?\(\+\), \d+ deletions?\(-\)$/m, 'the --stat summary')
    t.match(dry.stdout, /^@@ /m, 'then the hunks')
    const json = parseJson(await ies.run(['push', 'shop', '--dry-run', '--json']))
    t.match(json.result, { dryRun: true, branch: 'main', changes: Array })
  } else {
    t.equal(dry.code, 1, 'a server without dry runs: refused, exit 1')
    t.match(dry.stderr, /UNSUPPORTED: .*dryRun.*nothing was pushed/)
  }

  const pushed = await ies.run(['push', 'shop', '--json'])
  t.equal(pushed.code, 0, pushed.stderr)
  const job = parseJson(pushed)
  t.match(job, { type: 'push', status: 'succeeded', result: { branch: 'main', changed: true, commit: /^[0-9a-f]{40}$/ } })
  t.equal((await git.git('customer', ['rev-parse', 'main'])).trim(), job.result.commit, 'the branch points at the pushed commit')
  const files = await git.git('customer', ['ls-tree', '-r', '--name-only', 'main'])
  t.match(files, /^terraform\/backend\.tf$/m, 'the full repository was pushed')

  const repeat = await ies.run(['push', 'shop'])
  t.equal(repeat.code, 0, repeat.stderr)
  t.match(repeat.stdout, /Nothing to push: main already holds these files/)
  if (members.has('strategy')) {
    // A configuration change, pushed to a new branch: the environment's branch stays where it was.
    t.equal((await ies.run(['env', 'update', 'shop', '--set', 'domain=shop.example.com'])).code, 0)
    const head = (await git.git('customer', ['rev-parse', 'main'])).trim()
    const branch = await ies.run(['push', 'shop', '--strategy', 'branch', '--json'])
    t.equal(branch.code, 0, branch.stderr)
    const result = parseJson(branch).result
    t.not(result.branch, 'main', `pushed to a branch of its own (${result.branch})`)
    t.equal((await git.git('customer', ['rev-parse', result.branch])).trim(), result.commit, 'which holds the pushed commit')
    t.equal((await git.git('customer', ['rev-parse', 'main'])).trim(), head, 'main did not move')
  }
  t.equal((await ies.run(['push', 'shop', '--strategy', 'sideways'])).code, 2, 'an unknown strategy is a usage error')
  t.notOk(ies.printed.join('').includes(DEPLOY_KEY), 'the deploy key was never printed')
})
