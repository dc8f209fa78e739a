// The organisation's rules at the field, while the user edits: the draft (as the create request it
// would be, without the deploy key) is sent to POST /api/policies/evaluate a moment after the last
// change, and each rule's finding is shown at the field it names. The rules live on the server only
// (the same evaluation as the write): no copy of a rule in the browser. Findings are for the draft
// they were computed for: once the draft changes they are not shown until its own evaluation answers.
import { useEffect, useState } from 'react'
import type { ApiClient, PolicyResult, PolicyViolation } from '@ies/api'
import { toCreateRequest, type WizardValues } from './values.ts'

/** How long after the last change the draft is evaluated. */
export const POLICY_DEBOUNCE_MS = 400

export interface PolicyFindings {
  /** A denial's message by field: the write would be refused. */
  deny: Record<string, string>
  /** A warning's message by field: accepted, said. */
  warn: Record<string, string>
}

const NONE: PolicyFindings = { deny: {}, warn: {} }

/** The rules' answer for one draft (`draftForRules`). */
export interface PolicyAnswer {
  draft: string
  findings: PolicyFindings
}

/** The sentence a field shows for a rule's finding. */
export function policyMessage(v: Pick<PolicyViolation, 'rule' | 'level' | 'message'>): string {
  return v.level === 'deny' ? `Refused by the rule ${v.rule}: ${v.message}` : `Warning from the rule ${v.rule}: ${v.message}`
}

function byField(violations: PolicyViolation[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const v of violations) if (v.field && !(v.field in out)) out[v.field] = policyMessage(v)
  return out
}

/** The draft as the rules read it, as JSON: the create request without the write-only deploy key. */
export function draftForRules(values: WizardValues): string {
  const body = toCreateRequest(values) as Record<string, unknown>
  const git = body.gitRepository as Record<string, unknown> | undefined
  if (git) body.gitRepository = { ...git, deployKey: undefined }
  return JSON.stringify(body)
}

/** The answer's findings if it is for this draft; none while the draft's own evaluation has not answered. */
export function findingsFor(answer: PolicyAnswer | null, draft: string | null): PolicyFindings {
  return answer !== null && answer.draft === draft ? answer.findings : NONE
}

/** The rules' findings on the values, evaluated a moment after each change (a failed evaluation shows none). */
export function usePolicyFindings(api: ApiClient, values: WizardValues | null): PolicyFindings {
  const [answer, setAnswer] = useState<PolicyAnswer | null>(null)
  const draft = values ? draftForRules(values) : null
  useEffect(() => {
    if (draft === null) return
    let live = true
    const timer = setTimeout(() => {
      api.evaluatePolicies(JSON.parse(draft) as Record<string, unknown>).then(
        (result: PolicyResult) => live && setAnswer({ draft, findings: { deny: byField(result.deny), warn: byField(result.warn) } }),
        () => live && setAnswer({ draft, findings: NONE }),
      )
    }, POLICY_DEBOUNCE_MS)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [api, draft])
  return findingsFor(answer, draft)
}
