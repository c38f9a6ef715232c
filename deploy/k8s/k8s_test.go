// Package k8s holds the tests of the Kubernetes Jobs in this folder: a
// module of its own, so that arcport's module does not depend on
// k8s.io/api. Run them with (cd deploy/k8s && go test ./...).
package k8s

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// image is the image every Job runs: what ../Dockerfile builds.
const image = "registry.example.org/arcport:latest"

// jobs decodes every Job of the YAML files here, strictly: a field the
// Kubernetes API types do not have (a typo) fails the test.
func jobs(t *testing.T) map[string]*batchv1.Job {
	t.Helper()
	files, _ := filepath.Glob("*.yaml")
	if len(files) < 4 {
		t.Fatalf("%d YAML files", len(files))
	}
	out := map[string]*batchv1.Job{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(data), -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var j batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(doc), &j); err != nil {
				t.Fatalf("%s, document %d: %v", f, i, err)
			}
			if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Name == "" {
				t.Fatalf("%s, document %d: %s %s %q", f, i, j.APIVersion, j.Kind, j.Name)
			}
			out[f+":"+j.Name] = &j
		}
	}
	return out
}

// rule returns the podFailurePolicy action of exit code code in container
// c, or "".
func rule(j *batchv1.Job, c string, code int32) batchv1.PodFailurePolicyAction {
	if j.Spec.PodFailurePolicy == nil {
		return ""
	}
	for _, r := range j.Spec.PodFailurePolicy.Rules {
		e := r.OnExitCodes
		if e == nil || (e.ContainerName != nil && *e.ContainerName != c) {
			continue
		}
		in := slices.Contains(e.Values, code)
		if (e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) == in {
			return r.Action
		}
	}
	return ""
}

func arg(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestJobs: every Job decodes into batch/v1 Job; runs the image of
// ../Dockerfile without a shell; obeys what the API server's validation
// asks of a podFailurePolicy (restartPolicy Never; FailIndex only with
// backoffLimitPerIndex; no 0 among exit codes). Every indexed Job has
// per-index retries, fails an index at once on exit 65 (a bad input: a
// retry fails the same way), the whole Job on exit 2 (bad usage), and
// retries 75 (transient) within backoffLimitPerIndex; its task count is
// the --shard-count (or --shards) its command gives.
func TestJobs(t *testing.T) {
	js := jobs(t)
	indexed := 0
	for name, j := range js {
		spec := j.Spec.Template.Spec
		if spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q: a podFailurePolicy needs Never", name, spec.RestartPolicy)
		}
		if len(spec.Containers) != 1 {
			t.Fatalf("%s: %d containers", name, len(spec.Containers))
		}
		c := spec.Containers[0]
		if c.Image != image {
			t.Errorf("%s: image %q, want %q", name, c.Image, image)
		}
		if len(c.Command) != 1 || strings.ContainsAny(c.Command[0], " /") {
			t.Errorf("%s: command %q: the image has no shell; run a binary", name, c.Command)
		}
		if len(c.EnvFrom) == 0 {
			t.Errorf("%s: no S3 credentials", name)
		}
		pfp := j.Spec.PodFailurePolicy
		if pfp == nil {
			t.Errorf("%s: no podFailurePolicy", name)
			continue
		}
		for _, r := range pfp.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailIndex && j.Spec.BackoffLimitPerIndex == nil {
				t.Errorf("%s: FailIndex without backoffLimitPerIndex", name)
			}
			if e := r.OnExitCodes; e != nil && slices.Contains(e.Values, 0) {
				t.Errorf("%s: exit code 0 in a rule", name)
			}
		}
		if rule(j, c.Name, 2) != batchv1.PodFailurePolicyActionFailJob {
			t.Errorf("%s: exit 2 (bad usage) does not fail the Job", name)
		}
		if a := rule(j, c.Name, 75); a != "" {
			t.Errorf("%s: exit 75 (transient) is %s, want retried", name, a)
		}
		if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
			continue
		}
		indexed++
		if j.Spec.BackoffLimitPerIndex == nil || *j.Spec.BackoffLimitPerIndex < 1 {
			t.Errorf("%s: indexed without backoffLimitPerIndex", name)
		}
		if rule(j, c.Name, 65) != batchv1.PodFailurePolicyActionFailIndex {
			t.Errorf("%s: exit 65 (bad input) does not fail the index", name)
		}
		k := arg(c.Args, "--shard-count")
		if k == "" {
			k = arg(c.Args, "--shards")
		}
		n, err := strconv.Atoi(k)
		if err != nil || j.Spec.Completions == nil || int32(n) != *j.Spec.Completions {
			got := "none"
			if j.Spec.Completions != nil {
				got = strconv.Itoa(int(*j.Spec.Completions))
			}
			t.Errorf("%s: completions %s, the command's shard count %q", name, got, k)
		}
		if arg(c.Args, "--inputs") != "" && !slices.Contains(c.Args, "--skip-existing") {
			t.Errorf("%s: a batch task without --skip-existing redoes finished inputs on retry", name)
		}
		if arg(c.Args, "--shard") != "" && arg(c.Args, "--shard") != "$(JOB_COMPLETION_INDEX)" {
			t.Errorf("%s: --shard %q, want the completion index", name, arg(c.Args, "--shard"))
		}
	}
	if indexed < 3 {
		t.Errorf("%d indexed Jobs, want 3", indexed)
	}
}

// TestDockerfile: the image is static (CGO_ENABLED=0) on a base without a
// C library, and builds every binary the Jobs run.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(s, -1)
	if len(froms) < 2 || !strings.Contains(froms[len(froms)-1][1], "static") {
		t.Errorf("final stage %v: want a static base", froms)
	}
	if !strings.Contains(s, "CGO_ENABLED=0") || !strings.Contains(s, "./cmd/...") || !strings.Contains(s, image) {
		t.Error("Dockerfile: want CGO_ENABLED=0 go build ./cmd/... and the tag the Jobs name")
	}
	for name, j := range jobs(t) {
		bin := j.Spec.Template.Spec.Containers[0].Command[0]
		if _, err := os.Stat(filepath.Join("..", "..", "cmd", bin)); err != nil {
			t.Errorf("%s: runs %s, which ../../cmd does not build", name, bin)
		}
	}
}
