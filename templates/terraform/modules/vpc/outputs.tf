output "vpc_id" {
  description = "ID of the VPC."
  value       = aws_vpc.this.id
}

output "vpc_cidr_block" {
  description = "IPv4 CIDR block of the VPC."
  value       = aws_vpc.this.cidr_block
}

output "public_subnet_ids" {
  description = "IDs of the public subnets, one per availability zone."
  value       = aws_subnet.public[*].id
}

output "private_subnet_ids" {
  description = "IDs of the private subnets, one per availability zone."
  value       = aws_subnet.private[*].id
}

output "nat_public_ips" {
  description = "Public IPs of the NAT gateways (egress addresses of the private subnets)."
  value       = aws_eip.nat[*].public_ip
}
