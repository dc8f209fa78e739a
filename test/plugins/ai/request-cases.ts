// Runs real requests against the built-in assistant over HTTP: each request, sent with its draft
// (and, for follow-ups, the conversation before it, with the assistant's real answers), must yield
// the expected suggestions (path = value) and, with `only`, no other; what it cannot do must be said.
// The catalog is the bundled templates' one, as GET /api/catalog serves it.
import type { Test } from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { allValid, bundledCatalog, chat } from './helpers.ts'

type Value = string | number | boolean

export interface Case {
  /** The user's messages, oldest first; the last one is the request under test. */
  ask: string | string[]
  draft?: Record<string, unknown>
  /** Suggestions that must be there, path -> value. */
  expect?: Record<string, Value>
  /** Paths that must not be suggested. */
  not?: string[]
  /** Exactly these paths (no other suggestion). */
  only?: boolean
  /** The answer's text must match. */
  says?: RegExp
  /** The answer's text must not match. */
  saysNot?: RegExp
  /** The reason of a suggestion must match (path -> pattern). */
  reasons?: Record<string, RegExp>
}

export const base = { name: 'shop', globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', domain: '' }
export const withServices = (services: Record<string, Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
  ...base,
  ...extra,
  services,
})

export async function runRequestCases(t: Test, cases: Record<string, Case>) {
  const ctx = await startTestApp(t)
  const catalog = await bundledCatalog(ctx)
  for (const [name, c] of Object.entries(cases)) {
    t.test(name, async (t) => {
      const asks = Array.isArray(c.ask) ? c.ask : [c.ask]
      const draft = c.draft ?? { ...base, services: {} }
      const messages: Array<{ role: string; content: string }> = []
      let reply: { message: { content: string }; suggestions: Array<{ path: string; value: Value; reason: string }> } | undefined
      for (const content of asks) {
        messages.push({ role: 'user', content })
        const res = await chat(ctx, { messages, draft })
        t.equal(res.status, 200, res.raw.slice(0, 300))
        reply = res.body.data
        messages.push({ role: 'assistant', content: reply!.message.content })
      }
      const got = Object.fromEntries(reply!.suggestions.map((s) => [s.path, s.value]))
      const shown = `${JSON.stringify(got)}\n${reply!.message.content}`
      for (const [path, value] of Object.entries(c.expect ?? {})) t.same(got[path], value, `${path} = ${JSON.stringify(value)}: ${shown}`)
      for (const path of c.not ?? []) t.notOk(path in got, `not ${path}`)
      if (c.only) t.same(Object.keys(got).sort(), Object.keys(c.expect ?? {}).sort(), `only the expected suggestions: ${shown}`)
      if (c.says) t.match(reply!.message.content, c.says)
      if (c.saysNot) t.notMatch(reply!.message.content, c.saysNot)
      for (const [path, re] of Object.entries(c.reasons ?? {}))
        t.match(reply!.suggestions.find((s) => s.path === path)?.reason ?? '', re, `the reason of ${path}`)
      t.ok(allValid(catalog, reply!.suggestions), 'every suggestion passes the catalog')
      t.ok(
        reply!.suggestions.every((s) => s.reason.length > 10),
        'every suggestion says why',
      )
    })
  }
}
