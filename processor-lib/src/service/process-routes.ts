/** POST /process, /process-upload and /process-git-download: one processing path, three tree sources. */
import { realpath } from 'node:fs/promises'
import { isAbsolute, relative, resolve } from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { finding, ProcessorError, type Finding } from '../findings.ts'
import { cloneRepository, repositoryUrl } from '../git.ts'
import { templatesCommit } from '../commit.ts'
import { checkArchive, processFiles, readTree, selectInputs, type ProcessResult } from '../tree.ts'
import type { InputFile } from '../files.ts'
import { unzipToFiles } from '../zip.ts'
import { zipTree } from '../zip-writer.ts'
import type { ResolvedServiceOptions } from './options.ts'
import { generationFailed } from './errors.ts'
import { gitDestination } from './git-destination.ts'

const Config = Type.Object({}, { additionalProperties: true, description: 'the transform of the environment' })
const Common = {
  config: Config,
  trimDecoratorAttrs: Type.Optional(Type.Boolean()),
  include: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
      maxItems: 100,
      description: 'path prefixes (`terraform/`, `charts/`): only the files under them are processed and returned; default every file',
    }),
  ),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('zip')])),
}
const ProcessBody = Type.Object({ templates: Type.String({ minLength: 1, maxLength: 1024 }), ...Common }, { additionalProperties: false })
const UploadBody = Type.Object({ archive: Type.String({ minLength: 1 }), ...Common }, { additionalProperties: false })
const GitBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    branch: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\w./-]+$' })),
    subdir: Type.Optional(Type.String({ maxLength: 1024 })),
    version: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: "a full commit id among the branch's last 1000 commits, or a tag; default the branch's newest commit",
      }),
    ),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String()),
    ...Common,
  },
  { additionalProperties: false },
)

/**
 * Success bodies. JSON: `{ fileCount, files: [{ path, content, encoding }], findings }` with
 * `encoding` `utf8` (text) or `base64` (files copied verbatim). Zip: the archive, with
 * `X-Processor-File-Count` and `X-Processor-Findings` (the number of warnings) headers; the archive is
 * checked to hold exactly the processed files before it is sent (else a generation error).
 */
async function respond(
  reply: FastifyReply,
  result: ProcessResult,
  format: 'json' | 'zip',
  extraHeaders: Record<string, string> = {},
): Promise<FastifyReply> {
  if (!result.ok) throw generationFailed(result.findings, result.refused)
  for (const [k, v] of Object.entries(extraHeaders)) reply.header(k, v)
  reply.header('X-Processor-File-Count', String(result.files.length))
  reply.header('X-Processor-Findings', String(result.findings.length))
  if (format === 'zip') {
    const zip = await zipTree(result.files)
    await checkArchive(
      zip,
      result.files.map((f) => f.path),
    )
    return reply.type('application/zip').header('Content-Disposition', 'attachment; filename="generated.zip"').send(zip)
  }
  return reply.send({
    fileCount: result.files.length,
    files: result.files.map((f) =>
      typeof f.content === 'string'
        ? { path: f.path, content: f.content, encoding: 'utf8' }
        : { path: f.path, content: f.content.toString('base64'), encoding: 'base64' },
    ),
    findings: result.findings,
  })
}

function withUnsupported(result: ProcessResult, unsupported: string[]): ProcessResult {
  if (unsupported.length === 0) return result
  const extra: Finding[] = unsupported.map((p) => finding('UNSUPPORTED_ENTRY', 'error', p, 0, null, 'not a regular file'))
  return { ...result, ok: false, files: [], findings: [...result.findings, ...extra], refused: [...result.refused, ...unsupported] }
}

/** The inputs that are output (the templates' ignore file applied), under the requested prefixes (all without `include`). */
function included(inputs: InputFile[], include: readonly string[] | undefined): InputFile[] {
  return selectInputs(inputs, include)
}

function checkFileCount(inputs: readonly InputFile[], max: number): void {
  if (inputs.length > max) throw new ProcessorError(413, 'TREE_TOO_LARGE', `the tree holds ${inputs.length} files; the limit is ${max}`)
}

