// `npm run new-service -- <key> [--templates <dir>] [--display-name <name>] [--category <name>] [--description <text>]`
//
// Scaffolds a catalog service the way docs/template-authors.md ("Add a service") describes, touching
// only the templates tree: the module folder (versions, variables, a placeholder resource, an
// output), the `@module` and a first `@param` in the parameter-values file inside the service's
// gate, the root variable with the same working default (gated too, so a disabled service leaves
// no unused declaration), the gated module call in main.tf and a gated output. The result passes
// `npm run check:templates` as generated (after the static catalog is regenerated, which that
// command prints); the author then replaces the placeholder resource and the example knob.
import { appendFile, mkdir, readFile, writeFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { extractCatalog } from '@ies/processor-lib'
import { REPO_ROOT } from './terraform/cli-config.ts'

export const SERVICE_KEY_RE = /^[a-z][a-z0-9]*$/

export interface NewServiceOptions {
  templatesDir: string
  key: string
  displayName?: string
  category?: string
  description?: string
}

/** The files written and appended to, relative to the templates root. */
export async function scaffoldService(opts: NewServiceOptions): Promise<string[]> {
  const service = await planService(opts)
  await writeModule(service)
  await appendToRoot(service)
  const { key } = service
  return [
    ...['versions.tf', 'variables.tf', 'main.tf', 'outputs.tf'].map((f) => `terraform/modules/${key}/${f}`),
    ...['terraform.tfvars', 'variables.tf', 'main.tf', 'outputs.tf'].map((f) => `terraform/${f}`),
  ]
}

/** What a new service is called and which Terraform versions its module pins. */
interface PlannedService {
  templatesDir: string
  key: string
  moduleDir: string
  displayName: string
  category: string
  description: string
  requiredVersion: string
  awsVersion: string
}

/** Checks the key is new (in the catalog and as a module folder) and settles names and versions. */
async function planService(opts: NewServiceOptions): Promise<PlannedService> {
  const { templatesDir, key } = opts
  if (!SERVICE_KEY_RE.test(key)) throw new Error(`a service key is lower-case letters and digits, starting with a letter: ${key}`)
  const catalog = await extractCatalog({ templatesDir, provider: 'aws', commit: 'scaffold' })
  if (catalog.services[key]) throw new Error(`services.${key} is already in the catalog`)
  const moduleDir = path.join(templatesDir, 'terraform', 'modules', key)
  if (
    await stat(moduleDir).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`terraform/modules/${key} already exists`)
  const displayName = clean(opts.displayName ?? key.toUpperCase())
  const category = clean(opts.category ?? 'Other')
  const description = clean(opts.description ?? `${displayName} (scaffolded: describe the service)`)
  const versions = await readFile(path.join(templatesDir, 'terraform', 'versions.tf'), 'utf8')
  const requiredVersion = /required_version\s*=\s*"([^"]+)"/.exec(versions)?.[1] ?? '>= 1.11.0, < 2.0.0'
  const awsVersion = /aws\s*=\s*\{[^}]*version\s*=\s*"([^"]+)"/.exec(versions)?.[1] ?? '~> 5.100.0'
  return { templatesDir, key, moduleDir, displayName, category, description, requiredVersion, awsVersion }
}

/** The module folder: versions, variables, a placeholder resource and an output. */
async function writeModule({ key, moduleDir, displayName, requiredVersion, awsVersion }: PlannedService): Promise<void> {
  await mkdir(moduleDir, { recursive: true })
  const module = (f: string) => path.join(moduleDir, f)
  await writeFile(
    module('versions.tf'),
    `terraform {
  required_version = "${requiredVersion}"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "${awsVersion}"
    }
  }
}
`,
  )
  await writeFile(
    module('variables.tf'),
    `variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "example" {
  description = "An example knob: replace it with the service's own."
  type        = string
}
`,
  )
  await writeFile(
    module('main.tf'),
    `# Placeholder: replace it with the service's resources, named from var.name_prefix and tagged
# with var.tags (the IES template authors' guide, "Add a service").
resource "terraform_data" "this" {
  input = {
    name    = "\${var.name_prefix}-${key}"
    example = var.example
    tags    = var.tags
  }
}
`,
  )
  await writeFile(
    module('outputs.tf'),
    `output "name" {
  description = "Name of the ${displayName} resources."
  value       = terraform_data.this.output.name
}
`,
  )
}

/** The gated parameter, root variable, module call and output in the root files. */
async function appendToRoot({ templatesDir, key, displayName, category, description }: PlannedService): Promise<void> {
  const root = (f: string) => path.join(templatesDir, 'terraform', f)
  const rule = `# --- ${displayName}: ${description} `
  await appendFile(
    root('terraform.tfvars'),
    `
${rule}${'-'.repeat(Math.max(3, 79 - rule.length))}

# @module services.${key} | displayName=${displayName} | category=${category} | description=${description}
# @section services.${key}.enabled begin

# @param services.${key}.example | displayName=Example | description=An example knob: replace it with the service's own. | type=text | pattern=^[a-z0-9-]{1,32}$ | default=example
${key}_example = "example"

# @section services.${key}.enabled end
`,
  )
  await appendFile(
    root('variables.tf'),
    `
# @section services.${key}.enabled begin
variable "${key}_example" {
  description = "${displayName}: An example knob: replace it with the service's own."
  type        = string
  default     = "example"
}
# @section services.${key}.enabled end
`,
  )
  await appendFile(
    root('main.tf'),
    `
# @section services.${key}.enabled begin
module "${key}" {
  source = "./modules/${key}"

  name_prefix = local.name_prefix
  example     = var.${key}_example
  tags        = local.tags
}
# @section services.${key}.enabled end
`,
  )
  await appendFile(
    root('outputs.tf'),
    `
# @section services.${key}.enabled begin
output "${key}_name" {
  description = "Name of the ${displayName} resources."
  value       = module.${key}.name
}
# @section services.${key}.enabled end
`,
  )
}

/** An attribute value cannot hold `|` (it splits the decorator, rule 9) nor a line break. */
function clean(s: string): string {
  if (/[|\n\r]/.test(s)) throw new Error(`"${s}": an attribute value cannot hold "|" or a line break`)
  return s.trim()
}

async function main(argv: string[]): Promise<number> {
  const usage = 'usage: npm run new-service -- <key> [--templates <dir>] [--display-name <name>] [--category <name>] [--description <text>]'
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        templates: { type: 'string' },
        'display-name': { type: 'string' },
        category: { type: 'string' },
        description: { type: 'string' },
      },
    })
  } catch (e) {
    console.error(`new-service: ${(e as Error).message}\n${usage}`)
    return 2
  }
  const { values: v, positionals } = parsed
  if (positionals.length !== 1) {
    console.error(usage)
    return 2
  }
  const cwd = process.env.INIT_CWD ?? process.cwd()
  const templatesDir = v.templates ? path.resolve(cwd, v.templates) : path.join(REPO_ROOT, 'templates')
  try {
    const files = await scaffoldService({
      templatesDir,
      key: positionals[0],
      displayName: v['display-name'],
      category: v.category,
      description: v.description,
    })
    for (const f of files) console.log(`new-service: wrote ${f}`)
    console.log('new-service: next: npm run check:templates (it prints the command that regenerates the static catalog)')
    return 0
  } catch (e) {
    console.error(`new-service: ${(e as Error).message}`)
    return 2
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.exitCode = await main(process.argv.slice(2))
}
