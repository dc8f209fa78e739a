/**
 * Values per file language: reading the text after `key:` / `key=` (value, trailing comment,
 * multi-line openers) and writing a configuration value as a one-line literal.
 */
import YAML from 'yaml'
import type { Language, LanguageId } from './languages.ts'

export interface ValueParts {
  /** Whitespace between the separator and the value. */
  lead: string
  /** The old value text (no surrounding whitespace). */
  value: string
  /** Whitespace between the value and the comment (or end of line). */
  trail: string
  /** The trailing comment including its opener, or ''. */
  comment: string
  /** Set when the value opens a multi-line construct; the reason. */
  multiline: string | null
}

/**
 * Split the text after the separator. Quotes are honoured, so a `#` inside a quoted string is
 * not a comment. Brackets are counted outside strings: an unclosed `[`, `{` or `(` means the value
 * continues on the next line.
 */
export function splitValue(rest: string, lang: Language): ValueParts {
  const id = lang.id
  let i = 0
  const n = rest.length
  while (i < n && (rest[i] === ' ' || rest[i] === '\t')) i++
  const lead = rest.slice(0, i)
  const start = i
  let depth = 0
  let quote: string | null = null
  let commentAt = -1
  for (; i < n; i++) {
    const c = rest[i]
    if (quote) {
      if (c === '\\' && quote === '"') {
        i++
        continue
      }
      if (c === quote) {
        if (quote === "'" && id === 'yaml' && rest[i + 1] === "'") {
          i++
          continue
        }
        quote = null
      }
      continue
    }
    if (c === '"') {
      quote = c
      continue
    }
    if (c === "'" && id !== 'hcl') {
      // YAML: a quote opens a string only at the start of a scalar / flow item.
      if (id === 'shell' || i === start || /[\s[{,]/.test(rest[i - 1])) quote = c
      continue
    }
    if (c === '#') {
      if (id === 'hcl' || i === start || rest[i - 1] === ' ' || rest[i - 1] === '\t') {
        commentAt = i
        break
      }
      continue
    }
    if (c === '/' && id === 'hcl' && rest[i + 1] === '/') {
      commentAt = i
      break
    }
    if (c === '[' || c === '{' || c === '(') depth++
    else if (c === ']' || c === '}' || c === ')') depth--
  }
  const end = commentAt === -1 ? n : commentAt
  let valueEnd = end
  while (valueEnd > start && (rest[valueEnd - 1] === ' ' || rest[valueEnd - 1] === '\t')) valueEnd--
  const value = rest.slice(start, valueEnd)
  const parts: ValueParts = {
    lead,
    value,
    trail: rest.slice(valueEnd, end),
    comment: commentAt === -1 ? '' : rest.slice(commentAt),
    multiline: null,
  }
  if (quote) parts.multiline = 'an unclosed quoted string'
  else if (depth > 0) parts.multiline = 'an unclosed bracket'
  else if (id === 'yaml' && /^[|>][-+0-9]*$/.test(value)) parts.multiline = `a YAML block scalar (${value})`
  else if (id === 'hcl' && /^<<-?\s*[A-Za-z_]/.test(value)) parts.multiline = 'a heredoc'
  else if (id === 'hcl' && /\/\*/.test(value) && !/\*\//.test(value)) parts.multiline = 'an unclosed /* comment'
  else if (id === 'shell' && value.endsWith('\\')) parts.multiline = 'a line continuation'
  return parts
}

/** Indentation width of a line (spaces and tabs count as one column each). */
export function indentOf(line: string): number {
  let i = 0
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++
  return i
}

export class UnserializableValue extends Error {}

/** Write a configuration value as a one-line literal of the language (rule 4: sequences as JSON lists). */
export function serializeValue(value: unknown, lang: LanguageId): string {
  switch (lang) {
    case 'hcl':
      return hclLiteral(value)
    case 'yaml':
      return yamlLiteral(value)
    case 'shell':
      return shellLiteral(value)
  }
}

function numberLiteral(n: number): string {
  if (!Number.isFinite(n)) throw new UnserializableValue(`the number ${n} has no literal form`)
  return String(n)
}

// ---- HCL (Terraform .tf, .tfvars, .hcl)

export function hclString(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    const code = s.charCodeAt(i)
    if (c === '"') out += '\\"'
    else if (c === '\\') out += '\\\\'
    else if (c === '\n') out += '\\n'
    else if (c === '\r') out += '\\r'
    else if (c === '\t') out += '\\t'
    else if ((c === '$' || c === '%') && s[i + 1] === '{')
      out += c + c // $${ and %%{ escape templates
    else if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029) out += '\\u' + code.toString(16).padStart(4, '0')
    else out += c
  }
  return out + '"'
}

function hclLiteral(v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'string') return hclString(v)
  if (typeof v === 'number') return numberLiteral(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (Array.isArray(v)) return '[' + v.map(hclLiteral).join(', ') + ']'
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
    if (entries.length === 0) return '{}'
    return '{ ' + entries.map(([k, x]) => `${hclString(k)} = ${hclLiteral(x)}`).join(', ') + ' }'
  }
  throw new UnserializableValue(`a ${typeof v} has no HCL literal`)
}

