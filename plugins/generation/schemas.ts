// Bodies of POST /api/environments/:id/generate and /push, and the synchronous generation answer.
import { Type, type Static } from '@sinclair/typebox'
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
    dryRun: Type.Boolean({ default: false }),
    strategy: { ...PushStrategySchema, default: 'merge' },
  },
  { additionalProperties: false },
)
export type UpgradeBody = Static<typeof UpgradeBody>

export const UpgradeJobs = Type.Object({
  jobs: Type.Array(Type.Object({ environmentId: Type.String(), jobId: Type.String() })),
  skipped: Type.Array(Type.Object({ environmentId: Type.String(), reason: Type.String() })),
})

export const Upgradable = Type.Object({
  id: Type.String(),
  name: Type.String(),
  lastPush: LastPush,
  behind: Behind,
})

/** What a push generates when the body names neither a generation job nor options: the full repository. */
export const PUSH_DEFAULTS = { format: 'terraform', options: { includeBackend: true, includeChart: true, includeGitops: true } } as const
