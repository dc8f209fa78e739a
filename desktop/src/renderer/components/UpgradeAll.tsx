// Every environment that is behind, previewed and updated in one go: a dry run of each (one job per
// environment, followed by long polling), the changes per environment, then "Update all": one push
// job each; a conflict ends only its own environment's push and is shown with its files. "Plan each
// environment first" (UpgradePlan.tsx, as in waves) plans every preview: each environment shows its
// plan's summary and the data at risk, which the user confirms by typing its name before "Update all"
// (sent as `confirmDestroy`, by id; an update that would destroy data unconfirmed fails).
import { useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href } from '../router.ts'
import type { Rollout } from '../lib/api/types.ts'
import { followJobs } from '../lib/jobs/job-follow.ts'
import { behindReasons, pushOutcome, type EnvironmentUpgrade, type PushOutcome } from '../lib/push/lifecycle.ts'
import { describeCounts } from '../lib/push/change-tree.ts'
import { ChangePreview } from './ChangePreview.tsx'
import { ConflictView } from './ConflictView.tsx'
import { GitRef } from './GitRef.tsx'
import { ErrorNotice, Notice, Spinner } from './ui.tsx'
import { UpgradeWaves } from './UpgradeWaves.tsx'
import { PlanChoice, PlannedEnvironment, resources, useRollout } from './UpgradePlan.tsx'

export type Row = { state: 'running' } | { state: 'done'; outcome: PushOutcome } | { state: 'skipped'; reason: string }

export function UpgradeAll({ behind, onUpdated }: { behind: EnvironmentUpgrade[]; onUpdated: () => void }) {
  const { api } = useApp()
  const [phase, setPhase] = useState<'idle' | 'previewing' | 'previewed' | 'updating' | 'updated'>('idle')
  const [rows, setRows] = useState<Record<string, Row>>({})
  const [error, setError] = useState<unknown>(null)
  const [inWaves, setInWaves] = useState(false)
  const [plan, setPlan] = useState(false)
  // The planned preview's rollout: each environment's plan summary and data at risk.
  const [previewId, setPreviewId] = useState<string | null>(null)
  const planned = new Map(useRollout(api, previewId, setError)?.waves.flatMap((w) => w.environments.map((e) => [e.id, e])))
  // The data-holding addresses confirmed, by environment id: sent with "Update all".
  const [confirmed, setConfirmed] = useState<Record<string, string[]>>({})
  const ids = behind.map((e) => e.id)

  async function run(dryRun: boolean) {
    setPhase(dryRun ? 'previewing' : 'updating')
    setError(null)
    try {
      const confirmDestroy = Object.keys(confirmed).length > 0 && { confirmDestroy: confirmed }
      const started = await api.upgrade({
        ids,
        ...(dryRun ? { dryRun: true, ...(plan && { plan: true }) } : { strategy: 'merge', ...confirmDestroy }),
      })
      if (dryRun && plan) setPreviewId(started.rolloutId)
      const next: Record<string, Row> = {}
      for (const s of started.skipped) next[s.environmentId] = { state: 'skipped', reason: s.reason }
      for (const j of started.jobs) next[j.environmentId] = { state: 'running' }
      setRows(next)
      // One request per round for all the jobs, not one per job.
      const environmentOf = new Map(started.jobs.map((j) => [j.jobId, j.environmentId]))
      await followJobs(api, [...environmentOf.keys()], (job) => {
        const row: Row = { state: 'done', outcome: pushOutcome(job)! }
        setRows((r) => ({ ...r, [environmentOf.get(job.id)!]: row }))
      })
      setPhase(dryRun ? 'previewed' : 'updated')
    } catch (e) {
      setError(e)
      setPhase(dryRun ? 'idle' : 'previewed')
    }
  }

  const busy = phase === 'previewing' || phase === 'updating'
  const names = behind.map((e) => e.name)
  const outcomes = Object.values(rows).flatMap((r) => (r.state === 'done' ? [r.outcome.kind] : []))
  const title =
    phase === 'updated'
      ? `Update finished: ${outcomes.filter((k) => k === 'pushed').length} updated, ${outcomes.filter((k) => k === 'conflict').length} in conflict, ${outcomes.filter((k) => k === 'failed').length} failed`
      : `${behind.length} environment${behind.length === 1 ? ' is' : 's are'} behind`
  return (
    <Notice kind={phase === 'updated' ? 'info' : 'warn'} title={title} testId="upgrades">
      <p>
        {names.join(', ')} {behind.length === 1 ? 'was' : 'were'} pushed before the latest templates or configuration changes. Preview what
        an update would change in each repository, then update them all; files and edits of your own are kept.
      </p>
      <StrandedValues behind={behind} />
      {phase === 'idle' && (
        <label className="row">
          <input type="checkbox" checked={inWaves} onChange={(e) => setInWaves(e.target.checked)} /> Upgrade in waves (for example dev, then
          staging, then prod), stopping at the first conflict
        </label>
      )}
      {!inWaves && phase === 'idle' && <PlanChoice checked={plan} disabled={false} onChange={setPlan} />}
      {inWaves && phase === 'idle' && <UpgradeWaves behind={behind} onUpdated={onUpdated} />}
      {/* Not `hidden`: the row's display: flex would show it anyway. */}
      {!(inWaves && phase === 'idle') && (
        <div className="row">
          {(phase === 'idle' || phase === 'previewing') && (
            <button type="button" className="btn primary" disabled={busy} onClick={() => run(true)}>
              {phase === 'previewing' && <Spinner />} Preview and update all
            </button>
          )}
          {(phase === 'previewed' || phase === 'updating') && (
            <button type="button" className="btn primary" disabled={busy} onClick={() => run(false)}>
              {phase === 'updating' && <Spinner />} Update all {behind.length}
            </button>
          )}
          {phase === 'updated' && (
            <button type="button" className="btn" onClick={onUpdated}>
              Done
            </button>
          )}
        </div>
      )}
      <ErrorNotice error={error} what={phase === 'updating' ? 'Updating' : 'Previewing'} />
      {Object.keys(rows).length > 0 && (
        <ul className="upgrade-list" aria-label="Environments to update">
          {behind.map((e) => (
            <UpgradeRow
              key={e.id}
              env={e}
              row={rows[e.id]}
              planned={planned.get(e.id)}
              confirmed={confirmed[e.id]}
              canConfirm={phase === 'previewed'}
              onConfirm={(addresses) => setConfirmed((c) => ({ ...c, [e.id]: addresses }))}
            />
          ))}
        </ul>
      )}
    </Notice>
  )
}

