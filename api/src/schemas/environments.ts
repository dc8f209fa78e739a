// The environment resource: the one source for validation, TypeScript types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox'
import { PageQuery } from '../envelope.ts'
import { StringEnum } from '../string-enum.ts'
import { ENVIRONMENT_STATUSES, PROVIDERS, TIERS } from '../values.ts'
import { Behind, LastPush } from './push.ts'
import { PolicyWarnings } from './policies.ts'
import { LastDrift } from './plans.ts'
import { Role, TeamName } from './teams.ts'

export { ENVIRONMENT_STATUSES }

/**
 * Caps on the size of one environment, far above what a real configuration needs; the server
 * refuses a body over them before walking it (plugins/environments/limits.ts).
 */
export const MAX_SERVICES = 100
export const MAX_SERVICE_FIELDS = 100
export const MAX_HELM_CHARTS = 50

/**
 * A deploy key is the Basic-auth password of an HTTPS push, so an access token: no whitespace, at
 * most this many characters. A PEM private key (an SSH deploy key) is stored too, but a push with it
 * fails with a clear error (server/src/jobs/push/deploy-key.ts).
 */
export const ACCESS_TOKEN_MAX_LENGTH = 4096
/** How a PEM private key begins. */
export const PEM_PRIVATE_KEY = '-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----'
/** The JSON Schema pattern of a deploy key: a PEM private key or an access token. */
export const DEPLOY_KEY_PATTERN = `^(?:${PEM_PRIVATE_KEY}[\\s\\S]*|\\S{1,${ACCESS_TOKEN_MAX_LENGTH}})$`

export const Provider = StringEnum(PROVIDERS)

/** 3–50 characters: the spec's pattern (3–63) and its 2–50 bound together. */
export const Name = Type.String({ pattern: '^[a-z][a-z0-9-]{2,62}$', maxLength: 50 })

/**
 * 2–20 characters, a lowercase letter first, no trailing or doubled hyphen. Twenty leaves room for
 * the suffixes added to the shortest AWS names (load balancers and target groups allow 32).
 */
export const GLOBAL_PREFIX_MAX = 20
export const GlobalPrefix = Type.String({
  pattern: '^(?!.*--)[a-z][a-z0-9-]*[a-z0-9]$',
  minLength: 2,
  maxLength: GLOBAL_PREFIX_MAX,
})

export const Region = Type.String({ pattern: '^[a-z0-9-]+$', minLength: 1, maxLength: 32 })

/** DNS labels (at least two), an alphabetic TLD, at most 253 characters; `""` means no domain. */
export const Domain = Type.String({
  pattern: '^$|^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$',
  maxLength: 253,
  default: '',
})

/** Keys that are safe as stored field names (no `.`, no leading `$`). */
const KEY = '^[A-Za-z][A-Za-z0-9_-]{0,62}$'

/** A catalog field's value: the wizard's widgets are text, toggle, dropdown and number. */
const ServiceValue = Type.Unsafe<string | number | boolean | Array<string | number | boolean>>({
  type: ['string', 'number', 'boolean', 'array'],
  items: { type: ['string', 'number', 'boolean'] },
})

export const Service = Type.Object(
  { enabled: Type.Boolean() },
  { additionalProperties: ServiceValue, propertyNames: { pattern: KEY }, maxProperties: MAX_SERVICE_FIELDS },
)

/**
 * Keyed by catalog service key; a key the catalog does not know is stored and generates nothing. The
 * shapes only: the values a write sets are checked against the current catalog (types, options,
 * patterns) by catalog-check.ts, on the body as sent.
 */
export const Services = Type.Record(Type.String(), Service, { propertyNames: { pattern: KEY }, maxProperties: MAX_SERVICES, default: {} })

export const HelmChart = Type.Object(
  {
    enabled: Type.Boolean(),
    customValues: Type.Boolean({ default: false }),
    /** YAML text; it must parse. */
    values: Type.String({ default: '', maxLength: 256 * 1024 }),
  },
  { additionalProperties: false },
)

