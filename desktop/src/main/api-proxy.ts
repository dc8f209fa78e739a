// API requests from the renderer, made by the main process: only to the configured API (same
// origin, under its path), with the session's bearer token added here. The page never sees a token.
import type { BridgeRequest, BridgeResponse } from '../shared/bridge.ts'

export class ProxyRefused extends Error {
  override name = 'ProxyRefused'
}

/** Headers the renderer may set; anything else (authorization, cookie, host) is dropped. */
const PASSED_HEADERS = new Set(['accept', 'content-type', 'if-none-match', 'x-request-id'])

export async function proxyApiRequest(
  apiUrl: string,
  req: BridgeRequest,
  accessToken: () => Promise<string | null>,
  fetchImpl: typeof fetch = fetch,
): Promise<BridgeResponse> {
  const api = new URL(apiUrl.replace(/\/*$/, '/'))
  const target = new URL(req.url)
  if (target.origin !== api.origin || !target.pathname.startsWith(api.pathname)) {
    throw new ProxyRefused(`Requests are limited to the IES API at ${api.origin}${api.pathname}`)
  }
  if (!['GET', 'POST', 'PUT', 'DELETE'].includes(req.method)) throw new ProxyRefused(`Method ${req.method} is not allowed`)
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (PASSED_HEADERS.has(k.toLowerCase())) headers[k.toLowerCase()] = v
  const token = await accessToken()
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetchImpl(target, { method: req.method, headers, body: req.body, redirect: 'error' })
  return { status: res.status, statusText: res.statusText, headers: [...res.headers], body: new Uint8Array(await res.arrayBuffer()) }
}
