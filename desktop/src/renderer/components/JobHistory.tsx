// An environment's jobs, newest first, as the server keeps them (GET /environments/:id/jobs): one
// request when the page opens and one when a job of this page ends (`refreshKey`), "Show more" for
// older ones. Each generation has its own download and its file list (GET /jobs/:id/files, asked
// for when opened); each push its commit and branch, linked on a known Git host.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { saveBlob } from '../download.ts'
import { archiveFilename, type Environment, type Job, type JobFiles } from '../lib/api/types.ts'
import { formatBytes, generationSummary } from '../lib/jobs/generate-options.ts'
import { Badge, ErrorNotice, Spinner, formatDate } from './ui.tsx'
import { GenerationFacts } from './GenerationFacts.tsx'
import { GitRef } from './GitRef.tsx'

const PAGE = 10

/** Each job type by name; plans and drift checks have no archive to download (their outcome is in the history tab). */
const JOB_LABELS: Record<Job['type'], string> = { generate: 'Generation', push: 'Push', plan: 'Plan', drift: 'Drift check' }

export function JobHistory({ env, refreshKey }: { env: Environment; refreshKey: number }) {
  const { api } = useApp()
  const [jobs, setJobs] = useState<Job[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loadingMore, setLoadingMore] = useState(false)

  useEffect(() => {
    let current = true
    api.environmentJobs(env.id, { limit: PAGE }).then(
      (page) => {
        if (!current) return
        setJobs(page.data)
        setNext(page.nextCursor)
      },
      (e) => current && setError(e),
    )
    return () => {
      current = false
    }
  }, [api, env.id, refreshKey])

  async function more() {
    if (!next) return
    setLoadingMore(true)
    try {
      const page = await api.environmentJobs(env.id, { limit: PAGE, cursor: next })
      setJobs((shown) => [...(shown ?? []), ...page.data])
      setNext(page.nextCursor)
    } catch (e) {
      setError(e)
    } finally {
      setLoadingMore(false)
    }
  }

  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">Jobs</h2>
      <ErrorNotice error={error} what="Loading the jobs" />
      {jobs === null && !error && <Spinner label="Loading the jobs" />}
      {jobs?.length === 0 && <p className="muted">No generation or push yet.</p>}
      {jobs && jobs.length > 0 && (
        <ul className="job-history" data-testid="job-history">
          {jobs.map((job) => (
            <JobEntry key={job.id} job={job} env={env} />
          ))}
        </ul>
      )}
      {next && (
        <button type="button" className="btn" disabled={loadingMore} onClick={more}>
          {loadingMore && <Spinner />} Show older jobs
        </button>
      )}
    </section>
  )
}

function JobEntry({ job, env }: { job: Job; env: Environment }) {
  const { api } = useApp()
  const [files, setFiles] = useState<JobFiles | null>(null)
  const [open, setOpen] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const summary = job.type === 'generate' || job.type === 'push' ? generationSummary(job) : null
  const push =
    job.type === 'push' && job.status === 'succeeded' ? (job.result as { commit?: string; branch?: string; changed?: boolean }) : null

  async function toggleFiles() {
    setOpen(!open)
    if (files || open) return
    try {
      setFiles(await api.jobFiles(job.id))
    } catch (e) {
      setError(e)
    }
  }
  async function download() {
    try {
      await saveBlob(archiveFilename(job) ?? `${env.name}.zip`, await api.download(job.id))
    } catch (e) {
      setError(e)
    }
  }

  return (
    <li data-testid="job-entry" data-job-id={job.id}>
      <div className="row">
        <strong>{JOB_LABELS[job.type] ?? job.type}</strong> <Badge kind={job.status}>{job.status}</Badge>
        <span className="muted small">{formatDate(job.createdAt)}</span>
      </div>
      {summary && (
        <p className="small">
          <GenerationFacts summary={summary} />
        </p>
      )}
      {push?.commit && (
        <p className="small" data-testid="history-push">
          {push.changed === false ? 'Already up to date at ' : 'Commit '}
          <GitRef repoUrl={env.gitRepository?.url} commit={push.commit} /> on{' '}
          <GitRef repoUrl={env.gitRepository?.url} branch={push.branch} />
        </p>
      )}
      {job.status === 'failed' && job.error && <p className="small error-text">{job.error.message}</p>}
      {summary && (
        <div className="row">
          <button type="button" className="btn small" onClick={download}>
            Download {summary.filename ?? 'archive'}
          </button>
          <button type="button" className="btn small" aria-expanded={open} onClick={toggleFiles}>
            {open ? 'Hide files' : 'Show files'}
          </button>
        </div>
      )}
      <ErrorNotice error={error} what="This job" />
      {open && !files && !error && <Spinner label="Loading the files" />}
      {open && files && (
        <ul className="file-list mono small" data-testid="job-files">
          {files.files.map((f) => (
            <li key={f.path}>
              {f.path} <span className="muted">{formatBytes(f.size)}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  )
}
