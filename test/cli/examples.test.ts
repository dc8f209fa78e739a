// Every file of examples/envs applied against a real server as its comments say: the cloud
// credentials it names created first, the deploy key given from an IES_* variable (never from the
// file), a second apply of the folder changes nothing. And the ways a value reaches a field from
// outside a file: --set-env (IES_* variables only), --set-file, and the warning for a key in a file.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parseAllDocuments } from 'yaml'
import { assertNothingSecret, iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/envs')
const DEPLOY_KEY = 'iest_examples_deploy_key_0123456789abcdef'
const SECRET_ACCESS_KEY = 'examplesSecretAccessKey/abcdefghijklmnopqrst'

const files = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f))
const documents = (file: string) =>
  parseAllDocuments(readFileSync(path.join(EXAMPLES, file), 'utf8')).map((d) => d.toJS() as Record<string, any>)

t.test('the examples are what the docs promise', async (t) => {
  t.ok(files.includes('shop-dev.yaml'), 'shop-dev.yaml, the quick start’s file')
  const all = files.flatMap(documents)
  t.ok(all.length >= 3, 'several environments')
  t.ok(
    all.some((e) => Object.values(e.services ?? {}).filter((s: any) => s.enabled).length >= 5),
    'one with several services',
  )
  t.ok(
    all.some((e) => e.gitRepository?.url),
    'one with a Git repository',
  )
  t.notOk(
    all.some((e) => e.gitRepository?.deployKey),
    'and no deploy key in any file',
  )
  t.ok(
    all.some((e) => typeof e.cloudCredential === 'string'),
    'a cloud credential by name',
  )
  t.ok(
    all.some((e) => Object.values(e.helmCharts ?? {}).some((c: any) => c.values)),
    'chart values',
  )
  for (const file of files) t.match(readFileSync(path.join(EXAMPLES, file), 'utf8'), /^# /, `${file} is annotated`)
})

t.test('every example applies against a real server', async (t) => {
  const server = await startCliServer(t)
  const ies = iesRunner(server, PIPELINE_ENV)
  const work = tempDir(t, 'ies-cli-examples-')
  const secrets = path.join(work, 'aws.yaml')
  writeFileSync(secrets, `accessKeyId: AKIAEXAMPLES01234567\nsecretAccessKey: ${SECRET_ACCESS_KEY}\nregion: eu-central-1\n`)
  const names = [...new Set(files.flatMap(documents).flatMap((e) => (typeof e.cloudCredential === 'string' ? [e.cloudCredential] : [])))]
  for (const name of names) {
    const created = await ies.run(['credentials', 'create', '--name', name, '--provider', 'aws', '--from-file', secrets])
    t.equal(created.code, 0, `credential ${name}: ${created.stderr}`)
  }

  const withKey = { IES_DEPLOY_KEY: DEPLOY_KEY }
  for (const file of files) {
    const target = path.join(EXAMPLES, file)
    const needsKey = documents(file).some((e) => e.gitRepository)
    const extra = needsKey ? ['--set-env', 'gitRepository.deployKey=IES_DEPLOY_KEY'] : []
    const dry = await ies.run(['apply', '-f', target, ...extra, '--dry-run', '--json'], withKey)
    t.equal(dry.code, 0, `${file} dry run: ${dry.stderr}`)
    t.match(parseJson(dry), { dryRun: true, created: documents(file).length })
    const applied = await ies.run(['apply', '-f', target, ...extra], withKey)
    t.equal(applied.code, 0, `${file}: ${applied.stderr}`)
    t.equal(applied.stderr, '', `${file}: no warning`)
    t.match(applied.stdout, new RegExp(`Applied: ${documents(file).length} created`))
  }

  const prod = parseJson(await ies.run(['env', 'get', 'shop-prod', '--json']))
  t.match(prod.gitRepository, { url: /^https:/, hasDeployKey: true }, 'the deploy key reached the server')
  const dev = parseJson(await ies.run(['env', 'get', 'shop-dev', '--json']))
  const credentials = parseJson(await ies.run(['credentials', 'list', '--json']))
  t.equal(dev.cloudCredentialId, credentials.find((c: any) => c.name === 'aws-dev')?.id, 'the credential named in shop-dev.yaml')
  t.match(dev.services, { vpc: { enabled: true }, eks: { enabled: true }, rds: { enabled: true } })

  const again = await ies.run(['apply', '-f', EXAMPLES, '--json'])
  t.equal(again.code, 0, again.stderr)
  t.match(parseJson(again), { changed: false, created: 0, updated: 0 }, 'the folder again, without the key: nothing changes')

  const generated = await ies.run(['generate', 'shop-dev', '--json'])
  t.equal(generated.code, 0, generated.stderr)
  t.match(parseJson(generated), { status: 'succeeded' }, 'shop-dev generates')
  assertNothingSecret(t, ies, [DEPLOY_KEY, SECRET_ACCESS_KEY])
})

t.test('values from outside the file', async (t) => {
  const server = await startCliServer(t)
  const ies = iesRunner(server, PIPELINE_ENV)
  const work = tempDir(t, 'ies-cli-set-')
  const env = path.join(work, 'env.yaml')
  writeFileSync(
    env,
    'name: set-env\nglobalPrefix: acme\nprovider: aws\nregion: eu-west-1\ngitRepository:\n  url: https://git.example.com/acme/set.git\n',
  )

  const other = await ies.run(['apply', '-f', env, '--set-env', 'gitRepository.deployKey=HOME'])
  t.equal(other.code, 2, 'only IES_* variables')
  t.match(other.stderr, /must be named IES_\*/)
  const unset = await ies.run(['apply', '-f', env, '--set-env', 'gitRepository.deployKey=IES_NOT_SET'])
  t.equal(unset.code, 2)
  t.match(unset.stderr, /IES_NOT_SET is not set/)
  t.equal((await ies.run(['env', 'list', '--json'])).stdout.trim(), '[]', 'nothing was created')

  const keyFile = path.join(work, 'deploy-key')
  writeFileSync(keyFile, `${DEPLOY_KEY}\n`)
  const fromFile = await ies.run([
    'apply',
    '-f',
    env,
    '--set-file',
    `gitRepository.deployKey=${keyFile}`,
    '--set',
    'domain=set.example.com',
  ])
  t.equal(fromFile.code, 0, fromFile.stderr)
  t.match(parseJson(await ies.run(['env', 'get', 'set-env', '--json'])), {
    domain: 'set.example.com',
    gitRepository: { hasDeployKey: true },
  })
  t.equal((await ies.run(['apply', '-f', env, '--set-file', `gitRepository.deployKey=${path.join(work, 'nope')}`])).code, 2)

  const committed = path.join(work, 'committed.yaml')
  writeFileSync(committed, `${readFileSync(env, 'utf8')}  deployKey: ${DEPLOY_KEY}\n`)
  const warned = await ies.run(['apply', '-f', committed])
  t.equal(warned.code, 0, warned.stderr)
  t.match(warned.stderr, /committed\.yaml holds a deploy key; keep it out of version control/)
  t.notOk(ies.printed.join('').includes(DEPLOY_KEY), 'the key was never printed')
})
