// Teams at scale (a section of data-scale.ts; alone: `npx tsx scripts/bench/team-scale.ts [--members 20]
// [--team-envs 5000] [--creates 10000]`).
//
// A team of --members members (users signed by the test issuer, members through the API) sharing
// --team-envs environments: every member's first list page (20, sorted by name), median and p95 per
// member; aim <= 20 ms for every member. Then how creating an environment grows with its owner's
// count: the first creates in a fresh team against creates once the team holds --creates environments
// (the records and summary seeded in bulk as the repository writes them), FOLD_AT and a half more of
// them, so that one of them folds the summary's delta into it; then that team's first list page.
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import type { Db } from 'mongodb'
import { entryOf } from '../../plugins/environments/summary-selection.ts'
import { FOLD_AT } from '../../plugins/environments/summary-store.ts'
import { encodeEntries } from '../../plugins/environments/summary-entries.ts'
import type { EnvironmentRecord } from '../../plugins/environments/record.ts'
import { teamOwnerKey } from '../../plugins/teams/owner-key.ts'
import { startTestApp, type TestApp } from '../../test/harness/app.ts'
import { environmentBody } from '../../test/harness/jobs.ts'
import { heldToken } from './held-token.ts'

/** Creates timed in a fresh owner (the summary small). */
const EARLY_CREATES = 10

interface Options {
  members: number
  teamEnvs: number
  creates: number
  samples: number
}

/** Median and p95 of timings in ms. */
export function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
  return { median: at(0.5), p95: at(0.95) }
}

/** Seeds documents 200 at a time (one insert of thousands outlasts the driver's socket timeout on the embedded store). */
export async function insertInBatches<T extends object>(db: Db, collection: string, docs: T[]) {
  for (let i = 0; i < docs.length; i += 200) await db.collection<T>(collection).insertMany(docs.slice(i, i + 200) as never)
}

