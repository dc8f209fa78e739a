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
    plan: Type.Optional(
      Type.Boolean({
        description:
          "Plan each environment's preview (dry run) too: its result carries the Terraform plan, and the rollout shows its summary and the data-holding addresses at risk. With `waves` (not a dry run), a preview whose plan replaces or destroys data that `confirmDestroy` does not confirm stops the rollout before the wave is pushed.",
      }),
    ),
    confirmDestroy: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 200 }), {
        description:
          "By environment id or name: the data-holding addresses its push may replace or destroy (exactly its plan's dataAtRisk, as for a push). Any other environment whose push would replace or destroy data is refused (PUSH_WOULD_DESTROY_DATA).",
      }),
    ),
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
          plan: Type.Optional(
            Type.String({
              description: 'With `plan`: the summary of its preview\'s plan ("0 to add, 1 to change, 0 to destroy"), or why there is none.',
            }),
          ),
          dataAtRisk: Type.Optional(
            Type.Array(Type.String(), { description: "With `plan`: the data-holding addresses its preview's plan replaces or destroys." }),
          ),
        }),
      ),
    }),
  ),
  skipped: Type.Array(Skipped),
  stopped: Type.Optional(Type.Object({ wave: Type.Integer(), reason: Type.String() })),
  plan: Type.Optional(Type.Boolean({ description: 'Whether the previews are planned.' })),
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
    description:
      'Stored values the current catalog refuses, each with its field and reason. The bulk upgrade skips the environment when the version it goes to refuses them after its migrations.',
  }),
})
