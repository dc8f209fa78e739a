# Production PostgreSQL (RDS) keeps deletion protection on: a `terraform destroy` or a removed block
# cannot delete the database and its data by mistake.
# Field: services.rds.deletionProtection
package ies.rules.rds_deletion_protection

import data.ies.lib

deny contains {"field": "services.rds.deletionProtection", "message": "a production database must have deletion protection: turn on Deletion protection"} if {
	lib.production
	rds := lib.enabled("rds")
	object.get(rds, "deletionProtection", false) != true
}
