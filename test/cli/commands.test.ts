// `ies` from a pipeline: client credentials from the environment, environments as code (apply twice:
// the second changes nothing and exits 0), export round trip, the env commands, generate --wait --out
// with a real zip, catalog, credentials, --json shapes, and an exit code for each class of error.
import { readdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer } from './helpers.ts'
import { TEST_CLI_SECRET } from '../harness/identity.ts'
import { unzip } from '../jobs/fixtures.ts'

const work = mkdtempSync(path.join(tmpdir(), 'ies-cli-files-'))
const file = (name: string, text: string) => {
  const p = path.join(work, name)
  writeFileSync(p, text)
  return p
}

const SECRET_ACCESS_KEY = 'cliTestSecretAccessKey/abcdefghijklmnopqrstu'

t.test('from a pipeline', async (t) => {
  // A closed port: credential checks fail at once instead of reaching for AWS.
  const server = await startCliServer(t, { AWS_ENDPOINT_URL: 'http://127.0.0.1:9' })
  const ies = iesRunner(server, PIPELINE_ENV)

  await t.test('client credentials: who the API sees, nothing on disk', async (t) => {
    const who = await ies.run(['whoami', '--json'])
    t.equal(who.code, 0, who.stderr)
    t.match(parseJson(who), { id: String, username: String })
    t.throws(() => readdirSync(ies.configDir), { code: 'ENOENT' }, 'no config directory was written')
  })

  const folder = path.join(work, 'envs')
  await t.test('apply creates, a second apply changes nothing (exit 0)', async (t) => {
    const { mkdirSync } = await import('node:fs')
    mkdirSync(folder)
    writeFileSync(
      path.join(folder, 'shop.yaml'),
      `name: shop-prod
globalPrefix: acme
provider: aws
region: eu-central-1
domain: shop.example.com
services:
  vpc:
    enabled: true
---
name: shop-dev
globalPrefix: acmedev
provider: aws
region: eu-west-1
services:
  vpc:
    enabled: true
`,
    )
    writeFileSync(path.join(folder, 'notes.txt'), 'not an environment')

    const plan = await ies.run(['apply', '-f', folder, '--dry-run', '--json'])
    t.equal(plan.code, 0, plan.stderr)
    const planned = parseJson(plan)
    t.match(planned, { dryRun: true, changed: true, created: 2, updated: 0, unchanged: 0 })
    t.same(planned.environments[0].changes.at(-1), { path: 'services.vpc.enabled', to: true }, 'a new environment’s values by path')
    const listed = parseJson(await ies.run(['env', 'list', '--json']))
    t.same(listed, [], 'a dry run creates nothing')

    const first = await ies.run(['apply', '-f', folder])
    t.equal(first.code, 0, first.stderr)
    t.match(first.stdout, /\+ created\s+shop-prod/)
    t.match(first.stdout, /\+ created\s+shop-dev/)
    t.match(first.stdout, /2 created, 0 updated, 0 unchanged/)

    const second = await ies.run(['apply', '-f', folder, '--json'])
    t.equal(second.code, 0, 'nothing changed: exit 0')
    const result = parseJson(second)
    t.match(result, { dryRun: false, changed: false, created: 0, updated: 0, unchanged: 2 })
    t.same(
      result.environments.map((e: any) => [e.name, e.action, e.changes]),
      [
        ['shop-prod', 'unchanged', []],
        ['shop-dev', 'unchanged', []],
      ],
    )
    const human = await ies.run(['apply', '-f', folder])
    t.equal(human.code, 0)
    t.match(human.stdout, /No changes: 2 environments already as described/)
  })

  await t.test('apply updates exactly what differs', async (t) => {
    const edited = file(
      'shop-prod.yaml',
      `name: shop-prod
globalPrefix: acme
provider: aws
region: eu-central-1
domain: ""
services:
  vpc:
    enabled: true
`,
    )
    const plan = parseJson(await ies.run(['apply', '-f', edited, '--dry-run', '--json']))
    t.same(plan.environments[0].changes, [{ path: 'domain', from: 'shop.example.com', to: '' }])
    const applied = await ies.run(['apply', '-f', edited])
    t.equal(applied.code, 0, applied.stderr)
    t.match(applied.stdout, /~ updated\s+shop-prod/)
    t.match(applied.stdout, /domain: "shop.example.com" -> ""/)
    const got = parseJson(await ies.run(['env', 'get', 'shop-prod', '--json']))
    t.equal(got.domain, '')
    t.equal(got.region, 'eu-central-1', 'the rest is kept')
  })

  await t.test('export round trip: the export applies as "unchanged", and creates an equal copy', async (t) => {
    const exported = await ies.run(['env', 'export', 'shop-dev'])
    t.equal(exported.code, 0, exported.stderr)
    const doc = parse(exported.stdout)
    t.match(doc, { name: 'shop-dev', globalPrefix: 'acmedev', provider: 'aws', region: 'eu-west-1' })
    for (const key of ['id', 'status', 'createdAt', 'updatedAt', 'cloudCredentialId']) t.notOk(key in doc, `${key} is not exported`)
    const again = parseJson(await ies.run(['apply', '-f', file('exported.yaml', exported.stdout), '--json']))
    t.match(again, { changed: false, unchanged: 1 })

    const copy = file('copy.yaml', exported.stdout.replace('name: shop-dev', 'name: shop-copy'))
    t.equal((await ies.run(['apply', '-f', copy])).code, 0)
    const original = parseJson(await ies.run(['env', 'export', 'shop-dev', '--json']))
    const duplicate = parseJson(await ies.run(['env', 'export', 'shop-copy', '--json']))
    t.same({ ...duplicate, name: 'shop-dev' }, original, 'the copy equals the original but for its name')
  })

  await t.test('env list, get, update, delete; --json shapes', async (t) => {
    const list = await ies.run(['env', 'list'])
    t.equal(list.code, 0)
    t.match(list.stdout, /^NAME\s+PROVIDER\s+REGION\s+STATUS\s+UPDATED\s+ID$/m)
    t.match(list.stdout, /^shop-copy\s+aws\s+eu-west-1\s+pending\s/m)
    const json = parseJson(await ies.run(['env', 'list', '--json']))
    t.same(
      json.map((e: any) => e.name),
      ['shop-copy', 'shop-dev', 'shop-prod'],
    )
    t.same(parseJson(await ies.run(['env', 'list', '--provider', 'azure', '--json'])), [], 'filtered by provider')
    t.same(Object.keys(json[0]).sort(), ['createdAt', 'id', 'name', 'provider', 'region', 'status', 'updatedAt'])

    const byId = parseJson(await ies.run(['env', 'get', json[0].id, '--json']))
    t.equal(byId.name, 'shop-copy', 'by id as well as by name')
    const yaml = await ies.run(['env', 'get', 'shop-copy'])
    t.equal(parse(yaml.stdout).id, json[0].id, 'YAML for people')

    const updated = await ies.run([
      'env',
      'update',
      'shop-copy',
      '--set',
      'region=us-east-1',
      '--set',
      'services.vpc.enabled=false',
      '--json',
    ])
    t.equal(updated.code, 0, updated.stderr)
    t.match(parseJson(updated), { region: 'us-east-1', services: { vpc: { enabled: false } } })

    const refused = await ies.run(['env', 'delete', 'shop-copy'])
    t.equal(refused.code, 2, 'delete without --yes off a terminal is a usage error')
    const deleted = await ies.run(['env', 'delete', 'shop-copy', '--yes', '--json'])
    t.equal(deleted.code, 0)
    t.match(parseJson(deleted), { name: 'shop-copy', deleted: true })
  })

  await t.test('exit codes and errors in the API’s words', async (t) => {
    const missing = await ies.run(['env', 'get', 'no-such-env'])
    t.equal(missing.code, 4, 'not found: 4')
    t.match(missing.stderr, /NOT_FOUND: Environment not found: no-such-env/)
    const missingId = await ies.run(['env', 'get', '00000000-0000-4000-8000-000000000000', '--json'])
    t.equal(missingId.code, 4)
    t.match(JSON.parse(missingId.stderr), { error: { code: 'NOT_FOUND' } })
    t.equal(missingId.stdout, '', 'nothing on stdout')

    const create = (name: string, ...more: string[]) =>
      ies.run(['env', 'create', '--name', name, '--global-prefix', 'acme', '--provider', 'aws', '--region', 'eu-central-1', ...more])
    const duplicate = await create('shop-prod')
    t.equal(duplicate.code, 3, 'conflict: 3')
    t.match(duplicate.stderr, /CONFLICT/)

    const invalid = await create('Bad_Name', '--json')
    t.equal(invalid.code, 1, 'validation: 1')
    const error = JSON.parse(invalid.stderr).error
    t.equal(error.code, 'VALIDATION_ERROR')
    t.ok(
      error.details.some((d: any) => d.field === 'name'),
      'the field is named',
    )
    const human = await create('Bad_Name')
    t.match(human.stderr, /VALIDATION_ERROR/)
    t.match(human.stderr, /^ {2}name: /m, 'the field is printed')

    t.equal((await ies.run(['env', 'frobnicate'])).code, 2, 'unknown command: 2')
    t.equal((await ies.run(['generate', 'shop-prod', '--format', 'pdf'])).code, 2, 'bad choice: 2')
    t.equal((await ies.run(['apply', '-f', path.join(work, 'nope')])).code, 2, 'missing file: 2')
    const dup = file('dup.yaml', 'name: a-env\n---\nname: a-env\n')
    const dupRun = await ies.run(['apply', '-f', dup])
    t.equal(dupRun.code, 2)
    t.match(dupRun.stderr, /also described/)

    const badSecret = await ies.run(['env', 'list'], { IES_CLIENT_SECRET: 'wrong-secret' })
    t.equal(badSecret.code, 5, 'unauthorized: 5')
    t.notMatch(badSecret.stderr, /wrong-secret/)
    const noLogin = await ies.run(['env', 'list'], { IES_CLIENT_ID: '', IES_CLIENT_SECRET: '' })
    t.equal(noLogin.code, 5)
    t.match(noLogin.stderr, /ies login/)
    const noServer = await ies.run(['env', 'list'], { IES_SERVER: 'http://127.0.0.1:9', IES_AUTH_URL: server.idp.authUrl })
    t.equal(noServer.code, 1, 'unreachable server: 1')
    t.match(noServer.stderr, /NETWORK_ERROR/)
  })

  await t.test('generate --wait --out writes the real zip', async (t) => {
    const out = path.join(work, 'shop-prod.zip')
    const run = await ies.run(['generate', 'shop-prod', '--format', 'terraform', '--include-backend', '--wait', '--out', out, '--json'])
    t.equal(run.code, 0, run.stderr)
    const job = parseJson(run)
    t.match(job, { type: 'generate', status: 'succeeded', out, result: { format: 'terraform', fileCount: Number } })
    const files = await unzip(readFileSync(out))
    const names = [...files.keys()]
    t.equal(names.length, job.result.fileCount, 'every file of the job is in the zip')
    t.ok(names.includes('terraform/backend.tf'), 'with the backend')
    t.ok(
      names.some((n) => n.startsWith('.github/workflows/')),
      'and the pipeline',
    )

    const queued = parseJson(await ies.run(['generate', 'shop-prod', '--json']))
    t.match(queued, { id: String, type: 'generate' })
    const waited = await ies.run(['jobs', 'wait', queued.id, '--json'])
    t.equal(waited.code, 0, waited.stderr)
    t.match(parseJson(waited), { id: queued.id, status: 'succeeded' })
    const got = parseJson(await ies.run(['jobs', 'get', queued.id, '--json']))
    t.equal(got.status, 'succeeded')
    t.equal((await ies.run(['jobs', 'get', '00000000-0000-4000-8000-000000000000'])).code, 4)
  })

  await t.test('catalog', async (t) => {
    const json = await ies.run(['catalog', '--json'])
    t.equal(json.code, 0, json.stderr)
    const doc = parseJson(json)
    t.match(doc, { schemaVersion: Number, services: { vpc: { displayName: String } } })
    const human = await ies.run(['catalog'])
    t.match(human.stdout, /^SERVICE\s+NAME\s+FIELDS$/m)
    t.match(human.stdout, /^vpc\s/m)
  })

  await t.test('credentials: create from a file, list, validate; the secret is never printed', async (t) => {
    const secrets = file('aws.yaml', `accessKeyId: AKIACLITEST0123456789\nsecretAccessKey: ${SECRET_ACCESS_KEY}\nregion: eu-central-1\n`)
    const created = await ies.run(['credentials', 'create', '--name', 'ci-aws', '--provider', 'aws', '--from-file', secrets, '--json'])
    t.equal(created.code, 0, created.stderr)
    t.match(parseJson(created), { id: String, name: 'ci-aws', provider: 'aws' })
    const list = await ies.run(['credentials', 'list'])
    t.match(list.stdout, /^ci-aws\s+aws\s/m)
    const validate = await ies.run(['credentials', 'validate', 'ci-aws', '--json'])
    t.equal(validate.code, 1, 'the cloud could not confirm it: 1')
    t.match(parseJson(validate), { valid: false, error: String })
    t.equal((await ies.run(['credentials', 'validate', 'nope'])).code, 4)
    const bad = await ies.run([
      'credentials',
      'create',
      '--name',
      'bad',
      '--provider',
      'aws',
      '--from-file',
      file('bad.yaml', `accessKeyId: lower\nsecretAccessKey: ${SECRET_ACCESS_KEY}\n`),
    ])
    t.equal(bad.code, 1)
    t.match(bad.stderr, /credentials\.accessKeyId/)
    t.equal((await ies.run(['credentials', 'create', '--name', 'x', '--provider', 'aws'])).code, 2, 'no file and no terminal: usage')
  })

  await t.test('apply names a cloud credential by name', async (t) => {
    const credential = parseJson(await ies.run(['credentials', 'list', '--json'])).find((c: any) => c.name === 'ci-aws')
    const withCredential = file(
      'with-credential.yaml',
      'name: shop-prod\nglobalPrefix: acme\nprovider: aws\nregion: eu-central-1\ncloudCredential: ci-aws\n',
    )
    const applied = parseJson(await ies.run(['apply', '-f', withCredential, '--json']))
    t.same(applied.environments[0].changes, [{ path: 'cloudCredentialId', to: credential.id }])
    t.equal(parseJson(await ies.run(['env', 'get', 'shop-prod', '--json'])).cloudCredentialId, credential.id)
    t.match(parseJson(await ies.run(['apply', '-f', withCredential, '--json'])), { changed: false }, 'then unchanged')
    const unassign = file('no-credential.yaml', 'name: shop-prod\ncloudCredential: null\n')
    t.match(parseJson(await ies.run(['apply', '-f', unassign, '--json'])), { updated: 1 })
    t.notOk('cloudCredentialId' in parseJson(await ies.run(['env', 'get', 'shop-prod', '--json'])), 'null unassigns')
    const unknown = await ies.run(['apply', '-f', file('unknown-credential.yaml', 'name: shop-prod\ncloudCredential: nope\n')])
    t.equal(unknown.code, 4)
    t.match(unknown.stderr, /Cloud credential not found: nope/)
  })

  t.test('no secret in anything the command line printed', async (t) => {
    const all = ies.printed.join('')
    t.ok(all.length > 1000, 'the runs printed something')
    t.notOk(all.includes(SECRET_ACCESS_KEY), 'no cloud secret')
    t.notOk(all.includes(TEST_CLI_SECRET), 'no client secret')
    t.notMatch(all, /eyJ[\w-]{10,}\.[\w-]{10,}\./, 'no token')
    t.end()
  })
})
