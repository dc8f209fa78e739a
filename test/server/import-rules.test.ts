// The import rules of eslint.config.js (ARCHITECTURE.md, "Layers") really refuse what they name:
// each probe is linted as if it were a file at that path; the allowed forms pass. The cycle rule
// is checked on small modules written to a scratch folder inside the repository.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ESLint } from 'eslint'

const eslint = new ESLint()

async function messagesOf(filePath: string, code: string, ruleId: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message)
}

const restricted = (filePath: string, code: string) => messagesOf(filePath, code, '@typescript-eslint/no-restricted-imports')

/** A probe module: the imports given, each name used as a value (or as a type for `import type`). */
function probe(...imports: string[]): string {
  const names = imports.flatMap((line) => [...(line.match(/\{ ([^}]+) \}/)?.[1].split(', ') ?? [])])
  const values = imports
    .filter((line) => !line.startsWith('import type'))
    .flatMap((line) => line.match(/\{ ([^}]+) \}/)?.[1].split(', ') ?? [])
  const types = names.filter((n) => !values.includes(n))
  return [...imports, `export const x = [${values.join(', ')}]`, ...types.map((n, i) => `export type T${i} = ${n}`), ''].join('\n')
}

t.test('server code imports neither plugins, the desktop nor the CLI', async (t) => {
  const messages = await restricted(
    'server/src/jobs/probe.ts',
    probe(
      `import { a } from '../../../plugins/environments/repository.ts'`,
      `import type { B } from '../../../plugins/environments/schemas.ts'`,
      `import { c } from '../../../desktop/src/renderer/auth.ts'`,
      `import { d } from '@ies/cli/output'`,
      `import { e } from '@ies/processor-lib/tree'`,
      `import { f } from '@ies/api'`,
      `import { g } from '../core/envelope.ts'`,
    ),
  )
  t.equal(messages.length, 4, 'plugins (a type too), the desktop, the CLI: refused; processor-lib, the API contract, core: allowed')
  t.match(messages[0], /The server never imports plugins/)
  t.match(messages[1], /The server never imports plugins/)
  t.match(messages[2], /The desktop is a client/)
  t.match(messages[3], /The CLI is a client/)
})

t.test('server core imports neither jobs, templates, idp nor web', async (t) => {
  const code = probe(
    `import { a } from '../jobs/queue/store.ts'`,
    `import { b } from '@ies/server/templates/source'`,
    `import type { C } from '../idp/index.ts'`,
    `import { d } from '../web/index.ts'`,
    `import { e } from './envelope.ts'`,
  )
  const messages = await restricted('server/src/core/probe.ts', code)
  t.equal(messages.length, 4)
  for (const m of messages) t.match(m, /Server core is the bottom layer of the server/)
  t.same(
    await restricted(
      'server/src/jobs/probe.ts',
      probe(`import { a } from '../core/errors.ts'`, `import { b } from '../templates/source.ts'`),
    ),
    [],
  )
  t.match((await restricted('server/src/jobs/probe.ts', probe(`import { a } from '../idp/index.ts'`)))[0], /The job engine imports neither/)
  t.match(
    (await restricted('server/src/idp/probe.ts', probe(`import { a } from '../jobs/queue/store.ts'`)))[0],
    /The identity provider stands on server core alone/,
  )
  t.match(
    (await restricted('server/src/templates/probe.ts', probe(`import { a } from '../jobs/queue/store.ts'`)))[0],
    /The templates source stands on server core alone/,
  )
  t.match(
    (await restricted('server/src/core/probe.ts', probe(`import { a } from '../../../plugins/jobs/service.ts'`)))[0],
    /The server never imports plugins/,
  )
})

t.test('a plugin takes only types from another plugin', async (t) => {
  const code = probe(
    `import { EnvironmentRepository } from '../environments/repository.ts'`,
    `import { Environment } from '../environments/schemas.ts'`,
    `import type { EnvironmentRecord } from '../environments/repository.ts'`,
    `import { testPattern } from '@ies/server/core/safe-pattern'`,
    `import { Job } from '@ies/api/schemas/jobs'`,
    `import { summarize } from '@ies/processor-lib/contract/document'`,
    `import { own } from './helpers.ts'`,
    `import { d } from '../../desktop/src/renderer/auth.ts'`,
    `import { c } from '../../cli/src/output.ts'`,
  )
  const messages = await restricted('plugins/ai/probe.ts', code)
  t.equal(messages.length, 4, "another plugin's values (schemas too), the desktop, the CLI: refused")
  t.match(messages[0], /Plugins meet through decorators/)
  t.match(messages[1], /Plugins meet through decorators/)
  t.match(messages[2], /The desktop is a client/)
  t.match(messages[3], /The CLI is a client/)
})

