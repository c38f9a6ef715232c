package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arcport/arcport/lib/store/s3test"
)

// sdkPut stores data as s3://bucket/key with the AWS SDK straight to the
// server (not through the counting proxy, not through arcport's code), so
// that the object has the ETag S3 gives it.
func (e *s3env) sdkPut(t *testing.T, bucket, key string, data []byte) {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(s3test.Region),
		config.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: e.srv.Access, SecretAccessKey: e.srv.Secret}, nil
		})))
	if err != nil {
		t.Fatal(err)
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String(e.srv.URL); o.UsePathStyle = true })
	if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data)}); err != nil {
		t.Fatalf("PutObject %s: %v", key, err)
	}
}

// genARC returns an ARC v1 file named name with n resource records of
// size bytes each, random (incompressible) from seed.
func genARC(name string, n, size int, seed int64) []byte {
	rnd := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	meta := "1 0 arcport batch test\nURL IP-address Archive-date Content-type Archive-length\n"
	fmt.Fprintf(&b, "filedesc://%s 127.0.0.1 20140216050221 text/plain %d\n%s\n", name, len(meta), meta)
	body := make([]byte, size)
	for i := 0; i < n; i++ {
		rnd.Read(body)
		fmt.Fprintf(&b, "http://example.com/%s/%d 127.0.0.1 201402160502%02d application/octet-stream %d\n", name, i, i%60, size)
		b.Write(body)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// keys returns the keys under prefix in the server's posix backend.
func (e *s3env) keys(t *testing.T, bucket, prefix string) []string {
	t.Helper()
	root := filepath.Join(e.srv.Dir, bucket)
	var out []string
	filepath.Walk(filepath.Join(root, prefix), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// puts counts the requests that write (PUT and POST: PutObject,
// UploadPart, Create/CompleteMultipartUpload) in the proxy's log.
func puts(p *s3test.Proxy) (n int, what []string) {
	for _, r := range p.Log() {
		if r.Method == "PUT" || r.Method == "POST" {
			n++
			what = append(what, r.Method+" "+r.Path+"?"+r.Query)
		}
	}
	return n, what
}

// TestBatchShards is the shard contract of issue 28 on a real S3 server
// (versitygw, a counting proxy in front): 20 ARCs in s3://, a plan for 7
// shards, the shards run in shuffled order, one of them twice at once, one
// SIGKILLed during its multipart upload and run again: every output equals
// the one-process run's, byte for byte, and nothing else is under the
// output prefix but the done markers. A rerun of all 7 with
// --skip-existing makes no PUT. Then: an input replaced after the plan
// fails its shard with 65, a server that is down fails a task with 75.
func TestBatchShards(t *testing.T) {
	e := newS3(t, "coll")
	example, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var list strings.Builder
	list.WriteString("# 20 ARCs for the batch test\n\n")
	var stems []string
	for i := 0; i < 20; i++ {
		stem := fmt.Sprintf("crawl-%02d", i)
		var data []byte
		switch {
		case i == 5:
			data = example
		case i == 11:
			// the big one: 12 MiB that gzip cannot shrink, a multipart
			// upload of 5 MiB parts
			data = genARC(stem+".arc", 12, 1<<20, int64(i))
		default:
			data = genARC(stem+".arc", 1+i%4, 1000*(i+1), int64(i))
		}
		name := stem + ".arc"
		if i == 5 {
			name += ".gz"
		}
		e.sdkPut(t, "coll", "arc/"+name, data)
		fmt.Fprintf(&list, "s3://coll/arc/%s\n", name)
		if i%6 == 3 {
			list.WriteString("   # a comment in the middle\n")
		}
		stems = append(stems, stem)
	}
	e.sdkPut(t, "coll", "lists/arcs.txt", []byte(list.String()))

	// the plan
	if _, se, code := e.run(t, "waczpack", nil, "plan", "--inputs", "s3://coll/lists/arcs.txt", "--shard-count", "7", "-v", "-o", "s3://coll/lists/plan.jsonl"); code != 0 {
		t.Fatalf("waczpack plan: exit %d: %s", code, se)
	} else {
		t.Logf("%s", strings.TrimSpace(se))
	}
	plan := e.object(t, "coll", "lists/plan.jsonl")
	shardOf := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(plan)), "\n")[1:] {
		var in struct {
			Input string
			Shard int
			ETag  string
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatal(err)
		}
		if in.ETag == "" || strings.HasPrefix(in.ETag, "size:") {
			t.Errorf("plan: %s pinned without an ETag: %q", in.Input, in.ETag)
		}
		shardOf[in.Input] = in.Shard
	}
	big := shardOf["s3://coll/arc/crawl-11.arc"]
	if len(shardOf) != 20 || big != 0 {
		t.Fatalf("plan: %d inputs, the biggest in shard %d (LPT puts it in 0):\n%s", len(shardOf), big, plan)
	}

	// the one-process run, from the plain list
	ref := []string{"--inputs", "s3://coll/lists/arcs.txt", "-o", "s3://coll/ref/{stem}.warc.gz", "--part-size", "5m"}
	if _, se, code := e.run(t, "arc2warc", nil, ref...); code != 0 {
		t.Fatalf("one-process run: exit %d: %s", code, se)
	}

	task := func(i int, extra ...string) []string {
		return append([]string{"--inputs", "s3://coll/lists/plan.jsonl", "--shard-index", strconv.Itoa(i),
			"-o", "s3://coll/warc/{stem}.warc.gz", "--part-size", "5m", "--emit", "jsonl"}, extra...)
	}
	order := rand.New(rand.NewSource(28)).Perm(7)
	twice := order[2]
	if twice == big {
		twice = order[3]
	}
	t.Logf("shard order %v; shard %d run twice at once; shard %d killed mid-upload", order, twice, big)
	for _, i := range order {
		switch i {
		case big:
			// SIGKILL once an UploadPart of the big output has been sent
			e.proxy.Reset()
			cmd := exec.Command(bin(t, "arc2warc"), task(i)...)
			cmd.Env = e.env
			var se bytes.Buffer
			cmd.Stderr = &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for {
				n := 0
				for _, r := range e.proxy.Log() {
					if r.Method == "PUT" && strings.Contains(r.Path, "warc/crawl-11.warc.gz") && strings.Contains(r.Query, "partNumber") {
						n++
					}
				}
				if n > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("shard %d: no UploadPart of crawl-11 seen; stderr: %s", i, se.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Kill()
			cmd.Wait()
			if e.object(t, "coll", "warc/crawl-11.warc.gz") != nil {
				t.Fatal("an object under the output key of a task killed mid-upload")
			}
			if u := e.uploads(t, "coll"); len(u) != 1 || u[0] != "warc/crawl-11.warc.gz" {
				t.Errorf("incomplete multipart uploads after SIGKILL: %v (want the one of crawl-11)", u)
			}
			if _, se, code := e.run(t, "arc2warc", nil, task(i)...); code != 0 {
				t.Fatalf("shard %d rerun after SIGKILL: exit %d: %s", i, code, se)
			}
		case twice:
			var wg sync.WaitGroup
			codes := make([]int, 2)
			errs := make([]string, 2)
			for k := 0; k < 2; k++ {
				wg.Add(1)
				go func(k int) {
					defer wg.Done()
					_, errs[k], codes[k] = e.run(t, "arc2warc", nil, task(i)...)
				}(k)
			}
			wg.Wait()
			if codes[0] != 0 || codes[1] != 0 {
				t.Fatalf("shard %d twice at once: exits %v: %s | %s", i, codes, errs[0], errs[1])
			}
		default:
			out, se, code := e.run(t, "arc2warc", nil, task(i)...)
			if code != 0 {
				t.Fatalf("shard %d: exit %d: %s", i, code, se)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var r struct{ Input, Output, Status, SHA256 string }
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("shard %d: --emit line %q: %v", i, line, err)
				}
				sum := sha256.Sum256(e.object(t, "coll", strings.TrimPrefix(r.Output, "s3://coll/")))
				if r.Status != "done" || shardOf[r.Input] != i || r.SHA256 != hex.EncodeToString(sum[:]) {
					t.Errorf("shard %d: result %+v (object's sha256 %x)", i, r, sum)
				}
			}
		}
	}

	var want []string
	for _, s := range stems {
		want = append(want, "warc/"+s+".warc.gz", "warc/_done/"+s+".warc.gz.json")
	}
	sort.Strings(want)
	if got := e.keys(t, "coll", "warc"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("under warc/:\n%v\nwant\n%v", got, want)
	}
	for _, s := range stems {
		got, ref := e.object(t, "coll", "warc/"+s+".warc.gz"), e.object(t, "coll", "ref/"+s+".warc.gz")
		if len(ref) == 0 || !bytes.Equal(got, ref) {
			t.Errorf("%s: sharded output (%d bytes) differs from the one-process run's (%d bytes)", s, len(got), len(ref))
		}
	}
	if !t.Failed() {
		t.Logf("20 outputs equal the one-process run's (the largest %d bytes)", len(e.object(t, "coll", "ref/crawl-11.warc.gz")))
	}

	// the same bytes as arc2warc --deterministic-ids on one local file
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "crawl-05.arc.gz"), example, 0o644)
	local := filepath.Join(dir, "crawl-05.warc.gz")
	if _, se, code := run(t, bin(t, "arc2warc"), nil, "--deterministic-ids", "-o", local, filepath.Join(dir, "crawl-05.arc.gz")); code != 0 {
		t.Fatalf("local arc2warc: exit %d: %s", code, se)
	}
	if l, _ := os.ReadFile(local); !bytes.Equal(l, e.object(t, "coll", "warc/crawl-05.warc.gz")) {
		t.Errorf("batch output differs from arc2warc --deterministic-ids of the same file")
	}

	// a rerun of every shard with --skip-existing: no PUT
	e.proxy.Reset()
	skipped := 0
	for i := 0; i < 7; i++ {
		out, se, code := e.run(t, "arc2warc", nil, task(i, "--skip-existing")...)
		if code != 0 {
			t.Fatalf("shard %d --skip-existing: exit %d: %s", i, code, se)
		}
		skipped += strings.Count(string(out), `"status":"skipped"`)
	}
	n, what := puts(e.proxy)
	st := e.proxy.Stats()
	t.Logf("rerun of 7 shards with --skip-existing: %d skipped, %d requests, %d PUT/POST", skipped, st.Requests, n)
	if n != 0 || skipped != 20 {
		t.Errorf("rerun with --skip-existing: %d skipped (want 20), %d writes: %v", skipped, n, what)
	}

	// an input replaced after the plan: its shard exits 65, the output is kept
	e.sdkPut(t, "coll", "arc/crawl-05.arc.gz", genARC("crawl-05.arc", 1, 10, 5))
	s5 := shardOf["s3://coll/arc/crawl-05.arc.gz"]
	_, se, code := e.run(t, "arc2warc", nil, task(s5, "--skip-existing")...)
	if code != 65 || !strings.Contains(se, "changed since the plan") {
		t.Errorf("shard %d with an input changed since the plan: exit %d, want 65: %s", s5, code, se)
	}

	// the connection dropped in the middle of reading an input, no retry
	// left: transient, 75, and no output
	e.sdkPut(t, "coll", "lists/one.txt", []byte("s3://coll/arc/crawl-03.arc\n"))
	e.proxy.Reset()
	e.proxy.Cut(10, 1000)
	_, se, code = e.run(t, "arc2warc", []string{"AWS_MAX_ATTEMPTS=1"}, "--inputs", "s3://coll/lists/one.txt", "-o", "s3://coll/cut/{stem}.warc.gz")
	if code != 75 || e.object(t, "coll", "cut/crawl-03.warc.gz") != nil {
		t.Errorf("input cut short mid-read: exit %d, want 75: %s", code, se)
	} else {
		t.Logf("input cut short mid-read: exit 75: %s", strings.TrimSpace(se))
	}
	// the same with waczpack index, which opens its inputs itself: the
	// task reads the input again before calling it bad
	e.proxy.Reset()
	e.proxy.Cut(10, 1000)
	_, se, code = e.run(t, "waczpack", []string{"AWS_MAX_ATTEMPTS=1"}, "index", "--inputs", "s3://coll/lists/one.txt", "-o", "s3://coll/cut/{stem}.cdxj")
	if code != 75 || e.object(t, "coll", "cut/crawl-03.cdxj") != nil {
		t.Errorf("waczpack index, input cut short mid-read: exit %d, want 75: %s", code, se)
	}
	e.proxy.Reset()
	if _, se, code = e.run(t, "waczpack", nil, "index", "--inputs", "s3://coll/lists/one.txt", "-o", "s3://coll/cut/{stem}.cdxj"); code != 0 {
		t.Errorf("waczpack index, rerun: exit %d: %s", code, se)
	}

	// the server down: a transient failure, 75
	e.srv.Kill()
	_, se, code = e.run(t, "arc2warc", []string{"AWS_MAX_ATTEMPTS=2"}, task(1)...)
	if code != 75 {
		t.Errorf("server down: exit %d, want 75: %s", code, se)
	}
}

// TestBatchIndex: `waczpack index --inputs - --sort -o TEMPLATE` over the
// WARC samples in 3 shards writes, for each good input, the run
// `waczpack index --sort INPUT -o OUT` writes, byte for byte; a damaged
// input gets no output and its shard exits 65, or with --on-bad-input
// record an _errors object and exit 0; a rerun with --skip-existing
// changes nothing.
func TestBatchIndex(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(repoRoot(), "testdata/warc/*.warc*"))
	if err != nil || len(names) < 6 {
		t.Fatalf("samples: %v %v", names, err)
	}
	list := []byte("# the WARC samples\n" + strings.Join(names, "\n") + "\n")
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "runs/{name}.cdxj")
	wp := bin(t, "waczpack")
	bad := map[string]bool{}
	for i := 0; i < 3; i++ {
		out, se, code := run(t, wp, list, "index", "--inputs", "-", "--shard-count", "3", "--shard-index", strconv.Itoa(i), "--sort", "-o", tmpl, "--emit", "jsonl")
		if code != 0 && code != 65 {
			t.Fatalf("shard %d: exit %d: %s", i, code, se)
		}
		nbad := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r struct{ Input, Status string }
			json.Unmarshal([]byte(line), &r)
			if r.Status == "bad" {
				bad[r.Input] = true
				nbad++
			}
		}
		if (code == 65) != (nbad > 0) {
			t.Errorf("shard %d: exit %d with %d bad inputs: %s", i, code, nbad, se)
		}
	}
	if len(bad) == 0 || len(bad) == len(names) {
		t.Fatalf("%d of %d samples bad: want some, not all", len(bad), len(names))
	}
	for _, n := range names {
		got, gerr := os.ReadFile(filepath.Join(dir, "runs", filepath.Base(n)+".cdxj"))
		one := filepath.Join(dir, "one.cdxj")
		os.Remove(one)
		_, se, code := run(t, wp, nil, "index", "--sort", n, "-o", one)
		want, werr := os.ReadFile(one)
		switch {
		case bad[n]:
			if gerr == nil || code == 0 {
				t.Errorf("%s: bad in batch mode (output: %v), single run exit %d", filepath.Base(n), gerr == nil, code)
			}
		case code != 0 || werr != nil:
			t.Errorf("%s: single run: exit %d: %s", filepath.Base(n), code, se)
		case gerr != nil || !bytes.Equal(got, want):
			t.Errorf("%s: batch run differs from the single run (%v)", filepath.Base(n), gerr)
		}
	}
	t.Logf("%d samples: %d indexed as one file at a time, %d bad", len(names), len(names)-len(bad), len(bad))

	// record the bad ones: exit 0, one _errors object each; then nothing to do
	for i := 0; i < 3; i++ {
		if _, se, code := run(t, wp, list, "index", "--inputs", "-", "--shard-count", "3", "--shard-index", strconv.Itoa(i), "--sort", "-o", tmpl, "--skip-existing", "--on-bad-input", "record"); code != 0 {
			t.Fatalf("shard %d, record: exit %d: %s", i, code, se)
		}
	}
	errs, _ := filepath.Glob(filepath.Join(dir, "runs/_errors/*.json"))
	if len(errs) != len(bad) {
		t.Errorf("%d _errors objects for %d bad inputs", len(errs), len(bad))
	}
	for i := 0; i < 3; i++ {
		out, se, code := run(t, wp, list, "index", "--inputs", "-", "--shard-count", "3", "--shard-index", strconv.Itoa(i), "--sort", "-o", tmpl, "--skip-existing", "--on-bad-input", "record", "--emit", "jsonl")
		if code != 0 || strings.Contains(string(out), `"status":"done"`) || strings.Contains(string(out), `"status":"bad"`) {
			t.Errorf("shard %d, rerun: exit %d, %s %s", i, code, out, se)
		}
	}
}