/** One environment of the banner: why it is behind, its outcome and, once planned, its plan and data at risk. */
export function UpgradeRow({
  env,
  row,
  planned,
  confirmed,
  canConfirm,
  onConfirm,
}: {
  env: EnvironmentUpgrade
  row: Row | undefined
  planned?: Rollout['waves'][number]['environments'][number]
  confirmed?: string[]
  /** The preview has ended and the update is not started: data at risk may be confirmed. */
  canConfirm: boolean
  onConfirm: (addresses: string[]) => void
}) {
  const o = row?.state === 'done' ? row.outcome : null
  return (
    <li data-upgrade={env.name}>
      <a href={href.environment(env.id)}>
        <strong>{env.name}</strong>
      </a>{' '}
      <span className="muted small">{behindReasons(env.behind, env.lastPush).join(' ')}</span>
      {env.templatesPin && <span className="muted small"> Pinned to templates {env.templatesPin}.</span>}
      <div aria-live="polite">
        {!row && <span className="muted">Not started.</span>}
        {row?.state === 'running' && <Spinner label={`Working on ${env.name}`} />}
        {row?.state === 'skipped' && <span data-testid="upgrade-outcome">Skipped: {row.reason}</span>}
        {o?.kind === 'preview' && (
          <details>
            <summary data-testid="upgrade-outcome">{describeCounts(o.changes)}</summary>
            <ChangePreview changes={o.changes} />
          </details>
        )}
        {o?.kind === 'pushed' && (
          <span data-testid="upgrade-outcome">
            {o.changed ? 'Updated: commit ' : 'Already up to date at '}
            <GitRef commit={o.commit} /> on <span className="mono">{o.branch}</span>.
          </span>
        )}
        {o?.kind === 'conflict' && (
          <details>
            <summary data-testid="upgrade-outcome">Conflict: not pushed, the branch is untouched.</summary>
            <ConflictView conflicts={o.conflicts} />
          </details>
        )}
        {o?.kind === 'failed' && <span data-testid="upgrade-outcome">Failed: {o.message}</span>}
        {planned && (
          <PlannedEnvironment
            env={planned}
            confirmed={confirmed}
            canConfirm={canConfirm}
            confirmLabel={`Confirm: Update all may destroy ${resources(planned.dataAtRisk?.length ?? 0)} in ${env.name}`}
            onConfirm={onConfirm}
          />
        )}
      </div>
    </li>
  )
}

/** The environments whose stored values the current templates no longer accept: an upgrade skips them unless its migrations move the values. */
function StrandedValues({ behind }: { behind: EnvironmentUpgrade[] }) {
  const stranded = behind.filter((e) => (e.problems ?? []).length > 0)
  if (stranded.length === 0) return null
  return (
    <div data-testid="stranded-values">
      <p>
        The current templates no longer accept these values: an upgrade skips the environment unless a migration of the templates moves
        them. Fix the values to upgrade it.
      </p>
      <ul className="small">
        {stranded.flatMap((e) =>
          e.problems!.map((p) => (
            <li key={`${e.id} ${p.field}`}>
              <a href={href.environment(e.id)}>{e.name}</a>: <span className="mono">{p.field}</span>: {p.reason}
            </li>
          )),
        )}
      </ul>
    </div>
  )
}
