// One generation: the templates a format and its options select, processed with the transform's
// output by a template processor (in process, or the remote processor service: processor-client.ts),
// the backend file, the generation record (`.ies/generation.json`, ../push/generation-record.ts), and the zip,
// which is checked to hold every expected file. Pure with respect to the database.
import { processFiles, zipTree, type Finding, type TreeFile } from '@ies/processor-lib'
import { selectInputs } from '@ies/processor-lib/tree'
import { archiveFindings } from '@ies/processor-lib/tree'
import { backendFile, BACKEND_FILE } from './backend-file.ts'
import { generationRecord, generationRecordFile } from '../push/generation-record.ts'
import { selectedPrefixes, writesBackend, type Format, type GenerateOptions } from './selection.ts'
import type { TemplatesSource } from '../../templates/source.ts'
import type { ProcessorInput } from './transform.ts'

export interface Generated {
  /** Sorted by path. */
  files: TreeFile[]
  /** The paths the archive must hold: the processed files, and the backend file when it is written. */
  expected: string[]
  templatesCommit: string
  /** Number of warnings of the processor (the files were generated). */
  warnings: number
}

/**
 * A generation that failed for a reason its user can read: the processor refused files
 * (GENERATION_FAILED, the findings are the job error's details) or the processor service did not
 * generate (unreachable, refused the request).
 */
export class GenerationError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }
}

/** The processed templates under some path prefixes. */
export interface Processed {
  commit: string
  files: TreeFile[]
  warnings: number
}

/** Processes the templates under `prefixes` with the processor input; throws GenerationError. */
export interface TemplateProcessor {
  /** Where the templates are processed, for logs (no credentials). */
  readonly origin: string
  /** `version`: a pinned templates version (a commit or tag, TemplatesSource.version); default the newest. */
  process(input: ProcessorInput, prefixes: readonly string[], version?: string): Promise<Processed>
}

/** The templates a pinned environment names cannot be found (the pin was valid when it was set). */
export const versionNotFound = (version: string) =>
  new GenerationError('TEMPLATES_VERSION_NOT_FOUND', `The templates version ${version} (templatesPin) cannot be found`)

/** The refusal of files as a job error: the error findings (or every finding) are the details. */
export function refusal(refusedCount: number, findings: readonly Finding[]): GenerationError {
  const errors = findings.filter((f) => f.severity === 'error')
  return new GenerationError('GENERATION_FAILED', `${refusedCount} file(s) could not be generated`, errors.length ? errors : findings)
}

/** The embedded processor: processor-lib in this process, on the templates source (TEMPLATES_DIR or TEMPLATES_REPO). */
export function inProcessProcessor(templates: TemplatesSource, opts: { trimDecoratorAttrs: boolean }): TemplateProcessor {
  return {
    origin: templates.origin,
    async process(input, prefixes, version) {
      const templatesAt = version ? await templates.version(version) : await templates.load()
      if (!templatesAt) throw versionNotFound(version as string)
      const { commit, inputs } = templatesAt
      // The templates' ignore file (.iesignore at the root) is read before the folders are selected.
      const selected = selectInputs(inputs, prefixes)
      const result = processFiles(selected, input, { trimDecoratorAttrs: opts.trimDecoratorAttrs })
      if (!result.ok) throw refusal(result.refused.length, result.findings)
      return { commit, files: result.files, warnings: result.findings.length }
    },
  }
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

export async function generate(opts: {
  input: ProcessorInput
  format: Format
  options: GenerateOptions
  processor: TemplateProcessor
  /** The environment generated for; its generation record is added when given. */
  environmentId?: string
  /** The ids of the templates' migrations the input's configuration has run, for the generation record. */
  migrations?: string[]
  /** The templates version to use (a pin); default the newest. */
  templatesVersion?: string
}): Promise<Generated> {
  const processed = await opts.processor.process(opts.input, selectedPrefixes(opts.format, opts.options), opts.templatesVersion)
  if (processed.files.length === 0) {
    throw new GenerationError('GENERATION_FAILED', `the templates hold no files for format ${opts.format}`)
  }
  const files = [...processed.files]
  const expected = files.map((f) => f.path)
  if (writesBackend(opts.format, opts.options)) {
    files.push({ path: BACKEND_FILE, content: backendFile(opts.input), mode: 0o644 })
    expected.push(BACKEND_FILE)
  }
  if (opts.environmentId !== undefined) {
    const record = generationRecord({
      environmentId: opts.environmentId,
      environmentName: opts.input.name,
      templatesCommit: processed.commit,
      format: opts.format,
      options: opts.options,
      input: opts.input,
      migrations: opts.migrations,
    })
    const file = generationRecordFile(record)
    files.push(file)
    expected.push(file.path)
  }
  files.sort(byPath)
  return { files, expected, templatesCommit: processed.commit, warnings: processed.warnings }
}

/**
 * The archive of a generation: a zip with entries in path order and fixed timestamps, checked to
 * hold exactly the expected files (else GENERATION_FAILED with MISSING_OUTPUT findings).
 */
export async function archiveOf(generated: Generated): Promise<Buffer> {
  return checkedArchive(await zipTree(generated.files), generated.expected)
}

export async function checkedArchive(zip: Buffer, expected: readonly string[]): Promise<Buffer> {
  const findings = await archiveFindings(zip, expected)
  if (findings.length > 0) {
    throw new GenerationError('GENERATION_FAILED', 'the archive does not hold every generated file', findings)
  }
  return zip
}
