// A stand-in for the remote processor's `GET /catalog` on a loopback port that answers every request
// with one fixed document (its `commit` as the ETag): for a catalog the real processor never serves,
// such as a document of another schema version. Closed when the test ends.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** The server's URL (for PROCESSOR_URL). */
export async function serveCatalogDocument(t: Teardown, doc: { commit: string }): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', etag: `"${doc.commit}"` })
    res.end(JSON.stringify(doc))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
