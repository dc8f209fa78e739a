/**
 * `npm run check:templates -- --emit-config <file>`: a processor configuration made from the
 * catalog's defaults, which the real `ies-processor gate` accepts with no finding (a local gate run
 * needs no hand-written configuration); usage mistakes exit 2.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { extractCatalog } from '@ies/processor-lib'
import { repoRoot, runCli, templatesDir } from '../../templates/helpers.ts'

const work = mkdtempSync(join(tmpdir(), 'ies-emit-config-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

function checkTemplates(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/check-templates.ts', ...args], { cwd: repoRoot }, (err, stdout, stderr) => {
      resolve({
        code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0,
        stdout,
        stderr,
      })
    })
  })
}

t.test('--emit-config writes the catalog defaults, and the gate passes with them', async (t) => {
  const file = join(work, 'config.json')
  const r = await checkTemplates([templatesDir, '--emit-config', file])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /ies-processor\.js gate --templates .* --config /, 'says how to use it')
  const config = JSON.parse(readFileSync(file, 'utf8'))
  const catalog = await extractCatalog({ templatesDir, provider: 'aws', commit: 'x' })
  t.same(Object.keys(config.services).sort(), Object.keys(catalog.services).sort(), 'every catalog service')
  for (const key of Object.keys(catalog.global.fields)) t.ok(key in config, `global ${key}`)
  t.equal(config.domain, '', 'domain sent as "" (rule 11)')
  for (const [key, svc] of Object.entries(catalog.services)) {
    for (const field of Object.keys(svc.fields)) t.ok(field in config.services[key], `${key}.${field}`)
  }
  const gate = await runCli(['gate', '--templates', templatesDir, '--config', file])
  t.equal(gate.code, 0, `gate passes: ${gate.stderr}`)
  t.equal(gate.stderr, '')
})

t.test('usage mistakes exit 2', async (t) => {
  t.equal((await checkTemplates(['a', 'b'])).code, 2)
  const unknown = await checkTemplates(['--no-such-option'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /usage: npm run check:templates/)
  const missing = await checkTemplates([join(work, 'no-such-folder')])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /^check:templates: templates directory not found: /)
})
