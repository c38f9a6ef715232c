package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The pyspark that `make peers` installs (scripts/peers.sh: SPARK_PINS).
const (
	pysparkVersion = "4.3.0"
	pysparkVenv    = "scripts/venv-spark"
)

// needPySpark returns the python of scripts/venv-spark with pyspark
// 4.3.0 installed (its dist-info read, as peertest.FindPy does), after
// checking for Java 17 or newer; it ends t with needPeer otherwise.
func needPySpark(t *testing.T) string {
	t.Helper()
	java := needCmd(t, "java", "default-jre-headless")
	out, _ := exec.Command(java, "-version").CombinedOutput()
	m := regexp.MustCompile(`version "(\d+)`).FindSubmatch(out)
	if v, _ := strconv.Atoi(string(m1(m))); v < 17 {
		needPeer(t, "java>=17", fmt.Sprintf("pyspark 4 needs Java 17 or newer; java -version: %s", bytes.TrimSpace(out)))
	}
	venv := filepath.Join(repoRoot(), pysparkVenv)
	py := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		needPeer(t, "pyspark=="+pysparkVersion, "no "+pysparkVenv+" (python venv)")
	}
	infos, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages", "pyspark-*.dist-info"))
	for _, d := range infos {
		if strings.TrimSuffix(strings.TrimPrefix(filepath.Base(d), "pyspark-"), ".dist-info") == pysparkVersion {
			return py
		}
	}
	needPeer(t, "pyspark=="+pysparkVersion, fmt.Sprintf("%s has %v, not pyspark %s", pysparkVenv, infos, pysparkVersion))
	return ""
}

func m1(m [][]byte) []byte {
	if m == nil {
		return nil
	}
	return m[1]
}

// arcgen builds scripts/arcgen into dir and returns a function that runs
// it: format (arc or warc), records, seed, output path.
func arcgen(t *testing.T, dir string) func(format string, records int, seed int, out string) {
	t.Helper()
	exe := filepath.Join(dir, "arcgen")
	cmd := exec.Command("go", "build", "-o", exe, "./scripts/arcgen")
	cmd.Dir = repoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./scripts/arcgen: %v\n%s", err, out)
	}
	return func(format string, records, seed int, out string) {
		if b, err := exec.Command(exe, "-format", format, "-records", fmt.Sprint(records), "-seed", fmt.Sprint(seed), "-o", out).CombinedOutput(); err != nil {
			t.Errorf("arcgen %s: %v\n%s", out, err, b)
		}
	}
}

// genFiles writes n files name(i) with gen, two at a time.
func genFiles(t *testing.T, n int, gen func(i int)) {
	t.Helper()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				gen(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// sparkRow is one row of the driver's results (--emit jsonl plus where it ran).
type sparkRow struct {
	Input, Output, Status, Sha256, Job string
	Records, Bytes                     int64
	Shard, Attempt, Exit               int
}

func readRows(t *testing.T, path string) []sparkRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []sparkRow
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var r sparkRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v: %s", path, err, sc.Text())
		}
		rows = append(rows, r)
	}
	return rows
}

