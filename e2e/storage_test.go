package e2e

import (
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arcport/arcport/lib/store/s3test"
)

// s3env is a real versitygw on loopback with a counting proxy in front,
// and the environment the binaries read to reach it (through the proxy).
type s3env struct {
	srv   *s3test.Server
	proxy *s3test.Proxy
	env   []string
}

func newS3(t *testing.T, buckets ...string) *s3env {
	t.Helper()
	srv := s3test.Start(t)
	for _, b := range buckets {
		srv.Bucket(t, b)
	}
	p := s3test.NewProxy(t, srv.URL)
	none := filepath.Join(t.TempDir(), "none")
	env := append(os.Environ(),
		"AWS_ACCESS_KEY_ID="+srv.Access, "AWS_SECRET_ACCESS_KEY="+srv.Secret, "AWS_REGION="+s3test.Region,
		"AWS_ENDPOINT_URL_S3="+p.URL, "AWS_CONFIG_FILE="+none, "AWS_SHARED_CREDENTIALS_FILE="+none,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PROFILE=", "AWS_SESSION_TOKEN=")
	return &s3env{srv: srv, proxy: p, env: env}
}

// put stores data as s3://bucket/key (the posix backend: a file).
func (e *s3env) put(t *testing.T, bucket, key string, data []byte) {
	t.Helper()
	p := filepath.Join(e.srv.Dir, bucket, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// object returns the bytes of s3://bucket/key, or nil if there is none.
func (e *s3env) object(t *testing.T, bucket, key string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.srv.Dir, bucket, filepath.FromSlash(key)))
	if err != nil {
		return nil
	}
	return b
}

// run runs a binary with the S3 environment; env adds or overrides.
func (e *s3env) run(t *testing.T, name string, env []string, args ...string) (stdout []byte, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin(t, name), args...)
	cmd.Env = append(append([]string(nil), e.env...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), errb.String(), code
}

// uploads lists the incomplete multipart uploads of bucket, through the
// AWS SDK (not arcport's code).
func (e *s3env) uploads(t *testing.T, bucket string) []string {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(s3test.Region),
		config.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: e.srv.Access, SecretAccessKey: e.srv.Secret}, nil
		})))
	if err != nil {
		t.Fatal(err)
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String(e.srv.URL); o.UsePathStyle = true })
	out, err := c.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("ListMultipartUploads: %v", err)
	}
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, aws.ToString(u.Key))
	}
	return keys
}

// TestStorageArc2warc: `arc2warc -o s3://coll/warc/a.warc.gz
// s3://coll/arc/a.arc.gz` writes the same bytes as the local conversion;
// a prefix as input reads every object under it in key order.
func TestStorageArc2warc(t *testing.T) {
	e := newS3(t, "coll")
	arc, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	e.put(t, "coll", "arc/a.arc.gz", arc)
	e.put(t, "coll", "arc/b.arc.gz", arc)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.arc.gz"), arc, 0o644)
	os.WriteFile(filepath.Join(dir, "b.arc.gz"), arc, 0o644)

	if _, se, code := e.run(t, "arc2warc", nil, "--deterministic-ids", "-o", "s3://coll/warc/a.warc.gz", "s3://coll/arc/a.arc.gz"); code != 0 {
		t.Fatalf("arc2warc s3->s3: exit %d: %s", code, se)
	}
	local := filepath.Join(dir, "a.warc.gz")
	if _, se, code := run(t, bin(t, "arc2warc"), nil, "--deterministic-ids", "-o", local, filepath.Join(dir, "a.arc.gz")); code != 0 {
		t.Fatalf("arc2warc local: exit %d: %s", code, se)
	}
	want, _ := os.ReadFile(local)
	if got := e.object(t, "coll", "warc/a.warc.gz"); !bytes.Equal(got, want) {
		t.Fatalf("s3 output (%d bytes) differs from the local one (%d bytes)", len(got), len(want))
	}

	// a prefix: both objects, in key order, as the two local files
	if _, se, code := e.run(t, "arc2warc", nil, "--deterministic-ids", "-o", "s3://coll/warc/ab.warc.gz", "s3://coll/arc/"); code != 0 {
		t.Fatalf("arc2warc prefix: exit %d: %s", code, se)
	}
	local = filepath.Join(dir, "ab.warc.gz")
	if _, se, code := run(t, bin(t, "arc2warc"), nil, "--deterministic-ids", "-o", local, filepath.Join(dir, "a.arc.gz"), filepath.Join(dir, "b.arc.gz")); code != 0 {
		t.Fatalf("arc2warc local pair: exit %d: %s", code, se)
	}
	want, _ = os.ReadFile(local)
	if got := e.object(t, "coll", "warc/ab.warc.gz"); !bytes.Equal(got, want) {
		t.Fatalf("prefix output (%d bytes) differs from the local pair (%d bytes)", len(got), len(want))
	}
	if len(readWARC(t, want)) < 4 {
		t.Fatalf("too few records in %s", local)
	}
}

