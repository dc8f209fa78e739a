# tflint configuration of the generated repository: the bundled Terraform language rules with
# their recommended preset (no plugin to download). Run `tflint --init && tflint --recursive
# --config "$PWD/.tflint.hcl"` in this folder; the pipeline's scan job does the same.
plugin "terraform" {
  enabled = true
  preset  = "recommended"
}
