/**
 * The processor service (Fastify): GET /health, POST /process, POST /process-upload,
 * POST /process-git-download, GET /catalog. Every route but /health needs X-Service-Token.
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { tokenChecker } from './auth.ts'
import { installErrorHandlers, sendError } from './errors.ts'
import { catalogRoutes } from './catalog-route.ts'
import { processRoutes } from './process-routes.ts'

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

/**
 * A request URL as logged: a query value that is a URL with a user or password (GET /catalog's `url`
 * must not carry one and is refused, but the request line is logged before that) loses them.
 */
export function loggableUrl(raw: string): string {
  const q = raw.indexOf('?')
  if (q < 0) return raw
  const params = new URLSearchParams(raw.slice(q + 1))
  let changed = false
  for (const [key, value] of [...params]) {
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) continue
    params.set(key, value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1[redacted]@'))
    changed = true
  }
  return changed ? `${raw.slice(0, q)}?${params.toString()}` : raw
}

const serializers = {
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: loggableUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
}

export async function buildProcessorService(opts: ProcessorServiceOptions): Promise<FastifyInstance> {
  if (typeof opts.token !== 'string' || opts.token.length === 0) {
    throw new Error('the processor service refuses to start without a service token (PROCESSOR_SERVICE_TOKEN)')
  }
  const resolved: ResolvedServiceOptions = {
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
  const logger = opts.logger === true ? { serializers } : opts.logger ? { ...opts.logger, serializers } : false
  const app = Fastify({ logger, bodyLimit: 2 * 1024 * 1024 })
  installErrorHandlers(app)
  const tokenOk = tokenChecker(opts.token)
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]
    if (path === '/health') return
    if (!tokenOk(request.headers['x-service-token'])) {
      return sendError(reply, 401, 'UNAUTHORIZED', 'a valid X-Service-Token header is required')
    }
  })
  app.get('/health', async () => ({ status: 'ok' }))
  await app.register(processRoutes, resolved)
  await app.register(catalogRoutes, resolved)
  return app
}
