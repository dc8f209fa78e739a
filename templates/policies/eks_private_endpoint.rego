# Production Kubernetes keeps its API endpoint private: reached from the VPC (or a VPN), never from the
# internet. Other tiers: a warning when the public endpoint is open to any address.
# Fields: services.eks.endpointPublicAccess, services.eks.publicAccessCidrs
package ies.rules.eks_private_endpoint

import data.ies.lib

deny contains {"field": "services.eks.endpointPublicAccess", "fields": ["services.eks.publicAccessCidrs"], "message": "a production cluster's API endpoint must not be public: turn off Public API endpoint"} if {
	lib.production
	object.get(lib.enabled("eks"), "endpointPublicAccess", false) == true
}

warn contains {"field": "services.eks.publicAccessCidrs", "fields": ["services.eks.endpointPublicAccess"], "message": "the public API endpoint is open to every address: name the CIDR blocks allowed"} if {
	not lib.production
	eks := lib.enabled("eks")
	object.get(eks, "endpointPublicAccess", false) == true
	object.get(eks, "publicAccessCidrs", "") in {"", "0.0.0.0/0"}
}
