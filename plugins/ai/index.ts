// /api/ai: the configuration assistant (README.md beside this file). POST /chat answers through the
// configured model service, or through the built-in assistant when none is configured; either way
// its suggestions pass acceptSuggestions (catalog paths, catalog types, options and patterns only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger } from 'fastify'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { unavailable } from '@ies/server/core/errors'
import { builtinAssistant } from './builtin-assistant.ts'
import { catalogSourceFor, type Catalog } from './catalog-source.ts'
import { groundingFor } from './grounding.ts'
import { overlay } from './draft.ts'
import { draftOf, environmentView, type EnvironmentView } from './environment-view.ts'
import { modelAssistant } from './model-assistant.ts'
import { modelSettings } from './model-client.ts'
import { ChatReply, ChatRequest } from '@ies/api/schemas/ai'
import { acceptSuggestions } from './suggestions.ts'
import { NumberWords } from './number-words.ts'
import { readConversation } from './conversation.ts'
import { withinRules } from './policy-gate.ts'
import { indexCatalog } from './catalog-search.ts'
import { warmReading } from './warm-up.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 502: ErrorBody, 503: ErrorBody }

const ai: FastifyPluginAsyncTypebox = async (app) => {
  const catalogSource = catalogSourceFor(app)
  const environments = app.environments
  const model = modelSettings(app.config)
  // compromise reads numbers in words in a worker thread (number-words.ts), started by the first request that has any.
  const numberWords = new NumberWords()
  app.addHook('onClose', () => numberWords.close())

  async function loadCatalog(): Promise<Catalog> {
    // No view is logged by the source (the error's message, or the document's schemaVersion).
    const catalog = await catalogSource()
    if (!catalog) throw unavailable('The service catalog is unavailable; the assistant cannot answer')
    return catalog
  }

  /** The request's numbers in words, read before the (synchronous) reading of the request. */
  async function readNumbers(question: string, log: FastifyBaseLogger): Promise<void> {
    try {
      await numberWords.read(question)
    } catch (err) {
      log.error({ err: { message: (err as Error).message } }, 'assistant: numbers in words could not be read')
      throw unavailable('The assistant cannot read numbers in words right now; try again shortly')
    }
  }

  app.post(
    '/chat',
    {
      schema: {
        summary: 'Configuration assistant',
        description:
          'Answers through the configured model service (AI_BASE_URL) or the built-in catalog assistant. Suggestions name only catalog paths with values that pass the catalog; 502 AI_UNAVAILABLE when the model service fails.',
        body: ChatRequest,
        response: { 200: Envelope(ChatReply), ...errors },
      },
    },
    async (request) => {
      const { messages, environmentId } = request.body
      let environment: EnvironmentView | undefined
      if (environmentId) {
        const { env, team } = await environments.access(request.principal, environmentId, 'read')
        environment = environmentView(env, team?.name)
      }
      // The draft is what the user is editing; a stored environment fills in what the draft leaves out.
      const draft = overlay(environment && draftOf(environment), request.body.draft)
      const catalog = await loadCatalog()
      await readNumbers(readConversation(catalog, messages, draft).question, request.log)
      // A first request's parts each in a turn of the event loop of its own: the catalog's retrieval
      // index (built once per catalog document), the reading's warm-up (warm-up.ts), the reading, the rules (policy-gate.ts).
      indexCatalog(catalog)
      await warmReading(catalog)
      const answer = model
        ? await modelAssistant(model, { catalog, draft, environment, ...groundingFor(catalog, messages, draft, environment), messages })
        : builtinAssistant({ catalog, messages, draft, environment })
      const accepted = acceptSuggestions(catalog, answer.suggestions, draft)
      const { dropped } = accepted
      if (dropped > 0) request.log.info({ dropped, source: model ? 'model' : 'builtin' }, 'assistant: suggestions dropped')
      // Nor does it suggest what the organisation's rules refuse (policy-gate.ts).
      const { suggestions, refused } = await withinRules(app.policies, draft, accepted.suggestions, request.log)
      // A model's suggestion that does not fit the catalog is left out, and the user is told so.
      const notes = [
        ...(model && dropped > 0
          ? [`(${dropped} suggestion${dropped === 1 ? '' : 's'} did not fit the catalog and ${dropped === 1 ? 'was' : 'were'} left out.)`]
          : []),
        ...refused.map((r) => `(Not suggested: ${r.path} = ${JSON.stringify(r.value)}; the organisation's rules refuse it: ${r.because}.)`),
      ]
      const content = notes.length > 0 ? `${answer.content}\n\n${notes.join('\n')}` : answer.content
      return ok(request, { message: { role: 'assistant' as const, content }, suggestions })
    },
  )
}

export default ai
