// What generation reads and runs: the templates (TEMPLATES_DIR or TEMPLATES_REPO), the template
// processor (in process, or a remote processor service), and the service catalog read from it.
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { int, optional, str, type Env } from './read.ts'

/** The templates tree shipped with the service (`templates/` at the repository root). */
export const BUNDLED_TEMPLATES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../templates')

/** Where generation reads templates: TEMPLATES_REPO (a Git URL, branch main, unpinned) or TEMPLATES_DIR. */
export interface TemplatesSettings {
  dir: string
  repo: string | undefined
  /** TEMPLATES_CACHE_DIR: the cached clone of TEMPLATES_REPO. */
  cacheDir: string
}

/** How generation runs the template processor (server/src/jobs/generation/processor-client.ts). */
export interface GenerationSettings {
  /** TRIM_DECORATOR_ATTRS=1: the in-process processor strips decorator attribute tails (a remote processor follows its own setting). */
  trimDecoratorAttrs: boolean
  /** PROCESSOR_GENERATE_TIMEOUT_MS: how long one generation request to the remote processor (clone and processing) may take. */
  processorTimeoutMs: number
}

/** GET /api/catalog, and generation: in process, or a remote processor service (PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN). */
export interface CatalogSettings {
  processorUrl: string | undefined
  processorToken: string | undefined
  ttlMs: number
  staleMs: number
  timeoutMs: number
}

export function readTemplates(env: Env): TemplatesSettings {
  return {
    dir: str(env, 'TEMPLATES_DIR', BUNDLED_TEMPLATES_DIR),
    repo: optional(env, 'TEMPLATES_REPO'),
    cacheDir: str(env, 'TEMPLATES_CACHE_DIR', path.join(os.tmpdir(), 'ies-templates-cache')),
  }
}

export function readGeneration(env: Env): GenerationSettings {
  return {
    trimDecoratorAttrs: str(env, 'TRIM_DECORATOR_ATTRS', '0') === '1',
    processorTimeoutMs: Math.max(1, int(env, 'PROCESSOR_GENERATE_TIMEOUT_MS', 120_000)),
  }
}

/** The catalog cache and the processor service it reads from. */
export function readCatalog(env: Env): CatalogSettings {
  return {
    processorUrl: optional(env, 'PROCESSOR_URL')?.replace(/\/+$/, ''),
    processorToken: optional(env, 'PROCESSOR_SERVICE_TOKEN'),
    ttlMs: int(env, 'CATALOG_CACHE_TTL_MS', 5 * 60 * 1000),
    staleMs: int(env, 'CATALOG_STALE_MS', 24 * 60 * 60 * 1000),
    timeoutMs: int(env, 'CATALOG_TIMEOUT_MS', 5_000),
  }
}
