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
  IGNORE_UNMATCHED: 'a pattern of the ignore file (.iesignore) that matches no file of the tree',
  AUTHORS_GUIDE_OUTPUT: "a README the generation outputs is the template authors' guide instead of the generated repository's hand-over",
  // Catalog extraction
  BAD_PATH: 'a decorator path whose shape the bucket rule does not accept',
  BAD_ATTRIBUTE: 'an attribute segment that is not key=value (a "|" inside a value splits it), or text between the path and the first "|"',
  DUPLICATE_ATTRIBUTE: 'the same attribute key twice on one decorator',
  BAD_OPTIONS: 'options is not valid (strict) JSON',
  UNDECLARED_SERVICE: 'a service field whose service has no @module declaration',
  DEFAULT_MISMATCH: 'a default= attribute that differs from the value in the file below it (the file holds the working default)',
  UNGATED_MODULE: 'a root module call of a catalog service outside its @section services.<key>.enabled gate',
  BAD_RELATION: 'an atLeast= or atMost= field relation whose bound is not a number or a number field of the catalog',
  // Gate
  MISSING_OUTPUT: 'an input or expected file is absent from the output, or the file count differs',
  FORMAT: 'a Terraform file differs from its canonical terraform fmt form',
  HCL_PARSE: 'a Terraform / HCL file does not parse',
  UNDECLARED_REFERENCE: 'a reference to a variable or local that the module does not declare',
  YAML_PARSE: 'a YAML file does not parse',
  JSON_PARSE: 'a JSON file does not parse',
  // Template checks (npm run check:templates)
  TERRAFORM_VALIDATE: 'terraform validate reports an error or a warning on a generated tree',
  STATIC_CATALOG: "the desktop's built-in catalog made from the templates has an attribute the client cannot read",
  CHECKOV: 'checkov fails a check on a generated tree, or a check is skipped without a reason',
  TFLINT: 'tflint (the recommended preset of terraform/.tflint.hcl) reports an issue on a generated tree',
  UPGRADE_REPLACES: 'upgrading an environment made from older templates would replace or destroy a resource that holds data',
  MIGRATION: 'a migration file (migrations/*.yaml) that is not a migration, or a step naming a path or value the catalog does not have',
  CLUSTER_MANIFEST: 'a generated gitops/ manifest is not one valid Kubernetes object (an Argo CD Application as its CRD describes it)',
  POLICY: 'a rule of policies/*.rego does not compile, or one of its Rego tests fails',
} as const

export type FindingCode = keyof typeof FINDING_CODES

/** One line per code: what an author does about it (printed under each finding by check:templates). */
export const FIX_HINTS: Readonly<Record<FindingCode, string>> = {
  UNRESOLVED_PARAM: 'add the field to the configuration, or correct the @param path',
  INERT_PARAM: 'put the @param directly above its `key = value` line (only comment lines in between, no blank line)',
  MULTILINE_VALUE: 'write the value on one line (a JSON list or object), or move the @param off this block',
  UNMATCHED_SECTION: 'pair each `@section <path> begin` with an `@section <path> end` of the same path, nested, not crossed',
  BAD_DECORATOR: 'write `# @param <path> | key=value`, `# @module services.<key>` or `# @section <path> begin|end`',
  UNSERIALIZABLE_VALUE: 'change the configuration value, or the line it is written to',
  UNSUPPORTED_ENTRY: 'replace the link or special file with a regular file',
  READ_FAILED: 'see the message; the file could not be processed',
  IGNORE_UNMATCHED:
    'correct the pattern to the path of a file of the tree (gitignore syntax, relative to the templates root), or remove it',
  AUTHORS_GUIDE_OUTPUT: "keep the README the hand-over of the generated repository; move authors' notes to a file .iesignore lists",
  BAD_PATH: 'a global field is `<field>`, a service field `services.<key>.<field>`, a module `services.<key>`',
  BAD_ATTRIBUTE: 'write the tail as `| key=value | key=value`; no "|" inside a value (no regex alternation in pattern=)',
  DUPLICATE_ATTRIBUTE: 'keep one of the two attributes',
  BAD_OPTIONS: 'write options= as strict JSON: [{"value": ..., "label": "..."}] with double quotes',
  UNDECLARED_SERVICE: 'declare the service once: `# @module services.<key> | displayName=... | description=... | category=...`',
  DEFAULT_MISMATCH: 'make default= equal to the value on the line below it, or drop default= (the file value is the default)',
  UNGATED_MODULE: 'wrap the module block in `# @section services.<key>.enabled begin` ... `end`',
  BAD_RELATION: 'name a number, a key of the same service (atMost=nodeMaxSize) or a full path (services.<key>.<field>) of a number field',
  MISSING_OUTPUT: 'processor error: see the message',
  FORMAT: 'run `terraform fmt` on the template; keep a comment line between knobs so `=` is not aligned across them',
  HCL_PARSE: 'usually a @section that cuts a block in half: move the begin/end lines outside the block',
  UNDECLARED_REFERENCE: 'declare the variable or local in that module folder, or gate the reference with its provider',
  YAML_PARSE: 'usually a @section that cuts a mapping or list in half',
  JSON_PARSE: 'fix the JSON syntax',
  TERRAFORM_VALIDATE: 'fix the Terraform at the line named; the configuration named says which services were on',
  STATIC_CATALOG: 'correct the decorator attribute the message names (the client reads it as the wizard does)',
  CHECKOV: "do what the check's title asks in the template's resource, or skip it there with its reason",
  TFLINT: "do what the rule's message asks at the template's line",
  UPGRADE_REPLACES: 'add a `moved` block for a renamed resource, undo the change that forces replacement, or declare it in UPGRADING.md',
  MIGRATION:
    'correct the step at the line named (docs/template-authors.md, "Migrations"): a path of the current catalog, a value its field accepts',
  CLUSTER_MANIFEST: "correct the member the message names (apiVersion, kind, metadata, and the Application fields of Argo CD's CRD)",
  POLICY: 'fix the rule (or its test) at the line named; `.tools/bin/opa test templates/policies -v` reruns the tests (docs/policies.md)',
}

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

/** The one-line form printed on stderr: `<file>:<line> <CODE> <message>`, the site printed once. */
export function formatFinding(f: Finding): string {
  return `${f.file}:${f.line} ${f.code} ${messageAfterSite(f)}`
}

/** The message without a leading `<file>:<line> ` (MULTILINE_VALUE names its site in the message, rule 5). */
export function messageAfterSite(f: Finding): string {
  const site = `${f.file}:${f.line} `
  return f.message.startsWith(site) ? f.message.slice(site.length) : f.message
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
