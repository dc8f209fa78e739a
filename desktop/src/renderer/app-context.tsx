// What every screen needs: the API client, the runtime configuration, the catalog (the live one kept
// between sessions and revalidated with its ETag on each wizard opening), the signed-in user's preferences, and a toast.
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react'
import type { ApiClient } from '@ies/api'
import type { ClientEnv } from '../shared/env.ts'
import { loadCatalog, type LoadedCatalog } from './lib/catalog/source.ts'
import { readCachedCatalog, revalidatingCatalogFetch } from './lib/catalog/cache.ts'
import { prepareCatalog, type PreparedCatalog } from './lib/catalog/prepared-catalog.ts'
import type { CloudCredential, Environment, Preferences, Theme } from './lib/api/types.ts'
import staticCatalog from '../catalog/static-catalog.json' with { type: 'json' }

export interface AppContextValue {
  api: ApiClient
  env: ClientEnv
  username: string
  /** The signed-in user's subject (`sub`): drafts are kept under it. */
  subject: string
  /** The token carries an admin role (the users screen is offered). */
  admin: boolean
  preferences: Preferences
  setPreferences: (p: Preferences) => void
  catalog: () => Promise<LoadedCatalog>
  /** The catalog at hand without a request (for labels): the last one loaded, the copy kept in the browser, or the built-in one. */
  keptCatalog: () => PreparedCatalog
  /** The user's cloud credentials, fetched once per session and kept current by the screens that change them. */
  credentials: () => Promise<CloudCredential[]>
  setCredentials: (list: CloudCredential[]) => void
  /** An environment the app just received (created, saved): the next screen that shows it takes it instead of fetching it. */
  rememberEnvironment: (env: Environment) => void
  takeEnvironment: (id: string) => Environment | null
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
  admin?: boolean
  logout: AppContextValue['logout']
  children: ReactNode
}) {
  const { api, env } = props
  const [preferences, setPrefs] = useState<Preferences>({ theme: 'system', defaultProvider: 'aws' })
  const [toastText, setToastText] = useState<string | null>(null)
  const loadedRef = useRef<Promise<LoadedCatalog> | null>(null)
  const lastCatalog = useRef<PreparedCatalog | null>(null)
  const credentialsRef = useRef<Promise<CloudCredential[]> | null>(null)
  const environmentsRef = useRef(new Map<string, Environment>())

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
    })
      .then((loaded) => ((lastCatalog.current = loaded.catalog), loaded))
      .finally(() => {
        // Revalidate on the next wizard opening (a cheap 304 when nothing changed).
        setTimeout(() => (loadedRef.current = null), 0)
      })
    return loadedRef.current
  }, [api, env.useRuntimeCatalog])

  const keptCatalog = useCallback(() => {
    if (!lastCatalog.current) {
      try {
        const held = env.useRuntimeCatalog ? readCachedCatalog(localStorage) : null
        lastCatalog.current = prepareCatalog(held?.document ?? staticCatalog)
      } catch {
        lastCatalog.current = prepareCatalog(staticCatalog)
      }
    }
    return lastCatalog.current
  }, [env.useRuntimeCatalog])

  const credentials = useCallback(() => {
    if (!credentialsRef.current) {
      const loading = api.listCredentials().then((r) => r.data)
      credentialsRef.current = loading
      // A failure is not kept: the next screen asks again.
      loading.catch(() => credentialsRef.current === loading && (credentialsRef.current = null))
    }
    return credentialsRef.current
  }, [api])
  const setCredentials = useCallback((list: CloudCredential[]) => {
    credentialsRef.current = Promise.resolve(list)
  }, [])
  const rememberEnvironment = useCallback((e: Environment) => void environmentsRef.current.set(e.id, e), [])
  const takeEnvironment = useCallback((id: string) => {
    const e = environmentsRef.current.get(id) ?? null
    environmentsRef.current.delete(id)
    return e
  }, [])

  const toast = useCallback((message: string) => {
    setToastText(message)
    setTimeout(() => setToastText((t) => (t === message ? null : t)), 3500)
  }, [])

  const value: AppContextValue = {
    api,
    env,
    username: props.username,
    subject: props.subject,
    admin: props.admin === true,
    preferences,
    setPreferences,
    catalog,
    keptCatalog,
    credentials,
    setCredentials,
    rememberEnvironment,
    takeEnvironment,
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
