# Production Aurora runs at least two instances: Aurora places them in different zones and promotes a
# reader when the writer fails; one instance is a single zone.
# Field: services.aurora.instanceCount
package ies.rules.aurora_multi_az

import data.ies.lib

deny contains {"field": "services.aurora.instanceCount", "message": sprintf("a production Aurora cluster needs at least 2 instances to span two zones (now %v)", [count])} if {
	lib.production
	count := object.get(lib.enabled("aurora"), "instanceCount", 1)
	count < 2
}
