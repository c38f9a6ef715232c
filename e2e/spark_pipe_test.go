package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSparkPipe: arcport_spark.py's JVM path (`run --via pipe`: Spark's
// PipedRDD runs arcport, no Python worker) in local[2,2] over 12 ARCs and a
// file that is not one, in 3 tasks, the test hook killing the arcport of
// task 1 on its first attempt once it has reported an input: Spark retries
// the task, the retry skips that input, every input is in the results once
// with its task's shard and exit status, the WARCs are byte for byte those
// `arc2warc --inputs` writes in one process, and the driver exits 65 for
// the bad input (a row, not a retried task).
func TestSparkPipe(t *testing.T) {
	py := needPySpark(t)
	dir := t.TempDir()
	var list strings.Builder
	for i := 0; i < 12; i++ {
		name := filepath.Join(dir, "in", fmt.Sprintf("p-%02d.arc", i))
		os.MkdirAll(filepath.Dir(name), 0o755)
		if err := os.WriteFile(name, genARC(filepath.Base(name), 2+i%3, 2000+i, int64(100+i)), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&list, name)
	}
	bad := filepath.Join(dir, "in", "not-an.arc")
	os.WriteFile(bad, []byte("this is not an ARC file\n"), 0o644)
	fmt.Fprintln(&list, bad)
	listFile := filepath.Join(dir, "list.txt")
	os.WriteFile(listFile, []byte(list.String()), 0o644)

	a2w := bin(t, "arc2warc")
	if _, se, code := run(t, a2w, nil, "--inputs", listFile, "-o", filepath.Join(dir, "ref/{stem}.warc.gz")); code != 65 {
		t.Fatalf("one-process run: exit %d, want 65: %s", code, se)
	}
	rowsFile := filepath.Join(dir, "rows.jsonl")
	cmd := exec.Command(py, filepath.Join(repoRoot(), "deploy/spark/arcport_spark.py"), "--master", "local[2,2]",
		"--bin-dir", filepath.Dir(a2w), "--results", rowsFile,
		"run", "--via", "pipe", "--name", "a2w", "--list", listFile, "--shard-count", "3", "--",
		"arc2warc", "-o", filepath.Join(dir, "out/{stem}.warc.gz"), "--skip-existing")
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "SPARK_LOCAL_IP=127.0.0.1", "ARCPORT_SPARK_TEST_CRASH=a2w:1",
		"ARCPORT_SPARK_TEST_MARK="+filepath.Join(dir, "crash"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 65 {
		t.Fatalf("arcport_spark.py run --via pipe: exit %d, want 65\n%s\n%s", code, stdout.String(), tail(stderr.String(), 3000))
	}
	t.Logf("arcport_spark.py run --via pipe in %.1fs: %s", time.Since(start).Seconds(), strings.TrimSpace(stdout.String()))
	if !strings.Contains(stderr.String(), "exited with status 137") {
		t.Errorf("no task killed in Spark's log: the test hook did not fire\n%s", tail(stderr.String(), 3000))
	}
	rows := readRows(t, rowsFile)
	seen := map[string]int{}
	skipped := 0
	for _, r := range rows {
		seen[r.Input]++
		want := "done"
		if r.Input == bad {
			want = "bad"
		}
		if r.Status == "skipped" && r.Shard == 1 {
			skipped++
		} else if r.Status != want {
			t.Errorf("%s: status %s, want %s", r.Input, r.Status, want)
		}
		if r.Job != "a2w" || (r.Exit == 65) != (r.Shard == 0) { // not-an.arc is input 12: shard 0
			t.Errorf("%s: job %s shard %d exit %d", r.Input, r.Job, r.Shard, r.Exit)
		}
	}
	if len(rows) != 13 || len(seen) != 13 {
		t.Errorf("%d rows for %d inputs, want 13 each: %v", len(rows), len(seen), seen)
	}
	if skipped == 0 {
		t.Error("no input skipped by the retried task")
	}
	got, want := localFiles(t, filepath.Join(dir, "out")), localFiles(t, filepath.Join(dir, "ref"))
	n := 0
	for name, b := range want {
		if strings.HasPrefix(name, "_") {
			continue
		}
		n++
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s: the Spark task's WARC differs from the one-process run's", name)
		}
	}
	if n < 12 {
		t.Errorf("%d WARCs in the one-process run, want 12 (and what was salvaged of the bad one)", n)
	}
	for name := range got {
		switch {
		case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-"):
			// the temporary file of the arcport SIGKILLed mid-write:
			// hidden, never under an output's name (SIGKILL leaves no
			// time to remove it)
			t.Logf("%s: left by the killed arcport", name)
		case !strings.HasPrefix(name, "_done/") && want[name] == nil:
			t.Errorf("%s: an output the one-process run did not write", name)
		}
	}
}
