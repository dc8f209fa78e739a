// The compiled rules, loaded once into OPA's WebAssembly runtime (@open-policy-agent/opa-wasm) and
// evaluated in process: one synchronous call per configuration, no server, no request per rule.
import type { LoadedPolicy } from '@open-policy-agent/opa-wasm'
import type { PolicyResult, PolicyViolation } from '@ies/api/schemas/policies'
import { ENTRYPOINT } from './bundle.ts'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v))

/** One finding as the entry point gives it (ies.rego), read defensively: a rule is the operator's code. */
function violationOf(found: unknown): PolicyViolation | null {
  if (!isObject(found)) return null
  const field = text(found.field)
  const more = Array.isArray(found.fields) ? found.fields.map(text) : []
  const fields = [...new Set([field, ...more].filter((f) => f !== ''))]
  const level = found.level === 'deny' ? 'deny' : 'warn'
  return { rule: text(found.rule), level, field, fields, message: text(found.message) || `rule ${text(found.rule)}` }
}

const order = (a: PolicyViolation, b: PolicyViolation) =>
  a.rule.localeCompare(b.rule) || a.field.localeCompare(b.field) || a.message.localeCompare(b.message)

export class PolicyEvaluator {
  private constructor(private readonly policy: LoadedPolicy) {}

  static async load(wasm: Uint8Array): Promise<PolicyEvaluator> {
    const { loadPolicy } = await import('@open-policy-agent/opa-wasm')
    return new PolicyEvaluator(await loadPolicy(wasm))
  }

  /** What the rules say of `input` (`{ environment, plan? }`), denials and warnings, in rule order. */
  evaluate(input: object): PolicyResult {
    const answer = this.policy.evaluate(input, ENTRYPOINT) as Array<{ result?: unknown }> | undefined
    const found = answer?.[0]?.result
    const violations = (Array.isArray(found) ? found : []).map(violationOf).filter((v): v is PolicyViolation => v !== null)
    violations.sort(order)
    return { deny: violations.filter((v) => v.level === 'deny'), warn: violations.filter((v) => v.level === 'warn') }
  }
}
