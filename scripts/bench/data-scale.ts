// Data-scale benchmark (not a test): `npx tsx scripts/bench/data-scale.ts [--sizes 1000,10000] [--generations 2] [--big-user 10000]`
//
// How the API's hot paths behave as the embedded store (FerretDB on SQLite) fills up: environments
// spread over users (100 each) with finished generations stored for each, measured at each size
// side by side in one run, on one database grown from size to size. The measured user `dev` owns
// 100 environments like every other user, created through the API, with real generations; the other
// users' data is seeded in bulk with the repository layer's own records (environment records cloned
// from one the repository wrote, summaries from summaries.ts, job records and archives as the job
// store writes them; the seeded archives are small stand-ins, the measured one is a real archive).
// Then one user with --big-user environments lists their first page, and one environment with a
// history of --history changes (seeded in bulk from a real entry) reads its first page and appends.
//
// Aims: list <= 20 ms, read and job read <= 5 ms, download <= 20 ms, flat from 1k to
// 100k; one user with 10,000 environments: first page <= 200 ms; a history of 10,000 changes: first
// page <= 20 ms, an append printed. The update is printed too (FerretDB as
// released rewrote a document by reading the whole table; the patched build goes by the `_id` index).
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { Binary } from 'mongodb'
import { entryOf } from '../../plugins/environments/summary-selection.ts'
import { encodeEntries } from '../../plugins/environments/summary-entries.ts'
import type { EnvironmentRecord } from '../../plugins/environments/record.ts'
import type { JobRecord } from '../../server/src/jobs/queue/store.ts'
import { documentsOf, type StoredEntry } from '../../plugins/history/store.ts'
import { startTestApp } from '../../test/harness/app.ts'
import { allServicesEnabled, environmentBody, generateAndWait } from '../../test/harness/jobs.ts'
import { heldToken } from './held-token.ts'
import { insertInBatches, stats, teamScale } from './team-scale.ts'

const long = process.env.BENCH_LONG === '1'
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: long ? '1000,10000,100000' : '1000,10000' },
    generations: { type: 'string', default: long ? '10' : '2' },
    'big-user': { type: 'string', default: '10000' },
    history: { type: 'string', default: '10000' },
    samples: { type: 'string', default: '30' },
  },
})
const SIZES = values.sizes.split(',').map(Number)
const GENERATIONS = Number(values.generations)
const BIG_USER = Number(values['big-user'])
const HISTORY = Number(values.history)
const SAMPLES = Number(values.samples)
const PER_USER = 100

const teardowns: (() => unknown)[] = []
const t = { teardown: (fn: () => unknown) => teardowns.push(fn) }

