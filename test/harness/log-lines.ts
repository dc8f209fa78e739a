// A log stream that keeps every line written to it (startTestApp's `logStream`, a Fastify logger's
// `stream`), for assertions on what was logged and scans for secrets.
import { Writable } from 'node:stream'

export function logLines(): { lines: string[]; logStream: Writable } {
  const lines: string[] = []
  const logStream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      done()
    },
  })
  return { lines, logStream }
}
