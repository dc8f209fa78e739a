// What a successful generation produced, in one line: format, file count, size, templates commit and
// processor warnings (the generate panel's result and every generation of the job history).
import type { GenerationSummary } from '../lib/jobs/generate-options.ts'
import { shortCommit } from '../lib/catalog/prepared-catalog.ts'

export function GenerationFacts({ summary }: { summary: GenerationSummary }) {
  return (
    <>
      <strong>{summary.format}</strong>
      {summary.fileCount !== null && <> · {summary.fileCount} files</>}
      {summary.size && <> · {summary.size}</>}
      {summary.templatesCommit && (
        <>
          {' '}
          · templates <code title={summary.templatesCommit}>{shortCommit(summary.templatesCommit)}</code>
        </>
      )}
      {summary.warnings > 0 && <> · {summary.warnings} processor warnings</>}
    </>
  )
}
