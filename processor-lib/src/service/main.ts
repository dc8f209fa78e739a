/** Start the processor service: `tsx processor-lib/src/service/main.ts` (port 8000 by default). */
import { buildProcessorService } from './app.ts'
import { readServiceConfig } from './config.ts'

const config = readServiceConfig()
if (!config.token) {
  process.stderr.write('processor service: PROCESSOR_SERVICE_TOKEN is not set; refusing to start\n')
  process.exit(1)
}
const app = await buildProcessorService({ ...config, logger: true })
await app.listen({ port: config.port, host: config.host })
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0))
  })
}
