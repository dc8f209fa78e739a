// A commit or a branch: a link on a Git host whose URL shapes are known, text otherwise.
import { gitHostLinks } from '../lib/push/git-host-links.ts'

export function GitRef({ repoUrl, commit, branch, testId }: { repoUrl?: string; commit?: string; branch?: string; testId?: string }) {
  const links = gitHostLinks(repoUrl, { commit, branch })
  const text = commit ? commit.slice(0, 12) : (branch ?? '')
  const href = commit ? links.commit : links.branch
  const common = { className: 'mono', 'data-testid': testId, 'data-commit': commit, title: commit ?? branch }
  return href ? (
    <a {...common} href={href} target="_blank" rel="noopener noreferrer">
      {text}
    </a>
  ) : (
    <span {...common}>{text}</span>
  )
}
