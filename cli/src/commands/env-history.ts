// ies env history | restore: an environment's changes, newest first, and restoring an earlier configuration.
import { InvalidArgumentError, type Command } from 'commander'
import type { HistoryEntry } from '@ies/api'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { findEnvironment } from '../lookup.ts'
import { UsageError } from '../settings.ts'
import { confirmed } from '../confirm.ts'

const positive = (value: string) => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of 1 or more')
  return n
}

const shown = (value: unknown) => (value === undefined ? '(unset)' : JSON.stringify(value))

/** What an entry changed, in a table cell: the fields, the job, or what was restored. */
export function entrySummary(entry: HistoryEntry): string {
  const parts: string[] = []
  if (entry.restoredFrom) parts.push(`from #${entry.restoredFrom}`)
  if (entry.jobId) parts.push(`job ${entry.jobId}`)
  if (entry.credentialId) parts.push(`credential ${entry.credentialId}`)
  const fields = [...(entry.changes ?? []).map((c) => c.field), ...(entry.secretsChanged ?? []).map((f) => `${f} (secret)`)]
  if (entry.kind !== 'create' && fields.length > 0) {
    parts.push(fields.length > 3 ? `${fields.slice(0, 3).join(', ')} and ${fields.length - 3} more` : fields.join(', '))
  }
  if (entry.kind === 'create') parts.push(`${fields.length} fields set`)
  return parts.join('; ')
}

export function registerHistory(env: Command, ctx: () => Context): void {
  withExamples(
    env
      .command('history <name-or-id>')
      .description('Its changes, newest first: who, when, what (--diff: every field before and after)')
      .option('--limit <n>', 'entries per page (1-100)', positive, 20)
      .option('--page <n>', 'which page', positive, 1)
      .option('--diff', 'print the fields each change set, before and after'),
    ['ies env history shop-dev', 'ies env history shop-dev --diff --limit 5', 'ies env history shop-dev --json'],
  ).action(async (nameOrId: string, opts: { limit: number; page: number; diff?: boolean }) => {
    const c = ctx()
    const client = await c.client()
    const found = await findEnvironment(client, nameOrId)
    const { data, pagination } = await client.environmentHistory(found.id, { page: opts.page, limit: opts.limit })
    c.out.result({ data, pagination }, () => {
      if (data.length === 0) return c.out.line(pagination.total === 0 ? 'No history.' : 'No entries on this page.')
      c.out.table(
        ['#', 'WHEN', 'WHO', 'KIND', 'WHAT'],
        data.map((e) => [e.id, e.at, e.actor.username, e.kind, entrySummary(e)]),
      )
      if (opts.diff) {
        for (const e of data.filter((e) => e.changes?.length || e.secretsChanged?.length)) {
          c.out.line(`#${e.id} ${e.kind} by ${e.actor.username} at ${e.at}`)
          for (const change of e.changes ?? []) c.out.line(`  ${change.field}: ${shown(change.before)} -> ${shown(change.after)}`)
          for (const field of e.secretsChanged ?? []) c.out.line(`  ${field}: changed (secret, not shown)`)
        }
      }
      if (pagination.totalPages > pagination.page) {
        c.out.note(`Page ${pagination.page} of ${pagination.totalPages} (${pagination.total} entries); next: --page ${pagination.page + 1}`)
      }
    })
  })

  withExamples(
    env
      .command('restore <name-or-id> <entry>')
      .description('Set the configuration an earlier history entry recorded (a new change; the deploy key stays)')
      .option('-y, --yes', 'do not ask (required when not on a terminal)'),
    ['ies env history shop-dev', 'ies env restore shop-dev 12 --yes'],
  ).action(async (nameOrId: string, entry: string, opts: { yes?: boolean }) => {
    const c = ctx()
    const entryId = Number(entry)
    if (!Number.isInteger(entryId) || entryId < 1) throw new UsageError('<entry> must be an entry number from ies env history')
    const client = await c.client()
    const found = await findEnvironment(client, nameOrId)
    if (!(await confirmed(opts.yes, `Restore ${found.name} to the configuration of entry #${entryId}?`, 'Restoring'))) {
      c.out.line('Nothing changed.')
      return
    }
    const restored = await client.restoreEnvironment(found.id, entryId)
    c.out.result(restored, () => c.out.line(`Restored ${found.name} to the configuration of entry #${entryId}.`))
  })
}