export const HelmCharts = Type.Record(Type.String(), HelmChart, {
  propertyNames: { pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
  maxProperties: MAX_HELM_CHARTS,
  default: {},
})

/** At most this many labels on one environment. */
export const MAX_LABELS = 20
/** A label's key: a lowercase letter first, then lowercase letters, digits, `.`, `_`, `-`. */
export const LABEL_KEY_PATTERN = '^[a-z][a-z0-9._-]{0,62}$'
/** A label's value: letters, digits, `.`, `_`, `-`, beginning and ending with a letter or digit. */
export const LABEL_VALUE_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$'
const LabelValue = Type.String({ pattern: LABEL_VALUE_PATTERN, maxLength: 63 })

/**
 * Labels: short key-value pairs that say what an environment is, shown in lists, filtered on
 * (`?label=tier=production`) and read by the organisation's rules (docs/policies.md). `tier` is one
 * of `production`, `staging`, `development`; any other key is free.
 */
export const Labels = Type.Object(
  { tier: Type.Optional(StringEnum(TIERS)) },
  { additionalProperties: LabelValue, propertyNames: { pattern: LABEL_KEY_PATTERN }, maxProperties: MAX_LABELS },
)
export type Labels = Static<typeof Labels>

export const TerraformBackend = Type.Object(
  {
    bucket: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    useLockfile: Type.Optional(Type.Boolean()),
    region: Type.Optional(Region),
  },
  { additionalProperties: false },
)

const Branch = Type.String({ pattern: '^(?!/|.*\\.\\.|.*//)[A-Za-z0-9._/-]+$', maxLength: 255 })

const GitRepositoryFields = {
  /** `https://`; `http://` only to a host in PUSH_ALLOWED_HOSTS (rules.ts). */
  url: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 }),
  branch: Type.Optional(Branch),
  branches: Type.Optional(Type.Array(Branch, { maxItems: 100 })),
}

/**
 * Write-only: stored encrypted, never returned. An access token (no whitespace, at most 4096
 * characters: the HTTPS push credential) or a PEM private key (stored, but a push with it fails).
 */
export const DeployKey = Type.String({
  pattern: DEPLOY_KEY_PATTERN,
  minLength: 1,
  maxLength: 16 * 1024,
})

export const GitRepositoryInput = Type.Object(
  { ...GitRepositoryFields, deployKey: Type.Optional(DeployKey) },
  { additionalProperties: false },
)

export const GitRepository = Type.Object({ ...GitRepositoryFields, hasDeployKey: Type.Boolean() })

/** The templates version an environment is pinned to (docs/updating.md, "Pinned or following"). */
export const TemplatesPin = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$',
  minLength: 1,
  maxLength: 128,
  description:
    'Pin the environment to this templates version: a templates commit (`templatesCommit` of a generation or push) or, with a templates repository, a tag. Absent: the environment follows the newest templates.',
})

/** A drift check on a schedule (docs/plans.md, "Drift"): every this many hours; absent: only on request. */
export const DriftCheckHours = Type.Integer({
  minimum: 1,
  maximum: 720,
  description:
    'Check the environment for drift every this many hours (1 to 720; needs a state backend, a cloud credential and a Git repository). Absent: only when asked (POST /environments/:id/drift).',
})

/** Everything a caller may set; anything else (`configuration`, `status`, ids) is dropped. */
export const EnvironmentInput = Type.Object(
  {
    name: Name,
    globalPrefix: GlobalPrefix,
    provider: Provider,
    region: Region,
    domain: Type.Optional(Domain),
    labels: Type.Optional(Labels),
    services: Type.Optional(Services),
    helmCharts: Type.Optional(HelmCharts),
    terraformBackend: Type.Optional(TerraformBackend),
    gitRepository: Type.Optional(GitRepositoryInput),
    cloudCredentialId: Type.Optional(Type.String({ format: 'uuid' })),
    /**
     * The team the environment belongs to (docs/teams.md); absent: the caller's own. Set at creation
     * by an editor of the team; a PUT naming another team (or `null`: the caller's own) moves it.
     */
    team: Type.Optional(TeamName),
    templatesPin: Type.Optional(TemplatesPin),
    driftCheckHours: Type.Optional(DriftCheckHours),
  },
  { additionalProperties: false },
)
export type EnvironmentInput = Static<typeof EnvironmentInput>

