package mirrorget

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/frontier"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/record"
)

// deduper finds the first capture of a payload digest, across URLs: from
// --dedup-index FILE.cdxj and this run (memory), or from the Redis frontier
// shared by all workers. A capture whose payload was captured before is
// written as an identical-payload-digest revisit (Heritrix, Browsertrix).
type deduper interface {
	// first returns the earlier capture of digest, or nil; the memory
	// deduper records e as its first at once, the Redis one once e is
	// durable (Capture.OnDurable).
	first(ctx context.Context, digest string, e dedupEntry) (*dedupEntry, error)
}

// dedupEntry is a capture as a revisit names it.
type dedupEntry struct {
	URL, Date, ID string
}

func (e dedupEntry) String() string { return e.URL + "\t" + e.Date + "\t" + e.ID }

func parseDedupEntry(s string) *dedupEntry {
	f := strings.SplitN(s, "\t", 3)
	if len(f) < 2 {
		return nil
	}
	e := &dedupEntry{URL: f[0], Date: f[1]}
	if len(f) == 3 {
		e.ID = f[2]
	}
	return e
}

// digestKey is the algorithm and value of a payload digest, upper case
// (CDXJ files hold the value alone, records "sha1:VALUE").
func digestKey(d string) string {
	if !strings.Contains(d, ":") {
		d = "sha1:" + d
	}
	return strings.ToUpper(d)
}

type memDedup struct {
	mu sync.Mutex
	m  map[string]dedupEntry
}

func (d *memDedup) first(_ context.Context, digest string, e dedupEntry) (*dedupEntry, error) {
	k := digestKey(digest)
	d.mu.Lock()
	defer d.mu.Unlock()
	if prev, ok := d.m[k]; ok {
		return &prev, nil
	}
	d.m[k] = e
	return nil, nil
}

// loadDedupIndex reads the captures of a CDXJ index (local, s3:// or
// https://): the first non-revisit 200 capture of each digest.
func loadDedupIndex(name string) (*memDedup, error) {
	d := &memDedup{m: map[string]dedupEntry{}}
	if name == "" {
		return d, nil
	}
	r, shown, err := cliutil.OpenInput(name)
	if err != nil {
		return nil, err
	}
	name = shown
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '!' {
			continue
		}
		e, err := cdx.ParseCDXJ(line)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", name, n, err)
		}
		dg, _ := e.Get(cdx.FieldDigest)
		mime, _ := e.Get(cdx.FieldMIME)
		st, _ := e.Get(cdx.FieldStatus)
		u, _ := e.Get(cdx.FieldURL)
		if dg == "" || mime == "warc/revisit" || st != "200" || u == "" {
			continue
		}
		t, _, err := record.ParseTimestamp(e.Timestamp)
		if err != nil {
			continue
		}
		k := digestKey(dg)
		if _, ok := d.m[k]; !ok {
			d.m[k] = dedupEntry{URL: u, Date: record.FormatDate(t, false)}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}

// redisDedup keeps the first capture of each digest in the crawl's Redis
// state, behind what --dedup-index gives.
type redisDedup struct {
	r    *frontier.Redis
	base *memDedup
}

func (d *redisDedup) first(ctx context.Context, digest string, e dedupEntry) (*dedupEntry, error) {
	if prev := d.base.m[digestKey(digest)]; prev.URL != "" {
		return &prev, nil
	}
	// a Redis being restarted is waited for, as the crawler waits for
	// its frontier
	backoff := 50 * time.Millisecond
	for {
		v, err := d.r.Digest(ctx, digestKey(digest))
		switch {
		case err == nil && v == "":
			return nil, nil
		case err == nil:
			return parseDedupEntry(v), nil
		case errors.Is(err, frontier.ErrStateLost) || ctx.Err() != nil:
			return nil, err
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// remember publishes e as the capture of digest once it is durable (a
// worker killed before its S3 object is complete must leave no digest
// that revisits would refer to).
func (d *redisDedup) remember(digest string, e dedupEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d.r.SetDigest(ctx, digestKey(digest), e.String())
}

// dedupPrepare makes cp, a 200 not already a revisit, an identical-payload-
// digest revisit of the first capture of its payload.
func dedupPrepare(ctx context.Context, d deduper, cp *crawl.Capture) error {
	if cp.Revisit != nil || cp.Robots || cp.Response == nil || cp.Head == nil || cp.Status() != 200 || cp.Truncated != "" {
		return nil
	}
	if cp.PayloadDigest == "" {
		dg, ok := cp.BodyDigest()
		if !ok {
			return nil
		}
		cp.PayloadDigest = dg
	}
	if cp.RecordID == "" {
		cp.RecordID = crawl.NewRecordID()
	}
	fctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	prev, err := d.first(fctx, cp.PayloadDigest, dedupEntry{URL: cp.URL, Date: record.FormatDate(cp.Date, false), ID: cp.RecordID})
	if err != nil {
		return fmt.Errorf("deduplication: %w", err)
	}
	if prev != nil {
		cp.Revisit = &crawl.Revisit{Profile: crawl.ProfileIdenticalPayloadDigest, RefersTo: prev.ID,
			RefersToURI: prev.URL, RefersToDate: prev.Date, PayloadDigest: cp.PayloadDigest}
	} else if rd, ok := d.(*redisDedup); ok {
		digest, e := cp.PayloadDigest, dedupEntry{URL: cp.URL, Date: record.FormatDate(cp.Date, false), ID: cp.RecordID}
		cp.OnDurable = func() { rd.remember(digest, e) }
	}
	return nil
}
