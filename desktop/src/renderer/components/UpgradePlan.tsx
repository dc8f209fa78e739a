// The plan choice of a bulk upgrade, the same in waves (UpgradeWaves.tsx) and all at once
// (UpgradeAll.tsx): "Plan each environment first" (`plan`: every preview is planned), the rollout
// read until it ends (its environments carry each plan's summary and the data at risk), and per
// environment the plan's summary line and the data-holding addresses it would replace or destroy,
// offered for confirmation (PlanView's DestroyConfirmation) once the user may act on them
// (docs/updating.md, "Upgrades in waves").
import { useEffect, useState } from 'react'
import type { ApiClient } from '@ies/api'
import type { Rollout } from '../lib/api/types.ts'
import { DestroyConfirmation } from './PlanView.tsx'

const POLL_MS = 1000

/** The same addresses, in any order: what the server's guard accepts as a confirmation. */
export const confirmsExactly = (confirmed: readonly string[] | undefined, atRisk: readonly string[]) =>
  !!confirmed && confirmed.length === atRisk.length && atRisk.every((a) => confirmed.includes(a))

/** The rollout `rolloutId` names, read again every second while it runs; null before the first read. */
export function useRollout(api: ApiClient, rolloutId: string | null, onError: (e: unknown) => void): Rollout | null {
  // Kept with its id: a rollout started again is not shown as the one before.
  const [last, setLast] = useState<{ id: string; rollout: Rollout } | null>(null)
  useEffect(() => {
    if (!rolloutId) return
    let cancelled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const read = async () => {
      try {
        const next = await api.rollout(rolloutId)
        if (cancelled) return
        setLast({ id: rolloutId, rollout: next })
        if (next.status === 'running') timer = setTimeout(read, POLL_MS)
      } catch (e) {
        if (!cancelled) onError(e)
      }
    }
    void read()
    return () => {
      cancelled = true
      clearTimeout(timer)
    }
    // onError is left out: a caller's state setter, which does not change.
  }, [api, rolloutId])
  return last?.id === rolloutId ? last.rollout : null
}

export function PlanChoice({ checked, disabled, onChange }: { checked: boolean; disabled: boolean; onChange: (plan: boolean) => void }) {
  return (
    <label className="row">
      <input type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
      <span>
        Plan each environment first{' '}
        <span className="muted small">
          (what each upgrade would do in the cloud; an update that would replace or destroy data waits until you confirm it)
        </span>
      </span>
    </label>
  )
}

/**
 * An environment's planned preview: its plan's summary (or why there is none) and the data at
 * risk, listed, or offered for confirmation when `canConfirm` and not confirmed exactly yet.
 */
export function PlannedEnvironment({
  env,
  confirmed,
  canConfirm,
  confirmLabel,
  onConfirm,
}: {
  env: { name: string; plan?: string; dataAtRisk?: string[] }
  /** The addresses already confirmed for this environment. */
  confirmed: string[] | undefined
  canConfirm: boolean
  confirmLabel: string
  onConfirm: (addresses: string[]) => void
}) {
  const atRisk = env.dataAtRisk ?? []
  return (
    <>
      {env.plan && (
        <span className="small" data-testid="rollout-plan">
          {' '}
          · {env.plan.startsWith('no plan') ? env.plan : `plan: ${env.plan}`}
        </span>
      )}
      {atRisk.length > 0 &&
        (canConfirm && !confirmsExactly(confirmed, atRisk) ? (
          <DestroyConfirmation envName={env.name} addresses={atRisk} disabled={false} onConfirm={onConfirm} confirmLabel={confirmLabel} />
        ) : (
          <ul className="small" data-testid="rollout-at-risk" aria-label={`Data at risk in ${env.name}`}>
            {atRisk.map((a) => (
              <li key={a} className="mono plan-resource at-risk">
                {a} {confirmsExactly(confirmed, atRisk) ? '(confirmed)' : '(holds data: would be replaced or destroyed)'}
              </li>
            ))}
          </ul>
        ))}
    </>
  )
}

/** "N resource(s)". */
export const resources = (n: number) => `${n} resource${n === 1 ? '' : 's'}`
