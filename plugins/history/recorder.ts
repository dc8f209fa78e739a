// What the routes call to record a change of an environment (`app.history.record`): who, when, the
// request, and for a change of the configuration its diff and the configuration after it, both
// taken from the environment as responses serve it (configuration.ts). A record that cannot be
// written is logged and does not fail the request: the change it describes is already stored.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { Environment } from '@ies/api/schemas/environments'
import { fieldError, notFound } from '@ies/server/core/errors'
import { configurationOf, diff, onlyCredentials, restorePatch } from './configuration.ts'
import { CONFIGURATION_KINDS, type ChangeKind, type Configuration } from '@ies/api/schemas/history'
import type { HistoryStore, NewEntry } from './store.ts'

export interface ChangeRecord {
  kind: ChangeKind
  /** The environment changed (for a create, update or restore: as served after the change). */
  environment: { id: string; name: string }
  /** A create, update or restore: the environment as served before (none for a create) and after. */
  before?: Environment
  after?: Environment
  jobId?: string
  /** Secret fields set or removed (`gitRepository.deployKey`); never their values. */
  secretsChanged?: string[]
  restoredFrom?: number
  credentialId?: string
  /** A plan or drift check: its summary line. */
  plan?: string
  /** A plan or drift check that failed: its job's error (already redacted). */
  error?: { code: string; message: string }
}

const DAY_MS = 24 * 3600_000

export class ChangeHistory {
  constructor(
    readonly store: HistoryStore,
    private readonly retentionDays: number,
  ) {}

  /** The configuration after an entry, to restore: 404 for no such entry, 400 for one that changed none. */
  async configurationAt(environmentId: string, entryId: number): Promise<Configuration> {
    const entry = await this.store.entry(environmentId, entryId)
    if (!entry) throw notFound('History entry not found')
    if (!CONFIGURATION_KINDS.includes(entry.kind) || !entry.configuration) {
      throw fieldError('entryId', `must name a change of the configuration (create, update, credential or restore), not a ${entry.kind}`)
    }
    return entry.configuration
  }

  /** The merge patch from an environment's input document to a configuration (configuration.ts). */
  restorePatch(current: Record<string, unknown>, target: Configuration): Record<string, unknown> {
    return restorePatch(current, target)
  }

  /** Records one change made by `request`'s caller; a change that changed nothing is not recorded. */
  async record(request: FastifyRequest, change: ChangeRecord): Promise<void> {
    const { principal } = request
    await this.append(entryOf({ userId: principal.userId, username: principal.username }, request.id, change), request.log)
  }

  /**
   * Records a change a job made on behalf of `actor` (the templates' migrations stored by a push):
   * the job's id stands for the request.
   */
  async recordJobChange(actor: Actor, jobId: string, change: ChangeRecord, log: FastifyBaseLogger): Promise<void> {
    await this.append(entryOf(actor, jobId, { ...change, jobId }), log)
  }

  private async append(entry: NewEntry | null, log: FastifyBaseLogger): Promise<void> {
    if (!entry) return
    const retainUntil = entry.kind === 'delete' ? new Date(entry.at.getTime() + this.retentionDays * DAY_MS) : undefined
    try {
      await this.store.append(entry, retainUntil)
    } catch (err) {
      log.error(
        { err: { message: (err as Error).message }, environmentId: entry.environmentId, kind: entry.kind },
        'history entry not recorded',
      )
    }
  }
}

type Actor = NewEntry['actor']

function entryOf(actor: Actor, requestId: string, change: ChangeRecord): NewEntry | null {
  const entry: NewEntry = {
    environmentId: change.environment.id,
    environmentName: change.environment.name,
    kind: change.kind,
    at: new Date(),
    actor,
    requestId,
    ...(change.jobId && { jobId: change.jobId }),
    ...(change.restoredFrom !== undefined && { restoredFrom: change.restoredFrom }),
    ...(change.credentialId && { credentialId: change.credentialId }),
    ...(change.plan && { plan: change.plan }),
    ...(change.error && { error: { code: change.error.code, message: change.error.message } }),
  }
  if (!change.after) return entry
  const configuration = configurationOf(change.after)
  const changes = diff(change.before ? configurationOf(change.before) : {}, configuration)
  const secretsChanged = change.secretsChanged ?? []
  if (change.kind === 'update' && changes.length === 0 && secretsChanged.length === 0) return null
  return {
    ...entry,
    kind: change.kind === 'update' && onlyCredentials(changes, secretsChanged) ? 'credential' : change.kind,
    changes,
    ...(secretsChanged.length > 0 && { secretsChanged }),
    configuration,
  }
}
