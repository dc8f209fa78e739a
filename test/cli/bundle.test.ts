// The command line without the monorepo: `npm run build:cli`'s one file, copied alone into an empty
// folder (as ies.js: with no package.json around, .js is CommonJS too), runs with Node (version,
// help) and against a real server (client credentials, an apply).
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { buildBundle } from '../../cli/scripts/build.ts'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

t.test('the bundle runs from an empty folder', async (t) => {
  const built = await buildBundle(path.join(tempDir(t, 'ies-cli-build-'), 'ies.cjs'))
  const alone = tempDir(t, 'ies-cli-alone-')
  copyFileSync(built, path.join(alone, 'ies.js'))
  t.same(readdirSync(alone), ['ies.js'], 'one file, no node_modules')

  const server = await startCliServer(t)
  const ies = iesRunner(server, PIPELINE_ENV, { bin: path.join(alone, 'ies.js'), cwd: alone })
  const version = await ies.run(['--version'])
  t.equal(version.code, 0, version.stderr)
  t.match(version.stdout, /^\d+\.\d+\.\d+\n$/)
  const help = await ies.run(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage: ies \[options\] \[command\]/)
  t.match(help.stdout, /^ {2}upgrade /m)

  writeFileSync(path.join(alone, 'env.yaml'), 'name: bundled\nglobalPrefix: acme\nprovider: aws\nregion: eu-west-1\n')
  const applied = await ies.run(['apply', '-f', 'env.yaml', '--json'])
  t.equal(applied.code, 0, applied.stderr)
  t.match(parseJson(applied), { created: 1 })
  t.match(parseJson(await ies.run(['env', 'list', '--json'])), [{ name: 'bundled' }], 'a real command against a real server')
  t.equal((await ies.run(['nope'])).code, 2)
})
