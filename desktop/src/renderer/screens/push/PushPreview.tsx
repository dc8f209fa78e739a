// A push's preview (a dry run, nothing written): what a push to the branch would change in the
// configuration, the Terraform plan when there is one, the data a push would destroy (to confirm by
// name), and the file tree of the change with "Push" and "Push to a new branch".
import type { PushBody } from '@ies/api'
import type { Environment, Job } from '../../lib/api/types.ts'
import type { PushOutcome } from '../../lib/push/lifecycle.ts'
import { ChangePreview } from '../../components/ChangePreview.tsx'
import { ConfigurationChangeView, configurationChangeOf } from '../../components/ConfigurationChange.tsx'
import { DestroyConfirmation, PlanView, planOf } from '../../components/PlanView.tsx'

export function PushPreview(p: {
  env: Environment
  job: Job | null
  outcome: Extract<PushOutcome, { kind: 'preview' }>
  branch: string
  running: boolean
  start: (body: PushBody) => void
}) {
  const plan = planOf(p.job?.result)
  const atRisk = plan && 'dataAtRisk' in plan ? plan.dataAtRisk : []
  return (
    <div className="stack" data-testid="push-preview">
      <h3>
        What a push to <span className="mono">{p.outcome.branch || p.branch}</span> would change
      </h3>
      <ConfigurationChangeView change={configurationChangeOf(p.job?.result)} dryRun />
      <PlanView plan={plan} />
      {atRisk.length > 0 && (
        <DestroyConfirmation
          envName={p.env.name}
          addresses={atRisk}
          disabled={p.running}
          onConfirm={(a) => p.start({ confirmDestroy: a })}
        />
      )}
      <ChangePreview
        changes={p.outcome.changes}
        actions={
          atRisk.length > 0 ? null : (
            <div className="row">
              <button type="button" className="btn primary" disabled={p.running} onClick={() => p.start({ strategy: 'merge' })}>
                Push
              </button>
              <button type="button" className="btn" disabled={p.running} onClick={() => p.start({ strategy: 'branch' })}>
                Push to a new branch
              </button>
              <span className="muted small">A new branch leaves {p.branch} untouched; open a pull request from it.</span>
            </div>
          )
        }
      />
    </div>
  )
}
