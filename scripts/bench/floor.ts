// The in-process floor of one generation (no queue, no database, no HTTP): what the server's job does
// between reading the environment and storing the archive, with the same code (generation.ts): the
// templates check (templates.ts: the tree's fingerprint and commit, the files kept in memory),
// processing the full AWS tree with every service enabled, the backend file and generation record,
// and the checked zip. Shared by the generation and concurrency benchmarks.
import { BUNDLED_TEMPLATES_DIR } from '../../server/src/config.ts'
import { archiveOf, generate, inProcessProcessor } from '../../server/src/jobs/generation/generation.ts'
import { directorySource } from '../../server/src/templates/templates.ts'
import { processorInput, type JobEnvironment } from '../../server/src/jobs/generation/transform.ts'
import { allServicesEnabled, environmentBody } from '../../test/harness/jobs.ts'

export const FULL_TREE = { includeBackend: true, includeChart: true, includeGitops: true }

/** Milliseconds of `n` warm runs (after one warm-up). */
export async function floorSamples(n: number): Promise<number[]> {
  const services = await allServicesEnabled()
  const env = { ...environmentBody({ services }), domain: 'shop.example.com', terraformBackend: {} } as unknown as JobEnvironment
  const processor = inProcessProcessor(directorySource(BUNDLED_TEMPLATES_DIR), { trimDecoratorAttrs: false })
  const once = async () => {
    const t0 = performance.now()
    const generated = await generate({
      input: processorInput(env),
      format: 'terraform',
      options: FULL_TREE,
      processor,
      environmentId: 'floor',
    })
    await archiveOf(generated)
    return performance.now() - t0
  }
  await once()
  const samples: number[] = []
  for (let i = 0; i < n; i++) samples.push(await once())
  return samples
}
