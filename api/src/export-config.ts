// The configuration export (spec, Environments: the client assembles it; there is no export
// endpoint): the environment without credential fields and server bookkeeping. The CLI writes it as
// YAML, the desktop as JSON or YAML; a file exported from either one applies with `ies apply`.

/** Fields of an environment that are never exported: credentials, secrets, and server bookkeeping. */
// `lastPush` and `behind` are the server's record of the repository, not configuration; `problems`
// (what the current catalog refuses), `migrations` (the templates' migrations run) and `warnings` (the
// organisation's rules' warnings) are the server's judgement of the configuration; `role` (the caller's
// role on it) and `drift` (the last drift check's outcome) are about the caller and the cloud.
export const NOT_EXPORTED = new Set([
  'id',
  'status',
  'createdAt',
  'updatedAt',
  'cloudCredentialId',
  'credentials',
  'userId',
  'ownerId',
  'lastPush',
  'behind',
  'problems',
  'migrations',
  'warnings',
  'role',
  'drift',
])
/** Members of `gitRepository` that are never exported (the deploy key and its traces). */
export const NOT_EXPORTED_GIT = new Set(['deployKey', 'hasDeployKey', 'privateKey', 'password', 'token'])

export function exportableConfiguration(env: object): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(env)) {
    if (NOT_EXPORTED.has(key) || value === undefined) continue
    if (key === 'gitRepository' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).filter(([k]) => !NOT_EXPORTED_GIT.has(k)))
    } else out[key] = value
  }
  return out
}
