// Shared by the job tests and the generation benchmark: environments with every AWS service enabled
// (values: the catalog's defaults), a job poller, and reading a zip back.
import { extractCatalog, unzipToFiles } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { fillServices, prepareCatalog } from '../../desktop/src/lib/catalog.ts'

/** `services` with every catalog service enabled and each field at its catalog default (read as the wizard reads it). */
export async function allServicesEnabled(templatesDir = BUNDLED_TEMPLATES_DIR): Promise<Record<string, Record<string, unknown>>> {
  const catalog = await extractCatalog({ templatesDir, provider: 'aws', commit: 'fixture' })
  const services = Object.fromEntries(Object.keys(catalog.services).map((key) => [key, { enabled: true } as Record<string, unknown>]))
  return fillServices(services, prepareCatalog(catalog))
}

export function environmentBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'shop-prod',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-central-1',
    domain: 'shop.example.com',
    services: { vpc: { enabled: true }, eks: { enabled: true } },
    ...overrides,
  }
}

export interface JobView {
  id: string
  type: string
  status: string
  environmentId: string
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  error?: { code: string; message: string; details?: any }
  result?: any
}

/** Polls GET /api/jobs/:id until it has finished. */
export async function waitForJob(baseUrl: string, headers: Record<string, string>, jobId: string, timeoutMs = 30_000, intervalMs = 10): Promise<JobView> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await fetch(`${baseUrl}/api/jobs/${jobId}`, { headers })
    const body = (await res.json()) as { data: JobView }
    if (res.status !== 200) throw new Error(`GET job ${jobId}: ${res.status} ${JSON.stringify(body)}`)
    if (body.data.status === 'succeeded' || body.data.status === 'failed') return body.data
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${body.data.status} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}

export async function unzip(buffer: Buffer): Promise<Map<string, string>> {
  const files = await unzipToFiles(buffer, { maxFiles: 5000, maxBytes: 100 * 1024 * 1024 })
  return new Map(files.map((f) => [f.path, f.content.toString('utf8')]))
}
