// `ies` from a pipeline: client credentials from the environment, environments as code (apply twice:
// the second changes nothing and exits 0), export round trip, the env commands, --json shapes, and an
// exit code for each class of error. Generation, catalog and credentials: artifacts.test.ts.
import { readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { assertNothingSecret, iesRunner, tempDir, parseJson, PIPELINE_ENV, startCliServer } from './helpers.ts'

const work = tempDir(t, 'ies-cli-files-')
const file = (name: string, text: string) => {
  const p = path.join(work, name)
  writeFileSync(p, text)
  return p
}

t.test('from a pipeline', async (t) => {
  const server = await startCliServer(t)
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
    t.match(list.stdout, /^NAME\s+TEAM\s+ROLE\s+PROVIDER\s+REGION\s+LABELS\s+STATUS\s+UPDATED\s+ID$/m)
    t.match(list.stdout, /^shop-copy\s+owner\s+aws\s+eu-west-1\s+pending\s/m)
    const json = parseJson(await ies.run(['env', 'list', '--json']))
    t.same(
      json.map((e: any) => e.name),
      ['shop-copy', 'shop-dev', 'shop-prod'],
    )
    t.same(parseJson(await ies.run(['env', 'list', '--provider', 'azure', '--json'])), [], 'filtered by provider')
    t.same(Object.keys(json[0]).sort(), ['createdAt', 'id', 'name', 'provider', 'region', 'role', 'status', 'updatedAt'])

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

  t.test('no secret in anything the command line printed', async (t) => {
    assertNothingSecret(t, ies, [])
    t.end()
  })
})
