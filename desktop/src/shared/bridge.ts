// The typed bridge the Electron preload exposes to the renderer as `window.ies`. Small on purpose:
// the renderer can ask for a login, an access token, a logout and a file save; nothing else of
// Node or Electron is reachable from the page.

export const BRIDGE_CHANNELS = {
  login: 'ies:auth:login',
  accessToken: 'ies:auth:access-token',
  logout: 'ies:auth:logout',
  saveFile: 'ies:file:save',
} as const

export interface DesktopBridge {
  platform: string
  auth: {
    login(): Promise<void>
    /** The current access token, refreshed by the main process; null when signed out. */
    accessToken(): Promise<string | null>
    logout(): Promise<void>
  }
  /** Save bytes through the system's save dialog; false when cancelled. */
  saveFile(suggestedName: string, data: Uint8Array): Promise<boolean>
}

declare global {
  interface Window {
    ies?: DesktopBridge
  }
}
