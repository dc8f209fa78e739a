// "Check for drift now" beside the last drift check (docs/plans.md, "Drift"): queues a drift check
// (POST /environments/:id/drift), follows its job by long polling as generations and pushes are
// followed, and when it ends tells the page, which reads the environment again: its `drift` is the
// new outcome (LastDriftCheck). A refusal (no state bucket, no credential, not pushable) is said in
// words with the wizard step and field to set; a failed check shows its error message.
import { useEffect, useState } from 'react'
import { ApiError } from '@ies/api'
import { useApp } from '../app-context.tsx'
import { useJob, type JobLogEntry } from '../job-watch.ts'
import { href } from '../router.ts'
import type { Environment, Job } from '../lib/api/types.ts'
import { driftRefusal } from '../lib/environments/drift.ts'
import { JobProgress } from './JobProgress.tsx'
import { ErrorNotice, Notice, Spinner } from './ui.tsx'

/** The button and what followed it; `onChecked` when the check has ended (the page reads the environment again). */
export function DriftCheckNow({ env, onChecked }: { env: Environment; onChecked: () => void }) {
  const { api } = useApp()
  const [started, setStarted] = useState<Job | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const { job, log, error: pollError } = useJob(api, started)
  const ended = job?.status === 'succeeded' || job?.status === 'failed' ? job.id : undefined
  useEffect(() => {
    if (ended) onChecked()
  }, [ended])

  async function check() {
    setBusy(true)
    setError(null)
    try {
      setStarted(await api.drift(env.id))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const running = busy || job?.status === 'queued' || job?.status === 'running'
  return <DriftCheckView env={env} job={job} log={log} error={error} pollError={pollError} running={running} onCheck={check} />
}

export interface DriftCheckViewProps {
  env: Pick<Environment, 'id'>
  job: Job | null
  log: JobLogEntry[]
  /** The refusal or failure of the request that queues the check. */
  error: unknown
  pollError: unknown
  running: boolean
  onCheck: () => void
}

/** What the button shows: the job as it runs, then its end; or why the check was refused. */
export function DriftCheckView({ env, job, log, error, pollError, running, onCheck }: DriftCheckViewProps) {
  const refusal = error instanceof ApiError ? driftRefusal(error) : null
  return (
    <div className="stack drift-check-now" data-testid="drift-check-now">
      <div className="row">
        <button type="button" className="btn" disabled={running} onClick={onCheck}>
          {running && <Spinner label="Checking for drift" />} Check for drift now
        </button>
        {job?.status === 'succeeded' && (
          <span className="muted small" data-testid="drift-checked">
            Checked: the outcome is above.
          </span>
        )}
      </div>
      {refusal ? (
        <Notice kind="warn" title="The drift check cannot run yet" testId="drift-refusal">
          {refusal.reason}{' '}
          <span>
            <a href={href.editEnvironment(env.id)}>Edit the environment</a>, step <strong>{refusal.step}</strong>: {refusal.todo}.
          </span>
        </Notice>
      ) : (
        <ErrorNotice error={error} what="The drift check" />
      )}
      <ErrorNotice error={pollError} what="Following the drift check" />
      {job && <JobProgress job={job} log={log} what="Drift check" />}
    </div>
  )
}
