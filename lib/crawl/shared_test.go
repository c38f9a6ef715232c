package crawl

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/frontier"
	"github.com/arcport/arcport/lib/frontier/redistest"
)

// withFrontier, when set, gives run's crawls a frontier: the crawler's
// tests then run against the frontier mode (TestShared*).
var withFrontier func(t *testing.T, cfg Config) frontier.Frontier

// frontierOptions are the frontier settings mirrorget derives from cfg.
func frontierOptions(cfg Config) frontier.Options {
	conns := cfg.Connections
	if conns <= 0 {
		conns = 4
	}
	per := cfg.PerHost
	if per <= 0 || per > conns {
		per = conns
	}
	var iv time.Duration
	if cfg.Rate > 0 {
		iv = time.Duration(float64(time.Second) / cfg.Rate * 1.01)
	}
	return frontier.Options{PerHost: per, Interval: iv, Lease: 5 * time.Second}
}

// sharedTests are the crawler's tests whose behaviour a frontier crawl
// must keep.
var sharedTests = []struct {
	name string
	f    func(*testing.T)
}{
	{"CrawlSite", TestCrawlSite},
	{"Politeness", TestPoliteness},
	{"Redirects", TestRedirects},
	{"ErrorsRecorded", TestErrorsRecorded},
	{"RobotsDisallow", TestRobotsDisallow},
	{"TrapsBounded", TestTrapsBounded},
	{"RetryAfter", TestRetryAfter},
	{"RetriesOnNetworkErrors", TestRetriesOnNetworkErrors},
	{"MaxSize", TestMaxSize},
	{"Conditional", TestConditional},
	{"HTTPSAndCrawlDelay", TestHTTPSAndCrawlDelay},
	{"CookiesSent", TestCookiesSent},
	{"MIMEFilters", TestMIMEFilters},
	{"SizeLimitsByKind", TestSizeLimitsByKind},
	{"MinSize", TestMinSize},
	{"MaxPages", TestMaxPages},
	{"MaxPagesRefused", TestMaxPagesRefused},
	{"MaxBytes", TestMaxBytes},
	{"MaxTime", TestMaxTime},
}

func runShared(t *testing.T, mk func(t *testing.T, cfg Config) frontier.Frontier) {
	withFrontier = mk
	defer func() { withFrontier = nil }()
	for _, tc := range sharedTests {
		t.Run(tc.name, tc.f)
	}
}

// TestSharedMemory runs the crawler's tests with a Memory frontier.
func TestSharedMemory(t *testing.T) {
	runShared(t, func(t *testing.T, cfg Config) frontier.Frontier {
		return frontier.NewMemory(frontierOptions(cfg))
	})
}

// TestSharedBolt runs them with a Bolt frontier in a fresh directory.
func TestSharedBolt(t *testing.T) {
	runShared(t, func(t *testing.T, cfg Config) frontier.Frontier {
		b, err := frontier.OpenBolt(t.TempDir(), frontierOptions(cfg))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	})
}

// sharedNoIdle is set while the tests run with a Redis frontier, where no
// connection is kept idle (other processes share the hosts' -c): a test
// counting reused connections then counts one per request.
var sharedNoIdle bool

// TestSharedRedis runs them with a Redis frontier on a real redis-server,
// a crawl id per test.
func TestSharedRedis(t *testing.T) {
	sharedNoIdle = true
	defer func() { sharedNoIdle = false }()
	srv := redistest.Start(t, redistest.Options{})
	n := 0
	runShared(t, func(t *testing.T, cfg Config) frontier.Frontier {
		n++
		r, err := frontier.DialRedis(context.Background(), "redis://"+srv.Addr+"/0",
			frontier.RedisOptions{Options: frontierOptions(cfg), CrawlID: fmt.Sprintf("test-%d", n), Shards: 16})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	})
}
