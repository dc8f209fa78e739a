// `ies env history` and `ies env restore` against a real server: the table (who, kind, what), the
// diff of each change, --json with pagination, and a restore that is a new change. Runs as the
// pipeline's service account (client credentials), so its name is who the history shows.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

t.test('ies env history and restore', async (t) => {
  const server = await startCliServer(t)
  const ies = iesRunner(server, PIPELINE_ENV)
  const file = path.join(tempDir(t, 'ies-cli-history-'), 'hist.yaml')
  writeFileSync(file, 'name: hist\nglobalPrefix: acme\nprovider: aws\nregion: eu-central-1\ndomain: a.example.com\n')
  const ok = async (args: string[]) => {
    const res = await ies.run(args)
    t.equal(res.code, 0, `ies ${args.join(' ')}: ${res.stderr}`)
    return res
  }
  await ok(['apply', '-f', file])
  await ok(['env', 'update', 'hist', '--set', 'domain=b.example.com'])

  const table = await ok(['env', 'history', 'hist', '--diff'])
  t.match(table.stdout, /#\s.*WHEN.*WHO.*KIND.*WHAT/)
  t.match(table.stdout, /2\s.*service-account-ies-cli.*update.*domain/)
  t.match(table.stdout, /1\s.*create/)
  t.match(table.stdout, /domain: "a\.example\.com" -> "b\.example\.com"/, 'the diff of the update')

  const json = parseJson(await ok(['env', 'history', 'hist', '--json', '--limit', '1']))
  t.same(json.pagination, { page: 1, limit: 1, total: 2, totalPages: 2 })
  t.equal(json.data[0].kind, 'update')

  const refused = await ies.run(['env', 'restore', 'hist', '1'])
  t.equal(refused.code, 2, 'no terminal: --yes is required')
  t.match(refused.stderr, /Restoring needs --yes/)
  const restored = parseJson(await ok(['env', 'restore', 'hist', '1', '--yes', '--json']))
  t.equal(restored.domain, 'a.example.com')
  const after = parseJson(await ok(['env', 'history', 'hist', '--json']))
  t.match(after.data[0], { id: 3, kind: 'restore', restoredFrom: 1 })

  const missing = await ies.run(['env', 'restore', 'hist', '99', '--yes'])
  t.equal(missing.code, 4, 'no such entry: not found')
  const bad = await ies.run(['env', 'history', 'hist', '--limit', '0'])
  t.equal(bad.code, 2)
})
