// Catalog patterns come from template decorators, so a careless (or hostile) template author could
// ship a regex with catastrophic backtracking. Every pattern test the assistant makes goes through
// here (the environment checks and the assistant), bounded four ways:
//   1. the pattern is at most PATTERN_MAX_LENGTH characters and must compile; one that does not is
//      'uncompilable', and like the wizard (catalog consumption rule 2) the caller drops only that
//      field's pattern check;
//   2. the tested value is at most VALUE_MAX_LENGTH characters (longer values fail the pattern);
//   3. a pattern the shared static check (the catalog contract's pattern-safety.ts, also used by
//      the wizard) finds able to backtrack catastrophically is 'unsafe' at once, without running it;
//   4. the match runs inside a `vm` script with a timeout of MATCH_TIMEOUT_MS, which V8 enforces
//      inside a backtracking regex. The timeout is wall time, so a busy machine can trip it for an
//      innocent pattern: a timed-out match is retried once, and only a second timeout marks the
//      pattern 'unsafe'; every later test against it answers at once without running it (a value
//      that cannot be checked is never suggested). A catastrophic pattern costs at most two time
//      boxes, once per process.
import vm from 'node:vm'
import { PATTERN_MAX_LENGTH, VALUE_MAX_LENGTH, checkPatternSafety } from '@ies/processor-lib/contract/pattern-safety'

export { PATTERN_MAX_LENGTH, VALUE_MAX_LENGTH }
export const MATCH_TIMEOUT_MS = 100

export type PatternVerdict = 'match' | 'no-match' | 'uncompilable' | 'unsafe'

const compiled = new Map<string, RegExp | null>()
const unsafe = new Set<string>()
const context = vm.createContext(Object.create(null))
const script = new vm.Script('re.test(s)')

/** The compiled pattern, or null when it is too long or does not compile (the catalog's rule 2). */
export function compilePattern(pattern: string): RegExp | null {
  if (compiled.has(pattern)) return compiled.get(pattern) ?? null
  let re: RegExp | null = null
  if (pattern.length <= PATTERN_MAX_LENGTH) {
    try {
      re = new RegExp(pattern)
    } catch {
      re = null
    }
  }
  if (compiled.size > 1000) compiled.clear()
  compiled.set(pattern, re)
  return re
}

/**
 * Tests a value against a catalog pattern within the bounds above. `staticCheck: false` skips bound
 * 3 (the tests use it to exercise the time box on its own).
 */
export function testPattern(pattern: string, value: string, opts: { staticCheck?: boolean } = {}): PatternVerdict {
  const re = compilePattern(pattern)
  if (!re) return 'uncompilable'
  if (unsafe.has(pattern)) return 'unsafe'
  if (opts.staticCheck !== false && !checkPatternSafety(pattern).safe) {
    unsafe.add(pattern)
    return 'unsafe'
  }
  if (value.length > VALUE_MAX_LENGTH) return 'no-match'
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      context.re = re
      context.s = value
      return script.runInContext(context, { timeout: MATCH_TIMEOUT_MS }) === true ? 'match' : 'no-match'
    } catch {
      // timed out: try once more before judging the pattern
    } finally {
      context.re = undefined
      context.s = undefined
    }
  }
  unsafe.add(pattern)
  return 'unsafe'
}
