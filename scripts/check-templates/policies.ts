// check:templates' rules step: the organisation rules the tree ships (policies/*.rego, docs/policies.md)
// compile and pass their Rego tests (`opa test`). A compile error is a POLICY finding at its file and
// line; a failing test is one at the rule it tests (the first `deny` or `warn` of its package), naming
// the test and where it is.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Finding } from '@ies/processor-lib'
import { REPO_ROOT } from '../terraform/cli-config.ts'

const run = promisify(execFile)
const POLICIES_DIR = 'policies'

/** The `opa` binary provision builds, else the one on PATH. */
export const opaBinary = (): string =>
  process.env.OPA_PATH ?? (existsSync(path.join(REPO_ROOT, '.tools/bin/opa')) ? path.join(REPO_ROOT, '.tools/bin/opa') : 'opa')

const finding = (file: string, line: number, message: string): Finding => ({
  code: 'POLICY',
  severity: 'error',
  file,
  line,
  path: null,
  message,
})

interface TestResult {
  location?: { file: string; row: number }
  package?: string
  name?: string
  fail?: boolean
  error?: { message?: string }
}

/** Where each rule package begins its findings: `data.ies.rules.x` -> the file and line of its first `deny` or `warn`. */
async function ruleHeads(dir: string): Promise<Map<string, { file: string; line: number }>> {
  const heads = new Map<string, { file: string; line: number }>()
  for (const name of (await readdir(dir, { recursive: true })).filter((n) => n.endsWith('.rego') && !n.endsWith('_test.rego'))) {
    const lines = (await readFile(path.join(dir, name), 'utf8')).split('\n')
    const pkg = lines
      .find((l) => l.startsWith('package '))
      ?.slice('package '.length)
      .trim()
    const head = lines.findIndex((l) => /^(deny|warn)\b/.test(l))
    if (pkg) heads.set(`data.${pkg}`, { file: name, line: head >= 0 ? head + 1 : lines.findIndex((l) => l.startsWith('package ')) + 1 })
  }
  return heads
}

/** The findings of the tree's rules: none without a policies/ folder. */
export async function policyFindings(templatesDir: string, opa = opaBinary()): Promise<Finding[]> {
  const dir = path.join(templatesDir, POLICIES_DIR)
  if (!existsSync(dir)) return []
  const rel = (file: string) => path.relative(templatesDir, path.resolve(file)).split(path.sep).join('/')
  let stdout: string
  try {
    stdout = (await run(opa, ['test', dir, '--format=json'], { maxBuffer: 16 * 1024 * 1024 })).stdout
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string; message: string }
    if (e.code === 'ENOENT') return [finding(POLICIES_DIR, 0, `${opa} not found: run npm run provision (or set OPA_PATH)`)]
    if (!e.stdout?.trim().startsWith('[')) {
      // Loading or compiling failed: opa names each error as `file:line: rego_..._error: message`.
      const errors = [...(e.stderr ?? e.message).matchAll(/(\S+\.rego):(\d+): (rego_\w+: .*)$/gm)]
      if (errors.length === 0) return [finding(POLICIES_DIR, 0, (e.stderr ?? e.message).trim())]
      return errors.map(([, file, line, message]) => finding(rel(file), Number(line), message))
    }
    stdout = e.stdout
  }
  const heads = await ruleHeads(dir)
  return (JSON.parse(stdout) as TestResult[])
    .filter((r) => r.fail || r.error)
    .map((r) => {
      const where = r.location ? `${rel(r.location.file)}:${r.location.row}` : (r.package ?? '')
      const rule = r.package?.replace(/_test$/, '') ?? ''
      const head = heads.get(rule)
      const what = r.error ? `errs: ${r.error.message ?? ''}` : 'fails'
      const message = `rule ${rule.split('.').pop()}: test ${r.name} (${where}) ${what}`
      return head
        ? finding(`${POLICIES_DIR}/${head.file}`, head.line, message)
        : finding(where.split(':')[0] ?? POLICIES_DIR, r.location?.row ?? 0, message)
    })
}
