// One environment of a rollout's wave (GET /environments/upgrade/:id): its outcome and, when the
// previews were planned (`plan`), its plan's summary (or why there is none) and the data-holding
// addresses the plan would replace or destroy. Once the rollout has ended, addresses not yet
// confirmed are offered for confirmation (PlanView's DestroyConfirmation): confirming restarts the
// rollout with them in `confirmDestroy` for this environment (docs/updating.md, "Upgrades in waves").
import { href } from '../router.ts'
import type { Rollout } from '../lib/api/types.ts'
import { DestroyConfirmation } from './PlanView.tsx'

type RolloutEnv = Rollout['waves'][number]['environments'][number]

/** The same addresses, in any order: what the server's guard accepts as a confirmation. */
export const confirmsExactly = (confirmed: readonly string[] | undefined, atRisk: readonly string[]) =>
  !!confirmed && confirmed.length === atRisk.length && atRisk.every((a) => confirmed.includes(a))

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
      {env.plan && (
        <span className="small" data-testid="rollout-plan">
          {' '}
          · {env.plan.startsWith('no plan') ? env.plan : `plan: ${env.plan}`}
        </span>
      )}
      {atRisk.length > 0 &&
        (toConfirm ? (
          <DestroyConfirmation
            envName={env.name}
            addresses={atRisk}
            disabled={false}
            onConfirm={onConfirm}
            confirmLabel={`Confirm and roll out again, destroying ${atRisk.length} resource${atRisk.length === 1 ? '' : 's'} in ${env.name}`}
          />
        ) : (
          <ul className="small" data-testid="rollout-at-risk" aria-label={`Data at risk in ${env.name}`}>
            {atRisk.map((a) => (
              <li key={a} className="mono plan-resource at-risk">
                {a} {confirmsExactly(confirmed, atRisk) ? '(confirmed)' : '(holds data: would be replaced or destroyed)'}
              </li>
            ))}
          </ul>
        ))}
    </li>
  )
}
