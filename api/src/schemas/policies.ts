// The organisation's rules (docs/policies.md): what an evaluation answers, and the body of
// POST /policies/evaluate. The rules themselves are Rego, evaluated by the server.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'
import { POLICY_LEVELS } from '../values.ts'

/** One finding of a rule: `deny` refuses the write or push, `warn` is accepted and reported. */
export const PolicyViolation = Type.Object({
  /** The rule's name: the last part of its Rego package (`ies.rules.rds_multi_az`). */
  rule: Type.String(),
  level: StringEnum(POLICY_LEVELS),
  /** The configuration path it concerns (`services.rds.multiAz`); `""`: the whole environment. */
  field: Type.String(),
  /** Every path it concerns, `field` first. */
  fields: Type.Array(Type.String()),
  message: Type.String(),
})
export type PolicyViolation = Static<typeof PolicyViolation>

export const PolicyWarnings = Type.Array(PolicyViolation, {
  description: "The organisation's rules' warnings on the environment as written (accepted; docs/policies.md).",
})

export const PolicyResult = Type.Object({
  deny: Type.Array(PolicyViolation),
  warn: Type.Array(PolicyViolation),
})
export type PolicyResult = Static<typeof PolicyResult>

/** What to evaluate: an environment as a create body (the wizard's draft, a file). Nothing is stored. */
export const EvaluateBody = Type.Object(
  {
    environment: Type.Object(
      {},
      { additionalProperties: true, description: 'An environment as a create body; `team` names the team it is (or goes) in.' },
    ),
  },
  { additionalProperties: false },
)
export type EvaluateBody = Static<typeof EvaluateBody>

/** The details of a POLICY_DENIED error: one per denial, its field, its rule, every field it concerns, its message. */
export const deniedDetails = (deny: PolicyViolation[]) =>
  deny.map((v) => ({ field: v.field, rule: v.rule, fields: v.fields, message: v.message }))

/** A denial in one line: `rule (field): message`. */
export const violationLine = (v: Pick<PolicyViolation, 'rule' | 'field' | 'message'>) =>
  `${v.rule}${v.field ? ` (${v.field})` : ''}: ${v.message}`
