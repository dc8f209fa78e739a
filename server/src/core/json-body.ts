// The JSON body parser of the API: UTF-8 only (a `charset` other than UTF-8 is refused, and bytes
// that are not UTF-8 are never turned into U+FFFD and stored) and a bound on nesting depth (a deeply
// nested body would otherwise reach recursive code such as the merge patch and exhaust the stack).
// Then Fastify's own parser, which refuses `__proto__` and `constructor.prototype` keys: that refusal
// is reported as such, not as "not valid JSON". JSON is the only body type: Fastify's text/plain
// parser is removed, so every other type is refused with the field `(content-type)`.
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
      if (c === 92)
        i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max
    } else if (c === 125 || c === 93) depth--
  }
  return max
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export function registerJsonBodyParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase()
    if (charset && charset !== 'utf-8' && charset !== 'utf8') {
      return done(
        validationError(
          [{ field: '(content-type)', message: 'must be application/json in UTF-8' }],
          `Unsupported charset ${charset}; send UTF-8 JSON`,
        ),
        undefined,
      )
    }
    let text: string
    try {
      text = utf8.decode(body as Buffer)
    } catch {
      return done(validationError([{ field: '(body)', message: 'must be UTF-8' }], 'Request body is not valid UTF-8'), undefined)
    }
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      return done(
        validationError(
          [{ field: '(body)', message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }],
          'Request body is nested too deeply',
        ),
        undefined,
      )
    }
    return parse(request, text, (err, value) => {
      // Fastify's parser says only "invalid"; JSON that JSON.parse accepts was refused for its keys.
      if ((err as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' && parsesAsJson(text)) {
        return done(
          validationError(
            [{ field: '(body)', message: 'must not contain the key __proto__ or constructor.prototype' }],
            'Request body contains a forbidden key',
          ),
          undefined,
        )
      }
      done(err, value)
    })
  })
}