// TestStorageErrors: a wrong secret, a missing object and a missing bucket
// fail at once with one line naming the URL, exit 1, and no secret in any
// output.
func TestStorageErrors(t *testing.T) {
	e := newS3(t, "coll")
	arc, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	e.put(t, "coll", "arc/a.arc.gz", arc)
	wrong := "wRoNgSeCrEt" + strings.Repeat("Z", 20)
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"AWS_SECRET_ACCESS_KEY=" + wrong}, []string{"-o", "s3://coll/warc/x.warc.gz", "s3://coll/arc/a.arc.gz"}, "access denied"},
		{nil, []string{"-o", "s3://coll/warc/x.warc.gz", "s3://coll/arc/missing.arc.gz"}, "not found"},
		{nil, []string{"-o", "s3://nobucket/x.warc.gz", "s3://coll/arc/a.arc.gz"}, "s3://"},
	} {
		e.proxy.Reset()
		out, se, code := e.run(t, "arc2warc", tc.env, tc.args...)
		if code != 1 || !strings.Contains(se, tc.want) || strings.Count(strings.TrimSpace(se), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one line with %q", tc.args, code, se, tc.want)
		}
		for _, secret := range []string{wrong, e.srv.Secret} {
			if strings.Contains(se, secret) || bytes.Contains(out, []byte(secret)) {
				t.Errorf("%v: a secret is in the output", tc.args)
			}
		}
		if n := e.proxy.Stats().Requests; n > 3 {
			t.Errorf("%v: %d requests: want a failure at once, not retries", tc.args, n)
		}
		if e.object(t, "coll", "warc/x.warc.gz") != nil {
			t.Errorf("%v: left an object under the output key", tc.args)
		}
	}
}

// TestStorageSIGTERMMidUpload: arc2warc writing a multipart upload to
// s3:// is stopped by SIGTERM: exit 143, no object under the key and no
// incomplete upload left.
func TestStorageSIGTERMMidUpload(t *testing.T) {
	e := newS3(t, "coll")
	cmd := exec.Command(bin(t, "arc2warc"), "--compress", "none", "--part-size", "5m", "-o", "s3://coll/warc/big.warc")
	cmd.Env = e.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// an uncompressed ARC of ~12 MiB of records, then the pipe stays open
	arcData, _ := os.ReadFile(sample("example.arc"))
	go func() {
		stdin.Write(arcData)
		rec := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; i < 12; i++ {
			head := "http://example.com/" + string(rune('a'+i)) + " 127.0.0.1 20140216050221 text/plain " + strconv.Itoa(len(rec)) + "\n"
			if _, err := stdin.Write(append(append([]byte(head), rec...), '\n')); err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(e.uploads(t, "coll")) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no multipart upload started; stderr: %s", se.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	stdin.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
		t.Errorf("after SIGTERM: %v, want exit 143; stderr: %s", err, se.String())
	}
	if e.object(t, "coll", "warc/big.warc") != nil {
		t.Errorf("an object was left under the output key")
	}
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("incomplete multipart uploads left: %v", u)
	}
}

