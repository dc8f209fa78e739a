// Shared by the job tests and the generation benchmark: environments with every AWS service enabled
// (values: the catalog's defaults), creating one, a job poller, a generation followed to its end, a recorder of
// what a test saw (for secret scans), and reading a zip back.
import { extractCatalog, unzipToFiles } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { fillServices, prepareCatalog } from '../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'
import type { TestApp } from './app.ts'
import { logLines } from './log-lines.ts'

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

/** POST /api/environments as dev; the created environment (`data`), or an error naming the answer. */
export async function createEnvironment(app: Pick<TestApp, 'url' | 'auth'>, body: unknown = environmentBody()): Promise<any> {
  const headers = { ...app.auth('dev'), 'content-type': 'application/json' }
  const res = await fetch(`${app.url}/api/environments`, { method: 'POST', headers, body: JSON.stringify(body) })
  const text = await res.text()
  if (res.status !== 201) throw new Error(`create environment: ${res.status} ${text}`)
  return JSON.parse(text).data
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
export async function waitForJob(
  baseUrl: string,
  headers: Record<string, string>,
  jobId: string,
  timeoutMs = 30_000,
  intervalMs = 10,
): Promise<JobView> {
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

/** Every response body (`seen`, filled by the caller) and log line of a test app, to scan for secrets at the end. */
export function recorder() {
  const { lines, logStream } = logLines()
  return { seen: [] as string[], lines, logStream }
}

/** POST /api/environments/:id/generate as dev, then the job followed to its end; both answers go to `seen`. */
export async function generateAndWait(
  app: Pick<TestApp, 'url' | 'auth'>,
  envId: string,
  body: unknown = { format: 'terraform' },
  seen: string[] = [],
): Promise<JobView> {
  const dev = { ...app.auth('dev'), 'content-type': 'application/json' }
  const res = await fetch(`${app.url}/api/environments/${envId}/generate`, { method: 'POST', headers: dev, body: JSON.stringify(body) })
  const text = await res.text()
  seen.push(text)
  if (res.status !== 202) throw new Error(`generate: ${res.status} ${text}`)
  const done = await waitForJob(app.url, dev, JSON.parse(text).data.id)
  seen.push(JSON.stringify(done))
  return done
}
