/**
 * Where the service and the IES server may connect on a caller's behalf (pushes, templates
 * repositories, processor clones): the one rule for network destinations, shared by both.
 *
 * - `addressProblem` classifies an address with ipaddr.js (a maintained library, not a list written
 *   by hand): only global unicast passes. Every special range it knows is refused (loopback, private,
 *   link-local, carrier-grade NAT, unspecified, broadcast, multicast, reserved, benchmarking,
 *   documentation, site-local, unique-local, discard, ORCHID, AS112, AMT, segment routing, …), an
 *   IPv6 address outside 2000::/3, and an IPv4 address hidden in IPv6 is judged as that IPv4
 *   address: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible
 *   (::a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32:
 *   its server and its client address).
 * - `checkedLookup` is a `dns.lookup` for sockets that refuses a host resolving to such an address,
 *   so the address checked is the address connected to (no window for DNS rebinding between a check
 *   and the connection). `destinationHttp` is an isomorphic-git HTTP client using it on every
 *   request, refusing IP literals the same way, following no redirects (a redirect could name
 *   another host), with an idle timeout: a server that accepts and then stalls fails the request.
 * - An allow-list (host names or addresses, lower case) lets chosen hosts through: on-premise or
 *   loopback Git servers.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import http from 'isomorphic-git/http/node'
import type { GitHttpRequest, HttpClient } from 'isomorphic-git'

export class DestinationRefused extends Error {
  readonly code = 'EDESTINATION'
  /** True when the host did not resolve (it may later); false when its address was refused. */
  readonly unresolved: boolean
  constructor(message: string, opts: { unresolved?: boolean } = {}) {
    super(message)
    this.unresolved = opts.unresolved ?? false
  }
}

/** The IPv4 address of 32 bits starting at IPv6 part `index` (parts are 16 bits). */
function ipv4At(parts: number[], index: number, flip = false): ipaddr.IPv4 {
  const hi = flip ? ~parts[index]! & 0xffff : parts[index]!
  const lo = flip ? ~parts[index + 1]! & 0xffff : parts[index + 1]!
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
}

/** The IPv4 addresses an IPv6 address carries (transition and translation forms), each to be judged. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const parts = address.parts
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
    case 'rfc6052': // NAT64: 64:ff9b::a.b.c.d (RFC 8215's 64:ff9b:1::/48 too)
      return [ipv4At(parts, 6)]
    case '6to4': // 2002:aabb:ccdd::
      return [ipv4At(parts, 1)]
    case 'teredo': // 2001:0:server:…:client (the client address inverted)
      return [ipv4At(parts, 2), ipv4At(parts, 6, true)]
  }
  // IPv4-compatible (deprecated): ::a.b.c.d, the first 96 bits zero (:: and ::1 are judged as IPv6)
  if (parts.slice(0, 6).every((p) => p === 0) && (parts[6]! !== 0 || parts[7]! > 1)) return [ipv4At(parts, 6)]
  return []
}

const TRANSITION_RANGES = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo'])

/** Why connecting to `address` is refused (its range), or null for a global unicast address. */
export function addressProblem(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''))
  } catch {
    return 'not an IP address'
  }
  if (parsed.kind() === 'ipv4') {
    const range = (parsed as ipaddr.IPv4).range()
    return range === 'unicast' ? null : `${range} address`
  }
  const v6 = parsed as ipaddr.IPv6
  const embedded = embeddedIpv4(v6)
  if (embedded.length > 0) {
    for (const v4 of embedded) {
      const range = v4.range()
      const form = TRANSITION_RANGES.has(v6.range()) ? v6.range() : 'IPv4-compatible'
      if (range !== 'unicast') return `${range} address (IPv4 ${v4.toString()} inside ${form} IPv6)`
    }
    return null
  }
  const range = v6.range()
  if (range !== 'unicast' && !TRANSITION_RANGES.has(range)) return `${range} address`
  // Global unicast is 2000::/3; everything else is unassigned or special.
  if (!v6.match(ipaddr.IPv6.parse('2000::'), 3)) return 'not a global unicast address'
  return null
}