// TestStorageWACZ: a WACZ built from a ~220 MB WARC in s3:// is listed
// and read in place; `waczpack get` of one capture takes at most
// 8 requests and 1 MiB; `waczpack -o s3://` streams the same WACZ into a
// multipart upload; and `waczpack create` reads a prefix of WARCs.
func TestStorageWACZ(t *testing.T) {
	e := newS3(t, "coll")
	dir := t.TempDir()
	warcPath := filepath.Join(dir, "big.warc.gz")
	gen := exec.Command("go", "run", "./scripts/arcgen", "-format", "warc", "-records", "24000", "-o", warcPath)
	gen.Dir = repoRoot()
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("arcgen: %v\n%s", err, out)
	}
	st, _ := os.Stat(warcPath)
	t.Logf("WARC: %d bytes", st.Size())
	wacz := filepath.Join(dir, "site.wacz")
	if _, se, code := run(t, bin(t, "waczpack"), nil, "-q", "-o", wacz, warcPath); code != 0 {
		t.Fatalf("waczpack create: exit %d: %s", code, se)
	}
	waczData, _ := os.ReadFile(wacz)
	e.put(t, "coll", "site.wacz", waczData)

	// pick a capture from the local listing
	lsOut, _, _ := run(t, bin(t, "waczpack"), nil, "ls", wacz)
	lines := strings.Split(strings.TrimSpace(string(lsOut)), "\n")
	var target, ts string
	for _, l := range lines[len(lines)/2:] {
		f := strings.Fields(l)
		if len(f) == 4 && f[1] == "200" && strings.HasPrefix(f[3], "http") {
			ts, target = f[0], f[3]
			break
		}
	}
	if target == "" {
		t.Fatalf("no 200 capture in the listing")
	}
	want, se, code := run(t, bin(t, "waczpack"), nil, "get", wacz, target, "--ts", ts)
	if code != 0 || len(want) == 0 {
		t.Fatalf("local get: exit %d: %s", code, se)
	}
	e.proxy.Reset()
	got, se, code := e.run(t, "waczpack", nil, "get", "s3://coll/site.wacz", target, "--ts", ts)
	s := e.proxy.Stats()
	t.Logf("waczpack get s3://coll/site.wacz %s: %d requests, %d bytes (WACZ %d bytes)", target, s.Requests, s.Bytes, len(waczData))
	if code != 0 || !bytes.Equal(got, want) {
		t.Fatalf("remote get: exit %d (%s), %d bytes, want the local get's %d", code, se, len(got), len(want))
	}
	if s.Requests > 8 || s.Bytes > 1<<20 {
		t.Errorf("remote get took %d requests and %d bytes: want at most 8 and 1 MiB", s.Requests, s.Bytes)
	}

	// validate reads the whole WACZ once, in large sequential ranges
	e.proxy.Reset()
	if _, se, code := e.run(t, "waczpack", nil, "validate", "s3://coll/site.wacz"); code != 0 {
		t.Errorf("validate s3://coll/site.wacz: exit %d: %s", code, se)
	}
	vs := e.proxy.Stats()
	t.Logf("waczpack validate s3://coll/site.wacz: %d requests, %d bytes", vs.Requests, vs.Bytes)
	if vs.Bytes > int64(len(waczData))*11/10 || vs.Requests > int64(len(waczData))/(512<<10) {
		t.Errorf("remote validate took %d requests and %d bytes for a %d-byte WACZ: want one sequential pass", vs.Requests, vs.Bytes, len(waczData))
	}
	for _, args := range [][]string{{"ls"}} {
		local, _, _ := run(t, bin(t, "waczpack"), nil, append(args, wacz)...)
		e.proxy.Reset()
		remote, se, code := e.run(t, "waczpack", nil, append(args, "s3://coll/site.wacz")...)
		t.Logf("waczpack %s s3://coll/site.wacz: %d requests, %d bytes", args[0], e.proxy.Stats().Requests, e.proxy.Stats().Bytes)
		if code != 0 {
			t.Fatalf("remote %s: exit %d: %s", args[0], code, se)
		}
		if args[0] == "ls" && !bytes.Equal(local, remote) {
			t.Errorf("remote ls differs from local ls")
		}
	}

	// -o s3://: the zip streamed into a multipart upload holds the same
	// archive, index and pages as the local WACZ, and validates in place
	if _, se, code := e.run(t, "waczpack", nil, "-q", "-o", "s3://coll/up.wacz", warcPath); code != 0 {
		t.Fatalf("create -o s3://: exit %d: %s", code, se)
	}
	up := filepath.Join(dir, "up.wacz")
	os.WriteFile(up, e.object(t, "coll", "up.wacz"), 0o644)
	for _, entry := range []string{"archive/big.warc.gz", "indexes/index.cdx.gz", "indexes/index.idx", "pages/pages.jsonl"} {
		a, err1 := exec.Command("unzip", "-p", wacz, entry).Output()
		b, err2 := exec.Command("unzip", "-p", up, entry).Output()
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs between the local WACZ and the one written to s3:// (%v, %v)", entry, err1, err2)
		}
	}
	if _, se, code := run(t, bin(t, "waczpack"), nil, "validate", up); code != 0 {
		t.Errorf("validate the WACZ written to s3://: %s", se)
	}
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("incomplete uploads left: %v", u)
	}

	// create from a prefix of WARCs in s3 = create from the same local files
	warcData, _ := os.ReadFile(sample("example.warc.gz"))
	e.put(t, "coll", "warcs/a.warc.gz", warcData)
	e.put(t, "coll", "warcs/b.warc.gz", warcData)
	fromS3 := filepath.Join(dir, "from-s3.wacz")
	if _, se, code := e.run(t, "waczpack", nil, "-q", "-o", fromS3, "s3://coll/warcs/"); code != 0 {
		t.Fatalf("create from prefix: exit %d: %s", code, se)
	}
	idxS3, _, _ := run(t, bin(t, "waczpack"), nil, "ls", fromS3)
	if n := strings.Count(string(idxS3), "\n"); n == 0 {
		t.Fatalf("WACZ from the prefix lists nothing")
	}
	if _, se, code := run(t, bin(t, "waczpack"), nil, "validate", fromS3); code != 0 {
		t.Fatalf("validate: %s", se)
	}
}