/** Resolve a requested templates folder inside the configured root (no `..`, no link escaping it). */
async function folderInsideRoot(root: string | undefined, requested: string): Promise<string> {
  if (!root) throw new ProcessorError(503, 'NOT_CONFIGURED', 'no templates root is configured for POST /process')
  if (isAbsolute(requested) || requested.split(/[\\/]/).includes('..')) {
    throw new ProcessorError(400, 'BAD_REQUEST', 'templates must be a relative folder inside the templates root', [
      { field: '/templates', message: 'outside the root' },
    ])
  }
  let realRoot: string
  let real: string
  try {
    realRoot = await realpath(root)
  } catch {
    throw new ProcessorError(503, 'NOT_CONFIGURED', 'the templates root does not exist')
  }
  try {
    real = await realpath(resolve(realRoot, requested))
  } catch {
    throw new ProcessorError(400, 'TEMPLATES_NOT_FOUND', `templates folder not found: ${requested}`)
  }
  const rel = relative(realRoot, real)
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new ProcessorError(400, 'BAD_REQUEST', 'templates resolves outside the templates root')
  }
  return real
}

export const processRoutes: FastifyPluginAsync<ResolvedServiceOptions> = async (app, opts) => {
  const trim = (asked?: boolean) => asked ?? opts.trimDecoratorAttrs

  app.post('/process', { schema: { body: ProcessBody } }, async (request, reply) => {
    const body = request.body as Static<typeof ProcessBody>
    const dir = await folderInsideRoot(opts.templatesRoot, body.templates)
    const { inputs, unsupported } = await readTree(dir)
    checkFileCount(inputs, opts.maxFiles)
    const result = withUnsupported(
      processFiles(included(inputs, body.include), body.config, { trimDecoratorAttrs: trim(body.trimDecoratorAttrs) }),
      unsupported,
    )
    return respond(reply, result, body.format ?? 'json', { 'X-Templates-Commit': await templatesCommit(dir, inputs) })
  })

  const uploadLimit = Math.ceil((opts.maxArchiveBytes * 4) / 3) + 1024 * 1024
  app.post('/process-upload', { schema: { body: UploadBody }, bodyLimit: uploadLimit }, async (request, reply) => {
    const body = request.body as Static<typeof UploadBody>
    if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(body.archive)) {
      throw new ProcessorError(400, 'BAD_REQUEST', 'archive must be a base64-encoded zip', [{ field: '/archive', message: 'not base64' }])
    }
    const zip = Buffer.from(body.archive, 'base64')
    if (zip.length > opts.maxArchiveBytes) {
      throw new ProcessorError(413, 'ARCHIVE_TOO_LARGE', `the archive is ${zip.length} bytes; the limit is ${opts.maxArchiveBytes}`)
    }
    const inputs = await unzipToFiles(zip, { maxFiles: opts.maxFiles, maxBytes: opts.maxTreeBytes })
    const result = processFiles(included(inputs, body.include), body.config, { trimDecoratorAttrs: trim(body.trimDecoratorAttrs) })
    return respond(reply, result, body.format ?? 'json')
  })

  const destination = gitDestination(opts)
  app.post('/process-git-download', { schema: { body: GitBody } }, async (request, reply) => {
    const body = request.body as Static<typeof GitBody>
    repositoryUrl(body.url)
    await destination.check(body.url)
    const clone = await cloneRepository({
      http: destination.http,
      url: body.url,
      branch: body.branch,
      subdir: body.subdir,
      version: body.version,
      username: body.username,
      password: body.password,
    })
    checkFileCount(clone.inputs, opts.maxFiles)
    const result = withUnsupported(
      processFiles(included(clone.inputs, body.include), body.config, { trimDecoratorAttrs: trim(body.trimDecoratorAttrs) }),
      clone.unsupported,
    )
    return respond(reply, result, body.format ?? 'zip', { 'X-Templates-Commit': clone.commit })
  })
}
