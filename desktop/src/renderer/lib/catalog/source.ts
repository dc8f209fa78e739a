// Where the wizard's catalog comes from (client consumption rule 5): the live catalog from the
// backend when USE_RUNTIME_CATALOG is on, otherwise (or when it cannot be fetched or is rejected)
// the static configuration bundled with the client. A fallback is logged and told to the user.
import { prepareCatalog, type PreparedCatalog } from './prepared-catalog.ts'

export type CatalogSourceKind = 'runtime' | 'static'

export interface LoadedCatalog {
  catalog: PreparedCatalog
  source: CatalogSourceKind
  /** Shown to the user when the client fell back to its static configuration. */
  notice?: string
  /** The backend served its cached copy (`Warning: 110`). */
  stale?: boolean
  /** The copy kept in this browser was used without asking the server, and why (e.g. rate limited). */
  unchecked?: string
}

export interface LoadCatalogOptions {
  useRuntimeCatalog: boolean
  fetchCatalog: () => Promise<{ document?: unknown; stale?: boolean; unchecked?: string }>
  staticCatalog: unknown
  log?: (message: string, error?: unknown) => void
}

/** "The server could not be reached (x)" -> "the server could not be reached (x)." */
function asClause(reason: string): string {
  const text = reason.trim() || 'unknown error'
  const lowered = /^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text
  return /[.!?]$/.test(lowered) ? lowered : `${lowered}.`
}

export async function loadCatalog(opts: LoadCatalogOptions): Promise<LoadedCatalog> {
  const log = opts.log ?? ((m: string, e?: unknown) => console.warn(m, e))
  // What the client adjusted (unknown types, dropped patterns) is shown in the wizard and logged.
  const prepare = (doc: unknown) => {
    const catalog = prepareCatalog(doc)
    for (const warning of catalog.warnings) log(`catalog: ${warning}`)
    return catalog
  }
  const fromStatic = () => prepare(opts.staticCatalog)
  if (!opts.useRuntimeCatalog) return { catalog: fromStatic(), source: 'static' }
  try {
    const { document, stale, unchecked } = await opts.fetchCatalog()
    const loaded: LoadedCatalog = { catalog: prepare(document), source: 'runtime' }
    if (stale) loaded.stale = true
    if (unchecked) loaded.unchecked = unchecked
    return loaded
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    // The reason may carry its own brackets ("The server could not be reached (Failed to fetch)"):
    // it follows a colon, as the rest of the sentence, instead of being wrapped in another pair.
    const notice = `The live service catalog could not be loaded: ${asClause(reason)} The wizard uses the built-in catalog, which may lag behind the templates.`
    log(`catalog: falling back to the static configuration: ${reason}`, error)
    return { catalog: fromStatic(), source: 'static', notice }
  }
}
