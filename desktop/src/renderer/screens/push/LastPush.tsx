// The environment's last push (commit and branch as links on a known Git host, when, from which
// templates) and whether the repository is behind and why; "Never pushed yet" before the first.
import type { Environment } from '../../lib/api/types.ts'
import { behindReasons, isBehind } from '../../lib/push/lifecycle.ts'
import { shortCommit } from '../../lib/catalog/prepared-catalog.ts'
import { GitRef } from '../../components/GitRef.tsx'
import { formatDate } from '../../components/ui.tsx'

export function LastPush({ env }: { env: Environment }) {
  const repoUrl = env.gitRepository?.url
  if (env.lastPush === null && repoUrl) return <p className="muted">Never pushed yet.</p>
  if (!env.lastPush) return null
  return (
    <dl className="props" data-testid="last-push">
      <dt>Last push</dt>
      <dd>
        Commit <GitRef repoUrl={repoUrl} commit={env.lastPush.commit} testId="last-push-commit" /> on{' '}
        <GitRef repoUrl={repoUrl} branch={env.lastPush.branch} testId="last-push-branch" />, {formatDate(env.lastPush.pushedAt)}, from
        templates <code>{shortCommit(env.lastPush.templatesCommit)}</code>
      </dd>
      <dt>Status</dt>
      <dd data-testid="behind-status">
        {isBehind(env.behind) ? (
          <>
            <strong>Behind.</strong>
            <ul>
              {behindReasons(env.behind, env.lastPush).map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          </>
        ) : (
          'Up to date: the repository has everything this configuration and the current templates produce.'
        )}
      </dd>
    </dl>
  )
}
