/**
 * A real Git server for tests: the machine's `git http-backend` (CGI) behind a small Node HTTP
 * server on 127.0.0.1, serving bare repositories from a temporary folder. Optional HTTP Basic
 * auth. Pushes are accepted (http.receivepack is enabled in every repository it creates).
 *
 *   const server = await startGitServer({ username: 'u', password: 'p' });
 *   const url = await server.createRepo('templates', { 'a.tf': 'x = 1\n' });   // or a directory path
 *   ...
 *   await server.stop();
 */
import { execFile, spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface GitServerOptions {
  /** When set (with password), every request needs HTTP Basic auth with these credentials. */
  username?: string
  password?: string
}

export interface GitServer {
  /** http://127.0.0.1:<port> */
  baseUrl: string
  /** Folder holding the bare repositories (`<name>.git`). */
  reposDir: string
  /** Make a bare repository `<name>.git` whose `main` branch holds the files (a map path -> content, or a directory to copy). Returns its clone URL. */
  createRepo(name: string, filesOrDir: Record<string, string | Buffer> | string): Promise<string>
  /** URL of a repository, with credentials embedded when asked. */
  url(name: string, withAuth?: boolean): string
  /** Run git in a bare repository (e.g. `['log', '--format=%s', 'main']`); returns stdout. */
  git(name: string, args: string[]): Promise<string>
  stop(): Promise<void>
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'IES Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'IES Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: tmpdir(),
}

export async function startGitServer(opts: GitServerOptions = {}): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), 'ies-git-server-'))
  const reposDir = join(root, 'repos')
  await mkdir(reposDir)
  const { stdout: execPath } = await run('git', ['--exec-path'])
  const backend = join(execPath.trim(), 'git-http-backend')
  const expectedAuth =
    opts.username !== undefined ? 'Basic ' + Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64') : null

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (expectedAuth && req.headers.authorization !== expectedAuth) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' })
      res.end('authentication required\n')
      return
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...GIT_ENV,
      GIT_PROJECT_ROOT: reposDir,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      REMOTE_USER: opts.username ?? 'anonymous',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: (req.headers['git-protocol'] as string | undefined) ?? '',
    }
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length']
    const child = spawn(backend, [], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    req.pipe(child.stdin)
    let head = Buffer.alloc(0)
    let headersDone = false
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk)
        return
      }
      head = Buffer.concat([head, chunk])
      let sepAt = head.indexOf('\r\n\r\n')
      let sepLen = 4
      if (sepAt === -1) {
        sepAt = head.indexOf('\n\n')
        sepLen = 2
      }
      if (sepAt === -1) return
      headersDone = true
      let status = 200
      const headers: Record<string, string> = {}
      for (const line of head.subarray(0, sepAt).toString('latin1').split(/\r?\n/)) {
        const i = line.indexOf(':')
        if (i === -1) continue
        const k = line.slice(0, i).trim()
        const v = line.slice(i + 1).trim()
        if (k.toLowerCase() === 'status') status = parseInt(v, 10)
        else headers[k] = v
      }
      res.writeHead(status, headers)
      res.write(head.subarray(sepAt + sepLen))
    })
    child.stdout.on('end', () => {
      if (!headersDone) res.writeHead(502)
      res.end()
    })
    child.on('error', () => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
    child.stderr.resume()
  }

  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const baseUrl = `http://127.0.0.1:${port}`

  const git = async (cwd: string, args: string[]) => (await run('git', args, { cwd, env: { ...process.env, ...GIT_ENV } })).stdout

  return {
    baseUrl,
    reposDir,
    url(name, withAuth = false) {
      if (withAuth && opts.username !== undefined) {
        return `http://${encodeURIComponent(opts.username)}:${encodeURIComponent(opts.password ?? '')}@127.0.0.1:${port}/${name}.git`
      }
      return `${baseUrl}/${name}.git`
    },
    async createRepo(name, filesOrDir) {
      const work = await mkdtemp(join(root, 'work-'))
      if (typeof filesOrDir === 'string') {
        await cp(filesOrDir, work, { recursive: true, filter: (src) => !src.split(/[\\/]/).includes('.git') })
      } else {
        for (const [p, content] of Object.entries(filesOrDir)) {
          await mkdir(dirname(join(work, p)), { recursive: true })
          await writeFile(join(work, p), content)
        }
      }
      await git(work, ['init', '-q', '-b', 'main'])
      await git(work, ['add', '-A'])
      await git(work, ['commit', '-q', '--allow-empty', '-m', 'initial templates'])
      const bare = join(reposDir, `${name}.git`)
      await git(root, ['clone', '-q', '--bare', work, bare])
      await git(bare, ['config', 'http.receivepack', 'true'])
      await rm(work, { recursive: true, force: true })
      return `${baseUrl}/${name}.git`
    },
    async git(name, args) {
      return git(join(reposDir, `${name}.git`), args)
    },
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(root, { recursive: true, force: true })
    },
  }
}
