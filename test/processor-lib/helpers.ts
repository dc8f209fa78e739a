// Shared helpers of the processor tests: the real ies-processor binary, and temporary trees.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const here = dirname(fileURLToPath(import.meta.url))
export const bin = join(here, '..', '..', 'processor-lib', 'bin', 'ies-processor.js')

/** Run the CLI as CI does (`node processor-lib/bin/ies-processor.js ...`). */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** A temporary folder holding `files` (path → content), removed when the test file ends. */
export async function tree(files: Record<string, string>, prefix = 'ies-processor-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  for (const [p, c] of Object.entries(files)) {
    await mkdir(dirname(join(dir, p)), { recursive: true })
    await writeFile(join(dir, p), c)
  }
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}
