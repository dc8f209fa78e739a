/** GET /catalog: the catalog document; the ETag is the templates commit; If-None-Match gives 304. */
import type { FastifyPluginAsync } from 'fastify';
import { extractCatalog } from '../catalog.ts';
import { templatesCommit } from '../commit.ts';
import { ProcessorError } from '../findings.ts';
import type { ResolvedServiceOptions } from './app.ts';

/** True when an If-None-Match header (a list, possibly weak, quoted or not, or `*`) names the commit. */
export function etagMatches(header: string | undefined, commit: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
    return v === '*' || v === commit;
  });
}

export const catalogRoutes: FastifyPluginAsync<ResolvedServiceOptions> = async (app, opts) => {
  app.get('/catalog', async (request, reply) => {
    const query = request.query as { provider?: unknown };
    const provider = typeof query.provider === 'string' && query.provider !== '' ? query.provider : opts.provider;
    if (!opts.catalogDir) throw new ProcessorError(503, 'NOT_CONFIGURED', 'no templates tree is configured for the catalog');
    const commit = await templatesCommit(opts.catalogDir).catch(() => {
      throw new ProcessorError(503, 'CATALOG_UNAVAILABLE', 'the templates tree cannot be read');
    });
    reply.header('ETag', `"${commit}"`);
    reply.header('Cache-Control', 'no-cache');
    if (etagMatches(request.headers['if-none-match'], commit)) return reply.code(304).send();
    const catalog = await extractCatalog({ templatesDir: opts.catalogDir, provider, commit });
    return reply.send(catalog);
  });
};
