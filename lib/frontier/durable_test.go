package frontier

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/frontier/redistest"
)

// boltChildEnv names the state directory of the child process of
// TestBoltSIGKILL.
const boltChildEnv = "ARCPORT_FRONTIER_KILL_CHILD"

// boltChild is the process TestBoltSIGKILL kills: four goroutines add
// URLs one call at a time and take and finish some, printing "A URL" once
// an Add returned and "D URL" once a Done returned, until it is killed.
func boltChild(dir string) {
	f, err := OpenBolt(dir, Options{PerHost: 1000})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	fail := func(v ...any) {
		fmt.Fprintln(os.Stderr, v...)
		os.Exit(1)
	}
	for g := range 4 {
		go func() {
			for i := g; i < 1_000_000; i += 4 { // a bound, should the parent die first
				u := fmt.Sprintf("http://h%d/p%d", i%7, i)
				if _, err := f.Add(ctx, Entry{URL: u, Depth: i % 3}); err != nil {
					fail(err)
				}
				fmt.Printf("A %s\n", u)
				if i%3 == 2 {
					l, _, err := f.Take(ctx, "child")
					if err != nil || l == nil {
						fail("take:", l, err)
					}
					if i%2 == 0 { // half the taken URLs stay leased when killed
						if err := f.Done(ctx, l, Fetched); err != nil {
							fail(err)
						}
						fmt.Printf("D %s\n", l.URL)
					}
				}
			}
		}()
	}
	select {}
}

