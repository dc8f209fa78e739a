// Runs the schemathesis CLI (Python, installed with `python3 -m pip install schemathesis`) against a
// listening IES server: the OpenAPI document the server serves, a bearer token, generated cases for
// every operation, and the checks for server errors and responses that break the document.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** The command that runs schemathesis here, or undefined when it is not installed. */
export function findSchemathesis(): string[] | undefined {
  for (const cmd of [['schemathesis'], ['st']]) {
    const probe = spawnSync(cmd[0], [...cmd.slice(1), '--version'], { encoding: 'utf8', timeout: 60_000 })
    if (probe.status === 0 && /schemathesis/i.test(probe.stdout + probe.stderr)) return cmd
  }
  return undefined
}

export const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'ignored_auth',
] as const

export interface SchemathesisRun {
  /** The OpenAPI document as JSON text (fetched from the server with a valid token). */
  document: string
  /** The server's origin; the document's paths carry the /api prefix. */
  baseUrl: string
  token: string
  maxExamples: number
  /** Upper bound for the whole run, in seconds: the process is killed past it (--max-time would fuzz until it is spent). */
  maxTimeSeconds: number
  /** Operations (matched by `METHOD /path`) whose path parameters are real ids half the time. */
  operations?: { name: RegExp; ids: Record<string, string[]> }[]
  seed?: number
}

export interface SchemathesisResult {
  exitCode: number | null
  output: string
  /** The JUnit report: one testcase per operation, failures as <failure>. */
  junit: string
  dir: string
}

function toml(value: unknown): string {
  return JSON.stringify(value)
}

/** schemathesis.toml: per operation, real ids for path parameters with probability 0.5, the rest generated. */
function configFile(operations: SchemathesisRun['operations'] = []): string {
  const dictionaries: string[] = []
  const blocks: string[] = []
  operations.forEach((op, i) => {
    const bindings: string[] = []
    for (const [param, values] of Object.entries(op.ids)) {
      const dictionary = `ids${i}_${param}`
      dictionaries.push(`[dictionaries.${dictionary}]`, `values = [${values.map(toml).join(', ')}]`, '')
      bindings.push(`${toml(`path.${param}`)} = { dictionary = ${toml(dictionary)}, probability = 0.5 }`)
    }
    blocks.push('[[operations]]', `include-name-regex = ${toml(op.name.source)}`, `parameters = { ${bindings.join(', ')} }`, '')
  })
  return [...dictionaries, ...blocks].join('\n') + '\n'
}

export async function runSchemathesis(command: string[], run: SchemathesisRun): Promise<SchemathesisResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-schemathesis-'))
  const docPath = path.join(dir, 'openapi.json')
  const configPath = path.join(dir, 'schemathesis.toml')
  const junitPath = path.join(dir, 'junit.xml')
  await writeFile(docPath, run.document)
  await writeFile(configPath, configFile(run.operations))
  const args = [
    ...command.slice(1),
    '--config-file',
    configPath,
    'run',
    docPath,
    '--url',
    run.baseUrl,
    '--header',
    `Authorization: Bearer ${run.token}`,
    '--checks',
    CHECKS.join(','),
    '--max-examples',
    String(run.maxExamples),
    '--workers',
    '4',
    '--request-timeout',
    '20',
    '--suppress-health-check',
    'all',
    '--report',
    'junit',
    '--report-junit-path',
    junitPath,
    '--output-sanitize',
    'true',
    '--no-color',
    '--generation-database',
    'none',
    ...(run.seed !== undefined ? ['--seed', String(run.seed)] : []),
  ]
  const child = spawn(command[0], args, { cwd: dir, env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' } })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const killer = setTimeout(() => child.kill('SIGKILL'), run.maxTimeSeconds * 1000)
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearTimeout(killer)
  const junit = await readFile(junitPath, 'utf8').catch(() => '')
  return { exitCode, output, junit, dir }
}

/**
 * Operations named in the JUnit report (`GET /api/users/me`), those whose checks failed, and those
 * where schemathesis itself stumbled (`<error>`: e.g. its "Inconsistent results" runtime error when
 * hypothesis cannot replay a case): the latter are reported, not counted as API failures.
 */
export function junitSummary(junit: string): { operations: string[]; failed: string[]; toolErrors: string[] } {
  const operations: string[] = []
  const failed: string[] = []
  const toolErrors: string[] = []
  for (const match of junit.matchAll(/<testcase\b[^>]*\bname="([^"]+)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const name = match[1]
      .replace(/&amp;/g, '&')
      .replace(/&#x27;|&apos;/g, "'")
      .replace(/&quot;/g, '"')
    operations.push(name)
    if (match[3] && /<failure\b/.test(match[3])) failed.push(name)
    else if (match[3] && /<error\b/.test(match[3])) toolErrors.push(name)
  }
  return { operations, failed, toolErrors }
}
