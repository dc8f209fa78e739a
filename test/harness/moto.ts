// A moto server for one test file, stopped at teardown, plus the IAM calls tests need to make
// access keys in it (sent while moto's request authentication is still off).
import { startMoto, type MotoOptions, type RunningMoto } from '../../scripts/services/moto.ts'

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface TestMoto extends RunningMoto {
  /** One IAM Query API call (Action and its parameters); the XML answer. Counts as one AWS action. */
  iam(params: Record<string, string>): Promise<string>
  /** One STS Query API call (Action and its parameters); the XML answer. */
  sts(params: Record<string, string>): Promise<string>
  /** Creates an IAM user and an access key for it; counts as two AWS actions. */
  createAccessKey(userName: string): Promise<{ accessKeyId: string; secretAccessKey: string; arn: string }>
}

export async function startTestMoto(t: Teardown, opts: MotoOptions = {}): Promise<TestMoto> {
  const moto = await startMoto(opts)
  t.teardown(() => moto.stop())

  /** One Query API call; moto reads the service from the credential scope. */
  async function query(service: 'iam' | 'sts', version: string, params: Record<string, string>): Promise<string> {
    const response = await fetch(moto.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `AWS4-HMAC-SHA256 Credential=AKIAIESTESTHARNESS01/20240101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: new URLSearchParams({ Version: version, ...params }),
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`moto ${service.toUpperCase()} ${params.Action} failed: HTTP ${response.status} ${text}`)
    return text
  }
  const iam = (params: Record<string, string>) => query('iam', '2010-05-08', params)
  const sts = (params: Record<string, string>) => query('sts', '2011-06-15', params)
  const tag = (xml: string, name: string) => {
    const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)
    if (!match) throw new Error(`no <${name}> in moto's answer`)
    return match[1]
  }

  return {
    ...moto,
    iam,
    sts,
    async createAccessKey(userName) {
      const user = await iam({ Action: 'CreateUser', UserName: userName })
      const key = await iam({ Action: 'CreateAccessKey', UserName: userName })
      return { accessKeyId: tag(key, 'AccessKeyId'), secretAccessKey: tag(key, 'SecretAccessKey'), arn: tag(user, 'Arn') }
    },
  }
}
