// An environment's last drift check (`drift` of GET /environments/:id) as `dt`/`dd` pairs of the
// detail page's configuration: whether the cloud matched the Terraform state, each resource that
// did not with the attributes that differ, and when it was checked. Nothing before the first check.
import type { Environment } from '../lib/api/types.ts'
import { lastDriftWords } from '../lib/environments/drift.ts'
import { formatDate } from './ui.tsx'

export function LastDriftCheck({ drift }: { drift: Environment['drift'] }) {
  if (!drift) return null
  const words = lastDriftWords(drift)
  return (
    <>
      <dt>Last drift check</dt>
      <dd data-testid="last-drift" data-drifted={drift.drifted.length}>
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
      </dd>
    </>
  )
}
