// The Terraform CLI configuration of this checkout: the provider mirror under .tools/terraform
// (scripts/terraform/build-mirror.sh builds it) and nothing else. Terraform needs the mirror's path
// absolute, so the file is (re)written for the checkout it sits in whenever it names another one:
// a copied or moved checkout works without provisioning again.
//   npx tsx scripts/terraform/cli-config.ts    write it now (build-mirror.sh and the test runs do)
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

export function toolsDir(root = REPO_ROOT): string {
  return path.join(root, '.tools', 'terraform')
}

/** The CLI configuration text for a mirror folder: that mirror only (no registry, no checkpoint call). */
export function cliConfigText(mirrorDir: string): string {
  return `disable_checkpoint = true

provider_installation {
  filesystem_mirror {
    path    = ${JSON.stringify(mirrorDir)}
    include = ["registry.terraform.io/hashicorp/*"]
  }
}
`
}

/**
 * The path of this checkout's CLI configuration, written first when it is missing or names another
 * checkout's mirror; null when the mirror has not been built here.
 */
export function ensureCliConfig(root = REPO_ROOT): string | null {
  const dir = toolsDir(root)
  const mirror = path.join(dir, 'mirror')
  if (!existsSync(mirror)) return null
  const file = path.join(dir, 'terraformrc')
  const want = cliConfigText(mirror)
  let have: string | null = null
  try {
    have = readFileSync(file, 'utf8')
  } catch {
    // written below
  }
  if (have !== want) writeFileSync(file, want)
  return file
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = ensureCliConfig()
  if (!file) {
    console.error(`no provider mirror in ${toolsDir()}: run scripts/terraform/build-mirror.sh`)
    process.exitCode = 1
  }
}
