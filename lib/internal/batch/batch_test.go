package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/store"
)

func TestParseList(t *testing.T) {
	l, err := ParseList([]byte("# a list\n\n  a.arc \r\n#b.arc\ns3://bkt/x/c.arc.gz\n\t\nhttps://h/d.arc\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Input{{Name: "a.arc", Index: 0, Size: -1}, {Name: "s3://bkt/x/c.arc.gz", Index: 1, Size: -1}, {Name: "https://h/d.arc", Index: 2, Size: -1}}
	if !reflect.DeepEqual(l.Inputs, want) || l.ShardCount != 0 {
		t.Fatalf("got %+v", l)
	}
	for _, bad := range []string{"", "# only\n\n", "{\"x\":1}\n", "{\"arcport_plan\":9,\"shard_count\":2,\"inputs\":0}\n",
		"{\"arcport_plan\":1,\"shard_count\":2,\"inputs\":2}\n{\"input\":\"a\",\"index\":0,\"shard\":0,\"size\":1,\"etag\":\"e\"}\n",
		"{\"arcport_plan\":1,\"shard_count\":2,\"inputs\":1}\n{\"input\":\"a\",\"index\":0,\"shard\":2,\"size\":1,\"etag\":\"e\"}\n",
		"{\"arcport_plan\":1,\"shard_count\":2,\"inputs\":1}\n{\"input\":\"a\",\"index\":1,\"shard\":0,\"size\":1,\"etag\":\"e\"}\n",
		"{\"arcport_plan\":1,\"shard_count\":2,\"inputs\":1}\n{\"input\":\"a\",\"index\":0,\"shard\":0,\"size\":1}\n",
	} {
		if _, err := ParseList([]byte(bad)); err == nil {
			t.Errorf("ParseList(%q): no error", bad)
		}
	}
}

func TestResolveShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		name                    string
		set                     bool
		index, count, planCount int
		env                     func(string) string
		want                    Shard
		err                     string
	}{
		{name: "defaults", env: env(), want: Shard{0, 1}},
		{name: "flag", set: true, index: 3, count: 7, env: env(), want: Shard{3, 7}},
		{name: "flag wins", set: true, index: 3, count: 7, env: env("JOB_COMPLETION_INDEX", "5", "ARCPORT_SHARD_INDEX", "1"), want: Shard{3, 7}},
		{name: "k8s", count: 7, env: env("JOB_COMPLETION_INDEX", "6"), want: Shard{6, 7}},
		{name: "aws", count: 7, env: env("AWS_BATCH_JOB_ARRAY_INDEX", "2"), want: Shard{2, 7}},
		{name: "agree", count: 7, env: env("AWS_BATCH_JOB_ARRAY_INDEX", "2", "ARCPORT_SHARD_INDEX", " 2"), want: Shard{2, 7}},
		{name: "conflict", count: 7, env: env("JOB_COMPLETION_INDEX", "2", "ARCPORT_SHARD_INDEX", "3"), err: "conflicting"},
		{name: "not a number", count: 7, env: env("JOB_COMPLETION_INDEX", "x"), err: "not a shard index"},
		{name: "too big env", count: 7, env: env("JOB_COMPLETION_INDEX", "7"), err: "must be 0 to 6"},
		{name: "too big flag", set: true, index: 7, count: 7, env: env(), err: "must be 0 to 6"},
		{name: "negative flag", set: true, index: -1, count: 7, env: env(), err: "must be 0 to 6"},
		{name: "no index", count: 7, env: env(), err: "needs --shard-index"},
		{name: "plan count", planCount: 4, env: env("ARCPORT_SHARD_INDEX", "3"), want: Shard{3, 4}},
		{name: "plan mismatch", count: 5, planCount: 4, set: true, env: env(), err: "plan is for 4"},
		{name: "zero count", count: -1, env: env(), err: "at least 1"},
	} {
		got, err := ResolveShard(c.set, c.index, c.count, c.planCount, c.env)
		if c.err != "" {
			var ue *cliutil.UsageError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ue) {
				t.Errorf("%s: err %v, want usage error with %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func TestShareRoundRobin(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "f%d.arc\n", i)
	}
	l, err := ParseList([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for s := 0; s < 3; s++ {
		for _, in := range l.Share(Shard{s, 3}) {
			seen[in.Name]++
			if in.Index%3 != s {
				t.Errorf("%s in shard %d", in.Name, s)
			}
		}
	}
	if len(seen) != 10 {
		t.Errorf("%d inputs covered, want 10", len(seen))
	}
	for n, c := range seen {
		if c != 1 {
			t.Errorf("%s in %d shards", n, c)
		}
	}
}

func TestRender(t *testing.T) {
	for _, c := range []struct{ tmpl, in, want string }{
		{"s3://out/{stem}.warc.gz", "s3://in/a/b/crawl-1.arc.gz", "s3://out/crawl-1.warc.gz"},
		{"s3://out/{dir}/{stem}.warc.gz", "s3://in/a/b/crawl-1.arc.gz", "s3://out/a/b/crawl-1.warc.gz"},
		{"s3://out/{dir}/{stem}.warc.gz", "s3://in/crawl-1.arc", "s3://out/crawl-1.warc.gz"},
		{"out/{name}.cdxj", "/data/x/y.warc.zst", "out/y.warc.zst.cdxj"},
		{"out/{dir}/{stem}.cdxj", "/data/x/y.warc.zst", "out/data/x/y.cdxj"},
		{"out/{index}-{stem}.warc.gz", "z.arc", "out/00007-z.warc.gz"},
		{"out/{stem}.warc.gz", "https://h/p/q.arc.gz?sig=1", "out/q.warc.gz"},
		{"out/{stem}.w", "a.b.arc", "out/a.b.w"},
		{"out/{stem}.w", "noext", "out/noext.w"},
		{"out/{stem}.w", ".hidden.gz", "out/.hidden.w"},
	} {
		if err := CheckTemplate(c.tmpl); err != nil {
			t.Fatal(err)
		}
		got, err := Render(c.tmpl, Input{Name: c.in, Index: 7})
		if err != nil || got != c.want {
			t.Errorf("Render(%q, %q) = %q, %v; want %q", c.tmpl, c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-", "out.warc.gz", "out/{dir}.warc.gz", "out/{stem}{x}.gz"} {
		if CheckTemplate(bad) == nil {
			t.Errorf("CheckTemplate(%q): no error", bad)
		}
	}
	if _, err := Render("o/{dir}/{stem}", Input{Name: "../up/a.arc"}); err == nil {
		t.Error("{dir} of ../up/a.arc: no error")
	}
	l, _ := ParseList([]byte("s3://b/x/a.arc\ns3://b/y/a.arc\n"))
	if _, err := Outputs("out/{stem}.warc.gz", l); err == nil || !strings.Contains(err.Error(), "would both write") {
		t.Errorf("duplicate outputs: %v", err)
	}
	if outs, err := Outputs("out/{dir}/{stem}.warc.gz", l); err != nil || outs[1] != "out/y/a.warc.gz" {
		t.Errorf("Outputs: %v %v", outs, err)
	}
	for _, c := range []struct{ out, want string }{
		{"s3://o/p/x.warc.gz", "s3://o/p/_done/x.warc.gz.json"},
		{"x.warc.gz", "_done/x.warc.gz.json"},
		{"/a/b/x.warc.gz", "/a/b/_done/x.warc.gz.json"},
	} {
		if got := Beside(c.out, "_done"); got != c.want {
			t.Errorf("Beside(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

func TestBalance(t *testing.T) {
	sizes := []int64{10, 70, 30, 30, 50, 20, 0, 90, 30, 10}
	ins := make([]Input, len(sizes))
	for i, s := range sizes {
		ins[i] = Input{Name: fmt.Sprint(i), Index: i, Size: s}
	}
	Balance(ins, 3)
	got := make([]int, len(ins))
	for i, in := range ins {
		got[i] = in.Shard
	}
	// 90->0, 70->1, 50->2, 30(#2)->2, 30(#3)->1, 30(#8)->2, 20->0,
	// 10(#0)->1, 10(#9)->0 (all at 110: the lowest), 0->1: loads 120, 110, 110
	want := []int{1, 1, 2, 1, 2, 0, 1, 0, 2, 0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shards %v, want %v", got, want)
	}
	if b := ShardBytes(&List{Inputs: ins, ShardCount: 3}); !reflect.DeepEqual(b, []int64{120, 110, 110}) {
		t.Errorf("loads %v", b)
	}
}

// TestPlanLocal: a plan of local files pins size and mtime, reads back
// the same, and a task refuses (bad input) a file changed since.
func TestPlanLocal(t *testing.T) {
	dir := t.TempDir()
	var list strings.Builder
	for i, n := range []int{300, 100, 200, 100} {
		p := filepath.Join(dir, fmt.Sprintf("in%d.arc", i))
		if err := os.WriteFile(p, bytes.Repeat([]byte{'x'}, n), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&list, p)
	}
	l, err := ParseList([]byte(list.String()))
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(store.Options{})
	p, err := Plan(context.Background(), st, l, 2)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WritePlan(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, err := ParseList(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(back, p) {
		t.Fatalf("read back %+v, want %+v", back, p)
	}
	if b := ShardBytes(p); !reflect.DeepEqual(b, []int64{400, 300}) {
		t.Errorf("shard bytes %v", b)
	}
	if !strings.HasPrefix(p.Inputs[0].ETag, "local:300:") {
		t.Errorf("etag %q", p.Inputs[0].ETag)
	}

	planFile := filepath.Join(dir, "plan.jsonl")
	os.WriteFile(planFile, buf.Bytes(), 0o644)
	// shard 0 is in0 and in3; change in0 after the plan.
	later := time.Now().Add(time.Hour)
	os.Chtimes(p.Inputs[0].Name, later, later)
	var stderr bytes.Buffer
	j := &Job{Config: Config{Inputs: planFile, Output: filepath.Join(dir, "out/{stem}.txt"), IndexSet: true, Index: 0},
		Tool: "test", Store: st, Stdout: io.Discard, Stderr: &stderr}
	err = j.Run(context.Background(), copyFunc)
	var ee *cliutil.ExitError
	if !errors.As(err, &ee) || ee.Code != ExitBadInput {
		t.Fatalf("changed input: %v, want exit 65", err)
	}
	if !strings.Contains(stderr.String(), "changed since the plan") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "out/in0.txt")); err == nil {
		t.Error("output of a changed input written")
	}
}

// copyFunc is a tool that copies its input upper-cased, and fails on an
// input holding "BAD".
func copyFunc(ctx context.Context, t *Task) error {
	b, err := os.ReadFile(t.Input.Name)
	if err != nil {
		return err
	}
	if bytes.Contains(b, []byte("BAD")) {
		return errors.New("record at offset 3: bad length \"BAD\"")
	}
	w, err := t.Create(t.Output)
	if err != nil {
		return err
	}
	w.Write(bytes.ToUpper(b))
	t.Records = int64(bytes.Count(b, []byte("\n")))
	return w.Commit()
}

// TestJobLocal runs a 3-shard job over local files: the outputs, the
// markers, --skip-existing, --emit, a bad input under fail and record.
func TestJobLocal(t *testing.T) {
	dir := t.TempDir()
	var list strings.Builder
	for i := 0; i < 7; i++ {
		p := filepath.Join(dir, "in", fmt.Sprintf("f%d.arc", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := fmt.Sprintf("input %d\nline\n", i)
		if i == 4 {
			body = "a BAD one\n"
		}
		os.WriteFile(p, []byte(body), 0o644)
		fmt.Fprintln(&list, p)
	}
	listFile := filepath.Join(dir, "list.txt")
	os.WriteFile(listFile, []byte(list.String()), 0o644)
	st := store.New(store.Options{})
	run := func(shard int, mod func(*Job)) (string, string, error) {
		var out, errb bytes.Buffer
		j := &Job{Config: Config{Inputs: listFile, Output: filepath.Join(dir, "out/{stem}.txt"), IndexSet: true, Index: shard, Count: 3, Emit: true},
			Tool: "test", Params: "upper", Store: st, Stdout: &out, Stderr: &errb}
		if mod != nil {
			mod(j)
		}
		err := j.Run(context.Background(), copyFunc)
		return out.String(), errb.String(), err
	}
	for s := 0; s < 3; s++ {
		out, errs, err := run(s, nil)
		if s == 1 { // f1, f4, f7: f4 is bad
			var ee *cliutil.ExitError
			if !errors.As(err, &ee) || ee.Code != ExitBadInput || !strings.Contains(errs, "bad length") {
				t.Fatalf("shard 1: %v %s", err, errs)
			}
		} else if err != nil {
			t.Fatalf("shard %d: %v", s, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if want := []int{3, 2, 2}[s]; len(lines) != want {
			t.Fatalf("shard %d: %d result lines, want %d:\n%s", s, len(lines), want, out)
		}
		for _, l := range lines {
			var r Result
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(r.Input, "f4.arc") {
				if r.Status != "bad" || r.Error == "" {
					t.Errorf("f4: %+v", r)
				}
				continue
			}
			data, _ := os.ReadFile(r.Output)
			if r.Status != "done" || r.Records != 2 || r.Bytes != int64(len(data)) || r.SHA256 == "" {
				t.Errorf("result %+v (output %q)", r, data)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out/_done/f4.txt.json")); err == nil {
		t.Error("a bad input has a done marker under --on-bad-input fail")
	}
	var m Marker
	b, err := os.ReadFile(filepath.Join(dir, "out/_done/f2.txt.json"))
	if err != nil || json.Unmarshal(b, &m) != nil || m.Records != 2 || m.Params != "upper" || !strings.HasPrefix(m.OutputETag, "local:") {
		t.Fatalf("marker: %v %s", err, b)
	}
	// --skip-existing: shard 0 skips all; shard 1 skips f1, redoes f4.
	counting := func(j *Job) {
		j.SkipExisting = true
		j.RecordBad = true
	}
	out, _, err := run(0, counting)
	if err != nil || strings.Count(out, `"status":"skipped"`) != 3 {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	out, _, err = run(1, counting)
	if err != nil || strings.Count(out, `"status":"skipped"`) != 1 || strings.Count(out, `"status":"bad"`) != 1 {
		t.Fatalf("rerun shard 1 with record: %v\n%s", err, out)
	}
	b, err = os.ReadFile(filepath.Join(dir, "out/_errors/f4.txt.json"))
	if err != nil || !strings.Contains(string(b), "bad length") {
		t.Fatalf("_errors object: %v %s", err, b)
	}
	out, _, err = run(1, counting)
	if err != nil || strings.Count(out, `"status":"skipped"`) != 2 {
		t.Fatalf("rerun shard 1 after record: %v\n%s", err, out)
	}
	// Other params: not skipped.
	out, _, err = run(0, func(j *Job) { counting(j); j.Params = "lower" })
	if err != nil || strings.Count(out, `"status":"done"`) != 3 {
		t.Fatalf("other params: %v\n%s", err, out)
	}
	// A touched output: redone.
	os.WriteFile(filepath.Join(dir, "out/f0.txt"), []byte("tampered"), 0o644)
	out, _, err = run(0, func(j *Job) { counting(j); j.Params = "lower" })
	if err != nil || strings.Count(out, `"status":"done"`) != 1 {
		t.Fatalf("tampered output: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out/f0.txt")); string(b) != "INPUT 0\nLINE\n" {
		t.Errorf("f0 redone: %q", b)
	}
	// A missing input is bad.
	os.Remove(filepath.Join(dir, "in/f3.arc"))
	_, errs, err := run(0, nil)
	var ee *cliutil.ExitError
	if !errors.As(err, &ee) || ee.Code != ExitBadInput || !strings.Contains(errs, "f3.arc") {
		t.Fatalf("missing input: %v %s", err, errs)
	}
}

func TestClassify(t *testing.T) {
	in := "s3://b/in.arc"
	for _, c := range []struct {
		err  error
		want Class
	}{
		{errors.New("bad record"), Bad},
		{BadInput(errors.New("x")), Bad},
		{&store.Error{Op: "open", URL: in, Kind: store.ErrNotFound}, Bad},
		{&store.Error{Op: "read", URL: in, Kind: store.ErrChanged}, Bad},
		{&store.Error{Op: "commit", URL: "s3://o/x", Kind: store.ErrNotFound}, Fatal},
		{&store.Error{Op: "open", URL: in, Kind: store.ErrAccessDenied}, Fatal},
		{&store.Error{Op: "commit", URL: "s3://o/x", Err: errors.New("503 SlowDown")}, Transient},
		{fmt.Errorf("write: %w", &os.PathError{Op: "write", Path: "/o", Err: errNoSpace()}), Transient},
		{&os.PathError{Op: "open", Path: "/o/x", Err: os.ErrPermission}, Fatal},
		{cliutil.Usagef("x"), Fatal},
	} {
		if got := Classify(c.err, in); got != c.want {
			t.Errorf("Classify(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
