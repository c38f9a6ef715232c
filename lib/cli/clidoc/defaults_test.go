package clidoc

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/store"
)

// shownFlag is one flag of one binary as --help shows it.
type shownFlag struct {
	where string // "arc2warc --level", "waczpack index --shards"
	flag  cli.Flag
	line  string // what --help prints for it (names, tab, usage and default)
}

func allFlags(t *testing.T) []shownFlag {
	var out []shownFlag
	add := func(where string, fs []cli.Flag) {
		for _, f := range fs {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			out = append(out, shownFlag{where: where + " --" + f.Names()[0], flag: f, line: cli.FlagStringer(f)})
		}
	}
	for _, app := range Apps(io.Discard) {
		add(app.Name, app.Flags)
		for _, c := range app.Commands {
			add(app.Name+" "+c.Name, c.Flags)
		}
	}
	if len(out) < 150 {
		t.Fatalf("only %d flags found", len(out))
	}
	return out
}

// defaultRE finds a default named in a usage text: "(default: X)",
// "(default X)", "; default X" (X up to the next , ; or closing
// parenthesis).
var defaultRE = regexp.MustCompile(`\bdefault:?\s+([^,;)]+)`)

// literalRE is a default that is a value (a number or size, a word in
// quotes), not a description such as "beside the output".
var literalRE = regexp.MustCompile(`^(-?[0-9][0-9.]*[a-zA-Z]*|"[^"]*")$`)

// appended is the "(default: X)" urfave/cli appends to the usage (its
// DefaultText, else the Value), "" when it appends none.
func appended(f cli.Flag) string {
	if b, ok := f.(*cli.BoolFlag); ok && b.DisableDefaultText {
		return ""
	}
	if df, ok := f.(cli.DocGenerationFlag); ok {
		return df.GetDefaultText()
	}
	return ""
}

// explicitText is the flag's DefaultText.
func explicitText(f cli.Flag) string {
	switch f := f.(type) {
	case *cli.StringFlag:
		return f.DefaultText
	case *cli.IntFlag:
		return f.DefaultText
	case *cli.Int64Flag:
		return f.DefaultText
	case *cli.DurationFlag:
		return f.DefaultText
	case *cli.GenericFlag:
		return f.DefaultText
	case *cli.BoolFlag:
		return f.DefaultText
	case *cli.StringSliceFlag:
		return f.DefaultText
	case *cli.Float64Flag:
		return f.DefaultText
	}
	return ""
}

// valueText is the default as urfave/cli would show it from the Value
// alone ("" for a zero value).
func valueText(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	v := df.GetValue()
	switch f.(type) {
	case *cli.StringFlag:
		if v != "" {
			v = fmt.Sprintf("%q", v)
		}
	case *cli.IntFlag, *cli.Int64Flag, *cli.Float64Flag:
		if v == "0" {
			v = ""
		}
	case *cli.DurationFlag:
		if v == "0s" {
			v = ""
		}
	case *cli.BoolFlag:
		if v == "false" {
			v = ""
		}
	}
	return v
}

// checkedDefaults are the flags whose default is not their Value (the
// code decides it when the flag is not given) but is written as a value
// in the help: each check holds what the help shows (the DefaultText, or
// the defaults the usage names, joined by "; ") to the code.
var checkedDefaults = map[string]func(shown string) error{
	"arc2warc --level":           checkLevels,
	"--part-size":                func(shown string) error { return sizeIs(shown, store.DefaultPartSize) },
	"zimdump warc --spool-max":   func(shown string) error { return sizeIs(shown, compio.DefaultSpoolMax) },
	"zimdump create --spool-max": func(shown string) error { return sizeIs(shown, compio.DefaultSpoolMax) },
	// zim.Writer compresses with zstd.SpeedBestCompression when no level
	// is given, which is what zstd's 19 maps to; without a level its XZ
	// dictionary is 8 MiB, preset 6's (lib/zim/writer.go newEncoder)
	"zimdump create --level": func(shown string) error {
		if shown != "19; 6" {
			return fmt.Errorf("shows %q, the check knows zstd 19 and xz 6", shown)
		}
		if l := zstd.EncoderLevelFromZstd(19); l != zstd.SpeedBestCompression {
			return fmt.Errorf("zstd 19 is %v, not the writer's default %v", l, zstd.SpeedBestCompression)
		}
		return nil
	},
	// batch.ResolveShard: no --shard-count takes the plan's count, else 1;
	// no --shard-index and none of batch.IndexEnv set takes share 0
	"--shard-count": checkShardCount,
	"--shard-index": checkShardIndex,
	"mirrorget --user-agent": func(shown string) error {
		if ua := strings.Replace(crawl.DefaultUserAgent(), cliutil.Version, "VERSION", 1); ua != shown {
			return fmt.Errorf("shows %q, the default User-Agent is %q", shown, crawl.DefaultUserAgent())
		}
		return nil
	},
}

