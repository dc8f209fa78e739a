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

t.test('the API contract (api/) is browser-safe and imports nothing of the other workspaces but types', async (t) => {
  const probe = [
    `import { readFile } from 'node:fs'`,
    `import { ok } from '@ies/server/core/envelope'`,
    `import { Environment } from '../../plugins/environments/schemas.ts'`,
    `import { Session } from '../../cli/src/auth/session.ts'`,
    `import { env } from '../../desktop/src/lib/env.ts'`,
    `import { summarize } from '@ies/processor-lib/contract/document'`,
    `import type { Job } from '../../plugins/jobs/schemas.ts'`,
    `import type { Catalog } from '@ies/processor-lib/contract/document'`,
    `import { PROVIDERS } from './values.ts'`,
    `export const x = [readFile, ok, Environment, Session, env, summarize, PROVIDERS]`,
    `export type J = [Job, Catalog]`,
    '',
  ].join('\n')
  const messages = await restricted('api/src/probe.ts', probe)
  t.equal(messages.length, 6, 'the six value imports; the two type imports and its own module pass')
  t.match(messages[0], /runs in the browser: no Node modules/)
  for (const m of messages.slice(1)) t.match(m, /imports nothing of the other workspaces but types/)
  const [result] = await eslint.lintText(`export const b = Buffer.from('x')\nexport const e = process.env\n`, {
    filePath: 'api/src/probe.ts',
  })
  t.same(
    result.messages.map((m) => m.ruleId),
    ['no-restricted-globals', 'no-restricted-globals'],
    'Node globals refused',
  )
})

t.test('the desktop imports the API through @ies/api and of processor-lib only the catalog contract', async (t) => {
  const probe = [
    `import { CONFLICT_KINDS } from '@ies/server/jobs/push/push-schemas'`,
    `import type { Behind } from '@ies/server/jobs/push/push-schemas'`,
    `import { Environment } from '../../../plugins/environments/schemas.ts'`,
    `import { exportYaml } from '@ies/cli/export-config'`,
    `import { processFiles } from '@ies/processor-lib/tree'`,
    `import { extract } from '../../../processor-lib/src/catalog.ts'`,
    `import { summarize } from '@ies/processor-lib/contract/document'`,
    `import { createApiClient, PROVIDERS } from '@ies/api'`,
    `export const x = [CONFLICT_KINDS, Environment, exportYaml, processFiles, extract, summarize, createApiClient, PROVIDERS]`,
    `export type B = Behind`,
    '',
  ].join('\n')
  const messages = await restricted('desktop/src/lib/probe.ts', probe)
  t.equal(messages.length, 6, 'server (a type too), plugins, the CLI, processor-lib outside its contract: refused')
  t.match(messages[0], /Clients reach the server over HTTP/)
  t.match(messages[1], /Clients reach the server over HTTP/)
  t.match(messages[2], /Clients reach the server over HTTP/)
  t.match(messages[3], /The CLI is a client/)
  t.match(messages[4], /only the catalog contract/)
  t.match(messages[5], /only the catalog contract/)
})

t.test('the CLI reaches the server only through @ies/api', async (t) => {
  const probe = `import { ok } from '@ies/server/core/envelope'\nimport { Job } from '../../plugins/jobs/schemas.ts'\nimport { createApiClient } from '@ies/api'\nexport const x = [ok, Job, createApiClient]\n`
  const messages = await restricted('cli/src/probe.ts', probe)
  t.equal(messages.length, 2)
  for (const m of messages) t.match(m, /Clients reach the server over HTTP/)
})
