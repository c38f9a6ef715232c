package cdx

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// randomLines makes n CDXJ-like lines with many shared prefixes and some
// duplicates and non-ASCII bytes.
func randomLines(n int, seed int64) []string {
	r := rand.New(rand.NewSource(seed))
	hosts := []string{"com,example)/", "com,example,www)/", "org,iana)/", "de,xn--bcher-kva)/", "undefined", "dns:example.com"}
	out := make([]string, n)
	for i := range out {
		path := fmt.Sprintf("p%d/%c%s", r.Intn(50), 'a'+rune(r.Intn(26)), strings.Repeat("é", r.Intn(3)))
		out[i] = fmt.Sprintf("%s%s %d {\"url\":\"x\",\"offset\":\"%d\"}", hosts[r.Intn(len(hosts))], path,
			20200101000000+r.Intn(1000000), r.Intn(100))
		if r.Intn(20) == 0 && i > 0 {
			out[i] = out[r.Intn(i)]
		}
	}
	return out
}

func sortWith(t *testing.T, lines []string, opts ...SortOption) (string, int) {
	t.Helper()
	s := NewSorter(opts...)
	for _, l := range lines {
		if err := s.Add([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if _, err := s.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	return out.String(), s.Runs()
}

func TestSorter(t *testing.T) {
	lines := randomLines(5000, 1)
	want := append([]string(nil), lines...)
	sort.Strings(want)
	wantText := strings.Join(want, "\n") + "\n"
	var uniq []string
	for i, l := range want {
		if i == 0 || l != want[i-1] {
			uniq = append(uniq, l)
		}
	}
	uniqText := strings.Join(uniq, "\n") + "\n"
	for _, c := range []struct {
		name     string
		opts     []SortOption
		unique   bool
		minRuns  int
		wantText string
	}{
		{"in memory", nil, false, 0, wantText},
		{"spilling", []SortOption{WithChunkSize(16 << 10)}, false, 10, wantText},
		{"multi-pass merge", []SortOption{WithChunkSize(4 << 10), WithFanIn(3)}, false, 40, wantText},
		{"unique in memory", []SortOption{WithUnique(true)}, true, 0, uniqText},
		{"unique spilling", []SortOption{WithUnique(true), WithChunkSize(8 << 10), WithFanIn(4)}, true, 20, uniqText},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			got, runs := sortWith(t, lines, append(c.opts, WithTempDir(dir))...)
			if got != c.wantText {
				t.Errorf("sorted output differs (%d bytes, want %d)", len(got), len(c.wantText))
			}
			if runs < c.minRuns {
				t.Errorf("%d runs, want at least %d", runs, c.minRuns)
			}
			left, _ := os.ReadDir(dir)
			if len(left) != 0 {
				t.Errorf("%d temporary files left behind", len(left))
			}
		})
	}
}

// TestSorterMatchesSort compares with the C-locale `sort` of coreutils.
func TestSorterMatchesSort(t *testing.T) {
	sortCmd := peertest.Need(t, "sort", "coreutils")
	lines := randomLines(3000, 2)
	in := filepath.Join(t.TempDir(), "in")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	cmd := exec.Command(sortCmd, in)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := sortWith(t, lines, WithChunkSize(10<<10), WithTempDir(t.TempDir()))
	if got != string(want) {
		t.Error("Sorter output differs from LC_ALL=C sort")
	}
}

func TestSorterAfterUse(t *testing.T) {
	s := NewSorter()
	s.Add([]byte("a"))
	var b bytes.Buffer
	s.WriteTo(&b)
	if err := s.Add([]byte("b")); err != ErrSorterDone {
		t.Errorf("Add after WriteTo: %v", err)
	}
	if err := NewSorter().Add([]byte("a\nb")); err == nil {
		t.Error("a line with a newline inside was accepted")
	}
}

// TestSorterRunsHaveNoName: the run files of a spilling sort have no name
// in the temporary directory at any time (a SIGKILL leaves nothing), and
// tiered merging keeps the result sorted.
func TestSorterRunsHaveNoName(t *testing.T) {
	dir := t.TempDir()
	s := NewSorter(WithTempDir(dir), WithChunkSize(1<<10), WithFanIn(3))
	var want []string
	for i := 0; i < 5000; i++ {
		line := fmt.Sprintf("key%07d", (i*7919)%5000)
		want = append(want, line)
		if err := s.Add([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if i%500 == 0 {
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("after %d lines (%d runs): %d named files in the temporary directory", i, s.Runs(), len(ents))
			}
		}
	}
	if s.Runs() < 20 {
		t.Fatalf("only %d runs: the test wants many", s.Runs())
	}
	sort.Strings(want)
	var got []string
	if err := s.Each(func(l []byte) error { got = append(got, string(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sorted %d lines, want %d in order", len(got), len(want))
	}
}
