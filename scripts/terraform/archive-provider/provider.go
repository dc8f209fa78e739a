package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// archiveProvider has no configuration, as the real hashicorp/archive provider.
type archiveProvider struct{}

var _ provider.Provider = (*archiveProvider)(nil)

func newProvider() provider.Provider { return &archiveProvider{} }

func (p *archiveProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "archive"
	resp.Version = version
}

func (p *archiveProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Local stand-in for hashicorp/archive (the registry is unreachable from the machine that built it): " +
			"the archive_file data source, zip archives only.",
	}
}

func (p *archiveProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *archiveProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newArchiveFileDataSource}
}

func (p *archiveProvider) Resources(context.Context) []func() resource.Resource { return nil }

// version is stamped by the build script (-ldflags "-X main.version=...").
var version = "dev"
