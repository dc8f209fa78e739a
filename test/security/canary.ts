// Canaries: unique strings planted in secrets (and in other users' records), and the one scanner
// every leak test uses to look for them in response bodies, log lines, database documents, archives
// and job errors. A canary is found raw, and in base64 / base64url / hex form (headers and Basic
// auth encode what they carry).
import { randomBytes } from 'node:crypto'

export interface CanaryHit {
  /** Where it was found, as the caller named it (`GET /api/environments/… body`, `log line 12`). */
  where: string
  /** Which canary (its label). */
  canary: string
  /** How it was encoded where found. */
  form: 'raw' | 'base64' | 'base64url' | 'hex'
  /** Up to 80 characters around the hit. */
  excerpt: string
}

export class Canaries {
  readonly #values = new Map<string, string>()

  /**
   * A new canary: letters and digits only, so it survives JSON, YAML, URLs and HCL unescaped. `case`
   * and `maxLength` fit it to a field's pattern; 20 random hex digits keep it unique.
   */
  make(label: string, opts: { prefix?: string; case?: 'lower' | 'upper'; maxLength?: number } = {}): string {
    let value = `${opts.prefix ?? 'CANARY'}${label.replace(/[^A-Za-z0-9]/g, '')}`.slice(0, (opts.maxLength ?? 64) - 20)
    value += randomBytes(10).toString('hex').toUpperCase()
    if (opts.case === 'lower') value = value.toLowerCase()
    if (opts.case === 'upper') value = value.toUpperCase()
    this.#values.set(label, value)
    return value
  }

  /** A value made elsewhere (a generated key) scanned for like a canary. */
  plant(label: string, value: string): string {
    this.#values.set(label, value)
    return value
  }

  get labels(): string[] {
    return [...this.#values.keys()]
  }

  value(label: string): string {
    const value = this.#values.get(label)
    if (!value) throw new Error(`no canary ${label}`)
    return value
  }

  /** Every occurrence of every canary in `content` (text, bytes, or any value, scanned as JSON). */
  scan(where: string, content: unknown): CanaryHit[] {
    const text =
      typeof content === 'string' ? content : Buffer.isBuffer(content) ? content.toString('latin1') : (JSON.stringify(content) ?? '')
    const hits: CanaryHit[] = []
    for (const [label, value] of this.#values) {
      const forms: [CanaryHit['form'], string[]][] = [
        ['raw', [value]],
        ['base64', shiftedBase64(value, 'base64')],
        ['base64url', shiftedBase64(value, 'base64url')],
        ['hex', [Buffer.from(value).toString('hex')]],
      ]
      for (const [form, probes] of forms) {
        for (const probe of probes) {
          const at = text.indexOf(probe)
          if (at >= 0) {
            hits.push({ where, canary: label, form, excerpt: text.slice(Math.max(0, at - 30), at + probe.length + 30) })
            break
          }
        }
      }
    }
    return hits
  }
}

/** Collects hits over a test; `report()` lists them for an assertion message. */
export class CanaryScan {
  readonly hits: CanaryHit[] = []
  readonly scanned: string[] = []
  constructor(readonly canaries: Canaries) {}

  add(where: string, content: unknown): CanaryHit[] {
    this.scanned.push(where)
    const found = this.canaries.scan(where, content)
    this.hits.push(...found)
    return found
  }

  report(): string {
    return this.hits.map((h) => `${h.canary} (${h.form}) in ${h.where}: …${h.excerpt}…`).join('\n')
  }
}

/**
 * The canary's base64 as it appears at any byte offset inside a longer encoded string: for each of
 * the three alignments, the characters that depend only on the canary's bytes.
 */
function shiftedBase64(value: string, encoding: 'base64' | 'base64url'): string[] {
  const bytes = Buffer.from(value)
  return [0, 1, 2].map((shift) => {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString(encoding)
    return encoded.slice([0, 2, 3][shift], -4)
  })
}
