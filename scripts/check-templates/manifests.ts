// The cluster tools' manifests of a generated tree (`gitops/*.yaml`), checked as Kubernetes reads
// them: one YAML document per file, a Kubernetes object (apiVersion, kind, metadata.name as a DNS
// subdomain, metadata.namespace as a DNS label), and an Argo CD Application as its CRD describes it
// (argo-cd v3, manifests/crds/application-crd.yaml: the required members and, like kubeconform
// -strict, no member the CRD does not know in the parts the templates write).
//
// Why not `helm template` and kubeconform here: the charts and the JSON schemas both tools read
// live on GitHub and chart repositories, which this project's machines and CI cannot reach; the
// schema below is the part of the Application CRD the templates use, in TypeBox like the API's.
import { Type, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { parseAllDocuments } from 'yaml'
import type { Finding, TreeFile } from '@ies/processor-lib'

const strict = <T extends Parameters<typeof Type.Object>[0]>(properties: T, required = true) => {
  const object = Type.Object(properties, { additionalProperties: false })
  return required ? object : Type.Optional(object)
}

const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'

/** Any Kubernetes object: the members every kind has. */
const KubernetesObject = Type.Object({
  apiVersion: Type.String({
    pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?v[0-9]+((alpha|beta)[0-9]+)?$',
  }),
  kind: Type.String({ pattern: '^[A-Z][A-Za-z0-9]*$' }),
  metadata: Type.Object({
    name: Type.String({ pattern: DNS_SUBDOMAIN, maxLength: 253 }),
    namespace: Type.Optional(Type.String({ pattern: DNS_LABEL, maxLength: 63 })),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
    finalizers: Type.Optional(Type.Array(Type.String())),
  }),
})

const Duration = Type.String({ pattern: '^[0-9]+(ms|s|m|h)$' })

/** The Application members the CRD declares (those the templates write are checked member by member). */
const ApplicationSpec = strict({
  project: Type.String({ minLength: 1 }),
  destination: Type.Union([
    strict({ server: Type.String({ minLength: 1 }), namespace: Type.Optional(Type.String({ pattern: DNS_LABEL })) }),
    strict({ name: Type.String({ minLength: 1 }), namespace: Type.Optional(Type.String({ pattern: DNS_LABEL })) }),
  ]),
  source: strict({
    repoURL: Type.String({ minLength: 1 }),
    path: Type.Optional(Type.String()),
    chart: Type.Optional(Type.String()),
    targetRevision: Type.Optional(Type.String()),
    ref: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    helm: strict(
      {
        releaseName: Type.Optional(Type.String({ pattern: DNS_LABEL, maxLength: 53 })),
        valuesObject: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        values: Type.Optional(Type.String()),
        valueFiles: Type.Optional(Type.Array(Type.String())),
        version: Type.Optional(Type.String()),
        skipCrds: Type.Optional(Type.Boolean()),
        passCredentials: Type.Optional(Type.Boolean()),
        ignoreMissingValueFiles: Type.Optional(Type.Boolean()),
        namespace: Type.Optional(Type.String()),
        kubeVersion: Type.Optional(Type.String()),
        apiVersions: Type.Optional(Type.Array(Type.String())),
        skipTests: Type.Optional(Type.Boolean()),
        skipSchemaValidation: Type.Optional(Type.Boolean()),
        parameters: Type.Optional(Type.Array(Type.Unknown())),
        fileParameters: Type.Optional(Type.Array(Type.Unknown())),
      },
      false,
    ),
    directory: Type.Optional(Type.Unknown()),
    kustomize: Type.Optional(Type.Unknown()),
    plugin: Type.Optional(Type.Unknown()),
  }),
  syncPolicy: strict(
    {
      automated: strict(
        {
          prune: Type.Optional(Type.Boolean()),
          selfHeal: Type.Optional(Type.Boolean()),
          allowEmpty: Type.Optional(Type.Boolean()),
          enabled: Type.Optional(Type.Boolean()),
        },
        false,
      ),
      syncOptions: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z]+=[^=]+$' }))),
      retry: strict(
        {
          limit: Type.Optional(Type.Integer()),
          refresh: Type.Optional(Type.Boolean()),
          backoff: strict(
            { duration: Type.Optional(Duration), factor: Type.Optional(Type.Integer()), maxDuration: Type.Optional(Duration) },
            false,
          ),
        },
        false,
      ),
      managedNamespaceMetadata: Type.Optional(Type.Unknown()),
    },
    false,
  ),
  ignoreDifferences: Type.Optional(Type.Array(Type.Unknown())),
  info: Type.Optional(Type.Array(Type.Unknown())),
  revisionHistoryLimit: Type.Optional(Type.Integer()),
})

const Application = Type.Object({
  apiVersion: Type.Literal('argoproj.io/v1alpha1'),
  kind: Type.Literal('Application'),
  spec: ApplicationSpec,
})

/** The schema errors of a value, each as `<member path>: <message>`. */
function errorsOf(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((e) => `${e.path || '/'}: ${e.message}`)
}

/** The findings of one manifest file's text (`file`: its path in the templates tree). */
export function manifestFindings(file: string, text: string): Finding[] {
  const documents = parseAllDocuments(text)
  const docs = Array.isArray(documents) ? documents : [documents]
  const say = (message: string): Finding => ({ code: 'CLUSTER_MANIFEST', severity: 'error', file, line: 0, path: null, message })
  if (docs.length !== 1) return [say(`holds ${docs.length} YAML documents; one object per file`)]
  const [doc] = docs
  if (doc.errors.length > 0) return [say(`does not parse: ${doc.errors[0].message}`)]
  const value = doc.toJS() as unknown
  const problems = errorsOf(KubernetesObject, value)
  const object = value as { apiVersion?: unknown; kind?: unknown }
  if (problems.length === 0 && object.apiVersion === 'argoproj.io/v1alpha1' && object.kind === 'Application') {
    problems.push(...errorsOf(Application, value))
  } else if (problems.length === 0) {
    problems.push(`${String(object.kind)} (${String(object.apiVersion)}) is not an Argo CD Application, the one kind gitops/ holds`)
  }
  // One finding per member: a union reports each of its branches.
  return [...new Set(problems)].map(say)
}

/** The findings of every `gitops/*.yaml` file of a generated tree. */
export function treeManifestFindings(files: readonly TreeFile[]): Finding[] {
  return files
    .filter((f) => /^gitops\/[^/]+\.ya?ml$/.test(f.path))
    .flatMap((f) => manifestFindings(f.path, typeof f.content === 'string' ? f.content : Buffer.from(f.content).toString('utf8')))
}