/** Runs the section against a running test app and prints its lines. */
export async function teamScale(app: TestApp, opts: Options): Promise<void> {
  const db = app.app.mongo.db
  const tokenOf = (username: string) =>
    heldToken(() => ({
      authorization: `Bearer ${app.issuer.sign({ sub: randomUUID(), preferred_username: username, email: `${username}@example.com`, realm_access: { roles: ['user'] } })}`,
    }))
  const admin = heldToken(() => app.auth('admin'))
  const call = async (headers: () => { authorization: string }, method: string, path: string, body?: unknown) => {
    const res = await fetch(app.url + path, {
      method,
      headers: { ...headers(), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
    return text ? JSON.parse(text) : undefined
  }
  const time = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now()
    await fn()
    return performance.now() - t0
  }

  /** A team with the members (the first an editor), its id and each member's token. */
  async function team(name: string, members: number) {
    const made = await call(admin, 'POST', '/api/teams', { name })
    const tokens = []
    for (let m = 0; m < members; m++) {
      const username = `${name}-member-${m}`
      await call(admin, 'PUT', `/api/teams/${name}/members/user/${username}`, { role: m === 0 ? 'editor' : 'viewer' })
      tokens.push(tokenOf(username))
    }
    return { id: made.data.id as string, tokens }
  }

  /**
   * `count` records cloned from one the API wrote, stored under the team with its summary of them and those the API wrote (as the
   * repository writes both: a summary this large has a delta, empty once written whole).
   */
  async function seed(teamId: string, firstId: string, count: number) {
    const key = teamOwnerKey(teamId)
    const template = (await db.collection<EnvironmentRecord>('environments').findOne({ _id: firstId }))!
    const made = await db.collection<EnvironmentRecord>('environments').find({ userId: key }).toArray()
    const records: EnvironmentRecord[] = []
    for (let i = 0; i < count; i++) {
      const at = new Date(Date.now() - (i + 1) * 1000)
      records.push({ ...structuredClone(template), _id: randomUUID(), name: `seeded-${i}`, createdAt: at, updatedAt: at })
    }
    await insertInBatches(db, 'environments', records)
    const summaries = db.collection<{ _id: string; entries: string; revision: number; delta?: boolean; base?: number }>(
      'environment_summaries',
    )
    const entries = encodeEntries([...made, ...records].map(entryOf))
    const delta = made.length + records.length >= FOLD_AT
    if (delta) await summaries.replaceOne({ _id: `${key}:delta` }, { entries: '', base: 1_000, revision: 1_000 }, { upsert: true })
    await summaries.replaceOne({ _id: key }, { entries, revision: 1_000, delta }, { upsert: true })
  }

  // A team of members sharing many environments: every member's first page.
  const shared = await team('shared', opts.members)
  const first = await call(shared.tokens[0], 'POST', '/api/environments', environmentBody({ name: 'shared-first', team: 'shared' }))
  await seed(shared.id, first.data.id, opts.teamEnvs - 1)
  // Each list beside the same member's GET /api/users/me (an authenticated request that reads one
  // document by `_id`): the floor any request of theirs pays on this machine at this moment.
  const perMember: { median: number; p95: number }[] = []
  const floors: number[] = []
  for (const token of shared.tokens) {
    const samples: number[] = []
    const floor: number[] = []
    for (let i = 0; i <= opts.samples; i++) {
      const ms = await time(() => call(token, 'GET', '/api/environments?limit=20&sort=name'))
      const base = await time(() => call(token, 'GET', '/api/users/me'))
      if (i === 0) continue // the first of each: the member's caches are cold
      samples.push(ms)
      floor.push(base)
    }
    perMember.push(stats(samples))
    floors.push(stats(floor).median)
  }
  const medians = perMember.map((s) => s.median)
  const ratios = medians.map((m, i) => m / floors[i])
  console.log(
    `\na team of ${opts.members} members sharing ${opts.teamEnvs.toLocaleString('en')} environments: first page of 20 (sorted by name), ` +
      `median per member ${Math.min(...medians).toFixed(1)}-${Math.max(...medians).toFixed(1)} ms, ` +
      `worst p95 ${Math.max(...perMember.map((s) => s.p95)).toFixed(1)} ms (aim: median <= 20 for every member); ` +
      `against the same member's GET /api/users/me (${Math.min(...floors).toFixed(1)}-${Math.max(...floors).toFixed(1)} ms): ` +
      `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x`,
  )

  // Creating as the owner's count grows: the 1st create of a fresh team, then creates at --creates.
  const grown = await team('grown', 1)
  const early: number[] = []
  for (let i = 0; i < EARLY_CREATES; i++) {
    early.push(await time(() => call(grown.tokens[0], 'POST', '/api/environments', environmentBody({ name: `grown-${i}`, team: 'grown' }))))
  }
  const firstId = (await call(grown.tokens[0], 'GET', '/api/environments?limit=1')).data[0].id
  await seed(grown.id, firstId, opts.creates - EARLY_CREATES - 1)
  const later: number[] = []
  for (let i = 0; i < FOLD_AT * 1.5; i++) {
    later.push(
      await time(() => call(grown.tokens[0], 'POST', '/api/environments', environmentBody({ name: `grown-late-${i}`, team: 'grown' }))),
    )
  }
  const { median, p95 } = stats(later)
  console.log(
    `creating an environment: the first ${EARLY_CREATES} of its owner, median ${stats(early).median.toFixed(1)} ms; the ${opts.creates.toLocaleString('en')}th and the next ` +
      `${later.length - 1}, median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...later).toFixed(1)} ms ` +
      `(one in ${FOLD_AT} folds the summary's delta into it)`,
  )
  const listed: number[] = []
  for (let i = 0; i <= opts.samples; i++) {
    const ms = await time(() => call(grown.tokens[0], 'GET', '/api/environments?limit=20&sort=name'))
    if (i > 0) listed.push(ms)
  }
  console.log(
    `then that owner's first page of 20 (sorted by name, ${FOLD_AT / 2 - 1} changes in the delta): ` +
      `median ${stats(listed).median.toFixed(1)} ms, p95 ${stats(listed).p95.toFixed(1)} ms`,
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      members: { type: 'string', default: '20' },
      'team-envs': { type: 'string', default: '5000' },
      creates: { type: 'string', default: '10000' },
      samples: { type: 'string', default: '30' },
    },
  })
  const teardowns: (() => unknown)[] = []
  try {
    const app = await startTestApp({ teardown: (fn) => teardowns.push(fn) })
    await teamScale(app, {
      members: Number(values.members),
      teamEnvs: Number(values['team-envs']),
      creates: Number(values.creates),
      samples: Number(values.samples),
    })
  } finally {
    for (const fn of teardowns.reverse()) await Promise.resolve(fn()).catch(() => {})
  }
}
