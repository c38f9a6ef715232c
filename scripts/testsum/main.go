// Command testsum reads `go test -json` on standard input and prints what a
// person running `make test` wants to see: one line per package as it ends
// (as go test prints them), a line for every test that took 5 s or more, a
// line every 30 s naming what is still running, the whole output of every
// failed test, and at the end one line naming every skipped test with its
// reason (for a missing peer, the package to install) and the closing count
// "N passed, N failed, N skipped". It exits 1 when a test or a build
// failed, or when no test ran.
//
//	go test -json ./... | go run ./scripts/testsum
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time        time.Time
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

type key struct{ pkg, test string }

type summary struct {
	mu       sync.Mutex
	out      io.Writer
	outputs  map[key][]string  // output lines of tests still running or failed
	running  map[key]time.Time // tests under way
	pkgStart map[string]time.Time
	builds   map[string][]string // build output per import path
	skipped  []string
	passed   int
	failed   int
	failPkgs []string
}

func main() {
	s := &summary{
		out:      os.Stdout,
		outputs:  map[key][]string{},
		running:  map[key]time.Time{},
		pkgStart: map[string]time.Time{},
		builds:   map[string][]string{},
	}
	done := make(chan struct{})
	go s.heartbeat(done, 30*time.Second)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(s.out, "%s\n", line) // not JSON: go's own messages
			continue
		}
		s.handle(&e)
	}
	close(done)
	os.Exit(s.finish())
}

func (s *summary) handle(e *event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{e.Package, e.Test}
	switch e.Action {
	case "build-output":
		s.builds[e.ImportPath] = append(s.builds[e.ImportPath], e.Output)
	case "build-fail":
		fmt.Fprintf(s.out, "%s", strings.Join(s.builds[e.ImportPath], ""))
	case "start":
		s.pkgStart[e.Package] = e.Time
	case "run":
		s.running[k] = e.Time
	case "output":
		if e.Test != "" || strings.HasPrefix(e.Output, "panic:") || len(s.outputs[k]) > 0 {
			s.outputs[k] = append(s.outputs[k], e.Output)
		} else if !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "--- ") &&
			e.Output != "PASS\n" && e.Output != "FAIL\n" && !strings.HasPrefix(e.Output, "ok  ") &&
			!strings.HasPrefix(e.Output, "FAIL\t") && !strings.HasPrefix(e.Output, "?   ") {
			s.outputs[k] = append(s.outputs[k], e.Output) // package-level output (TestMain, build)
		}
	case "pass", "fail", "skip":
		delete(s.running, k)
		if e.Test == "" {
			s.endPackage(e)
			return
		}
		switch e.Action {
		case "pass":
			s.passed++
		case "fail":
			s.failed++
			fmt.Fprintf(s.out, "--- FAIL: %s %s (%.2fs)\n%s", e.Package, e.Test, e.Elapsed, strings.Join(s.outputs[k], ""))
		case "skip":
			s.skipped = append(s.skipped, fmt.Sprintf("%s (%s)", e.Test, skipReason(s.outputs[k])))
		}
		if e.Action != "skip" && e.Elapsed >= 5 && !strings.Contains(e.Test, "/") {
			fmt.Fprintf(s.out, "    %s %s %s (%.1fs)\n", strings.ToUpper(e.Action), shortPkg(e.Package), e.Test, e.Elapsed)
		}
		delete(s.outputs, k)
	}
}

// endPackage prints the package's line as go test does.
func (s *summary) endPackage(e *event) {
	k := key{e.Package, ""}
	switch e.Action {
	case "pass":
		fmt.Fprintf(s.out, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
	case "skip":
		fmt.Fprintf(s.out, "?   \t%s\t[no test files]\n", e.Package)
	case "fail":
		if out := s.outputs[k]; len(out) > 0 {
			fmt.Fprintf(s.out, "%s", strings.Join(out, ""))
		}
		if e.FailedBuild != "" {
			fmt.Fprintf(s.out, "FAIL\t%s [build failed]\n", e.Package)
		} else {
			fmt.Fprintf(s.out, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
		}
		s.failPkgs = append(s.failPkgs, e.Package)
	}
	delete(s.outputs, k)
	var unfinished []key
	for rk := range s.running {
		if rk.pkg == e.Package {
			unfinished = append(unfinished, rk)
			delete(s.running, rk)
		}
	}
	// A package that died (a timeout's panic, a crash) leaves tests that
	// never ended: their output holds the reason, so show its end.
	sort.Slice(unfinished, func(i, j int) bool { return unfinished[i].test < unfinished[j].test })
	for _, rk := range unfinished {
		if rk.test == "" {
			continue
		}
		out := s.outputs[rk]
		if len(out) > unfinishedLines {
			out = append([]string{fmt.Sprintf("    [... %d earlier lines]\n", len(out)-unfinishedLines)}, out[len(out)-unfinishedLines:]...)
		}
		fmt.Fprintf(s.out, "--- UNFINISHED: %s %s\n%s", e.Package, rk.test, strings.Join(out, ""))
		delete(s.outputs, rk)
	}
}

// unfinishedLines is how much of an unfinished test's output is shown.
const unfinishedLines = 150

// skipReason is the message t.Skip gave: the last output line that is not
// the "--- SKIP" line itself, without its file:line prefix.
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if i := strings.Index(l, ".go:"); i >= 0 {
			if j := strings.Index(l[i:], ": "); j >= 0 {
				l = l[i+j+2:]
			}
		}
		return l
	}
	return "no reason given"
}

func shortPkg(p string) string {
	return strings.TrimPrefix(p, "github.com/arcport/arcport/")
}

// heartbeat names, every period, the tests that have run longest.
func (s *summary) heartbeat(done <-chan struct{}, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			s.mu.Lock()
			var names []string
			for k, start := range s.running {
				if k.test == "" || strings.Contains(k.test, "/") {
					continue
				}
				names = append(names, fmt.Sprintf("%s %s (%ds)", shortPkg(k.pkg), k.test, int(now.Sub(start).Seconds())))
			}
			sort.Strings(names)
			if len(names) > 0 {
				fmt.Fprintf(s.out, "    ... running: %s\n", strings.Join(names, ", "))
			}
			s.mu.Unlock()
		}
	}
}

func (s *summary) finish() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var peers []string
	for _, sk := range s.skipped {
		if strings.Contains(sk, "missing peer ") {
			peers = append(peers, sk)
		}
	}
	if len(s.skipped) > 0 {
		fmt.Fprintf(s.out, "skipped %d tests (%d for a missing peer: run `make peers`): %s\n",
			len(s.skipped), len(peers), strings.Join(s.skipped, "; "))
	} else {
		fmt.Fprintf(s.out, "skipped: none\n")
	}
	if len(s.failPkgs) > 0 {
		fmt.Fprintf(s.out, "failed packages: %s\n", strings.Join(s.failPkgs, " "))
	}
	fmt.Fprintf(s.out, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, len(s.skipped))
	if s.failed > 0 || len(s.failPkgs) > 0 || s.passed == 0 {
		return 1
	}
	return 0
}
