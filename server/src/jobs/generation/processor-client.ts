// Generation through the remote processor service (PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN), the
// spec's generation flow: the transform's output goes to the processor's POST /process-git-download,
// which clones the templates repository (TEMPLATES_REPO, branch `main`; a pinned environment's
// version as `version`, a commit or tag) and answers with the processed tree as a zip. Without
// TEMPLATES_REPO the processor's own templates folder is processed (POST /process, folder `.` of PROCESSOR_TEMPLATES_ROOT, the tree its GET /catalog reads by default),
// so the catalog and the generated tree come from the same templates (a pinned environment then fails
// TEMPLATES_VERSION_UNAVAILABLE: a folder holds one version). Only the selected path prefixes
// are processed (`include`), as in process.
//
// The answer is checked: the zip must hold as many files as the processor says it produced
// (X-Processor-File-Count). Failures become job errors as in process: the processor's generation
// error (GENERATION_FAILED) with its findings as details; an unreachable processor
// (PROCESSOR_UNAVAILABLE); a refused service token (PROCESSOR_UNAUTHORIZED); any other refusal with
// the processor's code and message. The service token (and the templates repository's password) never
// appears in a message or detail.
import { finding } from '@ies/processor-lib/findings'
import { unzipToFiles, type Finding, type TreeFile } from '@ies/processor-lib'
import type { Config } from '../../config.ts'
import { UNZIP_LIMITS } from '../../core/archive-limits.ts'
import { credentialSecrets, redact, redactDeep } from '../../core/redaction.ts'
import { GenerationError, inProcessProcessor, refusal, versionNotFound, type TemplateProcessor } from './generation.ts'
import { splitCredentials, TEMPLATES_BRANCH } from '../../templates/templates.ts'
import type { TemplatesSource } from '../../templates/source.ts'

export interface RemoteProcessorOptions {
  /** PROCESSOR_URL (no trailing slash). */
  url: string
  /** PROCESSOR_SERVICE_TOKEN, sent as X-Service-Token. */
  token: string
  /** TEMPLATES_REPO: the repository the processor clones; unset: the processor's own templates folder. */
  templatesRepo?: string
  timeoutMs: number
}

