package mirrorget

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/frontier"
)

// TestStatusHosts: --status lists the 50 hosts with the most URLs queued
// or leased, busiest first, and says how many more there are; with -v it
// lists every host, by name.
func TestStatusHosts(t *testing.T) {
	ctx := context.Background()
	f := frontier.NewMemory(frontier.Options{PerHost: 1})
	var es []frontier.Entry
	for i := range 60 {
		for k := range i + 1 { // host i has i+1 URLs
			es = append(es, frontier.Entry{URL: fmt.Sprintf("http://h%02d.example/%d", i, k)})
		}
	}
	if _, err := f.Add(ctx, es...); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := printStatus(ctx, f, &out, false); err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "host ") {
			hosts = append(hosts, l)
		}
	}
	if len(hosts) != 50 || !strings.HasPrefix(hosts[0], "host http://h59.example: queued 60,") || !strings.HasPrefix(hosts[49], "host http://h10.example: queued 11,") {
		t.Errorf("%d host lines, first %q, last %q", len(hosts), hosts[0], hosts[len(hosts)-1])
	}
	if !strings.Contains(out.String(), "hosts: 60\n") || !strings.Contains(out.String(), "... 10 more hosts (-v lists every one)\n") {
		t.Errorf("status:\n%s", out.String())
	}
	out.Reset()
	if err := printStatus(ctx, f, &out, true); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\nhost "); n != 60 || !strings.Contains(out.String(), "\nhost http://h00.example: queued 1,") || strings.Contains(out.String(), "more hosts") {
		t.Errorf("with -v: %d host lines:\n%s", n, out.String())
	}
	if i, j := strings.Index(out.String(), "h00.example"), strings.Index(out.String(), "h59.example"); i > j {
		t.Errorf("with -v hosts are not by name")
	}
}
