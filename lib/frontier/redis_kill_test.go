package frontier

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/frontier/redistest"
)

// redisChildEnv holds the server address of the child of
// TestRedisWorkerSIGKILL.
const redisChildEnv = "ARCPORT_FRONTIER_REDIS_CHILD"

var killOpts = RedisOptions{CrawlID: "kill", Options: Options{PerHost: 10, Lease: 500 * time.Millisecond}}

// redisChild is a worker that holds up to three leases at a time, printing
// "T URL" when it took one and "D URL" when its Done returned, until it is
// killed.
func redisChild(addr string) {
	ctx := context.Background()
	f, err := DialRedis(ctx, "redis://"+addr+"/0", killOpts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var held []*Lease
	for range 100_000 { // a bound, should the parent die first
		l, err := Next(ctx, f, "child", 10*time.Millisecond)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("T %s\n", l.URL)
		held = append(held, l)
		if len(held) == 3 {
			if err := f.Done(ctx, held[0], Fetched); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Printf("D %s\n", held[0].URL)
			held = held[1:]
		}
	}
	os.Exit(2)
}

// TestRedisWorkerSIGKILL: a worker process taking URLs from Redis is
// killed with SIGKILL while it holds leases; two workers in this process
// finish the crawl. Every URL is done once; the only URLs fetched twice
// are among the killed worker's leases (at most 3), which expired and were
// reclaimed.
func TestRedisWorkerSIGKILL(t *testing.T) {
	if addr := os.Getenv(redisChildEnv); addr != "" {
		redisChild(addr)
		return
	}
	srv := redistest.Start(t, redistest.Options{})
	f, err := DialRedis(bg, "redis://"+srv.Addr+"/0", killOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = 300
	var all []Entry
	for h := range 3 {
		all = append(all, urls(fmt.Sprintf("http://h%d", h), n/3)...)
	}
	mustAdd(t, f, n, all...)

	cmd := exec.Command(os.Args[0], "-test.run=^TestRedisWorkerSIGKILL$", "-test.count=1")
	cmd.Env = append(os.Environ(), redisChildEnv+"="+srv.Addr)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	childTook, childDone := map[string]bool{}, map[string]bool{}
	read := func(line string) {
		kind, u, _ := strings.Cut(line, " ")
		switch kind {
		case "T":
			childTook[u] = true
		case "D":
			childDone[u] = true
		}
	}
	sc := bufio.NewScanner(out)
	for len(childDone) < 60 && sc.Scan() {
		read(sc.Text())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	for sc.Scan() {
		read(sc.Text())
	}
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child not killed: %v; stderr: %s", cmd.ProcessState, stderr.String())
	}

	ctx, cancel := context.WithTimeout(bg, 2*time.Minute) // a guard against a hang
	defer cancel()
	var mu sync.Mutex
	took := map[string]int{}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				l, err := Next(ctx, f, fmt.Sprint("w", w), 20*time.Millisecond)
				if errors.Is(err, ErrOver) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				took[l.URL]++
				mu.Unlock()
				if err := f.Done(bg, l, Fetched); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	s, err := f.Stats(bg)
	if err != nil {
		t.Fatal(err)
	}
	held := 0 // the child's leases when killed, as far as its lines tell
	for u := range childTook {
		if !childDone[u] {
			held++
		}
	}
	dups, unseen := 0, 0
	for _, e := range all {
		switch {
		case took[e.URL] > 1:
			t.Errorf("%s taken %d times after the kill", e.URL, took[e.URL])
		case took[e.URL] == 1 && childDone[e.URL]:
			t.Errorf("%s done by the killed worker and taken again", e.URL)
		case took[e.URL] == 1 && childTook[e.URL]:
			dups++ // the killed worker's lease, reclaimed
		case took[e.URL] == 0 && !childDone[e.URL]:
			unseen++ // done by the child, its line unwritten
		}
	}
	// each URL done once; the killed worker's leases (at most 3: one
	// taken with its line unwritten is not among dups) expired
	if s.Done != n || s.Queued != 0 || s.Leased != 0 {
		t.Errorf("stats %+v, want %d done", s, n)
	}
	if dups > int(s.Expired) || s.Expired > 3 || unseen > 1 {
		t.Errorf("%d URLs fetched twice, %d leases expired, %d done by the child unacknowledged; it held at most 3 (%d by its lines)",
			dups, s.Expired, unseen, held)
	}
	t.Logf("child killed after %d dones holding %d leases; %d fetched twice after expiry; stats %+v",
		len(childDone), held, dups, s)
}
