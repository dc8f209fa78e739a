// The in-process floor of one generation (no queue, no database, no HTTP): reading the bundled
// templates, processing the full AWS tree with every service enabled, and zipping it. Shared by the
// generation and concurrency benchmarks.
import { processFiles, readTree, zipTree } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '../../server/src/config.ts'
import { isSelected, selectedPrefixes } from '../../server/src/jobs/generation/selection.ts'
import { allServicesEnabled, environmentBody } from '../../test/jobs/fixtures.ts'

export const FULL_TREE = { includeBackend: true, includeChart: true, includeGitops: true }

/** Milliseconds of `n` warm runs (after one warm-up). */
export async function floorSamples(n: number): Promise<number[]> {
  const services = await allServicesEnabled()
  const config = {
    ...environmentBody({ services }),
    domain: 'shop.example.com',
    terraformBackend: { key: 'env/x/aws.tfstate', useLockfile: true },
  }
  const prefixes = selectedPrefixes('terraform', FULL_TREE)
  const once = async () => {
    const t0 = performance.now()
    const { inputs } = await readTree(BUNDLED_TEMPLATES_DIR)
    const result = processFiles(
      inputs.filter((f) => isSelected(f.path, prefixes)),
      config,
    )
    await zipTree(result.files)
    return performance.now() - t0
  }
  await once()
  const samples: number[] = []
  for (let i = 0; i < n; i++) samples.push(await once())
  return samples
}