// localFiles maps the files under dir (relative, slash-separated) to their bytes.
func localFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gunzipAll returns the concatenated content of a multi-member gzip file.
func gunzipAll(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSparkBatch runs deploy/spark/arcport_spark.py with pyspark 4.3.0 in
// local[2,2] (two cores, a task tried at most twice) against versitygw, in
// one Spark session (jobs file): 50 ARCs in s3:// to WARCs, listed in an
// s3:// list, 5 tasks; and a ZipNum cluster of 200 WARC.gz in s3:// (a
// local list balanced by `waczpack plan`, sorted runs in 4 tasks, 4 parts,
// --finish). The test hook kills the Python worker (and its arcport child)
// of one task of each job on its first attempt, after the first input is
// reported. Checked: every WARC equals `arc2warc --inputs` run locally in
// one process, byte for byte; every object of the cluster equals the
// cluster `waczpack index --zipnum --shards 4` writes in one process from
// runs made locally, and its lines are `waczpack index --sort` of all 200
// WARCs; the killed tasks ran twice and every input is in the results
// once; nothing but outputs and done markers is in the bucket, and no
// multipart upload is left.
func TestSparkBatch(t *testing.T) {
	py := needPySpark(t)
	e := newS3(t, "coll")
	work := t.TempDir()
	gen := arcgen(t, work)
	a2w, wzp := bin(t, "arc2warc"), bin(t, "waczpack")
	binDir := filepath.Dir(a2w)

	const nARC, nWARC, shards = 50, 200, 4
	t0 := time.Now()
	for _, d := range []string{"arc", "warcs"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	arcName := func(i int) string { return fmt.Sprintf("IA-%02d.arc.gz", i) }
	warcName := func(i int) string { return fmt.Sprintf("crawl-%03d.warc.gz", i) }
	genFiles(t, nARC, func(i int) { gen("arc", 5+i%7, 1000+i, filepath.Join(work, "arc", arcName(i))) })
	genFiles(t, nWARC, func(i int) { gen("warc", 10+i%13, 2000+i, filepath.Join(work, "warcs", warcName(i))) })
	var arcList, localARCs, warcList, localWARCs strings.Builder
	for i := 0; i < nARC; i++ {
		data, err := os.ReadFile(filepath.Join(work, "arc", arcName(i)))
		if err != nil {
			t.Fatal(err)
		}
		e.sdkPut(t, "coll", "arc/"+arcName(i), data)
		fmt.Fprintf(&arcList, "s3://coll/arc/%s\n", arcName(i))
		fmt.Fprintf(&localARCs, "%s\n", filepath.Join(work, "arc", arcName(i)))
	}
	for i := 0; i < nWARC; i++ {
		data, err := os.ReadFile(filepath.Join(work, "warcs", warcName(i)))
		if err != nil {
			t.Fatal(err)
		}
		e.sdkPut(t, "coll", "warcs/"+warcName(i), data)
		fmt.Fprintf(&warcList, "s3://coll/warcs/%s\n", warcName(i))
		fmt.Fprintf(&localWARCs, "%s\n", filepath.Join(work, "warcs", warcName(i)))
	}
	e.sdkPut(t, "coll", "lists/arcs.txt", []byte(arcList.String()))
	write := func(name, s string) string {
		p := filepath.Join(work, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	warcsTxt := write("warcs.txt", warcList.String())
	t.Logf("generated %d ARCs and %d WARC.gz (scripts/arcgen) into versitygw in %.1fs", nARC, nWARC, time.Since(t0).Seconds())

	// the references, one process each, local files
	refWARC := filepath.Join(work, "ref-warc")
	if _, se, code := run(t, a2w, nil, "--inputs", write("arcs-local.txt", localARCs.String()), "-o", refWARC+"/{stem}.warc.gz"); code != 0 {
		t.Fatalf("local arc2warc: exit %d: %s", code, se)
	}
	refRuns, refCluster := filepath.Join(work, "ref-runs"), filepath.Join(work, "ref-cluster")
	if _, se, code := run(t, wzp, nil, "index", "--sort", "--inputs", write("warcs-local.txt", localWARCs.String()), "-o", refRuns+"/{stem}.cdxj"); code != 0 {
		t.Fatalf("local runs: exit %d: %s", code, se)
	}
	if _, se, code := run(t, wzp, nil, "index", "--zipnum", refCluster+"/", "--shards", fmt.Sprint(shards), "--block-lines", "500", refRuns+"/"); code != 0 {
		t.Fatalf("local cluster: exit %d: %s", code, se)
	}
	allSorted, se, code := run(t, wzp, nil, "index", "--sort", filepath.Join(work, "warcs")+"/")
	if code != 0 {
		t.Fatalf("waczpack index --sort of all WARCs: exit %d: %s", code, se)
	}

	// Spark: one session, both jobs
	a2wRows, runRows := filepath.Join(work, "arc2warc.jsonl"), filepath.Join(work, "runs.jsonl")
	jobs := []map[string]any{
		{"kind": "run", "name": "arc2warc", "list": "s3://coll/lists/arcs.txt", "shard_count": 5,
			"argv": []string{"arc2warc", "-o", "s3://coll/warc/{stem}.warc.gz", "--skip-existing"}, "results": a2wRows},
		{"kind": "zipnum", "name": "zipnum", "list": warcsTxt, "plan": true, "runs": "s3://coll/runs/",
			"cluster": "s3://coll/cluster/", "shards": shards, "run_tasks": 4,
			"extra": []string{"--block-lines", "500"}, "results": runRows},
	}
	jb, _ := json.Marshal(jobs)
	jobsFile := write("jobs.json", string(jb))
	cmd := exec.Command(py, filepath.Join(repoRoot(), "deploy/spark/arcport_spark.py"), "--master", "local[2,2]", "--bin-dir", binDir, "jobs", jobsFile)
	cmd.Dir = work
	cmd.Env = append(append([]string(nil), e.env...), "SPARK_LOCAL_IP=127.0.0.1", "PYSPARK_PYTHON="+py,
		"ARCPORT_SPARK_TEST_CRASH=arc2warc:1,zipnum-runs:2")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t1 := time.Now()
	err := cmd.Run()
	spark := time.Since(t1)
	if err != nil {
		t.Fatalf("arcport_spark.py: %v\nstdout:\n%s\nstderr (end):\n%s", err, stdout.String(), tail(stderr.String(), 6000))
	}
	t.Logf("arcport_spark.py jobs (local[2,2], one session) in %.1fs:\n%s", spark.Seconds(), strings.TrimSpace(stdout.String()))
	if n := strings.Count(stderr.String(), "Python worker exited unexpectedly"); n == 0 {
		t.Errorf("no Python worker crash in Spark's log: the test hook did not fire\n%s", tail(stderr.String(), 3000))
	}

	// 50 ARCs -> WARC: the same bytes as the local run
	rows := readRows(t, a2wRows)
	checkRows(t, "arc2warc", rows, nARC, 1)
	want := localFiles(t, refWARC)
	var wantKeys []string
	for name, b := range want {
		wantKeys = append(wantKeys, "warc/"+name)
		if strings.HasPrefix(name, "_done/") {
			continue // the markers name the inputs and outputs, s3:// here and local there
		}
		if got := e.object(t, "coll", "warc/"+name); !bytes.Equal(got, b) {
			t.Errorf("s3://coll/warc/%s: %d bytes differ from local arc2warc's %d", name, len(got), len(b))
		}
	}
	slices.Sort(wantKeys)
	if got := e.keys(t, "coll", "warc"); !slices.Equal(got, wantKeys) {
		t.Errorf("s3://coll/warc/: %d objects, want the %d outputs and their markers:\n%v", len(got), len(wantKeys), got)
	}
	if len(want) != 2*nARC {
		t.Errorf("local arc2warc wrote %d files, want %d WARCs and markers", len(want), 2*nARC)
	}

	// the cluster: every object equals the one-process cluster's
	checkRows(t, "zipnum-runs", readRows(t, runRows), nWARC, 2)
	ref := localFiles(t, refCluster)
	var refKeys []string
	for name, b := range ref {
		refKeys = append(refKeys, "cluster/"+name)
		if got := e.object(t, "coll", "cluster/"+name); !bytes.Equal(got, b) {
			t.Errorf("s3://coll/cluster/%s: %d bytes differ from the one-process cluster's %d", name, len(got), len(b))
		}
	}
	slices.Sort(refKeys)
	if got := e.keys(t, "coll", "cluster"); !slices.Equal(got, refKeys) {
		t.Errorf("s3://coll/cluster/: %v, want %v", got, refKeys)
	}
	var lines []byte
	for k := 0; k < shards; k++ {
		lines = append(lines, gunzipAll(t, ref[fmt.Sprintf("cdx-%05d.gz", k)])...)
	}
	if !bytes.Equal(lines, allSorted) || len(lines) == 0 {
		t.Errorf("the cluster's lines (%d bytes) are not waczpack index --sort of all WARCs (%d bytes)", len(lines), len(allSorted))
	}
	idx := ref["cluster.idx"]
	t.Logf("cluster: %d parts, %d lines, %d blocks in cluster.idx; %d objects, all equal", shards, bytes.Count(lines, []byte("\n")), bytes.Count(idx, []byte("\n")), len(refKeys))
	if len(e.keys(t, "coll", "runs")) != 2*nWARC {
		t.Errorf("s3://coll/runs/: %d objects, want %d runs and markers", len(e.keys(t, "coll", "runs")), 2*nWARC)
	}

	// nothing else: no temporary or partial object, no upload left open
	for _, k := range e.keys(t, "coll", "") {
		switch top, _, _ := strings.Cut(k, "/"); top {
		case "arc", "warcs", "lists", "warc", "runs", "cluster":
		default:
			t.Errorf("unexpected object s3://coll/%s", k)
		}
	}
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("multipart uploads left: %v", u)
	}
}

// checkRows: n rows, one per input; the crashed shard's rows come from its
// second attempt, and the one input it finished before the crash is skipped.
func checkRows(t *testing.T, job string, rows []sparkRow, n, crashed int) {
	t.Helper()
	seen := map[string]bool{}
	retried := 0
	for _, r := range rows {
		if seen[r.Input] {
			t.Errorf("%s: %s twice in the results", job, r.Input)
		}
		seen[r.Input] = true
		if r.Status != "done" && r.Status != "skipped" {
			t.Errorf("%s: %s: status %q", job, r.Input, r.Status)
		}
		if r.Job != job || r.Exit != 0 || r.Sha256 == "" || r.Bytes == 0 {
			t.Errorf("%s: row %+v", job, r)
		}
		if r.Shard == crashed {
			retried++
			if r.Attempt != 1 {
				t.Errorf("%s: shard %d (killed on attempt 0): a row from attempt %d", job, crashed, r.Attempt)
			}
		} else if r.Attempt != 0 {
			t.Errorf("%s: shard %d retried: %+v", job, r.Shard, r)
		}
	}
	skippedCrashed := 0
	for _, r := range rows {
		if r.Shard == crashed && r.Status == "skipped" {
			skippedCrashed++
		}
	}
	if skippedCrashed == 0 {
		t.Errorf("%s: shard %d: no input skipped on the retry (the kill came after one was reported)", job, crashed)
	}
	if len(seen) != n || retried == 0 {
		t.Errorf("%s: %d inputs in the results, want %d; %d from the killed shard", job, len(seen), n, retried)
	}
	skipped := 0
	for _, r := range rows {
		if r.Status == "skipped" {
			skipped++
		}
	}
	t.Logf("%s: %d rows, shard %d killed once and retried (%d rows, %d skipped: finished before the kill)", job, len(rows), crashed, retried, skipped)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestSparkDriverTasks runs deploy/spark/test_arcport_spark.py (unittest,
// no Spark session): the task side of the driver against the real binaries
// (done, skipped on a rerun, a bad input kept as a row with exit 65, a
// usage error raised for Spark to see).
func TestSparkDriverTasks(t *testing.T) {
	py := needPySpark(t)
	cmd := exec.Command(py, "-B", "-W", "error::ResourceWarning", "-m", "unittest", "-v", "deploy/spark/test_arcport_spark.py")
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "ARCPORT_BIN_DIR="+filepath.Dir(bin(t, "arc2warc")))
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("\nOK")) || bytes.Contains(out, []byte("skipped=")) {
		t.Fatalf("python -m unittest deploy/spark/test_arcport_spark.py: %v\n%s", err, out)
	}
	t.Logf("%s", tail(string(bytes.TrimSpace(out)), 400))
}
