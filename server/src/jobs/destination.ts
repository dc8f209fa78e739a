// Where a push may go. isomorphic-git speaks HTTP(S) only, so SSH URLs (ssh://, git@host:path) are
// refused with a clear message; plain http:// only to an allow-listed host. A host that resolves to
// a loopback, private, link-local, unique-local, carrier-grade NAT or unspecified address is refused
// unless PUSH_ALLOWED_HOSTS names it (the host name or the address). Checked when the push is asked
// for and again by the job just before it connects.
import { lookup } from 'node:dns/promises'
import net from 'node:net'

export class DestinationError extends Error {}

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
]

const blockList = (() => {
  const list = new net.BlockList()
  for (const [addr, prefix] of V4_BLOCKED) list.addSubnet(addr, prefix, 'ipv4')
  list.addAddress('::', 'ipv6')
  list.addAddress('::1', 'ipv6')
  list.addSubnet('fc00::', 7, 'ipv6')
  list.addSubnet('fe80::', 10, 'ipv6')
  return list
})()

/** True for loopback, private, link-local, unique-local, CGNAT and unspecified addresses (IPv4-mapped IPv6 included). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return blockList.check(mapped[1], 'ipv4')
  return blockList.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4')
}

/** The URL's problem as a sentence for a 400, before any network access; null when its form is acceptable. */
export function urlProblem(url: string, allowedHosts: readonly string[]): string | null {
  if (/^[\w.-]+@[\w.-]+:/.test(url) || /^(ssh|git\+ssh|ssh\+git|git):\/\//i.test(url)) {
    return "SSH and git:// URLs are not supported: pushes use HTTPS with the deploy key as the credential; give the repository's https:// URL"
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'is not a valid URL'
  }
  if (parsed.username || parsed.password) return 'must not carry credentials; the deploy key is the credential'
  if (parsed.protocol === 'https:') return null
  if (parsed.protocol === 'http:' && allowedHosts.includes(hostOf(parsed))) return null
  return 'must be an https:// URL'
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
}

/** Resolves the host and refuses internal addresses that are not allow-listed. */
export async function checkDestination(url: string, allowedHosts: readonly string[]): Promise<void> {
  const problem = urlProblem(url, allowedHosts)
  if (problem) throw new DestinationError(problem)
  const host = hostOf(new URL(url))
  if (allowedHosts.includes(host)) return
  const addresses = net.isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address)
  if (addresses.length === 0) throw new DestinationError(`host ${host} does not resolve`)
  const internal = addresses.find((a) => isInternalAddress(a) && !allowedHosts.includes(a))
  if (internal)
    throw new DestinationError(
      `host ${host} is on a loopback, private or link-local address (${internal}); allow it with PUSH_ALLOWED_HOSTS`,
    )
}
