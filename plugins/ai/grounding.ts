// What a model is given besides the catalog, so that it starts from the same facts as the built-in
// assistant: the review of the draft (values, relations, risky choices, what is missing), and for the
// last request the catalog entries retrieval finds and what the built-in reading proposes.
import type { Catalog } from './catalog-source.ts'
import { searchCatalog } from './catalog-search.ts'
import { readConversation } from './conversation.ts'
import type { Draft } from './draft.ts'
import { reviewDraft, type Finding } from './draft-review.ts'
import type { EnvironmentView } from './environment-view.ts'
import { MAX_CLAUSE_LENGTH, readRequest, type Reading } from './request-reading.ts'
import { riskReview } from './risk-review.ts'

export interface Grounding {
  review: Finding[]
  /** Catalog paths (or service keys) the last request's words find, best first. */
  relevant: string[]
  reading: Reading
  production: boolean
}

export function groundingFor(
  catalog: Catalog,
  messages: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>,
  draft: Draft | undefined,
  environment: EnvironmentView | undefined,
): Grounding {
  const { question, production, context } = readConversation(catalog, messages, draft)
  const relevant = [
    ...new Set(
      searchCatalog(catalog, question.toLowerCase().slice(0, MAX_CLAUSE_LENGTH)).map((h) => h.path ?? `services.${h.service}.enabled`),
    ),
  ].slice(0, 15)
  return {
    review: [...reviewDraft(catalog, draft, environment), ...riskReview(catalog, draft, production)],
    relevant,
    reading: readRequest(catalog, question, draft, { context, production }),
    production,
  }
}
