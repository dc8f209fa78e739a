/**
 * A pass-through HTTP proxy in front of a git server (test/harness/git-server.ts) that records what
 * each smart-HTTP request was for — `refs` (GET info/refs), `ls-refs` (a protocol v2 ref listing:
 * what `git ls-remote` does) or `fetch` (objects downloaded: a clone or fetch) — with the request's
 * Authorization header, and that can be taken down (connections are reset) and brought back.
 *
 *   const proxy = await startGitProxy(git.baseUrl)
 *   proxy.calls.filter((c) => c.kind === 'fetch').length
 *   proxy.down = true
 *   proxy.hold = (call) => (call.kind === 'push' ? released : undefined)   // held until `released` resolves
 */
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface GitProxyCall {
  method: string
  path: string
  kind: 'refs' | 'ls-refs' | 'fetch' | 'push' | 'other'
  authorization?: string
  /** Bytes of the answer's body received so far. */
  responseBytes: number
}

export interface GitProxy {
  baseUrl: string
  calls: GitProxyCall[]
  down: boolean
  /** When set, each request is forwarded once what it returns for the call has resolved. */
  hold?: (call: GitProxyCall) => Promise<unknown> | undefined
  stop(): Promise<void>
}

export async function startGitProxy(target: string): Promise<GitProxy> {
  const to = new URL(target)
  const proxy: GitProxy = { baseUrl: '', calls: [], down: false, stop: async () => {} }
  const server = createServer((req, res) => {
    if (proxy.down) {
      req.socket.destroy()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks)
      const text = body.toString('latin1')
      const kind: GitProxyCall['kind'] =
        req.method === 'GET' && (req.url ?? '').includes('/info/refs')
          ? 'refs'
          : text.includes('command=ls-refs')
            ? 'ls-refs'
            : text.includes('command=fetch') || /want [0-9a-f]{40}/.test(text)
              ? 'fetch'
              : req.method === 'POST' && (req.url ?? '').endsWith('/git-receive-pack')
                ? 'push'
                : 'other'
      const call: GitProxyCall = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        kind,
        ...(req.headers.authorization && { authorization: req.headers.authorization }),
        responseBytes: 0,
      }
      proxy.calls.push(call)
      await proxy.hold?.(call)
      const upstream = httpRequest(
        { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.on('data', (chunk: Buffer) => (call.responseBytes += chunk.length))
          up.pipe(res)
        },
      )
      upstream.on('error', () => req.socket.destroy())
      upstream.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.stop = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return proxy
}