/** True for every address a caller may not make this service connect to. */
export function isInternalAddress(address: string): boolean {
  return addressProblem(address) !== null
}

/** The URL's host name, lower case, without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
}

function refused(host: string, address: string, problem: string, allowSetting: string): DestinationRefused {
  const where = host === address ? address : `${host} (${address})`
  return new DestinationRefused(`${where} is not a public address: ${problem}; allow the host with ${allowSetting}`)
}

export interface DestinationRule {
  /** Host names or addresses (lower case) that may be reached whatever their address. */
  allowedHosts: readonly string[]
  /** The setting that allow-lists a host, named in refusals (PUSH_ALLOWED_HOSTS, PROCESSOR_ALLOWED_HOSTS). */
  allowSetting: string
}

/** The problem of a host's addresses (the first refused one), or null. */
function addressesProblem(host: string, addresses: readonly string[], rule: DestinationRule): DestinationRefused | null {
  if (rule.allowedHosts.includes(host)) return null
  for (const address of addresses) {
    if (rule.allowedHosts.includes(address.toLowerCase())) continue
    const problem = addressProblem(address)
    if (problem) return refused(host, address, problem, rule.allowSetting)
  }
  return null
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for sockets (net, http, https, tls): resolves like dns.lookup and refuses the host when
 * any of its addresses is not public (unless allow-listed), so the socket connects only to a checked address.
 */
export function checkedLookup(rule: DestinationRule) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : options
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, '')
      const host = hostname.toLowerCase()
      const problem = addressesProblem(
        host,
        addresses.map((a) => a.address),
        rule,
      )
      if (problem) return callback(problem, '')
      if ((opts as LookupAllOptions).all) return callback(null, addresses)
      const first = addresses[0]
      if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '')
      callback(null, first.address, first.family)
    })
  }
}

/** Resolves the URL's host and refuses it when it is not public (before a job is queued: a clear 400 early). */
export async function checkUrlDestination(url: string, rule: DestinationRule): Promise<void> {
  const host = hostOf(new URL(url))
  if (rule.allowedHosts.includes(host)) return
  if (isIP(host)) {
    const problem = addressesProblem(host, [host], rule)
    if (problem) throw problem
    return
  }
  const addresses = await new Promise<LookupAddress[]>((resolve) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, found) => resolve(err ? [] : found)),
  )
  if (addresses.length === 0) throw new DestinationRefused(`host ${host} does not resolve`, { unresolved: true })
  const problem = addressesProblem(
    host,
    addresses.map((a) => a.address),
    rule,
  )
  if (problem) throw problem
}

export interface DestinationHttpOptions extends DestinationRule {
  /** A connection that sends nothing for this long fails (a server that accepts and stalls). */
  idleTimeoutMs: number
}

/**
 * isomorphic-git's Node HTTP client, connecting only to checked addresses (checkedLookup, and IP
 * literals checked before the request), following no redirects, with an idle timeout.
 */
export function destinationHttp(opts: DestinationHttpOptions): HttpClient {
  const lookup = checkedLookup(opts)
  return {
    async request(req: GitHttpRequest) {
      const host = hostOf(new URL(req.url))
      if (isIP(host)) {
        const problem = addressesProblem(host, [host], opts)
        if (problem) throw problem
      }
      try {
        return await http.request({
          ...req,
          fetchOptions: { ...req.fetchOptions, lookup, timeout: opts.idleTimeoutMs, followRedirects: false },
        })
      } catch (err) {
        // simple-get's idle timeout says only "Request timed out": give it the code of a timeout.
        if ((err as Error).message === 'Request timed out') {
          throw Object.assign(new Error(`the server sent nothing for ${opts.idleTimeoutMs} ms`, { cause: err }), { code: 'ETIMEDOUT' })
        }
        throw err
      }
    },
  }
}
