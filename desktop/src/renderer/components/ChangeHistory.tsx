// An environment's changes, newest first (GET /environments/:id/history), a page at a time: who,
// when, what kind, and for a change of the configuration the fields it changed, before and after
// (secrets only named, as the server records them). A configuration can be restored after a
// confirmation: the server applies it as a new change and keeps the current deploy key.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { diffValue, entryLine, KIND_LABELS, restorable } from '../lib/environments/change-history.ts'
import type { Environment, HistoryEntry } from '../lib/api/types.ts'
import { Badge, ConfirmDialog, ErrorNotice, Spinner, formatDate } from './ui.tsx'

const PAGE = 20

export function ChangeHistory({ env, onRestored }: { env: Environment; onRestored: (env: Environment) => void }) {
  const { api, toast } = useApp()
  const [entries, setEntries] = useState<HistoryEntry[] | null>(null)
  const [total, setTotal] = useState(0)
  const [pages, setPages] = useState(1)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState(false)
  const [restoring, setRestoring] = useState<HistoryEntry | null>(null)
  const [busy, setBusy] = useState(false)
  const [restoreError, setRestoreError] = useState<unknown>(null)
  // Bumped after a restore: the first pages are read again (the restore is the newest entry).
  const [reloads, setReloads] = useState(0)

  useEffect(() => {
    let current = true
    setLoading(true)
    Promise.all(Array.from({ length: pages }, (_, i) => api.environmentHistory(env.id, { page: i + 1, limit: PAGE })))
      .then(
        (results) => {
          if (!current) return
          setEntries(results.flatMap((r) => r.data))
          setTotal(results[0]?.pagination.total ?? 0)
        },
        (e) => current && setError(e),
      )
      .finally(() => current && setLoading(false))
    return () => {
      current = false
    }
  }, [api, env.id, pages, reloads])

  async function restore() {
    if (!restoring) return
    setBusy(true)
    setRestoreError(null)
    try {
      onRestored(await api.restoreEnvironment(env.id, restoring.id))
      toast(`Restored the configuration of #${restoring.id}`)
      setReloads((n) => n + 1)
    } catch (e) {
      setRestoreError(e)
    } finally {
      setBusy(false)
      setRestoring(null)
    }
  }

  return (
    <section className="card" aria-labelledby="change-history-title">
      <h2 id="change-history-title">History</h2>
      <p className="muted">
        Every change of this environment: who made it and when, what changed, and each generation and push. Secrets are never shown.
      </p>
      <ErrorNotice error={error} what="Loading the history" />
      <ErrorNotice error={restoreError} what="Restoring" />
      {entries === null && !error && <Spinner label="Loading the history" />}
      {entries?.length === 0 && <p className="muted">No changes recorded yet.</p>}
      {entries && entries.length > 0 && (
        <ol className="change-history" data-testid="change-history">
          {entries.map((entry) => (
            <ChangeEntry key={entry.id} entry={entry} onRestore={() => setRestoring(entry)} />
          ))}
        </ol>
      )}
      {entries && entries.length < total && (
        <button type="button" className="btn" disabled={loading} onClick={() => setPages((n) => n + 1)}>
          {loading && <Spinner />} Show older changes
        </button>
      )}
      {restoring && (
        <ConfirmDialog
          title={`Restore the configuration of #${restoring.id}?`}
          confirmLabel="Restore"
          busy={busy}
          onConfirm={restore}
          onCancel={() => setRestoring(null)}
        >
          <p>
            {env.name} gets the configuration it had after this change ({formatDate(restoring.at)}, by {restoring.actor.username}). The
            restore is recorded as a new change. The deploy key stays as it is now.
          </p>
        </ConfirmDialog>
      )}
    </section>
  )
}

function ChangeEntry({ entry, onRestore }: { entry: HistoryEntry; onRestore: () => void }) {
  const [open, setOpen] = useState(false)
  const changes = entry.changes ?? []
  const secrets = entry.secretsChanged ?? []
  const hasDiff = changes.length + secrets.length > 0
  return (
    <li className="change-entry" data-testid={`change-${entry.id}`}>
      <div className="row">
        <span className="mono muted">#{entry.id}</span>
        <Badge kind={entry.kind}>{KIND_LABELS[entry.kind] ?? entry.kind}</Badge>
        <span>{entryLine(entry)}</span>
        <div className="spacer" />
        <span className="muted small">
          {entry.actor.username} · <time dateTime={entry.at}>{formatDate(entry.at)}</time>
        </span>
        {hasDiff && (
          <button type="button" className="btn small" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide changes' : 'Show changes'}
          </button>
        )}
        {restorable(entry) && (
          <button type="button" className="btn small" onClick={onRestore}>
            Restore
          </button>
        )}
      </div>
      {open && (
        <table className="table diff" aria-label={`Changes of #${entry.id}`}>
          <thead>
            <tr>
              <th>Field</th>
              <th>Before</th>
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.field}>
                <td className="mono">{c.field}</td>
                <td className="mono before">{diffValue(c.before)}</td>
                <td className="mono after">{diffValue(c.after)}</td>
              </tr>
            ))}
            {secrets.map((field) => (
              <tr key={field}>
                <td className="mono">{field}</td>
                <td colSpan={2} className="muted">
                  replaced (secret, not shown)
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  )
}
