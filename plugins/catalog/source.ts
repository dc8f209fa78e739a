// Where the catalog comes from: the templates in process (processor-lib), or a remote processor
// service (`GET {PROCESSOR_URL}/catalog` with X-Service-Token). Both answer a conditional request:
// `notModified` when the caller's ETag (the templates commit) is still current.
import { buildCatalog, DEFAULT_PARAMS_FILES, languageOf, type Catalog } from '@ies/processor-lib'
import type { TemplatesSource } from '@ies/server/jobs/templates'

export type Fetched = { notModified: true } | { notModified: false; catalog: Catalog; etag: string }

export interface CatalogSource {
  fetch(etag: string | undefined): Promise<Fetched>
}

/** The processor could not be reached (network error, timeout, 5xx): the cache may serve a stale copy. */
export class ProcessorUnreachable extends Error {}

export function inProcessSource(templates: TemplatesSource, provider = 'aws'): CatalogSource {
  const paramsFile = DEFAULT_PARAMS_FILES[provider]
  return {
    async fetch(etag) {
      let loaded
      try {
        loaded = await templates.load()
      } catch (err) {
        throw new ProcessorUnreachable(`templates unavailable: ${(err as Error).message}`)
      }
      if (etag === loaded.commit) return { notModified: true }
      const file = loaded.inputs.find((f) => f.path === paramsFile)
      const lang = languageOf(paramsFile)
      if (!file || !lang) throw new ProcessorUnreachable(`the templates have no parameter-values file ${paramsFile}`)
      return { notModified: false, catalog: buildCatalog(paramsFile, file.content.toString('utf8'), lang, loaded.commit), etag: loaded.commit }
    },
  }
}

const unquote = (etag: string) => etag.replace(/^W\//, '').replace(/^"(.*)"$/, '$1')

export function remoteSource(opts: { url: string; token: string; timeoutMs: number }): CatalogSource {
  return {
    async fetch(etag) {
      let res: Response
      try {
        res = await fetch(`${opts.url}/catalog`, {
          headers: { 'X-Service-Token': opts.token, ...(etag && { 'If-None-Match': `"${etag}"` }) },
          signal: AbortSignal.timeout(opts.timeoutMs),
        })
      } catch (err) {
        throw new ProcessorUnreachable(`processor unreachable: ${(err as Error).message}`)
      }
      if (res.status === 304) return { notModified: true }
      if (res.status >= 500) throw new ProcessorUnreachable(`processor answered ${res.status}`)
      if (res.status !== 200) throw new Error(`processor answered ${res.status} to GET /catalog`)
      const catalog = (await res.json()) as Catalog
      return { notModified: false, catalog, etag: unquote(res.headers.get('etag') ?? catalog.commit) }
    },
  }
}
