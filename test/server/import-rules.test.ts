// The import rules of eslint.config.js (ARCHITECTURE.md, "Who may import whom") really refuse what
// they name: each probe is linted as if it were a file at that path; the allowed forms pass.
import t from 'tap'
import { ESLint } from 'eslint'

const eslint = new ESLint()

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message)
}

t.test('server core imports neither plugins nor the desktop', async (t) => {
  const probe = `import { a } from '../../../plugins/environments/repository.ts'\nimport { b } from '../../../desktop/src/lib/env.ts'\nexport const x = [a, b]\n`
  const messages = await restricted('server/src/core/probe.ts', probe)
  t.equal(messages.length, 2)
  t.match(messages[0], /Server core never imports plugins/)
  t.match(messages[1], /The desktop is a client/)
  t.same(await restricted('server/src/core/probe.ts', `import { ok } from './envelope.ts'\nexport const x = ok\n`), [])
})

t.test("a plugin imports only another plugin's schemas and types", async (t) => {
  const probe = [
    `import { EnvironmentRepository } from '../environments/repository.ts'`,
    `import { mergePatch } from '../environments/merge-patch.ts'`,
    `import type { EnvironmentRecord } from '../environments/repository.ts'`,
    `import { Environment } from '../environments/schemas.ts'`,
    `import { testPattern } from '@ies/server/core/safe-pattern'`,
    `export const x = [EnvironmentRepository, mergePatch, Environment, testPattern]`,
    `export type R = EnvironmentRecord`,
    '',
  ].join('\n')
  const messages = await restricted('plugins/ai/probe.ts', probe)
  t.equal(messages.length, 2, 'the repository and the helper module: refused; the type, the schemas and core: allowed')
  for (const m of messages) t.match(m, /Plugins meet through decorators/)
})

t.test('the catalog contract has no Node dependencies', async (t) => {
  const probe = `import { readFile } from 'node:fs'\nimport { ProcessorError } from '../findings.ts'\nimport type { FindingCode } from '../findings.ts'\nexport const x = [readFile, ProcessorError]\nexport type F = FindingCode\n`
  const messages = await restricted('processor-lib/src/contract/probe.ts', probe)
  t.equal(messages.length, 2)
  for (const m of messages) t.match(m, /no Node dependencies/)
})

t.test('processor-lib and the CLI do not import the desktop', async (t) => {
  for (const file of ['processor-lib/src/probe.ts', 'cli/src/probe.ts']) {
    t.equal((await restricted(file, `import { x } from '../../desktop/src/lib/env.ts'\nexport const y = x\n`)).length, 1, file)
  }
})
