// A generation or push job as it runs: its state, an indeterminate progress bar while it is queued
// or running, the states it went through, and a failure with the processor's findings.
import type { Job } from '../lib/api/types.ts'
import type { JobLogEntry } from '../job-watch.ts'
import { Badge, Notice } from './ui.tsx'

export function JobProgress({ job, log, what, showFailure = true }: { job: Job; log: JobLogEntry[]; what: string; showFailure?: boolean }) {
  const active = job.status === 'queued' || job.status === 'running'
  return (
    <div className="stack job-progress" aria-live="polite">
      <div className="row">
        <Badge kind={job.status}>{job.status}</Badge>
        <span className="muted small mono">job {job.id}</span>
      </div>
      {active && (
        <div className="progress indeterminate" role="progressbar" aria-label={`${what} in progress`}>
          <div />
        </div>
      )}
      <ol className="log" aria-label={`${what} log`}>
        {log.map((l, i) => (
          <li key={i}>
            <span className="mono">{l.at}</span> {l.text}
          </li>
        ))}
      </ol>
      {job.status === 'failed' && showFailure && (
        <Notice kind="error" title={`${what} failed`} testId="job-failed">
          {job.error?.message ?? 'The job failed.'}
          {Array.isArray(job.error?.details) && job.error.details.length > 0 && (
            <table className="table findings" aria-label="Processor findings">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Line</th>
                  <th scope="col">Code</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {job.error.details.map((d, i) => (
                  <tr key={i}>
                    <td className="mono">{d.file ?? '—'}</td>
                    <td>{d.line ?? '—'}</td>
                    <td className="mono">{d.code ?? '—'}</td>
                    <td>{d.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Notice>
      )}
    </div>
  )
}
