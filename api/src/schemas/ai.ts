// POST /api/ai/chat: request and answer (the one source for validation, types and the OpenAPI document).
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'

export const MAX_MESSAGES = 40
export const MAX_MESSAGE_LENGTH = 8000

export const ChatMessage = Type.Object(
  {
    /** The conversation so far; the client cannot send `system` messages. */
    role: StringEnum(['user', 'assistant'] as const),
    content: Type.String({ maxLength: MAX_MESSAGE_LENGTH }),
  },
  { additionalProperties: false },
)

/** Any JSON scalar or list a wizard field may hold; the assistant checks it against the catalog itself. */
const DraftValue = Type.Unknown()

/**
 * The wizard's current values. Only these members are read; anything else (credentials, deploy keys,
 * chart values) is removed before the handler sees it, so it never reaches the assistant.
 */
export const Draft = Type.Object(
  {
    name: Type.Optional(DraftValue),
    globalPrefix: Type.Optional(DraftValue),
    provider: Type.Optional(DraftValue),
    region: Type.Optional(DraftValue),
    domain: Type.Optional(DraftValue),
    /** The environment's labels (`tier`: which of the organisation's rules apply). */
    labels: Type.Optional(Type.Record(Type.String({ maxLength: 63 }), Type.String({ maxLength: 63 }), { maxProperties: 20 })),
    /** The team it is (or goes) in. */
    team: Type.Optional(Type.String({ maxLength: 64 })),
    services: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Record(Type.String({ maxLength: 64 }), DraftValue), { maxProperties: 100 }),
    ),
  },
  { additionalProperties: false },
)
export type Draft = Static<typeof Draft>

export const ChatRequest = Type.Object(
  {
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: MAX_MESSAGES }),
    environmentId: Type.Optional(Type.String({ format: 'uuid' })),
    draft: Type.Optional(Draft),
  },
  { additionalProperties: false },
)
export type ChatRequest = Static<typeof ChatRequest>

export const Suggestion = Type.Object({
  /** A catalog path: `name`, `globalPrefix`, `region`, `domain` or `services.<key>.<field>`. */
  path: Type.String(),
  /** A value that passes the field's type, options and pattern. */
  value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
  reason: Type.String(),
})

export const ChatReply = Type.Object({
  message: Type.Object({ role: Type.Literal('assistant'), content: Type.String() }),
  suggestions: Type.Array(Suggestion),
})
export type ChatReply = Static<typeof ChatReply>
