/**
 * File languages the processor edits, chosen by file name. A file without a known comment
 * syntax (JSON, Markdown, binaries, ...) is copied verbatim and never decorated.
 */

export type LanguageId = 'hcl' | 'yaml' | 'shell'

export interface Language {
  id: LanguageId
  /** The marker used to comment out lines of a disabled @section. */
  marker: string
  /** Every line-comment opener of the language (a line starting with one of them is a comment line). */
  commentPrefixes: readonly string[]
}

const HCL: Language = { id: 'hcl', marker: '#', commentPrefixes: ['#', '//'] }
const YAML_LANG: Language = { id: 'yaml', marker: '#', commentPrefixes: ['#'] }
const SHELL: Language = { id: 'shell', marker: '#', commentPrefixes: ['#'] }

const BY_EXTENSION: Record<string, Language> = {
  '.tf': HCL,
  '.tfvars': HCL,
  '.hcl': HCL,
  '.yaml': YAML_LANG,
  '.yml': YAML_LANG,
  '.sh': SHELL,
}

/** The language of a path (by its extension), or null for files copied verbatim. */
export function languageOf(path: string): Language | null {
  const slash = path.lastIndexOf('/')
  const dot = path.lastIndexOf('.')
  if (dot <= slash) return null
  return BY_EXTENSION[path.slice(dot).toLowerCase()] ?? null
}

/** True when the line (ignoring indentation) starts with one of the language's comment openers. */
export function isCommentLine(line: string, lang: Language): boolean {
  const t = line.trimStart()
  for (const p of lang.commentPrefixes) if (t.startsWith(p)) return true
  return false
}
