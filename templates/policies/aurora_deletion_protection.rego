# Production Aurora keeps deletion protection on, as RDS does.
# Field: services.aurora.deletionProtection
package ies.rules.aurora_deletion_protection

import data.ies.lib

deny contains {"field": "services.aurora.deletionProtection", "message": "a production Aurora cluster must have deletion protection: turn on Deletion protection"} if {
	lib.production
	aurora := lib.enabled("aurora")
	object.get(aurora, "deletionProtection", false) != true
}