// TestBatchCheck: `waczpack check --inputs LIST -o TEMPLATE` in 2 shards
// writes for each WARC sample the report `waczpack check FILE` prints,
// byte for byte; a shard with a damaged sample exits 65, and -o without
// --inputs is bad usage.
func TestBatchCheck(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join(repoRoot(), "testdata/warc/*.warc*"))
	dir := t.TempDir()
	listFile := filepath.Join(dir, "warcs.txt")
	os.WriteFile(listFile, []byte(strings.Join(names, "\n")+"\n"), 0o644)
	wp := bin(t, "waczpack")
	for i := 0; i < 2; i++ {
		_, se, code := run(t, wp, nil, "check", "--inputs", listFile, "--shard-count", "2", "--shard-index", strconv.Itoa(i), "-o", filepath.Join(dir, "chk/{name}.txt"))
		if code != 0 && code != 65 {
			t.Fatalf("shard %d: exit %d: %s", i, code, se)
		}
	}
	bad := 0
	for _, n := range names {
		want, _, code := run(t, wp, nil, "check", n)
		got, err := os.ReadFile(filepath.Join(dir, "chk", filepath.Base(n)+".txt"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: report differs from waczpack check's output (%v):\n%s\nwant\n%s", filepath.Base(n), err, got, want)
		}
		_, derr := os.Stat(filepath.Join(dir, "chk/_done", filepath.Base(n)+".txt.json"))
		if code != 0 {
			bad++
		}
		if (code == 0) != (derr == nil) {
			t.Errorf("%s: check exit %d, done marker: %v", filepath.Base(n), code, derr)
		}
	}
	if bad == 0 {
		t.Error("no sample with a problem")
	}
	if _, se, code := run(t, wp, nil, "check", "-o", filepath.Join(dir, "x.txt"), names[0]); code != 2 {
		t.Errorf("check -o without --inputs: exit %d, want 2: %s", code, se)
	}
}

