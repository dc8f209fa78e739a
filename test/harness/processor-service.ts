/**
 * A real remote template processor service (processor-lib's Fastify service) on a loopback port,
 * for the catalog proxy tests: it can be stopped and started again on the same port, and it
 * records every request it answered (path, If-None-Match, status).
 *
 *   const processor = await startProcessorService({ catalogDir, token: 't' })
 *   ...
 *   await processor.stop(); await processor.start()
 */
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildProcessorService } from '@ies/processor-lib'

export interface ProcessorServiceHarness {
  url: string
  token: string
  requests: { path: string; ifNoneMatch?: string; status: number }[]
  start(): Promise<void>
  stop(): Promise<void>
}

export async function startProcessorService(opts: { catalogDir: string; token?: string }): Promise<ProcessorServiceHarness> {
  const token = opts.token ?? 'processor-test-token'
  const requests: ProcessorServiceHarness['requests'] = []
  let app: FastifyInstance | undefined
  let port = 0
  const start = async () => {
    const instance = await buildProcessorService({
      token,
      catalogDir: opts.catalogDir,
      templatesRoot: opts.catalogDir,
      allowedHosts: ['127.0.0.1'], // the tests' loopback Git servers
    })
    instance.addHook('onResponse', async (request, reply) => {
      const inm = request.headers['if-none-match']
      requests.push({ path: request.url, ...(typeof inm === 'string' && { ifNoneMatch: inm }), status: reply.statusCode })
    })
    await instance.listen({ host: '127.0.0.1', port })
    port = (instance.server.address() as AddressInfo).port
    app = instance
  }
  await start()
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    start,
    async stop() {
      await app?.close()
      app = undefined
    },
  }
}
