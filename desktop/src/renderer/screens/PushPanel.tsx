// The environment's generated repository: the last push (commit and branch as links on a known Git
// host), whether it is behind and why, "Preview changes" (a dry run: the file tree of the change with
// per-file diffs, nothing written), then "Push" (three-way merge into the branch) or "Push to a new
// branch" (for a pull request). A conflict names the files and hunks; the branch is left untouched.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { useJob } from '../job-watch.ts'
import { href } from '../router.ts'
import type { Environment, Job } from '../lib/api/types.ts'
import type { PushBody as PushRequest } from '@ies/api'
import { behindReasons, isBehind, pushOutcome } from '../lib/push/lifecycle.ts'
import { shortCommit } from '../lib/catalog/prepared-catalog.ts'
import { JobProgress } from '../components/JobProgress.tsx'
import { ChangePreview } from '../components/ChangePreview.tsx'
import { ConflictView } from '../components/ConflictView.tsx'
import { GitRef } from '../components/GitRef.tsx'
import { ConfigurationChangeView, configurationChangeOf } from '../components/ConfigurationChange.tsx'
import { TemplatesPin } from '../components/TemplatesPin.tsx'
import { DestroyConfirmation, PlanView, planOf } from '../components/PlanView.tsx'
import { ErrorNotice, Notice, Spinner, formatDate } from '../components/ui.tsx'

