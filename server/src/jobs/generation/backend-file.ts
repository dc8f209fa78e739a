// The Terraform state backend file a generation writes (`options.includeBackend`): S3 with the
// transformed state key and native locking (`use_lockfile = true`, no lock table). It is not a
// template: the templates leave the backend out (templates/terraform/versions.tf).
import type { ProcessorInput } from './transform.ts'

export const BACKEND_FILE = 'terraform/backend.tf'

const hclString = (value: string) => JSON.stringify(value)

/** `terraform fmt`-formatted HCL: the `=` of one block are aligned. */
export function backendFile(input: ProcessorInput): string {
  const backend = input.terraformBackend
  const settings: [string, string][] = []
  if (backend.bucket) settings.push(['bucket', hclString(backend.bucket)])
  settings.push(['key', hclString(backend.key)])
  if (backend.region) settings.push(['region', hclString(backend.region)])
  settings.push(['encrypt', 'true'], ['use_lockfile', String(backend.useLockfile)])
  const width = Math.max(...settings.map(([k]) => k.length))
  const lines = [
    `# Terraform state of environment "${input.name}", written by IES at generation time.`,
    '# Locking is S3-native (use_lockfile); there is no lock table.',
  ]
  if (!backend.bucket) {
    lines.push(
      '# No state bucket is stored for this environment: pass it at init time with',
      '#   terraform init -backend-config="bucket=<state bucket>"',
    )
  }
  lines.push('terraform {', '  backend "s3" {', ...settings.map(([k, v]) => `    ${k.padEnd(width)} = ${v}`), '  }', '}', '')
  return lines.join('\n')
}
