# A bucket keeps versions: an overwrite or a delete can be undone. Production: required; other
# tiers: a warning.
# Field: services.s3.versioning
package ies.rules.s3_versioning

import data.ies.lib

deny contains {"field": "services.s3.versioning", "message": "a production bucket must keep versions: turn on Versioning"} if {
	lib.production
	object.get(lib.enabled("s3"), "versioning", false) != true
}

warn contains {"field": "services.s3.versioning", "message": "without versioning an overwritten or deleted object is gone"} if {
	not lib.production
	object.get(lib.enabled("s3"), "versioning", false) != true
}
