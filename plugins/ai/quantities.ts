// Quantities in a request ("4 days", "two weeks", "half a terabyte", "512 MB", "at least a year",
// "between 2 and 3 days") and their conversion to a field's declared unit (the catalog's `unit`
// attribute: `s`, `days`, `GiB`, `MiB`), rounded to what the field accepts. General knowledge, the
// same for every service: numbers written in words are read by compromise (maintained, MIT) and
// units are converted by js-quantities (MIT), not by tables of our own.
import Qty from 'js-quantities'
import { valueProblem, type FieldRef } from '@ies/processor-lib/contract/fields'
import { testPattern } from '@ies/server/core/safe-pattern'

/**
 * The unit words a request uses, to js-quantities' unit names. A month is 30 days and a year 365
 * (js-quantities' year is the tropical year, 365.24 days, which no retention setting means); a
 * fortnight is two weeks. Sizes written in decimal units are read as binary when the field is binary
 * (below).
 */
const UNIT_WORDS: ReadonlyArray<[RegExp, string, number]> = [
  [/^(s|secs?|seconds?)$/, 's', 1],
  [/^(mins?|minutes?)$/, 'min', 1],
  [/^(h|hrs?|hours?)$/, 'h', 1],
  [/^(d|days?)$/, 'd', 1],
  [/^(w|wks?|weeks?)$/, 'wk', 1],
  [/^fortnights?$/, 'wk', 2],
  [/^(mo|mos|months?)$/, 'd', 30],
  [/^quarters?$/, 'd', 90],
  [/^(y|yrs?|years?)$/, 'd', 365],
  [/^(b|bytes?)$/, 'B', 1],
  [/^(kb|kilobytes?)$/, 'kB', 1],
  [/^(mb|megs?|megabytes?)$/, 'MB', 1],
  [/^(gb|gigs?|gigabytes?)$/, 'GB', 1],
  [/^(tb|terabytes?)$/, 'TB', 1],
  [/^(kib|kibibytes?)$/, 'KiB', 1],
  [/^(mib|mebibytes?)$/, 'MiB', 1],
  [/^(gib|gibibytes?)$/, 'GiB', 1],
  [/^(tib|tebibytes?)$/, 'TiB', 1],
]
const UNIT_TEXT =
  's|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|fortnights?|mo|mos|months?|quarters?|y|yrs?|years?|' +
  'b|bytes?|kb|kilobytes?|mb|megs?|megabytes?|gb|gigs?|gigabytes?|tb|terabytes?|kib|kibibytes?|mib|mebibytes?|gib|gibibytes?|tib|tebibytes?'
/** A number and a unit ("4 days", "90min", "2 GiB", "1.5 hours"); one-letter units only joined to the number ("30s", "7d"). */
const QUANTITY = new RegExp(`(?<![\\w.])(\\d+(?:\\.\\d+)?)(?:\\s*(${UNIT_TEXT})|\\s+of\\s+a\\s+(${UNIT_TEXT}))(?![\\w-])`, 'gi')
const ONE_LETTER = /^[shdwyb]$/i
/** Binary counterparts: AWS sizes in GiB or MiB are what engineers call GB and MB. */
const BINARY: Record<string, string> = { kB: 'KiB', MB: 'MiB', GB: 'GiB', TB: 'TiB' }

const NUMBER_WORD =
  'zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|' +
  'twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand'
/** A run of number words ("twenty-one", "three and a half", "one hundred and twenty"). */
const NUMBER_WORDS = new RegExp(
  `\\b(?:${NUMBER_WORD})(?:(?:[\\s-]+|(?<=hundred|thousand)\\s+and\\s+)(?:${NUMBER_WORD}))*(?:\\s+and\\s+a\\s+half)?\\b`,
  'gi',
)

