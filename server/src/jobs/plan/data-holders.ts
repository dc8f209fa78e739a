// The resource types that hold data or an identity others point at: declared once, by the template
// authors, in the templates' `data-holders.json` (not output: `.iesignore`). A plan marks their
// changes `holdsData`, a push that would replace or destroy one is refused unless confirmed
// (push-plan.ts), and the templates' upgrade check (scripts/check-templates/upgrade.ts) reads the same file.
import type { InputFile } from '@ies/processor-lib'
import { JobFailure } from '../../core/job-failure.ts'
import type { TemplatesSource } from '../../templates/source.ts'

/** The file of the templates tree that lists them. */
export const DATA_HOLDERS_FILE = 'data-holders.json'

/** Resource type -> what it is, in words (`aws_db_instance` -> `database`). */
export type DataHolders = Readonly<Record<string, string>>

/** The list from the file's text; a malformed file is an error naming it. */
export function parseDataHolders(text: string): DataHolders {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    throw new JobFailure('DATA_HOLDERS_INVALID', `The templates' ${DATA_HOLDERS_FILE} is not JSON: ${(err as Error).message}`)
  }
  const types = (parsed as { types?: unknown })?.types
  if (!types || typeof types !== 'object' || Object.values(types).some((v) => typeof v !== 'string')) {
    throw new JobFailure(
      'DATA_HOLDERS_INVALID',
      `The templates' ${DATA_HOLDERS_FILE} must hold "types": { "<resource type>": "<what it is>" }`,
    )
  }
  return types as DataHolders
}

/** The list of a templates tree's files; none when the tree has no such file. */
export function dataHoldersOf(inputs: readonly InputFile[]): DataHolders {
  const file = inputs.find((f) => f.path === DATA_HOLDERS_FILE)
  return file ? parseDataHolders(file.content.toString('utf8')) : {}
}

/**
 * What a resource change would lose, or null: a data holder's type, except a log group that keeps
 * no logs (no retention set).
 */
export function dataKindOf(holders: DataHolders, type: string, before: Record<string, unknown> | null | undefined): string | null {
  const kind = holders[type]
  if (!kind) return null
  if (type === 'aws_cloudwatch_log_group' && before && !Number(before.retention_in_days)) return null
  return kind
}

/** The data holders of a templates version (default the newest), read once per templates commit. */
export type DataHoldersSource = (version?: string) => Promise<DataHolders>

export function templatesDataHolders(source: TemplatesSource): DataHoldersSource {
  let cached: { commit: string; holders: DataHolders } | undefined
  return async (version) => {
    const templates = version === undefined ? await source.load() : await source.version(version)
    if (!templates) return {}
    if (cached?.commit !== templates.commit) cached = { commit: templates.commit, holders: dataHoldersOf(templates.inputs) }
    return cached.holders
  }
}
