package cliutil

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func buildInfo(version string, settings ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/arcport/arcport", Version: version}}
	for i := 0; i+1 < len(settings); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return bi
}

// TestVersionString: what --version prints from the Makefile's -ldflags
// (git describe --tags --always --dirty, git rev-parse --short HEAD) and,
// without them, from the build information of go build and go install
// ...@version.
func TestVersionString(t *testing.T) {
	const rev = "6b4cce0e2f1a9d3c5b7a8e9f0123456789abcdef"
	vcs := buildInfo("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.modified", "false")
	vcsDirty := buildInfo("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.modified", "true")
	for _, tc := range []struct {
		ld, commit string
		bi         *debug.BuildInfo
		want       string
	}{
		// make build (ldflags)
		{"v0.8.0", "abc1234", nil, "arcport v0.8.0 (abc1234)"},
		{"v0.8.0-dirty", "abc1234", nil, "arcport v0.8.0 (abc1234-dirty)"},
		{"v0.8.0-3-gabc1234", "abc1234", nil, "arcport v0.8.0+3 (abc1234)"},
		{"v0.8.0-3-gabc1234-dirty", "abc1234", nil, "arcport v0.8.0+3 (abc1234-dirty)"},
		{"v0.8.0-0-gabc1234", "", nil, "arcport v0.8.0 (abc1234)"}, // --long
		{"abc1234", "abc1234", nil, "arcport dev (abc1234)"},       // no tag in the history
		{"abc1234-dirty", "", nil, "arcport dev (abc1234-dirty)"},
		{"v0.8.0", "", vcs, "arcport v0.8.0 (6b4cce0)"}, // commit from the build information
		{"v0.8.0", "", vcsDirty, "arcport v0.8.0 (6b4cce0-dirty)"},
		{"v0.8.0", "", nil, "arcport v0.8.0"},
		{"0.9.1", "abc1234", nil, "arcport v0.9.1 (abc1234)"},
		// go install github.com/arcport/arcport/cmd/arc2warc@v0.8.0: no VCS information
		{defaultVersion, "", buildInfo("v0.8.0"), "arcport v0.8.0"},
		// go install ...@main: a pseudo-version names the commit
		{defaultVersion, "", buildInfo("v0.8.1-0.20261127024022-6b4cce0e2f1a"), "arcport v0.8.1-0.20261127024022-6b4cce0e2f1a (6b4cce0)"},
		{"", "", buildInfo("v0.0.0-20261127024022-6b4cce0e2f1a"), "arcport v0.0.0-20261127024022-6b4cce0e2f1a (6b4cce0)"},
		// go build -buildvcs=true in a checkout (Go 1.24+ stamps a version)
		{defaultVersion, "", buildInfo("v0.8.1-0.20261127024022-6b4cce0e2f1a+dirty", "vcs.revision", rev, "vcs.modified", "true"),
			"arcport v0.8.1-0.20261127024022-6b4cce0e2f1a (6b4cce0-dirty)"},
		{defaultVersion, "", buildInfo("v0.8.0", "vcs.revision", rev, "vcs.modified", "false"), "arcport v0.8.0 (6b4cce0)"},
		// go build -buildvcs=false, go test
		{defaultVersion, "", buildInfo("(devel)"), "arcport dev"},
		{defaultVersion, "", vcs, "arcport dev (6b4cce0)"},
		{defaultVersion, "", nil, "arcport dev"},
	} {
		if got := versionString(tc.ld, tc.commit, tc.bi); got != tc.want {
			t.Errorf("versionString(%q, %q, %v) = %q, want %q", tc.ld, tc.commit, tc.bi != nil, got, tc.want)
		}
	}
}

// TestVersionFlag: --version of a prepared App prints VersionString alone,
// and the help shows no "(default: false)".
func TestVersionFlag(t *testing.T) {
	old := Version
	Version, Commit = "v0.8.0-2-gabc1234", ""
	defer func() { Version = old }()
	var out bytes.Buffer
	app := &cli.App{Name: "x", Writer: &out, Flags: []cli.Flag{&cli.BoolFlag{Name: "q", Usage: "quiet"}},
		Action: func(*cli.Context) error { return nil }}
	Prepare(app)
	if err := app.Run([]string{"x", "--version"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "arcport v0.8.0+2 (abc1234)\n" {
		t.Errorf("--version printed %q", out.String())
	}
	out.Reset()
	if err := app.Run([]string{"x", "--help"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "(default: false)") || !strings.Contains(out.String(), "completion") {
		t.Errorf("help:\n%s", out.String())
	}
}
