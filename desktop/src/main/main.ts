// The Electron main process: one sandboxed, context-isolated window without Node integration that
// loads the renderer from the app's own `app://ies/` scheme under a strict content security policy;
// login with PKCE in the system browser through a loopback redirect (RFC 8252); tokens kept with
// safeStorage and refreshed before they expire; API requests proxied with the bearer token.
import { app, BrowserWindow, dialog, ipcMain, net, protocol, safeStorage, shell } from 'electron'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { jwtClaims as claimsOf } from '@ies/api/oauth'
import { loginWithLoopback } from './loopback-login.ts'
import { TokenSession } from '@ies/api/token-session'
import { renderEnvScript } from '@ies/api/env-script'
import { BRIDGE_CHANNELS as C, type BridgeRequest, type DesktopSession } from '../shared/bridge.ts'
import { desktopSettings, envScriptValuesOf } from './settings.ts'
import { encryptedTokenStore } from './refresh-token-store.ts'
import { proxyApiRequest } from './api-proxy.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
/** The built renderer (desktop/dist), beside this bundle (desktop/dist-electron). */
const RENDERER_DIR = path.resolve(here, '../dist')
const SCHEME = 'app'
const ORIGIN = `${SCHEME}://ies`

/** Everything from the app itself; no network from the page (API calls go through the bridge). */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'none'"

/** The environment diagram's renderer frame: inline styles for the mermaid library, nothing else more (diagram-frame.ts). */
const DIAGRAM_FRAME_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }])

async function readSettingsFile(): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(path.join(app.getPath('userData'), 'settings.json'), 'utf8'))
  } catch {
    return {}
  }
}

const MIME: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

async function main() {
  await app.whenReady()
  const settings = desktopSettings(process.env, await readSettingsFile())
  const oidc = { authUrl: settings.authUrl, realm: settings.realm, clientId: settings.clientId }
  const store = encryptedTokenStore(path.join(app.getPath('userData'), 'session.bin'), safeStorage)
  const session = new TokenSession({ config: oidc, store })
  await session.restore()

  const sessionInfo = (): DesktopSession | null => {
    const tokens = session.current
    if (!tokens) return null
    const claims = claimsOf(tokens.accessToken)
    return { username: String(claims.preferred_username ?? claims.email ?? ''), claims }
  }

  protocol.handle(SCHEME, async (request) => {
    const { pathname } = new URL(request.url)
    const headers = {
      'content-security-policy': pathname === '/diagram.html' ? DIAGRAM_FRAME_CSP : CSP,
      'x-content-type-options': 'nosniff',
    }
    if (pathname === '/env.js') {
      return new Response(renderEnvScript(envScriptValuesOf(settings)), { headers: { ...headers, 'content-type': 'text/javascript' } })
    }
    const file = path.resolve(RENDERER_DIR, `.${pathname === '/' ? '/index.html' : decodeURIComponent(pathname)}`)
    if (!file.startsWith(RENDERER_DIR + path.sep)) return new Response('Not found', { status: 404 })
    try {
      return new Response(await readFile(file), {
        headers: { ...headers, 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' },
      })
    } catch {
      return new Response('Not found', { status: 404 })
    }
  })

  ipcMain.handle(C.session, () => sessionInfo())
  ipcMain.handle(C.login, async () => {
    const tokens = await loginWithLoopback(oidc, { openBrowser: (url) => shell.openExternal(url) })
    await session.start(tokens)
    return sessionInfo()
  })
  ipcMain.handle(C.logout, () => session.logout())
  ipcMain.handle(C.request, (_event, req: BridgeRequest) =>
    proxyApiRequest(settings.apiUrl, req, () => session.accessToken(), net.fetch as typeof fetch),
  )
  ipcMain.handle(C.saveFile, async (event, name: string, data: Uint8Array) => {
    const win = BrowserWindow.fromWebContents(event.sender)
    const options = { defaultPath: path.basename(name) }
    const result = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options)
    if (result.canceled || !result.filePath) return false
    await writeFile(result.filePath, data)
    return true
  })

  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'IES',
    webPreferences: {
      preload: path.join(here, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  })
  // Links leave the app for the system browser; the window never navigates away from the app.
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  win.webContents.on('will-navigate', (event, url) => {
    if (!url.startsWith(`${ORIGIN}/`)) event.preventDefault()
  })
  await win.loadURL(`${ORIGIN}/index.html`)
}

app.on('window-all-closed', () => app.quit())
main().catch((err) => {
  console.error(err)
  app.exit(1)
})
