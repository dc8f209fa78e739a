/**
 * The processor service (Fastify): GET /health, POST /process, POST /process-upload,
 * POST /process-git-download, GET /catalog. Every route but /health needs X-Service-Token.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { tokenChecker } from './auth.ts';
import { installErrorHandlers, sendError } from './errors.ts';
import { catalogRoutes } from './catalog-route.ts';
import { processRoutes } from './process-routes.ts';

export interface ProcessorServiceOptions {
  /** Required: the shared service token. The factory throws without one. */
  token: string;
  /** Folder POST /process may read templates from (requests name a folder inside it). */
  templatesRoot?: string;
  /** Templates tree GET /catalog extracts from. */
  catalogDir?: string;
  /** Provider whose catalog GET /catalog serves by default. */
  provider?: string;
  trimDecoratorAttrs?: boolean;
  maxArchiveBytes?: number;
  maxFiles?: number;
  maxTreeBytes?: number;
  logger?: boolean;
}

export interface ResolvedServiceOptions extends Required<Omit<ProcessorServiceOptions, 'templatesRoot' | 'catalogDir' | 'logger'>> {
  templatesRoot?: string;
  catalogDir?: string;
}

export async function buildProcessorService(opts: ProcessorServiceOptions): Promise<FastifyInstance> {
  if (typeof opts.token !== 'string' || opts.token.length === 0) {
    throw new Error('the processor service refuses to start without a service token (PROCESSOR_SERVICE_TOKEN)');
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
  };
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: 2 * 1024 * 1024 });
  installErrorHandlers(app);
  const tokenOk = tokenChecker(opts.token);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0];
    if (path === '/health') return;
    if (!tokenOk(request.headers['x-service-token'])) {
      return sendError(reply, 401, 'UNAUTHORIZED', 'a valid X-Service-Token header is required');
    }
  });
  app.get('/health', async () => ({ status: 'ok' }));
  await app.register(processRoutes, resolved);
  await app.register(catalogRoutes, resolved);
  return app;
}
