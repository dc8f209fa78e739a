# Production PostgreSQL (RDS) runs Multi-AZ: a standby in a second zone takes over within a minute or
# two when the primary's zone or host fails; a single instance is down until it is replaced.
# Field: services.rds.multiAz
package ies.rules.rds_multi_az

import data.ies.lib

deny contains {"field": "services.rds.multiAz", "message": "a production database must be Multi-AZ: turn on Multi-AZ (a standby in a second zone takes over when the primary fails)"} if {
	lib.production
	rds := lib.enabled("rds")
	object.get(rds, "multiAz", false) != true
}
