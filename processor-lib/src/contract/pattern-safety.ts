// A static check that a catalog `pattern` cannot make a backtracking regex engine stall
// (catastrophic backtracking). Catalog patterns come from template decorators; the wizard tests them
// as the user types, in a browser that has no way to time-box a RegExp, and the server's assistant
// tests them too (server/src/core/safe-pattern.ts, which keeps its `vm` time box as a second line).
// Pure TypeScript without dependencies: the renderer, the server and the Node tests share it.
//
// How: the pattern is parsed into a small syntax tree and turned into its position automaton
// (Glushkov: one state per character atom, epsilon-free, parallel edges kept so that `(a+)+`, where
// the same step can be an inner or an outer repetition, has two ways to take it). A backtracking
// matcher explores every path of that automaton on a failing input, so:
//   - exponential degree of ambiguity (a state with two distinct same-label loops, found in the
//     product automaton as a strongly connected component holding a diagonal pair and a distinct
//     step) means exponential time: `(a+)+`, `(a|a)*`, `(a*)*b`, `(.*a){20}`;
//   - a chain of three loops that can each consume the same text (polynomial degree >= 2, e.g.
//     `\d*\d*\d*x`) means cubic time or worse; one such pair (`\d*\d*x`, quadratic) is allowed
//     because the tested text is bounded (VALUE_MAX_LENGTH).
// Counted repetitions `x{m,n}` with n >= 2 are analysed as `x+` (or `x*`): that only adds paths, so
// the check errs on the side of calling a pattern unsafe, never the other way round. A delimiter
// keeps a repeated group unambiguous (`([a-z0-9-]+[.])+`, `(-[a-z]+)+`), and such patterns pass.
// Back-references and over-large automata are not analysed and count as unsafe.

import { intersect, Parser, Unsupported, type Node, type Ranges } from './pattern-syntax.ts'

/** Longer patterns are not compiled or analysed. */
export const PATTERN_MAX_LENGTH = 512
/** Longer values fail the pattern without being tested. */
export const VALUE_MAX_LENGTH = 1024

export type PatternSafety = { safe: true } | { safe: false; reason: string }

/** Work units (product edges examined) before the analysis gives up and calls the pattern unsafe. */
const WORK_BUDGET = 2_000_000

/** The position automaton: state 0 is the start, 1..n the character atoms. */
interface Automaton {
  sets: Ranges[]
  /** follow[p]: target -> how many distinct ways (parallel edges) lead there. */
  follow: Map<number, number>[]
}

function glushkov(root: Node): Automaton {
  const sets: Ranges[] = [[]]
  const follow: Map<number, number>[] = [new Map()]
  const link = (from: Iterable<number>, to: Iterable<number>) => {
    for (const f of from) for (const t of to) follow[f].set(t, (follow[f].get(t) ?? 0) + 1)
  }
  // Returns nullable, first and last positions (as lists: a position occurs once per way to reach it).
  const build = (n: Node): { nullable: boolean; first: number[]; last: number[] } => {
    switch (n.k) {
      case 'empty':
        return { nullable: true, first: [], last: [] }
      case 'chr': {
        sets.push(n.set)
        follow.push(new Map())
        const p = sets.length - 1
        return { nullable: false, first: [p], last: [p] }
      }
      case 'alt': {
        const parts = n.items.map(build)
        return { nullable: parts.some((p) => p.nullable), first: parts.flatMap((p) => p.first), last: parts.flatMap((p) => p.last) }
      }
      case 'seq': {
        let acc = { nullable: true, first: [] as number[], last: [] as number[] }
        for (const item of n.items) {
          const r = build(item)
          link(acc.last, r.first)
          acc = {
            nullable: acc.nullable && r.nullable,
            first: acc.nullable ? [...acc.first, ...r.first] : acc.first,
            last: r.nullable ? [...acc.last, ...r.last] : r.last,
          }
        }
        return acc
      }
      case 'rep': {
        if (n.max === 0) return { nullable: true, first: [], last: [] }
        const r = build(n.body)
        if (n.max > 1) link(new Set(r.last), new Set(r.first)) // x{m,n}, n >= 2, analysed as a loop
        return { nullable: n.min === 0 || r.nullable, first: r.first, last: r.last }
      }
    }
  }
  const r = build(root)
  link([0], new Set(r.first))
  return { sets, follow }
}

/** Tarjan's strongly connected components of what `roots` (default: all of 0..count-1) reach; -1 for the rest. */
function components(count: number, edges: (v: number) => Iterable<number>, roots?: Iterable<number>): Int32Array {
  const index = new Int32Array(count).fill(-1)
  const low = new Int32Array(count)
  const comp = new Int32Array(count).fill(-1)
  const onStack = new Uint8Array(count)
  const stack: number[] = []
  let counter = 0
  let compCount = 0
  for (const root of roots ?? Array(count).keys()) {
    if (index[root] !== -1) continue
    // iterative DFS: frames of [node, its successor iterator]
    const frames: [number, Iterator<number>][] = []
    const open = (v: number) => {
      index[v] = low[v] = counter++
      stack.push(v)
      onStack[v] = 1
      frames.push([v, edges(v)[Symbol.iterator]()])
    }
    open(root)
    while (frames.length) {
      const [v, it] = frames[frames.length - 1]
      const step = it.next()
      if (!step.done) {
        const w = step.value
        if (index[w] === -1) open(w)
        else if (onStack[w]) low[v] = Math.min(low[v], index[w])
        continue
      }
      frames.pop()
      if (frames.length) {
        const parent = frames[frames.length - 1][0]
        low[parent] = Math.min(low[parent], low[v])
      }
      if (low[v] === index[v]) {
        let w: number
        do {
          w = stack.pop()!
          onStack[w] = 0
          comp[w] = compCount
        } while (w !== v)
        compCount++
      }
    }
  }
  return comp
}