// TestBatchHTCache: `htcache export --inputs LIST -o TEMPLATE` over three
// copies of the garden mirror (named as a folder, a folder with a slash,
// a cache file) and a folder with no cache: two shards, run twice, give
// the same bytes both times; each WARC holds the records `htcache export
// DIR` writes, field for field and byte for byte, but for the warcinfo
// record's WARC-Date and ID (dated when the crawl was launched rather
// than when written) and the WARC-Warcinfo-ID naming it; the folder with
// no cache is a bad input (65); a rerun with --skip-existing writes
// nothing.
func TestBatchHTCache(t *testing.T) {
	garden := filepath.Join(repoRoot(), "..", "shared", "fixtures", "htcache", "garden")
	if _, err := os.Stat(filepath.Join(garden, "hts-cache", "new.zip")); err != nil {
		t.Skipf("garden fixture: %v", err)
	}
	dir := t.TempDir()
	for _, s := range []string{"site-a", "site-b", "site-c"} {
		if out, err := exec.Command("cp", "-r", garden, filepath.Join(dir, s)).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	list := strings.Join([]string{filepath.Join(dir, "site-a"), filepath.Join(dir, "site-b") + "/",
		filepath.Join(dir, "site-c/hts-cache/new.zip"), filepath.Join(dir, "empty")}, "\n") + "\n"
	ht := bin(t, "htcache")
	runs := [2]map[string][]byte{}
	for k := range runs {
		out := filepath.Join(dir, fmt.Sprintf("out%d", k))
		for i := 0; i < 2; i++ {
			_, se, code := run(t, ht, []byte(list), "export", "--inputs", "-", "--shard-count", "2", "--shard-index", strconv.Itoa(i), "-q", "-o", filepath.Join(out, "{index}-{stem}.warc.gz"))
			if want := []int{0, 65}[i]; code != want {
				t.Fatalf("run %d, shard %d: exit %d, want %d: %s", k, i, code, want, se)
			}
		}
		runs[k] = map[string][]byte{}
		for _, n := range []string{"00000-site-a", "00001-site-b", "00002-new"} {
			b, err := os.ReadFile(filepath.Join(out, n+".warc.gz"))
			if err != nil {
				t.Fatal(err)
			}
			runs[k][n] = b
		}
		if k == 0 {
			time.Sleep(1100 * time.Millisecond) // a second later: a date taken from the clock would differ
		}
	}
	inputs := strings.Split(strings.TrimSpace(list), "\n")
	for k, n := range []string{"00000-site-a", "00001-site-b", "00002-new"} {
		single := filepath.Join(dir, n+".warc.gz")
		if _, se, code := run(t, ht, nil, "export", "-q", "-o", single, inputs[k]); code != 0 {
			t.Fatalf("htcache export %s: exit %d: %s", inputs[k], code, se)
		}
		sb, _ := os.ReadFile(single)
		want := readWARC(t, sb)
		b := runs[0][n]
		if !bytes.Equal(b, runs[1][n]) {
			t.Errorf("%s: the second run wrote other bytes", n)
		}
		got := readWARC(t, b)
		if len(got) != len(want) || len(got) < 2 {
			t.Fatalf("%s: %d records, htcache export DIR writes %d", n, len(got), len(want))
		}
		if got[0].rec.Header.Get("WARC-Date") == want[0].rec.Header.Get("WARC-Date") {
			t.Errorf("%s: the warcinfo is dated as when written", n)
		}
		for i := range got {
			g, w := slices.Clone(got[i].rec.Header), slices.Clone(want[i].rec.Header)
			fields := []string{"WARC-Warcinfo-ID"}
			if i == 0 {
				fields = []string{"WARC-Record-ID", "WARC-Date"}
			}
			for _, f := range fields {
				if g.Get(f) == "" {
					t.Errorf("%s: record %d has no %s", n, i, f)
				}
				g.Del(f)
				w.Del(f)
			}
			if !reflect.DeepEqual(g, w) || !bytes.Equal(got[i].body, want[i].body) {
				t.Errorf("%s: record %d differs from htcache export DIR's:\n%v\n%v", n, i, g, w)
			}
			if i > 0 && got[i].rec.Header.Get("WARC-Warcinfo-ID") != got[0].rec.Header.Get("WARC-Record-ID") {
				t.Errorf("%s: record %d names warcinfo %s", n, i, got[i].rec.Header.Get("WARC-Warcinfo-ID"))
			}
		}
	}
	out, se, code := run(t, ht, []byte(list), "export", "--inputs", "-", "--shard-count", "2", "--shard-index", "0", "-q", "-o", filepath.Join(dir, "out0", "{index}-{stem}.warc.gz"), "--skip-existing", "--emit", "jsonl")
	if code != 0 || strings.Count(string(out), `"status":"skipped"`) != 2 {
		t.Errorf("rerun with --skip-existing: exit %d: %s %s", code, out, se)
	}
}

// TestBatchZimWarc: `zimdump warc --inputs LIST -o TEMPLATE` over every
// ZIM of testdata in 3 shards writes for each good archive what `zimdump
// warc -o FILE ARCHIVE` writes, byte for byte; a damaged one gets no
// output and its shard exits 65.
func TestBatchZimWarc(t *testing.T) {
	var names []string
	filepath.Walk(filepath.Join(repoRoot(), "testdata/zim"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".zim") {
			names = append(names, p)
		}
		return nil
	})
	if len(names) < 6 {
		t.Fatalf("%d ZIM samples", len(names))
	}
	dir := t.TempDir()
	listFile := filepath.Join(dir, "zims.txt")
	os.WriteFile(listFile, []byte(strings.Join(names, "\n")+"\n"), 0o644)
	zd := bin(t, "zimdump")
	tmpl := filepath.Join(dir, "out", "{index}-{stem}.warc.gz")
	for i := 0; i < 3; i++ {
		if _, se, code := run(t, zd, nil, "warc", "--inputs", listFile, "--shard-count", "3", "--shard-index", strconv.Itoa(i), "-o", tmpl); code != 0 && code != 65 {
			t.Fatalf("shard %d: exit %d: %s", i, code, se)
		}
	}
	good := 0
	for k, n := range names {
		one := filepath.Join(dir, "one.warc.gz")
		os.Remove(one)
		_, _, code := run(t, zd, nil, "warc", "-o", one, n)
		want, _ := os.ReadFile(one)
		got, err := os.ReadFile(filepath.Join(dir, "out", fmt.Sprintf("%05d-%s.warc.gz", k, strings.TrimSuffix(filepath.Base(n), ".zim"))))
		switch {
		case code != 0 && err == nil:
			t.Errorf("%s: damaged (zimdump warc exit %d), yet a batch output", filepath.Base(n), code)
		case code == 0 && (err != nil || !bytes.Equal(got, want)):
			t.Errorf("%s: batch output differs from zimdump warc -o's (%v)", filepath.Base(n), err)
		case code == 0:
			good++
		}
	}
	if good == 0 || good == len(names) {
		t.Errorf("%d of %d archives converted: want some, not all", good, len(names))
	}
	t.Logf("%d ZIMs: %d written as zimdump warc -o writes them, %d damaged", len(names), good, len(names)-good)
	if _, se, code := run(t, zd, nil, "warc", "--inputs", listFile, "-o", filepath.Join(dir, "x.warc.gz")); code != 2 {
		t.Errorf("a template without {stem}: exit %d, want 2: %s", code, se)
	}
}
