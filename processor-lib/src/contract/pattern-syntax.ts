// The pattern syntax the safety check reads (pattern-safety.ts): a recursive-descent parser for the
// JavaScript pattern syntax (no flags), close enough to analyse, into a small tree of character sets
// (sorted UTF-16 code unit ranges), sequences, alternatives and repetitions. Lookarounds are parsed
// into trees of their own (`lookarounds`); back-references and what it cannot read throw `Unsupported`.

export type Ranges = [number, number][] // sorted, disjoint, inclusive UTF-16 code unit ranges
export type Node =
  | { k: 'chr'; set: Ranges }
  | { k: 'seq'; items: Node[] }
  | { k: 'alt'; items: Node[] }
  | { k: 'rep'; min: number; max: number; body: Node }
  | { k: 'empty' }

const MAX_UNIT = 0xffff
const EMPTY: Node = { k: 'empty' }

export class Unsupported extends Error {}

function normalize(r: Ranges): Ranges {
  const sorted = [...r].sort((a, b) => a[0] - b[0])
  const out: Ranges = []
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1]
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi)
    else out.push([lo, hi])
  }
  return out
}
function complement(r: Ranges): Ranges {
  const out: Ranges = []
  let next = 0
  for (const [lo, hi] of normalize(r)) {
    if (lo > next) out.push([next, lo - 1])
    next = hi + 1
  }
  if (next <= MAX_UNIT) out.push([next, MAX_UNIT])
  return out
}
export function intersect(a: Ranges, b: Ranges): Ranges {
  const out: Ranges = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i][0], b[j][0])
    const hi = Math.min(a[i][1], b[j][1])
    if (lo <= hi) out.push([lo, hi])
    if (a[i][1] < b[j][1]) i++
    else j++
  }
  return out
}
const one = (c: number): Ranges => [[c, c]]
const DIGIT: Ranges = [[0x30, 0x39]]
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]
const SPACE: Ranges = normalize([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
])
const DOT: Ranges = complement([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])

/** A recursive-descent parser for the JavaScript pattern syntax (no flags), close enough to analyse. */
export class Parser {
  i = 0
  /** Lookaround bodies: zero-width for the outer automaton, analysed on their own. */
  readonly lookarounds: Node[] = []
  constructor(private readonly s: string) {}

