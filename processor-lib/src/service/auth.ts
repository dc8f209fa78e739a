/** X-Service-Token check: SHA-256 digests of equal length compared with crypto.timingSafeEqual. */
import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest()

export function tokenChecker(expected: string): (given: string | string[] | undefined) => boolean {
  const want = digest(expected)
  return (given) => typeof given === 'string' && given.length > 0 && timingSafeEqual(digest(given), want)
}
