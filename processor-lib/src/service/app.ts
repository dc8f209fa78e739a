/**
 * The processor service (Fastify): GET /health, POST /process, POST /process-upload,
 * POST /process-git-download, GET /catalog. Every route but /health needs X-Service-Token.
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { tokenChecker } from './auth.ts'
import { installErrorHandlers, sendError } from './errors.ts'
import { catalogRoutes } from './catalog-route.ts'
import { processRoutes } from './process-routes.ts'
import { resolveServiceOptions, type ProcessorServiceOptions } from './options.ts'

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
  const resolved = resolveServiceOptions(opts)
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
