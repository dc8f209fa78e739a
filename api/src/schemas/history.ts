// The change history of environments (README.md beside this file): the one statement of an entry's
// fields, the routes' parameters and the export's query, for validation, OpenAPI and the clients.
import { Type, type Static } from '@sinclair/typebox'
import { PageQuery } from '../envelope.ts'
import { StringEnum } from '../string-enum.ts'

/**
 * What happened. `update` changes the configuration; `credential` is an update that changed only the
 * environment's cloud credential or deploy key; `credential-rotated` is a change of the secrets of the
 * cloud credential the environment uses; `restore` sets the configuration of an earlier entry;
 * `migrate` is what a push stored after running the templates' migrations on the configuration.
 * `approval-*`: a push of a production environment waiting for a second person, and its end.
 */
export const CHANGE_KINDS = [
  'create',
  'update',
  'credential',
  'restore',
  'migrate',
  'delete',
  'generate',
  'push',
  'push-dry-run',
  'plan',
  'drift',
  'upgrade',
  'credential-rotated',
  'approval-requested',
  'approval-approved',
  'approval-rejected',
  'approval-expired',
] as const
export type ChangeKind = (typeof CHANGE_KINDS)[number]

/** The kinds that carry the configuration after them, and so can be restored. */
export const CONFIGURATION_KINDS: readonly ChangeKind[] = ['create', 'update', 'credential', 'restore', 'migrate']

export const Actor = Type.Object({
  userId: Type.String({ description: 'The IES user id of the caller (a service account has one too).' }),
  username: Type.String({ description: 'The identity provider user name; `service-account-<client>` for a client.' }),
})

/** One field a change set: its dotted path, and the values before and after (absent: not set). */
export const FieldChange = Type.Object({
  field: Type.String(),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
})
export type FieldChange = Static<typeof FieldChange>

/**
 * The environment's configuration as responses show it (secrets masked the same way:
 * `gitRepository.hasDeployKey`, never the key): every member a caller sets.
 */
export const Configuration = Type.Record(Type.String(), Type.Unknown())
export type Configuration = Static<typeof Configuration>

const EntryFields = {
  id: Type.Integer({ minimum: 1, description: 'The entry number within its environment: 1 for the first, +1 for each.' }),
  environmentId: Type.String(),
  environmentName: Type.String(),
  kind: StringEnum(CHANGE_KINDS),
  at: Type.String({ format: 'date-time' }),
  actor: Actor,
  requestId: Type.String(),
  jobId: Type.Optional(Type.String({ description: 'The job a generation, push or upgrade queued.' })),
  changes: Type.Optional(Type.Array(FieldChange, { description: 'The configuration diff of a create, update or restore.' })),
  secretsChanged: Type.Optional(
    Type.Array(Type.String(), { description: 'Secret fields the change set or removed (their values are never recorded).' }),
  ),
  restoredFrom: Type.Optional(Type.Integer({ description: 'The entry a restore took its configuration from.' })),
  credentialId: Type.Optional(Type.String({ description: 'The cloud credential whose secrets were changed.' })),
  plan: Type.Optional(
    Type.String({
      description: 'A plan or drift check: its summary ("0 to add, 1 to change, 0 to destroy"; drift: how many resources differ).',
    }),
  ),
  error: Type.Optional(
    Type.Object(
      { code: Type.String(), message: Type.String() },
      { description: "A plan or drift check that failed: the job's error code and message (secrets removed), instead of `plan`." },
    ),
  ),
}

/** An entry as `GET …/history` lists it. */
export const HistoryEntry = Type.Object(EntryFields)
export type HistoryEntry = Static<typeof HistoryEntry>

/** An entry with the configuration after it (changes of the configuration only): one entry, and the export. */
export const HistoryEntryDetail = Type.Object({ ...EntryFields, configuration: Type.Optional(Configuration) })
export type HistoryEntryDetail = Static<typeof HistoryEntryDetail>

export const HistoryParams = Type.Object({ id: Type.String() })

export const EntryParams = Type.Object({
  id: Type.String(),
  entryId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
})

export const HistoryListQuery = Type.Object(PageQuery, { additionalProperties: false })

export const ExportQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'First instant included (default: the beginning).' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'First instant excluded (default: now).' })),
    environmentId: Type.Optional(Type.String({ maxLength: 64, description: 'One environment only (also a deleted one).' })),
  },
  { additionalProperties: false },
)
