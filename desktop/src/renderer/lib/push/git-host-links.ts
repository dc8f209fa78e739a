// Links to a commit and a branch on the Git host, for the hosts whose URL shapes are known
// (github.com, gitlab.com and bitbucket.org); any other host gets none and the UI shows text.
// The repository URL is the environment's HTTPS push URL; credentials in it are never copied.

export interface GitHostLinks {
  commit?: string
  branch?: string
}

type Shape = (repo: string, kind: 'commit' | 'branch', ref: string) => string

const branchPath = (ref: string) => ref.split('/').map(encodeURIComponent).join('/')

const SHAPES: Record<string, Shape> = {
  'github.com': (repo, kind, ref) => `${repo}/${kind === 'commit' ? 'commit' : 'tree'}/${kind === 'commit' ? ref : branchPath(ref)}`,
  'gitlab.com': (repo, kind, ref) => `${repo}/-/${kind === 'commit' ? 'commit' : 'tree'}/${kind === 'commit' ? ref : branchPath(ref)}`,
  'bitbucket.org': (repo, kind, ref) => `${repo}/${kind === 'commit' ? 'commits' : 'src'}/${kind === 'commit' ? ref : branchPath(ref)}`,
}

/** The repository's web address on a known host (`https://github.com/acme/infra`), or null. */
export function repositoryWebUrl(url: string | undefined): { host: string; repo: string } | null {
  if (!url) return null
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (parsed.protocol !== 'https:') return null
  const host = parsed.hostname.toLowerCase().replace(/^www\./, '')
  if (!(host in SHAPES) || parsed.port) return null
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\.git$/, '')
  if (path.split('/').filter(Boolean).length < 2) return null
  return { host, repo: `https://${host}${path}` }
}

export function gitHostLinks(url: string | undefined, ref: { commit?: string | null; branch?: string | null }): GitHostLinks {
  const web = repositoryWebUrl(url)
  if (!web) return {}
  const shape = SHAPES[web.host]
  const out: GitHostLinks = {}
  if (ref.commit && /^[0-9a-f]{7,64}$/i.test(ref.commit)) out.commit = shape(web.repo, 'commit', ref.commit)
  if (ref.branch) out.branch = shape(web.repo, 'branch', ref.branch)
  return out
}