// checkShardCount holds "the plan's, else 1" to batch.ResolveShard.
func checkShardCount(shown string) error {
	if shown != "the plan's, else 1" {
		return fmt.Errorf("shows %q, the check knows \"the plan's, else 1\"", shown)
	}
	none := func(string) string { return "" }
	if s, err := batch.ResolveShard(false, 0, 0, 0, none); err != nil || s.Count != 1 {
		return fmt.Errorf("no --shard-count and no plan gives %+v, %v; want 1 share", s, err)
	}
	if s, err := batch.ResolveShard(true, 3, 0, 5, none); err != nil || s.Count != 5 {
		return fmt.Errorf("no --shard-count and a plan for 5 gives %+v, %v; want 5 shares", s, err)
	}
	return nil
}

// checkShardIndex holds the shown environment variables and 0 to
// batch.ResolveShard.
func checkShardIndex(shown string) error {
	want := "$" + strings.Join(batch.IndexEnv, ", $") + ", else 0"
	want = strings.Replace(want, ", $"+batch.IndexEnv[len(batch.IndexEnv)-1], " or $"+batch.IndexEnv[len(batch.IndexEnv)-1], 1)
	if shown != want && shown != strings.Replace(want, ", else 0", "; else 0", 1) {
		return fmt.Errorf("shows %q, the code reads %q", shown, want)
	}
	for _, k := range batch.IndexEnv {
		env := func(name string) string {
			if name == k {
				return "2"
			}
			return ""
		}
		if s, err := batch.ResolveShard(false, 0, 4, 0, env); err != nil || s.Index != 2 {
			return fmt.Errorf("%s=2 gives %+v, %v", k, s, err)
		}
	}
	if s, err := batch.ResolveShard(false, 0, 0, 0, func(string) string { return "" }); err != nil || s.Index != 0 {
		return fmt.Errorf("no index anywhere gives %+v, %v; want share 0", s, err)
	}
	return nil
}

// sizeIs checks that the size text is n bytes.
func sizeIs(text string, n int64) error {
	got, err := compio.ParseSize(strings.TrimSpace(text))
	if err != nil || got != n {
		return fmt.Errorf("%s is %d bytes, the code's default %d", text, got, n)
	}
	return nil
}

var levelRE = regexp.MustCompile(`^gzip ([0-9]+), zstd ([0-9]+)$`)

// checkLevels: --level's "gzip 5, zstd 3" is what level 0 (the flag not
// given) compresses as: the same bytes as level 5 for gzip and 3 for zstd.
func checkLevels(shown string) error {
	m := levelRE.FindStringSubmatch(shown)
	if m == nil {
		return fmt.Errorf("shows %q, the check reads \"gzip N, zstd N\"", shown)
	}
	gz, _ := strconv.Atoi(m[1])
	zs, _ := strconv.Atoi(m[2])
	data := bytes.Repeat([]byte("WARC/1.1\r\nWARC-Type: response\r\n<html><body>arcport level check</body></html>\r\n"), 3000)
	for _, tc := range []struct {
		f     compio.Format
		level int
	}{{compio.Gzip, gz}, {compio.Zstd, zs}} {
		def, err := compress(tc.f, 0, data)
		if err != nil {
			return err
		}
		lv, err := compress(tc.f, tc.level, data)
		if err != nil {
			return err
		}
		if !bytes.Equal(def, lv) {
			return fmt.Errorf("format %v: the default level does not compress as level %d (%d bytes vs %d)", tc.f, tc.level, len(def), len(lv))
		}
	}
	return nil
}

