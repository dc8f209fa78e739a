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
//      boxes, once while it is among the PATTERNS_KEPT patterns last tested.
// What is learnt of a pattern (compiled, the static verdict, timed out) is kept per pattern in one
// bounded cache (lru-cache), so a test of a known pattern is one lookup and the match.
import vm from 'node:vm'
import { LRUCache } from 'lru-cache'
import { PATTERN_MAX_LENGTH, VALUE_MAX_LENGTH, checkPatternSafety } from '@ies/processor-lib/contract/pattern-safety'

export { PATTERN_MAX_LENGTH, VALUE_MAX_LENGTH }
export const MATCH_TIMEOUT_MS = 100
/** How many patterns' verdicts are kept (lru-cache: the least recently used is dropped). */
export const PATTERNS_KEPT = 1000

export type PatternVerdict = 'match' | 'no-match' | 'uncompilable' | 'unsafe'

/** What is known of a pattern: asked once each, then answered from here. */
interface KnownPattern {
  /** The compiled pattern; null when it is too long or does not compile (bound 1). */
  re: RegExp | null
  /** The static check's verdict (bound 3), once a test asked for it. */
  safe?: boolean
  /** Timed out twice (bound 4): never run again. */
  timedOut?: boolean
}

const known = new LRUCache<string, KnownPattern>({ max: PATTERNS_KEPT })
let staticChecks = 0
const context = vm.createContext(Object.create(null))
const script = new vm.Script('re.test(s)')

/** How many times testPattern ran the static check: once per pattern while its verdict is kept (the tests read it). */
export const staticChecksRun = (): number => staticChecks

function knownPattern(pattern: string): KnownPattern {
  let entry = known.get(pattern)
  if (entry) return entry
  let re: RegExp | null = null
  if (pattern.length <= PATTERN_MAX_LENGTH) {
    try {
      re = new RegExp(pattern)
    } catch {
      re = null
    }
  }
  entry = { re }
  known.set(pattern, entry)
  return entry
}

/** The compiled pattern, or null when it is too long or does not compile (the catalog's rule 2). */
export function compilePattern(pattern: string): RegExp | null {
  return knownPattern(pattern).re
}

/**
 * Tests a value against a catalog pattern within the bounds above. `staticCheck: false` skips bound
 * 3 (the tests use it to exercise the time box on its own).
 */
export function testPattern(pattern: string, value: string, opts: { staticCheck?: boolean } = {}): PatternVerdict {
  const entry = knownPattern(pattern)
  if (!entry.re) return 'uncompilable'
  if (entry.timedOut) return 'unsafe'
  if (opts.staticCheck !== false) {
    if (entry.safe === undefined) {
      staticChecks++
      entry.safe = checkPatternSafety(pattern).safe
    }
    if (!entry.safe) return 'unsafe'
  }
  if (value.length > VALUE_MAX_LENGTH) return 'no-match'
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      context.re = entry.re
      context.s = value
      return script.runInContext(context, { timeout: MATCH_TIMEOUT_MS }) === true ? 'match' : 'no-match'
    } catch {
      // timed out: try once more before judging the pattern
    } finally {
      context.re = undefined
      context.s = undefined
    }
  }
  entry.timedOut = true
  return 'unsafe'
}
