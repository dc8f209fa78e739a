package main

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The archive_file data source. Its schema has the names, types and optional/required/computed
// kinds of hashicorp/archive 2.7's data source; the argument rules the real provider enforces
// with validator libraries (one source kind, no conflicting arguments) are checked in
// ValidateConfig, so `terraform validate` reports the same mistakes.

type archiveFileDataSource struct{}

var (
	_ datasource.DataSource                   = (*archiveFileDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*archiveFileDataSource)(nil)
)

func newArchiveFileDataSource() datasource.DataSource { return &archiveFileDataSource{} }

func (d *archiveFileDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_file"
}

const oneSource = "One and only one of `source`, `source_content_filename` (with `source_content`), `source_file`, or `source_dir` must be specified."

func (d *archiveFileDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Description: description, Computed: true}
	}
	resp.Schema = schema.Schema{
		Description: "Generates a zip archive from content, a file, or a directory of files, during plan. " +
			"(Local stand-in for hashicorp/archive: the registry is unreachable from the machine that built it.)",
		Blocks: map[string]schema.Block{
			"source": schema.SetNestedBlock{
				Description: "A single file to include into the archive. " + oneSource,
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"content":  schema.StringAttribute{Description: "The file's content.", Required: true},
						"filename": schema.StringAttribute{Description: "The file's name in the archive.", Required: true},
					},
				},
			},
		},
		Attributes: map[string]schema.Attribute{
			"id":                          computed("The SHA1 checksum of the output."),
			"type":                        schema.StringAttribute{Description: "The type of archive to generate (this stand-in: `zip` only).", Required: true},
			"source_content":              schema.StringAttribute{Description: "Only this content, as `source_content_filename`. " + oneSource, Optional: true},
			"source_content_filename":     schema.StringAttribute{Description: "The file name of `source_content`. " + oneSource, Optional: true},
			"source_file":                 schema.StringAttribute{Description: "Package this file. " + oneSource, Optional: true},
			"source_dir":                  schema.StringAttribute{Description: "Package the entire contents of this directory. " + oneSource, Optional: true},
			"excludes":                    schema.SetAttribute{Description: "Paths below `source_dir` to leave out (this stand-in: `path.Match` patterns, a directory excludes its contents; no `**`).", ElementType: types.StringType, Optional: true},
			"exclude_symlink_directories": schema.BoolAttribute{Description: "Leave out symbolically linked directories (default false).", Optional: true},
			"output_path":                 schema.StringAttribute{Description: "The path of the archive to write.", Required: true},
			"output_size":                 schema.Int64Attribute{Description: "The byte size of the archive.", Computed: true},
			"output_file_mode":            schema.StringAttribute{Description: "Octal file mode for every archived file, e.g. `\"0666\"`, for reproducible archives.", Optional: true},
			"output_md5":                  computed("MD5 of the archive."),
			"output_sha":                  computed("SHA1 of the archive."),
			"output_sha256":               computed("SHA256 of the archive."),
			"output_base64sha256":         computed("Base64 encoded SHA256 of the archive."),
			"output_sha512":               computed("SHA512 of the archive."),
			"output_base64sha512":         computed("Base64 encoded SHA512 of the archive."),
		},
	}
}

type fileModel struct {
	ID                        types.String `tfsdk:"id"`
	Source                    types.Set    `tfsdk:"source"`
	Type                      types.String `tfsdk:"type"`
	SourceContent             types.String `tfsdk:"source_content"`
	SourceContentFilename     types.String `tfsdk:"source_content_filename"`
	SourceFile                types.String `tfsdk:"source_file"`
	SourceDir                 types.String `tfsdk:"source_dir"`
	Excludes                  types.Set    `tfsdk:"excludes"`
	ExcludeSymlinkDirectories types.Bool   `tfsdk:"exclude_symlink_directories"`
	OutputPath                types.String `tfsdk:"output_path"`
	OutputSize                types.Int64  `tfsdk:"output_size"`
	OutputFileMode            types.String `tfsdk:"output_file_mode"`
	OutputMd5                 types.String `tfsdk:"output_md5"`
	OutputSha                 types.String `tfsdk:"output_sha"`
	OutputSha256              types.String `tfsdk:"output_sha256"`
	OutputBase64Sha256        types.String `tfsdk:"output_base64sha256"`
	OutputSha512              types.String `tfsdk:"output_sha512"`
	OutputBase64Sha512        types.String `tfsdk:"output_base64sha512"`
}

type sourceModel struct {
	Content  types.String `tfsdk:"content"`
	Filename types.String `tfsdk:"filename"`
}

// conflicts: an argument that is set (known or not yet known) may not be combined with these.
var conflicts = map[string][]string{
	"source":                  {"source_file", "source_dir", "source_content", "source_content_filename"},
	"source_content":          {"source_file", "source_dir"},
	"source_content_filename": {"source_file", "source_dir"},
	"source_file":             {"source_dir", "source_content", "source_content_filename"},
	"source_dir":              {"source_file", "source_content", "source_content_filename"},
	"excludes":                {"source_file", "source_content", "source_content_filename"},
}