func compress(f compio.Format, level int, data []byte) ([]byte, error) {
	var out bytes.Buffer
	w, err := compio.NewMemberWriter(&out, compio.WriterOptions{Format: f, Level: level, Concurrency: 1})
	if err != nil {
		return nil, err
	}
	b := w.Buffer()
	b.B = append(b.B[:0], data...)
	if err := w.Submit(b, nil); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// TestFlagDefaults walks every flag of every binary (and of each of its
// commands) as --help shows it and fails on a default shown twice, a
// default that is not the flag's Value, and a value named as the default
// in the usage text that the code does not use (unless checkedDefaults
// holds it to the code).
func TestFlagDefaults(t *testing.T) {
	for _, p := range problems(allFlags(t)) {
		t.Error(p)
	}
}

// TestFlagDefaultsCatches: the flags that contradicted themselves before
// are caught, and a checked default that the code does not use.
func TestFlagDefaultsCatches(t *testing.T) {
	bad := []shownFlag{
		{where: "arc2warc --level", flag: &cli.IntFlag{Name: "level", Usage: "compression level `N`: gzip 1 (fastest) to 9 (smallest), zstd 1 to 22 (default: gzip 5, zstd 3)"}},
		{where: "mirrorget --warc-prefix", flag: &cli.StringFlag{Name: "warc-prefix", Value: "mirrorget", Usage: "file name `PREFIX` for --warc-dir (default: the crawl id, else mirrorget)"}},
		{where: "mirrorget --max-connections", flag: &cli.IntFlag{Name: "max-connections", Usage: "this worker's connections in total (`N`; default -c): -c then bounds each host"}},
		{where: "x --jobs", flag: &cli.IntFlag{Name: "jobs", Value: 2, DefaultText: "4"}},
		{where: "x --size", flag: &cli.StringFlag{Name: "size", Usage: "part size (default 8m)"}},
		{where: "arc2warc --level", flag: &cli.IntFlag{Name: "level", Usage: "compression level", DefaultText: "gzip 6, zstd 3"}},
		{where: "x --part-size", flag: &cli.StringFlag{Name: "part-size", Usage: "part size (default 8m)"}},
	}
	got := problems(bad)
	if len(got) != len(bad) {
		t.Errorf("%d problems found in %d bad flags:\n%s", len(got), len(bad), strings.Join(got, "\n"))
	}
	if len(got) > 0 && !strings.Contains(got[len(got)-1], "8m is 8388608 bytes, the code's default 16777216") {
		t.Errorf("last: %s", got[len(got)-1])
	}
}

// problems returns one line per flag whose shown default contradicts
// itself or the code.
func problems(flags []shownFlag) []string {
	var out []string
	for _, sf := range flags {
		if sf.line == "" {
			sf.line = cli.FlagStringer(sf.flag)
		}
		_, usage, _ := strings.Cut(sf.line, "\t")
		inUsage := defaultRE.FindAllStringSubmatch(cliUsage(sf.flag), -1)
		app := appended(sf.flag)
		value := valueText(sf.flag)
		explicit := explicitText(sf.flag)
		switch {
		case app != "" && len(inUsage) > 0:
			out = append(out, fmt.Sprintf("%s: two defaults: %q", sf.where, usage))
		case explicit != "" && value != "" && explicit != value && explicit != strings.Trim(value, `"`):
			if check := checked(sf.where); check == nil {
				out = append(out, fmt.Sprintf("%s: shows (default: %s) but its Value is %s", sf.where, explicit, value))
			} else if err := check(explicit); err != nil {
				out = append(out, fmt.Sprintf("%s: %v", sf.where, err))
			}
		case value == "" && (len(inUsage) > 0 || explicit != ""):
			// a default the code decides: a value written there must be checked
			shown := []string{}
			if explicit != "" {
				shown = append(shown, explicit)
			}
			for _, m := range inUsage {
				shown = append(shown, strings.TrimSpace(m[1]))
			}
			for _, w := range strings.Fields(strings.NewReplacer(",", " ", ";", " ").Replace(strings.Join(shown, " "))) {
				if literalRE.MatchString(w) && !strings.HasPrefix(w, "-") {
					if check := checked(sf.where); check == nil {
						out = append(out, fmt.Sprintf("%s: %q names the default %s, which no check holds to the code (checkedDefaults)", sf.where, usage, w))
					} else if err := check(strings.Join(shown, "; ")); err != nil {
						out = append(out, fmt.Sprintf("%s: %v", sf.where, err))
					}
					break
				}
			}
		}
	}
	return out
}

// checked returns the check of a flag: by "BIN [CMD] --flag", else by
// "--flag" for a flag every binary shares.
func checked(where string) func(string) error {
	if c, ok := checkedDefaults[where]; ok {
		return c
	}
	if i := strings.LastIndex(where, " "); i >= 0 {
		return checkedDefaults[where[i+1:]]
	}
	return nil
}

// cliUsage is the flag's own usage text (without what urfave appends).
func cliUsage(f cli.Flag) string {
	if df, ok := f.(cli.DocGenerationFlag); ok {
		return df.GetUsage()
	}
	return ""
}
