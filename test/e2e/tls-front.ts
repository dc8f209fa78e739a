// An HTTPS front for a loopback test server: a throwaway self-signed certificate for 127.0.0.1
// (made with the openssl CLI), TLS terminated here and the bytes piped to the plain HTTP server.
// `trustInProcess()` adds the certificate to the trust of this process's default HTTPS agent, the
// one the in-process IES server's Git client uses; nothing else is relaxed.
import { execFile } from 'node:child_process'
import https from 'node:https'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import tls from 'node:tls'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface TlsFront {
  /** https://127.0.0.1:<port> */
  baseUrl: string
  /** The certificate file (for the git CLI: `GIT_SSL_CAINFO`). */
  certFile: string
  /** Trust the certificate in this process's default HTTPS agent until stop(). */
  trustInProcess(): void
  stop(): Promise<void>
}

export async function startTlsFront(target: { host: string; port: number }): Promise<TlsFront> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-e2e-tls-'))
  const keyFile = path.join(dir, 'key.pem')
  const certFile = path.join(dir, 'cert.pem')
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ])
  const cert = await readFile(certFile, 'utf8')
  const sockets = new Set<net.Socket>()
  const server = tls.createServer({ key: await readFile(keyFile), cert }, (client) => {
    const upstream = net.connect(target.port, target.host)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => (client.destroy(), upstream.destroy()))
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  const previousCa = https.globalAgent.options.ca
  let trusted = false
  return {
    baseUrl: `https://127.0.0.1:${port}`,
    certFile,
    trustInProcess() {
      https.globalAgent.options.ca = [...tls.rootCertificates, cert]
      trusted = true
    },
    async stop() {
      if (trusted) https.globalAgent.options.ca = previousCa
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(dir, { recursive: true, force: true })
    },
  }
}
