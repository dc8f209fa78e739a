// A generation the processor refuses, through `ies`: exit 1, the job's code and the processor's
// findings (file:line code: message) on stderr, and no archive written.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from './helpers.ts'

t.test('a failed generation', async (t) => {
  // A templates tree whose @param sits on a multi-line value: the processor refuses the file.
  const templates = tempDir(t, 'ies-cli-broken-templates-')
  mkdirSync(path.join(templates, 'terraform'))
  writeFileSync(path.join(templates, 'terraform/main.tf'), 'locals {\n  # @param name\n  name = <<EOT\nx\nEOT\n}\n')
  const server = await startCliServer(t, { TEMPLATES_DIR: templates })
  const ies = iesRunner(server, PIPELINE_ENV)
  const created = await ies.run([
    'env',
    'create',
    '--name',
    'broken',
    '--global-prefix',
    'acme',
    '--provider',
    'aws',
    '--region',
    'eu-west-1',
  ])
  t.equal(created.code, 0, created.stderr)

  const out = path.join(templates, 'out.zip')
  const run = await ies.run(['generate', 'broken', '--out', out])
  t.equal(run.code, 1, 'a failed job: exit 1')
  t.match(run.stderr, /GENERATION_FAILED: generate job \S+ failed/)
  t.match(run.stderr, /^ {2}terraform\/main\.tf:3 MULTILINE_VALUE: /m, 'the processor’s finding, file:line code: message')
  t.notOk(existsSync(out), 'no archive written')

  const queued = parseJson(await ies.run(['generate', 'broken', '--no-wait', '--json']))
  const waited = await ies.run(['jobs', 'wait', queued.id, '--json'])
  t.equal(waited.code, 1)
  t.match(parseJson(waited), { id: queued.id, status: 'failed', error: { code: 'GENERATION_FAILED' } }, 'the job on stdout')
  t.match(JSON.parse(waited.stderr), {
    error: { code: 'GENERATION_FAILED', details: [{ file: 'terraform/main.tf', code: 'MULTILINE_VALUE' }] },
  })
})
