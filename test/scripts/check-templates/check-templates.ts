// `npm run check:templates` as these tests run it: the command on a copy of the templates, without
// Terraform and the scanners (test/templates/check-templates.test.ts runs them over templates/); its
// exit code and report.
import { execFile } from 'node:child_process'
import { repoRoot } from '../../templates/helpers.ts'

export function checkTemplates(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/check-templates.ts', ...args, '--no-terraform', '--no-scan'],
      { cwd: repoRoot },
      (err, stdout) => {
        resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout })
      },
    )
  })
}
