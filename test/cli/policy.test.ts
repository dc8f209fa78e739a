// `ies policy check -f FILE`: environment files judged by the organisation's rules before anything is
// sent (a stored environment of the same name: the file laid over it, as `ies apply` would update it);
// exit 1 naming each rule and field on a deny, 0 with the warnings otherwise; `ies apply` of a file the
// rules refuse fails with the rule named and creates nothing; labels from the CLI.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

const work = tempDir(t, 'ies-cli-policy-')
const file = (name: string, text: string) => {
  const p = path.join(work, name)
  writeFileSync(p, text)
  return p
}

const PROD = `name: shop-prod
globalPrefix: acme
provider: aws
region: eu-central-1
labels:
  tier: production
services:
  rds:
    enabled: true
    multiAz: false
`

t.test('ies policy check', async (t) => {
  const server = await startCliServer(t)
  const ies = iesRunner(server, PIPELINE_ENV)

  await t.test('a file the rules refuse: exit 1, each rule and field named, nothing sent', async (t) => {
    const prod = file('prod.yaml', PROD)
    const human = await ies.run(['policy', 'check', '-f', prod])
    t.equal(human.code, 1, human.stderr)
    t.match(human.stdout, /deny rds_multi_az \(services\.rds\.multiAz\): a production database must be Multi-AZ/)
    const json = await ies.run(['policy', 'check', '-f', prod, '--json'])
    t.equal(json.code, 1)
    t.match(json.stderr, /POLICY_DENIED/)
    t.same(parseJson(await ies.run(['env', 'list', '--json'])), [], 'nothing created')

    const apply = await ies.run(['apply', '-f', prod])
    t.equal(apply.code, 1)
    t.match(apply.stderr, /rds_multi_az|services\.rds\.multiAz/)
    t.same(parseJson(await ies.run(['env', 'list', '--json'])), [], 'apply created nothing')
  })

  await t.test('a passing file: exit 0 with its warnings; a stored environment is judged with the file laid over it', async (t) => {
    const dev = file('dev.yaml', PROD.replace('shop-prod', 'shop-dev').replace('production', 'development'))
    const checked = await ies.run(['policy', 'check', '-f', dev, '--json'])
    t.equal(checked.code, 0, checked.stderr)
    t.match(parseJson(checked), { ok: true, environments: [{ name: 'shop-dev', deny: [] }] })
    t.equal((await ies.run(['apply', '-f', dev])).code, 0)

    // Only the label in the file: the stored RDS settings count.
    const relabel = file('relabel.yaml', 'name: shop-dev\nlabels:\n  tier: production\n')
    const judged = await ies.run(['policy', 'check', '-f', relabel, '--json'])
    t.equal(judged.code, 1)
    const out = await ies.run(['policy', 'check', '-f', relabel])
    t.match(out.stdout, /rds_multi_az/)
  })

  await t.test('labels from the command line, listed and filtered', async (t) => {
    const created = await ies.run([
      'env',
      'create',
      '--name',
      'shop-stage',
      '--global-prefix',
      'acme',
      '--provider',
      'aws',
      '--region',
      'eu-west-1',
      '--label',
      'tier=staging',
      '--label',
      'owner=web',
      '--json',
    ])
    t.equal(created.code, 0, created.stderr)
    t.same(parseJson(created).labels, { tier: 'staging', owner: 'web' })
    const listed = parseJson(await ies.run(['env', 'list', '--label', 'tier=staging', '--json']))
    t.same(
      listed.map((e: { name: string }) => e.name),
      ['shop-stage'],
    )
    const table = await ies.run(['env', 'list'])
    t.match(table.stdout, /tier=staging,owner=web|owner=web,tier=staging/)
    const removed = await ies.run(['env', 'update', 'shop-stage', '--label', 'owner=', '--json'])
    t.equal(removed.code, 0, removed.stderr)
    t.same(parseJson(removed).labels, { tier: 'staging' })
  })
})
