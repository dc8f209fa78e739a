// What a conversation asks now: the question (for "why?", the request before it), whether it is about
// production, and the services it is about (for a follow-up that names none: "make it multi-AZ").
// The built-in assistant and the model's prompt read a conversation alike.
import type { Catalog } from './catalog-source.ts'
import { valueAt, type Draft } from './draft.ts'
import { asksProduction, servicesOf } from './request-reading.ts'
import { namesProduction } from './risk-review.ts'

export interface Conversation {
  /** The request to answer: the last user message, or the one before a "why?". */
  question: string
  /** The last message asks why the previous suggestions were made. */
  why: boolean
  /** The draft's name says production, or a user message asks for it. */
  production: boolean
  /** The services the conversation is about, newest first (looked up when called). */
  context: () => string[]
}

const WHY = /^\s*(why|why\s+(that|this|so|these)|how\s+come|explain\s+(that|this|these)|reasons?)\s*\??\s*$/i

export function readConversation(
  catalog: Catalog,
  messages: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>,
  draft: Draft | undefined,
): Conversation {
  const userTurns = messages.filter((m) => m.role === 'user').map((m) => m.content)
  let question = userTurns.at(-1) ?? ''
  let earlier = userTurns.slice(0, -1)
  const why = WHY.test(question) && earlier.length > 0
  if (why) {
    question = earlier.at(-1)!
    earlier = earlier.slice(0, -1)
  }
  const lastAnswer = messages
    .filter((m) => m.role === 'assistant')
    .slice(-1)
    .map((m) => m.content)
  return {
    question,
    why,
    production: namesProduction(draft) || userTurns.some(asksProduction),
    context: () => contextOf(catalog, earlier, lastAnswer, draft),
  }
}

/**
 * The services of the latest earlier request that named any, else those the last answer set
 * (`services.<key>.` paths), else the draft's enabled services.
 */
function contextOf(catalog: Catalog, earlier: string[], lastAnswer: string[], draft: Draft | undefined): string[] {
  // The last few requests only: a follow-up refers to what was just said.
  for (const text of earlier.slice(-3).reverse()) {
    const named = servicesOf(catalog, text)
    if (named.length > 0) return named
  }
  for (const text of lastAnswer) {
    const paths = [...text.matchAll(/services\.([a-z0-9_-]+)\./gi)].map((m) => m[1]).filter((s) => Object.hasOwn(catalog.services, s))
    if (paths.length > 0) return [...new Set(paths)]
  }
  return Object.keys(draft?.services ?? {}).filter((s) => valueAt(draft, `services.${s}.enabled`) === true)
}
