// An environment's last drift check (`drift` of GET /environments/:id) as `dt`/`dd` pairs of the
// detail page's configuration: whether the cloud matched the Terraform state, each resource that
// did not with the attributes that differ, and when it was checked. Before the first check nothing,
// unless there is an action to offer beside it (`children`: "Check for drift now").
import type { ReactNode } from 'react'
import type { Environment } from '../lib/api/types.ts'
import { lastDriftWords } from '../lib/environments/drift.ts'
import { formatDate } from './ui.tsx'

export function LastDriftCheck({ drift, children }: { drift: Environment['drift']; children?: ReactNode }) {
  if (!drift && !children) return null
  const words = drift && lastDriftWords(drift)
  return (
    <>
      <dt>Last drift check</dt>
      <dd>
        {drift && words ? (
          <div data-testid="last-drift" data-drifted={drift.drifted.length} data-job-id={drift.jobId}>
            {words.summary}, checked {formatDate(drift.checkedAt)}
            {words.resources.length > 0 && (
              <ul>
                {words.resources.map((r) => (
                  <li key={r} className="mono">
                    {r}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ) : (
          <div className="muted" data-testid="last-drift-none">
            Not checked yet
          </div>
        )}
        {children}
      </dd>
    </>
  )
}
