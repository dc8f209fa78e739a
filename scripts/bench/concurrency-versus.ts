// Side-by-side concurrency benchmark (not a test):
// `npx tsx scripts/bench/concurrency-versus.ts --baseline <worktree of another commit> [--level 200] [--rounds 3]`
//
// Runs concurrency.ts (`--levels <level> --history 0`) in this tree and in the baseline's worktree
// (its own node_modules: `git worktree add <dir> <commit>`, then `npm ci` there), one after the
// other, round after round, so that both sides see the same load on a shared machine. Prints each
// round's generations per second of both sides and the ratio (this tree / baseline), and the medians.
import { execFile } from 'node:child_process'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { promisify } from 'node:util'

const run = promisify(execFile)
const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    level: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
  },
})
if (!values.baseline) throw new Error('--baseline <worktree> is required')
const sides = { current: process.cwd(), baseline: path.resolve(values.baseline) }

/** Generations per second of one concurrency.ts run at the level, in the tree at `cwd`. */
async function genPerSecond(cwd: string): Promise<{ rate: number; row: string }> {
  const { stdout } = await run('npx', ['tsx', 'scripts/bench/concurrency.ts', '--levels', values.level!, '--history', '0'], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
  })
  const row = stdout.split('\n').find((line) => line.startsWith(`| ${values.level} |`))
  if (!row) throw new Error(`no row for ${values.level} concurrent in ${cwd}:\n${stdout}`)
  return { rate: Number(row.split('|')[6]), row }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const rates = { current: [] as number[], baseline: [] as number[] }
console.log(`| round | current gen/s | baseline gen/s | ratio |`)
console.log(`|---:|---:|---:|---:|`)
for (let round = 1; round <= Number(values.rounds); round++) {
  // The side that goes first alternates: neither always follows the other's leftovers.
  const order = round % 2 === 1 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const)
  const got: Partial<Record<keyof typeof sides, number>> = {}
  for (const side of order) {
    const { rate, row } = await genPerSecond(sides[side])
    console.error(`${side}: ${row}`)
    got[side] = rate
    rates[side].push(rate)
  }
  console.log(`| ${round} | ${got.current!.toFixed(1)} | ${got.baseline!.toFixed(1)} | ${(got.current! / got.baseline!).toFixed(2)} |`)
}
const [current, baseline] = [median(rates.current), median(rates.baseline)]
console.log(
  `\n${values.level} concurrent generations: median ${current.toFixed(1)} gen/s here, ${baseline.toFixed(1)} gen/s at the baseline ` +
    `(${path.basename(sides.baseline)}): ratio ${(current / baseline).toFixed(2)}`,
)
