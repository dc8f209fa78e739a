// GET /health at the server root: the service and its database are up.
import { Type } from '@sinclair/typebox'

export const Health = Type.Object({
  status: Type.Literal('ok'),
  checks: Type.Object({ database: Type.Literal('up') }),
})
