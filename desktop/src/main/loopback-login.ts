// Native-app login (RFC 8252): the system browser does the authorization request and the provider
// redirects to a one-shot HTTP listener on 127.0.0.1 with an ephemeral port. Node only (Electron's
// main process and the tests); the renderer never imports this.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { beginLogin, codeFromCallback, completeLogin, type FlowDeps, type OAuthClient, type TokenSet } from '@ies/api/oauth'

export interface LoopbackLoginOptions extends FlowDeps {
  /** Opens the URL in the system browser (Electron: shell.openExternal). */
  openBrowser: (url: string) => Promise<void> | void
  timeoutMs?: number
  callbackPath?: string
}

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font:16px system-ui;margin:4rem auto;max-width:32rem"><h1>${title}</h1><p>${text}</p></body></html>`

export async function loginWithLoopback(cfg: OAuthClient, opts: LoopbackLoginOptions): Promise<TokenSet> {
  const callbackPath = opts.callbackPath ?? '/callback'
  const server = http.createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const port = (server.address() as AddressInfo).port
  const redirectUri = `http://127.0.0.1:${port}${callbackPath}`
  try {
    const { url, pending } = await beginLogin(cfg, redirectUri)
    const callback = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('The login was not completed in time')), opts.timeoutMs ?? 5 * 60_000)
      server.on('request', (req, res) => {
        const full = `http://127.0.0.1:${port}${req.url ?? '/'}`
        if (new URL(full).pathname !== callbackPath) {
          res.writeHead(404).end()
          return
        }
        clearTimeout(timer)
        let ok = true
        try {
          codeFromCallback(full, pending)
        } catch {
          ok = false
        }
        res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        res.end(
          ok
            ? page('Signed in to IES', 'You can close this window and return to the app.')
            : page('Sign-in failed', 'Return to the app and try again.'),
        )
        resolve(full)
      })
    })
    await opts.openBrowser(url)
    return await completeLogin(cfg, await callback, pending, opts)
  } finally {
    server.closeAllConnections?.()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
