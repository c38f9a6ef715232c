package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/store"
)

// Exit statuses of a batch task, beside cliutil's 0, 1 and 2.
const (
	// ExitBadInput (EX_DATAERR of sysexits.h): an input is bad; a retry
	// would fail the same way.
	ExitBadInput = 65
	// ExitTransient (EX_TEMPFAIL): storage failed after its retries; the
	// task may succeed when run again.
	ExitTransient = 75
)

// IndexEnv are the environment variables a task's index is read from
// when --shard-index is not given, in the order they are looked at.
var IndexEnv = []string{"ARCPORT_SHARD_INDEX", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"}

// Input is one input of a list or plan.
type Input struct {
	// Name is the input as listed: a path, s3:// or http(s):// URL.
	Name string `json:"input"`
	// Index is its position in the list (0-based, comments and blank
	// lines not counted).
	Index int `json:"index"`
	// Shard is the task it belongs to.
	Shard int `json:"shard"`
	// Size and ETag are pinned by a plan; Size is -1 and ETag "" in a
	// plain list.
	Size int64  `json:"size"`
	ETag string `json:"etag,omitempty"`
}

// Pinned reports whether the input's size and ETag were pinned by a plan.
func (in Input) Pinned() bool { return in.ETag != "" }

// List is a list of inputs as read from --inputs.
type List struct {
	// Inputs in list order.
	Inputs []Input
	// ShardCount is the plan's shard count, 0 for a plain list.
	ShardCount int
}

// planHeader is the first line of a plan.
type planHeader struct {
	// Plan is the plan format's version, PlanVersion.
	Plan       int    `json:"arcport_plan"`
	ShardCount int    `json:"shard_count"`
	Inputs     int    `json:"inputs"`
	Bytes      int64  `json:"bytes"`
	Balance    string `json:"balance"`
}

// PlanVersion is the version of the plan format this package writes and
// reads.
const PlanVersion = 1

// ReadList reads the list or plan name (a path, s3:// URL or "-" for
// stdin) through st.
func ReadList(ctx context.Context, st *store.Store, name string, stdin io.Reader) (*List, error) {
	var r io.Reader
	if name == "-" {
		if stdin == nil {
			return nil, cliutil.Usagef("--inputs -: no standard input")
		}
		r = stdin
	} else {
		rc, err := st.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		r = rc
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("--inputs %s: %w", store.Redact(name), err)
	}
	l, err := ParseList(data)
	if err != nil {
		return nil, cliutil.Usagef("--inputs %s: %v", store.Redact(name), err)
	}
	return l, nil
}

// ParseList parses a list (one input per line; blank lines and lines
// starting with # ignored; surrounding blanks trimmed) or, when its first
// such line starts with "{", a plan as WritePlan writes it.
func ParseList(data []byte) (*List, error) {
	var lines []string
	var nums []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		lines = append(lines, line)
		nums = append(nums, n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("no inputs listed")
	}
	if lines[0][0] != '{' {
		l := &List{Inputs: make([]Input, len(lines))}
		for i, s := range lines {
			l.Inputs[i] = Input{Name: s, Index: i, Size: -1}
		}
		return l, nil
	}
	var h planHeader
	if err := strictJSON(lines[0], &h); err != nil || h.Plan == 0 {
		return nil, fmt.Errorf("line %d: not a plan header (want {\"arcport_plan\":%d,...})", nums[0], PlanVersion)
	}
	if h.Plan != PlanVersion {
		return nil, fmt.Errorf("plan format %d; this version reads %d", h.Plan, PlanVersion)
	}
	if h.ShardCount < 1 {
		return nil, fmt.Errorf("plan: shard_count %d", h.ShardCount)
	}
	l := &List{ShardCount: h.ShardCount}
	for i, s := range lines[1:] {
		var in Input
		if err := strictJSON(s, &in); err != nil {
			return nil, fmt.Errorf("line %d: %v", nums[i+1], err)
		}
		switch {
		case in.Name == "":
			return nil, fmt.Errorf("line %d: no input", nums[i+1])
		case in.Index != i:
			return nil, fmt.Errorf("line %d: index %d, want %d", nums[i+1], in.Index, i)
		case in.Shard < 0 || in.Shard >= h.ShardCount:
			return nil, fmt.Errorf("line %d: shard %d of %d", nums[i+1], in.Shard, h.ShardCount)
		case in.ETag == "" || in.Size < 0:
			return nil, fmt.Errorf("line %d: no size or etag", nums[i+1])
		}
		l.Inputs = append(l.Inputs, in)
	}
	if len(l.Inputs) != h.Inputs {
		return nil, fmt.Errorf("plan: %d inputs, the header says %d (cut short?)", len(l.Inputs), h.Inputs)
	}
	return l, nil
}

func strictJSON(s string, v any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

// Shard is a task's place in a batch: task Index of Count.
type Shard struct {
	Index, Count int
}

// ResolveShard decides the task's shard from the flags (indexSet: whether
// --shard-index was given; count 0: not given) and the environment
// (getenv, os.Getenv in the tools), for a list of plan's shard count
// planCount (0: a plain list). Every failure is a *cliutil.UsageError.
func ResolveShard(indexSet bool, index, count, planCount int, getenv func(string) string) (Shard, error) {
	switch {
	case count < 0:
		return Shard{}, cliutil.Usagef("--shard-count %d: must be at least 1", count)
	case count == 0 && planCount > 0:
		count = planCount
	case count == 0:
		count = 1
	case planCount > 0 && count != planCount:
		return Shard{}, cliutil.Usagef("--shard-count %d, but the plan is for %d shards", count, planCount)
	}
	if indexSet {
		if index < 0 || index >= count {
			return Shard{}, cliutil.Usagef("--shard-index %d: must be 0 to %d", index, count-1)
		}
		return Shard{Index: index, Count: count}, nil
	}
	from := ""
	index = -1
	for _, k := range IndexEnv {
		v := strings.TrimSpace(getenv(k))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return Shard{}, cliutil.Usagef("%s=%q: not a shard index", k, v)
		}
		if from != "" && n != index {
			return Shard{}, cliutil.Usagef("conflicting shard indexes: %s=%d, %s=%d (give --shard-index)", from, index, k, n)
		}
		from, index = k, n
	}
	if from == "" {
		if count > 1 {
			return Shard{}, cliutil.Usagef("--shard-count %d needs --shard-index or one of %s", count, strings.Join(IndexEnv, ", "))
		}
		index = 0
	}
	if index >= count {
		return Shard{}, cliutil.Usagef("%s=%d: must be 0 to %d (--shard-count %d)", from, index, count-1, count)
	}
	return Shard{Index: index, Count: count}, nil
}

// Share returns the inputs of l that belong to shard s: a plan's own
// assignment, or for a plain list input n to task n mod s.Count. The
// inputs keep their list order.
func (l *List) Share(s Shard) []Input {
	var out []Input
	for _, in := range l.Inputs {
		if l.ShardCount == 0 {
			in.Shard = in.Index % s.Count
		}
		if in.Shard == s.Index {
			out = append(out, in)
		}
	}
	return out
}
