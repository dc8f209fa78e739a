// POST /api/environments/:id/push: its body, and the push job's results as the API serves them (a
// push, a dry run, the conflict details of PUSH_CONFLICT); an environment's last push and what it is behind.
import { Type, type Static } from '@sinclair/typebox'
import { CONFLICT_KINDS, PUSH_STRATEGIES } from '../values.ts'
import { StringEnum } from '../string-enum.ts'
import { FormatSchema, GenerateOptions } from './generation.ts'
import { PlanResult, PlanUnavailable } from './plans.ts'

export { CONFLICT_KINDS, PUSH_STRATEGIES, type ConflictKind } from '../values.ts'

export const PushStrategySchema = StringEnum(PUSH_STRATEGIES, {
  description:
    '"merge": three-way merge onto the branch (a conflict fails the push); "branch": push the merge to a new branch ies/update-<short id>.',
})

export const ConflictHunk = Type.Object({
  line: Type.Integer({ description: 'First line of the hunk in the branch file (1-based).' }),
  ours: Type.String({ description: 'The lines as the branch has them.' }),
  base: Type.String({ description: 'The lines as the last push generated them.' }),
  theirs: Type.String({ description: 'The lines as the new generation has them.' }),
})

export const FileConflict = Type.Object({
  file: Type.String(),
  kind: StringEnum(CONFLICT_KINDS, {
    description:
      'content: both changed the same lines; deleted-in-templates: the generation dropped a file edited on the branch; deleted-in-branch: the branch deleted a file the generation changed; binary: a binary file, symbolic link or submodule both changed; file-folder: the path is a file on one side and a folder on the other (the branch keeps its version of it and all below it).',
  }),
  hunks: Type.Array(ConflictHunk),
})

export const FileChange = Type.Object({
  path: Type.String(),
  change: StringEnum(['added', 'modified', 'deleted', 'conflict'] as const),
  diff: Type.String({ description: 'Unified diff against the branch head.' }),
  truncated: Type.Boolean({ description: 'The diff was cut (at 64 KiB).' }),
})

export const ConfigurationChange = Type.Object(
  {
    migrations: Type.Array(Type.String(), { description: "The ids of the templates' migrations applied, in order." }),
    changes: Type.Array(
      Type.Object({
        field: Type.String({ description: 'The configuration path (services.eks.endpointPublicAccess).' }),
        before: Type.Optional(Type.Unknown({ description: 'Absent: the field had no value.' })),
        after: Type.Optional(Type.Unknown({ description: 'Absent: the migration removed the value.' })),
      }),
    ),
  },
  {
    description:
      "The templates' migrations the environment had not run and what they change in its stored configuration; a push stores the result, a dry run shows it.",
  },
)
export type ConfigurationChange = Static<typeof ConfigurationChange>

export const PushResult = Type.Object({
  commit: Type.String({ description: 'The commit the pushed branch points at after the push.' }),
  branch: Type.String({ description: 'The branch pushed to: the environment\'s, or the new branch for strategy "branch".' }),
  url: Type.String(),
  strategy: PushStrategySchema,
  changed: Type.Boolean({ description: 'False when the branch already held exactly this merge (nothing pushed).' }),
  templatesCommit: Type.String(),
  fileCount: Type.Integer(),
  generationJobId: Type.Optional(Type.String()),
  conflicts: Type.Optional(Type.Array(FileConflict, { description: 'Strategy "branch": the files pushed with conflict markers.' })),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'What went wrong without failing the push.' })),
  configurationChange: Type.Optional(ConfigurationChange),
  plan: Type.Optional(PlanResult),
})
export type PushJobResult = Static<typeof PushResult>

export const DryRunResult = Type.Object({
  dryRun: Type.Literal(true),
  branch: Type.String(),
  strategy: PushStrategySchema,
  templatesCommit: Type.String(),
  changes: Type.Array(FileChange),
  conflicts: Type.Array(FileConflict),
  generationJobId: Type.Optional(Type.String()),
  configurationChange: Type.Optional(ConfigurationChange),
  plan: Type.Optional(
    Type.Union([PlanResult, PlanUnavailable], {
      description: 'With plan: true: the Terraform plan of the merged tree, or why there is none.',
    }),
  ),
})
export type DryRunResult = Static<typeof DryRunResult>

export const LastPush = Type.Object(
  {
    jobId: Type.String(),
    commit: Type.String(),
    branch: Type.String(),
    templatesCommit: Type.String(),
    pushedAt: Type.String({ format: 'date-time' }),
  },
  { description: "The last push to the environment's branch." },
)
export type LastPush = Static<typeof LastPush>

export const Behind = Type.Object(
  {
    templates: Type.Boolean({
      description: 'The newest templates commit differs from the version the environment uses: its templatesPin, else the one last pushed.',
    }),
    configuration: Type.Boolean({ description: 'The environment changed since the last push.' }),
    commits: Type.Optional(
      Type.Integer({
        description:
          'How many commits of the templates repository the version the environment uses (its templatesPin, else its last push) is behind the newest.',
      }),
    ),
  },
  { description: 'What the environment is behind since its last push (both false before the first push).' },
)
export type Behind = Static<typeof Behind>

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
    plan: Type.Optional(Type.Boolean({ description: 'With dryRun: plan the tree the push would write too (result.plan; docs/plans.md).' })),
    confirmDestroy: Type.Optional(
      Type.Array(Type.String({ maxLength: 500 }), {
        maxItems: 200,
        description:
          'The data-holding resources the push may replace or destroy: exactly the addresses its plan names (PUSH_WOULD_DESTROY_DATA).',
      }),
    ),
  },
  { additionalProperties: false },
)
export type PushBody = Static<typeof PushBody>

/** What a push generates when the body names neither a generation job nor options: the full repository. */
export const PUSH_DEFAULTS = { format: 'terraform', options: { includeBackend: true, includeChart: true, includeGitops: true } } as const