class OverBudget extends Error {}

function analyse(a: Automaton, work: { left: number }): string | null {
  const n = a.sets.length
  const spend = (units: number) => {
    if ((work.left -= units) < 0) throw new OverBudget()
  }
  const overlap = new Map<number, boolean>()
  const meets = (p: number, q: number) => {
    const key = p < q ? p * n + q : q * n + p
    let v = overlap.get(key)
    if (v === undefined) overlap.set(key, (v = intersect(a.sets[p], a.sets[q]).length > 0))
    return v
  }
  // 1. Exponential: in the product automaton, a component with a diagonal pair (q, q) that also
  //    holds an off-diagonal pair, or a diagonal step taken along two different parallel edges.
  const pairEdges = (v: number): number[] => {
    const p = Math.floor(v / n)
    const q = v % n
    const out: number[] = []
    for (const p2 of a.follow[p].keys()) {
      spend(a.follow[q].size)
      for (const q2 of a.follow[q].keys()) if (meets(p2, q2)) out.push(p2 * n + q2)
    }
    return out
  }
  const comp = components(
    n * n,
    pairEdges,
    Array.from({ length: n }, (_, p) => p * n + p),
  )
  const diagonalComps = new Set<number>()
  for (let p = 0; p < n; p++) diagonalComps.add(comp[p * n + p])
  for (let p = 0; p < n; p++) {
    for (let q = 0; q < n; q++) {
      const c = comp[p * n + q]
      if (p !== q && c !== -1 && diagonalComps.has(c))
        return 'exponential backtracking: a repeated part can match the same text in more than one way'
    }
    for (const [t, ways] of a.follow[p]) {
      // (p, p) -> (t, t) along two different edges, on a cycle of the product (same component, or a self-loop)
      if (ways > 1 && meets(t, t) && comp[p * n + p] === comp[t * n + t] && (p !== t || meets(p, p))) {
        return 'exponential backtracking: a repeated part can match the same text in more than one way'
      }
    }
  }
  // 2. Polynomial: p ≺ q when, for some text w, p loops to p, goes to q, and q loops to q on w.
  //    A chain p ≺ q ≺ r means cubic time or worse on a failing input.
  const single = components(n, (v) => a.follow[v].keys())
  const looping = (p: number) => a.follow[p].has(p) || [...a.follow[p].keys()].some((t) => t !== p && single[t] === single[p])
  const loops = [...Array(n).keys()].filter((p) => p > 0 && looping(p))
  const reach = (from: number) => {
    const seen = new Set([from])
    const todo = [from]
    while (todo.length)
      for (const t of a.follow[todo.pop()!].keys())
        if (!seen.has(t)) {
          seen.add(t)
          todo.push(t)
        }
    return seen
  }
  const before = new Map<number, number[]>() // q -> every p with p ≺ q
  for (const p of loops) {
    const reachable = reach(p)
    for (const q of loops) {
      if (q === p || !reachable.has(q)) continue
      if (tripleReaches(a, p, q, spend)) before.set(q, [...(before.get(q) ?? []), p])
    }
  }
  for (const ps of before.values()) {
    if (ps.some((p) => before.has(p))) return 'polynomial backtracking: three repeated parts in a row can match the same text'
  }
  return null
}

/** A nonempty text on which p -> p, p -> q and q -> q all exist: a path (p, p, q) => (p, q, q) in A³. */
function tripleReaches(a: Automaton, p: number, q: number, spend: (units: number) => void): boolean {
  const n = a.sets.length
  const key = (x: number, y: number, z: number) => (x * n + y) * n + z
  const target = key(p, q, q)
  const seen = new Set<number>()
  const todo: [number, number, number][] = [[p, p, q]]
  while (todo.length) {
    const [x, y, z] = todo.pop()!
    for (const x2 of a.follow[x].keys()) {
      for (const y2 of a.follow[y].keys()) {
        const xy = intersect(a.sets[x2], a.sets[y2])
        spend(1 + a.follow[z].size)
        if (xy.length === 0) continue
        for (const z2 of a.follow[z].keys()) {
          const k = key(x2, y2, z2)
          if (seen.has(k) || intersect(xy, a.sets[z2]).length === 0) continue
          if (k === target) return true
          seen.add(k)
          todo.push([x2, y2, z2])
        }
      }
    }
  }
  return false
}

const verdicts = new Map<string, PatternSafety>()

/**
 * Whether a backtracking engine can test `source` (compiled without flags) against a value of at
 * most VALUE_MAX_LENGTH characters in bounded time. Answers are cached per pattern.
 */
export function checkPatternSafety(source: string): PatternSafety {
  const known = verdicts.get(source)
  if (known) return known
  let verdict: PatternSafety
  if (source.length > PATTERN_MAX_LENGTH) verdict = { safe: false, reason: `longer than ${PATTERN_MAX_LENGTH} characters` }
  else {
    try {
      const parser = new Parser(source)
      const roots = [parser.parse()]
      roots.push(...parser.lookarounds)
      const work = { left: WORK_BUDGET }
      let reason: string | null = null
      for (const root of roots) if ((reason = analyse(glushkov(root), work))) break
      verdict = reason ? { safe: false, reason } : { safe: true }
    } catch (e) {
      if (e instanceof OverBudget) verdict = { safe: false, reason: 'too complex to check' }
      else if (e instanceof Unsupported)
        verdict = {
          safe: false,
          reason: e.message.includes('back-reference') ? 'back-references cannot be checked' : `cannot be checked: ${e.message}`,
        }
      else throw e
    }
  }
  if (verdicts.size > 1000) verdicts.clear()
  verdicts.set(source, verdict)
  return verdict
}