/** At most this many new runs of number words are read per text, each at most this long. */
export const MAX_RUNS = 8
const MAX_RUN_LENGTH = 80
const MAX_REMEMBERED = 1000
/**
 * Runs of number words already read (number-words.ts reads them with compromise): the run, in lower
 * case with single spaces, to its digits, or null when it is no number.
 */
const NUMBERS_READ = new Map<string, string | null>()

const keyOf = (run: string) => run.toLowerCase().replace(/\s+/g, ' ')

/**
 * The runs of number words of a text that are still to be read, within the reading's bounds (a number
 * is a few words, and a request has a few different ones): the first MAX_RUNS new ones of at most
 * MAX_RUN_LENGTH characters, as the keys `remember` takes.
 */
export function newRuns(text: string): string[] {
  const runs = new Set<string>()
  for (const [run] of text.matchAll(NUMBER_WORDS)) {
    const key = keyOf(run)
    if (run.length > MAX_RUN_LENGTH || NUMBERS_READ.has(key)) continue
    runs.add(key)
    if (runs.size >= MAX_RUNS) break
  }
  return [...runs]
}

/** What a run of number words reads as: its number, or null when it is none (the run stays as written). */
export function remember(run: string, value: number | null): void {
  if (NUMBERS_READ.size >= MAX_REMEMBERED) NUMBERS_READ.clear()
  NUMBERS_READ.set(keyOf(run), value === null || !Number.isFinite(value) ? null : String(value))
}

/**
 * A text with its numbers in words as digits: "two weeks" -> "2 weeks", "half a terabyte" -> "0.5
 * terabyte", "a year" -> "1 year", "a couple of days" -> "2 days". Runs of number words are those
 * read before (number-words.ts, whose `read` the assistant's route awaits for the request first); a
 * run not read stays as written.
 */
export function digitsForWords(text: string): string {
  return text
    .replace(NUMBER_WORDS, (run) => NUMBERS_READ.get(keyOf(run)) ?? run)
    .replace(
      new RegExp(`\\b(\\d+(?:\\.\\d+)?)\\s+and\\s+a\\s+half\\s+(${UNIT_TEXT})\\b`, 'gi'),
      (_m, n: string, u: string) => `${Number(n) + 0.5} ${u}`,
    )
    .replace(
      new RegExp(`\\b(\\d+(?:\\.\\d+)?)\\s+and\\s+a\\s+half\\s+(${UNIT_TEXT})\\b`, 'gi'),
      (_m, n: string, u: string) => `${Number(n) + 0.5} ${u}`,
    )
    .replace(new RegExp(`\\bhalf\\s+(?:an?\\s+)?(${UNIT_TEXT})\\b`, 'gi'), '0.5 $1')
    .replace(new RegExp(`\\b(?:an?|a\\s+single)\\s+(${UNIT_TEXT})\\b`, 'gi'), '1 $1')
    .replace(new RegExp(`\\ba\\s+couple\\s+(?:of\\s+)?(${UNIT_TEXT})\\b`, 'gi'), '2 $1')
}

export interface Quantity {
  amount: number
  /** js-quantities unit (`d`, `GiB`). */
  unit: string
  /** As the request wrote it ("4 days"). */
  text: string
}

/** The quantities a text names, in order (numbers in words are read first: see digitsForWords). */
export function quantitiesOf(text: string): Quantity[] {
  const out: Quantity[] = []
  for (const m of text.matchAll(QUANTITY)) {
    const word = (m[2] ?? m[3]).toLowerCase()
    if (m[2] && ONE_LETTER.test(word) && /\s/.test(m[0])) continue
    const known = UNIT_WORDS.find(([re]) => re.test(word))
    if (!known) continue
    // Sizes are shown by their symbol ("0.5 TB", "2 GB"), durations as written ("4 days").
    const text = /B$/.test(known[1]) ? `${m[1]} ${known[1] === 'kB' ? 'KB' : known[1]}` : m[0].trim()
    out.push({ amount: Number(m[1]) * known[2], unit: known[1], text })
  }
  return out
}

