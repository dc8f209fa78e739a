// How the command line shows a Terraform plan (ies plan, ies drift, ies push --plan): the summary
// line, then the resources grouped by action, the data-holding ones first and in red.
import type { PlanResource, PlanResult } from '@ies/api'
import type { Output } from './output.ts'

const ORDER: PlanResource['action'][] = ['delete', 'replace', 'update', 'create']
const HEADINGS: Record<string, string> = { delete: 'destroyed', replace: 'replaced', update: 'updated in place', create: 'created' }

/** "Plan: 1 to add, 0 to change, 1 to destroy (1 replaced)." and each resource below its action. */
export function printPlan(out: Output, plan: PlanResult): void {
  const s = plan.summary
  const head = plan.kind === 'drift' ? `Drift: ${plan.resources.length} resource(s) differ from the state` : 'Plan'
  out.line(
    `${head}: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy${s.replace ? ` (${s.replace} replaced)` : ''} (${plan.branch}, Terraform ${plan.terraformVersion}, ${plan.seconds} s).`,
  )
  if (plan.dataAtRisk.length > 0) {
    out.line(out.colors.red(`${plan.dataAtRisk.length} resource(s) holding data would be replaced or destroyed:`))
    for (const address of plan.dataAtRisk) out.line(out.colors.red(`  ${address}`))
  }
  for (const action of ORDER) {
    const group = plan.resources.filter((r) => r.action === action)
    if (group.length === 0) continue
    out.line(`${plan.kind === 'drift' ? (action === 'delete' ? 'gone from the cloud' : 'changed outside Terraform') : HEADINGS[action]}:`)
    for (const r of group) {
      const line = `  ${r.address}${r.holdsData ? ` (${r.dataKind ?? 'holds data'})` : ''}`
      out.line(r.holdsData && (action === 'delete' || action === 'replace') ? out.colors.red(line) : line)
      for (const a of r.attributes) out.line(out.colors.dim(`      ${a.name}: ${a.before ?? '(none)'} -> ${a.after ?? '(none)'}`))
    }
  }
}
