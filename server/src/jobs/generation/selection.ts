// What each generation format and option puts into the archive (docs/api.md, "Jobs").
// Paths are those of the templates tree:
//   terraform/           the AWS root module and its service modules
//   .github/workflows/   the environment's own pipeline (runs Terraform)
//   charts/<chart>/      chart values files
//   gitops/              Argo CD Application definitions (chart values inlined)
import { GENERATE_FORMATS as FORMATS, type GenerateFormat as Format } from '@ies/api/values'

export { FORMATS, type Format }

export interface GenerateOptions {
  /** Write `terraform/backend.tf` (S3 state backend); only with the Terraform tree. */
  includeBackend: boolean
  /** Add the chart values files (`charts/**`). */
  includeChart: boolean
  /** Add the Argo CD Application definitions (`gitops/**`). */
  includeGitops: boolean
}

const TERRAFORM = ['terraform/', '.github/workflows/']
const CHARTS = ['charts/']
const GITOPS = ['gitops/']

/** The path prefixes a format and its options select. */
export function selectedPrefixes(format: Format, options: GenerateOptions): string[] {
  const base = format === 'terraform' ? TERRAFORM : format === 'helm' ? CHARTS : [...GITOPS, ...CHARTS]
  const prefixes = new Set(base)
  if (options.includeChart) CHARTS.forEach((p) => prefixes.add(p))
  if (options.includeGitops) GITOPS.forEach((p) => prefixes.add(p))
  return [...prefixes]
}

/** The backend file is written when asked for and the archive holds the Terraform tree. */
export function writesBackend(format: Format, options: GenerateOptions): boolean {
  return options.includeBackend && selectedPrefixes(format, options).includes('terraform/')
}

/** Chart values files form `data.helm` in the synchronous answer; everything else `data.files`. */
export function isChartFile(path: string): boolean {
  return CHARTS.some((p) => path.startsWith(p))
}
