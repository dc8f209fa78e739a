// What a generation format does with each option (options that contradict the
// format are shown as such), and a finished generation's result in words. The server's rules
// (server/src/jobs/generation/selection.ts): Helm values always hold the charts; Argo CD always holds the
// GitOps definitions and the charts; the state backend file exists only with the Terraform tree.
import type { GenerateFormat, GenerateRequest, Job } from '../api/types.ts'

export type OptionKey = keyof GenerateRequest['options']

export interface OptionEffect {
  /** The value the archive gets whatever the toggle says. */
  effective: boolean
  /** Why the toggle does not decide (absent when it does). */
  note?: string
}

export const FORMAT_LABELS: Record<GenerateFormat, string> = { terraform: 'Terraform', helm: 'Helm values', argocd: 'Argo CD' }

export function optionEffects(format: GenerateFormat, options: GenerateRequest['options']): Record<OptionKey, OptionEffect> {
  const name = FORMAT_LABELS[format]
  return {
    includeBackend:
      format === 'terraform'
        ? { effective: options.includeBackend }
        : { effective: false, note: `Not part of ${name}: the state backend belongs to the Terraform tree.` },
    includeChart: format === 'terraform' ? { effective: options.includeChart } : { effective: true, note: `Always part of ${name}.` },
    includeGitops: format === 'argocd' ? { effective: true, note: 'Always part of Argo CD.' } : { effective: options.includeGitops },
  }
}

export interface GenerationSummary {
  format: string
  fileCount: number | null
  size: string | null
  templatesCommit: string | null
  filename: string | null
  warnings: number
}

/** "1.2 MB" for a byte count. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`
  const units = ['KB', 'MB', 'GB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`
}

export function generationSummary(job: Job): GenerationSummary | null {
  if (job.status !== 'succeeded' || !job.result) return null
  const r = job.result as Record<string, any>
  return {
    format: FORMAT_LABELS[r.format as GenerateFormat] ?? String(r.format ?? ''),
    fileCount: typeof r.fileCount === 'number' ? r.fileCount : null,
    size: typeof r.archive?.size === 'number' ? formatBytes(r.archive.size) : null,
    templatesCommit: typeof r.templatesCommit === 'string' ? r.templatesCommit : null,
    filename: typeof r.archive?.filename === 'string' ? r.archive.filename : null,
    warnings: typeof r.warnings === 'number' ? r.warnings : 0,
  }
}

/** The archive of `job` is not what the form now asks for: say so next to its download button. */
export function differsFromForm(job: Job, format: GenerateFormat, options: GenerateRequest['options']): boolean {
  const r = job.result as { format?: string; options?: Record<string, boolean> } | undefined
  if (!r) return false
  if (r.format !== format) return true
  const now = optionEffects(format, options)
  const then = optionEffects(format, { includeBackend: false, includeChart: false, includeGitops: false, ...r.options })
  return (Object.keys(now) as OptionKey[]).some((k) => now[k].effective !== then[k].effective)
}
