// `npm test`: installs what the tests need beyond npm packages (scripts/provision.sh: quick when
// all is there), runs every tap test (or the files given: `npm test -- test/server/auth.test.ts`),
// then prints one plain summary line, "tests: N passed, N failed, N skipped", and exits non-zero
// when anything failed or nothing ran.
import { spawn, spawnSync } from 'node:child_process'

const provisioned = spawnSync('bash', ['scripts/provision.sh'], { stdio: 'inherit' })
if (provisioned.status !== 0) {
  console.error('scripts/provision.sh failed: the tests need the tools it installs')
  process.exit(1)
}

const args = process.argv.slice(2)
const tap = spawn('npx', ['tap', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
let tail = ''
tap.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString()).slice(-2000)
})
tap.on('close', (code) => {
  const summary = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?(?:, skip: (\d+))?(?:, todo: \d+)? \}/.exec(tail)
  const total = Number(summary?.[1] ?? 0)
  const passed = Number(summary?.[2] ?? 0)
  const failed = Number(summary?.[3] ?? 0)
  const skipped = Number(summary?.[4] ?? 0)
  console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
  if (total === 0) console.error('no test ran')
  process.exit(code !== 0 || failed > 0 || total === 0 ? 1 : 0)
})
