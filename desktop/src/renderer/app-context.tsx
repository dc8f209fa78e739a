// What every screen needs: the API client, the runtime configuration, the catalog (the live one kept
// between sessions and revalidated with its ETag on each wizard opening), the signed-in user's preferences, and a toast.
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react'
import type { ApiClient } from '../lib/api-client.ts'
import type { ClientEnv } from '../lib/env.ts'
import { loadCatalog, type LoadedCatalog } from '../lib/catalog-source.ts'
import { revalidatingCatalogFetch } from '../lib/catalog-cache.ts'
import type { Preferences, Theme } from '../lib/types.ts'
import staticCatalog from '../catalog/static-catalog.json' with { type: 'json' }

export interface AppContextValue {
  api: ApiClient
  env: ClientEnv
  username: string
  /** The signed-in user's subject (`sub`): drafts are kept under it. */
  subject: string
  preferences: Preferences
  setPreferences: (p: Preferences) => void
  catalog: () => Promise<LoadedCatalog>
  toast: (message: string) => void
  logout: (opts?: { clearDrafts?: boolean }) => void
}

const Ctx = createContext<AppContextValue | null>(null)

export function useApp(): AppContextValue {
  const v = useContext(Ctx)
  if (!v) throw new Error('useApp outside AppProvider')
  return v
}

export function applyTheme(theme: Theme) {
  document.documentElement.dataset.theme = theme
}

export function AppProvider(props: {
  api: ApiClient
  env: ClientEnv
  username: string
  subject: string
  logout: AppContextValue['logout']
  children: ReactNode
}) {
  const { api, env } = props
  const [preferences, setPrefs] = useState<Preferences>({ theme: 'system', defaultProvider: 'aws' })
  const [toastText, setToastText] = useState<string | null>(null)
  const loadedRef = useRef<Promise<LoadedCatalog> | null>(null)

  useEffect(() => {
    api.preferences().then(setPreferences, () => {})
  }, [api])

  const setPreferences = useCallback((p: Preferences) => {
    setPrefs(p)
    applyTheme(p.theme)
  }, [])

  const catalog = useCallback(() => {
    loadedRef.current ??= loadCatalog({
      useRuntimeCatalog: env.useRuntimeCatalog,
      staticCatalog,
      fetchCatalog: revalidatingCatalogFetch((etag) => api.catalog(etag), localStorage),
    }).finally(() => {
      // Revalidate on the next wizard opening (a cheap 304 when nothing changed).
      setTimeout(() => (loadedRef.current = null), 0)
    })
    return loadedRef.current
  }, [api, env.useRuntimeCatalog])

  const toast = useCallback((message: string) => {
    setToastText(message)
    setTimeout(() => setToastText((t) => (t === message ? null : t)), 3500)
  }, [])

  const value: AppContextValue = {
    api,
    env,
    username: props.username,
    subject: props.subject,
    preferences,
    setPreferences,
    catalog,
    toast,
    logout: props.logout,
  }
  return (
    <Ctx.Provider value={value}>
      {props.children}
      {toastText && (
        <div className="toast" role="status" aria-live="polite">
          {toastText}
        </div>
      )}
    </Ctx.Provider>
  )
}
