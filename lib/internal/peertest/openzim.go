package peertest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// OpenzimZimdumpEnv names a variable that points the tests at another
// build of openzim's zimdump (default /usr/bin/zimdump, where the Debian
// package zim-tools installs it).
const OpenzimZimdumpEnv = "ARCPORT_OPENZIM_ZIMDUMP"

// OpenzimZimdump returns the path of openzim's zimdump, called by its
// package path and never looked up on PATH: after `go install ./cmd/...`
// the first zimdump on PATH is arcport's own, and a test comparing with it
// would compare arcport with itself. Its --version must name openzim's
// zim-tools and libzim (arcport's says "zimdump (arcport) ..."). When it is
// missing or is not openzim's, t ends with Missing.
func OpenzimZimdump(t testing.TB) string {
	t.Helper()
	p := os.Getenv(OpenzimZimdumpEnv)
	if p == "" {
		p = "/usr/bin/zimdump"
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		Missing(t, "zim-tools", p+" not installed")
	}
	out, err := exec.Command(p, "--version").CombinedOutput()
	if v := string(out); err != nil || !IsOpenzimVersion(v) {
		Missing(t, "zim-tools", p+" is not openzim's zimdump: --version printed "+strings.TrimSpace(v))
	}
	return p
}

// IsOpenzimVersion reports whether v, the output of zimdump --version,
// is openzim's: a "zim-tools X" line and a "libzim X" line, and no word of
// arcport.
func IsOpenzimVersion(v string) bool {
	var tools, lib bool
	for _, l := range strings.Split(v, "\n") {
		tools = tools || strings.HasPrefix(l, "zim-tools ")
		lib = lib || strings.HasPrefix(l, "libzim ")
	}
	return tools && lib && !strings.Contains(v, "arcport")
}
