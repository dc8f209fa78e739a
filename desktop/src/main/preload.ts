// The preload script (sandboxed, context-isolated): exposes the typed bridge and nothing else.
import { contextBridge, ipcRenderer } from 'electron'
import { BRIDGE_CHANNELS as C, type DesktopBridge } from '../shared/bridge.ts'

const bridge: DesktopBridge = {
  platform: process.platform,
  auth: {
    login: () => ipcRenderer.invoke(C.login),
    logout: () => ipcRenderer.invoke(C.logout),
    session: () => ipcRenderer.invoke(C.session),
  },
  request: (req) => ipcRenderer.invoke(C.request, req),
  saveFile: (name, data) => ipcRenderer.invoke(C.saveFile, name, data),
}

contextBridge.exposeInMainWorld('ies', bridge)