// TestStorageZIMAndHTTP: zimdump info/list/show on a ZIM in s3:// and over
// http:// print what they print for the local file; show reads in place.
func TestStorageZIMAndHTTP(t *testing.T) {
	e := newS3(t, "coll")
	zimPath := filepath.Join(repoRoot(), "testdata/zim/nons/small.zim")
	zimData, err := os.ReadFile(zimPath)
	if err != nil {
		t.Fatal(err)
	}
	e.put(t, "coll", "wiki.zim", zimData)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "wiki.zim", time.Time{}, bytes.NewReader(zimData))
	}))
	defer web.Close()
	for _, args := range [][]string{{"info"}, {"list"}, {"list", "--details"}, {"show", "--url=main.html"}} {
		want, _, wcode := run(t, bin(t, "zimdump"), nil, append(args, zimPath)...)
		for _, remote := range []string{"s3://coll/wiki.zim", web.URL + "/wiki.zim"} {
			e.proxy.Reset()
			got, se, code := e.run(t, "zimdump", nil, append(args, remote)...)
			if code != wcode || !bytes.Equal(got, want) {
				t.Errorf("zimdump %v %s: exit %d (%s), output differs from the local file's", args, remote, code, se)
			}
		}
	}
	// dump: the same tree, file for file
	dir := t.TempDir()
	if _, se, code := run(t, bin(t, "zimdump"), nil, "dump", "--dir="+filepath.Join(dir, "local"), zimPath); code != 0 {
		t.Fatalf("local dump: %s", se)
	}
	if _, se, code := e.run(t, "zimdump", nil, "dump", "--dir="+filepath.Join(dir, "s3"), "s3://coll/wiki.zim"); code != 0 {
		t.Fatalf("s3 dump: %s", se)
	}
	if a, b := treeOf(t, filepath.Join(dir, "local")), treeOf(t, filepath.Join(dir, "s3")); len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("dump trees differ: local %d files, s3 %d files", len(a), len(b))
	}
}

