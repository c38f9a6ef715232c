package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zimInputs are the ZIM fixtures the sweeps start from: format 6.1 with
// zstd clusters, format 5 with old namespaces and XZ clusters.
var zimInputs = []string{"zim/nons/small.zim", "zim/withns/small.zim"}

// zimCompat are the exit statuses of the openzim-compatible commands
// (openzim's zimdump gives 1 for a failed selection, 2 for dump errors and
// 255 for "Exception: ..."; arcport's gives 1 for all three); their messages are openzim's and do not name the
// file, so only "check" is held to the house rule of naming it. check
// prints its findings on stdout, one line per problem (like zimcheck);
// openzim prints its "Exception: ..." lines on stdout too.
var zimCompat = []int{1}

// zimRuns runs every zimdump command over one damaged archive p:
// check must fail (the MD5 checksum covers every byte) when mustFail, naming
// the file and an offset; dump, list and show stay bounded, panic-free and
// write only into out/.
func zimRuns(t *testing.T, zd, p string, c *caseDir, label string, mustFail bool) {
	name := filepath.Base(p)
	res := c.cmd(zd, "check", p).exec(t)
	if !check(t, "check "+label, res, expect{name: name, offset: true, mustFail: mustFail, reportOnStdout: true}) || !c.contained(t, "check "+label, res) {
		return
	}
	for _, args := range [][]string{
		{"dump", "--dir=" + filepath.Join(c.out, "d"), p},
		{"list", "--details", p},
		{"show", "--idx=1", p},
		{"info", p},
	} {
		res := c.cmd(zd, args...).exec(t)
		what := args[0] + " " + label
		if !check(t, what, res, expect{okCodes: zimCompat, reportOnStdout: true}) || !c.contained(t, what, res) {
			return
		}
	}
}

// TestZimdumpDamaged truncates and flips bits in ZIM fixtures and runs all
// zimdump commands on them (see zimRuns).
func TestZimdumpDamaged(t *testing.T) {
	zd := bin(t, "zimdump")
	for _, rel := range zimInputs {
		data := fixture(t, rel)
		name := strings.ReplaceAll(filepath.Dir(rel)[4:], "/", "_") + "_" + filepath.Base(rel)
		type mutation struct {
			label string
			data  []byte
		}
		var muts []mutation
		for _, cut := range cutOffsets(name, len(data), 0, 32, []int64{80, int64(len(data) - 16)}) {
			muts = append(muts, mutation{fmt.Sprintf("cut%d", cut), data[:cut]})
		}
		for i, f := range flips(name, 0, len(data), 32) {
			muts = append(muts, mutation{fmt.Sprintf("flip%d@%d", i, f.off), f.apply(data)})
		}
		for _, m := range muts {
			t.Run(name+"/"+m.label, func(t *testing.T) {
				t.Parallel()
				acquire(t)
				c := newCase(t)
				p := c.put(t, name, m.data)
				c.freeze(t)
				zimRuns(t, zd, p, c, name+" "+m.label, true)
			})
		}
	}
}

// TestZimdumpInvalidFixtures runs every command over the openzim test
// suite's invalid.*.zim files (one corruption each): check fails on each.
func TestZimdumpInvalidFixtures(t *testing.T) {
	zd := bin(t, "zimdump")
	for _, dir := range []string{"nons", "withns", "noTitleListingV0"} {
		files, _ := filepath.Glob(filepath.Join(repo, "testdata/zim", dir, "invalid.*.zim"))
		if len(files) == 0 {
			t.Fatalf("no invalid.*.zim under testdata/zim/%s", dir)
		}
		for _, f := range files {
			t.Run(dir+"/"+filepath.Base(f), func(t *testing.T) {
				t.Parallel()
				acquire(t)
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				c := newCase(t)
				p := c.put(t, filepath.Base(f), data)
				c.freeze(t)
				zimRuns(t, zd, p, c, dir+"/"+filepath.Base(f), true)
			})
		}
	}
}
