// The environment's generated repository: the last push (commit and branch as links on a known Git
// host), whether it is behind and why, "Preview changes" (a dry run: the file tree of the change with
// per-file diffs, nothing written), then "Push" (three-way merge into the branch) or "Push to a new
// branch" (for a pull request). A conflict names the files and hunks; the branch is left untouched.
// The parts are in push/: LastPush, PushPreview, PushResult.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { useJob } from '../job-watch.ts'
import { href } from '../router.ts'
import type { Environment, Job } from '../lib/api/types.ts'
import type { PushBody as PushRequest } from '@ies/api'
import { pushOutcome } from '../lib/push/lifecycle.ts'
import { JobProgress } from '../components/JobProgress.tsx'
import { TemplatesPin } from '../components/TemplatesPin.tsx'
import { ErrorNotice, Notice, Spinner } from '../components/ui.tsx'
import { LastPush } from './push/LastPush.tsx'
import { PushPreview } from './push/PushPreview.tsx'
import { PushResult } from './push/PushResult.tsx'

/** A push or a preview of the environment, started here and followed to its end (long polling). */
function usePush(env: Environment, onPushed?: () => void) {
  const { api } = useApp()
  const [started, setStarted] = useState<Job | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [mode, setMode] = useState<'Preview' | 'Push'>('Push')
  const { job, log, error: pollError } = useJob(api, started)
  const outcome = pushOutcome(job)
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
  const running = busy || job?.status === 'queued' || job?.status === 'running'
  return { job, log, error, pollError, mode, outcome, running, start }
}

export function PushPanel({ env, onPushed }: { env: Environment; onPushed?: () => void }) {
  const { job, log, error, pollError, mode, outcome, running, start } = usePush(env, onPushed)
  const repo = env.gitRepository
  const branch = repo?.branch || 'main'
  const missing = !repo?.url ? 'a Git repository' : !repo.hasDeployKey ? 'a deploy key' : null
  // A preview plans too when there is a state bucket and a cloud credential to plan with (plans.md).
  const plannable = !!env.terraformBackend?.bucket && !!env.cloudCredentialId
  const next = { job, outcome, branch, running, start }

  return (
    <section className="card" aria-labelledby="push-title">
      <h2 id="push-title">Push</h2>
      {repo?.url ? (
        <p className="muted">
          Generate the repository and merge it into <span className="mono">{repo.url}</span> on branch{' '}
          <span className="mono">{branch}</span>: files you added and lines you edited are kept. The deploy key stays on the server.
        </p>
      ) : null}
      <LastPush env={env} />
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
      {outcome?.kind === 'preview' && <PushPreview env={env} {...next} outcome={outcome} />}
      <PushResult env={env} {...next} />
    </section>
  )
}
