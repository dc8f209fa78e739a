// Keeps a test process on loopback: name resolution answers only `localhost`, and sockets connect
// only to loopback addresses. Generated inputs (schemathesis, fuzzers) put arbitrary hosts into Git
// URLs and endpoints; with this in place a push or a check can fail, but never leave the machine.
import dns from 'node:dns'
import net from 'node:net'
import { syncBuiltinESMExports } from 'node:module'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/i

export interface LoopbackGuard {
  /** Hosts that were refused (resolution or connection), for assertions. */
  refused: string[]
  restore(): void
}

function notFound(host: string) {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (blocked: loopback only)`), { code: 'ENOTFOUND', hostname: host })
}

export function loopbackOnly(): LoopbackGuard {
  const refused: string[] = []
  const original = { lookup: dns.lookup, promisesLookup: dns.promises.lookup, connect: net.Socket.prototype.connect }

  dns.lookup = function lookup(host: string, ...rest: unknown[]) {
    const callback = rest[rest.length - 1] as (...args: unknown[]) => void
    if (LOOPBACK.test(host)) return (original.lookup as (...args: unknown[]) => void).call(dns, host, ...rest)
    refused.push(host)
    process.nextTick(() => callback(notFound(host)))
  } as typeof dns.lookup
  dns.promises.lookup = (async (host: string, options?: unknown) => {
    if (LOOPBACK.test(host)) return original.promisesLookup(host, options as never)
    refused.push(host)
    throw notFound(host)
  }) as typeof dns.promises.lookup

  net.Socket.prototype.connect = function connect(this: net.Socket, ...args: unknown[]) {
    // net.connect() passes its normalized arguments as one array.
    const list = Array.isArray(args[0]) ? (args[0] as unknown[]) : args
    const first = list[0] as { host?: string; path?: string } | number | string
    const host =
      typeof first === 'object' && first !== null
        ? first.path
          ? undefined
          : (first.host ?? 'localhost')
        : typeof first === 'number'
          ? ((list[1] as string) ?? 'localhost')
          : undefined
    if (host !== undefined && net.isIP(host) && !LOOPBACK.test(host)) {
      refused.push(host)
      process.nextTick(() => this.destroy(Object.assign(new Error(`connect to ${host} blocked: loopback only`), { code: 'ECONNREFUSED' })))
      return this
    }
    return (original.connect as (...a: unknown[]) => net.Socket).apply(this, args)
  } as typeof net.Socket.prototype.connect
  syncBuiltinESMExports()

  return {
    refused,
    restore() {
      dns.lookup = original.lookup
      dns.promises.lookup = original.promisesLookup
      net.Socket.prototype.connect = original.connect
      syncBuiltinESMExports()
    },
  }
}
