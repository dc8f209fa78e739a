// A token endpoint that records the forms it receives and answers numbered tokens (`at-1`, `rt-1`,
// ...): for the OAuth client's and the token session's unit tests. The refresh token `revoked` is
// refused (invalid_grant), `unreachable` answers 503; logout answers 204.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export async function fakeTokenEndpoint(t: { teardown(fn: () => unknown): void }) {
  const forms: Record<string, string>[] = []
  let n = 0
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body))
      forms.push({ path: req.url!, ...form })
      if (req.url!.endsWith('/logout')) return res.writeHead(204).end()
      if (form.refresh_token === 'unreachable') return res.writeHead(503).end('down')
      if (form.refresh_token === 'revoked' || form.client_secret === 'wrong') {
        res.writeHead(400, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'Token is not active' }))
      }
      n++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          access_token: `at-${n}`,
          ...(form.grant_type === 'client_credentials' ? {} : { refresh_token: `rt-${n}`, refresh_expires_in: 1800 }),
          expires_in: 300,
          token_type: 'Bearer',
        }),
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { forms, cfg: { authUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, realm: 'ies', clientId: 'ies-app' } }
}
