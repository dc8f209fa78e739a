/**
 * Provisioned tooling follows a copied checkout (scripts/checkout-paths.ts): the Terraform CLI
 * configuration, which names the provider mirror by absolute path, is rewritten for the copy and
 * real `terraform init` then installs the providers from the copy's mirror; tap's absolute
 * @tapjs/core plugin link becomes a relative one that resolves inside the copy; the scripts of a
 * Python virtual environment under .tools start the copy's interpreter.
 */
import { execFile, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { relinkTapCore, relocateVenvScripts } from '../../scripts/checkout-paths.ts'
import { cliConfigText, ensureCliConfig, toolsDir } from '../../scripts/terraform/cli-config.ts'
import { repoRoot } from '../templates/helpers.ts'

const inCi = !!process.env.CI && process.env.CI !== 'false'
const work = mkdtempSync(join(tmpdir(), 'ies-checkout-paths-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

t.test('tap: the plugin folder link to @tapjs/core becomes relative to the checkout', async (t) => {
  const copy = join(work, 'tap-copy')
  mkdirSync(join(copy, 'node_modules', '@tapjs', 'core'), { recursive: true })
  writeFileSync(join(copy, 'node_modules', '@tapjs', 'core', 'package.json'), '{"name":"@tapjs/core"}\n')
  const link = join(copy, '.tap', 'plugins', 'node_modules', '@tapjs', 'core')
  mkdirSync(join(link, '..'), { recursive: true })
  symlinkSync(join(repoRoot, 'node_modules', '@tapjs', 'core'), link) // as tap wrote it in the original checkout
  t.ok(relinkTapCore(copy), 'changed')
  t.equal(readlinkSync(link), join('..', '..', '..', '..', 'node_modules', '@tapjs', 'core'))
  t.equal(realpathSync(link), realpathSync(join(copy, 'node_modules', '@tapjs', 'core')), 'resolves inside the copy')
  t.notOk(relinkTapCore(copy), 'nothing to change the second time')
  t.notOk(relinkTapCore(join(work, 'no-tap-here')), 'no plugin folder yet: nothing to do')
})

t.test("a Python virtual environment under .tools: its scripts start the copy's interpreter", async (t) => {
  const copy = join(work, 'venv-copy')
  const bin = join(copy, '.tools', 'checkov', 'bin')
  mkdirSync(bin, { recursive: true })
  writeFileSync(join(copy, '.tools', 'checkov', 'pyvenv.cfg'), 'home = /usr/bin\n')
  const script = '# -*- coding: utf-8 -*-\nimport sys\nfrom yamllint.cli import run\n'
  writeFileSync(join(bin, 'yamllint'), `#!/elsewhere/checkout/.tools/checkov/bin/python3\n${script}`) // as pip wrote it there
  writeFileSync(join(bin, 'activate'), '# not a script with a shebang\n')
  writeFileSync(join(bin, 'other'), '#!/usr/bin/env python3\nprint(1)\n')
  t.same(relocateVenvScripts(copy), [join(bin, 'yamllint')])
  t.equal(
    readFileSync(join(bin, 'yamllint'), 'utf8'),
    `#!${join(copy, '.tools', 'checkov', 'bin', 'python3')}\n${script}`,
    'the rest of the file unchanged',
  )
  t.equal(
    readFileSync(join(bin, 'other'), 'utf8'),
    '#!/usr/bin/env python3\nprint(1)\n',
    'an interpreter outside the environment is left alone',
  )
  t.same(relocateVenvScripts(copy), [], 'nothing to change the second time')
})

const mirror = join(toolsDir(), 'mirror')
const hasTerraform = spawnSync('terraform', ['version'], { env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' } }).status === 0
const skip = !hasTerraform
  ? 'terraform is not installed'
  : !existsSync(mirror)
    ? 'the provider mirror is not built (scripts/terraform/build-mirror.sh)'
    : null

t.test('terraform: a copied checkout gets a CLI configuration naming its own mirror', { skip: skip && !inCi ? skip : false }, async (t) => {
  if (skip) return t.fail(`${skip}: required under CI`)
  const copy = join(work, 'tf-copy')
  cpSync(toolsDir(), toolsDir(copy), { recursive: true, verbatimSymlinks: true })
  const rc = join(toolsDir(copy), 'terraformrc')
  writeFileSync(rc, cliConfigText(mirror)) // what the original checkout wrote
  t.equal(ensureCliConfig(copy), rc)
  t.equal(readFileSync(rc, 'utf8'), cliConfigText(join(toolsDir(copy), 'mirror')), 'rewritten for the copy')
  t.notMatch(readFileSync(rc, 'utf8'), mirror + '"', 'the original mirror is no longer named')

  const module = join(work, 'tf-module')
  mkdirSync(module)
  writeFileSync(
    join(module, 'versions.tf'),
    'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = "~> 5.100.0"\n    }\n  }\n}\n',
  )
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!/^(TF_|AWS_)/.test(k)) env[k] = v
  const init = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(
      'terraform',
      [`-chdir=${module}`, 'init', '-backend=false', '-input=false', '-no-color'],
      { env: { ...env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1' } },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: stdout + stderr }),
    ),
  )
  t.equal(init.code, 0, init.out)
  t.match(init.out, /Installed hashicorp\/aws v5\.100\.0/)
  t.match(readFileSync(join(module, '.terraform.lock.hcl'), 'utf8'), /provider "registry\.terraform\.io\/hashicorp\/aws"/)
})
