// The JSON body parser of the API: UTF-8 only (a `charset` other than UTF-8 is refused, and bytes
// that are not UTF-8 are never turned into U+FFFD and stored), a bound on nesting depth (a deeply
// nested body would otherwise reach recursive code such as the merge patch and exhaust the stack),
// and no duplicate keys (`{"name":"a","name":"b"}` means "a" to one parser and "b" to another: the
// ambiguity is refused, naming the key). Both come from one linear pass over the text (jsonShape).
// Then Fastify's own parser, which refuses `__proto__` and `constructor.prototype` keys: that refusal
// is reported as such, not as "not valid JSON". JSON is the only body type: Fastify's text/plain
// parser is removed, so every other type is refused with the field `(content-type)`.
//
// Hand-written rather than a library: the duplicate-key packages tokenize the whole body a second
// time in JavaScript with a parser of their own; this is the depth scan the parser already made,
// keeping one set of keys per open object, so it stays one pass and linear in the body size.
import type { FastifyInstance } from 'fastify'
import { validationError } from './errors.ts'

/** Deeper than any body of the API (environments nest four levels); the bound is on bytes scanned, not recursion. */
export const MAX_JSON_DEPTH = 64
/**
 * Most keys plus objects and arrays in one body. The largest environment the API accepts (100
 * services of 100 fields) has about 10,000; a megabyte of tiny members (`{"k1":1,"k2":1,…}`, some
 * 90,000) costs JSON.parse alone hundreds of milliseconds, so it is refused before it is parsed.
 */
export const MAX_JSON_MEMBERS = 20_000

const utf8 = new TextDecoder('utf-8', { fatal: true })

export interface JsonShape {
  /** The deepest nesting of objects and arrays, counted up to `limit + 1`. */
  depth: number
  /** The dotted path of the first key that repeats in its object (`services.eks.enabled`), if any. */
  duplicateKey?: string
  /** Set when the text holds more than `maxMembers` keys, objects and arrays (the scan stopped there). */
  tooManyMembers?: boolean
}

/** One open object (its keys so far and the key being read) or array (its index). */
type Frame = { keys: Set<string>; key: string } | { index: number }

/** Decodes a key's JSON string text (between the quotes); escapes make `"a"` and `"\u0061"` one key. */
function keyText(raw: string): string {
  if (!raw.includes('\\')) return raw
  try {
    return JSON.parse(`"${raw}"`) as string
  } catch {
    return raw // malformed: JSON.parse of the whole body reports it
  }
}

/**
 * Depth and the first duplicate key of JSON text, in one pass (strings are skipped over). Stops as
 * soon as the depth passes `limit`. Text that is not JSON gives an unspecified shape: the parser
 * that runs afterwards refuses it.
 */
export function jsonShape(text: string, limit = Infinity, maxMembers = Infinity): JsonShape {
  const stack: Frame[] = []
  let max = 0
  let members = 0
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      const start = i + 1
      const end = stringEnd(text, start)
      i = end
      const top = stack[stack.length - 1]
      if (expectKey && top && 'keys' in top) {
        const key = keyText(text.slice(start, end))
        top.key = key
        if (top.keys.has(key)) return { depth: max, duplicateKey: pathOf(stack) }
        top.keys.add(key)
        expectKey = false
        if (++members > maxMembers) return { depth: max, tooManyMembers: true }
      }
    } else if (c === 123 || c === 91) {
      stack.push(c === 123 ? { keys: new Set(), key: '' } : { index: 0 })
      expectKey = c === 123
      if (++members > maxMembers) return { depth: max, tooManyMembers: true }
      if (stack.length > max && (max = stack.length) > limit) return { depth: max }
    } else if (c === 125 || c === 93) {
      stack.pop()
      expectKey = false
    } else if (c === 44) {
      const top = stack[stack.length - 1]
      if (top && 'keys' in top) expectKey = true
      else if (top) top.index++
    }
  }
  return { depth: max }
}

/** The index of the quote that closes the string starting at `start` (text.length when none does). */
function stringEnd(text: string, start: number): number {
  for (let j = start; ; j++) {
    j = text.indexOf('"', j)
    if (j === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(j - 1 - backslashes) === 92) backslashes++
    if (backslashes % 2 === 0) return j
  }
}

function pathOf(stack: Frame[]): string {
  return stack.map((frame) => ('keys' in frame ? frame.key : String(frame.index))).join('.')
}

/** The deepest nesting of objects and arrays in JSON text (strings skipped), stopping past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  return jsonShape(text, limit).depth
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
    const shape = jsonShape(text, MAX_JSON_DEPTH, MAX_JSON_MEMBERS)
    if (shape.tooManyMembers) {
      return done(
        validationError(
          [{ field: '(body)', message: `must not hold more than ${MAX_JSON_MEMBERS} keys, objects and arrays` }],
          'Request body has too many members',
        ),
        undefined,
      )
    }
    if (shape.depth > MAX_JSON_DEPTH) {
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
      if (!err && shape.duplicateKey !== undefined) {
        return done(
          validationError(
            [{ field: shape.duplicateKey || '(body)', message: 'is a duplicate key: each key may appear once in an object' }],
            'Request body contains a duplicate key',
          ),
          undefined,
        )
      }
      done(err, value)
    })
  })
}
