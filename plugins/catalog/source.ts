// Where the catalog comes from: the templates in process (processor-lib), or a remote processor
// service (`GET {PROCESSOR_URL}/catalog` with X-Service-Token). Both answer a conditional request:
// `notModified` when the caller's ETag (the templates commit) is still current.
//
// With TEMPLATES_REPO the remote source asks the processor for the catalog of that repository's
// `main` (`?url=…&branch=main`), the repository and branch generation sends to POST
// /process-git-download, so the catalog's ETag is the X-Templates-Commit of the next generation. The
// URL goes without its user and password (a query string gets logged); they travel in
// `X-Templates-Authorization: Basic …`. Without TEMPLATES_REPO: the processor's own templates.
import { buildCatalog, DEFAULT_PARAMS_FILES, languageOf, type Catalog } from '@ies/processor-lib'
import { credentialSecrets, redact } from '@ies/server/core/redaction'
import { splitCredentials, TEMPLATES_BRANCH } from '@ies/server/templates/templates'
import type { Templates, TemplatesSource } from '@ies/server/templates/source'

export type Fetched = { notModified: true } | { notModified: false; catalog: Catalog; etag: string }

export interface CatalogSource {
  fetch(etag: string | undefined): Promise<Fetched>
}

/** The processor could not be reached (network error, timeout, 5xx): the cache may serve a stale copy. */
export class ProcessorUnreachable extends Error {}

/** The catalog document of a templates version, built from its parameter-values file; null when it has none. */
export function catalogDocumentOf(templates: Templates, provider = 'aws'): Catalog | null {
  const paramsFile = DEFAULT_PARAMS_FILES[provider]
  const file = templates.inputs.find((f) => f.path === paramsFile)
  const lang = languageOf(paramsFile)
  if (!paramsFile || !file || !lang) return null
  return buildCatalog(paramsFile, file.content.toString('utf8'), lang, templates.commit)
}

export function inProcessSource(templates: TemplatesSource, provider = 'aws'): CatalogSource {
  return {
    async fetch(etag) {
      let loaded
      try {
        loaded = await templates.load()
      } catch (err) {
        throw new ProcessorUnreachable(`templates unavailable: ${(err as Error).message}`)
      }
      if (etag === loaded.commit) return { notModified: true }
      const catalog = catalogDocumentOf(loaded, provider)
      if (!catalog) throw new ProcessorUnreachable(`the templates have no parameter-values file ${DEFAULT_PARAMS_FILES[provider]}`)
      return { notModified: false, catalog, etag: loaded.commit }
    },
  }
}

/** An entity tag without its weak prefix and quotes. */
export const unquote = (etag: string) => etag.replace(/^W\//, '').replace(/^"(.*)"$/, '$1')

export interface RemoteSourceOptions {
  /** PROCESSOR_URL (no trailing slash). */
  url: string
  /** PROCESSOR_SERVICE_TOKEN. */
  token: string
  timeoutMs: number
  /** TEMPLATES_REPO: the repository generation uses; its catalog is asked for. Unset: the processor's own templates. */
  templatesRepo?: string
}

export function remoteSource(opts: RemoteSourceOptions): CatalogSource {
  const repo = opts.templatesRepo ? splitCredentials(opts.templatesRepo) : undefined
  const path = repo ? `/catalog?${new URLSearchParams({ url: repo.url, branch: TEMPLATES_BRANCH })}` : '/catalog'
  const repoAuth =
    repo?.username !== undefined
      ? { 'X-Templates-Authorization': `Basic ${Buffer.from(`${repo.username}:${repo.password ?? ''}`, 'utf8').toString('base64')}` }
      : undefined
  // The Basic value of X-Templates-Authorization is among them (credentialSecrets).
  const secrets = [opts.token, encodeURIComponent(opts.token), ...credentialSecrets(repo?.username ?? '', repo?.password)]
  return {
    async fetch(etag) {
      let res: Response
      try {
        res = await fetch(`${opts.url}${path}`, {
          headers: { 'X-Service-Token': opts.token, ...repoAuth, ...(etag && { 'If-None-Match': `"${etag}"` }) },
          signal: AbortSignal.timeout(opts.timeoutMs),
        })
      } catch (err) {
        throw new ProcessorUnreachable(redact(`processor unreachable: ${(err as Error).message}`, secrets))
      }
      if (res.status === 304) return { notModified: true }
      if (res.status !== 200) {
        // The processor's own code and message (a templates repository it cannot read: CLONE_FAILED,
        // 502 when the git host is down and 400 when it refuses), for the log.
        const error = await res.json().then(
          (b: { error?: { code?: unknown; message?: unknown } }) => b?.error,
          () => undefined,
        )
        const reason = redact(
          `processor answered ${res.status} to GET /catalog${typeof error?.code === 'string' ? `: ${error.code}` : ''}${typeof error?.message === 'string' ? ` ${error.message}` : ''}`,
          secrets,
        )
        throw res.status >= 500 ? new ProcessorUnreachable(reason) : new Error(reason)
      }
      const catalog = (await res.json()) as Catalog
      return { notModified: false, catalog, etag: unquote(res.headers.get('etag') ?? catalog.commit) }
    },
  }
}
