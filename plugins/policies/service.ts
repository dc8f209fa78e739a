// Decorates `app.policies`: the organisation's rules (built-in `<TEMPLATES_DIR>/policies` and the
// folder POLICIES_DIR names), compiled once at start (bundle.ts) and evaluated in process
// (evaluator.ts) on every environment write, on the wizard's draft (POST /api/policies/evaluate)
// and before a push. Rules that do not compile stop the server's start with opa's message.
import path from 'node:path'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger } from 'fastify'
import type { TypedCatalog } from '@ies/processor-lib/contract/view'
import { deniedDetails, type PolicyResult, type PolicyViolation } from '@ies/api/schemas/policies'
import { policyDenied } from '@ies/server/core/errors'
import { policyWasm, ruleSources } from './bundle.ts'
import { PolicyEvaluator } from './evaluator.ts'
import { policyInput } from './input.ts'

type Json = Record<string, unknown>

export interface EvaluateOptions {
  /** The team the environment is (or goes) in; null: a personal one. */
  team?: string | null
  /** A plan of the change, when there is one (`input.plan`). */
  plan?: unknown
  /** The catalog whose defaults fill unset fields, when the caller has read it; else it is read here. */
  catalog?: TypedCatalog | null
  log?: FastifyBaseLogger
}

export interface Policies {
  /** The folders the rules were read from: the built-in one, then the organisation's. */
  folders: string[]
  /** What the rules say of an environment document (a create body, a merged patch or a stored record). */
  evaluate(doc: Json, opts?: EvaluateOptions): Promise<PolicyResult>
  /** `evaluate`, refusing with 400 POLICY_DENIED on any `deny`; the warnings otherwise. */
  enforce(doc: Json, opts?: EvaluateOptions): Promise<PolicyViolation[]>
}

declare module 'fastify' {
  interface FastifyInstance {
    policies: Policies
  }
}

/** The rules of no folder: a templates tree without `policies/` and no organisation folder. */
const NO_RULES = { evaluate: (): PolicyResult => ({ deny: [], warn: [] }) }

/** The folders' rules, compiled (or read from the cache) and loaded; none to apply when no folder holds a rule. */
async function loadRules(folders: string[], opaPath: string, cacheDir: string): Promise<Pick<PolicyEvaluator, 'evaluate'>> {
  const sources = await Promise.all(folders.map((folder) => ruleSources(folder)))
  if (sources.every((rules) => rules.length === 0)) return NO_RULES
  return PolicyEvaluator.load(await policyWasm(folders, opaPath, cacheDir))
}

export default fp(
  async (app) => {
    const { dir, opaPath, cacheDir } = app.config.policies
    const folders = [path.join(app.config.templates.dir, 'policies'), ...(dir ? [path.resolve(dir)] : [])]
    // Compiled (or read from the cache) and loaded beside the other plugins' start, not inside it:
    // the app is ready once it is, and does not start when the rules do not compile.
    const loading = loadRules(folders, opaPath, cacheDir)
    loading.catch(() => {}) // reported by the onReady hook below
    app.addHook('onReady', async () => {
      await loading
    })
    /** The typed catalog whose defaults fill unset fields; none when there is no usable one (logged). */
    const currentCatalog = (log: FastifyBaseLogger) =>
      app.catalog.view(log, { unavailable: 'policies: catalog unavailable; rules see the values as written' })

    async function evaluate(doc: Json, opts: EvaluateOptions = {}): Promise<PolicyResult> {
      const catalog = opts.catalog !== undefined ? opts.catalog : await currentCatalog(opts.log ?? app.log)
      return (await loading).evaluate(policyInput(doc, catalog, { team: opts.team, plan: opts.plan }))
    }

    async function enforce(doc: Json, opts: EvaluateOptions = {}): Promise<PolicyViolation[]> {
      const { deny, warn } = await evaluate(doc, opts)
      if (deny.length > 0) throw policyDenied(deniedDetails(deny))
      return warn
    }

    app.decorate('policies', { folders, evaluate, enforce })
  },
  { name: 'policies', dependencies: ['catalog'], decorators: { fastify: ['config', 'catalog'] } },
)
