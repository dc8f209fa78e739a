// `ies` from a pipeline, continued: generate --wait --out (the zip unpacked and checked), jobs,
// the catalog, cloud credentials (secrets from a file, never printed) and a credential named in an
// environment file.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { unzip } from '../harness/jobs.ts'
import { assertNothingSecret, iesRunner, tempDir, parseJson, PIPELINE_ENV, startCliServer } from './helpers.ts'

const work = tempDir(t, 'ies-cli-artifacts-')
const file = (name: string, text: string) => {
  const p = path.join(work, name)
  writeFileSync(p, text)
  return p
}

const SECRET_ACCESS_KEY = 'cliTestSecretAccessKey/abcdefghijklmnopqrstu'

t.test('generation, catalog and credentials from a pipeline', async (t) => {
  // A closed port: credential checks fail at once instead of reaching for AWS.
  const server = await startCliServer(t, { AWS_ENDPOINT_URL: 'http://127.0.0.1:9' })
  const ies = iesRunner(server, PIPELINE_ENV)
  const created = await ies.run([
    'apply',
    '-f',
    file(
      'shop-prod.yaml',
      'name: shop-prod\nglobalPrefix: acme\nprovider: aws\nregion: eu-central-1\nservices:\n  vpc:\n    enabled: true\n',
    ),
  ])
  t.equal(created.code, 0, created.stderr)

  await t.test('generate waits and --out writes the real zip', async (t) => {
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

    const queued = parseJson(await ies.run(['generate', 'shop-prod', '--no-wait', '--json']))
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
    const fresh = file(
      'fresh.yaml',
      'name: fresh-env\nglobalPrefix: fresh\nprovider: aws\nregion: eu-west-1\ncloudCredential: null\ndomain: null\n',
    )
    const createdFresh = await ies.run(['apply', '-f', fresh, '--json'])
    t.equal(createdFresh.code, 0, createdFresh.stderr)
    t.same(
      parseJson(createdFresh).environments[0].changes.map((c: any) => c.path),
      ['name', 'globalPrefix', 'provider', 'region'],
      'a new environment: null members left out',
    )
    t.match(parseJson(await ies.run(['apply', '-f', fresh, '--json'])), { changed: false }, 'and then unchanged')
    const unknown = await ies.run(['apply', '-f', file('unknown-credential.yaml', 'name: shop-prod\ncloudCredential: nope\n')])
    t.equal(unknown.code, 4)
    t.match(unknown.stderr, /Cloud credential not found: nope/)
  })

  t.test('no secret in anything the command line printed', async (t) => {
    assertNothingSecret(t, ies, [SECRET_ACCESS_KEY])
    t.end()
  })
})
