// The JSON body parser of the API: strict UTF-8 (bytes that are not UTF-8 are refused, never turned
// into U+FFFD and stored) and a bound on nesting depth (a deeply nested body would otherwise reach
// recursive code such as the merge patch and exhaust the stack). Then Fastify's own parser, which
// refuses `__proto__` and `constructor.prototype` keys.
import type { FastifyInstance } from 'fastify'
import { validationError } from './errors.ts'

/** Deeper than any body of the API (environments nest four levels); the bound is on bytes scanned, not recursion. */
export const MAX_JSON_DEPTH = 64

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The deepest nesting of objects and arrays in JSON text (strings skipped), stopping past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max
    } else if (c === 125 || c === 93) depth--
  }
  return max
}

export function registerJsonBodyParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string
    try {
      text = utf8.decode(body as Buffer)
    } catch {
      return done(validationError([{ field: '(body)', message: 'must be UTF-8' }], 'Request body is not valid UTF-8'), undefined)
    }
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      return done(validationError([{ field: '(body)', message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }], 'Request body is nested too deeply'), undefined)
    }
    return parse(request, text, done)
  })
}
