/**
 * The network rule of the git routes (POST /process-git-download, GET /catalog?url=): the URL's host
 * must resolve to public addresses unless PROCESSOR_ALLOWED_HOSTS names it (a clear 400 before any
 * clone), and the clone itself connects only to checked addresses, with the idle timeout
 * PROCESSOR_GIT_TIMEOUT_MS (network/destination.ts, the rule the IES server applies to pushes too).
 */
import type { HttpClient } from 'isomorphic-git'
import { ProcessorError } from '../findings.ts'
import type { ResolvedServiceOptions } from './options.ts'
import { checkUrlDestination, destinationHttp, DestinationRefused } from '../network/destination.ts'

export interface GitDestination {
  /** Throws a 400 DESTINATION_REFUSED when the URL's host may not be reached. */
  check(url: string): Promise<void>
  /** The HTTP client every clone and ls-remote of these routes uses. */
  http: HttpClient
}

export function gitDestination(opts: Pick<ResolvedServiceOptions, 'allowedHosts' | 'gitTimeoutMs'>): GitDestination {
  const rule = { allowedHosts: opts.allowedHosts, allowSetting: 'PROCESSOR_ALLOWED_HOSTS', idleTimeoutMs: opts.gitTimeoutMs }
  return {
    async check(url) {
      try {
        await checkUrlDestination(url, rule)
      } catch (err) {
        if (err instanceof DestinationRefused)
          throw new ProcessorError(400, 'DESTINATION_REFUSED', `url: ${err.message}`, [{ field: '/url', message: err.message }])
        throw err
      }
    },
    http: destinationHttp(rule),
  }
}
