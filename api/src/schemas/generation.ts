// POST /api/environments/:id/generate: its body and options, and the synchronous generation answer.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'
import { GENERATE_FORMATS } from '../values.ts'

export const FormatSchema = StringEnum(GENERATE_FORMATS)

export const GenerateOptions = Type.Object(
  {
    includeBackend: Type.Boolean({
      default: false,
      description: 'Write terraform/backend.tf (S3 state, per-environment key, use_lockfile).',
    }),
    includeChart: Type.Boolean({ default: false, description: 'Add the chart values files (charts/**).' }),
    includeGitops: Type.Boolean({ default: false, description: 'Add the Argo CD Application definitions (gitops/**).' }),
  },
  { additionalProperties: false },
)

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