// treeOf maps every file below root (relative path) to its content.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

// TestStorageMirrorget: `mirrorget -o s3://coll/crawl.warc.gz --format
// warc URL` uploads the crawl; after SIGINT mid-crawl the records written
// so far are kept under the key (a valid partial crawl, as with -o FILE),
// exit 130, no incomplete upload left.
func TestStorageMirrorget(t *testing.T) {
	e := newS3(t, "coll")
	hold := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			w.Write([]byte(`<html><a href="a.html">a</a> <a href="slow.html">slow</a></html>`))
		case "/a.html":
			w.Write([]byte(`<html>page a</html>`))
		case "/slow.html":
			w.Write([]byte("<html>"))
			w.(http.Flusher).Flush()
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	defer close(hold)

	// a whole crawl (the slow page cut by --max-request-time)
	if _, se, code := e.run(t, "mirrorget", nil, "-q", "--format", "warc", "--max-request-time", "1s", "-o", "s3://coll/crawl.warc.gz", site.URL+"/"); code != 0 {
		t.Fatalf("mirrorget -o s3://: exit %d: %s", code, se)
	}
	recs := readWARC(t, e.object(t, "coll", "crawl.warc.gz"))
	if len(recs) < 5 {
		t.Fatalf("%d records in the uploaded crawl", len(recs))
	}

	// SIGINT while the slow page is fetched
	cmd := exec.Command(bin(t, "mirrorget"), "-q", "--format", "warc", "-c", "1", "-o", "s3://coll/cut.warc.gz", site.URL+"/")
	cmd.Env = e.env
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v, want exit 130; stderr: %s", err, se.String())
	}
	cut := readWARC(t, e.object(t, "coll", "cut.warc.gz"))
	var uris []string
	for _, c := range cut {
		uris = append(uris, c.rec.Header.Get("WARC-Target-URI"))
	}
	if len(cut) < 3 || !strings.Contains(strings.Join(uris, " "), site.URL+"/") {
		t.Errorf("the partial crawl kept under the key holds %d records: %v", len(cut), uris)
	}
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("incomplete uploads left: %v", u)
	}
}

