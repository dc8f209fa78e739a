// Where a push may go. isomorphic-git speaks HTTP(S) only, so SSH URLs (ssh://, git@host:path) are
// refused with a clear message; plain http:// only to an allow-listed host. A host with an address
// that is not global unicast (loopback, private, link-local, CGNAT, multicast, reserved,
// benchmarking, site-local, unique-local, an internal IPv4 address inside an IPv6 transition form,
// …: classified by ipaddr.js in processor-lib's network/destination.ts, the one rule shared with the
// processor service) is refused unless PUSH_ALLOWED_HOSTS names it (the host name or the address).
// Checked when the push is asked for (a 400) and again by the job, which then connects only to
// checked addresses (`pushHttp`: the check runs in the socket's own DNS lookup, so a name that
// resolves differently the second time cannot slip through) and gives up on a server that stalls
// (GIT_TIMEOUT_MS).
import type { HttpClient } from 'isomorphic-git'
import { checkUrlDestination, destinationHttp, DestinationRefused, hostOf } from '@ies/processor-lib/network/destination'

export class DestinationError extends Error {}

/** The code of a push job whose destination is refused (the URL's form or its address). */
export const DESTINATION_REFUSED = 'PUSH_DESTINATION_REFUSED'

const ALLOW_SETTING = 'PUSH_ALLOWED_HOSTS'

/** The URL's problem as a sentence for a 400, before any network access; null when its form is acceptable. */
export function urlProblem(url: string, allowedHosts: readonly string[]): string | null {
  if (/^[\w.-]+@[\w.-]+:/.test(url) || /^(ssh|git\+ssh|ssh\+git|git):\/\//i.test(url)) {
    return "SSH and git:// URLs are not supported: pushes use HTTPS with the deploy key as the credential; give the repository's https:// URL"
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'The Git repository URL is not a valid URL'
  }
  if (parsed.username || parsed.password) return 'The Git repository URL must not carry credentials; the deploy key is the credential'
  if (parsed.protocol === 'https:') return null
  if (parsed.protocol === 'http:' && allowedHosts.includes(hostOf(parsed))) return null
  return 'The Git repository URL must be an https:// URL'
}

/** Resolves the host and refuses addresses that are not public and not allow-listed. */
export async function checkDestination(url: string, allowedHosts: readonly string[]): Promise<void> {
  const problem = urlProblem(url, allowedHosts)
  if (problem) throw new DestinationError(problem)
  try {
    await checkUrlDestination(url, { allowedHosts, allowSetting: ALLOW_SETTING })
  } catch (err) {
    if (err instanceof DestinationRefused) throw new DestinationError(err.message)
    throw err
  }
}

/** How long a save waits for the repository host's name to resolve (a slow resolver then lets the push judge it). */
export const SAVE_RESOLVE_TIMEOUT_MS = 2000

/**
 * The push destination's problem when an environment is saved, so a repository
 * the server will refuse is reported then, not only at push time: the URL's form, then the push's
 * own address rule (checkUrlDestination): an address literal that is not public, or a name
 * (`localhost` included) that resolves to one, unless PUSH_ALLOWED_HOSTS names it. A name that does
 * not resolve now, or not within SAVE_RESOLVE_TIMEOUT_MS, is accepted: the push resolves it again,
 * and checks every connection.
 */
export async function destinationProblem(url: string, allowedHosts: readonly string[]): Promise<string | null> {
  const problem = urlProblem(url, allowedHosts)
  if (problem) return problem
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SAVE_RESOLVE_TIMEOUT_MS)))
  try {
    await Promise.race([checkUrlDestination(url, { allowedHosts, allowSetting: ALLOW_SETTING }), late])
    return null
  } catch (err) {
    return err instanceof DestinationRefused && !err.unresolved ? err.message : null
  } finally {
    clearTimeout(timer)
  }
}

/** The HTTP client of a push: connects only to checked addresses, no redirects, fails a stalled server after `idleTimeoutMs`. */
export function pushHttp(allowedHosts: readonly string[], idleTimeoutMs: number): HttpClient {
  const client = destinationHttp({ allowedHosts, allowSetting: ALLOW_SETTING, idleTimeoutMs })
  return {
    async request(req) {
      try {
        return await client.request(req)
      } catch (err) {
        // Refused at connect time (the name resolved to another address than when checked): the push's own refusal.
        if (err instanceof DestinationRefused) throw new DestinationError(err.message)
        throw err
      }
    },
  }
}
