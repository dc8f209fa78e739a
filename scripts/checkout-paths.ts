// Points the checkout's provisioned tooling at this checkout, so a copied or moved checkout (or a
// git worktree sharing provisioned folders) works without provisioning again:
//   - .tools/terraform/terraformrc names the provider mirror by absolute path (Terraform needs it):
//     rewritten for this checkout (scripts/terraform/cli-config.ts);
//   - tap links its plugin folder's @tapjs/core (.tap/plugins/node_modules/@tapjs/core) by absolute
//     path when it builds its test class: replaced by a relative link to node_modules/@tapjs/core;
//   - a Python virtual environment under .tools (.tools/checkov: checkov, yamllint) starts its
//     scripts with `#!<absolute venv path>/bin/python`: those lines are rewritten for this checkout.
// Run by scripts/provision.sh and as tap's `before` program (.taprc); quick, and silent when there is
// nothing to change.
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureCliConfig, REPO_ROOT } from './terraform/cli-config.ts'

/** Make the tap plugin folder's @tapjs/core link relative to the checkout; true when it was changed. */
export function relinkTapCore(root = REPO_ROOT): boolean {
  const link = path.join(root, '.tap', 'plugins', 'node_modules', '@tapjs', 'core')
  const target = path.relative(path.dirname(link), path.join(root, 'node_modules', '@tapjs', 'core'))
  try {
    if (!lstatSync(link).isSymbolicLink() || readlinkSync(link) === target) return false
  } catch {
    return false // tap has not built its plugin folder yet; it links it when it does
  }
  rmSync(link)
  symlinkSync(target, link)
  return true
}

/**
 * Point the scripts of every virtual environment directly under `.tools` (a folder with a
 * pyvenv.cfg) at that environment's own interpreter; the files changed.
 */
export function relocateVenvScripts(root = REPO_ROOT): string[] {
  const tools = path.join(root, '.tools')
  const changed: string[] = []
  let names: string[]
  try {
    names = readdirSync(tools)
  } catch {
    return changed
  }
  for (const name of names) {
    const venv = path.join(tools, name)
    if (!existsSync(path.join(venv, 'pyvenv.cfg'))) continue
    const bin = path.join(venv, 'bin')
    for (const entry of readdirSync(bin, { withFileTypes: true })) {
      if (!entry.isFile()) continue
      const file = path.join(bin, entry.name)
      const text = readFileSync(file, 'latin1')
      const m = /^#!(\S+)\/bin\/(python[\d.]*)\n/.exec(text)
      if (!m || m[1] === venv || !m[1].endsWith(`/.tools/${name}`)) continue
      writeFileSync(file, `#!${venv}/bin/${m[2]}\n` + text.slice(m[0].length), 'latin1')
      changed.push(file)
    }
  }
  return changed
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureCliConfig()
  relinkTapCore()
  relocateVenvScripts()
}
