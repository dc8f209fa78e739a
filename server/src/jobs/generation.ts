// One generation: the transform, the templates a format and its options select, processing in
// process (processor-lib), the backend file, and the zip. Pure with respect to the database.
import { processFiles, zipTree, type Finding, type TreeFile } from '@ies/processor-lib'
import { backendFile, BACKEND_FILE } from './backend-file.ts'
import { isSelected, selectedPrefixes, writesBackend, type Format, type GenerateOptions } from './selection.ts'
import type { TemplatesSource } from './templates.ts'
import type { ProcessorInput } from './transform.ts'

export interface Generated {
  files: TreeFile[]
  templatesCommit: string
  /** Warnings of the processor (the files were generated). */
  warnings: Finding[]
}

/** A generation the processor refused: its findings are the job error's details. */
export class GenerationError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }
}

export async function generate(opts: {
  input: ProcessorInput
  format: Format
  options: GenerateOptions
  templates: TemplatesSource
}): Promise<Generated> {
  const { commit, inputs } = await opts.templates.load()
  const prefixes = selectedPrefixes(opts.format, opts.options)
  const selected = inputs.filter((f) => isSelected(f.path, prefixes))
  if (selected.length === 0) {
    throw new GenerationError('GENERATION_FAILED', `the templates hold no files for format ${opts.format}`)
  }
  const result = processFiles(selected, opts.input)
  if (!result.ok) {
    const errors = result.findings.filter((f) => f.severity === 'error')
    throw new GenerationError('GENERATION_FAILED', `${result.refused.length} file(s) could not be generated`, errors.length ? errors : result.findings)
  }
  const files = [...result.files]
  if (writesBackend(opts.format, opts.options)) {
    files.push({ path: BACKEND_FILE, content: backendFile(opts.input), mode: 0o644 })
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  }
  return { files, templatesCommit: commit, warnings: result.findings }
}

/** The archive of a generation: a zip with entries in path order and fixed timestamps. */
export function archiveOf(generated: Generated): Promise<Buffer> {
  return zipTree(generated.files)
}