  parse(): Node {
    const node = this.alternation()
    if (this.i < this.s.length) throw new Unsupported(`unexpected ${this.s[this.i]}`)
    return node
  }
  private alternation(): Node {
    const items = [this.sequence()]
    while (this.s[this.i] === '|') {
      this.i++
      items.push(this.sequence())
    }
    return items.length === 1 ? items[0] : { k: 'alt', items }
  }
  private sequence(): Node {
    const items: Node[] = []
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      const atom = this.atom()
      items.push(this.quantified(atom))
    }
    return items.length === 1 ? items[0] : { k: 'seq', items }
  }
  private quantified(atom: Node): Node {
    let node = atom
    for (;;) {
      const c = this.s[this.i]
      let min: number
      let max: number
      if (c === '*') [min, max] = [0, Infinity]
      else if (c === '+') [min, max] = [1, Infinity]
      else if (c === '?') [min, max] = [0, 1]
      else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i))
        if (!m) return node // a literal `{` (Annex B), read as an atom next
        min = Number(m[1])
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3])
        this.i += m[0].length - 1
      } else return node
      this.i++
      if (this.s[this.i] === '?') this.i++ // lazy: the same paths, in another order
      node = { k: 'rep', min, max, body: node }
    }
  }
  private atom(): Node {
    const c = this.s[this.i++]
    switch (c) {
      case '^':
      case '$':
        return EMPTY
      case '.':
        return { k: 'chr', set: DOT }
      case '[':
        return { k: 'chr', set: this.charClass() }
      case '\\':
        return this.escape(false) as Node
      case '(': {
        let look = false
        if (this.s.startsWith('?:', this.i)) this.i += 2
        else if (this.s.startsWith('?=', this.i) || this.s.startsWith('?!', this.i)) [this.i, look] = [this.i + 2, true]
        else if (this.s.startsWith('?<=', this.i) || this.s.startsWith('?<!', this.i)) [this.i, look] = [this.i + 3, true]
        else if (this.s.startsWith('?<', this.i)) {
          const end = this.s.indexOf('>', this.i)
          if (end < 0) throw new Unsupported('unterminated group name')
          this.i = end + 1
        } else if (this.s[this.i] === '?') throw new Unsupported('unknown group')
        const body = this.alternation()
        if (this.s[this.i++] !== ')') throw new Unsupported('unterminated group')
        if (look) {
          this.lookarounds.push(body)
          return EMPTY
        }
        return body
      }
      default:
        return { k: 'chr', set: one(c.charCodeAt(0)) }
    }
  }
  /** After a backslash. In a class, returns a set; outside, a node (`\b` is zero-width there). */
  private escape(inClass: boolean): Node | Ranges {
    const c = this.s[this.i++]
    if (c === undefined) throw new Unsupported('trailing backslash')
    const set = (r: Ranges): Node | Ranges => (inClass ? r : { k: 'chr', set: r })
    switch (c) {
      case 'd':
        return set(DIGIT)
      case 'D':
        return set(complement(DIGIT))
      case 'w':
        return set(WORD)
      case 'W':
        return set(complement(WORD))
      case 's':
        return set(SPACE)
      case 'S':
        return set(complement(SPACE))
      case 'n':
        return set(one(0x0a))
      case 'r':
        return set(one(0x0d))
      case 't':
        return set(one(0x09))
      case 'v':
        return set(one(0x0b))
      case 'f':
        return set(one(0x0c))
      case 'b':
        return inClass ? one(0x08) : EMPTY
      case 'B':
        if (inClass) return one(0x42)
        return EMPTY
      case 'k':
        if (!inClass && this.s[this.i] === '<') throw new Unsupported('back-reference')
        return set(one(0x6b))
      case 'c': {
        const l = this.s[this.i]
        if (l && /[A-Za-z]/.test(l)) {
          this.i++
          return set(one(l.charCodeAt(0) % 32))
        }
        return set(one(0x5c)) // `\c` without a letter is a backslash and a `c`; close enough
      }
      case 'x':
      case 'u': {
        const m = (c === 'x' ? /^[0-9a-fA-F]{2}/ : /^[0-9a-fA-F]{4}/).exec(this.s.slice(this.i))
        if (!m) return set(one(c.charCodeAt(0)))
        this.i += m[0].length
        return set(one(parseInt(m[0], 16)))
      }
      default:
        if (/[1-9]/.test(c) && !inClass) throw new Unsupported('back-reference')
        if (/[0-7]/.test(c)) {
          const m = /^[0-7]{0,2}/.exec(this.s.slice(this.i))![0]
          this.i += m.length
          return set(one(parseInt(c + m, 8)))
        }
        return set(one(c.charCodeAt(0)))
    }
  }
  private charClass(): Ranges {
    let negate = false
    if (this.s[this.i] === '^') [negate, this.i] = [true, this.i + 1]
    const ranges: Ranges = []
    const member = (): Ranges => {
      const c = this.s[this.i++]
      if (c === undefined) throw new Unsupported('unterminated class')
      return c === '\\' ? (this.escape(true) as Ranges) : one(c.charCodeAt(0))
    }
    while (this.s[this.i] !== ']') {
      const lo = member()
      if (this.s[this.i] === '-' && this.s[this.i + 1] !== ']' && this.i + 1 < this.s.length && lo.length === 1 && lo[0][0] === lo[0][1]) {
        this.i++
        const hi = member()
        if (hi.length === 1 && hi[0][0] === hi[0][1]) {
          ranges.push([lo[0][0], hi[0][0]])
          continue
        }
        ranges.push(...lo, one(0x2d)[0], ...hi)
        continue
      }
      ranges.push(...lo)
    }
    this.i++
    const set = normalize(ranges)
    return negate ? complement(set) : set
  }
}