function originOf(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}`
  } catch {
    return 'the configured PROCESSOR_URL'
  }
}

function isFinding(value: unknown): value is Finding {
  return !!value && typeof value === 'object' && typeof (value as Finding).code === 'string' && typeof (value as Finding).file === 'string'
}

export function remoteProcessor(opts: RemoteProcessorOptions): TemplateProcessor {
  const repo = opts.templatesRepo ? splitCredentials(opts.templatesRepo) : undefined
  const secrets = [opts.token, encodeURIComponent(opts.token), ...credentialSecrets(repo?.username ?? '', repo?.password)]
  const clean = (text: string) => redact(text, secrets)
  const where = originOf(opts.url)
  const route = repo ? '/process-git-download' : '/process'

  return {
    origin: repo ? `${where} (templates ${repo.url})` : `${where} (its own templates)`,
    async process(input, prefixes, version) {
      if (version && !repo) {
        throw new GenerationError(
          'TEMPLATES_VERSION_UNAVAILABLE',
          `The processor service generates from its own templates folder, which holds its newest templates only; the pinned version ${version} (templatesPin) needs TEMPLATES_REPO or the embedded processor`,
        )
      }
      const common = { config: input, include: [...prefixes], format: 'zip' as const }
      const body = repo
        ? {
            url: repo.url,
            branch: TEMPLATES_BRANCH,
            ...(version && { version }),
            ...(repo.username !== undefined && { username: repo.username, password: repo.password ?? '' }),
            ...common,
          }
        : { templates: '.', ...common }
      let res: Response
      try {
        res = await fetch(`${opts.url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-token': opts.token },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(opts.timeoutMs),
        })
      } catch (err) {
        const e = err as Error & { cause?: { code?: string; message?: string } }
        const reason =
          e.name === 'TimeoutError' ? `no answer within ${opts.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message)
        throw new GenerationError('PROCESSOR_UNAVAILABLE', clean(`The template processor at ${where} cannot be reached: ${reason}`))
      }
      let zip: Buffer
      try {
        zip = Buffer.from(await res.arrayBuffer())
      } catch (err) {
        throw new GenerationError(
          'PROCESSOR_UNAVAILABLE',
          clean(`The template processor at ${where} broke off its answer: ${(err as Error).message}`),
        )
      }
      if (res.status !== 200) throw failure(res.status, zip, version)

      const commit = res.headers.get('x-templates-commit')
      const declared = Number(res.headers.get('x-processor-file-count'))
      if (!commit || !Number.isInteger(declared)) {
        throw new GenerationError(
          'PROCESSOR_FAILED',
          `The template processor at ${where} answered without its templates commit or file count`,
        )
      }
      let files: TreeFile[]
      try {
        files = await unzipToFiles(zip, UNZIP_LIMITS)
      } catch (err) {
        throw new GenerationError(
          'PROCESSOR_FAILED',
          clean(`The template processor at ${where} sent an unreadable archive: ${(err as Error).message}`),
        )
      }
      if (files.length !== declared) {
        throw new GenerationError('GENERATION_FAILED', `the processor's archive holds ${files.length} files; it produced ${declared}`, [
          finding('MISSING_OUTPUT', 'error', '.', 0, null, `${files.length} files in the processor's archive for ${declared} produced`),
        ])
      }
      return { commit, files, warnings: Number(res.headers.get('x-processor-findings')) || 0 }
    },
  }

  function failure(status: number, raw: Buffer, version: string | undefined): GenerationError {
    let error: { code?: unknown; message?: unknown; details?: unknown } | undefined
    try {
      error = (JSON.parse(raw.toString('utf8')) as { error?: typeof error }).error
    } catch {
      error = undefined
    }
    const code = typeof error?.code === 'string' ? error.code : undefined
    if (code === 'VERSION_NOT_FOUND' && version) return versionNotFound(version)
    const message = typeof error?.message === 'string' ? clean(error.message) : undefined
    if (code === 'GENERATION_FAILED') {
      const details = redactDeep(error?.details, secrets) as { refused?: unknown; findings?: unknown } | undefined
      const findings = Array.isArray(details?.findings) ? details.findings.filter(isFinding) : []
      const refused = Array.isArray(details?.refused) ? details.refused.length : 0
      if (findings.length > 0) {
        const err = refusal(refused, findings)
        return new GenerationError(err.code, message ?? err.message, err.details)
      }
      return new GenerationError('GENERATION_FAILED', message ?? 'the template processor could not generate the files')
    }
    if (status === 401) {
      return new GenerationError(
        'PROCESSOR_UNAUTHORIZED',
        `The template processor at ${where} refused the service token (PROCESSOR_SERVICE_TOKEN)`,
      )
    }
    if (!code && (status === 502 || status === 503 || status === 504)) {
      return new GenerationError('PROCESSOR_UNAVAILABLE', `The template processor at ${where} is unavailable (HTTP ${status})`)
    }
    if (status >= 500) {
      return new GenerationError(
        'PROCESSOR_FAILED',
        `The template processor at ${where} failed (HTTP ${status}${message ? `: ${message}` : ''})`,
      )
    }
    const details = error?.details === undefined ? undefined : redactDeep(error.details, secrets)
    return new GenerationError(
      code ?? 'PROCESSOR_REFUSED',
      `The template processor refused the generation: ${message ?? `HTTP ${status}`}`,
      details,
    )
  }
}

/** The processor generation uses: the remote service when PROCESSOR_URL and PROCESSOR_SERVICE_TOKEN are set, else the embedded one. */
export function templateProcessorFor(config: Config, templates: TemplatesSource): TemplateProcessor {
  const { processorUrl, processorToken } = config.catalog
  if (processorUrl && processorToken) {
    return remoteProcessor({
      url: processorUrl,
      token: processorToken,
      templatesRepo: config.templates.repo,
      timeoutMs: config.generation.processorTimeoutMs,
    })
  }
  return inProcessProcessor(templates, { trimDecoratorAttrs: config.generation.trimDecoratorAttrs })
}
