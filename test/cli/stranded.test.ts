// A stranded environment from a terminal: `ies env status` and `ies env get` name each stored value
// the current templates refuse, with its reason; `ies push --dry-run` shows what the templates'
// migrations change in the configuration beside the file diff, and the push applies it.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { startGitServer } from '../harness/git-server.ts'
import { oldDefaults, strandEnvironment } from '../harness/stranded.ts'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

const DEPLOY_KEY = 'iest_stranded_deploy_key_0123456789abcdef'

t.test('stranded environment in the CLI', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('old', { 'README.md': '# old\n' })
  const server = await startCliServer(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const ies = iesRunner(server, { ...PIPELINE_ENV, IES_DEPLOY_KEY: DEPLOY_KEY })
  const file = path.join(tempDir(t, 'ies-cli-stranded-'), 'old.yaml')
  writeFileSync(
    file,
    `name: old-db\nglobalPrefix: acme\nprovider: aws\nregion: eu-central-1\nservices:\n  vpc: { enabled: true }\n  eks: { enabled: true }\n  rds: { enabled: true }\ngitRepository:\n  url: ${git.url('old')}\n  branch: main\n`,
  )
  const applied = await ies.run(['apply', '-f', file, '--set-env', 'gitRepository.deployKey=IES_DEPLOY_KEY', '--json'])
  t.equal(applied.code, 0, applied.stderr)
  const fine = await ies.run(['env', 'status', 'old-db'])
  t.notMatch(fine.stdout, /Stranded/, 'an environment the templates accept is not stranded')

  const { id } = parseJson(await ies.run(['env', 'get', 'old-db', '--json'])) as { id: string }
  await strandEnvironment(server.app, id, oldDefaults({ engineVersion: '16.6' }))

  const status = await ies.run(['env', 'status', 'old-db'])
  t.equal(status.code, 0, status.stderr)
  t.match(
    status.stdout,
    /Stranded: +the current templates refuse 1 stored value:\n +services\.rds\.engineVersion: must be one of: "16", "17", "18"/,
  )
  t.match(status.stdout, /ies env update old-db --set <field>=<value>/)
  t.match((await ies.run(['env', 'list'])).stdout, /^old-db\s+owner\s+aws\s+eu-central-1\s+pending \(stranded\)\s/m, 'the list marks it')
  const json = parseJson(await ies.run(['env', 'status', 'old-db', '--json']))
  t.match(json.problems, [{ field: 'services.rds.engineVersion', message: /must be one of/ }], 'scripts read the problems')
  const get = await ies.run(['env', 'get', 'old-db'])
  t.match(get.stdout, /problems:\n\s+- field: services\.rds\.engineVersion/)
  t.match(get.stdout, /Stranded:/)
  const exported = await ies.run(['env', 'export', 'old-db'])
  t.equal(exported.code, 0, exported.stderr)
  t.notMatch(exported.stdout, /problems|migrations/, "the export holds configuration, not the server's judgement of it")

  const dry = await ies.run(['push', 'old-db', '--dry-run'])
  t.equal(dry.code, 0, dry.stderr)
  t.match(
    dry.stdout,
    /Would apply the templates' migrations 0001-eks-endpoint-private, 0002-postgresql-major-versions to the configuration:/,
  )
  t.match(dry.stdout, /services\.eks\.endpointPublicAccess: true -> false\n +services\.rds\.engineVersion: "16\.6" -> "16"/)
  t.match(dry.stdout, /Dry run: a push to main would change/)

  const pushed = await ies.run(['push', 'old-db'])
  t.equal(pushed.code, 0, pushed.stderr)
  t.match(pushed.stdout, /Applied the templates' migrations 0001-eks-endpoint-private, 0002-postgresql-major-versions/)
  const after = await ies.run(['env', 'status', 'old-db'])
  t.notMatch(after.stdout, /Stranded/, 'no longer stranded once migrated')
})