// TestStorageHTCache: `htcache export s3://coll/httrack-project/ |
// waczpack -o s3://coll/old.wacz`: the HTTrack project is read from the
// prefix (listed once, the cache zip by ranges), its export equals the
// local one but for the warcinfo record's ID and date (made per run), and
// the WACZ validates.
func TestStorageHTCache(t *testing.T) {
	e := newS3(t, "coll")
	garden := filepath.Join(repoRoot(), "testdata/htcache/garden")
	filepath.WalkDir(garden, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(garden, p)
			b, _ := os.ReadFile(p)
			e.put(t, "coll", "httrack-project/"+filepath.ToSlash(rel), b)
		}
		return nil
	})
	local, se, code := run(t, bin(t, "htcache"), nil, "export", garden)
	if code != 0 {
		t.Fatalf("local export: %s", se)
	}
	remote, se, code := e.run(t, "htcache", nil, "export", "s3://coll/httrack-project/")
	if code != 0 {
		t.Fatalf("s3 export: exit %d: %s", code, se)
	}
	norm := func(b []byte) string {
		var out []string
		info := ""
		for _, c := range readWARC(t, b) {
			id := c.rec.Header.Get("WARC-Record-ID")
			if c.rec.Header.Get("WARC-Type") == "warcinfo" {
				info = id
				continue
			}
			var h strings.Builder
			for _, f := range c.rec.Header {
				h.WriteString(f.Name + ": " + strings.ReplaceAll(f.Value, info, "<warcinfo>") + "\n")
			}
			out = append(out, h.String()+string(c.body))
		}
		return strings.Join(out, "\n")
	}
	if a, b := norm(local), norm(remote); a != b || len(a) == 0 {
		t.Errorf("the export of the s3:// project differs from the local one (%d vs %d bytes)", len(b), len(a))
	}
	if info, se, code := e.run(t, "htcache", nil, "info", "s3://coll/httrack-project/"); code != 0 || !bytes.Contains(info, []byte("s3://coll/httrack-project/hts-cache/new.zip")) {
		t.Errorf("htcache info: exit %d: %s%s", code, info, se)
	}
	sh := exec.Command("bash", "-o", "pipefail", "-c", bin(t, "htcache")+" export s3://coll/httrack-project/ | "+bin(t, "waczpack")+" -q -o s3://coll/old.wacz")
	sh.Env = e.env
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("htcache export | waczpack -o s3://: %v\n%s", err, out)
	}
	if _, se, code := e.run(t, "waczpack", nil, "validate", "s3://coll/old.wacz"); code != 0 {
		t.Errorf("validate s3://coll/old.wacz: %s", se)
	}
}

