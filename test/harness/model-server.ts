// A loopback HTTP server speaking the OpenAI-compatible chat completions API
// (POST /v1/chat/completions), answering with scripted replies: plain text, a JSON answer, tool
// calls, an error status or a slow answer. It records every request so tests can look at the
// prompt and the headers the service sent.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ScriptedReply {
  /** The assistant message's content. */
  content?: string | null
  /** Tool calls of the assistant message: function name and its JSON arguments text. */
  toolCalls?: Array<{ name: string; arguments: string }>
  /** Answer with this status and `body` instead of a completion. */
  status?: number
  body?: string
  /** Wait this long before answering. */
  delayMs?: number
}

export interface RecordedRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: { model?: string; messages?: Array<{ role: string; content: string }>; [key: string]: unknown }
}

export interface ModelServer {
  /** The API root to put in AI_BASE_URL (ends in /v1). */
  baseUrl: string
  requests: RecordedRequest[]
  /** Queue replies; each request takes the next one (an empty queue answers "ok"). */
  script(...replies: ScriptedReply[]): void
  close(): Promise<void>
}

interface Teardown {
  teardown(fn: () => unknown): void
}

export async function startModelServer(t: Teardown): Promise<ModelServer> {
  const queue: ScriptedReply[] = []
  const requests: RecordedRequest[] = []
  const sockets = new Set<import('node:net').Socket>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      let body: RecordedRequest['body'] = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        // recorded as empty
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body })
      const reply = queue.shift() ?? { content: 'ok' }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
      if (res.destroyed) return
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }))
        return
      }
      if (reply.status) {
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body ?? '{}')
        return
      }
      const message: Record<string, unknown> = { role: 'assistant', content: reply.content ?? null }
      if (reply.toolCalls) {
        message.tool_calls = reply.toolCalls.map((c, i) => ({
          id: `call_${i}`,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        }))
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? 'unknown',
          choices: [{ index: 0, message, finish_reason: reply.toolCalls ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        }),
      )
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      server.close(() => resolve())
    })
  t.teardown(close)
  const { port } = server.address() as AddressInfo
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, script: (...replies) => queue.push(...replies), close }
}