const RANGE_OF = new RegExp(
  `(?<![\\w.])(\\d+(?:\\.\\d+)?)\\s*(${UNIT_TEXT})?\\s*(?:and|to|-|–|\\.\\.)\\s*(\\d+(?:\\.\\d+)?)\\s*(${UNIT_TEXT})(?![\\w-])`,
  'i',
)

/** A range of quantities ("between 2 and 3 days", "1 hour to 90 minutes"): the first side takes the second's unit when it has none. */
export function rangeOf(text: string): [Quantity, Quantity] | null {
  const m = RANGE_OF.exec(text)
  if (!m) return null
  const [lo, hi] = [quantitiesOf(`${m[1]} ${m[2] ?? m[4]}`)[0], quantitiesOf(`${m[3]} ${m[4]}`)[0]]
  // "between 1 and 2 days" keeps its words: the first side is shown without the unit it borrows.
  return lo && hi ? [{ ...lo, text: m[2] ? lo.text : m[1] }, hi] : null
}

/** js-quantities' name of a declared unit (`days` -> `d`, `seconds` -> `s`, `GiB`), or null when it is none it knows. */
export function unitOf(declared: string | undefined): string | null {
  if (!declared) return null
  const word = declared.trim()
  const known = UNIT_WORDS.find(([re]) => re.test(word.toLowerCase()))
  const name = known && known[2] === 1 ? known[1] : word
  try {
    Qty.parse(`1 ${name}`)
    return Qty(`1 ${name}`).isUnitless() ? null : name
  } catch {
    return null
  }
}

/** Binary field units (GiB, MiB): a decimal size written by the user is read as its binary counterpart. */
const isBinary = (unit: string) => /^[KMGT]iB$/.test(unit)

/** A quantity in a field's unit, or null when the kinds differ (days into GiB). */
export function convert(q: Quantity, fieldUnit: string): number | null {
  const from = isBinary(fieldUnit) && BINARY[q.unit] ? BINARY[q.unit] : q.unit
  try {
    const source = Qty(q.amount, from)
    if (!source.isCompatible(fieldUnit)) return null
    return Number(source.to(fieldUnit).scalar.toPrecision(12))
  } catch {
    return null
  }
}

/** The field's own name for its unit in a reason ("s", "days", "GiB"). */
export const unitLabel = (declared: string) => declared.trim()

export type Bound = 'atLeast' | 'atMost' | 'exactly'

const AT_LEAST =
  /\b(at least|no less than|not less than|a minimum of|minimum of|min(?:imum)?|or more|more than|over|above|longer than|bigger than|larger than)\b/
const AT_MOST =
  /\b(at most|no more than|not more than|a maximum of|maximum of|max(?:imum)?|or less|up to|less than|under|below|within|shorter than|smaller than)\b/

/** The bound a clause puts on its quantity ("at least 2 weeks", "no more than 3 days"). */
export function boundOf(clause: string): Bound {
  if (/\b(no|not) (more|longer|bigger|larger) than\b/.test(clause)) return 'atMost'
  if (/\b(no|not) (less|shorter|smaller) than\b/.test(clause)) return 'atLeast'
  if (AT_LEAST.test(clause)) return 'atLeast'
  if (AT_MOST.test(clause)) return 'atMost'
  return 'exactly'
}

/** A declared numeric bound of a field (`atLeast=20`, `atMost=35`), when it is a number. */
const numericBound = (raw: string | undefined) => (raw !== undefined && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : undefined)

const fits = (ref: FieldRef, v: number) => valueProblem(ref, v, testPattern) === null

/**
 * The value of a number field or a dropdown of numbers closest to `target` that the field accepts:
 * "at least" the smallest accepted value not below it (its declared minimum included), "at most"
 * the largest not above it, else the nearest. Candidates are the target, its whole numbers and
 * halves (what the catalog's patterns take), or the dropdown's options. Null when none fits.
 */
