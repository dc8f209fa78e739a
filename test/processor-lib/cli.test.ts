// The ies-processor command line, run as the real binary.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { cli, tree } from './helpers.ts'

const config = { name: 'acme', services: { eks: { enabled: true } } }

t.test('process writes the tree; unresolved parameters are reported but do not fail', async (t) => {
  const dir = await tree({
    'templates/a.tf': '# @param name | displayName=Name\nname = "x"\n# @param services.eks.size\nsize = 1\n',
    'templates/b.json': '{}\n',
    'config.json': JSON.stringify(config),
  })
  const out = join(dir, 'out')
  const r = await cli(['process', '--templates', join(dir, 'templates'), '--config', join(dir, 'config.json'), '--out', out])
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stderr, 'a.tf:4 UNRESOLVED_PARAM @param services.eks.size is absent from the configuration; the template default stays\n')
  t.equal(
    await readFile(join(out, 'a.tf'), 'utf8'),
    '# @param name | displayName=Name\nname = "acme"\n# @param services.eks.size\nsize = 1\n',
  )
  t.equal(await readFile(join(out, 'b.json'), 'utf8'), '{}\n')

  const trimmed = join(dir, 'trimmed')
  const r2 = await cli(
    ['process', '--templates', join(dir, 'templates'), '--config', join(dir, 'config.json'), '--out', trimmed, '--json'],
    { TRIM_DECORATOR_ATTRS: '1' },
  )
  t.equal(r2.code, 0)
  t.equal(JSON.parse(r2.stderr)[0].code, 'UNRESOLVED_PARAM')
  t.match(await readFile(join(trimmed, 'a.tf'), 'utf8'), /^# @param name\nname = "acme"\n/)
})

t.test('process refuses and writes nothing when a file is refused', async (t) => {
  const dir = await tree({
    'templates/ok.tf': '# @param name\nname = "x"\n',
    'templates/bad.yaml': '# @param name\nscript: |\n  echo\n',
    'config.json': JSON.stringify(config),
  })
  const out = join(dir, 'out')
  const r = await cli(['process', '--templates', join(dir, 'templates'), '--config', join(dir, 'config.json'), '--out', out])
  t.equal(r.code, 1)
  t.match(r.stderr, /^bad\.yaml:2 MULTILINE_VALUE .*@param name/m)
  t.notOk(existsSync(out), 'nothing written to --out')
})

t.test('gate exits non-zero on findings and zero on a clean tree', async (t) => {
  const dir = await tree({
    'clean/a.tf': '# @param name\nname = "x"\n',
    'dirty/a.tf': '# @param nope\nname   = "x"\n',
    'config.json': JSON.stringify(config),
  })
  const ok = await cli(['gate', '--templates', join(dir, 'clean'), '--config', join(dir, 'config.json')])
  t.equal(ok.code, 0, ok.stderr)
  const bad = await cli(['gate', '--templates', join(dir, 'dirty'), '--config', join(dir, 'config.json')])
  t.equal(bad.code, 1)
  t.match(bad.stderr, /a\.tf:2 FORMAT/)
  t.match(bad.stderr, /a\.tf:2 UNRESOLVED_PARAM/)
})

t.test('--extract-catalog prints or writes the catalog; --strict fails on errors', async (t) => {
  const dir = await tree({
    'terraform/terraform.tfvars': '# @param name | displayName=Name\nname = "x"\n',
    'other.tfvars': '# @param a.b\nx = 1\n',
  })
  const r = await cli(['--extract-catalog', dir, '--provider', 'aws', '--strict'])
  t.equal(r.code, 0, r.stderr)
  t.equal(JSON.parse(r.stdout).global.fields.name.displayName, 'Name')
  const outFile = join(dir, 'catalog.json')
  const r2 = await cli(['--extract-catalog', dir, '--provider', 'aws', '--params-file', 'other.tfvars', '--output', outFile])
  t.equal(r2.code, 0)
  t.equal(JSON.parse(await readFile(outFile, 'utf8')).errors[0].code, 'BAD_PATH')
  const r3 = await cli(['--extract-catalog', dir, '--provider', 'aws', '--params-file', 'other.tfvars', '--strict'])
  t.equal(r3.code, 1)
  t.match(r3.stderr, /other\.tfvars:1 BAD_PATH/)
})

t.test('usage errors exit 2 with a message, never a stack trace', async (t) => {
  for (const args of [
    [],
    ['process'],
    ['bogus'],
    ['--nope'],
    ['--extract-catalog', '/nonexistent', '--provider', 'aws'],
    ['gate', '--templates', '/x', '--config', '/nonexistent.json'],
  ]) {
    const r = await cli(args)
    t.equal(r.code, 2, args.join(' '))
    t.match(r.stderr, /^ies-processor: /)
    t.notMatch(r.stderr, /\n\s+at /)
  }
})
