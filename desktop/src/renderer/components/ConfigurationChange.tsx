// What the templates' migrations change in an environment's stored configuration, shown beside the
// file diff of a push preview and after a push: the migrations, then each field before -> after.
import type { ConfigurationChange } from '@ies/api'

/** The job result's configuration change, or null when the push applied no migration. */
export function configurationChangeOf(result: unknown): ConfigurationChange | null {
  const change = (result as { configurationChange?: ConfigurationChange } | null | undefined)?.configurationChange
  return change && Array.isArray(change.migrations) && change.migrations.length > 0 && Array.isArray(change.changes) ? change : null
}

const shown = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v))

export function ConfigurationChangeView({ change, dryRun }: { change: ConfigurationChange | null; dryRun: boolean }) {
  if (!change) return null
  return (
    <div className="stack" data-testid="configuration-change">
      <h3>{dryRun ? 'The configuration the templates’ migrations would change' : 'The configuration the templates’ migrations changed'}</h3>
      <p className="muted small">Migrations: {change.migrations.join(', ')}</p>
      <table className="table" aria-label="Configuration change">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {change.changes.map((c) => (
            <tr key={c.field}>
              <td className="mono">{c.field}</td>
              <td className="mono">{shown(c.before)}</td>
              <td className="mono">{shown(c.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
