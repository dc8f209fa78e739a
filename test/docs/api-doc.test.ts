// docs/api.md is kept in step with the OpenAPI document the server serves (scripts/api-doc-check.ts):
// every route and every request member (body and query) named, no route or body member that no longer
// exists. The checker is also run on doctored copies, so that it is known to fail when a route or a
// member is added without its line, and to say which line to add.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { apiDocProblems, topLevelMembers, type OpenApiDocument } from '../../scripts/api-doc-check.ts'
import { startTestApp } from '../harness/app.ts'

const API_MD = join(import.meta.dirname, '..', '..', 'docs', 'api.md')

t.test('docs/api.md and the served OpenAPI document', async (t) => {
  const { app, auth } = await startTestApp(t)
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json', headers: auth('dev') })
  t.equal(res.statusCode, 200)
  const doc = res.json() as OpenApiDocument
  const markdown = readFileSync(API_MD, 'utf8')

  t.same(apiDocProblems(doc, markdown), [], 'api.md names every route and request member, and nothing that no longer exists')

  await t.test('a route added without its line is reported with the line to add', async (t) => {
    const added = structuredClone(doc)
    added.paths['/api/environments/{id}/forecast'] = {
      post: {
        requestBody: { content: { 'application/json': { schema: { properties: { dryRun: {}, target: {} }, required: ['target'] } } } },
      },
    }
    added.paths['/api/policies/'] = { get: { parameters: [{ in: 'query', name: 'page' }] } }
    t.same(apiDocProblems(added, markdown), [
      'docs/api.md does not document POST /api/environments/:id/forecast: add a row to the table under "## Environments — `/api/environments` (details: `plugins/environments/README.md`)": | `POST /:id/forecast` | <status and answer>; body `{ dryRun?, target }` |',
      'docs/api.md does not document GET /api/policies: add a line naming `GET /api/policies` `?page` (what it answers)',
    ])
  })

  await t.test('a request member added without its mention is reported', async (t) => {
    const added = structuredClone(doc)
    const push = added.paths['/api/environments/{id}/push'].post
    push.requestBody!.content!['application/json'].schema!.properties!.force = {}
    const found = apiDocProblems(added, markdown)
    t.equal(found.length, 1)
    t.match(
      found[0],
      /^docs\/api\.md:\d+: POST \/api\/environments\/:id\/push does not name its body member\(s\) "force": write its body in that line, body `\{ format\?, options\?, generationJobId\?, dryRun\?, strategy\?, plan\?, confirmDestroy\?, force\? \}`$/,
    )
  })

  await t.test('a route or a body member that no longer exists is reported', async (t) => {
    const stale = markdown
      .replace('| `DELETE /:id` |', '| `DELETE /:id` | | `POST /:id/archive` |')
      .replace(
        '`{ format?, options?, generationJobId?, dryRun?, strategy?, plan?, confirmDestroy? }`',
        '`{ format?, options?, generationJobId?, dryRun?, strategy?, plan?, confirmDestroy?, branch? }`',
      )
    const found = apiDocProblems(doc, stale)
    t.equal(found.length, 2, found.join('\n'))
    t.match(found.join('\n'), /POST \/api\/environments\/:id\/push's body names "branch", which the route does not take: remove it/)
    t.match(found.join('\n'), /names POST \/api\/environments\/:id\/archive, which the server does not serve/)
  })

  await t.test('a route whose line is removed is reported', async (t) => {
    const removed = markdown
      .split('\n')
      .filter((l) => !l.startsWith('| `GET /:id/history/:entryId`'))
      .join('\n')
    t.match(apiDocProblems(doc, removed), [/^docs\/api\.md does not document GET \/api\/environments\/:id\/history\/:entryId: add a row/])
  })
})

t.test('members of a body description', async (t) => {
  t.same(topLevelMembers('{ ids?, names: [string], waves?: { pattern }[], to? }'), ['ids', 'names', 'waves', 'to'])
  t.same(topLevelMembers('{ preferences: { theme?, defaultProvider? } }'), ['preferences'])
})
