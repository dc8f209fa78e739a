// Points the checkout's provisioned tooling at this checkout, so a copied or moved checkout (or a
// git worktree sharing provisioned folders) works without provisioning again:
//   - .tools/terraform/terraformrc names the provider mirror by absolute path (Terraform needs it):
//     rewritten for this checkout (scripts/terraform/cli-config.ts);
//   - tap links its plugin folder's @tapjs/core (.tap/plugins/node_modules/@tapjs/core) by absolute
//     path when it builds its test class: replaced by a relative link to node_modules/@tapjs/core.
// Run by scripts/provision.sh and as tap's `before` program (.taprc); quick, and silent when there is
// nothing to change.
import { lstatSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureCliConfig()
  relinkTapCore()
}
