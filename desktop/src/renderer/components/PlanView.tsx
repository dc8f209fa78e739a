// The Terraform plan beside a push preview's file diff: the summary line (Terraform's "Plan:" counts),
// then the resources grouped by action, data-holding ones first and in red; and the typed
// confirmation a push needs before it may replace or destroy them (confirmDestroy).
import { useState } from 'react'
import type { PlanResource, PlanResult } from '@ies/api'
import { Notice } from './ui.tsx'

const GROUPS: [PlanResource['action'], string][] = [
  ['delete', 'Destroyed'],
  ['replace', 'Replaced (destroyed, then created)'],
  ['update', 'Updated in place'],
  ['create', 'Created'],
]

export type PlanOrWhyNot = PlanResult | { unavailable: string } | undefined

/** The `plan` of a dry run's result, if any. */
export function planOf(result: unknown): PlanOrWhyNot {
  const plan = (result as { plan?: unknown } | undefined)?.plan
  return plan && typeof plan === 'object' ? (plan as PlanOrWhyNot) : undefined
}

export function PlanView({ plan }: { plan: PlanOrWhyNot }) {
  if (!plan) return null
  if ('unavailable' in plan)
    return (
      <Notice kind="info" title="No plan" testId="plan-unavailable">
        {plan.unavailable}
      </Notice>
    )
  const s = plan.summary
  return (
    <div className="stack" data-testid="plan">
      <h3>What the push would do in the cloud</h3>
      <p data-testid="plan-summary">
        <strong>
          Plan: {s.add} to add, {s.change} to change, {s.destroy} to destroy
        </strong>
        {s.replace > 0 && ` (${s.replace} replaced)`}
        <span className="muted small">
          {' '}
          Terraform {plan.terraformVersion}, {plan.seconds} s
        </span>
      </p>
      {GROUPS.map(([action, label]) => {
        const group = plan.resources.filter((r) => r.action === action)
        if (group.length === 0) return null
        return (
          <div key={action}>
            <h4>{label}</h4>
            <ul>
              {group.map((r) => {
                const atRisk = plan.dataAtRisk.includes(r.address)
                return (
                  <li
                    key={r.address}
                    className={`plan-resource${atRisk ? ' at-risk' : ''}`}
                    data-testid={atRisk ? 'plan-at-risk' : undefined}
                  >
                    <span className="mono">{r.address}</span>
                    {r.holdsData && ` (holds data: ${r.dataKind ?? 'data'})`}
                    {r.attributes.length > 0 && (
                      <ul className="plan-attrs">
                        {r.attributes.map((a) => (
                          <li key={a.name} className="mono">
                            {a.name}: {a.before ?? '(none)'} → {a.after ?? '(none)'}
                          </li>
                        ))}
                      </ul>
                    )}
                  </li>
                )
              })}
            </ul>
          </div>
        )
      })}
    </div>
  )
}

/** The addresses a push may destroy once the user has typed the environment's name; `confirmLabel` names what the button then does. */
export function DestroyConfirmation({
  envName,
  addresses,
  disabled,
  onConfirm,
  confirmLabel = `Push and destroy ${addresses.length} resource${addresses.length === 1 ? '' : 's'}`,
}: {
  envName: string
  addresses: string[]
  disabled: boolean
  onConfirm: (addresses: string[]) => void
  confirmLabel?: string
}) {
  const [typed, setTyped] = useState('')
  return (
    <Notice kind="error" title="This push would destroy data" testId="destroy-confirmation">
      <p>These resources hold data and would be replaced or destroyed; their data would be lost:</p>
      <ul>
        {addresses.map((a) => (
          <li key={a} className="mono plan-resource at-risk">
            {a}
          </li>
        ))}
      </ul>
      <label className="field">
        Type <strong className="mono">{envName}</strong> to push anyway
        <input className="input" value={typed} onChange={(e) => setTyped(e.target.value)} aria-label="Environment name to confirm" />
      </label>
      <button type="button" className="btn danger solid" disabled={disabled || typed !== envName} onClick={() => onConfirm(addresses)}>
        {confirmLabel}
      </button>
    </Notice>
  )
}
