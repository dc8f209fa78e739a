/**
 * Benchmark: processing a realistic templates tree against a plain copy of the same tree (read +
 * write every file), side by side in one run. Uses the real `templates/` when it holds files,
 * else a generated tree of a few hundred files. Prints medians of N runs and the ratio. Not a test.
 *
 *   npx tsx scripts/bench/processor.ts [runs=30]        (BENCH_GENERATED=1 forces the generated tree)
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { listTree, processTree, writeTree } from '@ies/processor-lib'

const runs = Number(process.argv[2] ?? 30)
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

async function generatedTree(dir: string): Promise<void> {
  const write = async (p: string, c: string) => {
    await mkdir(dirname(join(dir, p)), { recursive: true })
    await writeFile(join(dir, p), c)
  }
  const services = [
    'aurora',
    'cloudfront',
    'ecr',
    'eks',
    'elasticache',
    'lambda',
    'msk',
    'opensearch',
    'rds',
    'route53',
    's3',
    'sns',
    'sqs',
    'vpc',
    'waf',
  ]
  let tfvars = '# @param name | displayName=Name\nname = "demo"\n# @param region\nregion = "us-east-1"\n'
  for (const s of services) {
    tfvars += `# @module services.${s} | displayName=${s}\n# @param services.${s}.enabled | type=toggle\n${s}_enabled = true\n`
    for (let m = 0; m < 6; m++) {
      const body = Array.from({ length: 40 }, (_, i) =>
        i % 5 === 0 ? `  # @param services.${s}.enabled\n  flag_${i} = true` : `  attr_${i} = "value-${i}" # comment`,
      ).join('\n')
      await write(
        `terraform/modules/${s}/m${m}.tf`,
        `# @section services.${s}.enabled begin\nresource "x" "${s}_${m}" {\n${body}\n}\n# @section services.${s}.enabled end\n`,
      )
      const values = Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0 ? `# @param services.${s}.enabled\nkey${i}: true` : `key${i}: value-${i}`,
      ).join('\n')
      await write(`gitops/${s}/values-${m}.yaml`, values + '\n')
    }
    await write(`docs/${s}.md`, `# ${s}\n`.repeat(50))
  }
  await write('terraform/terraform.tfvars', tfvars)
}

async function main(): Promise<void> {
  const real = join(repo, 'templates')
  const hasReal = process.env.BENCH_GENERATED !== '1' && (await listTree(real).catch(() => ({ files: [] as string[] }))).files.length > 0
  let source = real
  const scratch = await mkdtemp(join(tmpdir(), 'ies-bench-'))
  if (!hasReal) {
    source = join(scratch, 'tree')
    await generatedTree(source)
  }
  const { files } = await listTree(source)
  const config = {
    name: 'bench',
    globalPrefix: 'b',
    provider: 'aws',
    region: 'eu-west-1',
    domain: '',
    services: Object.fromEntries(
      [
        'aurora',
        'cloudfront',
        'ecr',
        'eks',
        'elasticache',
        'lambda',
        'msk',
        'opensearch',
        'rds',
        'route53',
        's3',
        'sns',
        'sqs',
        'vpc',
        'waf',
      ].map((s, i) => [s, { enabled: i % 2 === 0 }]),
    ),
    terraformBackend: { bucket: 'b', key: 'k', region: 'eu-west-1', useLockfile: true },
    gitRepository: { url: 'https://git.example.invalid/x.git', branch: 'main', branches: ['main'] },
  }

  const copy = async (out: string) => {
    const contents = await Promise.all(files.map((p) => readFile(join(source, p))))
    const dirs = new Set(files.map((p) => dirname(join(out, p))))
    await Promise.all([...dirs].map((d) => mkdir(d, { recursive: true })))
    await Promise.all(files.map((p, i) => writeFile(join(out, p), contents[i])))
  }
  const processAndWrite = async (out: string) => {
    const r = await processTree({ templatesDir: source, config })
    if (!r.ok) throw new Error(`processing refused: ${r.refused.join(', ')}`)
    await writeTree(out, r.files)
  }
  const processInMemory = async () => {
    await processTree({ templatesDir: source, config })
  }

  const time = async (fn: (out: string) => Promise<void>, label: string, i: number) => {
    const out = join(scratch, `${label}-${i}`)
    const t0 = performance.now()
    await fn(out)
    const ms = performance.now() - t0
    await rm(out, { recursive: true, force: true })
    return ms
  }
  const samples: Record<string, number[]> = { copy: [], process: [], memory: [] }
  for (let i = 0; i < 3; i++) {
    await time(copy, 'warm-copy', i)
    await time(processAndWrite, 'warm-proc', i)
  }
  for (let i = 0; i < runs; i++) {
    samples.copy.push(await time(copy, 'copy', i))
    samples.process.push(await time(processAndWrite, 'proc', i))
    samples.memory.push(await time(() => processInMemory(), 'mem', i))
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const copyMs = median(samples.copy)
  const rows = [
    ['plain copy (read + write)', copyMs],
    ['process + write', median(samples.process)],
    ['process in memory (read only)', median(samples.memory)],
  ] as const
  console.log(`tree: ${hasReal ? 'templates/' : 'generated'} (${files.length} files), ${runs} runs each, medians`)
  console.log('| run | median ms | ratio to copy |')
  console.log('|---|---:|---:|')
  for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(2)} | ${(ms / copyMs).toFixed(2)}x |`)
  await rm(scratch, { recursive: true, force: true })
}

await main()
