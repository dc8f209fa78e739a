/**
 * The processor service's options: what buildProcessorService takes (main.ts reads them from the
 * environment, config.ts) and the same with every default filled in, which the routes receive.
 */

export interface ProcessorServiceOptions {
  /** Required: the shared service token. The factory throws without one. */
  token: string
  /** Folder POST /process may read templates from (requests name a folder inside it). */
  templatesRoot?: string
  /** Templates tree GET /catalog extracts from. */
  catalogDir?: string
  /** Provider whose catalog GET /catalog serves by default. */
  provider?: string
  trimDecoratorAttrs?: boolean
  maxArchiveBytes?: number
  maxFiles?: number
  maxTreeBytes?: number
  /**
   * Hosts (names or addresses) on loopback or private networks that POST /process-git-download and
   * GET /catalog?url= may reach (PROCESSOR_ALLOWED_HOSTS); default none: only public addresses.
   */
  allowedHosts?: string[]
  /** A Git server that sends nothing this long fails the request (PROCESSOR_GIT_TIMEOUT_MS, default 30 s). */
  gitTimeoutMs?: number
  /** true: log to stdout; an object: where (and from which level) to log; default off. */
  logger?: boolean | { stream?: NodeJS.WritableStream; level?: string }
}

export interface ResolvedServiceOptions extends Required<Omit<ProcessorServiceOptions, 'templatesRoot' | 'catalogDir' | 'logger'>> {
  templatesRoot?: string
  catalogDir?: string
}

/** The options with their defaults: catalog dir = templates root, provider aws, the limits, no allowed hosts, 30 s. */
export function resolveServiceOptions(opts: ProcessorServiceOptions): ResolvedServiceOptions {
  return {
    token: opts.token,
    templatesRoot: opts.templatesRoot,
    catalogDir: opts.catalogDir ?? opts.templatesRoot,
    provider: opts.provider ?? 'aws',
    trimDecoratorAttrs: opts.trimDecoratorAttrs ?? false,
    maxArchiveBytes: opts.maxArchiveBytes ?? 20 * 1024 * 1024,
    maxFiles: opts.maxFiles ?? 2000,
    maxTreeBytes: opts.maxTreeBytes ?? 100 * 1024 * 1024,
    allowedHosts: (opts.allowedHosts ?? []).map((h) => h.toLowerCase()),
    gitTimeoutMs: opts.gitTimeoutMs ?? 30_000,
  }
}