try {
  const app = await startTestApp(t, {})
  const db = app.app.mongo.db
  // Each user's token held for a minute, then renewed: a long run outlives one.
  const as = (user: 'dev' | 'other') => {
    const token = heldToken(() => app.auth(user))
    return () => ({ ...token(), 'content-type': 'application/json' })
  }
  const dev = as('dev')
  const services = await allServicesEnabled()
  const call = async (method: string, path: string, body?: unknown, headers = dev) => {
    const res = await fetch(app.url + path, { method, headers: headers(), ...(body !== undefined && { body: JSON.stringify(body) }) })
    const buf = await res.arrayBuffer()
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${Buffer.from(buf).toString().slice(0, 300)}`)
    return buf.byteLength ? (res.headers.get('content-type')?.includes('json') ? JSON.parse(Buffer.from(buf).toString()) : buf) : undefined
  }

  // The measured user: 100 environments through the API, real generations of the first.
  const devIds: string[] = []
  for (let i = 0; i < PER_USER; i++) {
    const created = await call('POST', '/api/environments', environmentBody({ name: `dev-${String(i).padStart(3, '0')}`, services }))
    devIds.push(created.data.id)
  }
  const devJobs: string[] = []
  for (let g = 0; g < Math.max(2, GENERATIONS); g++) {
    const done = await generateAndWait(app, devIds[0], { format: 'terraform', options: { includeBackend: true } })
    devJobs.push(done.id)
  }
  const template = (await db.collection<EnvironmentRecord>('environments').findOne({ _id: devIds[0] }))!
  const jobTemplate = (await db.collection<JobRecord>('jobHistory').findOne({ _id: devJobs[0] }))!
  const stub = new Binary(Buffer.alloc(2048, 1))

  /** Seeds users of 100 environments each, each environment with GENERATIONS finished jobs. */
  async function seedUsers(users: number, label: string) {
    const envs: EnvironmentRecord[] = []
    const summaries: { _id: string; entries: string; revision: number }[] = []
    for (let u = 0; u < users; u++) {
      const userId = randomUUID()
      const mine: EnvironmentRecord[] = []
      for (let i = 0; i < PER_USER; i++) {
        const now = new Date(Date.now() - i * 1000)
        mine.push({ ...structuredClone(template), _id: randomUUID(), userId, name: `${label}-${u}-${i}`, createdAt: now, updatedAt: now })
      }
      envs.push(...mine)
      summaries.push({ _id: userId, entries: encodeEntries(mine.map(entryOf)), revision: 1 })
    }
    await insertInBatches(db, 'environments', envs)
    await insertInBatches(db, 'environment_summaries', summaries)
    const jobs: JobRecord[] = []
    const archives: object[] = []
    for (const env of envs) {
      for (let g = 0; g < GENERATIONS; g++) {
        const id = randomUUID()
        jobs.push({ ...structuredClone(jobTemplate), _id: id, userId: env.userId, environmentId: env._id, archiveId: id })
        archives.push({ _id: id, filename: 'stub.zip', contentType: 'application/zip', data: stub, createdAt: new Date() })
      }
    }
    await insertInBatches(db, 'jobHistory', jobs)
    await insertInBatches(db, 'archiveDocuments', archives)
  }

  /** Median and p95 of `n` timed calls after one warm-up; a call that fails (e.g. a 503) is counted, not timed. */
  async function measure(fn: (i: number) => Promise<unknown>, n = SAMPLES) {
    const samples: number[] = []
    let failed = 0
    for (let i = 0; i <= n; i++) {
      const t0 = performance.now()
      try {
        await fn(i)
        if (i > 0) samples.push(performance.now() - t0)
      } catch (err) {
        failed++
        console.error(`  ${(err as Error).message.slice(0, 200)}`)
      }
    }
    return { ...stats(samples.length ? samples : [NaN]), failed }
  }

  const rows: Record<string, string[]> = { list: [], read: [], 'job read': [], download: [], update: [], seconds: [] }
  let total = PER_USER
  for (const size of SIZES) {
    const s0 = performance.now()
    if (size > total) await seedUsers(Math.round((size - total) / PER_USER), `s${size}`)
    total = Math.max(total, size)
    const seeded = (performance.now() - s0) / 1000
    const list = await measure(() => call('GET', '/api/environments?limit=20&sort=name&provider=aws'))
    const read = await measure((i) => call('GET', `/api/environments/${devIds[i % PER_USER]}`))
    const job = await measure((i) => call('GET', `/api/jobs/${devJobs[i % devJobs.length]}`))
    const download = await measure((i) => call('GET', `/api/jobs/${devJobs[i % devJobs.length]}/download`))
    const update = await measure((i) => call('PUT', `/api/environments/${devIds[1]}`, { domain: `v${size}-${i}.example.com` }), 5)
    const cell = (s: { median: number; p95: number; failed: number }) =>
      `${s.median.toFixed(1)} / ${s.p95.toFixed(1)}${s.failed ? ` (${s.failed} failed)` : ''}`
    rows.list.push(cell(list))
    rows.read.push(cell(read))
    rows['job read'].push(cell(job))
    rows.download.push(cell(download))
    rows.update.push(cell(update))
    rows.seconds.push(seeded.toFixed(0))
    console.error(`size ${size}: seeded in ${seeded.toFixed(0)} s`)
  }

  const header = SIZES.map((s) => `${s.toLocaleString('en')} envs`)
  console.log(`Data-scale benchmark: FerretDB on SQLite, ${PER_USER} environments per user, ${GENERATIONS} finished generations each`)
  console.log(`median / p95 in ms through HTTP; the measured user owns ${PER_USER} environments\n`)
  console.log(`| request | ${header.join(' | ')} | aim |`)
  console.log(`|---|${header.map(() => '---:').join('|')}|---|`)
  const aims: Record<string, string> = {
    list: '<= 20, flat',
    read: '<= 5, flat',
    'job read': '<= 5, flat',
    download: '<= 20, flat',
    update: 'printed, no aim',
    seconds: 'seeding time',
  }
  const labels: Record<string, string> = {
    list: 'list (first page of 20, sort by name, filter by provider)',
    read: 'read environment by id',
    'job read': 'job read',
    download: 'download (archive of the full tree)',
    update: 'environment update (PUT)',
    seconds: 'seconds to seed up to this size',
  }
  for (const [key, cells] of Object.entries(rows)) console.log(`| ${labels[key]} | ${cells.join(' | ')} | ${aims[key]} |`)
  await measureHistory()
  // One user with BIG_USER environments: the seeded records of an extra user, listed through the API
  // as `other`. After the largest size a write of that seeding may outlast the driver's 15 s socket
  // timeout on the embedded store: reported, not a crash.
  try {
    const mine = await call('POST', '/api/environments', environmentBody({ name: 'big-first', services }), as('other'))
    const otherId = (await db.collection<EnvironmentRecord>('environments').findOne({ _id: mine.data.id }))!.userId
    const bigEnvs: EnvironmentRecord[] = []
    for (let i = 0; i < BIG_USER; i++) {
      const now = new Date(Date.now() - i * 1000)
      bigEnvs.push({ ...structuredClone(template), _id: randomUUID(), userId: otherId, name: `big-${i}`, createdAt: now, updatedAt: now })
    }
    await insertInBatches(db, 'environments', bigEnvs)
    const first = (await db.collection<EnvironmentRecord>('environments').findOne({ _id: mine.data.id }))!
    await db
      .collection<{ _id: string; entries: string; revision: number }>('environment_summaries')
      .replaceOne({ _id: otherId }, { entries: encodeEntries([first, ...bigEnvs].map(entryOf)), revision: 1000 })
    const otherHeaders = as('other')
    const big = await measure(() => call('GET', '/api/environments?limit=20', undefined, otherHeaders), 3)
    const bigSorted = await measure(() => call('GET', '/api/environments?limit=100&sort=name&provider=aws', undefined, otherHeaders), 3)
    // The list screen's banner: one status document per user. Each environment pushed once, with
    // templates older than the current ones: every one is listed. The first read builds the push
    // lines (one query) and starts building the environment lines in the background; the later
    // ones read the document.
    await insertInBatches(
      db,
      'environmentPushes',
      bigEnvs.map((e) => ({
        _id: e._id,
        environmentId: e._id,
        userId: otherId,
        jobId: randomUUID(),
        commit: '1'.repeat(40),
        branch: 'main',
        templatesCommit: '0'.repeat(40),
        format: 'terraform',
        options: {},
        pushedAt: new Date(),
        inputHash: '0'.repeat(64),
      })),
    )
    // The first read answers within its wait (the lines are built in the background, the answer
    // says how many are pending); the reads after it until none is pending are counted, not timed.
    const status = async () => {
      const t0 = performance.now()
      const res = await fetch(`${app.url}/api/environments/upgrades`, { headers: otherHeaders() })
      const items = ((await res.json()) as { data: unknown[] }).data.length
      return { ms: performance.now() - t0, items, warning: res.headers.get('warning') ?? '' }
    }
    const firstRead = performance.now()
    const firstStatus = await status()
    let last = firstStatus
    while (last.warning) last = await status()
    const built = performance.now() - firstRead
    const upgrades = await measure(() => call('GET', '/api/environments/upgrades', undefined, otherHeaders), 5)

    console.log(
      `\none user with ${BIG_USER.toLocaleString('en')} environments: first page of 20 ${big.median.toFixed(1)} / ${big.p95.toFixed(1)} ms; ` +
        `page of 100 sorted by name and filtered ${bigSorted.median.toFixed(1)} / ${bigSorted.p95.toFixed(1)} ms (aim <= 200); ` +
        `upgrade status (GET /environments/upgrades, every environment behind) ${upgrades.median.toFixed(0)} / ${upgrades.p95.toFixed(0)} ms (aim <= 500), ` +
        `its first read ${firstStatus.ms.toFixed(0)} ms (aim <= 2,000; ${firstStatus.items} listed, ` +
        `${firstStatus.warning ? (/(\d+) environments/.exec(firstStatus.warning)?.[1] ?? '?') : 0} pending), every line built after ${(built / 1000).toFixed(1)} s` +
        (big.failed + bigSorted.failed + upgrades.failed ? `; ${big.failed + bigSorted.failed + upgrades.failed} requests failed` : ''),
    )
  } catch (err) {
    console.log(`\none user with ${BIG_USER.toLocaleString('en')} environments: not measured (${(err as Error).message})`)
  }
  // Teams: a team's members listing its environments, and creates as an owner's count grows (team-scale.ts).
  await teamScale(app, { members: 20, teamEnvs: 5000, creates: BIG_USER, samples: SAMPLES })

  /**
   * One environment with a history of HISTORY changes: the newest real entry of `dev-001` (an update
   * of an environment with every service, with its configuration) cloned, seeded as appends write it.
   */
  async function measureHistory() {
    const store = app.app.history.store
    const [model] = await store.range(devIds[1], await store.count(devIds[1]), await store.count(devIds[1]))
    const id = devIds[2]
    const start = Date.now() - HISTORY * 60_000
    const entries: StoredEntry[] = Array.from({ length: HISTORY }, (_, i) => ({
      ...structuredClone(model),
      environmentId: id,
      environmentName: 'dev-002',
      id: i + 1,
      at: new Date(start + i * 60_000),
    }))
    const { head, entries: docs, pages } = documentsOf(id, entries)
    const history = db.collection<{ _id: string }>('environmentHistory')
    await history.deleteMany({ _id: { $in: [id, ...docs.map((d) => d._id), ...pages.map((p) => p._id)] } })
    await insertInBatches(db, 'environmentHistory', [head, ...docs, ...pages])
    const first = await measure(() => call('GET', `/api/environments/${id}/history?limit=20`))
    const deep = await measure((i) => call('GET', `/api/environments/${id}/history?limit=100&page=${1 + (i % 100)}`))
    const append = await measure(() => store.append({ ...model, environmentId: id, environmentName: 'dev-002', at: new Date() }))
    const update = await measure((i) => call('PUT', `/api/environments/${id}`, { domain: `h${i}.example.com` }), 5)
    const bytes = JSON.stringify(model).length
    console.log(
      `\nhistory of ${HISTORY.toLocaleString('en')} changes (entries of ${bytes.toLocaleString('en')} bytes): ` +
        `first page of 20 ${first.median.toFixed(1)} / ${first.p95.toFixed(1)} ms (aim <= 20); ` +
        `pages of 100 anywhere ${deep.median.toFixed(1)} / ${deep.p95.toFixed(1)} ms; ` +
        `one append (store) ${append.median.toFixed(1)} / ${append.p95.toFixed(1)} ms; ` +
        `environment update (PUT, with its entry) ${update.median.toFixed(1)} / ${update.p95.toFixed(1)} ms`,
    )
  }
} finally {
  for (const fn of teardowns.reverse()) await Promise.resolve(fn()).catch(() => {})
}