export function fitValue(ref: FieldRef, target: number, bound: Bound, within?: [number, number]): number | null {
  const { field } = ref
  const lower = numericBound(field.atLeast)
  const upper = numericBound(field.atMost)
  let t = target
  if (bound === 'atLeast' && lower !== undefined && t < lower) t = lower
  if (bound === 'atMost' && upper !== undefined && t > upper) t = upper
  const candidates =
    field.type === 'dropdown'
      ? (field.options ?? []).flatMap((o) => (typeof o.value === 'number' ? [o.value] : []))
      : [t, Math.ceil(t), Math.floor(t), Math.round(t), Math.ceil(t * 2) / 2, Math.floor(t * 2) / 2].filter((v) => fits(ref, v))
  const ok = candidates.filter(
    (v) =>
      (bound !== 'atLeast' || v >= t) && (bound !== 'atMost' || v <= t) && (!within || (v >= within[0] && v <= within[1])) && fits(ref, v),
  )
  if (ok.length === 0) return null
  return ok.reduce((best, v) => {
    const d = Math.abs(v - t) - Math.abs(best - t)
    return d < 0 || (d === 0 && v > best) ? v : best
  })
}

const fmt = (n: number) => String(Number(n.toPrecision(6)))

export interface QuantityReading {
  value: number
  /** The conversion, for the reason ("4 days = 345600 s"; "at least 2 years = 730 days; 731 is the smallest option that holds it"). */
  says: string
}

/**
 * The value a clause's quantity gives a field with a declared unit: converted, then fitted to what
 * the field accepts under the clause's bound ("at least", "no more than", "between … and …"). A
 * value that nothing accepted fits is returned as converted, so the proposal's own check says why.
 * Undefined when the field has no unit or the clause no quantity of its kind.
 */
export function readQuantity(ref: FieldRef, clause: string): QuantityReading | undefined {
  const unit = unitOf(ref.field.unit)
  const numeric =
    ref.field.type === 'number' || (ref.field.type === 'dropdown' && ref.field.options?.some((o) => typeof o.value === 'number'))
  if (!unit || !numeric) return undefined
  const label = unitLabel(ref.field.unit!)
  const range = rangeOf(clause)
  const sides = range?.map((q) => convert(q, unit))
  if (range && sides && sides[0] !== null && sides[1] !== null) {
    const [lo, hi] = [sides[0], sides[1]].sort((a, b) => a - b)
    const value = fitValue(ref, lo, 'atLeast', [lo, hi])
    const says = `between ${range[0].text} and ${range[1].text} = ${fmt(lo)} to ${fmt(hi)} ${label}`
    if (value === null) return { value: lo, says }
    return { value, says: value === lo ? says : `${says}; ${value} is the smallest accepted value in it` }
  }
  for (const q of quantitiesOf(clause)) {
    const v = convert(q, unit)
    if (v === null) continue
    const bound = boundOf(clause)
    const same = unitOf(q.unit) === unit && q.amount === v && !/month|quarter|year|fortnight/i.test(q.text)
    const lead = bound === 'atLeast' ? 'at least ' : bound === 'atMost' ? 'at most ' : ''
    const says = `${lead}${q.text}${same ? '' : ` = ${fmt(v)} ${label}`}`
    const value = fitValue(ref, v, bound)
    if (value === null || value === v) return { value: value ?? Number(fmt(v)), says }
    const why =
      bound === 'atLeast'
        ? 'the smallest accepted value that holds it'
        : bound === 'atMost'
          ? 'the largest accepted value within it'
          : 'the nearest accepted value'
    return { value, says: `${says}; ${value} is ${why}` }
  }
  return undefined
}

/** True when the clause has a quantity the field's unit can take. */
export function takesQuantity(ref: FieldRef, clause: string): boolean {
  const unit = unitOf(ref.field.unit)
  return unit !== null && quantitiesOf(clause).some((q) => convert(q, unit) !== null)
}