// ---- YAML

const YAML_11_WORDS = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE|null|Null|NULL|~)$/

/** True when the string can be written as a plain YAML scalar and reads back as the same string (YAML 1.1 and 1.2). */
export function yamlPlainSafe(s: string): boolean {
  if (s === '' || s.trim() !== s) return false
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f\u0085\u2028\u2029\ufeff]/.test(s)) return false
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(s) && !/^-\S/.test(s)) return false
  if (/: |:$| #|[[\]{},]/.test(s)) return false
  if (YAML_11_WORDS.test(s)) return false
  if (/^[-+.\d]/.test(s) && /^[-+]?(?:[\d_:.]+(?:e[-+]?\d+)?|\.(?:inf|nan)|0x[\da-f_]+|0o?[0-7_]+|0b[01_]+)$/i.test(s)) return false
  if (/^\d{4}-\d\d?-\d\d?/.test(s)) return false // YAML 1.1 timestamps
  try {
    return YAML.parse(s) === s
  } catch {
    return false
  }
}

export function yamlString(s: string): string {
  if (yamlPlainSafe(s)) return s
  // A JSON string is a valid YAML double-quoted scalar; escape the line separators JSON leaves alone.
  return JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

function yamlLiteral(v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'string') return yamlString(v)
  if (typeof v === 'number') return numberLiteral(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (Array.isArray(v) || typeof v === 'object') return jsonFlow(v)
  throw new UnserializableValue(`a ${typeof v} has no YAML literal`)
}

function jsonFlow(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(jsonFlow).join(', ') + ']'
  if (v !== null && typeof v === 'object') {
    return (
      '{' +
      Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${JSON.stringify(k)}: ${jsonFlow(x)}`)
        .join(', ') +
      '}'
    )
  }
  if (typeof v === 'number') return numberLiteral(v)
  if (typeof v === 'string')
    return JSON.stringify(v)
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029')
  if (v === null || typeof v === 'boolean') return String(v)
  throw new UnserializableValue(`a ${typeof v} has no YAML literal`)
}

// ---- Shell (KEY=value)

function shellLiteral(v: unknown): string {
  if (v === null) return "''"
  if (typeof v === 'number') return numberLiteral(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') {
    if (/[\n\r]/.test(v)) throw new UnserializableValue('a string with a line break cannot be written on one shell line')
    if (/^[\w./:@%+,-]+$/.test(v)) return v
    return "'" + v.replace(/'/g, `'\\''`) + "'"
  }
  return shellLiteral(JSON.stringify(v))
}

// ---- Reading template values back (catalog defaults)

/** Read a one-line literal of the language as a JS value; returns the raw text when it is not a plain literal. */
export function parseLiteral(text: string, lang: LanguageId): unknown {
  const t = text.trim()
  if (lang === 'yaml') {
    try {
      return YAML.parse(t) ?? null
    } catch {
      return t
    }
  }
  if (lang === 'hcl') {
    if (t === 'true' || t === 'false') return t === 'true'
    if (t === 'null') return null
    if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return Number(t)
    if (/^["[{]/.test(t)) {
      try {
        return JSON.parse(t.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{'))
      } catch {
        return t
      }
    }
    return t
  }
  if (/^'.*'$/.test(t)) return t.slice(1, -1)
  if (/^".*"$/.test(t)) return t.slice(1, -1)
  return t
}
