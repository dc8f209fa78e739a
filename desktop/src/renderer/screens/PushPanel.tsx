// Push the generated repository to the environment's Git repository (HTTPS, the stored deploy key
// as the credential, used only by the server): start the job, follow it, show the pushed commit or
// that the branch already held exactly these files.
import { useState } from 'react'
import { useApp } from '../app-context.tsx'
import { useJob } from '../job-watch.ts'
import { href } from '../router.ts'
import type { Environment, Job } from '../../lib/types.ts'
import { JobProgress } from '../components/JobProgress.tsx'
import { ErrorNotice, Notice, Spinner } from '../components/ui.tsx'

function pushedCommit(job: Job | null): { commit: string; branch?: string; changed: boolean } | null {
  if (job?.status !== 'succeeded' || !job.result) return null
  const commit = job.result.commit
  if (typeof commit !== 'string') return null
  return { commit, branch: typeof job.result.branch === 'string' ? job.result.branch : undefined, changed: job.result.changed !== false }
}

export function PushPanel({ env }: { env: Environment }) {
  const { api } = useApp()
  const [started, setStarted] = useState<Job | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const { job, log, error: pollError } = useJob(api, started)
  const repo = env.gitRepository
  const branch = repo?.branch || 'main'
  const missing = !repo?.url ? 'a Git repository' : !repo.hasDeployKey ? 'a deploy key' : null
  const running = busy || job?.status === 'queued' || job?.status === 'running'
  const outcome = pushedCommit(job)

  async function start() {
    setBusy(true)
    setError(null)
    try {
      setStarted(await api.push(env.id))
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
          Generate the full repository and push it as one commit to <span className="mono">{repo.url}</span> on branch{' '}
          <span className="mono">{branch}</span>. The deploy key stays on the server.
        </p>
      ) : null}
      {missing && (
        <Notice kind="info" title="Not ready to push">
          This environment has no {missing} yet. <a href={href.editEnvironment(env.id)}>Add it in the wizard</a> (step Git repository).
        </Notice>
      )}
      <button type="button" className="btn primary" disabled={!!missing || running} onClick={start}>
        {running && <Spinner />} Push to Git
      </button>
      <ErrorNotice error={error} what="Push" />
      <ErrorNotice error={pollError} what="Following the job" />
      {job && <JobProgress job={job} log={log} what="Push" />}
      {outcome && (
        <Notice kind="ok" title={outcome.changed ? 'Pushed' : 'Nothing to push'} testId="pushed-commit">
          {outcome.changed ? 'Commit ' : 'The branch is already up to date at commit '}
          <span className="mono" data-testid="commit-id" data-commit={outcome.commit} title={outcome.commit}>
            {outcome.commit}
          </span>{' '}
          on <span className="mono">{outcome.branch ?? branch}</span>
          {outcome.changed ? '.' : '; nothing changed since the last push.'}
        </Notice>
      )}
    </section>
  )
}
