// Helpers for the assistant tests: one chat call over real HTTP, and the catalog the server reads.
import { extractCatalog } from '@ies/processor-lib'
import type { TestApp, TestUser } from '../../harness/app.ts'
import { fieldAt, valueProblem } from '@ies/processor-lib/contract/fields'
import { testPattern } from '@ies/server/core/safe-pattern'
import { catalogView, type TypedCatalog as Catalog } from '../../../processor-lib/src/contract/view.ts'

export async function chat(ctx: TestApp, body: unknown, user: TestUser = 'dev') {
  const res = await fetch(`${ctx.url}/api/ai/chat`, {
    method: 'POST',
    headers: { ...ctx.auth(user), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const raw = await res.text()
  return { status: res.status, body: JSON.parse(raw), raw }
}

export const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content }], ...extra })

/** The catalog the server reads, as the assistant views it (types coerced, defaults typed). */
export async function bundledCatalog(ctx: TestApp): Promise<Catalog> {
  return catalogView(await extractCatalog({ templatesDir: ctx.config.templates.dir, provider: 'aws' })).catalog
}

/** True when every suggestion names a catalog path and its value passes the field (checked independently of the route). */
export function allValid(catalog: Catalog, suggestions: Array<{ path: string; value: unknown }>): boolean {
  return suggestions.every((s) => {
    const ref = fieldAt(catalog, s.path)
    return ref !== null && valueProblem(ref, s.value, testPattern) === null
  })
}
