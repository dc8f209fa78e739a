// The API's error codes are written once, in api/src/errors.ts: the server's error factories and
// handlers (server/src/core/errors.ts), the rest of the server and the plugins take them from there and never spell one out.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { OPEN_CODES, SPEC_CODES } from '@ies/api/errors'
import { AppError, conflict, forbidden, notFound, tokenExpired, unauthorized, unavailable, validationError } from '@ies/server/core/errors'

const ROOT = join(import.meta.dirname, '..', '..', '..')
const CODES = [...Object.values(SPEC_CODES), ...Object.values(OPEN_CODES)]

/** The lines of a file that spell one of the codes as a string literal. */
function literalCodes(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return text
    .split('\n')
    .map((line, i) => ({ line: line.trim(), n: i + 1 }))
    .filter(({ line }) => !/^(\/\/|\/\*|\*)/.test(line) && CODES.some((code) => line.match(new RegExp(`['"\`]${code}['"\`]`))))
    .map(({ line, n }) => `${file}:${n}: ${line}`)
}

const sourceFiles = (folder: string) =>
  readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(folder, f))

t.test('no error code is written outside the API contract', async (t) => {
  t.same(sourceFiles('server/src').flatMap(literalCodes), [], 'server/src/')
  t.same(sourceFiles('plugins').flatMap(literalCodes), [], 'plugins/')
})

t.test('the error factories answer the contract codes', async (t) => {
  t.same(Object.values(SPEC_CODES), [
    'VALIDATION_ERROR',
    'CREDENTIAL_IN_USE',
    'UNAUTHORIZED',
    'TOKEN_EXPIRED',
    'FORBIDDEN',
    'NOT_FOUND',
    'CONFLICT',
  ])
  const made: [AppError, string, number][] = [
    [validationError([{ field: 'name', message: 'is required' }]), 'VALIDATION_ERROR', 400],
    [unauthorized(), 'UNAUTHORIZED', 401],
    [tokenExpired(), 'TOKEN_EXPIRED', 401],
    [forbidden(), 'FORBIDDEN', 403],
    [notFound(), 'NOT_FOUND', 404],
    [conflict('taken'), 'CONFLICT', 409],
    [unavailable(), 'SERVICE_UNAVAILABLE', 503],
  ]
  for (const [error, code, status] of made) {
    t.equal(error.code, code)
    t.equal(error.statusCode, status)
  }
})
