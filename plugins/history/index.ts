// The change history of environments (README.md beside this file):
//   GET /environments/:id/history             its entries, newest first, paginated like every list
//   GET /environments/:id/history/:entryId    one entry, with the configuration after it
//   GET /admin/history?from=&to=&environmentId=  every entry in a time window as JSON lines (admins)
// Restoring an entry's configuration is a change of the environment: POST
// /environments/:id/history/:entryId/restore, in plugins/environments (it follows PUT's rules).
// Entries cannot be changed or deleted through the API.
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ListEnvelope, ok, page } from '@ies/server/core/envelope'
import { fieldError, notFound } from '@ies/server/core/errors'
import { EntryParams, ExportQuery, HistoryEntry, HistoryEntryDetail, HistoryListQuery, HistoryParams } from '@ies/api/schemas/history'
import type { StoredEntry } from './store.ts'

export const autoPrefix = '/'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

/** An entry as served: `at` in ISO 8601; the configuration only where asked for. */
function served(entry: StoredEntry, withConfiguration: boolean): HistoryEntryDetail {
  const { configuration, at, ...rest } = entry
  return { ...rest, at: at.toISOString(), ...(withConfiguration && configuration && { configuration }) }
}

const history: FastifyPluginAsyncTypebox = async (app) => {
  const store = app.history.store

  /**
   * The one rule for who may read an environment's history: whoever may read the environment
   * (`GET /api/environments/:id`); a 404 for anyone else. A deleted environment's history is
   * read by admins through the export.
   */
  async function readable(request: FastifyRequest, id: string): Promise<void> {
    // The environment's read rule (owner, or a member of its team in any role): 404 otherwise.
    await app.environments.access(request.principal, id, 'read')
  }

  app.get(
    '/environments/:id/history',
    { schema: { params: HistoryParams, querystring: HistoryListQuery, response: { 200: ListEnvelope(HistoryEntry), ...errors } } },
    async (request) => {
      const { id } = request.params
      const { page: p, limit } = request.query
      // The count is read beside the visibility check (both by `_id`); it is answered only if readable.
      const counting = store.count(id)
      counting.catch(() => {})
      await readable(request, id)
      const total = await counting
      const newest = total - (p - 1) * limit
      const entries = await store.range(id, Math.max(1, newest - limit + 1), newest)
      return page(
        request,
        entries.map((e) => served(e, false)),
        { page: p, limit, total },
      )
    },
  )

  app.get(
    '/environments/:id/history/:entryId',
    { schema: { params: EntryParams, response: { 200: Envelope(HistoryEntryDetail), ...errors } } },
    async (request) => {
      const { id, entryId } = request.params
      await readable(request, id)
      const entry = await store.entry(id, entryId)
      if (!entry) throw notFound('History entry not found')
      return ok(request, served(entry, true))
    },
  )

  app.get(
    '/admin/history',
    {
      onRequest: app.requireAdmin,
      schema: {
        querystring: ExportQuery,
        response: {
          200: {
            description: 'One history entry (with its configuration) per line.',
            content: { 'application/x-ndjson': { schema: { type: 'string' } } },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { environmentId } = request.query
      const from = new Date(request.query.from ?? 0)
      const to = request.query.to === undefined ? new Date() : new Date(request.query.to)
      if (from >= to) throw fieldError('to', 'must be later than from')
      const entries = environmentId === undefined ? store.between(from, to) : store.ofEnvironment(environmentId, from, to)
      const lines = (async function* () {
        for await (const entry of entries) yield `${JSON.stringify(served(entry, true))}\n`
      })()
      const name = `ies-history-${from.toISOString()}-${to.toISOString()}.ndjson`.replace(/:/g, '')
      return reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(Readable.from(lines))
    },
  )
}

export default history
