// Bodies of POST /api/environments/:id/generate and /push, and the synchronous generation answer.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '@ies/server/core/schema'
import { FormatSchema } from '@ies/server/jobs/generation/selection'
import { Behind, LastPush, PushStrategySchema } from '@ies/server/jobs/push/push-schemas'
import { GenerateOptions } from '../jobs/schemas.ts'

export const EnvironmentParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const GenerateBody = Type.Object(
  { format: FormatSchema, options: { ...GenerateOptions, default: {} } },
  { additionalProperties: false },
)
export type GenerateBody = Static<typeof GenerateBody>

export const GenerateQuery = Type.Object({
  wait: Type.Boolean({ default: false, description: 'Wait for the job (up to JOBS_WAIT_TIMEOUT_MS) and answer 200 with the files.' }),
})

export const GeneratedFiles = Type.Object({
  jobId: Type.String(),
  templatesCommit: Type.String(),
  /** File name (path in the tree) to content, every file except the chart values files. */
  files: Type.Record(Type.String(), Type.String()),
  /** Chart values file name (charts/<chart>/values.yaml) to YAML. */
  helm: Type.Record(Type.String(), Type.String()),
})

export const PushBody = Type.Object(
  {
    format: Type.Optional(FormatSchema),
    options: Type.Optional(GenerateOptions),
    generationJobId: Type.Optional(
      Type.String({ maxLength: 64, description: 'Push the files of this successful generation job instead of generating afresh.' }),
    ),
    dryRun: Type.Boolean({
      default: false,
      description: 'Do everything but the push: the job succeeds with the changes against the branch head (result.changes).',
    }),
    strategy: { ...PushStrategySchema, default: 'merge' },
  },
  { additionalProperties: false },
)
export type PushBody = Static<typeof PushBody>

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

/** What a push generates when the body names neither a generation job nor options: the full repository. */
export const PUSH_DEFAULTS = { format: 'terraform', options: { includeBackend: true, includeChart: true, includeGitops: true } } as const