t.test('processor-lib imports no layer above it', async (t) => {
  const code = probe(
    `import { a } from '@ies/api'`,
    `import type { B } from '@ies/server/core/errors'`,
    `import { c } from '../../plugins/jobs/service.ts'`,
    `import { d } from '../../cli/src/output.ts'`,
    `import { e } from '../../desktop/src/renderer/auth.ts'`,
    `import { f } from './tree.ts'`,
    `import { readFile } from 'node:fs/promises'`,
  )
  const messages = await restricted('processor-lib/src/service/probe.ts', code)
  t.equal(messages.length, 5, 'api, server (a type too), plugins, cli, desktop: refused; its own modules and Node: allowed')
  for (const m of messages) t.match(m, /processor-lib is the library below/)
})

t.test('the catalog contract is browser-safe and takes only types from the rest of processor-lib', async (t) => {
  const code = [
    `import { readFile } from 'node:fs'`,
    `import { join } from 'path'`,
    `import { ProcessorError } from '../findings.ts'`,
    `import type { FindingCode } from '../findings.ts'`,
    `import { a } from '@ies/api'`,
    `import { fieldProblem } from './fields.ts'`,
    `export const x = [readFile, join, ProcessorError, a, fieldProblem]`,
    `export type F = FindingCode`,
    '',
  ].join('\n')
  const messages = await restricted('processor-lib/src/contract/probe.ts', code)
  t.equal(messages.length, 4)
  t.match(messages[0], /no Node modules/)
  t.match(messages[1], /no Node modules/)
  t.match(messages[2], /only types from the rest of processor-lib/)
  t.match(messages[3], /processor-lib is the library below/)
  const globals = await messagesOf('processor-lib/src/contract/probe.ts', `export const b = Buffer.from('x')\n`, 'no-restricted-globals')
  t.equal(globals.length, 1, 'Buffer refused')
})

t.test('the API contract is browser-safe: TypeBox and the catalog contract only', async (t) => {
  const code = probe(
    `import { readFile } from 'node:fs'`,
    `import { ok } from '@ies/server/core/envelope'`,
    `import type { Environment } from '../../plugins/environments/schemas.ts'`,
    `import { Session } from '../../cli/src/auth/session.ts'`,
    `import { env } from '../../desktop/src/renderer/auth.ts'`,
    `import { processFiles } from '@ies/processor-lib/tree'`,
    `import { yaml } from 'yaml'`,
    `import { summarize } from '@ies/processor-lib/contract/document'`,
    `import { Type } from '@sinclair/typebox'`,
    `import { PROVIDERS } from './values.ts'`,
  )
  const messages = await restricted('api/src/schemas/probe.ts', code)
  t.equal(messages.length, 7, 'Node, server, plugins (a type too), cli, desktop, processor-lib, another package: refused')
  t.match(messages[0], /runs in the browser: no Node modules/)
  for (const m of messages.slice(1, 5)) t.match(m, /imports no server, plugin, CLI or desktop code/)
  t.match(messages[5], /only the catalog contract of processor-lib/)
  t.match(messages[6], /depends on @sinclair\/typebox and the catalog contract only/)
  const [result] = await eslint.lintText(`export const b = Buffer.from('x')\nexport const e = process.env\n`, {
    filePath: 'api/src/probe.ts',
  })
  t.same(
    result.messages.map((m) => m.ruleId),
    ['no-restricted-globals', 'no-restricted-globals'],
    'Node globals refused',
  )
})

t.test('the CLI reaches the server only through @ies/api', async (t) => {
  const code = probe(
    `import { ok } from '@ies/server/core/envelope'`,
    `import type { Job } from '../../plugins/jobs/schemas.ts'`,
    `import { tree } from '@ies/processor-lib/tree'`,
    `import { auth } from '../../desktop/src/renderer/auth.ts'`,
    `import { createApiClient } from '@ies/api'`,
    `import { summarize } from '@ies/processor-lib/contract/document'`,
  )
  const messages = await restricted('cli/src/probe.ts', code)
  t.equal(messages.length, 4)
  t.match(messages[0], /Clients reach the server over HTTP/)
  t.match(messages[1], /Clients reach the server over HTTP/)
  t.match(messages[2], /only the catalog contract of processor-lib/)
  t.match(messages[3], /The desktop is a client/)
})