func (d *archiveFileDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m fileModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	values := map[string]attr.Value{
		"source": m.Source, "source_content": m.SourceContent, "source_content_filename": m.SourceContentFilename,
		"source_file": m.SourceFile, "source_dir": m.SourceDir, "excludes": m.Excludes,
	}
	set := func(name string) bool { v := values[name]; return v != nil && !v.IsNull() }
	known := func(name string) bool { return set(name) && !values[name].IsUnknown() }

	for _, name := range []string{"source", "source_content", "source_content_filename", "source_file", "source_dir", "excludes"} {
		if !known(name) {
			continue
		}
		for _, other := range conflicts[name] {
			if set(other) {
				resp.Diagnostics.AddAttributeError(path.Root(name), "Invalid Attribute Combination",
					fmt.Sprintf("Attribute %q cannot be specified when %q is specified", other, name))
			}
		}
	}
	if !set("source") && !set("source_content_filename") && !set("source_file") && !set("source_dir") {
		resp.Diagnostics.AddError("Invalid Attribute Combination",
			"At least one attribute out of [source,source_content_filename,source_file,source_dir] must be specified")
	}
}

func parseMode(s string) (os.FileMode, error) {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil || m > 0o777 {
		return 0, fmt.Errorf("output_file_mode %q is not an octal file mode such as \"0644\"", s)
	}
	return os.FileMode(m), nil
}

func (d *archiveFileDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model fileModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if t := model.Type.ValueString(); t != "zip" {
		resp.Diagnostics.AddError("Archive creation error", fmt.Sprintf("archive type %q: this local stand-in builds zip archives only", t))
		return
	}
	z := &zipBuilder{}
	if !model.OutputFileMode.IsNull() {
		mode, err := parseMode(model.OutputFileMode.ValueString())
		if err != nil {
			resp.Diagnostics.AddError("Archive creation error", err.Error())
			return
		}
		z.mode = &mode
	}
	outputPath := model.OutputPath.ValueString()

	var err error
	switch {
	case !model.SourceDir.IsNull():
		var excludes []string
		if !model.Excludes.IsNull() {
			resp.Diagnostics.Append(model.Excludes.ElementsAs(ctx, &excludes, false)...)
		}
		err = z.addDir(model.SourceDir.ValueString(), outputPath, excludes, model.ExcludeSymlinkDirectories.ValueBool())
	case !model.SourceFile.IsNull():
		err = z.addFile(model.SourceFile.ValueString())
	case !model.SourceContentFilename.IsNull():
		z.addContent(model.SourceContentFilename.ValueString(), []byte(model.SourceContent.ValueString()))
	case !model.Source.IsNull():
		var sources []sourceModel
		resp.Diagnostics.Append(model.Source.ElementsAs(ctx, &sources, false)...)
		for _, s := range sources {
			z.addContent(s.Filename.ValueString(), []byte(s.Content.ValueString()))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if err == nil {
		err = z.write(outputPath)
	}
	if err != nil {
		resp.Diagnostics.AddError("Archive creation error", fmt.Sprintf("error creating archive: %s", err))
		return
	}

	data, err := os.ReadFile(outputPath)
	if err != nil {
		resp.Diagnostics.AddError("Archive output error", fmt.Sprintf("error reading output: %s", err))
		return
	}
	md5Sum, sha1Sum, sha256Sum, sha512Sum := md5.Sum(data), sha1.Sum(data), sha256.Sum256(data), sha512.Sum512(data)
	model.OutputSize = types.Int64Value(int64(len(data)))
	model.OutputMd5 = types.StringValue(hex.EncodeToString(md5Sum[:]))
	model.OutputSha = types.StringValue(hex.EncodeToString(sha1Sum[:]))
	model.OutputSha256 = types.StringValue(hex.EncodeToString(sha256Sum[:]))
	model.OutputBase64Sha256 = types.StringValue(base64.StdEncoding.EncodeToString(sha256Sum[:]))
	model.OutputSha512 = types.StringValue(hex.EncodeToString(sha512Sum[:]))
	model.OutputBase64Sha512 = types.StringValue(base64.StdEncoding.EncodeToString(sha512Sum[:]))
	model.ID = model.OutputSha
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
}

// excluded: whether a slash-separated path relative to source_dir matches an exclude pattern,
// itself or through one of its parent directories.
func excluded(rel string, patterns []string) bool {
	for _, p := range patterns {
		p = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(p)), "/")
		for cur := rel; cur != "." && cur != "/" && cur != ""; cur = filepath.ToSlash(filepath.Dir(cur)) {
			if ok, _ := filepath.Match(p, cur); ok {
				return true
			}
		}
	}
	return false
}