// TestBoltSIGKILL runs this test binary again as a child that adds URLs
// and finishes some, kills it with SIGKILL in the middle of its loop, and
// reopens the state: every URL whose Add returned is there (queued, or
// done), no URL whose Done returned is queued again, and the URLs leased
// but not done are queued again. The child adds from four goroutines, so
// that the adds share commits.
func TestBoltSIGKILL(t *testing.T) {
	if dir := os.Getenv(boltChildEnv); dir != "" {
		boltChild(dir)
		return
	}
	dir := filepath.Join(t.TempDir(), "state")
	cmd := exec.Command(os.Args[0], "-test.run=^TestBoltSIGKILL$", "-test.count=1")
	cmd.Env = append(os.Environ(), boltChildEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	added, done := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(added) < 600 {
		kind, u, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "A":
			added[u] = true
		case "D":
			done[u] = true
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	// the lines written before the kill were acknowledged too
	for sc.Scan() {
		kind, u, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "A":
			added[u] = true
		case "D":
			done[u] = true
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v; stderr: %s", err, stderr.String())
	}
	if len(added) < 600 || len(done) == 0 {
		t.Fatalf("child acknowledged %d adds and %d dones; stderr: %s", len(added), len(done), stderr.String())
	}

	f, err := OpenBolt(dir, Options{PerHost: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := f.Stats(bg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Done < int64(len(done)) || s.Leased != 0 {
		t.Fatalf("reopened stats %+v; %d dones acknowledged", s, len(done))
	}
	taken := map[string]bool{}
	for {
		l, _, err := f.Take(bg, "after")
		if errors.Is(err, ErrOver) {
			break
		}
		if err != nil || l == nil {
			t.Fatalf("Take: %v %v", l, err)
		}
		if taken[l.URL] {
			t.Fatalf("%s taken twice", l.URL)
		}
		taken[l.URL] = true
		if err := f.Done(bg, l, Fetched); err != nil {
			t.Fatal(err)
		}
	}
	// a URL added and not queued any more was done: acknowledged, or done
	// by the child just before the kill with its line not yet written
	// (as many as Stats counts dones beyond those acknowledged); it is
	// still seen
	unacked := 0
	for u := range added {
		if taken[u] || done[u] {
			continue
		}
		unacked++
		if n, err := f.Add(bg, Entry{URL: u}); err != nil || n != 0 {
			t.Errorf("added %s lost: neither queued nor seen (%d, %v)", u, n, err)
		}
	}
	if unacked > int(s.Done)-len(done) {
		t.Errorf("%d added URLs neither queued nor done by an acknowledged Done; only %d unacknowledged dones",
			unacked, int(s.Done)-len(done))
	}
	for u := range done {
		if taken[u] {
			t.Errorf("done %s queued again", u)
		}
	}
	t.Logf("child killed after %d acknowledged adds, %d acknowledged dones; reopened: %d queued again, %d done in all",
		len(added), len(done), len(taken), s.Done)
}

// TestBoltInUse: a second open of a state directory in use fails at once
// with a message naming it.
func TestBoltInUse(t *testing.T) {
	dir := t.TempDir()
	f, err := OpenBolt(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = OpenBolt(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, BoltFile)) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open: %v", err)
	}
}

// TestBoltReopen: a frontier closed and opened again goes on where it
// was: queue order, counters, host state, stop flag and robots cache.
func TestBoltReopen(t *testing.T) {
	dir := t.TempDir()
	o := Options{PerHost: 5}
	f, err := OpenBolt(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, f, 3, Entry{URL: "http://a/2", Depth: 2}, Entry{URL: "http://a/0"}, Entry{URL: "http://a/1", Depth: 1})
	l := mustTake(t, f, "w")
	f.Done(bg, l, Failed)
	f.SetInterval(bg, "http://a", time.Hour)
	f.SetRobots(bg, "http://a", []byte("rules"), time.Hour)
	lk := mustTake(t, f, "w") // leased when closed: queued again
	f.Close()
	f, err = OpenBolt(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _ := f.Stats(bg)
	if s.Done != 1 || s.Failed != 1 || s.Queued != 2 || s.Seen != 3 || s.Hosts["http://a"].Failed != 1 {
		t.Fatalf("stats after reopen %+v", s)
	}
	if b, ok, _ := f.Robots(bg, "http://a"); !ok || string(b) != "rules" {
		t.Fatalf("robots after reopen %q %v", b, ok)
	}
	if l := mustTake(t, f, "w"); l.URL != lk.URL {
		t.Fatalf("first after reopen %s, want %s", l.URL, lk.URL)
	}
	mustWait(t, f) // the host's crawl delay of an hour was kept
}

// TestRedisRestart: a worker whose Redis server goes away gets errors,
// not a wrong answer, and works again when the server is back. With a
// server that keeps nothing on disk (--save "" --appendonly no) the
// restarted server has lost the crawl: every call then fails with
// ErrStateLost instead of taking the empty server for a finished crawl.
// With an append-only file the crawl goes on where it was.
func TestRedisRestart(t *testing.T) {
	for _, persist := range []bool{false, true} {
		t.Run(fmt.Sprintf("persist=%v", persist), func(t *testing.T) {
			srv := redistest.Start(t, redistest.Options{Persist: persist})
			f, err := DialRedis(bg, "redis://"+srv.Addr+"/0", RedisOptions{CrawlID: "r", Options: Options{PerHost: 5}})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			mustAdd(t, f, 10, urls("http://a", 10)...)
			l := mustTake(t, f, "w")

			srv.Kill()
			ctx, cancel := context.WithTimeout(bg, 10*time.Second)
			defer cancel()
			if _, err := f.Add(ctx, Entry{URL: "http://a/new"}); err == nil || !strings.Contains(err.Error(), srv.Addr) {
				t.Fatalf("Add with the server down: %v", err)
			}
			if _, _, err := f.Take(ctx, "w"); err == nil {
				t.Fatal("Take with the server down: no error")
			}
			if _, err := f.Over(ctx); err == nil {
				t.Fatal("Over with the server down: no error")
			}

			srv.StartAgain()
			if !persist {
				for _, err := range []error{
					func() error { _, _, err := f.Take(bg, "w"); return err }(),
					func() error { _, err := f.Over(bg); return err }(),
					func() error { _, err := f.Add(bg, Entry{URL: "http://a/x"}); return err }(),
					f.Done(bg, l, Fetched),
				} {
					if !errors.Is(err, ErrStateLost) {
						t.Fatalf("after losing the state: %v, want ErrStateLost", err)
					}
				}
				return
			}
			if err := f.Done(bg, l, Fetched); err != nil {
				t.Fatalf("Done after restart: %v", err)
			}
			s, err := f.Stats(bg)
			if err != nil {
				t.Fatal(err)
			}
			if s.Queued != 9 || s.Done != 1 || s.Seen != 10 {
				t.Fatalf("stats after restart %+v", s)
			}
			mustTake(t, f, "w")
		})
	}
}
