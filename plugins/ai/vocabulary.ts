// AWS's own words, the same for every service: what engineers write ("on demand", "aarch64", "CMK",
// "multiple AZs") said in the words the catalog uses ("on-demand", "arm64", "KMS", "multi-AZ"), and
// Graviton / x86 read as a processor family across services: the `arm64` option of an architecture,
// and a Graviton instance class (m7g, t4g, r6g: a "g" after the generation) where a service offers one.
import type { CatalogOption } from './catalog-source.ts'

/** Phrases to the catalog's own words; matched on whole words, case-insensitive. */
const SAYINGS: ReadonlyArray<[RegExp, string]> = [
  [/\bon[\s-]?demand\b/g, 'on-demand'],
  [/\bspot (?:instances?|nodes?|capacity)\b/g, 'spot'],
  [/\b(?:aarch64|arm(?:64)?|graviton\d?)\b/g, 'graviton'],
  [/\b(?:x86[_-]64|amd64|intel|x64)\b/g, 'x86'],
  [/\b(?:multiple|several|many) (?:azs|availability zones|zones)\b|\bmulti[\s-]?(?:az|zone)s?\b|\bstandby\b/g, 'multi-az'],
  [/\b(?:customer[\s-]managed keys?|cmk|sse-kms|kms keys?)\b/g, 'kms'],
  [/\b(?:first[\s-]in[\s-]first[\s-]out|strict(?:ly)? order(?:ed|ing)?|exactly[\s-]once)\b/g, 'fifo'],
  [/\bserver[\s-]less\b/g, 'serverless'],
]

/** The text with AWS's words as the catalog writes them. */
export function inCatalogWords(text: string): string {
  return SAYINGS.reduce((t, [re, word]) => t.replace(re, word), text)
}

export type Family = 'graviton' | 'x86'

/** The processor family a text asks for, if any (after inCatalogWords). */
export function familyOf(text: string): Family | null {
  if (/\bgraviton\b/.test(text)) return 'graviton'
  if (/\bx86\b/.test(text)) return 'x86'
  return null
}

/** "m7g.large", "db.t4g.micro", "cache.r7g.large", "kafka.m7g.large", "m6g.large.search": family letters, a generation, then attributes with a "g". */
const INSTANCE = /^(?:[a-z]+\.)?[a-z]+(\d+)([a-z-]*)\.([a-z0-9]+)/

/** The family of an instance class or an architecture option, or null when the value is neither. */
export function familyOfValue(value: unknown): Family | null {
  if (typeof value !== 'string') return null
  if (value === 'arm64') return 'graviton'
  if (value === 'x86_64') return 'x86'
  const m = INSTANCE.exec(value)
  if (!m) return null
  return m[2].includes('g') ? 'graviton' : 'x86'
}

const sizeOf = (value: unknown) => (typeof value === 'string' ? INSTANCE.exec(value)?.[3] : undefined)

/**
 * The option of a dropdown that moves `current` to the family: `current` itself when it is of the
 * family already (null then), else the option of that family with the same size, else the first of
 * that family. Undefined when the dropdown offers no choice of family.
 */
export function optionForFamily(options: readonly CatalogOption[], current: unknown, family: Family): CatalogOption | null | undefined {
  const families = options.map((o) => familyOfValue(o.value))
  if (!families.includes('graviton') || !families.includes('x86')) return undefined
  if (familyOfValue(current) === family) return null
  const ofFamily = options.filter((_o, i) => families[i] === family)
  return ofFamily.find((o) => sizeOf(o.value) !== undefined && sizeOf(o.value) === sizeOf(current)) ?? ofFamily[0]
}
