// POST /api/environments/upgrade (bulk upgrades, in waves: a rollout), GET /api/environments/upgrades
// (what is behind) and GET /api/environments/upgrade/:id (a rollout's progress).
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'
import { Behind, LastPush, PushStrategySchema } from './push.ts'

export const UpgradeBody = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 500,
        description: 'The environments to push (each, behind or not); default: every environment of the caller that is behind.',
      }),
    ),
    names: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 500,
        description: 'The environments to push, by name (each, behind or not).',
      }),
    ),
    pattern: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'A glob on environment names (`*-dev`, `team-?-*`): the environments it matches, behind or not.',
      }),
    ),
    waves: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        minItems: 1,
        maxItems: 20,
        description:
          "Upgrade in waves, in this order: each a glob on the selected environments' names (an environment joins the first wave it matches; one matching none is skipped). Each wave is previewed (dry run), then pushed; a conflict or a failed push stops the rollout before the next wave. Answers a rollout to poll (GET /environments/upgrade/:id).",
      }),
    ),
    to: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$',
        maxLength: 128,
        description:
          'The templates version to upgrade to (a commit, or a tag of a templates repository); default the newest. The environments upgraded are pinned to it unless it is the newest and they follow.',
      }),
    ),
    dryRun: Type.Boolean({ default: false }),
    strategy: { ...PushStrategySchema, default: 'merge' },
  },
  { additionalProperties: false },
)
export type UpgradeBody = Static<typeof UpgradeBody>

export const ROLLOUT_STATUSES = ['running', 'succeeded', 'stopped'] as const
export const WAVE_STATUSES = ['pending', 'previewing', 'previewed', 'pushing', 'done', 'stopped'] as const

const Skipped = Type.Object({ environmentId: Type.String(), name: Type.Optional(Type.String()), reason: Type.String() })

export const UpgradeJobs = Type.Object({
  jobs: Type.Array(Type.Object({ environmentId: Type.String(), jobId: Type.String() })),
  skipped: Type.Array(Skipped),
  rolloutId: Type.String({ description: 'The rollout tracking these pushes (GET /environments/upgrade/:id).' }),
})

export const RolloutView = Type.Object({
  id: Type.String(),
  status: StringEnum(ROLLOUT_STATUSES),
  dryRun: Type.Boolean(),
  strategy: PushStrategySchema,
  templatesCommit: Type.String({ description: 'The templates version every push of the rollout uses.' }),
  waves: Type.Array(
    Type.Object({
      pattern: Type.String(),
      status: StringEnum(WAVE_STATUSES),
      environments: Type.Array(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          previewJobId: Type.Optional(Type.String()),
          jobId: Type.Optional(Type.String()),
          outcome: Type.Optional(StringEnum(['previewed', 'pushed', 'conflict', 'failed'] as const)),
          reason: Type.Optional(Type.String()),
          pinTo: Type.Optional(Type.String({ description: 'The templatesPin set once the push succeeds.' })),
        }),
      ),
    }),
  ),
  skipped: Type.Array(Skipped),
  stopped: Type.Optional(Type.Object({ wave: Type.Integer(), reason: Type.String() })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
})
export type RolloutView = Static<typeof RolloutView>

export const RolloutParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

/** A stored value the current catalog refuses (the environment is stranded until it is fixed). */
export const StoredValueProblem = Type.Object({ field: Type.String(), reason: Type.String() })

export const Upgradable = Type.Object({
  id: Type.String(),
  name: Type.String(),
  lastPush: LastPush,
  behind: Behind,
  templatesPin: Type.Optional(Type.String()),
  problems: Type.Array(StoredValueProblem, {
    description: 'Stored values the current catalog refuses, each with its field and reason: the bulk upgrade skips the environment.',
  }),
})
