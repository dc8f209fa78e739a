// The user resource: the caller's profile and preferences.
import { Type } from '@sinclair/typebox'
import { PROVIDERS, THEMES } from '../values.ts'
import { StringEnum } from '../string-enum.ts'
import { PageQuery } from '../envelope.ts'

export const Preferences = Type.Object(
  {
    theme: StringEnum(THEMES),
    defaultProvider: StringEnum(PROVIDERS),
  },
  { additionalProperties: false },
)

export const PreferencesUpdate = Type.Partial(Preferences, { additionalProperties: false, minProperties: 1 })

export const User = Type.Object({
  id: Type.String({ format: 'uuid' }),
  identityProviderId: Type.String(),
  username: Type.String(),
  email: Type.String(),
  preferences: Preferences,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
})

export const MeUpdate = Type.Object({ preferences: PreferencesUpdate }, { additionalProperties: false })

/** GET /api/users (admins): a page of every user, oldest first. */
export const UserListQuery = Type.Object(PageQuery)
