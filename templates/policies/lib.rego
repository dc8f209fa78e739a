# Helpers the built-in rules share: the environment's tier and its enabled services, with the
# catalog's defaults filled in by IES (a value the user never set reads as its default).
package ies.lib

production if input.environment.labels.tier == "production"

# The settings of a service that is enabled; undefined when it is off or absent.
enabled(name) := service if {
	service := input.environment.services[name]
	service.enabled == true
}
