# Production networks run a NAT gateway in each zone: with a single one, losing its zone cuts every
# private subnet off the internet.
# Field: services.vpc.singleNatGateway
package ies.rules.vpc_nat_per_zone

import data.ies.lib

deny contains {"field": "services.vpc.singleNatGateway", "message": "a production network needs a NAT gateway per zone: turn off Single NAT gateway"} if {
	lib.production
	object.get(lib.enabled("vpc"), "singleNatGateway", true) == true
}
