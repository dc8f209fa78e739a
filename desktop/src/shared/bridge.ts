// The typed bridge the Electron preload exposes to the renderer as `window.ies`. Small on purpose:
// the renderer can start a login or logout, learn who is signed in, send an API request (the main
// process adds the bearer token, so the page never holds one) and save a file. Nothing else of
// Node or Electron is reachable from the page.

export const BRIDGE_CHANNELS = {
  login: 'ies:auth:login',
  logout: 'ies:auth:logout',
  session: 'ies:auth:session',
  request: 'ies:api:request',
  saveFile: 'ies:file:save',
} as const

export interface BridgeRequest {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
}

export interface BridgeResponse {
  status: number
  statusText: string
  headers: [string, string][]
  body: Uint8Array
}

export interface DesktopSession {
  username: string
  claims: Record<string, unknown>
}

export interface DesktopBridge {
  platform: string
  auth: {
    login(): Promise<DesktopSession>
    logout(): Promise<void>
    session(): Promise<DesktopSession | null>
  }
  /** An API request made by the main process with the session's access token. */
  request(req: BridgeRequest): Promise<BridgeResponse>
  /** Save bytes through the system's save dialog; false when cancelled. */
  saveFile(suggestedName: string, data: Uint8Array): Promise<boolean>
}

/** A fetch for the API client that goes through the bridge. */
export function bridgeFetch(bridge: DesktopBridge): typeof fetch {
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((v, k) => (headers[k] = v))
    const res = await bridge.request({
      url: String(input),
      method: init.method ?? 'GET',
      headers,
      body: typeof init.body === 'string' ? init.body : undefined,
    })
    const nullBody = res.status === 204 || res.status === 304
    return new Response(nullBody ? null : new Uint8Array(res.body).buffer, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    })
  }) as typeof fetch
}

declare global {
  interface Window {
    ies?: DesktopBridge
  }
}
