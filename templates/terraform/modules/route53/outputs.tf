output "zone_id" {
  description = "Hosted zone ID (null without a domain)."
  value       = one(aws_route53_zone.this[*].zone_id)
}

output "zone_arn" {
  description = "Hosted zone ARN (null without a domain), for ExternalDNS and cert-manager policies."
  value       = one(aws_route53_zone.this[*].arn)
}

output "name_servers" {
  description = "Name servers to delegate the domain to (empty without a domain)."
  value       = flatten(aws_route53_zone.this[*].name_servers)
}

output "certificate_arn" {
  description = "Validated wildcard certificate for ingress load balancers (null when not issued)."
  value       = one(aws_acm_certificate_validation.wildcard[*].certificate_arn)
}

output "dnssec_ds_record" {
  description = "DS record to add at the registrar or parent zone when DNSSEC is on (null otherwise)."
  value       = one(aws_route53_key_signing_key.this[*].ds_record)
}
