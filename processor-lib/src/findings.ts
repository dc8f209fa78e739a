/**
 * Findings: every problem the processor, the extractor or the gate reports.
 * One list of codes; one line format (`<file>:<line> <CODE> <message>`).
 */

export const FINDING_CODES = {
  // Substitution (processor)
  UNRESOLVED_PARAM: 'a @param path is absent from the configuration; the template default stays',
  INERT_PARAM: 'a @param with no value line directly below it (only comment lines may sit in between)',
  MULTILINE_VALUE: 'the value line of a @param opens a multi-line block; the file is refused',
  UNMATCHED_SECTION: 'a @section begin without end, an end without begin, or an end naming another path',
  BAD_DECORATOR: 'a decorator line the grammar cannot read (no path, or @section without begin/end)',
  UNSERIALIZABLE_VALUE: 'the configuration value cannot be written on one line in this file language',
  UNSUPPORTED_ENTRY: 'a tree entry that is not a regular file (symbolic link, device, ...)',
  READ_FAILED: 'a template file could not be read or processed',
  // Catalog extraction
  BAD_PATH: 'a decorator path whose shape the bucket rule does not accept',
  BAD_ATTRIBUTE: 'an attribute segment that is not key=value (a "|" inside a value splits it), or text between the path and the first "|"',
  DUPLICATE_ATTRIBUTE: 'the same attribute key twice on one decorator',
  BAD_OPTIONS: 'options is not valid (strict) JSON',
  UNDECLARED_SERVICE: 'a service field whose service has no @module declaration',
  // Gate
  MISSING_OUTPUT: 'an input or expected file is absent from the output, or the file count differs',
  FORMAT: 'a Terraform file differs from its canonical terraform fmt form',
  HCL_PARSE: 'a Terraform / HCL file does not parse',
  UNDECLARED_REFERENCE: 'a reference to a variable or local that the module does not declare',
  YAML_PARSE: 'a YAML file does not parse',
  JSON_PARSE: 'a JSON file does not parse',
} as const

export type FindingCode = keyof typeof FINDING_CODES

/** `error` refuses the file (never emitted half-edited); `warning` keeps the file. The gate fails on both. */
export type Severity = 'error' | 'warning'

export interface Finding {
  code: FindingCode
  severity: Severity
  /** Path relative to the templates root, with `/` separators. */
  file: string
  /** 1-based line number; 0 when the finding concerns the file or the tree as a whole. */
  line: number
  /** Decorator path concerned, or null. */
  path: string | null
  message: string
}

export function finding(code: FindingCode, severity: Severity, file: string, line: number, path: string | null, message: string): Finding {
  return { code, severity, file, line, path, message }
}

/** The one-line form printed on stderr: `<file>:<line> <CODE> <message>`. */
export function formatFinding(f: Finding): string {
  return `${f.file}:${f.line} ${f.code} ${f.message}`
}

/** Stable order: by file, line, then code. */
export function sortFindings(list: Finding[]): Finding[] {
  return list.sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  )
}

/** An error a caller can act on; the service maps `status`, the CLI prints `message`. */
export class ProcessorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
    this.name = 'ProcessorError'
  }
}
