// What a push came to: waiting for a second person's approval, pushed (or nothing to push), refused
// because it would destroy data (to confirm by name), or a conflict (nothing pushed, the branch
// untouched) with "Push to a new branch instead".
import type { PushBody } from '@ies/api'
import type { Environment, Job } from '../../lib/api/types.ts'
import type { PushOutcome } from '../../lib/push/lifecycle.ts'
import { href } from '../../router.ts'
import { ConflictView } from '../../components/ConflictView.tsx'
import { GitRef } from '../../components/GitRef.tsx'
import { ConfigurationChangeView, configurationChangeOf } from '../../components/ConfigurationChange.tsx'
import { DestroyConfirmation } from '../../components/PlanView.tsx'
import { Notice } from '../../components/ui.tsx'

export function PushResult(p: {
  env: Environment
  job: Job | null
  outcome: PushOutcome | null
  branch: string
  running: boolean
  start: (body: PushBody) => void
}) {
  const { env, job, outcome, branch } = p
  const repoUrl = env.gitRepository?.url
  const refused = job?.error?.code === 'PUSH_WOULD_DESTROY_DATA' ? ((job.error.details as { addresses?: string[] })?.addresses ?? []) : []
  return (
    <>
      {job?.status === 'awaiting-approval' && (
        <Notice kind="info" title="Awaiting approval" testId="awaiting-approval">
          The team requires a second person for production pushes: another operator or editor approves or rejects it on the{' '}
          <a href={href.approvals()}>Approvals</a> page. Nothing is pushed until then.
        </Notice>
      )}
      {outcome?.kind === 'pushed' && (
        <Notice kind="ok" title={outcome.changed ? 'Pushed' : 'Nothing to push'} testId="pushed-commit">
          {outcome.changed ? 'Commit ' : 'The branch is already up to date at commit '}
          <GitRef repoUrl={repoUrl} commit={outcome.commit} testId="commit-id" /> on{' '}
          <GitRef repoUrl={repoUrl} branch={outcome.branch || branch} testId="pushed-branch" />
          {outcome.changed ? '.' : '; nothing changed since the last push.'}
          {outcome.strategy === 'branch' && outcome.changed && (
            <> A new branch for a pull request; {branch} is untouched. Conflicts, if any, are marked in the files.</>
          )}
        </Notice>
      )}
      {refused.length > 0 && (
        <DestroyConfirmation
          envName={env.name}
          addresses={refused}
          disabled={p.running}
          onConfirm={(a) => p.start({ confirmDestroy: a })}
        />
      )}
      {outcome?.kind === 'pushed' && <ConfigurationChangeView change={configurationChangeOf(job?.result)} dryRun={false} />}
      {outcome?.kind === 'conflict' && (
        <>
          <ConflictView conflicts={outcome.conflicts} />
          <div className="row">
            <button type="button" className="btn" disabled={p.running} onClick={() => p.start({ strategy: 'branch' })}>
              Push to a new branch instead
            </button>
            <span className="muted small">The new branch holds the merge with conflict markers, ready for a pull request.</span>
          </div>
        </>
      )}
    </>
  )
}
