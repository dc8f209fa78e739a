// Numbers in words are read by compromise in a worker thread (plugins/ai/number-words.ts): the worker
// reads them as compromise does in this process, within the reading's bounds; a worker that fails
// refuses with its reason instead of leaving the request waiting; and the app's worker ends with the app.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import nlp from 'compromise'
import { NumberWords } from '../../../plugins/ai/number-words.ts'
import { digitsForWords, MAX_RUNS, newRuns } from '../../../plugins/ai/quantities.ts'
import { startTestApp } from '../../harness/app.ts'
import { ask, chat } from './helpers.ts'

/** Worker threads of this process now (the diagnostic report lists the live ones). */
const liveWorkers = () => (process.report.getReport() as { workers: unknown[] }).workers.length

/** What compromise in this process reads a run as (the reading before it moved to a worker). */
function inProcess(run: string): string {
  const got: unknown = nlp(run).numbers().get()
  const n = Array.isArray(got) ? got[0] : got
  return typeof n === 'number' && Number.isFinite(n) ? String(n) : run
}

t.test('the worker reads numbers in words as compromise does in process', async (t) => {
  const reader = new NumberWords()
  t.teardown(() => reader.close())
  const phrases = [
    'twenty-one',
    'forty seven',
    'one hundred and twenty',
    'three and a half',
    'ninety-nine',
    'two thousand',
    'zero',
    'eleven',
    'one hundred',
    'seventy-three',
  ]
  const text = `keep it ${phrases.join(' days, then ')} days`
  const runs = newRuns(text)
  t.equal(runs.length, MAX_RUNS, `the first ${MAX_RUNS} new runs are read, no more`)
  t.notOk(reader.running, 'no worker before the first run to read')
  await reader.read(text)
  t.ok(reader.running, 'the worker runs once a run was read')
  for (const run of runs) t.equal(digitsForWords(run), inProcess(run), `"${run}" reads as ${inProcess(run)}`)
  t.equal(digitsForWords('keep messages for twenty-one days'), 'keep messages for 21 days')
  const unread = phrases.slice(MAX_RUNS)
  for (const run of unread) t.equal(digitsForWords(run), run, `"${run}", past the bound, stays as written`)
  await reader.read(unread.join(', '))
  for (const run of unread) t.equal(digitsForWords(run), inProcess(run), `"${run}" is read by the next text`)
  t.same(newRuns(text), [], 'what was read is remembered')
  await reader.close()
  t.notOk(reader.running, 'close ends the worker')
})

t.test('a worker that fails refuses with its reason, and close refuses a read still waiting', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-number-words-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const broken = path.join(dir, 'broken-worker.js')
  await writeFile(broken, "throw new Error('cannot load on purpose')\n")
  const failing = new NumberWords(pathToFileURL(broken))
  await t.rejects(failing.read('sixty-six days'), /number words worker failed: cannot load on purpose/)
  t.notOk(failing.running, 'the failed worker is forgotten')
  await t.rejects(failing.read('sixty-six days'), /cannot load on purpose/, 'a later read starts a new worker (failing again here)')

  const closing = new NumberWords()
  const refused = t.rejects(closing.read('eighty-eight hours'), /number words worker was closed/)
  await closing.close()
  await refused
})

t.test("the app's worker starts with the first request that has numbers in words and ends with the app", async (t) => {
  const ctx = await startTestApp(t)
  const before = liveWorkers()
  const plain = await chat(ctx, ask('enable sqs'))
  t.equal(plain.status, 200)
  t.equal(liveWorkers(), before, 'a request without numbers in words starts no worker')
  const res = await chat(ctx, ask('keep sqs messages for nine days'))
  t.equal(res.status, 200, res.raw.slice(0, 300))
  const retention = (res.body.data.suggestions as Array<{ path: string; value: unknown }>).find(
    (s) => s.path === 'services.sqs.messageRetentionSeconds',
  )
  t.equal(retention?.value, 9 * 86400, `its numbers in words were read: ${res.raw.slice(0, 300)}`)
  t.equal(liveWorkers(), before + 1, 'the worker runs')
  await ctx.app.close()
  t.equal(liveWorkers(), before, 'closing the app ended it')
})
