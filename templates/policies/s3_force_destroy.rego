# A production bucket is never destroyed with its objects: force destroy stays off.
# Field: services.s3.forceDestroy
package ies.rules.s3_force_destroy

import data.ies.lib

deny contains {"field": "services.s3.forceDestroy", "message": "a production bucket must not be force-destroyable: turn off Force destroy"} if {
	lib.production
	object.get(lib.enabled("s3"), "forceDestroy", false) == true
}