// TestStorageOutputsAndHTTPS: every -o takes s3:// (htcache export,
// zimdump warc, waczpack get), and https:// inputs from a loopback HTTPS
// server whose test CA is trusted through SSL_CERT_FILE (waczpack ls,
// zimdump list) read as the local files do.
func TestStorageOutputsAndHTTPS(t *testing.T) {
	e := newS3(t, "coll")
	garden := filepath.Join(repoRoot(), "testdata/htcache/garden")
	zimPath := filepath.Join(repoRoot(), "testdata/zim/nons/small.zim")
	dir := t.TempDir()
	wacz := filepath.Join(dir, "site.wacz")
	if _, se, code := run(t, bin(t, "waczpack"), nil, "-q", "-o", wacz, sample("example.warc.gz")); code != 0 {
		t.Fatalf("create: %s", se)
	}
	for _, tc := range []struct {
		bin  string
		args []string
		key  string
	}{
		{"htcache", []string{"export", "-o", "s3://coll/out/garden.warc.gz", garden}, "out/garden.warc.gz"},
		{"zimdump", []string{"warc", "-o", "s3://coll/out/small.warc.gz", zimPath}, "out/small.warc.gz"},
		{"waczpack", []string{"get", "-o", "s3://coll/out/page.html", wacz, "http://example.com/"}, "out/page.html"},
	} {
		if _, se, code := e.run(t, tc.bin, nil, tc.args...); code != 0 {
			t.Errorf("%s %v: exit %d: %s", tc.bin, tc.args, code, se)
			continue
		}
		b := e.object(t, "coll", tc.key)
		if len(b) == 0 {
			t.Errorf("%s: nothing under s3://coll/%s", tc.bin, tc.key)
			continue
		}
		if strings.HasSuffix(tc.key, ".warc.gz") && len(readWARC(t, b)) < 2 {
			t.Errorf("%s: s3://coll/%s holds too few records", tc.bin, tc.key)
		}
	}

	// https:// with a test CA
	files := map[string]string{"/site.wacz": wacz, "/wiki.zim": zimPath}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, p)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	defer srv.Close()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pemCert(srv.Certificate().Raw), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"SSL_CERT_FILE=" + caFile}
	for _, tc := range []struct {
		bin, cmd, local, remote string
	}{
		{"waczpack", "ls", wacz, srv.URL + "/site.wacz"},
		{"zimdump", "list", zimPath, srv.URL + "/wiki.zim"},
	} {
		want, _, _ := run(t, bin(t, tc.bin), nil, tc.cmd, tc.local)
		got, se, code := e.run(t, tc.bin, env, tc.cmd, tc.remote)
		if code != 0 || !bytes.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s %s %s: exit %d (%s), output differs from the local file's", tc.bin, tc.cmd, tc.remote, code, se)
		}
	}
	// without the CA: a one-line certificate error, exit 1
	_, se, code := e.run(t, "waczpack", nil, "ls", srv.URL+"/site.wacz")
	if code != 1 || strings.Count(strings.TrimSpace(se), "\n") != 0 || !strings.Contains(se, "certificate") {
		t.Errorf("untrusted https: exit %d, stderr %q", code, se)
	}
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestStorageFaultsThroughABinary: arc2warc reading an ARC from s3://
// through faults - two 503 SlowDown answers, then the body cut twice mid-
// stream, then versitygw killed and started again during the read - still
// writes the bytes of the local conversion: retried, resumed by Range from
// the next byte, never started over.
func TestStorageFaultsThroughABinary(t *testing.T) {
	e := newS3(t, "coll")
	dir := t.TempDir()
	in := filepath.Join(dir, "big.arc.gz")
	gen := exec.Command("go", "run", "./scripts/arcgen", "-records", "1500", "-o", in)
	gen.Dir = repoRoot()
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("arcgen: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(in)
	e.put(t, "coll", "arc/big.arc.gz", data)
	local := filepath.Join(dir, "out.warc.gz") // the name the WARC records
	if _, se, code := run(t, bin(t, "arc2warc"), nil, "-q", "--deterministic-ids", "-o", local, in); code != 0 {
		t.Fatalf("local: %s", se)
	}
	want, _ := os.ReadFile(local)
	check := func(what string) {
		t.Helper()
		got := e.object(t, "coll", "warc/out.warc.gz")
		if !bytes.Equal(got, want) {
			t.Errorf("%s: s3 output of %d bytes differs from the local %d", what, len(got), len(want))
		}
	}

	e.proxy.Reset()
	e.proxy.SlowDown(2)
	if _, se, code := e.run(t, "arc2warc", nil, "-q", "--deterministic-ids", "-o", "s3://coll/warc/out.warc.gz", "s3://coll/arc/big.arc.gz"); code != 0 {
		t.Fatalf("after SlowDown: exit %d: %s", code, se)
	}
	check("SlowDown")

	e.proxy.Reset()
	e.proxy.Cut(2, int64(len(data)/3))
	if _, se, code := e.run(t, "arc2warc", nil, "-q", "--deterministic-ids", "-o", "s3://coll/warc/out.warc.gz", "s3://coll/arc/big.arc.gz"); code != 0 {
		t.Fatalf("after cut bodies: exit %d: %s", code, se)
	}
	st := e.proxy.Stats()
	t.Logf("cut twice: %d requests, %d GETs, %d body bytes for a %d-byte input", st.Requests, st.Gets, st.Bytes, len(data))
	if st.Gets < 3 {
		t.Errorf("%d GETs: the body was not resumed", st.Gets)
	}
	check("cut bodies")

	// versitygw killed once the read is under way, started again 300 ms later
	cmd := exec.Command(bin(t, "arc2warc"), "-q", "--deterministic-ids", "-o", "s3://coll/warc/out.warc.gz", "s3://coll/arc/big.arc.gz")
	cmd.Env = e.env
	var se bytes.Buffer
	cmd.Stderr = &se
	e.proxy.Reset()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); e.proxy.Stats().Bytes == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if err := e.srv.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := e.srv.Run(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("across a server restart: %v: %s", err, se.String())
	}
	st = e.proxy.Stats()
	t.Logf("server restart: %d requests, %d GETs, %d body bytes", st.Requests, st.Gets, st.Bytes)
	check("server restart")
}
