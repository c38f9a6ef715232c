package cliutil

import (
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultVersion is Version when no -ldflags -X set it.
const defaultVersion = "0.1.0-dev"

// Commit is the commit the binary was built from (git rev-parse --short
// HEAD), set with -ldflags -X by the Makefile beside Version: git describe
// names no commit when HEAD is the tag itself.
var Commit = ""

// describeRE matches `git describe --tags --always --dirty` past a tag:
// TAG-N-gHASH with an optional -dirty.
var describeRE = regexp.MustCompile(`^(.+)-([0-9]+)-g([0-9a-f]{4,40})(-dirty)?$`)

// hashRE matches `git describe --always` without any tag: HASH[-dirty].
var hashRE = regexp.MustCompile(`^([0-9a-f]{7,40})(-dirty)?$`)

// VersionString is what --version prints for every binary:
//
//	arcport v0.8.0 (abc1234)            built at the tag v0.8.0
//	arcport v0.8.0+3 (abc1234)          3 commits past v0.8.0
//	arcport v0.8.0+3 (abc1234-dirty)    ... with uncommitted changes
//	arcport dev (abc1234)               no tag in the history
//
// from Version as the Makefile sets it (git describe --tags --always
// --dirty); without -ldflags (go install ...@v0.8.0, go build) from the
// module version and VCS revision that the go command records in the
// binary.
func VersionString() string {
	bi, _ := debug.ReadBuildInfo()
	return versionString(Version, Commit, bi)
}

// versionString is VersionString for the given ldflags values and build
// information (nil when none).
func versionString(ld, commit string, bi *debug.BuildInfo) string {
	rev, modified := buildVCS(bi)
	if commit != "" {
		rev = shortRev(commit)
	}
	if ld != "" && ld != defaultVersion {
		return formatVersion(parseDescribe(ld, rev, modified))
	}
	v := ""
	if bi != nil {
		v = bi.Main.Version
	}
	if v == "" || v == "(devel)" {
		return formatVersion("dev", rev, modified)
	}
	if base, ok := strings.CutSuffix(v, "+dirty"); ok { // go 1.24+: a modified checkout
		v, modified = base, true
	}
	if rev == "" {
		rev = pseudoRevision(v)
	}
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return formatVersion(v, rev, modified)
}

// parseDescribe splits git describe's output into the version to show,
// the commit and whether the tree was modified; rev and modified (from the
// build information) fill in what describe does not say.
func parseDescribe(d, rev string, modified bool) (string, string, bool) {
	if m := describeRE.FindStringSubmatch(d); m != nil {
		v := m[1]
		if n, _ := strconv.Atoi(m[2]); n > 0 {
			v += "+" + m[2]
		}
		return withV(v), m[3], m[4] != "" || modified
	}
	if m := hashRE.FindStringSubmatch(d); m != nil {
		return "dev", m[1], m[2] != "" || modified
	}
	if base, ok := strings.CutSuffix(d, "-dirty"); ok {
		d, modified = base, true
	}
	return withV(d), shortRev(rev), modified
}

// withV prefixes a version that starts with a digit with "v".
func withV(v string) string {
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		return "v" + v
	}
	return v
}

// formatVersion is "arcport VERSION (COMMIT[-dirty])"; without a commit,
// "arcport VERSION" (with " (dirty)" when the tree was modified).
func formatVersion(v, rev string, modified bool) string {
	s := "arcport " + v
	switch {
	case rev != "" && modified:
		s += " (" + rev + "-dirty)"
	case rev != "":
		s += " (" + rev + ")"
	case modified:
		s += " (dirty)"
	}
	return s
}

// buildVCS returns the short vcs.revision and vcs.modified recorded by
// the go command (go build in a git checkout; not go install ...@version,
// whose module download has no repository).
func buildVCS(bi *debug.BuildInfo) (rev string, modified bool) {
	if bi == nil {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = shortRev(s.Value)
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}

// shortRev is the first 7 hex digits of a commit, as git's short form.
func shortRev(r string) string {
	if len(r) > 7 {
		return r[:7]
	}
	return r
}

// pseudoRevision is the commit of a Go pseudo-version
// (v0.8.1-0.20261127024022-6b4cce0abcde: 6b4cce0), "" for a release.
func pseudoRevision(v string) string {
	i := strings.LastIndexByte(v, '-')
	if i < 0 {
		return ""
	}
	h := v[i+1:]
	if len(h) != 12 || strings.Trim(h, "0123456789abcdef") != "" {
		return ""
	}
	j := strings.LastIndexAny(v[:i], "-.")
	if j < 0 || len(v[j+1:i]) != 14 || strings.Trim(v[j+1:i], "0123456789") != "" {
		return ""
	}
	return shortRev(h)
}
