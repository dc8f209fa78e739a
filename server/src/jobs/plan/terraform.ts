// One Terraform command of a plan: TERRAFORM_BIN in the plan's own directory, with an environment
// built from nothing but what Terraform needs (never the server's own: it holds the encryption key),
// the cloud credential as variables of that process only, a time limit and an output cap.
import { spawn } from 'node:child_process'
import type { Config } from '../../config.ts'
import { PLAN_CODES } from '@ies/api/schemas/plans'
import { JobFailure } from '../../core/job-failure.ts'

export type PlanSettings = Config['plan']

export interface TerraformRun {
  code: number
  stdout: string
  stderr: string
  ms: number
}

/** What points Terraform at the cloud: the credential's keys and the endpoint override (tests, S3-compatible stores). */
export interface CloudAccess {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
  region: string
  endpointUrl?: string
}

/** Where the settings and docs are named in an error. */
export const TERRAFORM_DOCS = 'docs/operations.md, "Terraform for plans"'

/** The process environment of a Terraform command: PATH, a HOME of the plan's own, the CLI settings, the credential. */
export function terraformEnv(settings: PlanSettings, home: string, cloud: CloudAccess): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    CHECKPOINT_DISABLE: '1',
    ...(settings.cliConfigFile && { TF_CLI_CONFIG_FILE: settings.cliConfigFile }),
    ...(settings.pluginCacheDir && {
      TF_PLUGIN_CACHE_DIR: settings.pluginCacheDir,
      TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE: 'true',
    }),
    AWS_ACCESS_KEY_ID: cloud.accessKeyId,
    AWS_SECRET_ACCESS_KEY: cloud.secretAccessKey,
    ...(cloud.sessionToken && { AWS_SESSION_TOKEN: cloud.sessionToken }),
    AWS_REGION: cloud.region,
    AWS_DEFAULT_REGION: cloud.region,
    ...(cloud.endpointUrl && { AWS_ENDPOINT_URL: cloud.endpointUrl }),
    // Nothing of the machine's own AWS setup: no shared files, no instance metadata.
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_EC2_METADATA_DISABLED: 'true',
  }
}

/**
 * Runs `terraform -chdir=<dir> <args>`. Past PLAN_TIMEOUT_MS or PLAN_OUTPUT_CAP_BYTES it is stopped
 * (SIGTERM, SIGKILL 5 s later) and the plan fails with PLAN_LIMIT_EXCEEDED; a binary that cannot be
 * started is TERRAFORM_UNAVAILABLE, naming the setting.
 */
export function terraform(settings: PlanSettings, dir: string, args: string[], env: NodeJS.ProcessEnv): Promise<TerraformRun> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(settings.terraformBin, [`-chdir=${dir}`, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let stopped: string | null = null
    const stop = (why: string) => {
      if (stopped) return
      stopped = why
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 5000).unref()
    }
    const timer = setTimeout(() => stop(`ran longer than PLAN_TIMEOUT_MS (${settings.timeoutMs} ms)`), settings.timeoutMs)
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length
      if (size > settings.outputCapBytes) return stop(`wrote more than PLAN_OUTPUT_CAP_BYTES (${settings.outputCapBytes} bytes)`)
      into.push(chunk)
    }
    child.stdout.on('data', collect(out))
    child.stderr.on('data', collect(err))
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(
        new JobFailure(
          PLAN_CODES.terraformMissing,
          `Terraform could not be started (TERRAFORM_BIN=${settings.terraformBin}: ${e.code ?? e.message}). Install Terraform or set TERRAFORM_BIN; see ${TERRAFORM_DOCS}.`,
        ),
      )
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      const what = `terraform ${args[0]}`
      if (stopped) return reject(new JobFailure(PLAN_CODES.limit, `${what} was stopped: it ${stopped}`))
      resolve({
        code: code ?? 1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - started,
      })
    })
  })
}
