// The lifecycle from a terminal, against a real server and a real Git server: push with chosen parts
// (--include-*), env status (last push, behind), upgrade (--list, --dry-run, the pushes, exit 6 on a
// conflict, in waves that stop at it), jobs list and download, the credential commands (default, rotate, delete), and a wait
// that runs out (exit 7, at the deadline rather than the server's long poll).
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { startGitServer } from '../harness/git-server.ts'
import { unzip } from '../harness/jobs.ts'
import { assertNothingSecret, iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_lifecycle_deploy_key_0123456789abcdef'
const SECRET_ACCESS_KEY = 'lifecycleSecretAccessKey/abcdefghijklmnopq'
const IDENTITY = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid']

t.test('push, status, upgrade, jobs', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('life', { 'README.md': '# life\n' })
  const server = await startCliServer(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const ies = iesRunner(server, { ...PIPELINE_ENV, IES_DEPLOY_KEY: DEPLOY_KEY })
  const work = tempDir(t, 'ies-cli-life-')
  const file = path.join(work, 'life.yaml')
  writeFileSync(
    file,
    `name: life\nglobalPrefix: acme\nprovider: aws\nregion: eu-central-1\nservices:\n  vpc:\n    enabled: true\ngitRepository:\n  url: ${git.url('life')}\n  branch: main\n`,
  )
  const applied = await ies.run(['apply', '-f', file, '--set-env', 'gitRepository.deployKey=IES_DEPLOY_KEY'])
  t.equal(applied.code, 0, applied.stderr)
  const head = async () => (await git.git('life', ['rev-parse', 'main'])).trim()

  const never = await ies.run(['env', 'status', 'life'])
  t.equal(never.code, 0, never.stderr)
  t.match(never.stdout, /Never pushed\./)

  const pushed = await ies.run(['push', 'life', '--include-backend', '--json'])
  t.equal(pushed.code, 0, pushed.stderr)
  const job = parseJson(pushed)
  const tree = await git.git('life', ['ls-tree', '-r', '--name-only', 'main'])
  t.match(tree, /^terraform\/backend\.tf$/m, '--include-backend: the backend')
  t.notMatch(tree, /^charts\//m, 'and only the parts named: no chart values')

  const status = parseJson(await ies.run(['env', 'status', 'life', '--json']))
  t.match(status, {
    name: 'life',
    lastPush: { commit: job.result.commit, branch: 'main' },
    behind: { templates: false, configuration: false },
  })
  t.match((await ies.run(['upgrade', '--list'])).stdout, /Every pushed environment is up to date\./)
  t.match((await ies.run(['upgrade'])).stdout, /up to date/, 'nothing behind: nothing queued')

  t.equal((await ies.run(['env', 'update', 'life', '--set', 'domain=one.example.com'])).code, 0)
  t.match((await ies.run(['env', 'status', 'life'])).stdout, /Behind: +configuration/)
  const listed = await ies.run(['upgrade', '--list'])
  t.match(listed.stdout, /^life\s+configuration\s/m, 'upgrade --list names it and why')
  const before = await head()
  const preview = await ies.run(['upgrade', '--dry-run', '--json'])
  t.equal(preview.code, 0, preview.stderr)
  t.match(parseJson(preview), { dryRun: true, environments: [{ name: 'life', status: 'succeeded', result: { dryRun: true } }] })
  t.equal(await head(), before, 'a dry run moves nothing')
  const upgraded = await ies.run(['upgrade'])
  t.equal(upgraded.code, 0, upgraded.stderr)
  t.match(upgraded.stdout, /^life:\nPushed \d+ files to main/m)
  t.not(await head(), before, 'the upgrade pushed')
  t.match(await git.git('life', ['show', 'main:terraform/terraform.tfvars']), 'domain = "one.example.com"')
  t.same(parseJson(await ies.run(['upgrade', '--list', '--json'])), [], 'then nothing is behind')

  // The customer changes the line the next push changes too: a conflict, exit 6.
  const clone = mkdtempSync(path.join(tmpdir(), 'ies-cli-customer-'))
  t.teardown(() => run('rm', ['-rf', clone]))
  const inClone = (...args: string[]) => run('git', [...IDENTITY, ...args], { cwd: clone })
  await inClone('clone', '-q', git.url('life', true), '.')
  const tfvars = path.join(clone, 'terraform', 'terraform.tfvars')
  writeFileSync(tfvars, readFileSync(tfvars, 'utf8').replace('domain = "one.example.com"', 'domain = "customer.example.com"'))
  await inClone('commit', '-qam', 'our domain')
  await inClone('push', '-q', 'origin', 'HEAD:main')
  t.equal((await ies.run(['env', 'update', 'life', '--set', 'domain=two.example.com'])).code, 0)
  const conflict = await ies.run(['push', 'life'])
  t.equal(conflict.code, 6, 'a push conflict: exit 6')
  t.match(conflict.stderr, /PUSH_CONFLICT/)
  t.match(conflict.stderr, /terraform\/terraform\.tfvars/)
  const conflictJson = await ies.run(['push', 'life', '--json'])
  t.equal(conflictJson.code, 6)
  t.match(parseJson(conflictJson), { type: 'push', status: 'failed', error: { code: 'PUSH_CONFLICT' } }, '--json: the failed job on stdout')
  t.match(JSON.parse(conflictJson.stderr), { error: { code: 'PUSH_CONFLICT' } }, 'and the error on stderr')
  const bulk = await ies.run(['upgrade'])
  t.equal(bulk.code, 6, 'an upgrade that meets a conflict: exit 6')
  t.match(bulk.stdout, /^life:\n {2}PUSH_CONFLICT: /m)
  // In waves: the preview of the first wave meets the conflict; the rollout stops before any push.
  const waves = await ies.run(['upgrade', '--select', 'li*', '--wave', 'life', '--wave', '*'])
  t.equal(waves.code, 6, `a wave stopped at a conflict: exit 6 (${waves.stderr})`)
  t.match(waves.stdout, /^wave 1 \(life\): stopped\n {2}life: conflict: conflicts in terraform\/terraform\.tfvars$/m)
  t.match(waves.stdout, /^wave 2 \(\*\): pending$/m)
  t.match(waves.stderr, /UPGRADE_STOPPED: the upgrade stopped at wave 1: life: /)
  // Without its deploy key the environment cannot be pushed: the upgrade skips it and says so, exit 1.
  t.equal((await ies.run(['env', 'update', 'life', '--set', 'gitRepository.deployKey=null'])).code, 0)
  const skipped = await ies.run(['upgrade'])
  t.equal(skipped.code, 1, skipped.stderr)
  t.match(skipped.stdout, /^life: skipped \(The environment has no deploy key to push with\)$/m)
  t.match(skipped.stderr, /UPGRADE_FAILED: 1 skipped/)
  t.equal((await ies.run(['env', 'update', 'life', '--set-env', 'gitRepository.deployKey=IES_DEPLOY_KEY'])).code, 0)
  const review = await ies.run(['upgrade', '--strategy', 'branch', '--json'])
  t.equal(review.code, 0, review.stderr)
  t.not(parseJson(review).environments[0].result.branch, 'main', 'strategy branch: the merge goes to a branch for review')

  const jobs = parseJson(await ies.run(['jobs', 'list', 'life', '--json']))
  t.ok(jobs.length >= 5, `the environment's jobs (${jobs.length})`)
  t.equal(jobs[0].id, parseJson(review).environments[0].jobId, 'newest first')
  t.equal(parseJson(await ies.run(['jobs', 'list', 'life', '--limit', '2', '--json'])).length, 2, '--limit')
  t.match((await ies.run(['jobs', 'list', 'life'])).stdout, /^ID\s+TYPE\s+STATUS\s+CREATED\s+FINISHED\s+ERROR$/m)
  t.equal((await ies.run(['jobs', 'list', 'life', '--limit', '0'])).code, 2, 'a bad --limit: usage')

  const queued = parseJson(await ies.run(['generate', 'life', '--no-wait', '--json']))
  t.equal((await ies.run(['jobs', 'wait', queued.id])).code, 0)
  const zip = path.join(work, 'life.zip')
  const downloaded = await ies.run(['jobs', 'download', queued.id, '-o', zip, '--json'])
  t.equal(downloaded.code, 0, downloaded.stderr)
  t.match(parseJson(downloaded), { jobId: queued.id, out: zip })
  t.ok((await unzip(readFileSync(zip))).has('terraform/main.tf'), 'the archive of the job')
  t.equal((await ies.run(['jobs', 'download', job.id])).code, 4, 'a push job has no archive: not found')
  assertNothingSecret(t, ies, [DEPLOY_KEY])
})

t.test('credentials: default, rotate, delete', async (t) => {
  const server = await startCliServer(t, { AWS_ENDPOINT_URL: 'http://127.0.0.1:9' })
  const ies = iesRunner(server, PIPELINE_ENV)
  const work = tempDir(t, 'ies-cli-cred-')
  const secrets = (name: string, secret: string) => {
    const p = path.join(work, name)
    writeFileSync(p, `accessKeyId: AKIALIFECYCLE0123456\nsecretAccessKey: ${secret}\n`)
    return p
  }
  for (const name of ['aws-one', 'aws-two']) {
    const created = await ies.run([
      'credentials',
      'create',
      '--name',
      name,
      '--provider',
      'aws',
      '--from-file',
      secrets('a.yaml', SECRET_ACCESS_KEY),
    ])
    t.equal(created.code, 0, created.stderr)
  }
  const made = await ies.run(['credentials', 'default', 'aws-two'])
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, /aws-two is now the default aws credential/)
  const list = parseJson(await ies.run(['credentials', 'list', '--json']))
  t.same(
    list.filter((c: any) => c.isDefault).map((c: any) => c.name),
    ['aws-two'],
  )

  const rotated = await ies.run(['credentials', 'rotate', 'aws-one', '--from-file', secrets('b.yaml', `${SECRET_ACCESS_KEY}-rotated`)])
  t.equal(rotated.code, 0, rotated.stderr)
  t.match(rotated.stdout, /Rotated aws credential aws-one/)
  const again = await ies.run(['credentials', 'rotate', 'aws-one', '--from-file', path.join(work, 'b.yaml'), '--json'])
  t.equal(again.code, 0, again.stderr)
  t.match(parseJson(again), { name: 'aws-one', updatedAt: String }, 'the credential as the API answers, without its secret')
  t.equal((await ies.run(['credentials', 'rotate', 'aws-one'])).code, 2, 'no file and no terminal: usage')

  const env = path.join(work, 'uses.yaml')
  writeFileSync(env, 'name: uses-cred\nglobalPrefix: acme\nprovider: aws\nregion: eu-west-1\ncloudCredential: aws-one\n')
  t.equal((await ies.run(['apply', '-f', env])).code, 0)
  const inUse = await ies.run(['credentials', 'delete', 'aws-one', '--yes'])
  t.equal(inUse.code, 1)
  t.match(inUse.stderr, /CREDENTIAL_IN_USE/)
  t.match(inUse.stderr, /uses-cred/)
  t.equal((await ies.run(['credentials', 'delete', 'aws-two'])).code, 2, 'without --yes off a terminal: usage')
  const deleted = await ies.run(['credentials', 'delete', 'aws-two', '--yes', '--json'])
  t.equal(deleted.code, 0, deleted.stderr)
  t.match(parseJson(deleted), { name: 'aws-two', deleted: true })
  t.equal((await ies.run(['credentials', 'default', 'aws-two'])).code, 4, 'gone')
  assertNothingSecret(t, ies, [SECRET_ACCESS_KEY])
})

t.test('a wait that runs out: exit 7 at the deadline, the job goes on', async (t) => {
  // A replica that runs no jobs: the job stays queued; the server's long poll would hold for a minute.
  const server = await startCliServer(t, { JOBS_PROCESS: 'false', JOBS_WAIT_TIMEOUT_MS: '60000' })
  const ies = iesRunner(server, PIPELINE_ENV)
  const env = path.join(tempDir(t, 'ies-cli-timeout-'), 'slow.yaml')
  writeFileSync(env, 'name: slow\nglobalPrefix: acme\nprovider: aws\nregion: eu-west-1\n')
  t.equal((await ies.run(['apply', '-f', env])).code, 0)
  const started = Date.now()
  const run = await ies.run(['generate', 'slow', '--timeout', '1'])
  const took = Date.now() - started
  t.equal(run.code, 7, 'a timeout: exit 7')
  t.match(run.stderr, /TIMEOUT: Job \S+ is still queued after 1 s; it goes on \(ies jobs wait \S+\)/)
  t.ok(took < 20_000, `ended at its deadline, not the server's (${took} ms)`)
  t.equal((await ies.run(['generate', 'slow', '--timeout', 'soon'])).code, 2, 'a bad --timeout: usage')
})
