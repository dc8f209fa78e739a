// Starts moto's server mode (a local AWS API: STS, IAM, S3, ...) on a free loopback port.
// Needs Python with `pip install 'moto[server]'`; PYTHON names the interpreter (default python3).
import { freePort } from './net.ts'
import { startChildService } from './child-service.ts'

export interface RunningMoto {
  /** The endpoint to give the AWS SDK (`endpoint`, or AWS_ENDPOINT_URL). */
  endpoint: string
  port: number
  stop(): Promise<void>
}

export interface MotoOptions {
  port?: number
  /**
   * Turns moto's request authentication on after this many AWS actions (its
   * INITIAL_NO_AUTH_ACTION_COUNT): from then on only keys created in moto's IAM, signed with
   * their secret, are accepted. Unset: authentication stays off.
   */
  authAfterActions?: number
  /**
   * Loads AWS's managed IAM policies (arn:aws:iam::aws:policy/...) so they can be attached, as
   * Terraform trees do (MOTO_IAM_LOAD_MANAGED_POLICIES; it costs moto a second or two).
   */
  managedPolicies?: boolean
}

export async function startMoto(opts: MotoOptions = {}): Promise<RunningMoto> {
  const port = opts.port ?? (await freePort())
  const env: NodeJS.ProcessEnv = { ...process.env, AWS_DEFAULT_REGION: 'us-east-1' }
  delete env.INITIAL_NO_AUTH_ACTION_COUNT
  delete env.MOTO_IAM_LOAD_MANAGED_POLICIES
  if (opts.managedPolicies) env.MOTO_IAM_LOAD_MANAGED_POLICIES = 'true'
  if (opts.authAfterActions !== undefined) env.INITIAL_NO_AUTH_ACTION_COUNT = String(opts.authAfterActions)
  const service = await startChildService({
    name: 'moto',
    command: process.env.PYTHON ?? 'python3',
    args: ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)],
    port,
    env,
    hint: "pip install 'moto[server]'",
  })
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    stop: service.stop,
  }
}
