// Loopback stand-ins for the outside services the API calls (credential checks): nothing leaves the machine.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LoopbackEndpoint {
  url: string
  /** Request bodies received, in order (for secret scans). */
  received: string[]
  close(): Promise<void>
}

/**
 * Answers every request with 503 and a JSON error; records what it was sent. `echo`: a hostile
 * upstream whose error text repeats the request (headers and body), as a careless provider might.
 */
export async function refusingEndpoint(opts: { echo?: boolean } = {}): Promise<LoopbackEndpoint> {
  const received: string[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      received.push(`${req.method} ${req.url}\n${body}`)
      res.writeHead(503, { 'content-type': 'application/json' })
      const description = opts.echo ? `you sent ${JSON.stringify(req.headers)} ${body}` : 'loopback stand-in'
      res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: description, message: description }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
