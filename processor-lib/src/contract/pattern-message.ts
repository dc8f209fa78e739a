// Validation messages a person understands: a field's own message when the
// catalog carries one, else the pattern explained in words for the shapes templates use (whole
// numbers in a range, runs of letters, digits and punctuation with a length), else the field's
// description. The regular expression itself is only ever shown as a detail.

// Each member of a character class, in words: plural (a run of them) and singular (one of them).
const CLASS_WORDS: [string, string, string][] = [
  ['A-Za-z', 'letters', 'a letter'],
  ['a-zA-Z', 'letters', 'a letter'],
  ['a-z', 'lowercase letters', 'a lowercase letter'],
  ['A-Z', 'uppercase letters', 'an uppercase letter'],
  ['0-9', 'digits', 'a digit'],
  ['-', 'hyphens', 'a hyphen'],
  ['_', 'underscores', 'an underscore'],
  ['.', 'dots', 'a dot'],
  ['/', 'slashes', 'a slash'],
]

const list = (words: string[], last: string) => (words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`)

/** `a-z0-9-` -> "lowercase letters, digits and hyphens" (or "a lowercase letter, a digit or a hyphen"); null for other members. */
function describeClass(body: string, one = false): string | null {
  let rest = body
  const words: string[] = []
  for (const [part, plural, singular] of CLASS_WORDS) {
    if (rest.includes(part)) {
      words.push(one ? singular : plural)
      rest = rest.replace(part, '')
    }
  }
  if (rest !== '' || words.length === 0) return null
  return list(words, one ? 'or' : 'and')
}

interface Atom {
  cls: string
  min: number
  max: number
}

/** A pattern that is only character classes with quantifiers, as atoms; null otherwise. */
function atomsOf(source: string): Atom[] | null {
  const re = /\[([^\]^\\]+)\](\{(\d+)(,(\d*))?\}|[*+?])?/y
  const atoms: Atom[] = []
  let i = 0
  while (i < source.length) {
    re.lastIndex = i
    const m = re.exec(source)
    if (!m) return null
    const q = m[2]
    let min = 1
    let max = 1
    if (q === '*') [min, max] = [0, Infinity]
    else if (q === '+') [min, max] = [1, Infinity]
    else if (q === '?') [min, max] = [0, 1]
    else if (q) {
      min = Number(m[3])
      max = m[4] === undefined ? min : m[5] === '' ? Infinity : Number(m[5])
    }
    atoms.push({ cls: m[1], min, max })
    i = re.lastIndex
  }
  return atoms.length ? atoms : null
}

const range = (min: number, max: number) =>
  max === Infinity
    ? min <= 1
      ? 'one or more characters'
      : `at least ${min} characters`
    : min === max
      ? `exactly ${min} character${min === 1 ? '' : 's'}`
      : `${min} to ${max} characters`

/** Whole numbers: `[1-9][0-9]{0,2}` is 1 to 999, `[0-9]+` any, `[1-6]` 1 to 6. */
function describeNumber(atoms: Atom[]): string | null {
  const digits = (cls: string) => /^(\d)-(\d)$/.exec(cls)
  const first = digits(atoms[0].cls)
  if (!first || atoms.length > 2 || atoms[0].max !== 1) return null
  const lo = Number(first[1])
  const hi = Number(first[2])
  if (atoms.length === 1) {
    if (atoms[0].min === 1) return `a whole number from ${lo} to ${hi}`
    return null
  }
  if (atoms[1].cls !== '0-9' || atoms[0].min !== 1) return null
  const { min, max } = atoms[1]
  const low = min === 0 ? lo : lo * 10 ** min
  if (max === Infinity) return lo === 0 ? 'a whole number' : `a whole number of ${lo} or more`
  return `a whole number from ${low} to ${(hi + 1) * 10 ** max - 1}`
}

/** The pattern's rule in words ("a whole number from 1 to 99"), or null when it is not a shape this knows. */
export function explainPattern(source: string): string | null {
  const body = source.replace(/^\^/, '').replace(/\$$/, '')
  if (body === '[0-9]+([.]5)?') return 'a whole number or a half, such as 2 or 0.5'
  const atoms = atomsOf(body)
  if (!atoms) return null
  if (atoms.length === 1 && atoms[0].cls === '0-9' && atoms[0].min >= 1 && atoms[0].max === Infinity) return 'a whole number'
  const number = describeNumber(atoms)
  if (number) return number
  const classes = atoms.map((a) => describeClass(a.cls))
  if (classes.some((c) => c === null)) return null
  const widest = atoms.reduce((a, b) => (b.cls.length > a.cls.length ? b : a))
  const min = atoms.reduce((n, a) => n + a.min, 0)
  const max = atoms.reduce((n, a) => n + a.max, 0)
  let text = `${range(min, max)}: ${describeClass(widest.cls)}`
  if (atoms.length > 1 && atoms[0].cls !== widest.cls) text += `, starting with ${describeClass(atoms[0].cls, true)}`
  const last = atoms.at(-1)!
  if (atoms.length > 2 && last.cls !== widest.cls && last.min > 0) text += `, ending with ${describeClass(last.cls, true)}`
  return text
}

/** The message for a value that does not match a field's pattern. */
export function patternMessage(field: { label: string; description?: string; message?: string }, source: string): string {
  if (field.message) return field.message
  const rule = explainPattern(source)
  if (rule) return `Enter ${rule}.`
  const about = field.description ? ` ${field.description.replace(/\.?$/, '.')}` : ''
  return `This is not a valid ${field.label.toLowerCase()}.${about}`
}
