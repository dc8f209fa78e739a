// What the templates' ignore file and the environment diagram add to processing the bundled tree:
// processFiles over the tree as read (the ignore file compiled and the catalog read once, as a
// templates source hands the same buffers to every generation), over fresh copies of those two files
// each time (a tree just changed), and over the same inputs without `.iesignore` and with the README's
// diagram marker removed (nothing to ignore, nothing to draw). Not a test.
//   npx tsx scripts/bench/template-output.ts [rounds]
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { processFiles, readTree, type InputFile } from '@ies/processor-lib'
import { DIAGRAM_MARKER } from '@ies/processor-lib/readme-diagram'
import { IGNORE_FILE } from '@ies/processor-lib/template-ignore'

const TEMPLATES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates')
const rounds = Number(process.argv[2] ?? 200)
const config = {
  name: 'shop',
  globalPrefix: 'acme',
  provider: 'aws',
  region: 'eu-west-1',
  domain: '',
  services: { eks: { enabled: true } },
}

const { inputs } = await readTree(TEMPLATES)
const plain: InputFile[] = inputs
  .filter((f) => f.path !== IGNORE_FILE)
  .map((f) =>
    f.path === 'terraform/README.md' ? { ...f, content: Buffer.from(f.content.toString('utf8').replace(DIAGRAM_MARKER, '')) } : f,
  )

function median(run: () => void): number {
  const times: number[] = []
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    run()
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]
}

for (let i = 0; i < 20; i++) processFiles(inputs, config) // warm up
const withBoth = median(() => processFiles(inputs, config))
const fresh = () =>
  inputs.map((f) => (f.path === IGNORE_FILE || f.path === 'terraform/terraform.tfvars' ? { ...f, content: Buffer.from(f.content) } : f))
const changed = median(() => processFiles(fresh(), config))
const without = median(() => processFiles(plain, config))
console.log(`processFiles, ${inputs.length} files, median of ${rounds}:`)
console.log(`  with .iesignore and the diagram: ${withBoth.toFixed(2)} ms`)
console.log(`  the same, tree just changed:     ${changed.toFixed(2)} ms`)
console.log(`  without either:                  ${without.toFixed(2)} ms`)
console.log(`  difference:                      ${(withBoth - without).toFixed(2)} ms`)
