// One environment of a rollout's wave (GET /environments/upgrade/:id): its outcome and, when the
// previews were planned (`plan`), its plan's summary (or why there is none) and the data-holding
// addresses the plan would replace or destroy (UpgradePlan.tsx's PlannedEnvironment). Once the
// rollout has ended, addresses not yet confirmed are offered for confirmation: confirming restarts the
// rollout with them in `confirmDestroy` for this environment (docs/updating.md, "Upgrades in waves").
import { href } from '../router.ts'
import type { Rollout } from '../lib/api/types.ts'
import { confirmsExactly, PlannedEnvironment, resources } from './UpgradePlan.tsx'

type RolloutEnv = Rollout['waves'][number]['environments'][number]

export function RolloutEnvironment({
  env,
  waveStatus,
  ended,
  confirmed,
  onConfirm,
}: {
  env: RolloutEnv
  waveStatus: Rollout['waves'][number]['status']
  /** The rollout is no longer running: a confirmation may start it again. */
  ended: boolean
  /** The addresses already confirmed for this environment (the rollout's confirmDestroy). */
  confirmed: string[] | undefined
  onConfirm: (addresses: string[]) => void
}) {
  const atRisk = env.dataAtRisk ?? []
  const toConfirm = ended && atRisk.length > 0 && !confirmsExactly(confirmed, atRisk)
  return (
    <li data-rollout-environment={env.name}>
      <a href={href.environment(env.id)}>{env.name}</a>: {env.outcome ?? (waveStatus === 'pending' ? 'not started' : 'working')}
      {/* The destroy confirmation below says in words what the guard's reason says with its code. */}
      {env.reason && !toConfirm && <span className="muted small"> ({env.reason})</span>}
      <PlannedEnvironment
        env={env}
        confirmed={confirmed}
        canConfirm={ended}
        confirmLabel={`Confirm and roll out again, destroying ${resources(atRisk.length)} in ${env.name}`}
        onConfirm={onConfirm}
      />
    </li>
  )
}
