// ESLint rule `ies/contract-schemas`: the schemas of the API's requests and responses have one home,
// api/src/schemas/ (@ies/api). A module where the rule applies (the server and the plugins) may not
// build a TypeBox schema: it imports no value of `@sinclair/typebox` (its `Type`, `Kind`, ...) and not
// the `Type` that `@fastify/type-provider-typebox` re-exports. Types (`import type { Static }`) are
// fine: they vanish at run time and describe the contract's own schemas. A route composes the
// contract's schemas with the envelope's helpers (`Envelope`, `ArrayEnvelope`, `ListEnvelope`).

const typebox = /^@sinclair\/typebox(\/|$)/
const provider = '@fastify/type-provider-typebox'

/** The names an import declaration brings in as values (not `import type`, not `{ type X }`). */
function valueNames(node) {
  if (node.importKind === 'type') return []
  return node.specifiers
    .filter((s) => s.importKind !== 'type')
    .map((s) => (s.type === 'ImportSpecifier' ? (s.imported.name ?? s.imported.value) : s.local.name))
}

const contractSchemas = {
  meta: {
    type: 'problem',
    docs: { description: 'Request and response schemas come from @ies/api (api/src/schemas/), never built beside a route.' },
    schema: [],
    messages: {
      schema:
        'Request and response schemas live in api/src/schemas/ (@ies/api): declare `{{name}}` there and import it; here only `import type` of TypeBox.',
    },
  },
  create(context) {
    return {
      ImportDeclaration(node) {
        const from = node.source.value
        const names = valueNames(node)
        const refused = typebox.test(from) ? names : from === provider ? names.filter((n) => n === 'Type') : []
        for (const name of refused) context.report({ node, messageId: 'schema', data: { name } })
      },
    }
  },
}

export default contractSchemas
