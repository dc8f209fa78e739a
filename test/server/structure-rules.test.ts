// The structure rules of eslint.config.js really refuse what they name: each probe is linted as if it
// were a file at that path, and the allowed forms pass.
import t from 'tap'
import { ESLint } from 'eslint'

const eslint = new ESLint()

async function messagesOf(filePath: string, code: string, ruleId: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message)
}

t.test('a plugin or the server builds no request or response schema: they come from @ies/api', async (t) => {
  const route = [
    `import { Type } from '@sinclair/typebox'`,
    `import { Kind } from '@sinclair/typebox/type'`,
    `import { Type as T } from '@fastify/type-provider-typebox'`,
    `export const Body = [Type.Object({}), Kind, T.String()]`,
    '',
  ].join('\n')
  for (const path of ['plugins/environments/probe.ts', 'server/src/core/probe.ts', 'server/src/jobs/queue/probe.ts']) {
    const messages = await messagesOf(path, route, 'ies/contract-schemas')
    t.equal(messages.length, 3, `${path}: TypeBox's values and the provider's Type are refused`)
    t.match(messages[0], /Request and response schemas live in api\/src\/schemas\//)
  }
  const allowed = [
    `import type { Static } from '@sinclair/typebox'`,
    `import { type TSchema } from '@sinclair/typebox'`,
    `import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'`,
    `import { Envelope } from '@ies/server/core/envelope'`,
    `import { Job } from '@ies/api/schemas/jobs'`,
    `export type A = Static<typeof Job> | TSchema | FastifyPluginAsyncTypebox`,
    `export const B = Envelope(Job)`,
    '',
  ].join('\n')
  t.same(await messagesOf('plugins/environments/probe.ts', allowed, 'ies/contract-schemas'), [], 'types and the contract pass')
  t.same(await messagesOf('api/src/schemas/probe.ts', route, 'ies/contract-schemas'), [], 'the contract itself builds them')
})

const lines = (n: number, line: string) => Array.from({ length: n }, () => line).join('\n')

t.test('units a reader can hold in mind: a file 400 lines, a class 200, a function or a component 120', async (t) => {
  const file = `${lines(401, 'export const a = 1')}\n`
  t.same(await messagesOf('plugins/environments/probe.ts', file, 'max-lines'), ['File has too many lines (401). Maximum allowed is 400.'])
  const klass = `export class Big {\n${lines(199, '  a = 1')}\n}\n`
  t.match(await messagesOf('server/src/core/probe.ts', klass, 'ies/max-class-lines'), [/Big has 201 lines; at most 200/])
  const small = `export class Small {\n${lines(198, '  a = 1')}\n}\n`
  t.same(await messagesOf('server/src/core/probe.ts', small, 'ies/max-class-lines'), [], 'a class of 200 lines passes')
  const component = (n: number) => `export function Screen() {\n${lines(n - 3, '  void 0')}\n  return null\n}\n`
  const probe = 'desktop/src/renderer/screens/Probe.tsx'
  t.match(await messagesOf(probe, component(121), 'max-lines-per-function'), [/'Screen' has too many lines \(121\)/])
  t.same(await messagesOf(probe, component(120), 'max-lines-per-function'), [], 'a component of 120 lines passes')
})