t.test('the desktop imports the API through @ies/api and of processor-lib only the catalog contract', async (t) => {
  const code = probe(
    `import { CONFLICT_KINDS } from '@ies/server/jobs/push/push-schemas'`,
    `import type { Behind } from '@ies/server/jobs/push/push-schemas'`,
    `import { Environment } from '../../../plugins/environments/schemas.ts'`,
    `import { exportYaml } from '@ies/cli/export-config'`,
    `import { processFiles } from '@ies/processor-lib/tree'`,
    `import { extract } from '../../../processor-lib/src/catalog.ts'`,
    `import { summarize } from '@ies/processor-lib/contract/document'`,
    `import { check } from '../../../processor-lib/src/contract/fields.ts'`,
    `import { createApiClient } from '@ies/api'`,
  )
  const messages = await restricted('desktop/src/main/probe.ts', code)
  t.equal(messages.length, 6, 'server (a type too), plugins, the CLI, processor-lib outside its contract: refused')
  for (const m of messages.slice(0, 3)) t.match(m, /Clients reach the server over HTTP/)
  t.match(messages[3], /The CLI is a client/)
  t.match(messages[4], /only the catalog contract/)
  t.match(messages[5], /only the catalog contract/)
})

t.test("the desktop's renderer, main process and bridge types keep to their side", async (t) => {
  const renderer = await restricted(
    'desktop/src/renderer/screens/probe.tsx',
    probe(
      `import { readFile } from 'node:fs'`,
      `import type { Server } from 'node:http'`,
      `import { refreshTokens } from '../../main/refresh-token-store.ts'`,
      `import type { Bridge } from '../../shared/bridge.ts'`,
      `import { createApiClient } from '@ies/api'`,
    ),
  )
  t.equal(renderer.length, 3, 'Node (a type too) and the main process: refused; the bridge types and the API: allowed')
  t.match(renderer[0], /The renderer runs in the browser/)
  t.match(renderer[1], /The renderer runs in the browser/)
  t.match(renderer[2], /The renderer never imports the main process/)

  const main = await restricted(
    'desktop/src/main/probe.ts',
    probe(
      `import { readFile } from 'node:fs'`,
      `import { App } from '../renderer/App.tsx'`,
      `import type { Bridge } from '../shared/bridge.ts'`,
    ),
  )
  t.equal(main.length, 1, 'Node and the bridge types: allowed; the renderer: refused')
  t.match(main[0], /The main process never imports the renderer/)

  const shared = await restricted(
    'desktop/src/shared/probe.ts',
    probe(
      `import type { Server } from 'node:http'`,
      `import type { Settings } from '../main/settings.ts'`,
      `import type { Environment } from '@ies/api'`,
    ),
  )
  t.equal(shared.length, 2, 'Node and the rest of the desktop: refused; the API: allowed')
  t.match(shared[0], /The bridge types are shared with the renderer: no Node modules/)
  t.match(shared[1], /The bridge types import only @ies\/api/)
})

t.test('no import cycle, type-only imports included', async (t) => {
  const dir = await mkdtemp(join('test', 'server', '.cycle-probe-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'b.ts'), `import type { A } from './a.ts'\nexport interface B { a: A }\n`)
  await writeFile(join(dir, 'c.ts'), `import { d } from './d.ts'\nexport const c = d\n`)
  await writeFile(join(dir, 'd.ts'), `import { a } from './a.ts'\nexport const d = a\n`)
  await writeFile(join(dir, 'a.ts'), `export const a = 1\n`)
  const cycles = (code: string) => messagesOf(join(dir, 'a.ts'), code, 'ies/no-cycle')

  const typeCycle = await cycles(`import type { B } from './b.ts'\nexport interface A { b?: B }\nexport const a = 1\n`)
  t.equal(typeCycle.length, 1, 'a type-only cycle is refused')
  t.match(typeCycle[0], /Import cycle: .*a\.ts -> .*b\.ts -> .*a\.ts\. Move what both sides need/)

  const longCycle = await cycles(`import { c } from './c.ts'\nexport const a = 1\nexport const x = c\n`)
  t.equal(longCycle.length, 1, 'a cycle through three modules is refused')
  t.match(longCycle[0], /a\.ts -> .*c\.ts -> .*d\.ts -> .*a\.ts/)

  t.same(await cycles(`import { readFile } from 'node:fs'\nexport const a = readFile\n`), [], 'no cycle: nothing reported')

  // The workspace aliases resolve to the source file: findings.ts importing the library's lint.ts
  // (which imports findings.ts) through `@ies/processor-lib/lint` closes a cycle.
  const aliased = await messagesOf(
    'processor-lib/src/findings.ts',
    `import { lintDecorators } from '@ies/processor-lib/lint'\nexport const x = lintDecorators\n`,
    'ies/no-cycle',
  )
  t.equal(aliased.length, 1, 'a cycle through a workspace alias is refused')
  t.match(aliased[0], /processor-lib\/src\/findings\.ts -> processor-lib\/src\/lint\.ts -> processor-lib\/src\/findings\.ts/)
})
