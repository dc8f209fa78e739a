// The worker thread of chart-values.ts: checks chart values YAML off the request thread. It says
// `{ ready: true }` once loaded; then a message
// `{ id, texts, maxAliasCount }` is answered `{ id, problems }`, one entry per text: null when the
// text parses as YAML and its aliases expand within `maxAliasCount` (the yaml package's own limit on
// alias expansion, which refuses alias bombs), else the problem as a message (positions only, never
// the text).
import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { parseDocument } from 'yaml'

// The lowest scheduling priority for this thread only (on Linux `setpriority` with pid 0 applies to
// the calling thread): on a busy machine the request thread keeps its share of the CPU while a long
// parse runs here.
try {
  setPriority(19)
} catch {
  // not permitted on this system: the parse still runs off the request thread
}

function problemOf(text, maxAliasCount) {
  const doc = parseDocument(text)
  const first = doc.errors[0]
  if (first) {
    const at = first.linePos?.[0]
    return `must be valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ''}`
  }
  try {
    doc.toJS({ maxAliasCount })
  } catch {
    return `must not expand YAML aliases more than ${maxAliasCount} times`
  }
  return null
}

parentPort.on('message', ({ id, texts, maxAliasCount }) => {
  parentPort.postMessage({ id, problems: texts.map((text) => problemOf(text, maxAliasCount)) })
})
// Loaded and listening: the time limit of a job starts when it is handed over, not while the thread starts.
parentPort.postMessage({ ready: true })