export function PushPanel({ env, onPushed }: { env: Environment; onPushed?: () => void }) {
  const { api } = useApp()
  const [started, setStarted] = useState<Job | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const { job, log, error: pollError } = useJob(api, started)
  const repo = env.gitRepository
  const branch = repo?.branch || 'main'
  const missing = !repo?.url ? 'a Git repository' : !repo.hasDeployKey ? 'a deploy key' : null
  const running = busy || job?.status === 'queued' || job?.status === 'running'
  const outcome = pushOutcome(job)
  const reasons = behindReasons(env.behind, env.lastPush)
  const [mode, setMode] = useState<'Preview' | 'Push'>('Push')
  // A preview plans too when there is a state bucket and a cloud credential to plan with (plans.md).
  const plannable = !!env.terraformBackend?.bucket && !!env.cloudCredentialId
  const plan = outcome?.kind === 'preview' ? planOf(job?.result) : undefined
  const atRisk = plan && 'dataAtRisk' in plan ? plan.dataAtRisk : []
  const refused = job?.error?.code === 'PUSH_WOULD_DESTROY_DATA' ? ((job.error.details as { addresses?: string[] })?.addresses ?? []) : []
  const pushedJob = outcome?.kind === 'pushed' && outcome.changed ? job?.id : undefined
  useEffect(() => {
    // The environment's last push and "behind" changed: the page reads it again (one request).
    if (pushedJob) onPushed?.()
  }, [pushedJob])

  async function start(body: PushRequest) {
    setMode(body.dryRun ? 'Preview' : 'Push')
    setBusy(true)
    setError(null)
    try {
      setStarted(await api.push(env.id, body))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="card" aria-labelledby="push-title">
      <h2 id="push-title">Push</h2>
      {repo?.url ? (
        <p className="muted">
          Generate the repository and merge it into <span className="mono">{repo.url}</span> on branch{' '}
          <span className="mono">{branch}</span>: files you added and lines you edited are kept. The deploy key stays on the server.
        </p>
      ) : null}
      {env.lastPush && (
        <dl className="props" data-testid="last-push">
          <dt>Last push</dt>
          <dd>
            Commit <GitRef repoUrl={repo?.url} commit={env.lastPush.commit} testId="last-push-commit" /> on{' '}
            <GitRef repoUrl={repo?.url} branch={env.lastPush.branch} testId="last-push-branch" />, {formatDate(env.lastPush.pushedAt)}, from
            templates <code>{shortCommit(env.lastPush.templatesCommit)}</code>
          </dd>
          <dt>Status</dt>
          <dd data-testid="behind-status">
            {isBehind(env.behind) ? (
              <>
                <strong>Behind.</strong>
                <ul>
                  {reasons.map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              </>
            ) : (
              'Up to date: the repository has everything this configuration and the current templates produce.'
            )}
          </dd>
        </dl>
      )}
      {env.lastPush === null && repo?.url && <p className="muted">Never pushed yet.</p>}
      <TemplatesPin env={env} onChanged={onPushed} />
      {missing && (
        <Notice kind="info" title="Not ready to push">
          This environment has no {missing} yet. <a href={href.editEnvironment(env.id)}>Add it in the wizard</a> (step Git repository).
        </Notice>
      )}
      <div className="row">
        <button
          type="button"
          className="btn"
          disabled={!!missing || running}
          onClick={() => start({ dryRun: true, ...(plannable && { plan: true }) })}
        >
          Preview changes
        </button>
        <button type="button" className="btn primary" disabled={!!missing || running} onClick={() => start({})}>
          {running && <Spinner />} Push to Git
        </button>
      </div>
      <ErrorNotice error={error} what="Push" />
      <ErrorNotice error={pollError} what="Following the job" />
      {job && <JobProgress job={job} log={log} what={mode} showFailure={outcome?.kind !== 'conflict'} />}
      {outcome?.kind === 'preview' && (
        <div className="stack" data-testid="push-preview">
          <h3>
            What a push to <span className="mono">{outcome.branch || branch}</span> would change
          </h3>
          <ConfigurationChangeView change={configurationChangeOf(job?.result)} dryRun />
          <PlanView plan={plan} />
          {atRisk.length > 0 && (
            <DestroyConfirmation envName={env.name} addresses={atRisk} disabled={running} onConfirm={(a) => start({ confirmDestroy: a })} />
          )}
          <ChangePreview
            changes={outcome.changes}
            actions={
              atRisk.length > 0 ? null : (
                <div className="row">
                  <button type="button" className="btn primary" disabled={running} onClick={() => start({ strategy: 'merge' })}>
                    Push
                  </button>
                  <button type="button" className="btn" disabled={running} onClick={() => start({ strategy: 'branch' })}>
                    Push to a new branch
                  </button>
                  <span className="muted small">A new branch leaves {branch} untouched; open a pull request from it.</span>
                </div>
              )
            }
          />
        </div>
      )}
      {job?.status === 'awaiting-approval' && (
        <Notice kind="info" title="Awaiting approval" testId="awaiting-approval">
          The team requires a second person for production pushes: another operator or editor approves or rejects it on the{' '}
          <a href={href.approvals()}>Approvals</a> page. Nothing is pushed until then.
        </Notice>
      )}
      {outcome?.kind === 'pushed' && (
        <Notice kind="ok" title={outcome.changed ? 'Pushed' : 'Nothing to push'} testId="pushed-commit">
          {outcome.changed ? 'Commit ' : 'The branch is already up to date at commit '}
          <GitRef repoUrl={repo?.url} commit={outcome.commit} testId="commit-id" /> on{' '}
          <GitRef repoUrl={repo?.url} branch={outcome.branch || branch} testId="pushed-branch" />
          {outcome.changed ? '.' : '; nothing changed since the last push.'}
          {outcome.strategy === 'branch' && outcome.changed && (
            <> A new branch for a pull request; {branch} is untouched. Conflicts, if any, are marked in the files.</>
          )}
        </Notice>
      )}
      {refused.length > 0 && (
        <DestroyConfirmation envName={env.name} addresses={refused} disabled={running} onConfirm={(a) => start({ confirmDestroy: a })} />
      )}
      {outcome?.kind === 'pushed' && <ConfigurationChangeView change={configurationChangeOf(job?.result)} dryRun={false} />}
      {outcome?.kind === 'conflict' && (
        <>
          <ConflictView conflicts={outcome.conflicts} />
          <div className="row">
            <button type="button" className="btn" disabled={running} onClick={() => start({ strategy: 'branch' })}>
              Push to a new branch instead
            </button>
            <span className="muted small">The new branch holds the merge with conflict markers, ready for a pull request.</span>
          </div>
        </>
      )}
    </section>
  )
}
