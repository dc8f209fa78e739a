// The worker thread of number-words.ts: reads runs of number words with compromise off the request
// thread (loading compromise and building its lexicon holds a thread for hundreds of ms). It builds
// the lexicon, then says `{ ready: true }`; a message `{ id, runs }` is answered `{ id, numbers }`,
// one entry per run: its number, or null when compromise reads none.
import { parentPort } from 'node:worker_threads'
import nlp from 'compromise'

/** The number a run of number words reads as ("twenty-one" -> 21), or null. */
function numberOf(run) {
  const got = nlp(run).numbers().get()
  const n = Array.isArray(got) ? got[0] : got
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}

numberOf('one') // the lexicon is built by the first reading: before the first request, not in it
parentPort.on('message', ({ id, runs }) => {
  parentPort.postMessage({ id, numbers: runs.map(numberOf) })
})
parentPort.postMessage({ ready: true })