/**
 * PUT body: a JSON Merge Patch (RFC 7396) of `EnvironmentInput`. Omitted members are kept, objects
 * are merged, `null` removes. The merged result is validated against `EnvironmentInput`.
 */
export const EnvironmentPatch = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'JSON Merge Patch (RFC 7396) of the environment; the merged result must be a valid environment.',
  },
)

export const Environment = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  globalPrefix: Type.String(),
  provider: Provider,
  region: Type.String(),
  domain: Type.String(),
  labels: Type.Optional(Labels),
  services: Type.Record(Type.String(), Type.Object({ enabled: Type.Boolean() }, { additionalProperties: true })),
  helmCharts: Type.Record(Type.String(), HelmChart),
  terraformBackend: Type.Optional(TerraformBackend),
  gitRepository: Type.Optional(GitRepository),
  cloudCredentialId: Type.Optional(Type.String()),
  migrations: Type.Optional(Type.Array(Type.String(), { description: "The ids of the templates' migrations its configuration has run." })),
  templatesPin: Type.Optional(Type.String()),
  driftCheckHours: Type.Optional(Type.Integer()),
  status: StringEnum(ENVIRONMENT_STATUSES),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  problems: Type.Optional(
    Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
      description:
        'What the current catalog refuses in the stored values (a value no longer accepted, a relation between fields broken), each with its field; absent when there is none. Such an environment is stranded: change the values named, or let a push migrate them.',
    }),
  ),
  /** The team it belongs to; absent for a personal environment. */
  team: Type.Optional(TeamName),
  /** The caller's role on it: `owner` of a personal environment, else their role in its team. */
  role: Type.Optional(Type.Union([Role, Type.Literal('owner')])),
  // The generated repository's lifecycle (server/src/jobs/push/push-records.ts): served by GET /:id, create and update.
  lastPush: Type.Optional(Type.Union([LastPush, Type.Null()])),
  behind: Type.Optional(Behind),
  /** The organisation's rules' warnings on the environment (served one at a time: GET, create, update, restore); absent: none. */
  warnings: Type.Optional(PolicyWarnings),
  drift: Type.Optional(Type.Union([LastDrift, Type.Null()])),
})
export type Environment = Static<typeof Environment>

export const EnvironmentSummary = Type.Pick(Environment, [
  'id',
  'name',
  'provider',
  'region',
  'labels',
  'status',
  'createdAt',
  'updatedAt',
  'problems',
  'team',
  'role',
])

const SELECTOR = `[a-z][a-z0-9._-]{0,62}(?:=[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?`
/** A list's label filter: `key=value` or `key` (has the label), comma-separated, all must match. */
export const LABEL_SELECTOR_PATTERN = `^${SELECTOR}(?:,${SELECTOR})*$`

/** The label selector of a list query as pairs; `value` undefined: the label is present. */
export function parseLabelSelector(selector: string): Array<{ key: string; value?: string }> {
  return selector.split(',').map((part) => {
    const at = part.indexOf('=')
    return at < 0 ? { key: part } : { key: part.slice(0, at), value: part.slice(at + 1) }
  })
}

export const SORTS = { created_at: 'createdAt', name: 'name' } as const

export const ListQuery = Type.Object(
  {
    ...PageQuery,
    provider: Type.Optional(Provider),
    status: Type.Optional(StringEnum(ENVIRONMENT_STATUSES)),
    sort: Type.Optional(StringEnum(['created_at', 'name'] as const)),
    order: Type.Optional(StringEnum(['asc', 'desc'] as const)),
    team: Type.Optional(TeamName),
    label: Type.Optional(
      Type.String({
        maxLength: 512,
        pattern: LABEL_SELECTOR_PATTERN,
        description:
          'Only environments with these labels: `key=value` or `key`, comma-separated, all must match (`tier=production,cost-centre=ops`).',
      }),
    ),
  },
  { additionalProperties: false },
)

export const IdParams = Type.Object({ id: Type.String() })
