// The environments that are behind, upgraded in waves (docs/updating.md, "Upgrades in waves"): the
// user orders globs on names (dev first, then staging, then prod); the server previews and pushes
// one wave after the other and stops at the first conflict or failed push. The rollout is read
// again every second until it ends: each wave's state and each environment's outcome. "Plan each
// environment first" plans every preview (`plan`): each environment shows its plan's summary and the
// data it puts at risk, which the user may confirm to roll out again (`confirmDestroy`, by id).
import { useState } from 'react'
import { useApp } from '../app-context.tsx'
import type { Rollout } from '../lib/api/types.ts'
import type { EnvironmentUpgrade } from '../lib/push/lifecycle.ts'
import { ErrorNotice, Spinner } from './ui.tsx'
import { RolloutEnvironment } from './RolloutEnvironment.tsx'
import { confirmsExactly, PlanChoice, useRollout } from './UpgradePlan.tsx'

const DEFAULT_WAVES = '*-dev\n*-staging\n*-prod'

const WAVE_STATES: Record<Rollout['waves'][number]['status'], string> = {
  pending: 'waiting',
  previewing: 'previewing',
  previewed: 'previewed',
  pushing: 'pushing',
  done: 'done',
  stopped: 'stopped',
}

/** The waves as typed: one glob per line, blank lines left out. */
export const wavesOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)

export function UpgradeWaves({ behind, onUpdated }: { behind: EnvironmentUpgrade[]; onUpdated: () => void }) {
  const { api } = useApp()
  const [text, setText] = useState(DEFAULT_WAVES)
  const [rolloutId, setRolloutId] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const rollout = useRollout(api, rolloutId, setError)
  const [plan, setPlan] = useState(false)
  // The data-holding addresses confirmed so far, by environment id: sent with every rollout started after.
  const [confirmed, setConfirmed] = useState<Record<string, string[]>>({})

  async function start(dryRun: boolean, planned = plan, confirmDestroy = confirmed) {
    setError(null)
    setRolloutId(null)
    try {
      const started = await api.upgrade({
        ids: behind.map((e) => e.id),
        waves: wavesOf(text),
        ...(dryRun && { dryRun: true }),
        ...(planned && { plan: true }),
        ...(Object.keys(confirmDestroy).length > 0 && { confirmDestroy }),
      })
      setRolloutId(started.rolloutId)
    } catch (e) {
      setError(e)
    }
  }

  const running = rolloutId !== null && (rollout === null || rollout.status === 'running')
  return (
    <section aria-label="Upgrade in waves" data-testid="upgrade-waves">
      <label className="field">
        <span>Waves, in order: one pattern of environment names per line (* matches any characters)</span>
        <textarea rows={3} value={text} disabled={running} onChange={(e) => setText(e.target.value)} aria-label="Waves" />
      </label>
      <PlanChoice checked={plan} disabled={running} onChange={setPlan} />
      <div className="row">
        <button type="button" className="btn" disabled={running || wavesOf(text).length === 0} onClick={() => start(true)}>
          Preview the waves
        </button>
        <button type="button" className="btn primary" disabled={running || wavesOf(text).length === 0} onClick={() => start(false)}>
          {running && <Spinner label="Rolling out" />} Roll out in waves
        </button>
        {rollout && rollout.status !== 'running' && (
          <button type="button" className="btn" onClick={onUpdated}>
            Done
          </button>
        )}
      </div>
      <ErrorNotice error={error} what="The upgrade in waves" />
      {rollout && (
        <RolloutView
          rollout={rollout}
          confirmed={confirmed}
          onConfirm={(id, addresses) => {
            // A confirmation starts the rollout again, planned, pushing this time.
            const next = { ...confirmed, [id]: addresses }
            setConfirmed(next)
            setPlan(true)
            void start(false, true, next)
          }}
        />
      )}
    </section>
  )
}

export function RolloutView({
  rollout,
  confirmed,
  onConfirm,
}: {
  rollout: Rollout
  confirmed: Record<string, string[]>
  onConfirm: (environmentId: string, addresses: string[]) => void
}) {
  // The environments of the wave it stopped at whose data at risk is not confirmed yet: said in words, not by the guard's code.
  const atRisk = rollout.stopped
    ? (rollout.waves[rollout.stopped.wave]?.environments ?? [])
        .filter((e) => (e.dataAtRisk ?? []).length > 0 && !confirmsExactly(confirmed[e.id], e.dataAtRisk!))
        .map((e) => e.name)
    : []
  return (
    <div aria-live="polite">
      {rollout.stopped && (
        <p data-testid="rollout-stopped">
          Stopped at wave {rollout.stopped.wave + 1}:{' '}
          {atRisk.length > 0
            ? `${atRisk.join(', ')} would replace or destroy data; confirm the addresses below to roll out again`
            : rollout.stopped.reason}
          . Later waves were not started.
        </p>
      )}
      {rollout.status === 'succeeded' && (
        <p data-testid="rollout-finished">{rollout.dryRun ? 'Every wave was previewed.' : 'Every wave was upgraded.'}</p>
      )}
      <ol className="upgrade-list">
        {rollout.waves.map((wave, i) => (
          <li key={i} data-wave={wave.pattern}>
            <strong>
              Wave {i + 1}: {wave.pattern}
            </strong>{' '}
            <span data-testid="wave-status">{WAVE_STATES[wave.status]}</span>
            {wave.environments.length === 0 && <span className="muted small"> (no environment)</span>}
            <ul>
              {wave.environments.map((e) => (
                <RolloutEnvironment
                  key={e.id}
                  env={e}
                  waveStatus={wave.status}
                  ended={rollout.status !== 'running'}
                  confirmed={confirmed[e.id]}
                  onConfirm={(addresses) => onConfirm(e.id, addresses)}
                />
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {rollout.skipped.length > 0 && (
        <ul aria-label="Skipped">
          {rollout.skipped.map((s) => (
            <li key={s.environmentId}>
              {s.name ?? s.environmentId}: skipped ({s.reason})
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
